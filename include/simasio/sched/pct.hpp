// simasio/sched/pct.hpp — probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010)
#ifndef SIMASIO_SCHED_PCT_HPP
#define SIMASIO_SCHED_PCT_HPP

#include <simasio/detail/world_core.hpp>
#include <simasio/error.hpp>
#include <simasio/random/rng.hpp>
#include <simasio/sched/strategy.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace simasio::sched {

/// Each context (and process) draws a random priority above d - 1; the
/// highest-priority runnable one always runs. At d - 1 steps drawn from
/// 1 .. horizon, the context that ran takes priority 0, 1, ... (below every
/// initial one). A bug of depth d is found with probability at least
/// 1 / (n * k^(d-1)) for n contexts and k steps.
class pct final : public strategy {
 public:
  /// Draws the d - 1 change points from @p scheduler.
  /// @param opts pct_depth (d) and pct_horizon, the steps the change points
  /// are drawn from (0: direct_horizon).
  /// @param scheduler the world's scheduler stream, the only one the
  /// strategy draws from; it must outlive the strategy.
  /// @throws config_error if opts.pct_depth is below 1.
  pct(const world_options& opts, rng& scheduler) : strategy(true, true), depth_(opts.pct_depth), rng_(scheduler) {
    if (opts.pct_depth < 1)
      throw config_error("simasio: world_options::pct_depth must be at least 1 (got " +
                         std::to_string(opts.pct_depth) + ")");
    // 0: derived by check() from the scenario's run length; a world built
    // directly has no run to measure and takes a typical one.
    const std::uint64_t horizon = opts.pct_horizon != 0 ? opts.pct_horizon : direct_horizon;
    for (int i = 0; i + 1 < depth_; ++i) change_points_.push_back(1 + rng_.below(horizon));
    std::sort(change_points_.begin(), change_points_.end());
  }
  /// The horizon of a world built directly with pct_horizon 0 (check()
  /// derives one from the scenario's run length instead).
  static constexpr std::uint64_t direct_horizon = 1'000;
  /// Draws @p ctx's initial priority; initial priorities lie above every
  /// change-point priority (0 .. d-2).
  void attach(detail::context_state& ctx) override {
    ctx.priority = static_cast<std::uint64_t>(depth_) + rng_.below(std::uint64_t{1} << 32);
  }
  /// The runnable context of highest priority (the first of them on a tie).
  std::size_t pick(boost::span<detail::context_state* const> runnable) override {
    std::size_t best = 0;
    for (std::size_t i = 1; i < runnable.size(); ++i)
      if (runnable[i]->priority > runnable[best]->priority) best = i;
    return best;
  }
  /// When @p step reaches the next change point, @p ctx takes the next
  /// change-point priority (0, then 1, ...).
  void stepped(detail::context_state& ctx, std::uint64_t step) override {
    if (next_ < change_points_.size() && step >= change_points_[next_]) ctx.priority = next_++;
  }

 private:
  int depth_;
  rng& rng_;
  std::vector<std::uint64_t> change_points_;  // ascending step numbers
  std::size_t next_ = 0;
};

}  // namespace simasio::sched

#endif  // SIMASIO_SCHED_PCT_HPP
