// simasio/detail/host_state.hpp — what the scheduler needs to know of a host
#ifndef SIMASIO_DETAIL_HOST_STATE_HPP
#define SIMASIO_DETAIL_HOST_STATE_HPP

#include <simasio/detail/int128.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace simasio {
class rng;
}

namespace simasio::detail {

class disk_model;

struct host_state {
  std::uint32_t id = 0;  // creation order in its world
  bool up = true;
  bool powered = true;  // false after a power cut: the machine is silent on the network
  // Counts crashes. Sockets and timers carry the count of their creation:
  // one from before the latest crash belonged to a process that is gone.
  std::uint32_t incarnation = 0;
  std::int64_t crashed_at_ns = 0;  // world time of the latest crash
  bool power_crash = false;        // its kind
  std::int64_t offset_ns = 0;  // host clock = world time + offset + drift
  std::int64_t drift_ppb = 0;  // parts per billion; > -1e9
  std::string name;
  std::shared_ptr<disk_model> disk;  // its disk, created on first use; outlives crashes
  rng* scheduler = nullptr;          // its scheduler stream, opened on first use (world_core::sched_rng)

  // The host's steady-clock reading at world time w (integer arithmetic
  // only; the drift term rounds toward minus infinity).
  std::int64_t local_from_world(std::int64_t w) const noexcept {
    if (drift_ppb == 0) return w + offset_ns;
    const int128 p = static_cast<int128>(w) * drift_ppb;
    int128 q = p / 1'000'000'000;
    if (p % 1'000'000'000 < 0) --q;
    return w + offset_ns + static_cast<std::int64_t>(q);
  }

  // The earliest world time at which the host's clock reads at least l.
  std::int64_t world_from_local(std::int64_t l) const noexcept {
    const std::int64_t x = l - offset_ns;
    if (drift_ppb == 0) return x;
    const int128 den = 1'000'000'000 + static_cast<int128>(drift_ppb);
    int128 w = static_cast<int128>(x) * 1'000'000'000 / den;
    auto wi = static_cast<std::int64_t>(w);
    while (local_from_world(wi) < l) ++wi;
    while (local_from_world(wi - 1) >= l) --wi;
    return wi;
  }
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_HOST_STATE_HPP
