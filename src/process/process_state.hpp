// process_state.hpp — a simulated process's state, shared by process.cpp and threads.cpp (not installed)
#ifndef SIMASIO_SRC_PROCESS_STATE_HPP
#define SIMASIO_SRC_PROCESS_STATE_HPP

#include "../runtime/asio_memory.hpp"

#include <simasio/detail/stdio_service.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/process.hpp>

#include <boost/context/fiber.hpp>

#include <csignal>
#include <map>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

namespace simasio::detail {

// How a process's function ended (process_end's trace value, the low byte
// of b; exited and signaled put the status or signal in the next byte).
enum end_how : int { returned = 0, threw = 1, killed = 2, exited = 3, signaled = 4 };

// Unwinds a thread that called pthread_exit. Not a std::exception.
struct thread_exit_unwind {
  void* retval;
};

// A process (or one of its threads) waiting for something another one
// does: a mutex's release, a condition variable's signal, a futex's wake,
// a thread's end. It lives on the waiter's stack while it waits.
struct sync_waiter {
  std::uint32_t pid = 0;
  std::uint64_t generation = 0;
  std::uint32_t bitset = ~0u;  // futex waits: FUTEX_WAIT_BITSET's mask
  bool woken = false;
};

// The step that resumes a process: one per process, posted when it may run.
struct process_resume_op final : operation {
  explicit process_resume_op(process_state* p) noexcept : operation(&do_complete), proc(p) {}
  static void do_complete(operation* op, bool invoke);
  process_state* proc;
};

struct process_state {
  process_state(world_core& c, simasio::host& h, host_state& hs, std::uint32_t id, std::function<int()> m)
      : core(&c), host(&h), pid(id), resume(this), alarm(&on_alarm, this), main(std::move(m)),
        status(std::make_shared<process_status>()) {
    sched.core = &c;
    sched.host = &hs;
    sched.id = process_context_base + id;
    status->id = id;
    status->stdio = std::make_shared<process_stdio>();
    status->stdio->core = &c;
    group = id;
    alarm.context_id = sched.id;
  }
  ~process_state() {
    // Its streams outlive the world (the handle reads them): nothing waits any more.
    status->stdio->core = nullptr;
    status->stdio->blocked.clear();
    // A parked process (it swallowed its process_exit) is left as it is:
    // destroying its fiber would run its code again. Its stack is leaked.
    if (fiber) new (&parked_storage) boost::context::fiber(std::move(fiber));
  }

  static void on_alarm(timed_event* ev) {
    auto* p = static_cast<process_state*>(ev->owner());
    p->core->wake(p->pid, p->generation);
  }

  enum class phase : std::uint8_t { fresh, running, blocked, ended };

  world_core* core;
  simasio::host* host;
  std::uint32_t pid;
  context_state sched;  // its place among the runnable contexts
  process_resume_op resume;
  timed_event alarm;  // timer waits and run_for deadlines
  std::function<int()> main;
  boost::context::fiber fiber;   // the process while it is suspended
  boost::context::fiber caller;  // whoever resumed it, while it runs
  phase state = phase::fresh;
  bool resume_queued = false;
  bool wake_pending = false;  // woken before it got to suspend
  bool killed = false;        // its host crashed (or the world ends)
  bool exit_thrown = false;   // process_exit was thrown on its stack
  bool parked = false;        // it swallowed process_exit: never resumed again
  bool abandoned = false;     // killed, its unwinding called std::terminate: the rest of its stack is discarded
  bool dying = false;         // its function is over; captured state is being destroyed
  bool main_exited = false;   // main() called pthread_exit: the process lives while a thread does
  bool uninterruptible = false;  // blocked in a call that cannot throw: a crash discards it, never resumes it
  // The signal actions the process set (sigaction, signal), kept on its
  // group's leader: a fresh process has every action at its default.
  std::map<int, struct sigaction> signal_actions;
  int how = returned;
  std::uint64_t generation = 0;
  const char* waiting_for = "";
  std::exception_ptr error;
  std::shared_ptr<process_status> status;
  // io_context::run*() in progress
  const context_state* run_target = nullptr;
  std::uint64_t run_start = 0;
  std::size_t run_max = 0;
  // Asio's call stack of schedulers on this fiber while it is suspended (asio_memory.hpp)
  fiber_call_stacks asio_stacks;
  // AddressSanitizer's view of the stacks
  void* fake_stack = nullptr;
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
  const void* from_bottom = nullptr;
  std::size_t from_size = 0;
  // Threads (simasio::interpose): a thread is a process of the same host
  // and group; the group is the pid of the process whose main() started it.
  std::uint32_t group = 0;
  bool is_thread = false;
  bool detached = false;
  bool joined = false;
  void* retval = nullptr;
  std::vector<sync_waiter*> joiners;
  alignas(boost::context::fiber) unsigned char parked_storage[sizeof(boost::context::fiber)];
};

}  // namespace simasio::detail

#endif  // SIMASIO_SRC_PROCESS_STATE_HPP
