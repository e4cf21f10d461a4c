// 02_timeout_flake — a client deadline racing a reply: the flake, its seed, its fix.
//
// A client sends a request over TCP and waits for the reply with a 100 ms
// deadline (`co_await (read || timer)`). The link's one-way latency is
// uniform in [10, 60] ms, so the round trip (20..120 ms) straddles the
// deadline: the kind of test that fails once in a while in CI. The sweep
// finds a failing seed and prints its replay line; replaying it fails the
// same way, every time. The fixed client retries with a doubling deadline
// and passes the same seeds.
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <cstdio>
#include <cstring>
#include <memory>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;
using namespace net::experimental::awaitable_operators;

namespace {

net::awaitable<void> echo(tcp::socket s) {
  char buf[16];
  for (;;) {
    auto [ec, n] = co_await s.async_read_some(net::buffer(buf), net::as_tuple(net::use_awaitable));
    if (ec) co_return;
    co_await net::async_write(s, net::buffer(buf, n), net::use_awaitable);
  }
}

net::awaitable<void> server(tcp::acceptor& acc) {
  for (;;) net::co_spawn(acc.get_executor(), echo(co_await acc.async_accept(net::use_awaitable)), net::detached);
}

// The client under test: one attempt (flaky) or up to five with a doubling deadline.
net::awaitable<bool> call(tcp::endpoint server, bool retry) {
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

void scenario(simasio::world& w, bool retry) {
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

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const bool retry = argc > 1 && std::strcmp(argv[1], "--retry") == 0;
  simasio::check_options opts;
  opts.seeds = 200;
  opts.name = "timeout_flake";
  if (!retry) {
    const auto flaky = simasio::check([](simasio::world& w) { scenario(w, false); }, opts);
    if (flaky.ok()) {
      std::printf("single attempt: passed %llu seeds (no flake found)\n", static_cast<unsigned long long>(flaky.runs));
      return 1;
    }
    const auto seed = flaky.failure->seed;
    std::printf("single attempt: times out at seed %llu (after %llu seeds)\n", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(flaky.runs));
    int reproduced = 0;
    for (int i = 0; i < 3; ++i) {
      try {
        simasio::replay([](simasio::world& w) { scenario(w, false); }, seed);
      } catch (const simasio::scenario_failure&) {
        ++reproduced;
      }
    }
    std::printf("replayed seed %llu three times: failed %d of 3\n", static_cast<unsigned long long>(seed), reproduced);
    if (reproduced != 3) return 1;
  }
  opts.name = "timeout_retry";
  const auto fixed = simasio::check([](simasio::world& w) { scenario(w, true); }, opts);
  std::printf("retry with a doubling deadline: %s over %llu seeds\n", fixed.ok() ? "passes" : "FAILS",
              static_cast<unsigned long long>(fixed.runs));
  return fixed.ok() ? 0 : 1;
}
