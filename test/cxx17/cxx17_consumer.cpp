// cxx17_consumer.cpp — a C++17 service tested in simulation: simasio's public headers under -std=c++17
//
// Written as a C++17 codebase writes Asio: callbacks and shared_from_this,
// a composed operation of its own (async_compose over a state machine),
// Asio's composed reads and writes, a strand, timers, and Beast HTTP over
// beast::tcp_stream. Built with CXX_STANDARD 17 and no extensions; the
// #error below keeps it honest if a flag ever raises the standard.
#define BOOST_TEST_MODULE simasio_cxx17_consumer
#include <simasio/boost_test.hpp>

#include <simasio/asio.hpp>
#include <simasio/beast.hpp>
#include <simasio/simasio.hpp>

#if __cplusplus != 201703L
#error "cxx17_consumer.cpp must be compiled as C++17 (CXX_STANDARD 17)"
#endif

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace net = simasio::asio;
namespace beast = simasio::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

namespace {

// Faults every case runs under: latency, 5% loss, a partition that heals.
void faulty_network(simasio::world& world, simasio::host& a, simasio::host& b) {
  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 20ms;
  link.loss = 0.05;
  world.net().configure(link);
  auto timer = std::make_shared<net::steady_timer>(a.context(), 30ms);
  timer->async_wait([&world, &a, &b, timer](const boost::system::error_code&) {
    world.net().partition({{&a}, {&b}});
    timer->expires_after(200ms);
    timer->async_wait([&world, timer](const boost::system::error_code&) { world.net().heal(); });
  });
}

// ---- an echo service written with callbacks ------------------------------

class echo_session : public std::enable_shared_from_this<echo_session> {
 public:
  explicit echo_session(tcp::socket socket) : socket_(std::move(socket)) {}
  void start() { read(); }

 private:
  void read() {
    auto self = shared_from_this();
    socket_.async_read_some(net::buffer(data_), [this, self](boost::system::error_code ec, std::size_t n) {
      if (ec) return;
      net::async_write(socket_, net::buffer(data_, n),
                       [this, self](boost::system::error_code ec2, std::size_t) {
                         if (!ec2) read();
                       });
    });
  }
  tcp::socket socket_;
  char data_[512];
};

class echo_server {
 public:
  echo_server(net::io_context& io, unsigned short port) : acceptor_(io, tcp::endpoint(tcp::v4(), port)) { accept(); }

 private:
  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (!ec) std::make_shared<echo_session>(std::move(socket))->start();
      accept();
    });
  }
  tcp::acceptor acceptor_;
};

// A composed operation of the service's own, C++17 style: connect to one
// of the resolved endpoints, send a line, read the echo back; one completion.
struct round_trip_op {
  enum class stage { connecting, writing, reading };
  tcp::socket& socket;
  tcp::resolver::results_type endpoints;
  const std::string& line;
  std::string& reply;
  stage at = stage::connecting;

  template <typename Self>
  void operator()(Self& self) {
    net::async_connect(socket, endpoints, std::move(self));
  }
  template <typename Self>
  void operator()(Self& self, boost::system::error_code ec, const tcp::endpoint&) {
    if (ec) return self.complete(ec, 0);
    at = stage::writing;
    net::async_write(socket, net::buffer(line), std::move(self));
  }
  template <typename Self>
  void operator()(Self& self, boost::system::error_code ec, std::size_t n) {
    if (ec || at == stage::reading) return self.complete(ec, n);
    at = stage::reading;
    reply.resize(line.size());
    net::async_read(socket, net::buffer(reply), net::transfer_exactly(line.size()), std::move(self));
  }
};

template <typename CompletionToken>
auto async_round_trip(tcp::socket& socket, tcp::resolver::results_type endpoints, const std::string& line,
                      std::string& reply, CompletionToken&& token) {
  return net::async_compose<CompletionToken, void(boost::system::error_code, std::size_t)>(
      round_trip_op{socket, std::move(endpoints), line, reply}, token, socket);
}

}  // namespace

// Callbacks, Asio's composed reads and writes, the service's own composed
// operation, a resolver and a deadline: every seed echoes the line.
SIMASIO_TEST_CASE(callbacks_and_composed_operations_under_faults, 100) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  faulty_network(world, client, server);
  echo_server service(server.context(), 7000);

  tcp::resolver resolver(client.context());
  tcp::socket socket(client.context());
  std::string line = "hello from C++17\n";
  std::string reply;
  boost::system::error_code result = net::error::would_block;
  net::steady_timer deadline(client.context(), 60s);
  deadline.async_wait([&](const boost::system::error_code& ec) {
    if (!ec) socket.close();
  });
  resolver.async_resolve("server", "7000", [&](boost::system::error_code ec, tcp::resolver::results_type eps) {
    BOOST_REQUIRE(!ec);
    async_round_trip(socket, eps, line, reply, [&](boost::system::error_code ec2, std::size_t) {
      result = ec2;
      deadline.cancel();
    });
  });
  world.run_for(2min);
  BOOST_TEST(result.message() == boost::system::error_code().message());
  BOOST_TEST(reply == line);
}

// A strand serialises handlers posted from two contexts' worth of work;
// deadline_timer (ptime) and steady_timer both run on virtual time.
SIMASIO_TEST_CASE(strand_and_timers, 50) {
  auto& h = world.add_host("h");
  auto strand = net::make_strand(h.context());
  int inside = 0;
  int max_inside = 0;
  int done = 0;
  for (int i = 0; i < 20; ++i) {
    net::post(strand, [&] {
      max_inside = std::max(max_inside, ++inside);
      --inside;
      ++done;
    });
  }
  net::deadline_timer old_style(h.context(), boost::posix_time::seconds(5));
  bool old_fired = false;
  old_style.async_wait([&](const boost::system::error_code& ec) { old_fired = !ec; });
  const auto start = simasio::steady_clock::now();
  world.run();
  BOOST_TEST(done == 20);
  BOOST_TEST(max_inside == 1);
  BOOST_TEST(old_fired);
  BOOST_TEST((simasio::steady_clock::now() - start).count() == std::chrono::nanoseconds(5s).count());
}

// ---- Beast HTTP over beast::tcp_stream ----------------------------------

namespace {

class http_session : public std::enable_shared_from_this<http_session> {
 public:
  explicit http_session(tcp::socket socket) : stream_(std::move(socket)) {}
  void start() {
    stream_.expires_after(30s);
    http::async_read(stream_, buffer_, request_,
                     beast::bind_front_handler(&http_session::on_read, shared_from_this()));
  }

 private:
  void on_read(beast::error_code ec, std::size_t) {
    if (ec) return;
    response_ = {http::status::ok, request_.version()};
    response_.set(http::field::content_type, "text/plain");
    response_.body() = "you asked for " + std::string(request_.target());
    response_.prepare_payload();
    http::async_write(stream_, response_, beast::bind_front_handler(&http_session::on_write, shared_from_this()));
  }
  void on_write(beast::error_code ec, std::size_t) {
    if (!ec) stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
};

}  // namespace

SIMASIO_TEST_CASE(beast_http_over_tcp_stream_under_faults, 100) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  faulty_network(world, client, server);
  tcp::acceptor acceptor(server.context(), tcp::endpoint(tcp::v4(), 80));
  std::function<void()> accept = [&] {
    acceptor.async_accept([&](beast::error_code ec, tcp::socket s) {
      if (!ec) std::make_shared<http_session>(std::move(s))->start();
      accept();
    });
  };
  accept();

  tcp::resolver resolver(client.context());
  beast::tcp_stream stream(client.context());
  beast::flat_buffer buffer;
  http::request<http::string_body> request{http::verb::get, "/status", 11};
  request.set(http::field::host, "server");
  http::response<http::string_body> response;
  beast::error_code result = net::error::would_block;
  resolver.async_resolve("server", "80", [&](beast::error_code ec, tcp::resolver::results_type eps) {
    BOOST_REQUIRE(!ec);
    stream.expires_after(60s);
    stream.async_connect(eps, [&](beast::error_code ec2, const tcp::endpoint&) {
      if (ec2) return void(result = ec2);
      http::async_write(stream, request, [&](beast::error_code ec3, std::size_t) {
        if (ec3) return void(result = ec3);
        http::async_read(stream, buffer, response, [&](beast::error_code ec4, std::size_t) { result = ec4; });
      });
    });
  });
  world.run_for(2min);
  BOOST_TEST(result.message() == beast::error_code().message());
  BOOST_TEST(response.result() == http::status::ok);
  BOOST_TEST(response.body() == "you asked for /status");
}

// A sweep through check() with a replay line, as a C++17 test suite calls it.
BOOST_AUTO_TEST_CASE(check_reports_a_failing_seed_with_its_replay_line) {
  simasio::check_options options;
  options.seeds = 200;
  const simasio::check_result r = simasio::check(
      [](simasio::world& world) {
        auto& a = world.add_host("a");
        auto& b = world.add_host("b");
        std::string winner;
        net::post(a.context(), [&] { winner += "a"; });
        net::post(b.context(), [&] { winner += "b"; });
        world.run();
        if (winner != "ab") throw std::runtime_error("b ran first");
      },
      options);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->what == "b ran first");
  BOOST_TEST(r.failure->replay.find("SIMASIO_SEED=" + std::to_string(r.failure->seed)) != std::string::npos);
}
