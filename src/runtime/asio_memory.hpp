// asio_memory.hpp — Asio's recycling cache while the world runs
#ifndef SIMASIO_SRC_ASIO_MEMORY_HPP
#define SIMASIO_SRC_ASIO_MEMORY_HPP

#include <simasio/detail/recycler.hpp>

#include <boost/asio/detail/call_stack.hpp>
#include <boost/asio/detail/thread_context.hpp>
#include <boost/asio/detail/thread_info_base.hpp>

#include <optional>
#include <vector>

namespace simasio::detail {

// Asio allocates coroutine frames, co_spawn and parallel_group state,
// cancellation slots and its handlers' memory through the recycling cache
// of the innermost Asio scheduler running on the thread (its call stack),
// and from malloc when none runs. A run of the world stands in for that
// scheduler: it pushes a cache of its own for as long as it lasts, so that
// a coroutine's frame reuses the last one freed. Addresses never influence
// a decision (DESIGN.md §4). Off under AddressSanitizer, like the recycler.
// Like Asio's own schedulers, this relies on one definition of Asio's
// recycling macros across the program.
// A suspended fiber's Asio call stacks: the program's, and those of other
// copies of Asio (fiber_switch).
struct fiber_call_stacks {
  void* top = nullptr;
  std::vector<void*> foreign;
};

class asio_memory_scope {
 public:
  asio_memory_scope() noexcept;
  ~asio_memory_scope();
  asio_memory_scope(const asio_memory_scope&) = delete;
  asio_memory_scope& operator=(const asio_memory_scope&) = delete;

  // A process's fiber keeps a stack of Asio schedulers of its own (a real
  // io_context run inside a process, which may suspend inside it): while a
  // fiber runs, the innermost run's cache leaves Asio's call stack, and it
  // goes back on top when the fiber suspends. Asio's call stack itself (a
  // thread-local list of the schedulers running on the thread, linked
  // through their stacks) is the fiber's own: `fiber_top` keeps it while
  // the fiber is suspended, so that two threads of a process running
  // Asio schedulers never see (or unlink) each other's. The same holds for
  // every other copy of Asio in the program: a shared object built with
  // Asio inside (a library's own, perhaps of another version, whose
  // symbols the program does not override) keeps a thread-local call stack
  // of its own, found when a run of a world first switches fibers.
  class fiber_switch {
   public:
    explicit fiber_switch(fiber_call_stacks& fiber);
    ~fiber_switch();
    fiber_switch(const fiber_switch&) = delete;
    fiber_switch& operator=(const fiber_switch&) = delete;

   private:
    asio_memory_scope* stepped_aside_;
    fiber_call_stacks& fiber_;
    void* outer_top_;
    const std::vector<void**>& foreign_;  // the other copies' tops, found once per run
    std::vector<void*> outer_foreign_;    // empty (no allocation) without other copies
  };

 private:
  using call_stack = boost::asio::detail::call_stack<boost::asio::detail::thread_context,
                                                     boost::asio::detail::thread_info_base>;
  void push() noexcept { pushed_.emplace(&key_, cache_); }

  boost::asio::detail::thread_context key_;
  boost::asio::detail::thread_info_base cache_;  // freed after pushed_ leaves the stack
  std::optional<call_stack::context> pushed_;
  asio_memory_scope* outer_;
};

}  // namespace simasio::detail

#endif  // SIMASIO_SRC_ASIO_MEMORY_HPP
