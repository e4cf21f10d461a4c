// main_sim.cpp — the same echo service on simasio, swept over seeds on a
// lossy network. Each seed is a fresh world: a server and a client host,
// 1..30 ms latency, 5% of segments lost; TCP's
// retransmission has to carry every byte through.
#include "echo.hpp"

#include <simasio/simasio.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>

using namespace std::chrono_literals;

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // keep our lines in order with simasio's (stderr)
  constexpr std::uint64_t seeds = 300;
  std::size_t echoed_total = 0;
  simasio::duration virtual_total{};
  simasio::duration slowest{};

  const auto start = std::chrono::steady_clock::now();
  const simasio::check_result result = simasio::check(
      [&](simasio::world& w) {
        simasio::link_config link;
        link.min_latency = 1ms;
        link.max_latency = 30ms;
        link.loss = 0.05;
        w.net().configure(link);
        auto& server = w.add_host("server");
        auto& client = w.add_host("client");

        net::co_spawn(server.context(), echo::serve(net::ip::tcp::acceptor(server.context(), {net::ip::tcp::v4(), 7})),
                      net::detached);
        std::size_t echoed = 0;
        std::exception_ptr error;
        bool done = false;
        net::co_spawn(client.context(), echo::exchange({server.address(), 7}, 20),
                      [&](std::exception_ptr e, std::size_t bytes) {
                        error = e;
                        echoed = bytes;
                        done = true;
                      });
        if (!w.run_until([&] { return done; }, 10min)) throw std::runtime_error("the client never finished");
        if (error) std::rethrow_exception(error);
        echoed_total += echoed;
        virtual_total += w.now();
        if (w.now() > slowest) slowest = w.now();
      },
      {.seeds = seeds, .name = "echo"});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok()) return 1;

  auto ms = [](simasio::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::printf("simasio, %llu seeds, 5%% loss: 20 messages per seed, %zu bytes echoed intact\n",
              static_cast<unsigned long long>(result.runs), echoed_total);
  std::printf("  virtual time per seed: %.0f ms on average, %.0f ms at worst (retransmissions)\n",
              ms(virtual_total) / static_cast<double>(result.runs), ms(slowest));
  std::printf("  %.0f seeds/s\n", static_cast<double>(result.runs) / secs);
  return 0;
}
