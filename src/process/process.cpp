// process.cpp — simulated processes: functions on their own stacks (Boost.Context fibers), scheduled like contexts
//
// A process is a fiber with a scheduling state of its own (a context_state
// that is not an io_context): when it can run, a resume operation sits in
// that state's queue, and the world's strategy picks it among the runnable
// contexts exactly as it picks a context (one draw, on the tape, a handler
// event in the trace). Running that step switches to the fiber; the fiber
// runs until its next blocking call, which registers a wake-up (an
// operation's completion, a timed event, a context running out of work)
// and switches back. So the fiber never runs concurrently with a handler,
// and a world that never spawns takes no path of this file.
#include "../runtime/asio_memory.hpp"
#include "process_image.hpp"
#include "process_state.hpp"

#include <simasio/detail/format.hpp>
#include <simasio/detail/interpose.hpp>
#include <simasio/error.hpp>
#include <simasio/host.hpp>
#include <simasio/log/log.hpp>
#include <simasio/process.hpp>

#include <boost/context/protected_fixedsize_stack.hpp>

#include <boost/core/demangle.hpp>

#include <cxxabi.h>

#include <csignal>
#include <cstring>
#include <typeinfo>

#include <exception>
#include <mutex>
#include <new>
#include <ostream>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define SIMASIO_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIMASIO_ASAN_FIBERS 1
#endif
#endif
#if defined(SIMASIO_ASAN_FIBERS)
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

namespace simasio::detail {

namespace {

// AddressSanitizer must be told about every switch between stacks (else an
// exception thrown on a fiber, or a fiber's frames, look like stack
// corruption). Boost.Context's fcontext fibers do not say it themselves.
#if defined(SIMASIO_ASAN_FIBERS)
void start_switch(void** fake_stack, const void* bottom, std::size_t size) noexcept {
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
}
void finish_switch(void* fake_stack, const void** bottom, std::size_t* size) noexcept {
  __sanitizer_finish_switch_fiber(fake_stack, bottom, size);
}
// A parked process's stack is kept for good: what it points to is not a leak.
void keep_stack(const void* bottom, std::size_t size) noexcept { __lsan_register_root_region(bottom, size); }
#else
void start_switch(void**, const void*, std::size_t) noexcept {}
void finish_switch(void*, const void**, std::size_t*) noexcept {}
void keep_stack(const void*, std::size_t) noexcept {}
#endif

// Switches from p's stack back to whoever resumed it; p is blocked.
void leave_for_caller(process_state& p) {
  p.state = process_state::phase::blocked;
  start_switch(&p.fake_stack, p.from_bottom, p.from_size);
  p.caller = std::move(p.caller).resume();
}

// Blocks p until a wake-up of its current wait arrives (at once if one
// came while it ran).
void wait_for_wake(process_state& p) {
  if (p.wake_pending) {
    p.wake_pending = false;
    return;
  }
  leave_for_caller(p);
  finish_switch(p.fake_stack, &p.from_bottom, &p.from_size);
}

// Leaves p's stack for good: never resumed, never freed.
[[noreturn]] void park_for_good(process_state& p) noexcept {
  p.parked = true;
  keep_stack(p.stack_bottom, p.stack_size);
  leave_for_caller(p);
  std::abort();  // never resumed
}

// A killed process unwinds from its blocking call (once).
void throw_if_killed(process_state& p) {
  if (p.killed && !p.exit_thrown) {
    p.exit_thrown = true;
    throw process_exit{&p};
  }
}

}  // namespace

void process_resume_op::do_complete(operation* op, bool invoke) {
  process_state* p = static_cast<process_resume_op*>(op)->proc;
  p->resume_queued = false;
  if (invoke) p->core->resume_process(*p);
}

void process_wakeup::operator()() const {
  if (core != nullptr) core->wake(pid, generation);
}

namespace {

// protected_fixedsize_stack (a guard page under the stack turns an
// overflow into a fault at once), telling the process where its stack is.
class recording_stack {
 public:
  recording_stack(process_state& p, std::size_t size) : p_(&p), inner_(size) {}
  boost::context::stack_context allocate() {
    boost::context::stack_context s = inner_.allocate();
    p_->stack_bottom = static_cast<char*>(s.sp) - s.size;
    p_->stack_size = s.size;
    return s;
  }
  void deallocate(boost::context::stack_context& s) noexcept { inner_.deallocate(s); }

 private:
  process_state* p_;
  boost::context::protected_fixedsize_stack inner_;
};

// The fiber's body: the process's function, and what became of it.
boost::context::fiber process_entry(process_state& p, boost::context::fiber&& caller) {
  p.caller = std::move(caller);
  finish_switch(p.fake_stack, &p.from_bottom, &p.from_size);
  try {
    const int code = p.main();
    p.status->exit_code = code;
    p.how = returned;
  } catch (process_exit& e) {
    e.owner = nullptr;  // it ended the process as meant
    p.how = killed;
  } catch (const thread_exit_unwind& e) {
    // pthread_exit: this thread is over; main()'s leaves the process to its threads.
    p.retval = e.retval;
    p.how = returned;
    if (!p.is_thread) p.main_exited = true;
  } catch (...) {
    if (p.killed) {
      p.how = killed;  // whatever a dying process throws dies with it
    } else {
      p.error = std::current_exception();
      p.how = threw;
    }
  }
  // What the function captured is destroyed on its own stack, as a
  // returning main() destroys its locals; it may not block any more.
  p.dying = true;
  p.main = nullptr;
  p.state = process_state::phase::ended;
  start_switch(nullptr, p.from_bottom, p.from_size);
  return std::move(p.caller);
}

}  // namespace

constinit thread_local bool spawn_restarts_isolated = false;

void world_core::process_deleter::operator()(process_state* p) const noexcept { delete p; }

void world_core::images_deleter::operator()(process_images* i) const noexcept { delete i; }

void world_core::switch_images(std::uint32_t owner) { images_->switch_to(owner); }

void world_core::forget_images(std::uint32_t owner) noexcept {
  if (images_) images_->forget(owner);
}

const void* world_core::sync_key(const void* addr) const noexcept {
  if (!images_ || images_->registry().region_of(addr) < 0) return addr;
  // Top bits no user-space address has: the live owner's own object there.
  return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(addr) |
                                       (static_cast<std::uintptr_t>(images_->live() & 0xffff) << 48));
}

namespace {

// The fiber running on this OS thread, if any.
constinit thread_local process_state* running_fiber_tls = nullptr;

std::terminate_handler previous_terminate = nullptr;

// A killed process whose unwinding calls std::terminate (the destructor of
// a std::thread still joinable, a destructor that throws) is not the end
// of the test program: as the kernel discards a crashed process, the rest
// of that stack is discarded, never run.
// " (<type>: <what>)" for a std::exception, else nothing.
std::string exception_detail(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return " (" + boost::core::demangle(typeid(x).name()) + ": " + x.what() + ")";
  } catch (...) {
  }
  return {};
}

// What std::terminate was called for: the exception in flight, if any.
std::string terminate_reason() {
  std::string why = "std::terminate was called";
  if (const std::exception_ptr e = std::current_exception())
    why += " with an exception in flight" + exception_detail(e);
  return why;
}

[[noreturn]] void on_terminate() {
  process_state* p = running_fiber_tls;
  if (p != nullptr && p->killed && !p->parked) p->core->abandon(*p);
  // A live process that calls std::terminate dies of SIGABRT, alone.
  if (p != nullptr && !p->parked && !p->dying && p->core->in_process())
    p->core->end_running_process(signaled, SIGABRT, terminate_reason());
  if (previous_terminate != nullptr) previous_terminate();
  std::abort();
}

}  // namespace

[[noreturn]] void world_core::abandon(process_state& p) noexcept {
  p.abandoned = true;
  // The exception that was unwinding the stack (process_exit) stays in
  // flight for good: this thread no longer counts it as uncaught.
  if (std::uncaught_exceptions() > 0) {
    struct eh_globals {  // the C++ ABI's per-thread exception state (libstdc++ and libc++abi)
      void* caught;
      unsigned int uncaught;
    };
    --reinterpret_cast<eh_globals*>(abi::__cxa_get_globals())->uncaught;
  }
  park_for_good(p);
}

process_exit::~process_exit() {
  if (owner == nullptr || running_fiber_tls != owner) return;
  process_state& p = *running_fiber_tls;
  if (!p.killed || p.parked || p.abandoned) return;
  // Destroyed on the stack it was unwinding: a catch block swallowed it and
  // is ending; the code after it would run. The process ends here instead.
  p.core->abandon(p);
}

std::shared_ptr<const process_status> world_core::spawn(simasio::host& h, host_state& hs, std::function<int()> main) {
  if (!hs.up)
    throw usage_error("simasio: host::spawn on host '" + hs.name + "', which is down since its " +
                      (hs.power_crash ? "power" : "process") + " crash at t=" + format_time(duration(hs.crashed_at_ns)) +
                      "; a crashed host runs nothing. Spawn its processes in its on_boot function, which "
                      "restart() runs again");
  if (!main) throw usage_error("simasio: host::spawn on host '" + hs.name + "' was given an empty function");
  const auto pid = static_cast<std::uint32_t>(processes_.size());
  note_os_state();
  if (spawn_restarts_isolated) throw isolation_needed{};
  if (!images_ && opts_.process_libraries != nullptr && *opts_.process_libraries != '\0') {
    const std::string list = opts_.process_libraries;
    std::vector<std::string> names;
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      if (end > start) names.push_back(list.substr(start, end - start));
      start = end + 1;
    }
    const image_registry& registry = image_registry::get(names);
    if (!registry.regions().empty()) images_.reset(new process_images(registry));
  }
  static std::once_flag terminate_installed;
  std::call_once(terminate_installed, [] { previous_terminate = std::set_terminate(&on_terminate); });
  processes_.emplace_back(new process_state(*this, h, hs, pid, std::move(main)));
  process_state& p = *processes_.back();
  strategy_->attach(p.sched);  // a process is scheduled like a context
  record(event_kind::process_spawn, hs.id, pid);
  p.resume_queued = true;
  post_new(p.sched, &p.resume);
  return p.status;
}

simasio::host& world_core::process_host() const noexcept { return *current_process_->host; }

process_wakeup world_core::prepare_wait() noexcept {
  process_state& p = *current_process_;
  ++p.generation;
  p.wake_pending = false;
  return process_wakeup{this, p.pid, p.generation};
}

void world_core::wake(std::uint32_t pid, std::uint64_t generation) {
  if (pid >= processes_.size()) return;
  process_state& p = *processes_[pid];
  if (p.generation != generation || p.killed) return;
  switch (p.state) {
    case process_state::phase::blocked:
      if (!p.resume_queued) {
        p.resume_queued = true;
        post_new(p.sched, &p.resume);
      }
      break;
    case process_state::phase::running:
      p.wake_pending = true;
      break;
    case process_state::phase::fresh:
    case process_state::phase::ended:
      break;
  }
}

// Runs p on its stack until it blocks or ends; the caller's scheduling
// state is restored afterwards.
void world_core::switch_to(process_state& p) {
  process_state* const saved_process = current_process_;
  context_state* const saved_current = current_;
  struct restore {
    world_core& core;
    process_state* process;
    context_state* current;
    ~restore() {
      core.current_process_ = process;
      core.current_ = current;
    }
  } guard{*this, saved_process, saved_current};
  if (p.state == process_state::phase::fresh) {
    p.fiber = boost::context::fiber(std::allocator_arg, recording_stack(p, opts_.process_stack_size),
                                    [&p](boost::context::fiber&& caller) { return process_entry(p, std::move(caller)); });
  }
  current_process_ = &p;
  current_ = &p.sched;
  p.state = process_state::phase::running;
  if (images_) images_->switch_to(p.group + 1);  // its own globals of the process_libraries
  process_state* const outer_fiber = running_fiber_tls;
  running_fiber_tls = &p;
  void* fake = nullptr;
  start_switch(&fake, p.stack_bottom, p.stack_size);
  {
    const asio_memory_scope::fiber_switch asio_stack(p.asio_stacks);
    p.fiber = std::move(p.fiber).resume();
  }
  finish_switch(fake, nullptr, nullptr);
  running_fiber_tls = outer_fiber;
}

void world_core::resume_process(process_state& p) {
  if (p.state == process_state::phase::ended || p.killed) return;
  switch_to(p);
  if (group_end_.pending) {
    finish_group_end();  // p (or the process whose thread p is) called exit() or abort()
    if (abnormal_) std::rethrow_exception(std::exchange(abnormal_, nullptr));
    return;
  }
  if (p.state == process_state::phase::ended) {
    if (p.how == threw && p.is_thread) {
      // An exception no thread of it caught is std::terminate: SIGABRT ends
      // the whole process at once, main and every other thread, as on
      // Linux, whether or not the scenario expects abnormal ends.
      std::exception_ptr error = std::exchange(p.error, nullptr);
      std::string why = "an uncaught exception in a thread" + exception_detail(error);
      end_process(p, p.how);
      group_end_ = group_end{true, p.group, signaled, SIGABRT, std::move(why)};
      finish_group_end();
      if (opts_.abnormal_exits_fail) {
        abnormal_ = nullptr;
        std::rethrow_exception(error);  // the run fails with the exception itself, as before
      }
      return;
    }
    if (p.how == threw) {
      // As on Linux, an exception nothing caught ends the process with
      // SIGABRT (std::terminate), its threads with it.
      process_state& leader = *processes_[p.group];
      leader.status->signal = SIGABRT;
      leader.status->why = "an uncaught exception";
    }
    // As exit() does: the threads die first, then the process's files are
    // closed. A thread found at a scheduling point goes on to its next
    // call, which must still find its descriptors simulated.
    end_group_threads(p);
    end_process(p, p.how);
    if (p.how == threw) {
      std::exception_ptr error = std::exchange(p.error, nullptr);
      if (opts_.abnormal_exits_fail) std::rethrow_exception(error);
    }
  }
}

void world_core::end_process(process_state& p, int how) noexcept {
  p.state = process_state::phase::ended;
  // main() left with pthread_exit: the process is over when its last thread is.
  if (!p.main_exited) {
    p.status->ended = true;
    p.status->killed = how == killed;
    p.status->threw = how == threw;
  }
  if (!p.is_thread && !p.main_exited) {
    forget_images(p.group + 1);
    if (close_descriptors) close_descriptors(p.group + 1);
  }
  record(event_kind::process_end, p.sched.host->id, p.pid, static_cast<std::uint64_t>(how));
  // Threads blocked in pthread_join (std::thread::join) on it may go on.
  for (sync_waiter* w : std::exchange(p.joiners, {})) {
    w->woken = true;
    wake(w->pid, w->generation);
  }
  if (p.is_thread) {
    process_state& leader = *processes_[p.group];
    if (leader.main_exited && !leader.status->ended) {
      bool alone = true;
      for (const auto& q : processes_)
        if (q->group == p.group && q->state != process_state::phase::ended) alone = false;
      if (alone) {
        leader.status->ended = true;
        leader.status->exit_code = 0;  // as exit(0) after the last thread
        forget_images(p.group + 1);
        if (close_descriptors) close_descriptors(p.group + 1);
      }
    }
  }
}

// A process's function returned (or threw): as exit() does, that ends the
// threads it started, which are unwound like a crash's.
void world_core::end_group_threads(const process_state& main) {
  if (main.is_thread || main.main_exited) return;
  for (std::size_t i = processes_.size(); i-- > main.pid + 1;) {
    process_state& t = *processes_[i];
    if (t.is_thread && t.group == main.pid && t.state != process_state::phase::ended) kill(t);
  }
}

bool world_core::may_block() {
  process_state& p = *current_process_;
  if (!p.killed && !p.dying) [[likely]]
    return true;
  if (p.dying || std::uncaught_exceptions() > 0) return false;  // a destructor while it unwinds: do not block
  throw_if_killed(p);
  // It caught process_exit (catch (...) without a rethrow) and went on to
  // a blocking call again: it would never end. Park it for good; the crash
  // that killed it fails with this.
  if (!process_misuse_)
    process_misuse_ = std::make_exception_ptr(usage_error(
        "simasio: process #" + std::to_string(p.pid) + " of host '" + p.sched.host->name +
        "' was ended by its host's crash, but caught the process_exit simasio threw at its blocking call "
        "(a catch (...) that does not rethrow) and called a blocking function again. A process ends when its "
        "host crashes: rethrow what catch (...) catches, or catch std::exception instead. The process is "
        "parked for good, its stack leaked"));
  park_for_good(p);
}

bool world_core::suspend() {
  process_state& p = *current_process_;
  if (!may_block()) return false;
  wait_for_wake(p);
  throw_if_killed(p);
  return true;
}

bool world_core::suspend_quietly() {
  process_state& p = *current_process_;
  if (p.killed || p.dying || p.parked) return false;
  wait_for_wake(p);
  return !p.killed;
}

void world_core::yield_point(const char* what) {
  process_state& p = *current_process_;
  if (p.killed || p.dying || p.parked) return;
  prepare_wait();
  p.waiting_for = what;
  if (!p.resume_queued) {
    p.resume_queued = true;
    post_new(p.sched, &p.resume);
  }
  p.wake_pending = false;
  suspend_quietly();
  p.waiting_for = "";
}

void world_core::waiting_for(const char* what) noexcept { current_process_->waiting_for = what; }

void world_core::detach_waits(process_state& p) noexcept {
  cancel(p.alarm);
  if (p.run_target != nullptr) {
    p.run_target = nullptr;
    for (auto it = run_waiters_.begin(); it != run_waiters_.end(); ++it)
      if (*it == &p) {
        run_waiters_.erase(it);
        break;
      }
  }
  p.waiting_for = "";
}

bool world_core::sleep_until(duration when) {
  process_state& p = *current_process_;
  struct leave {
    world_core& core;
    process_state& p;
    ~leave() { core.detach_waits(p); }
  } guard{*this, p};
  while (now_ < when) {
    prepare_wait();
    if (when == duration::max()) {
      p.waiting_for = "a timer's wait() that never expires";  // a hang: the world stalls
    } else {
      p.waiting_for = "a timer's wait()";
      schedule(p.alarm, when);
    }
    if (!suspend()) return false;
  }
  return true;
}

bool world_core::block_until(duration deadline, const char* what) {
  process_state& p = *current_process_;
  struct leave {
    world_core& core;
    process_state& p;
    ~leave() { core.detach_waits(p); }
  } guard{*this, p};
  p.waiting_for = what;
  if (deadline != duration::max()) schedule(p.alarm, std::max(deadline, now_));
  return suspend();
}

run_result world_core::process_run(const run_limits& limits) {
  process_state& p = *current_process_;
  const context_state& t = *limits.target;
  struct leave {
    world_core& core;
    process_state& p;
    const context_state& t;
    ~leave() {
      core.detach_waits(p);
      --t.runners;
    }
  } guard{*this, p, t};
  ++t.runners;  // N threads in run() make the context a pool of N
  run_result r;
  if (!may_block()) {
    r.end = run_end::stopped;
    return r;
  }
  const std::uint64_t start = t.handlers_run;
  for (;;) {
    r.target_handlers = static_cast<std::size_t>(t.handlers_run - start);
    if (target_run_ends(limits, r.target_handlers, r.end)) break;
    if (now_ >= limits.deadline) {
      r.end = run_end::deadline;
      break;
    }
    prepare_wait();
    if (p.run_target == nullptr) run_waiters_.push_back(&p);
    p.run_target = &t;
    p.run_start = start;
    p.run_max = limits.target_max;
    p.waiting_for = "io_context::run()";
    if (limits.deadline != duration::max()) schedule(p.alarm, limits.deadline);
    if (!suspend()) {
      r.end = run_end::stopped;
      break;
    }
  }
  return r;
}

void world_core::check_run_waiters() {
  for (std::size_t i = 0; i < run_waiters_.size(); ++i) {
    const process_state& p = *run_waiters_[i];
    const context_state& t = *p.run_target;
    if (t.stopped || t.work <= 0 || t.handlers_run - p.run_start >= p.run_max) wake(p.pid, p.generation);
  }
}

std::size_t world_core::process_poll(context_state& ctx, std::size_t max) {
  process_state& p = *current_process_;
  if (!may_block()) return 0;
  const std::uint64_t start = ctx.handlers_run;
  // A scheduling point: p is runnable again at once, and the world takes a
  // turn (perhaps p's own) before it goes on.
  yield_point("io_context::poll()");
  throw_if_killed(p);
  const std::uint64_t n = ctx.handlers_run - start;
  return n < max ? static_cast<std::size_t>(n) : max;
}

// p's pending resumption, taken back: it will not run.
void world_core::unqueue(process_state& p) noexcept {
  if (!p.resume_queued) return;
  make_unrunnable(p.sched);
  while (!p.sched.ready.empty()) {
    p.sched.ready.pop();
    --p.sched.work;
  }
  p.resume_queued = false;
}

void world_core::kill(process_state& p) {
  if (p.state == process_state::phase::ended) return;
  p.killed = true;
  unqueue(p);
  if (p.state == process_state::phase::fresh) {
    p.main = nullptr;  // it never ran
    end_process(p, killed);
    return;
  }
  // The running process (it crashed its own host) and the processes that
  // resumed it throw process_exit at their next blocking call; a parked
  // one stays as it is.
  if (p.state != process_state::phase::blocked || p.parked) return;
  detach_waits(p);
  if (p.uninterruptible) {
    // Blocked in a call that cannot throw (pthread_mutex_lock): resumed, it
    // could only return into code that believes it holds the lock. The
    // kernel discards such a thread; so does simasio: never resumed.
    p.parked = true;
    keep_stack(p.stack_bottom, p.stack_size);
    end_process(p, killed);
    return;
  }
  switch_to(p);
  if (group_end_.pending) {
    finish_group_end();  // its unwinding called exit() or abort(): it ends as that says
    abnormal_ = nullptr;  // a crash was killing it: that is no failure of its own
    return;
  }
  if (p.state == process_state::phase::ended || p.abandoned) end_process(p, killed);
}

void world_core::kill_processes(host_state& host) {
  // From the scenario body too (host::crash between runs): what the
  // processes run while they unwind (destructors waiting on condition
  // variables, closing descriptors) meets the simulation, never the real
  // libc, as at the world's end.
  const running_scope scope(*this);
  // Newest first: a thread is unwound before the process whose objects it uses.
  for (std::size_t i = processes_.size(); i-- > 0;) {
    process_state& p = *processes_[i];
    if (p.sched.host == &host) kill(p);
  }
}

void world_core::exit_if_killed() {
  if (process_misuse_) std::rethrow_exception(std::exchange(process_misuse_, nullptr));
  if (current_process_ == nullptr || !current_process_->killed || current_process_->exit_thrown) return;
  current_process_->exit_thrown = true;
  throw process_exit{current_process_};
}

bool world_core::any_live_process() const noexcept {
  for (const auto& p : processes_)
    if (p->state != process_state::phase::ended && !p->parked && p->sched.host->up) return true;
  return false;
}

void world_core::describe_processes(std::ostream& os) const {
  for (const auto& p : processes_) {
    if (p->state == process_state::phase::ended) continue;
    os << "\n  process #" << p->pid << " of host '" << p->sched.host->name << "': ";
    if (p->parked) os << "parked (it swallowed its process_exit)";
    else if (p->resume_queued) os << "runnable";
    else if (p->state == process_state::phase::blocked) os << "blocked in " << p->waiting_for;
    else os << "running";
  }
}

std::shared_ptr<process_stdio> world_core::stdio_of(std::uint32_t owner) const {
  if (owner == 0 || owner > processes_.size()) return nullptr;
  return processes_[owner - 1]->status->stdio;
}

std::uint32_t world_core::calling_owner() const noexcept {
  if (current_process_ != nullptr) return current_process_->group + 1;
  return current_ != nullptr ? current_->owner : polling_owner_;
}

context_state& world_core::owner_context(std::uint32_t owner) const noexcept { return processes_[owner - 1]->sched; }

[[noreturn]] void world_core::end_running_process(int how, int value, std::string why) {
  process_state& p = *current_process_;
  if (!group_end_.pending) group_end_ = group_end{true, p.group, how, value, std::move(why)};
  // An exception that was unwinding this stack stays in flight for good.
  if (std::uncaught_exceptions() > 0) {
    struct eh_globals {
      void* caught;
      unsigned int uncaught;
    };
    --reinterpret_cast<eh_globals*>(abi::__cxa_get_globals())->uncaught;
  }
  park_for_good(p);
}

[[noreturn]] void world_core::exit_running_thread(void* retval) { throw thread_exit_unwind{retval}; }

void world_core::end_group_fibers(std::uint32_t group, int how, int value) noexcept {
  const std::uint64_t b = static_cast<std::uint64_t>(how) | (static_cast<std::uint64_t>(value & 0xffffff) << 8);
  // Newest first, as a crash unwinds; none of them runs again.
  for (std::size_t i = processes_.size(); i-- > group;) {
    process_state& q = *processes_[i];
    if (q.group != group || q.state == process_state::phase::ended) continue;
    unqueue(q);
    detach_waits(q);
    if (q.state == process_state::phase::fresh) {
      q.main = nullptr;
    } else if (!q.parked) {
      q.parked = true;  // its stack stays as it is, never resumed
      keep_stack(q.stack_bottom, q.stack_size);
    }
    q.killed = true;  // wake-ups for it are stale
    q.state = process_state::phase::ended;
    q.joiners.clear();  // they are of this process too
    if (!q.is_thread) {
      q.status->ended = true;
      if (how == exited) q.status->exit_code = value;
      if (how == signaled) q.status->signal = value;
    }
    record(event_kind::process_end, q.sched.host->id, q.pid, b);
  }
}

void world_core::finish_group_end() {
  const group_end end = std::move(group_end_);
  group_end_ = group_end{};
  process_state& leader = *processes_[end.group];
  host_state& host = *leader.sched.host;
  end_group_fibers(end.group, end.how, end.value);
  if (end.how == signaled) leader.status->why = end.why;
  // The OS's part: what the process made dies with it.
  const std::uint32_t owner = end.group + 1;
  for (context_state* ctx : contexts_) {
    if (ctx == nullptr || ctx->owner != owner || ctx->dead) continue;
    ctx->dead = true;
    make_unrunnable(*ctx);
    if (ctx->busy) {
      ctx->busy = false;
      cancel(*ctx->busy_end);
    }
    while (!ctx->ready.empty()) drop(*ctx, ctx->ready.pop());
    for (pending_source* src : ctx->sources) src->abandon();
  }
  if (close_owned) close_owned(owner);
  forget_group_sync(end.group);
  forget_images(owner);
  // The host's log says it too, at its virtual time, among the scenario's lines.
  try {
    const std::string how = end.how == exited ? "exited with status " + std::to_string(end.value)
                                              : "was killed by " + signal_name(end.value);
    log::logger(*leader.host)->log(end.how == exited ? spdlog::level::info : spdlog::level::err, "process #{} {}{}{}",
                                   end.group, how, end.why.empty() ? "" : ": ", end.why);
  } catch (...) {
    // A log that cannot be written changes nothing of the process's end.
  }
  if (end.how == signaled && opts_.abnormal_exits_fail && !abnormal_) {
    std::string what = "simasio: process #" + std::to_string(end.group) + " of host '" + host.name +
                       "' ended abnormally, killed by " + signal_name(end.value);
    if (!end.why.empty()) what += ": " + end.why;
    what += ". Its host and the world go on; a scenario that expects such crashes sets "
            "world_options::abnormal_exits_fail = false and reads process::signal()";
    abnormal_ = std::make_exception_ptr(abnormal_exit(what, host.name, end.group, end.value));
  }
}

void world_core::kill_all_processes() noexcept {
  // What the processes run while they unwind (destructors, and code after a
  // contention point that returned) meets the simulation as in a run: a
  // simulated descriptor stays simulated.
  const running_scope scope(*this);
  for (std::size_t i = processes_.size(); i-- > 0;) {
    try {
      kill(*processes_[i]);
    } catch (...) {
      // The world ends: nothing is left to report to.
    }
  }
  process_misuse_ = nullptr;
}

}  // namespace simasio::detail
