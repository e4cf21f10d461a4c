// process_rows.cpp — simulated processes (host::spawn): what a switch costs,
// and seeds/s of a blocking-client scenario on three hosts.
#include "groups.hpp"

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <array>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bench {
namespace {

namespace net = simasio::asio;
using net::ip::tcp;

// A process that yields n times (io_context::poll: one scheduler step and
// two stack switches each), against a handler that posts itself n times
// (one step, no switch).
std::size_t process_yields(std::size_t n) {
  simasio::world w(1);
  w.add_host("h").spawn([n] {
    net::io_context ioc;
    for (std::size_t i = 0; i < n; ++i) ioc.poll();
  });
  w.run();
  return n;
}

std::size_t handler_reposts(std::size_t n) {
  simasio::world w(1);
  simasio::io_context& ioc = w.add_host("h").context();
  std::size_t left = n;
  std::function<void()> again = [&] {
    if (--left > 0) net::post(ioc, again);
  };
  net::post(ioc, again);
  w.run();
  return n;
}

// A blocking echo server process and two blocking client processes, each
// sending 5 lines, under 1-10 ms of latency and 1% loss.
std::size_t sync_clients(std::uint64_t seeds) {
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.loss = 0.01;
    w.net().configure(link);
    simasio::host& server = w.add_host("server");
    server.spawn([] {
      net::io_context ioc;
      tcp::acceptor acceptor(ioc, tcp::endpoint(tcp::v4(), 7000));
      for (;;) {
        tcp::socket s(ioc);
        acceptor.accept(s);
        boost::system::error_code ec;
        std::array<char, 256> buf{};
        for (std::size_t n; (n = s.read_some(net::buffer(buf), ec)), !ec;) net::write(s, net::buffer(buf.data(), n), ec);
      }
    });
    std::vector<simasio::process> clients;
    for (const char* name : {"c1", "c2"}) {
      clients.push_back(w.add_host(name).spawn([] {
        net::io_context ioc;
        tcp::socket s(ioc);
        tcp::resolver r(ioc);
        net::connect(s, r.resolve("server", "7000"));
        for (int i = 0; i < 5; ++i) {
          net::write(s, net::buffer(std::string("hello\n")));
          std::string line;
          net::read_until(s, net::dynamic_buffer(line), '\n');
        }
      }));
    }
    if (!w.run_until([&] { return clients[0].exit_code() && clients[1].exit_code(); }, std::chrono::minutes(1)))
      throw std::runtime_error("process bench: the blocking clients did not finish (seed " + std::to_string(seed) + ")");
  }
  return seeds;
}

// Two threads handing a token back and forth n times through a mutex and a
// condition variable: inside a simulated process (simasio::interpose makes
// them fibers), or as real threads when no world runs.
std::size_t ping_pong(std::size_t n) {
  std::mutex m;
  std::condition_variable cv;
  std::size_t turn = 0;
  auto player = [&](std::size_t parity) {
    std::unique_lock<std::mutex> lock(m);
    while (turn < 2 * n) {
      cv.wait(lock, [&] { return turn % 2 == parity || turn >= 2 * n; });
      if (turn >= 2 * n) break;
      ++turn;
      cv.notify_one();
    }
  };
  std::thread a(player, 0), b(player, 1);
  a.join();
  b.join();
  return n;
}

std::size_t simulated_ping_pong(std::size_t n) {
  simasio::world w(1);
  w.add_host("h").spawn([n] { ping_pong(n); });
  w.run();
  return n;
}

// Four threads adding to one counter under a mutex, n locks in all.
std::size_t locked_increments(std::size_t n) {
  std::mutex m;
  std::size_t counter = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (std::size_t i = 0; i < n / 4; ++i) {
        std::lock_guard<std::mutex> lock(m);
        ++counter;
      }
    });
  for (auto& t : threads) t.join();
  if (counter != n / 4 * 4) throw std::runtime_error("locked increments lost updates");
  return counter;
}

std::size_t simulated_locked_increments(std::size_t n) {
  simasio::world w(1);
  std::size_t done = 0;
  w.add_host("h").spawn([n, &done] { done = locked_increments(n); });
  w.run();
  return done;
}

}  // namespace

void process_rows(const settings& s, std::vector<row>& rows) {
  const std::size_t n = s.quick ? 100'000 : 2'000'000;
  const paired p = paired_rates(s.reps(), [&] { return process_yields(n); }, [&] { return handler_reposts(n); });
  // A yield is one step with two switches (in and out): the time a step
  // costs beyond a handler's, per switch.
  const double ns_per_switch = (1e9 / p.a - 1e9 / p.b) / 2;
  rows.push_back({"process yields (io_context::poll in a process) vs handler re-posts, steps/s", p.a, p.b,
                  times(p.ratio) + ", ~" + std::to_string(static_cast<int>(ns_per_switch + 0.5)) + " ns/switch", "",
                  true, "/s"});
  const std::uint64_t seeds = s.quick ? 50 : 1000;
  rows.push_back({"3 hosts: blocking echo server + 2 blocking client processes, 5 lines each, 1% loss (seeds/s)",
                  best_rate(s.reps(), [&] { return sync_clients(seeds); }), 0, "", "", true, "/s"});
  // simasio::interpose: the same threaded code as simulated threads of a
  // process, and as real threads (no world runs), round trips and locks/s.
  const std::size_t trips = s.quick ? 10'000 : 200'000;
  const paired pp = paired_rates(s.reps(), [&] { return simulated_ping_pong(trips); }, [&] { return ping_pong(trips); });
  rows.push_back({"2 threads, condition-variable ping-pong: simulated threads of a process vs real threads (round trips/s)",
                  pp.a, pp.b, times(pp.ratio), "", true, "/s"});
  const std::size_t locks = s.quick ? 40'000 : 800'000;
  const paired lk =
      paired_rates(s.reps(), [&] { return simulated_locked_increments(locks); }, [&] { return locked_increments(locks); });
  rows.push_back({"4 threads, mutex-protected increments: simulated threads of a process vs real threads (locks/s)",
                  lk.a, lk.b, times(lk.ratio), "", true, "/s"});
}

}  // namespace bench
