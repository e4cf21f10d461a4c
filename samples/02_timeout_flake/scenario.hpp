// scenario.hpp — a client deadline racing a reply (the sweep in main.cpp, the fuzz target in fuzz.cpp)
#ifndef SIMASIO_SAMPLE_02_SCENARIO_HPP
#define SIMASIO_SAMPLE_02_SCENARIO_HPP

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <exception>
#include <stdexcept>

namespace sample_02 {

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;
using namespace net::experimental::awaitable_operators;

inline net::awaitable<void> echo(tcp::socket s) {
  char buf[16];
  for (;;) {
    auto [ec, n] = co_await s.async_read_some(net::buffer(buf), net::as_tuple(net::use_awaitable));
    if (ec) co_return;
    co_await net::async_write(s, net::buffer(buf, n), net::use_awaitable);
  }
}

inline net::awaitable<void> server(tcp::acceptor& acc) {
  for (;;) net::co_spawn(acc.get_executor(), echo(co_await acc.async_accept(net::use_awaitable)), net::detached);
}

// The client under test: one attempt (flaky) or up to five with a doubling deadline.
inline net::awaitable<bool> call(tcp::endpoint server, bool retry) {
  auto ex = co_await net::this_coro::executor;
  tcp::socket s(ex);
  co_await s.async_connect(server, net::use_awaitable);
  auto deadline = 100ms;
  for (int attempt = 0; attempt < (retry ? 5 : 1); ++attempt, deadline *= 2) {
    co_await net::async_write(s, net::buffer("ping", 4), net::use_awaitable);
    char reply[4];
    net::steady_timer timer(ex, deadline);
    auto r = co_await (net::async_read(s, net::buffer(reply), net::use_awaitable) || timer.async_wait(net::use_awaitable));
    if (r.index() == 0) co_return true;
  }
  co_return false;
}

inline void scenario(simasio::world& w, bool retry) {
  simasio::link_config link;
  link.min_latency = 10ms;
  link.max_latency = 60ms;
  w.net().configure(link);
  auto& srv = w.add_host("server");
  auto& cli = w.add_host("client");
  tcp::acceptor acc(srv.context(), tcp::endpoint(tcp::v4(), 8080));
  net::co_spawn(srv.context(), server(acc), net::detached);
  bool ok = false;
  net::co_spawn(cli.context(), call(tcp::endpoint(srv.address(), 8080), retry), [&](std::exception_ptr e, bool r) {
    if (e) std::rethrow_exception(e);
    ok = r;
  });
  w.run_for(10s);
  if (!ok) throw std::runtime_error("request timed out");
}

}  // namespace sample_02

#endif  // SIMASIO_SAMPLE_02_SCENARIO_HPP
