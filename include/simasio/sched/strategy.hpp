// simasio/sched/strategy.hpp — how the scheduler picks the next step: the interface of every strategy
#ifndef SIMASIO_SCHED_STRATEGY_HPP
#define SIMASIO_SCHED_STRATEGY_HPP

#include <simasio/world_options.hpp>

#include <boost/core/span.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace simasio {
class rng;
}
namespace simasio::detail {
struct context_state;
}

namespace simasio::sched {

/// A scheduling strategy: at every step where two or more contexts (or
/// processes) are runnable, it picks which one runs. One file per strategy
/// in this folder (fifo.hpp, random_walk.hpp, pct.hpp); make_strategy maps
/// world_options::strategy to one. A strategy draws only from the
/// scheduler stream it was given, so its choices are on the seed's tape.
class strategy {
 public:
  virtual ~strategy() = default;
  strategy(const strategy&) = delete;
  strategy& operator=(const strategy&) = delete;

  /// False keeps every order polite (fifo): a pool context runs its oldest
  /// handler, events due at one instant fire in scheduling order, a notify
  /// wakes the oldest waiter. True lets the scheduler draw those from the seed.
  bool explores() const noexcept { return explores_; }
  /// Whether stepped() wants to hear of every step (a virtual call per step
  /// is paid only by strategies that ask for it).
  bool watches_steps() const noexcept { return watches_steps_; }

  /// A new context or process joined the world. Does nothing unless
  /// overridden.
  /// @param ctx its scheduling state: its id is set, and its priority is
  /// the strategy's to use.
  virtual void attach(detail::context_state& ctx) { (void)ctx; }
  /// Which of the runnable contexts runs next.
  /// @param runnable two or more contexts, ordered by the age of their
  /// oldest ready handler.
  /// @returns an index into @p runnable.
  virtual std::size_t pick(boost::span<detail::context_state* const> runnable) = 0;
  /// Step number @p step runs a handler of @p ctx: called as the step
  /// begins, before the handler runs, and only when watches_steps(). Does
  /// nothing unless overridden.
  virtual void stepped(detail::context_state& ctx, std::uint64_t step) {
    (void)ctx;
    (void)step;
  }

 protected:
  /// For the strategies that derive from this one.
  /// @param explores what explores() returns.
  /// @param watches_steps what watches_steps() returns.
  strategy(bool explores, bool watches_steps) noexcept : explores_(explores), watches_steps_(watches_steps) {}

 private:
  bool explores_;
  bool watches_steps_;
};

/// The strategy world_options names.
/// @param opts the world's options: strategy, and pct_depth and
/// pct_horizon for pct.
/// @param scheduler the world's scheduler stream, the only one the strategy
/// draws from; it must outlive the strategy.
/// @throws config_error if opts.strategy names no strategy, or (pct) if
/// opts.pct_depth is below 1.
std::unique_ptr<strategy> make_strategy(const world_options& opts, rng& scheduler);

}  // namespace simasio::sched

#endif  // SIMASIO_SCHED_STRATEGY_HPP
