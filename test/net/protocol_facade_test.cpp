// protocol_facade_test.cpp — net::ip::tcp / net::ip::udp as protocols of I/O object templates,
// and the executor conversions of Asio's and Beast's examples (as_default_on, async_accept(strand))
#include <simasio/asio.hpp>
#include <simasio/beast.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <type_traits>

namespace net = simasio::asio;
namespace beast = simasio::beast;
namespace http = beast::http;
using net::ip::tcp;
using net::ip::udp;
using namespace std::chrono_literals;

// ---- the façade as a protocol: the same objects as on Asio's protocol ---------
using facade_socket = net::basic_stream_socket<tcp, net::any_io_executor>;
using facade_acceptor = net::basic_socket_acceptor<tcp, net::any_io_executor>;
using facade_resolver = net::ip::basic_resolver<tcp, net::any_io_executor>;
using facade_datagram = net::basic_datagram_socket<udp, net::any_io_executor>;
using facade_udp_resolver = net::ip::basic_resolver<udp, net::any_io_executor>;

static_assert(std::is_same_v<facade_socket::protocol_type, boost::asio::ip::tcp>);
static_assert(std::is_same_v<facade_socket::endpoint_type, boost::asio::ip::tcp::endpoint>);
static_assert(std::is_same_v<facade_acceptor::protocol_type, boost::asio::ip::tcp>);
static_assert(std::is_same_v<facade_acceptor::endpoint_type, tcp::endpoint>);
static_assert(std::is_same_v<facade_resolver::results_type, tcp::resolver::results_type>);
static_assert(std::is_same_v<facade_udp_resolver::endpoint_type, udp::endpoint>);
static_assert(std::is_same_v<facade_datagram::protocol_type, boost::asio::ip::udp>);
static_assert(std::is_same_v<facade_datagram::endpoint_type, udp::endpoint>);
// Convertible both ways by move, to and from the Asio-protocol objects.
static_assert(std::is_convertible_v<tcp::socket&&, facade_socket>);
static_assert(std::is_convertible_v<facade_socket&&, tcp::socket>);
static_assert(std::is_convertible_v<tcp::acceptor&&, facade_acceptor>);
static_assert(std::is_convertible_v<tcp::resolver&&, facade_resolver>);
static_assert(std::is_convertible_v<udp::socket&&, facade_datagram>);
static_assert(std::is_convertible_v<facade_datagram&&, udp::socket>);
// rebind_executor keeps the façade.
using strand_type = net::strand<net::io_context::executor_type>;
static_assert(std::is_same_v<facade_socket::rebind_executor<strand_type>::other,
                             net::basic_stream_socket<tcp, strand_type>>);
static_assert(std::is_same_v<facade_acceptor::rebind_executor<strand_type>::other,
                             net::basic_socket_acceptor<tcp, strand_type>>);
static_assert(std::is_same_v<facade_resolver::rebind_executor<strand_type>::other,
                             net::ip::basic_resolver<tcp, strand_type>>);
static_assert(std::is_same_v<facade_datagram::rebind_executor<strand_type>::other,
                             net::basic_datagram_socket<udp, strand_type>>);

// ---- as_default_on: Asio's cpp20 examples and Beast's awaitable examples ------
using awaitable_resolver = net::use_awaitable_t<>::as_default_on_t<tcp::resolver>;
using awaitable_acceptor = net::use_awaitable_t<>::as_default_on_t<tcp::acceptor>;
using awaitable_socket = net::use_awaitable_t<>::as_default_on_t<tcp::socket>;
static_assert(std::is_same_v<awaitable_resolver::results_type, tcp::resolver::results_type>);

BOOST_AUTO_TEST_SUITE(protocol_facade)

// A client and a server written with the façade as their protocol and their
// own executor types exchange bytes.
BOOST_AUTO_TEST_CASE(facade_protocol_objects_connect_resolve_and_echo) {
  simasio::world w(3);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  facade_acceptor acceptor(server.context().get_executor(), tcp::endpoint(tcp::v4(), 7));
  std::string echoed;
  acceptor.async_accept([&](boost::system::error_code ec, facade_socket peer) {
    BOOST_TEST(!ec);
    auto s = std::make_shared<facade_socket>(std::move(peer));
    auto buf = std::make_shared<std::string>(5, '\0');
    net::async_read(*s, net::buffer(*buf), [s, buf](boost::system::error_code ec, std::size_t) {
      BOOST_TEST(!ec);
      net::async_write(*s, net::buffer(*buf), [s, buf](boost::system::error_code, std::size_t) {});
    });
  });
  facade_resolver resolver(client.context().get_executor());
  facade_socket sock(client.context().get_executor());
  std::string reply(5, '\0');
  resolver.async_resolve("server", "7", [&](boost::system::error_code ec, facade_resolver::results_type r) {
    BOOST_TEST(!ec);
    net::async_connect(sock, r, [&](boost::system::error_code ec, const tcp::endpoint&) {
      BOOST_TEST(!ec);
      net::async_write(sock, net::buffer("hello", 5), [&](boost::system::error_code, std::size_t) {
        net::async_read(sock, net::buffer(reply), [&](boost::system::error_code ec, std::size_t) {
          if (!ec) echoed = reply;
        });
      });
    });
  });
  w.run();
  BOOST_TEST(echoed == "hello");
  // And a façade socket moves into Asio's protocol socket and back.
  tcp::socket plain = std::move(sock);
  BOOST_TEST(plain.is_open());
  facade_socket back = std::move(plain);
  BOOST_TEST(back.is_open());
  BOOST_TEST(back.remote_endpoint().port() == 7);
}

BOOST_AUTO_TEST_CASE(facade_datagram_socket_sends_and_receives) {
  simasio::world w(4);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  facade_datagram receiver(b.context().get_executor(), udp::endpoint(udp::v4(), 9));
  facade_datagram sender(a.context().get_executor(), udp::v4());
  std::string got(2, '\0');
  udp::endpoint from;
  receiver.async_receive_from(net::buffer(got), from, [&](boost::system::error_code ec, std::size_t n) {
    BOOST_TEST(!ec);
    got.resize(n);
  });
  sender.send_to(net::buffer(std::string("hi")), udp::endpoint(b.address(), 9));
  w.run();
  BOOST_TEST(got == "hi");
  BOOST_TEST(from.address() == a.address());
}

// Asio's cpp20/coroutines/echo_server_with_default.cpp and Beast's
// http_client_awaitable.cpp: objects rebound to use_awaitable by default.
BOOST_AUTO_TEST_CASE(as_default_on_resolver_acceptor_and_socket_work_in_coroutines) {
  simasio::world w(5);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  net::co_spawn(
      server.context(),
      []() -> net::awaitable<void> {
        auto executor = co_await net::this_coro::executor;
        awaitable_acceptor acceptor(executor, {tcp::v4(), 55555});
        awaitable_socket socket = co_await acceptor.async_accept();
        char data[16];
        for (;;) {  // as the example: echo until the client goes (end of file ends it by exception)
          std::size_t n = co_await socket.async_read_some(net::buffer(data));
          co_await net::async_write(socket, net::buffer(data, n));
        }
      },
      net::detached);
  std::string reply;
  net::co_spawn(
      client.context(),
      [&]() -> net::awaitable<void> {
        auto resolver = net::use_awaitable.as_default_on(tcp::resolver(co_await net::this_coro::executor));
        awaitable_socket socket(co_await net::this_coro::executor);
        const auto results = co_await resolver.async_resolve("server", "55555");
        co_await net::async_connect(socket, results);
        co_await net::async_write(socket, net::buffer(std::string("ping")));
        reply.resize(4);
        co_await net::async_read(socket, net::buffer(reply));
      },
      net::detached);
  w.run();
  BOOST_TEST(reply == "ping");
}

// Beast's advanced_server.cpp: acceptor_.async_accept(net::make_strand(ioc_),
// ...) hands on_accept(ec, tcp::socket) a socket whose executor is the
// strand; the session wraps it in a beast::tcp_stream.
BOOST_AUTO_TEST_CASE(async_accept_on_a_strand_gives_a_socket_on_that_strand) {
  simasio::world w(6);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  net::io_context& ioc = server.context();
  tcp::acceptor acceptor(net::make_strand(ioc));
  acceptor.open(tcp::v4());
  acceptor.set_option(net::socket_base::reuse_address(true));
  acceptor.bind({tcp::v4(), 80});
  acceptor.listen(net::socket_base::max_listen_connections);
  bool on_strand = false;
  std::string target;
  acceptor.async_accept(net::make_strand(ioc), [&](beast::error_code ec, tcp::socket socket) {
    BOOST_TEST(!ec);
    on_strand = socket.get_executor().target<strand_type>() != nullptr;
    auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
    auto buffer = std::make_shared<beast::flat_buffer>();
    auto req = std::make_shared<http::request<http::string_body>>();
    stream->expires_after(30s);
    http::async_read(*stream, *buffer, *req, [&, stream, buffer, req](beast::error_code ec, std::size_t) {
      BOOST_TEST(!ec);
      target = std::string(req->target());
    });
  });
  // The executor-typed and context forms give sockets of those types.
  static_assert(std::is_same_v<decltype(acceptor.accept(ioc)), net::basic_stream_socket<boost::asio::ip::tcp,
                                                                                    net::io_context::executor_type>>);
  tcp::socket peer(client.context());
  peer.connect(tcp::endpoint(server.address(), 80));
  http::request<http::string_body> req{http::verb::get, "/strand", 11};
  http::write(peer, req);
  w.run();
  BOOST_TEST(on_strand);
  BOOST_TEST(target == "/strand");
}

// Beast's http_server_fast.cpp accepts into a socket it owns, made on the
// acceptor's executor, and the executor-typed socket form of Asio.
BOOST_AUTO_TEST_CASE(async_accept_into_sockets_of_other_executor_types) {
  simasio::world w(7);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  tcp::acceptor acceptor(server.context(), {tcp::v4(), 80});
  tcp::socket socket{acceptor.get_executor()};
  net::basic_stream_socket<tcp, strand_type> stranded(net::make_strand(server.context()));
  int accepted = 0;
  acceptor.async_accept(socket, [&](beast::error_code ec) {
    accepted += !ec;
    acceptor.async_accept(stranded, [&](beast::error_code ec) { accepted += !ec; });
  });
  tcp::socket c1(client.context()), c2(client.context());
  c1.connect(tcp::endpoint(server.address(), 80));
  c2.connect(tcp::endpoint(server.address(), 80));
  w.run();
  BOOST_TEST(accepted == 2);
  BOOST_TEST(socket.remote_endpoint().port() == c1.local_endpoint().port());
  BOOST_TEST(stranded.remote_endpoint().port() == c2.local_endpoint().port());
}

BOOST_AUTO_TEST_SUITE_END()
