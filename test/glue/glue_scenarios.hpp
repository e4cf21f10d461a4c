// glue_scenarios.hpp — scenario pieces both test-framework glue programs run
#ifndef SIMASIO_TEST_GLUE_SCENARIOS_HPP
#define SIMASIO_TEST_GLUE_SCENARIOS_HPP

#include <simasio/asio.hpp>
#include <simasio/world.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>

namespace glue_scenarios {

// Seeded work between two hosts (2,000 to 22,000 hops), so seeds take
// different times and overlap when they run on several threads.
inline void ping_pong(simasio::world& world) {
  auto& a = world.add_host("a");
  auto& b = world.add_host("b");
  int hops = 0;
  const int rounds = 2000 + static_cast<int>(world.random().below(20000));
  std::function<void()> ping = [&] {
    if (++hops < rounds) simasio::asio::post((hops % 2 ? b : a).context(), ping);
  };
  simasio::asio::post(a.context(), ping);
  world.run();
}

// Appends @p seed, one a line, to $SIMASIO_GLUE_SEED_LOG (the sharding
// checks read it).
inline void record_seed(std::uint64_t seed) {
  if (const char* path = std::getenv("SIMASIO_GLUE_SEED_LOG")) std::ofstream(path, std::ios::app) << seed << "\n";
}

}  // namespace glue_scenarios

#endif  // SIMASIO_TEST_GLUE_SCENARIOS_HPP
