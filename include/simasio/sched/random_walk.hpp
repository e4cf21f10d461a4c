// simasio/sched/random_walk.hpp — a uniform choice among the runnable contexts at every step
#ifndef SIMASIO_SCHED_RANDOM_WALK_HPP
#define SIMASIO_SCHED_RANDOM_WALK_HPP

#include <simasio/random/rng.hpp>
#include <simasio/sched/strategy.hpp>

namespace simasio::sched {

/// The default: every step draws which runnable context goes next, all
/// equally likely. Drawing 0 everywhere gives the fifo schedule, which is
/// what shrinking moves towards.
class random_walk final : public strategy {
 public:
  /// @param scheduler the world's scheduler stream, the only one the
  /// strategy draws from; it must outlive the strategy.
  explicit random_walk(rng& scheduler) noexcept : strategy(true, false), rng_(scheduler) {}
  /// One draw below runnable.size(), every index equally likely.
  std::size_t pick(boost::span<detail::context_state* const> runnable) override {
    return static_cast<std::size_t>(rng_.below(runnable.size()));
  }

 private:
  rng& rng_;
};

}  // namespace simasio::sched

#endif  // SIMASIO_SCHED_RANDOM_WALK_HPP
