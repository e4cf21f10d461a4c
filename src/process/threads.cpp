// threads.cpp — simulated threads: a process's std::thread, mutexes, condition variables, futexes and sleeps
//
// With simasio::interpose linked, pthread_create inside a process starts a
// thread of it: another process of the same host and group (a fiber of its
// own), scheduled by the world's strategy like any process. Mutexes,
// condition variables and futexes used by fibers are kept in tables here,
// keyed by address: a fiber that must wait registers a sync_waiter on its
// stack and suspends; whoever releases, signals or wakes marks waiters and
// wakes them. All fibers run on the thread running the world, so a mutex a
// fiber holds is also locked for real (its owner is this thread): the table
// says which fiber holds it, which the real mutex cannot.
//
// Contention points (a mutex's lock, a notify, a new thread, sched_yield)
// are scheduling points: the fiber stays runnable and the strategy decides
// who runs next, so an unlucky interleaving of the user's threads shows on
// some seeds and replays from its seed. Which of several waiters a signal
// wakes is a scheduler draw too.
#include "process_state.hpp"

#include <simasio/clock.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/detail/interpose.hpp>
#include <simasio/detail/world_core.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <unordered_map>

#if defined(__linux__)
#include <linux/futex.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#endif

namespace simasio::detail {

class thread_sync {
 public:
  struct mutex_entry {
    process_state* owner = nullptr;  // the fiber holding it; null: none
    unsigned depth = 0;              // recursive locks by the owner
    bool outside = false;            // held by code that is not a fiber (a handler, the test body)
    std::vector<sync_waiter*> waiters;
  };
  std::unordered_map<const void*, mutex_entry> mutexes;
  std::unordered_map<const void*, std::vector<sync_waiter*>> conds;
  std::unordered_map<const void*, std::vector<sync_waiter*>> futexes;

  static world_core& core() noexcept { return *running_core_tls; }
  static process_state& self(world_core& c) noexcept { return *c.current_process_; }
  static decltype(world_core::processes_)& processes(world_core& c) noexcept { return c.processes_; }
  static thread_sync* existing(world_core& c) noexcept { return c.sync_.get(); }
  static bool can_wait(const process_state& p) noexcept { return !p.killed && !p.dying && !p.parked; }

  // Registers w for the running process's next suspension.
  static void arm(world_core& c, sync_waiter& w) {
    const process_wakeup wake = c.prepare_wait();
    w.pid = wake.pid;
    w.generation = wake.generation;
    w.woken = false;
  }
  static void wake(world_core& c, sync_waiter& w) {
    w.woken = true;
    c.wake(w.pid, w.generation);
  }
  static void forget(std::vector<sync_waiter*>& list, const sync_waiter* w) noexcept {
    const auto it = std::find(list.begin(), list.end(), w);
    if (it != list.end()) list.erase(it);
  }
  // One suspension of the running process until woken or the world-time
  // deadline; false if it was killed (or may not block).
  static bool block(world_core& c, duration deadline, const char* what) {
    process_state& p = self(c);
    p.waiting_for = what;
    if (deadline != duration::max()) c.schedule(p.alarm, deadline);
    const bool ok = c.suspend_quietly();
    c.cancel(p.alarm);
    p.waiting_for = "";
    return ok;
  }
  // Host-local time on `clock` -> world time.
  static duration world_deadline(world_core& c, int clock, std::int64_t abs_ns) {
    const host_state* host = self(c).sched.host;
    std::int64_t local = abs_ns;
#if defined(__linux__)
    if (clock == CLOCK_REALTIME)
      local -= std::chrono::duration_cast<std::chrono::nanoseconds>(system_clock::epoch).count();
    else
      local -= steady_boot_ns();
#endif
    const std::int64_t world = host->world_from_local(local);
    return duration(std::max<std::int64_t>(world, c.now().count()));
  }
  static std::int64_t local_now(world_core& c, int clock) {
    std::int64_t ns = host_local_ns(c, self(c).sched.host);
#if defined(__linux__)
    if (clock == CLOCK_REALTIME)
      ns += std::chrono::duration_cast<std::chrono::nanoseconds>(system_clock::epoch).count();
    else
      ns += steady_boot_ns();
#endif
    return ns;
  }
};

void world_core::thread_sync_deleter::operator()(thread_sync* s) const noexcept { delete s; }

thread_sync& world_core::sync() {
  if (!sync_) sync_.reset(new thread_sync);
  return *sync_;
}

void world_core::forget_group_sync(std::uint32_t group) noexcept {
  if (!sync_) return;
  auto dead = [&](const sync_waiter* w) { return w->pid < processes_.size() && processes_[w->pid]->group == group; };
  for (auto it = sync_->mutexes.begin(); it != sync_->mutexes.end();) {
    auto& e = it->second;
    std::erase_if(e.waiters, dead);
    if (e.owner != nullptr && e.owner->group == group) {
      // Held by a fiber that is gone: its memory went with the process.
      if (e.waiters.empty()) {
        it = sync_->mutexes.erase(it);
        continue;
      }
      e.owner = nullptr;
      e.depth = 0;
    }
    ++it;
  }
  for (auto* table : {&sync_->conds, &sync_->futexes})
    for (auto it = table->begin(); it != table->end();) {
      std::erase_if(it->second, dead);
      it = it->second.empty() ? table->erase(it) : std::next(it);
    }
}

namespace interpose {

namespace {

constexpr unsigned long handle_tag = 0x5157ul << 48;
constexpr unsigned long handle_mask = 0xffff'0000'0000'0001ul;

unsigned long handle_of(std::uint32_t pid) noexcept { return handle_tag | (static_cast<unsigned long>(pid) << 1) | 1; }
std::uint32_t pid_of(unsigned long handle) noexcept { return static_cast<std::uint32_t>((handle & ~handle_mask) >> 1); }

#if defined(__linux__)
int mutex_type(const void* m) noexcept { return static_cast<const pthread_mutex_t*>(m)->__data.__kind & 3; }
bool held_by_this_thread(const void* m) noexcept {
  return static_cast<const pthread_mutex_t*>(m)->__data.__owner == static_cast<int>(::gettid());
}
#else
int mutex_type(const void*) noexcept { return 0; }
bool held_by_this_thread(const void*) noexcept { return false; }
#endif
constexpr int recursive_mutex = 1;
constexpr int errorcheck_mutex = 2;

}  // namespace

bool in_process() noexcept { return running_core_tls != nullptr && running_core_tls->in_process(); }

bool is_thread_handle(unsigned long handle) noexcept { return (handle & handle_mask) == (handle_tag | 1); }

bool in_process_code() noexcept { return running_core_tls != nullptr && running_core_tls->calling_owner() != 0; }

int thread_create(unsigned long* handle, void* (*start)(void*), void* arg) noexcept {
  world_core& c = thread_sync::core();
  // From the process's own stack, or from a handler of an io_context the
  // process made (a library starting its thread from a completion handler):
  // either way a thread of that process.
  process_state& parent = c.in_process() ? thread_sync::self(c) : *thread_sync::processes(c)[c.calling_owner() - 1];
  if (!thread_sync::can_wait(parent) || parent.state == process_state::phase::ended) return EAGAIN;
  try {
    world_core* core = &c;
    c.spawn(*parent.host, *parent.sched.host, [core, start, arg] {
      void* r = start(arg);
      thread_sync::self(*core).retval = r;
      return 0;
    });
  } catch (...) {
    return EAGAIN;  // its host is down, or no memory
  }
  process_state& t = *thread_sync::processes(c).back();
  t.is_thread = true;
  t.group = parent.group;
  *handle = handle_of(t.pid);
  world_core::simulated_thread_started();
  if (c.in_process()) c.yield_point();  // the new thread may run first
  return 0;
}

int thread_join(unsigned long handle, void** retval) {
  world_core* c = running_core_tls;
  if (c == nullptr) return EINVAL;  // its world is not running: nothing to join here
  const std::uint32_t pid = pid_of(handle);
  if (pid >= thread_sync::processes(*c).size() || !thread_sync::processes(*c)[pid]->is_thread) return ESRCH;
  process_state& t = *thread_sync::processes(*c)[pid];
  if (t.detached || t.joined) return EINVAL;
  if (t.state != process_state::phase::ended) {
    if (!c->in_process()) {
      c->refuse(("simasio: a simulated thread (thread #" + std::to_string(pid) + " of host '" + t.sched.host->name +
                 "') was joined outside a simulated process, from a handler or the test body, where nothing can "
                 "wait for it. Join a thread from the process (or thread) that runs on its host.")
                    .c_str());
      return EDEADLK;
    }
    process_state& self = thread_sync::self(*c);
    if (&self == &t) return EDEADLK;
    sync_waiter w;
    while (t.state != process_state::phase::ended) {
      thread_sync::arm(*c, w);
      t.joiners.push_back(&w);
      struct leave {
        process_state& t;
        sync_waiter& w;
        ~leave() { thread_sync::forget(t.joiners, &w); }
      } guard{t, w};
      self.waiting_for = "std::thread::join (pthread_join)";
      if (!c->suspend()) return EDEADLK;  // dying: it may not block
      self.waiting_for = "";
    }
  }
  t.joined = true;
  if (retval != nullptr) *retval = t.retval;
  return 0;
}

int thread_detach(unsigned long handle) noexcept {
  world_core* c = running_core_tls;
  if (c == nullptr) return 0;  // its world is not running: it is gone, or will be with it
  const std::uint32_t pid = pid_of(handle);
  if (pid >= thread_sync::processes(*c).size() || !thread_sync::processes(*c)[pid]->is_thread) return ESRCH;
  process_state& t = *thread_sync::processes(*c)[pid];
  if (t.detached || t.joined) return EINVAL;
  t.detached = true;
  return 0;
}

bool thread_self(unsigned long* handle) noexcept {
  if (!in_process()) return false;
  const process_state& p = thread_sync::self(*running_core_tls);
  if (!p.is_thread) return false;
  *handle = handle_of(p.pid);
  return true;
}

// ---- mutexes ------------------------------------------------------------------

namespace {

// The lock itself, without the contention point.
int acquire(world_core& c, void* m, bool try_only, const real_mutex_ops& real) noexcept {
  process_state& p = thread_sync::self(c);
  thread_sync& sync = c.sync();
  sync_waiter w;
  for (;;) {
    auto it = sync.mutexes.find(c.sync_key(m));
    if (it != sync.mutexes.end() && it->second.owner == &p) {
      const int type = mutex_type(m);
      if (type == recursive_mutex) {
        ++it->second.depth;
        return 0;
      }
      if (type == errorcheck_mutex) return EDEADLK;
      if (try_only) return EBUSY;
      // Locking a mutex it holds: a deadlock of its own, as on Linux.
    } else if (it == sync.mutexes.end() || (it->second.owner == nullptr && !it->second.outside)) {
      const int rc = real.trylock(m);
      if (rc == 0) {
        auto& e = sync.mutexes[c.sync_key(m)];
        e.owner = &p;
        e.depth = 1;
        return 0;
      }
      if (rc != EBUSY) return rc;
      if (try_only) return EBUSY;
      if (!held_by_this_thread(m)) {
        // Another OS thread (outside the simulation) holds it: wait for it for real.
        const int locked = real.lock(m);
        if (locked != 0) return locked;
        auto& e = sync.mutexes[c.sync_key(m)];
        e.owner = &p;
        e.depth = 1;
        return 0;
      }
      sync.mutexes[c.sync_key(m)].outside = true;  // a handler or the test body holds it
    } else if (try_only) {
      return EBUSY;
    }
    // Wait for its release. pthread_mutex_lock cannot throw: a crash (or the
    // world's end) must not resume this wait, only discard it (world_core::kill).
    auto& e = sync.mutexes[c.sync_key(m)];
    thread_sync::arm(c, w);
    e.waiters.push_back(&w);
    p.uninterruptible = true;
    const bool ok = thread_sync::block(c, duration::max(), "std::mutex::lock (pthread_mutex_lock)");
    p.uninterruptible = false;
    auto again = sync.mutexes.find(c.sync_key(m));
    if (again != sync.mutexes.end()) thread_sync::forget(again->second.waiters, &w);
    if (!ok) return EOWNERDEAD;  // its host crashed: std::mutex::lock throws, and the fiber unwinds
  }
}

void wake_all(world_core& c, std::vector<sync_waiter*>& list) {
  for (sync_waiter* w : std::exchange(list, {})) thread_sync::wake(c, *w);
}

}  // namespace

int mutex_lock(void* m, bool try_only, const real_mutex_ops& real) noexcept {
  world_core& c = thread_sync::core();
  if (!try_only) c.yield_point();  // a contention point: another fiber may take it first
  return acquire(c, m, try_only, real);
}

int mutex_lock_outside(void* m, bool try_only, const real_mutex_ops& real) noexcept {
  world_core& c = thread_sync::core();
  if (thread_sync::existing(c) == nullptr) return -1;
  auto it = thread_sync::existing(c)->mutexes.find(c.sync_key(m));
  if (it == thread_sync::existing(c)->mutexes.end() || it->second.owner == nullptr) {
    if (it == thread_sync::existing(c)->mutexes.end() || try_only) return -1;
    const int rc = real.trylock(m);
    if (rc != 0) return rc == EBUSY ? -1 : rc;  // held outside: as the real lock would
    it->second.outside = true;
    return 0;
  }
  if (try_only) return EBUSY;
  const process_state& owner = *it->second.owner;
  c.refuse(("simasio: a mutex held by simulated " + std::string(owner.is_thread ? "thread" : "process") + " #" +
            std::to_string(owner.pid) + " of host '" + owner.sched.host->name +
            "' was locked outside the simulated processes (in a handler or the test body), which cannot wait "
            "for a fiber to release it: the lock would never return. Lock it only from the host's processes and "
            "threads, or make the handler's work asynchronous.")
               .c_str());
  return EDEADLK;
}

int mutex_unlock(void* m, const real_mutex_ops& real) noexcept {
  world_core& c = thread_sync::core();
  if (thread_sync::existing(c) == nullptr) return real.unlock(m);
  thread_sync& sync = *thread_sync::existing(c);
  auto it = sync.mutexes.find(c.sync_key(m));
  if (it == sync.mutexes.end()) return real.unlock(m);
  auto& e = it->second;
  const process_state* me = c.in_process() ? &thread_sync::self(c) : nullptr;
  if (e.owner != nullptr && e.owner != me && mutex_type(m) != 0) return EPERM;
  if (e.owner != nullptr && e.owner == me && --e.depth > 0) return 0;
  e.owner = nullptr;
  e.depth = 0;
  e.outside = false;
  const int rc = real.unlock(m);
  if (e.waiters.empty()) {
    sync.mutexes.erase(it);
  } else {
    wake_all(c, e.waiters);  // they try again in the order the strategy runs them
  }
  return rc;
}

// ---- condition variables ---------------------------------------------------------

int cond_wait(void* cond, void* m, int clock, std::int64_t abs_ns, const real_mutex_ops& real) {
  world_core& c = thread_sync::core();
  process_state& p = thread_sync::self(c);
  if (!c.may_block()) return EPERM;  // dying: it may not wait (or process_exit, if its host crashed)
  thread_sync& sync = c.sync();
  sync_waiter w;
  thread_sync::arm(c, w);
  const void* const cond_key = c.sync_key(cond);
  sync.conds[cond_key].push_back(&w);
  struct leave {
    thread_sync& sync;
    const void* cond;
    sync_waiter& w;
    ~leave() {
      auto it = sync.conds.find(cond);
      if (it == sync.conds.end()) return;
      thread_sync::forget(it->second, &w);
      if (it->second.empty()) sync.conds.erase(it);
    }
  } guard{sync, cond_key, w};
  mutex_unlock(m, real);
  const duration deadline = abs_ns < 0 ? duration::max() : thread_sync::world_deadline(c, clock, abs_ns);
  bool timed_out = false;
  while (!w.woken) {
    if (deadline != duration::max() && c.now() >= deadline) {
      timed_out = true;
      break;
    }
    if (!thread_sync::block(c, deadline, "std::condition_variable::wait (pthread_cond_wait)")) break;
    if (!w.woken) thread_sync::arm(c, w);  // the deadline's alarm, or a stale wake: wait again
  }
  const int locked = acquire(c, m, false, real);
  if (p.killed) c.exit_if_killed();  // its host crashed while it waited: unwind
  if (locked != 0) return locked;
  return timed_out ? ETIMEDOUT : 0;
}

bool cond_wake(void* cond, bool all) noexcept {
  world_core& c = thread_sync::core();
  if (thread_sync::existing(c) == nullptr) return false;
  auto it = thread_sync::existing(c)->conds.find(c.sync_key(cond));
  if (it == thread_sync::existing(c)->conds.end() || it->second.empty()) return false;
  auto& list = it->second;
  if (all) {
    wake_all(c, list);
  } else {
    std::size_t i = 0;
    if (list.size() > 1 && c.explores())
      i = static_cast<std::size_t>(c.sched_rng(c.current() != nullptr ? c.current()->host : nullptr).below(list.size()));
    sync_waiter* w = list[i];
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
    thread_sync::wake(c, *w);
  }
  if (list.empty()) thread_sync::existing(c)->conds.erase(it);
  if (c.in_process()) c.yield_point();  // the woken fiber may run before the notifier goes on
  return true;
}

// ---- a process's end -------------------------------------------------------------------

void exit_process(int status) {
  world_core& c = thread_sync::core();
  c.end_running_process(exited, status & 0xff, "");
}

void end_by_signal(int signal, const char* why) {
  world_core& c = thread_sync::core();
  c.end_running_process(signaled, signal, why != nullptr ? why : "");
}

void exit_thread(void* retval) { thread_sync::core().exit_running_thread(retval); }

namespace {

// Whether a signal's default action ends a process.
bool ends_by_default(int sig) noexcept {
  switch (sig) {
    case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:  // ignored by default
    case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:  // stop, not end
      return false;
    default:
      return sig > 0 && sig < NSIG;
  }
}

std::string raised_text(int sig) { return "a signal it sent itself, " + signal_name(sig); }

}  // namespace

int process_sigaction(int sig, const void* act, void* old) noexcept {
  if (sig <= 0 || sig >= NSIG) return EINVAL;
  world_core& c = thread_sync::core();
  auto& actions = thread_sync::processes(c)[thread_sync::self(c).group]->signal_actions;
  const auto it = actions.find(sig);
  if (old != nullptr) {
    auto* o = static_cast<struct sigaction*>(old);
    if (it != actions.end()) {
      *o = it->second;
    } else {
      *o = {};
      o->sa_handler = SIG_DFL;
    }
  }
  if (act != nullptr) {
    if (sig == SIGKILL || sig == SIGSTOP) return EINVAL;
    actions[sig] = *static_cast<const struct sigaction*>(act);
  }
  return 0;
}

int process_raise(int sig) {
  if (sig == 0) return 0;
  if (sig < 0 || sig >= NSIG) return EINVAL;
  world_core& c = thread_sync::core();
  const auto& actions = thread_sync::processes(c)[thread_sync::self(c).group]->signal_actions;
  const auto it = sig == SIGKILL ? actions.end() : actions.find(sig);
  if (it != actions.end() && (it->second.sa_flags & SA_SIGINFO) != 0) {
    siginfo_t info{};
    info.si_signo = sig;
    info.si_code = SI_USER;
    it->second.sa_sigaction(sig, &info, nullptr);
    return 0;
  }
  const auto handler = it != actions.end() ? it->second.sa_handler : SIG_DFL;
  if (handler == SIG_IGN) return 0;
  if (handler != SIG_DFL) {
    handler(sig);
    return 0;
  }
  if (!ends_by_default(sig)) return 0;
  end_by_signal(sig, raised_text(sig).c_str());
}

// ---- sleeping ------------------------------------------------------------------------

void sleep(int clock, bool absolute, std::int64_t ns) {
  world_core& c = thread_sync::core();
  const std::int64_t rel = absolute ? ns - thread_sync::local_now(c, clock) : ns;
  if (rel <= 0) {
    if (c.may_block()) c.yield_point();
    return;
  }
  c.sleep_until(c.now() + duration(rel));
}

void yield() noexcept { thread_sync::core().yield_point(); }

// ---- futexes ---------------------------------------------------------------------------

long futex(std::uint32_t* addr, int op, std::uint32_t val, const void* timeout, std::uint32_t val3,
           bool& handled) {
  handled = false;
#if defined(__linux__)
  world_core& c = thread_sync::core();
  const int cmd = op & FUTEX_CMD_MASK;
  if (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET) {
    long woken = 0;
    if (thread_sync::existing(c) != nullptr) {
      auto it = thread_sync::existing(c)->futexes.find(c.sync_key(addr));
      if (it != thread_sync::existing(c)->futexes.end()) {
        const std::uint32_t mask = cmd == FUTEX_WAKE_BITSET ? val3 : ~0u;
        auto& list = it->second;
        for (std::size_t i = 0; i < list.size() && woken < static_cast<long>(val);) {
          if ((list[i]->bitset & mask) == 0) {
            ++i;
            continue;
          }
          thread_sync::wake(c, *list[i]);
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
          ++woken;
        }
        if (list.empty()) thread_sync::existing(c)->futexes.erase(it);
      }
    }
    handled = woken > 0;  // none of ours: the kernel's waiters (another thread's) may be
    return woken;
  }
  if (cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET) return 0;
  if (__atomic_load_n(addr, __ATOMIC_SEQ_CST) != val) {
    handled = true;
    errno = EAGAIN;
    return -1;
  }
  if (!c.in_process()) return 0;  // the kernel's wait (the caller refuses a hang in a handler)
  handled = true;
  if (!c.may_block()) {  // process_exit if its host crashed; a destructor while it unwinds may not wait
    errno = EINTR;
    return -1;
  }
  duration deadline = duration::max();
  if (timeout != nullptr) {
    const auto* ts = static_cast<const timespec*>(timeout);
    const std::int64_t ns = static_cast<std::int64_t>(ts->tv_sec) * 1'000'000'000 + ts->tv_nsec;
    if (cmd == FUTEX_WAIT) {
      deadline = c.now() + duration(std::max<std::int64_t>(ns, 0));  // relative, on the monotonic clock
    } else {
      deadline = thread_sync::world_deadline(c, (op & FUTEX_CLOCK_REALTIME) != 0 ? CLOCK_REALTIME : CLOCK_MONOTONIC, ns);
    }
  }
  thread_sync& sync = c.sync();
  sync_waiter w;
  w.bitset = cmd == FUTEX_WAIT_BITSET ? val3 : ~0u;
  thread_sync::arm(c, w);
  sync.futexes[c.sync_key(addr)].push_back(&w);
  bool ok = true;
  while (!w.woken && ok) {
    if (deadline != duration::max() && c.now() >= deadline) break;
    ok = thread_sync::block(c, deadline, "a futex wait (std::future::get, std::atomic::wait)");
    if (!w.woken && ok) thread_sync::arm(c, w);
  }
  if (!w.woken) {
    auto it = sync.futexes.find(c.sync_key(addr));
    if (it != sync.futexes.end()) {
      thread_sync::forget(it->second, &w);
      if (it->second.empty()) sync.futexes.erase(it);
    }
    if (!ok) c.exit_if_killed();  // its host crashed while it waited: unwind
    errno = ok ? ETIMEDOUT : EINTR;
    return -1;
  }
  return 0;
#else
  (void)addr, (void)op, (void)val, (void)timeout, (void)val3;
  return 0;
#endif
}

}  // namespace interpose

}  // namespace simasio::detail
