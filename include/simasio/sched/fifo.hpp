// simasio/sched/fifo.hpp — no exploration: the oldest ready handler runs (the polite schedule)
#ifndef SIMASIO_SCHED_FIFO_HPP
#define SIMASIO_SCHED_FIFO_HPP

#include <simasio/sched/strategy.hpp>

namespace simasio::sched {

/// Runs handlers in the order they became ready, across all contexts, and
/// draws nothing: the schedule a single-threaded io_context would give.
class fifo final : public strategy {
 public:
  /// A strategy that neither explores nor watches steps.
  fifo() noexcept : strategy(false, false) {}
  /// Always 0: the context whose oldest ready handler is the oldest of all.
  std::size_t pick(boost::span<detail::context_state* const>) override { return 0; }
};

}  // namespace simasio::sched

#endif  // SIMASIO_SCHED_FIFO_HPP
