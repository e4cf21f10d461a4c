// beast_test.cpp — Boost.Beast's HTTP algorithms over simulated sockets
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/test/unit_test.hpp>

#include <memory>

namespace net = simasio::asio;
namespace http = boost::beast::http;
using net::ip::tcp;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(beast_http)

BOOST_AUTO_TEST_CASE(http_request_and_response_across_seeds_with_loss) {
  int ok = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.loss = 0.1;
    w.net().configure(link);
    auto& server = w.add_host("server");
    auto& client = w.add_host("client");
    auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
    net::co_spawn(
        server.context(),
        [acc]() -> net::awaitable<void> {
          tcp::socket s = co_await acc->async_accept(net::use_awaitable);
          boost::beast::flat_buffer buffer;
          http::request<http::string_body> req;
          co_await http::async_read(s, buffer, req, net::use_awaitable);
          http::response<http::string_body> res{http::status::ok, req.version()};
          res.body() = std::string(5000, 'b') + std::string(req.target());
          res.prepare_payload();
          co_await http::async_write(s, res, net::use_awaitable);
          s.shutdown(tcp::socket::shutdown_send);
        },
        net::detached);
    std::string body;
    http::status status{};
    net::co_spawn(
        client.context(),
        [&]() -> net::awaitable<void> {
          auto ex = co_await net::this_coro::executor;
          tcp::resolver resolver(ex);
          tcp::socket s(ex);
          co_await net::async_connect(s, co_await resolver.async_resolve("server", "http", net::use_awaitable),
                                      net::use_awaitable);
          http::request<http::string_body> req{http::verb::get, "/hello", 11};
          req.set(http::field::host, "server");
          co_await http::async_write(s, req, net::use_awaitable);
          boost::beast::flat_buffer buffer;
          http::response<http::string_body> res;
          co_await http::async_read(s, buffer, res, net::use_awaitable);
          status = res.result();
          body = res.body();
        },
        net::detached);
    w.run_for(10min);
    if (status == http::status::ok && body == std::string(5000, 'b') + "/hello") ++ok;
  }
  BOOST_TEST(ok >= 95);  // a connect can time out when 10% loss eats every SYN retry
}

BOOST_AUTO_TEST_SUITE_END()
