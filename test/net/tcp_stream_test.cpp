// tcp_stream_test.cpp — Beast's tcp_stream and websocket::stream on simulated sockets and timers
#include <simasio/beast.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>

namespace net = simasio::asio;
namespace beast = simasio::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using net::ip::tcp;
using namespace std::chrono_literals;

namespace {

// The simulated socket type behind Beast's tcp_stream, and its timers.
static_assert(std::is_base_of_v<simasio::basic_stream_socket<boost::asio::ip::tcp, simasio::any_io_executor>,
                                beast::tcp_stream::socket_type>,
              "beast::tcp_stream must hold simasio's simulated socket");
static_assert(std::is_same_v<beast::tcp_stream::executor_type, simasio::any_io_executor>);
static_assert(std::is_same_v<net::any_io_executor, simasio::any_io_executor>);

// An HTTP server on "server":80 answering every request on a connection
// with the target echoed in the body, through beast::tcp_stream.
void serve_http(simasio::host& server) {
  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
  net::co_spawn(
      server.context(),
      [acc]() -> net::awaitable<void> {
        for (;;) {
          tcp::socket s = co_await acc->async_accept(net::use_awaitable);
          net::co_spawn(
              acc->get_executor(),
              [stream = std::make_shared<beast::tcp_stream>(std::move(s))]() -> net::awaitable<void> {
                beast::flat_buffer buffer;
                for (;;) {
                  http::request<http::string_body> req;
                  stream->expires_after(30s);
                  auto [ec, n] = co_await http::async_read(*stream, buffer, req, net::as_tuple(net::use_awaitable));
                  if (ec) co_return;
                  http::response<http::string_body> res{http::status::ok, req.version()};
                  res.body() = "echo:" + std::string(req.target());
                  res.keep_alive(req.keep_alive());
                  res.prepare_payload();
                  co_await http::async_write(*stream, res, net::use_awaitable);
                }
              },
              net::detached);
        }
      },
      net::detached);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(beast_tcp_stream)

BOOST_AUTO_TEST_CASE(http_over_tcp_stream_survives_loss_and_a_healing_partition_on_every_seed) {
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.loss = 0.05;
    w.net().configure(link);
    auto& server = w.add_host("server");
    auto& client = w.add_host("client");
    serve_http(server);
    std::vector<std::string> bodies;
    net::co_spawn(
        client.context(),
        [&]() -> net::awaitable<void> {
          auto ex = co_await net::this_coro::executor;
          tcp::resolver resolver(ex);
          beast::tcp_stream stream(ex);
          stream.expires_after(60s);
          co_await stream.async_connect(co_await resolver.async_resolve("server", "80", net::use_awaitable),
                                        net::use_awaitable);
          beast::flat_buffer buffer;
          for (int i = 0; i < 3; ++i) {
            http::request<http::string_body> req{http::verb::get, "/r" + std::to_string(i), 11};
            req.set(http::field::host, "server");
            stream.expires_after(60s);
            co_await http::async_write(stream, req, net::use_awaitable);
            http::response<http::string_body> res;
            co_await http::async_read(stream, buffer, res, net::use_awaitable);
            bodies.push_back(res.body());
          }
          stream.socket().shutdown(tcp::socket::shutdown_both);
        },
        net::detached);
    w.net().partition({{&client}, {&server}});
    w.run_for(2s);
    w.net().heal();
    w.run_for(10min);
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST(bodies == (std::vector<std::string>{"echo:/r0", "echo:/r1", "echo:/r2"}),
               boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(a_read_timeout_is_beast_error_timeout_exactly_when_virtual_time_passes_it) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world w(seed);
    auto& server = w.add_host("server");
    auto& client = w.add_host("client");
    // Accepts and never answers.
    auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
    auto held = std::make_shared<std::optional<tcp::socket>>();
    acc->async_accept([acc, held](boost::system::error_code, tcp::socket s) { held->emplace(std::move(s)); });
    beast::error_code result;
    simasio::steady_clock::duration waited{};
    net::co_spawn(
        client.context(),
        [&]() -> net::awaitable<void> {
          beast::tcp_stream stream(co_await net::this_coro::executor);
          co_await stream.async_connect(tcp::endpoint(server.address(), 80), net::use_awaitable);
          char byte;
          stream.expires_after(7s);
          const auto start = simasio::steady_clock::now();
          auto [ec, n] = co_await stream.async_read_some(net::buffer(&byte, 1), net::as_tuple(net::use_awaitable));
          result = ec;
          waited = simasio::steady_clock::now() - start;
        },
        net::detached);
    w.run_for(1min);
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST((result == beast::error::timeout), result.message());
    BOOST_TEST(waited == simasio::steady_clock::duration(7s));
  }
}

BOOST_AUTO_TEST_CASE(expires_never_waits_for_as_long_as_the_peer_takes) {
  simasio::world w(3);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
  net::co_spawn(
      server.context(),
      [acc]() -> net::awaitable<void> {
        tcp::socket s = co_await acc->async_accept(net::use_awaitable);
        net::steady_timer t(s.get_executor(), 2h);
        co_await t.async_wait(net::use_awaitable);
        co_await net::async_write(s, net::buffer("late", 4), net::use_awaitable);
      },
      net::detached);
  std::string got;
  beast::error_code result = net::error::would_block;
  net::co_spawn(
      client.context(),
      [&]() -> net::awaitable<void> {
        beast::tcp_stream stream(co_await net::this_coro::executor);
        stream.expires_after(1s);
        co_await stream.async_connect(tcp::endpoint(server.address(), 80), net::use_awaitable);
        stream.expires_never();
        char buf[4];
        auto [ec, n] = co_await net::async_read(stream, net::buffer(buf), net::as_tuple(net::use_awaitable));
        result = ec;
        got.assign(buf, n);
      },
      net::detached);
  w.run_for(3h);
  BOOST_TEST(!result);
  BOOST_TEST(got == "late");
}

BOOST_AUTO_TEST_CASE(a_simple_rate_policy_paces_reads_on_virtual_time) {
  simasio::world w(5);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
  net::co_spawn(
      server.context(),
      [acc]() -> net::awaitable<void> {
        tcp::socket s = co_await acc->async_accept(net::use_awaitable);
        std::string data(5000, 'x');
        co_await net::async_write(s, net::buffer(data), net::use_awaitable);
        net::steady_timer t(s.get_executor(), 1h);
        co_await t.async_wait(net::use_awaitable);
      },
      net::detached);
  std::size_t got = 0;
  simasio::steady_clock::duration took{};
  net::co_spawn(
      client.context(),
      [&]() -> net::awaitable<void> {
        beast::basic_stream<tcp, net::any_io_executor, beast::simple_rate_policy> stream(
            co_await net::this_coro::executor);
        stream.rate_policy().read_limit(1000);  // bytes per second
        co_await stream.async_connect(tcp::endpoint(server.address(), 80), net::use_awaitable);
        const auto start = simasio::steady_clock::now();
        std::string buf(5000, '\0');
        got = co_await net::async_read(stream, net::buffer(buf), net::use_awaitable);
        took = simasio::steady_clock::now() - start;
      },
      net::detached);
  w.run_for(2h);
  BOOST_TEST(got == 5000u);
  // 1,000 bytes a second: 5,000 bytes need at least three more ticks of the
  // rate timer after the first budget (unpaced, they arrive in milliseconds).
  BOOST_TEST(took >= simasio::steady_clock::duration(3s));
  BOOST_TEST(took < simasio::steady_clock::duration(5s));
}

BOOST_AUTO_TEST_CASE(socket_and_release_socket_hand_out_the_simulated_socket) {
  simasio::world w(7);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
  std::string heard;
  net::co_spawn(
      server.context(),
      [&, acc]() -> net::awaitable<void> {
        beast::tcp_stream stream(co_await acc->async_accept(net::use_awaitable));
        // release_socket() gives the socket back as the application's own type.
        tcp::socket s = stream.release_socket();
        BOOST_TEST(!stream.socket().is_open());
        char buf[5];
        co_await net::async_read(s, net::buffer(buf), net::use_awaitable);
        heard.assign(buf, 5);
      },
      net::detached);
  tcp::endpoint local;
  net::co_spawn(
      client.context(),
      [&]() -> net::awaitable<void> {
        beast::tcp_stream stream(co_await net::this_coro::executor);
        co_await stream.async_connect(tcp::endpoint(server.address(), 80), net::use_awaitable);
        local = stream.socket().local_endpoint();
        co_await net::async_write(stream, net::buffer("hello", 5), net::use_awaitable);
      },
      net::detached);
  w.run_for(1min);
  BOOST_TEST(heard == "hello");
  BOOST_TEST(local.address() == client.address());
}

// Beast's advanced_server_flex_awaitable rebinds tcp_stream to the
// io_context's own executor type (wrapped in use_awaitable's
// executor_with_default): the socket and the timers behind it are
// simasio's too, as is an Asio timer typed on that executor.
BOOST_AUTO_TEST_CASE(a_tcp_stream_rebound_to_the_io_contexts_executor_is_simulated) {
  using executor_type = net::io_context::executor_type;
  using with_default = net::as_tuple_t<net::use_awaitable_t<executor_type>>::executor_with_default<executor_type>;
  using stream_type = beast::tcp_stream::rebind_executor<with_default>::other;
  static_assert(std::is_base_of_v<simasio::basic_stream_socket<boost::asio::ip::tcp, with_default>,
                                  stream_type::socket_type>);
  using asio_timer = boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                                       boost::asio::wait_traits<std::chrono::steady_clock>, executor_type>;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world w(seed);
    auto& server = w.add_host("server");
    auto& client = w.add_host("client");
    boost::asio::basic_socket_acceptor<boost::asio::ip::tcp, executor_type> acc(server.context().get_executor(),
                                                                                 tcp::endpoint(tcp::v4(), 80));
    std::optional<stream_type> stream;
    beast::error_code result;
    simasio::steady_clock::duration waited{};
    acc.async_accept([&](beast::error_code, boost::asio::basic_stream_socket<boost::asio::ip::tcp, executor_type> s) {
      stream.emplace(std::move(s));
      stream->expires_after(5s);  // the client never writes
      const auto start = simasio::steady_clock::now();
      static char byte;
      stream->async_read_some(net::buffer(&byte, 1), [&, start](beast::error_code ec, std::size_t) {
        result = ec;
        waited = simasio::steady_clock::now() - start;
      });
    });
    tcp::socket c(client.context());
    c.async_connect(tcp::endpoint(server.address(), 80), [](beast::error_code) {});
    asio_timer t(client.context().get_executor(), 3s);
    simasio::duration fired{};
    t.async_wait([&](beast::error_code) { fired = w.now(); });
    w.run_for(1min);
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST((result == beast::error::timeout), result.message());
    BOOST_TEST(waited == simasio::steady_clock::duration(5s));
    BOOST_TEST(fired == simasio::duration(3s));
  }
}

BOOST_AUTO_TEST_CASE(a_stream_built_on_a_real_io_context_is_not_simulated) {
  // The simulated socket needs a simulated context; the message says so.
  boost::asio::io_context real;
  BOOST_CHECK_THROW(beast::tcp_stream stream(real), simasio::escape_error);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(beast_websocket)

namespace {
// A websocket echo server on "server":80 with Beast's suggested timeouts.
void serve_websocket(simasio::host& server) {
  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
  net::co_spawn(
      server.context(),
      [acc]() -> net::awaitable<void> {
        for (;;) {
          tcp::socket s = co_await acc->async_accept(net::use_awaitable);
          net::co_spawn(
              acc->get_executor(),
              [ws = std::make_shared<websocket::stream<beast::tcp_stream>>(std::move(s))]() -> net::awaitable<void> {
                ws->set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
                co_await ws->async_accept(net::use_awaitable);
                beast::flat_buffer buffer;
                for (;;) {
                  auto [ec, n] = co_await ws->async_read(buffer, net::as_tuple(net::use_awaitable));
                  if (ec) co_return;
                  ws->text(ws->got_text());
                  co_await ws->async_write(buffer.data(), net::use_awaitable);
                  buffer.consume(buffer.size());
                }
              },
              net::detached);
        }
      },
      net::detached);
}
}  // namespace

BOOST_AUTO_TEST_CASE(handshake_echo_ping_and_close_over_tcp_stream_on_every_seed) {
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.loss = 0.05;
    w.net().configure(link);
    auto& server = w.add_host("server");
    auto& client = w.add_host("client");
    serve_websocket(server);
    std::vector<std::string> echoed;
    beast::error_code closed = net::error::would_block;
    net::co_spawn(
        client.context(),
        [&]() -> net::awaitable<void> {
          auto ex = co_await net::this_coro::executor;
          tcp::resolver resolver(ex);
          websocket::stream<beast::tcp_stream> ws(ex);
          beast::get_lowest_layer(ws).expires_after(60s);
          co_await beast::get_lowest_layer(ws).async_connect(
              co_await resolver.async_resolve("server", "80", net::use_awaitable), net::use_awaitable);
          beast::get_lowest_layer(ws).expires_never();
          ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
          co_await ws.async_handshake("server", "/", net::use_awaitable);
          co_await ws.async_ping({}, net::use_awaitable);
          beast::flat_buffer buffer;
          for (int i = 0; i < 3; ++i) {
            co_await ws.async_write(net::buffer("m" + std::to_string(i)), net::use_awaitable);
            co_await ws.async_read(buffer, net::use_awaitable);
            echoed.push_back(beast::buffers_to_string(buffer.data()));
            buffer.consume(buffer.size());
          }
          co_await ws.async_close(websocket::close_code::normal, net::use_awaitable);
          // After close, a read ends with websocket::error::closed.
          auto [ec, n] = co_await ws.async_read(buffer, net::as_tuple(net::use_awaitable));
          closed = ec;
        },
        net::detached);
    w.run_for(10min);
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST(echoed == (std::vector<std::string>{"m0", "m1", "m2"}), boost::test_tools::per_element());
    BOOST_TEST((closed == websocket::error::closed || closed == net::error::operation_aborted), closed.message());
  }
}

BOOST_AUTO_TEST_CASE(a_websocket_over_a_plain_simulated_socket_closes_through_simasios_teardown) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.loss = 0.05;
    w.net().configure(link);
    auto& server = w.add_host("server");
    auto& client = w.add_host("client");
    auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
    beast::error_code server_end = net::error::would_block;
    net::co_spawn(
        server.context(),
        [&, acc]() -> net::awaitable<void> {
          websocket::stream<tcp::socket> ws(co_await acc->async_accept(net::use_awaitable));
          co_await ws.async_accept(net::use_awaitable);
          beast::flat_buffer buffer;
          co_await ws.async_read(buffer, net::use_awaitable);
          co_await ws.async_write(buffer.data(), net::use_awaitable);
          auto [ec, n] = co_await ws.async_read(buffer, net::as_tuple(net::use_awaitable));
          server_end = ec;
        },
        net::detached);
    std::string echoed;
    bool socket_closed = false;
    net::co_spawn(
        client.context(),
        [&]() -> net::awaitable<void> {
          websocket::stream<tcp::socket> ws(co_await net::this_coro::executor);
          co_await ws.next_layer().async_connect(tcp::endpoint(server.address(), 80), net::use_awaitable);
          co_await ws.async_handshake("server", "/", net::use_awaitable);
          co_await ws.async_write(net::buffer(std::string("over a plain socket")), net::use_awaitable);
          beast::flat_buffer buffer;
          co_await ws.async_read(buffer, net::use_awaitable);
          echoed = beast::buffers_to_string(buffer.data());
          co_await ws.async_close(websocket::close_code::normal, net::use_awaitable);
          socket_closed = !ws.next_layer().is_open();  // teardown closed it
        },
        net::detached);
    w.run_for(10min);
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST(echoed == "over a plain socket");
    BOOST_TEST(socket_closed);
    BOOST_TEST((server_end == websocket::error::closed), server_end.message());
  }
}

BOOST_AUTO_TEST_SUITE_END()
