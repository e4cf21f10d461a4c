// faulty_runs.hpp — the faults the unmodified-program tests run under: latency, 5% loss, a partition that heals
#pragma once

#include <simasio/simasio.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace faulty {

// How many seeds a sweep runs: `variable` from the environment, else 100.
inline std::uint64_t seeds(const char* variable) {
  const char* v = std::getenv(variable);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : 100;
}

inline simasio::check_options sweep(std::uint64_t seeds) {
  simasio::check_options o;
  o.seeds = seeds;
  o.artifacts = false;
  o.print = false;
  return o;
}

inline std::string failure_of(const simasio::check_result& r) { return r.failure ? r.failure->what : "ok"; }

// 1 to 20 ms of latency and 5% loss on every link.
inline void network(simasio::world& w) {
  simasio::link_config link;
  link.min_latency = std::chrono::milliseconds(1);
  link.max_latency = std::chrono::milliseconds(20);
  link.loss = 0.05;
  w.net().configure(link);
}

// A partition between the server and the clients at a seeded moment in the
// first second, healed up to 3 s later; then runs until done() (at most 5
// minutes of virtual time).
inline void run_with_partition(simasio::world& w, simasio::host& server, std::vector<simasio::host*> clients,
                               const std::function<bool()>& done) {
  w.run_for(std::chrono::milliseconds(w.random().between(0, 1000)));
  w.net().partition({{&server}, std::move(clients)});
  w.run_for(std::chrono::milliseconds(w.random().between(100, 3000)));
  w.net().heal();
  if (!w.run_until(done, std::chrono::minutes(5)))
    throw std::runtime_error("the programs did not finish within 5 minutes of virtual time: " + w.pending_report());
}

}  // namespace faulty
