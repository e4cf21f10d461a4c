// interpose.cpp — simasio::interpose: libc's clocks, entropy, threads and sockets, seen from a simulation
//
// Linked into a test executable (as an object file, so nothing is dropped),
// these definitions preempt libc's for the whole process, libstdc++ and
// Boost included: std::chrono::steady_clock::now() calls clock_gettime,
// std::thread calls pthread_create, Asio calls socket, connect, sendmsg and
// timerfd_settime. Each asks whether a simulated world runs on the calling
// thread (detail/interpose.hpp); if not, it calls the real function (the
// next definition, found with dlsym(RTLD_NEXT): libc's, or a sanitizer's
// interceptor in front of it), or the system call when that is not found.
//
// While a world runs:
//   clock_gettime   MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME:
//                   the host's virtual steady time (simasio::steady_clock;
//                   in a process's code, 1000 s more: since its host
//                   booted, steady_boot_ns()); REALTIME,
//                   REALTIME_COARSE, TAI: its virtual Unix time. CPU-time
//                   clocks stay real.
//   gettimeofday, time                      virtual Unix time
//   getrandom, getentropy, arc4random*, rand, random,
//   std::random_device::operator()          the world's entropy stream
//   timerfd_settime                         Asio's reactor deadline, kept
//                                           on virtual time by the world
//   pthread_create                          in a simulated process: a thread
//                                           of it (a fiber); elsewhere refused (EPERM)
//   pthread_join/detach/self, pthread_mutex_*, pthread_cond_*, nanosleep,
//   clock_nanosleep, usleep, sleep, sched_yield, syscall(SYS_futex)
//                                           in a process: block and wake its
//                                           fibers (threads.cpp, syscall.cpp)
//   socket and event calls                  sockets.cpp: in a simulated
//                                           process, its host's simulated
//                                           network; elsewhere refused
// A refused call reaches no kernel; the run then throws escape_error naming it.
// File calls on paths under /simdisk: files.cpp.
#include <simasio/clock.hpp>
#include <simasio/detail/interpose.hpp>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>

#include <dlfcn.h>
#include <netdb.h>
#include <pthread.h>
#include <sched.h>
#include <sys/sysinfo.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>

namespace {

namespace sim = simasio::detail::interpose;

// dlsym may itself read a clock (or allocate, under a sanitizer): a call
// made while resolving takes the system call instead.
constinit thread_local bool resolving = false;

template <class F>
class next_symbol {
 public:
  explicit constexpr next_symbol(const char* name) noexcept : name_(name) {}
  F get() noexcept {
    F f = fn_.load(std::memory_order_acquire);
    if (f != nullptr || resolving) return f;
    resolving = true;
    f = reinterpret_cast<F>(::dlsym(RTLD_NEXT, name_));
    resolving = false;
    fn_.store(f, std::memory_order_release);
    return f;
  }

 private:
  const char* name_;
  std::atomic<F> fn_{nullptr};
};

// The real functions' types, spelled out: decltype would carry glibc's
// attributes (nonnull, access), which template arguments drop.
#define SIMASIO_NEXT(fn, type) \
  static next_symbol<type> next_##fn { #fn }

SIMASIO_NEXT(clock_gettime, int (*)(clockid_t, timespec*));
SIMASIO_NEXT(gettimeofday, int (*)(timeval*, void*));
SIMASIO_NEXT(time, time_t (*)(time_t*));
SIMASIO_NEXT(getrandom, ssize_t (*)(void*, size_t, unsigned int));
SIMASIO_NEXT(getentropy, int (*)(void*, size_t));
SIMASIO_NEXT(arc4random, __uint32_t (*)());
SIMASIO_NEXT(arc4random_buf, void (*)(void*, size_t));
SIMASIO_NEXT(arc4random_uniform, __uint32_t (*)(__uint32_t));
SIMASIO_NEXT(rand, int (*)());
SIMASIO_NEXT(random, long int (*)());
SIMASIO_NEXT(timerfd_settime, int (*)(int, int, const itimerspec*, itimerspec*));
SIMASIO_NEXT(pthread_create, int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*));
SIMASIO_NEXT(pthread_join, int (*)(pthread_t, void**));
SIMASIO_NEXT(pthread_detach, int (*)(pthread_t));
SIMASIO_NEXT(pthread_self, pthread_t (*)());
SIMASIO_NEXT(pthread_setname_np, int (*)(pthread_t, const char*));
SIMASIO_NEXT(pthread_getname_np, int (*)(pthread_t, char*, size_t));
SIMASIO_NEXT(pthread_mutex_lock, int (*)(pthread_mutex_t*));
SIMASIO_NEXT(pthread_mutex_trylock, int (*)(pthread_mutex_t*));
SIMASIO_NEXT(pthread_mutex_unlock, int (*)(pthread_mutex_t*));
SIMASIO_NEXT(pthread_cond_wait, int (*)(pthread_cond_t*, pthread_mutex_t*));
SIMASIO_NEXT(pthread_cond_timedwait, int (*)(pthread_cond_t*, pthread_mutex_t*, const timespec*));
SIMASIO_NEXT(pthread_cond_clockwait, int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const timespec*));
SIMASIO_NEXT(pthread_cond_signal, int (*)(pthread_cond_t*));
SIMASIO_NEXT(pthread_cond_broadcast, int (*)(pthread_cond_t*));
SIMASIO_NEXT(nanosleep, int (*)(const timespec*, timespec*));
SIMASIO_NEXT(clock_nanosleep, int (*)(clockid_t, int, const timespec*, timespec*));
SIMASIO_NEXT(usleep, int (*)(useconds_t));
SIMASIO_NEXT(sleep, unsigned int (*)(unsigned int));
SIMASIO_NEXT(sched_yield, int (*)());
SIMASIO_NEXT(get_nprocs, int (*)());
SIMASIO_NEXT(get_nprocs_conf, int (*)());
SIMASIO_NEXT(sysconf, long (*)(int));
SIMASIO_NEXT(abort, void (*)());
SIMASIO_NEXT(__assert_fail, void (*)(const char*, const char*, unsigned int, const char*));
SIMASIO_NEXT(exit, void (*)(int));
SIMASIO_NEXT(_exit, void (*)(int));
SIMASIO_NEXT(_Exit, void (*)(int));
SIMASIO_NEXT(quick_exit, void (*)(int));
SIMASIO_NEXT(pthread_exit, void (*)(void*));
SIMASIO_NEXT(raise, int (*)(int));
SIMASIO_NEXT(kill, int (*)(pid_t, int));
SIMASIO_NEXT(sigaction, int (*)(int, const struct sigaction*, struct sigaction*));
SIMASIO_NEXT(signal, sighandler_t (*)(int, sighandler_t));

// The mutex functions are resolved before main(): a lock taken while
// dlsym resolves a symbol would find none.
[[gnu::constructor]] void resolve_mutex_functions() noexcept {
  next_pthread_mutex_lock.get();
  next_pthread_mutex_trylock.get();
  next_pthread_mutex_unlock.get();
}

const sim::real_mutex_ops real_mutex{
    [](void* m) {
      auto f = next_pthread_mutex_trylock.get();
      return f != nullptr ? f(static_cast<pthread_mutex_t*>(m)) : EAGAIN;
    },
    [](void* m) {
      auto f = next_pthread_mutex_lock.get();
      return f != nullptr ? f(static_cast<pthread_mutex_t*>(m)) : EAGAIN;
    },
    [](void* m) {
      auto f = next_pthread_mutex_unlock.get();
      return f != nullptr ? f(static_cast<pthread_mutex_t*>(m)) : EPERM;
    },
};

// The clock a condition variable's timed waits use (pthread_condattr_setclock):
// bit 1 of glibc's __wrefs.
int cond_clock(const pthread_cond_t* c) noexcept {
  return (c->__data.__wrefs & 2u) != 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

// pthread_mutex_lock and _trylock: a fiber's lock in a process; outside
// one, refused when a fiber holds the mutex, else the real lock.
int lock_mutex(pthread_mutex_t* m, bool try_only) noexcept {
  if (sim::active()) {
    if (sim::in_process()) return sim::mutex_lock(m, try_only, real_mutex);
    const int rc = sim::mutex_lock_outside(m, try_only, real_mutex);
    if (rc >= 0) return rc;
  }
  return try_only ? real_mutex.trylock(m) : real_mutex.lock(m);
}

std::int64_t ns_of(const timespec& ts) noexcept {
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void to_timespec(std::int64_t ns, timespec* ts) noexcept {
  // Floor division: a host clock set before its epoch reads negative.
  std::int64_t s = ns / 1'000'000'000;
  std::int64_t r = ns % 1'000'000'000;
  if (r < 0) {
    --s;
    r += 1'000'000'000;
  }
  ts->tv_sec = static_cast<time_t>(s);
  ts->tv_nsec = static_cast<long>(r);
}

std::int64_t from_timespec(const timespec& ts) noexcept {
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The seeded stream's bytes, or the kernel's outside a run.
void real_entropy(void* buf, std::size_t n) noexcept {
  auto* p = static_cast<unsigned char*>(buf);
  while (n > 0) {
    const long got = ::syscall(SYS_getrandom, p, n, 0);
    if (got <= 0) continue;  // EINTR
    p += got;
    n -= static_cast<std::size_t>(got);
  }
}

template <class T>
T seeded() noexcept {
  T v;
  sim::entropy(&v, sizeof v);
  return v;
}

// The escape_error the run throws for a refused call.
void refuse(const char* call, const char* instead) noexcept {
  try {
    sim::refuse((std::string("simasio: ") + call +
                 " was called while a simulated world runs on this thread; simasio::interpose refused it before it "
                 "reached the kernel. " + instead)
                    .c_str());
  } catch (...) {
    sim::refuse("simasio: a refused call (simasio::interpose) while a simulated world runs");
  }
}

// A call's result from an errno value: 0, or -1 with errno set.
int with_errno(int e) noexcept {
  if (e == 0) return 0;
  errno = e;
  return -1;
}

}  // namespace

extern "C" {

// ---- clocks ------------------------------------------------------------------

int clock_gettime(clockid_t id, timespec* ts) __THROW {
  if (sim::active()) {
    switch (id) {
      case CLOCK_MONOTONIC:
      case CLOCK_MONOTONIC_COARSE:
      case CLOCK_MONOTONIC_RAW:
      case CLOCK_BOOTTIME:
        to_timespec(sim::steady_ns() + simasio::detail::steady_boot_ns(), ts);
        return 0;
      case CLOCK_REALTIME:
      case CLOCK_REALTIME_COARSE:
      case CLOCK_TAI:
        to_timespec(sim::realtime_ns(), ts);
        return 0;
      default:
        break;  // CPU time and alarms: real
    }
  }
  if (auto f = next_clock_gettime.get()) return f(id, ts);
  return static_cast<int>(::syscall(SYS_clock_gettime, id, ts));
}

int gettimeofday(timeval* tv, void* tz) __THROW {
  if (sim::active()) {
    const std::int64_t us = sim::realtime_ns() / 1000;
    std::int64_t s = us / 1'000'000;
    std::int64_t r = us % 1'000'000;
    if (r < 0) {
      --s;
      r += 1'000'000;
    }
    tv->tv_sec = static_cast<time_t>(s);
    tv->tv_usec = static_cast<suseconds_t>(r);
    if (tz != nullptr) *static_cast<struct timezone*>(tz) = {};
    return 0;
  }
  if (auto f = next_gettimeofday.get()) return f(tv, tz);
  return static_cast<int>(::syscall(SYS_gettimeofday, tv, tz));
}

time_t time(time_t* out) __THROW {
  if (sim::active()) {
    timespec ts;
    to_timespec(sim::realtime_ns(), &ts);
    if (out != nullptr) *out = ts.tv_sec;
    return ts.tv_sec;
  }
  if (auto f = next_time.get()) return f(out);
  return static_cast<time_t>(::syscall(SYS_time, out));
}

int timerfd_settime(int fd, int flags, const itimerspec* value, itimerspec* old) __THROW {
  if (sim::sim_desc(fd)) return sim::posix_timerfd_settime(fd, flags, value, old);
  if (sim::active() && value != nullptr) {
    if (old != nullptr) *old = {};
    const bool off = value->it_value.tv_sec == 0 && value->it_value.tv_nsec == 0;
    // Asio never sets an interval; a periodic timer would be read as one-shot.
    if (sim::set_timerfd(fd, (flags & TFD_TIMER_ABSTIME) != 0, off ? -1 : from_timespec(value->it_value)))
      return 0;
    return -1;  // errno from the kernel: not a timerfd
  }
  if (auto f = next_timerfd_settime.get()) return f(fd, flags, value, old);
  return static_cast<int>(::syscall(SYS_timerfd_settime, fd, flags, value, old));
}

// ---- entropy -------------------------------------------------------------------

ssize_t getrandom(void* buf, size_t n, unsigned int flags) {
  if (sim::active()) {
    sim::entropy(buf, n);
    return static_cast<ssize_t>(n);
  }
  if (auto f = next_getrandom.get()) return f(buf, n, flags);
  return ::syscall(SYS_getrandom, buf, n, flags);
}

int getentropy(void* buf, size_t n) {
  if (sim::active()) {
    if (n > 256) {
      errno = EIO;
      return -1;
    }
    sim::entropy(buf, n);
    return 0;
  }
  if (auto f = next_getentropy.get()) return f(buf, n);
  real_entropy(buf, n);
  return 0;
}

__uint32_t arc4random() __THROW {
  if (sim::active()) return seeded<__uint32_t>();
  if (auto f = next_arc4random.get()) return f();
  __uint32_t v;
  real_entropy(&v, sizeof v);
  return v;
}

void arc4random_buf(void* buf, size_t n) __THROW {
  if (sim::active()) return sim::entropy(buf, n);
  if (auto f = next_arc4random_buf.get()) return f(buf, n);
  real_entropy(buf, n);
}

__uint32_t arc4random_uniform(__uint32_t bound) __THROW {
  if (sim::active()) {
    if (bound < 2) return 0;
    // Rejection keeps it uniform (as libc's does).
    const __uint32_t min = static_cast<__uint32_t>(-bound) % bound;
    for (;;) {
      const auto v = seeded<__uint32_t>();
      if (v >= min) return v % bound;
    }
  }
  if (auto f = next_arc4random_uniform.get()) return f(bound);
  __uint32_t v;
  real_entropy(&v, sizeof v);
  return bound < 2 ? 0 : v % bound;
}

// rand() keeps process-wide state that one seed's run would hand to the
// next: inside a run it draws from the seed instead (srand has no effect there).
int rand() __THROW {
  if (sim::active()) return static_cast<int>(seeded<std::uint32_t>() & RAND_MAX);
  if (auto f = next_rand.get()) return f();
  return 0;
}

long int random() __THROW {
  if (sim::active()) return static_cast<long>(seeded<std::uint32_t>() & RAND_MAX);
  if (auto f = next_random.get()) return f();
  return 0;
}

// std::random_device::operator() calls this member of libstdc++, which may
// use the CPU's RDRAND/RDSEED instruction rather than any libc function.
unsigned int _ZNSt13random_device9_M_getvalEv(void* self) {
  using getval = unsigned int (*)(void*);
  static next_symbol<getval> next_getval{"_ZNSt13random_device9_M_getvalEv"};
  if (sim::active()) return seeded<unsigned int>();
  if (auto f = next_getval.get()) return f(self);
  unsigned int v;
  real_entropy(&v, sizeof v);
  return v;
}

// ---- threads --------------------------------------------------------------------
// Inside a simulated process, threads are fibers of its host and their
// mutexes, condition variables and sleeps block fibers (threads.cpp).
// Outside one, a thread would run beyond the seed's control: refused.

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) __THROWNL {
  if (sim::active()) {
    if (sim::in_process_code()) {
      unsigned long handle = 0;
      const int rc = sim::thread_create(&handle, start, arg);
      if (rc == 0) *thread = static_cast<pthread_t>(handle);
      return rc;
    }
    refuse("pthread_create (std::thread, std::jthread, std::async) outside a simulated process",
           "A real thread runs outside the simulation, on real time, in an order no seed decides. Run the code "
           "that starts threads as a process of a host (host.spawn(...) or host.spawn_main(...)): there "
           "std::thread is a simulated thread of that host. Or post the work to an io_context of the host (an "
           "io_context with a concurrency_hint above 1 models a thread pool).");
    return EPERM;
  }
  if (auto f = next_pthread_create.get()) return f(thread, attr, start, arg);
  return EAGAIN;
}

int pthread_join(pthread_t thread, void** retval) {
  if (sim::is_thread_handle(static_cast<unsigned long>(thread))) return sim::thread_join(thread, retval);
  if (auto f = next_pthread_join.get()) return f(thread, retval);
  return ESRCH;
}

int pthread_detach(pthread_t thread) __THROW {
  if (sim::is_thread_handle(static_cast<unsigned long>(thread))) return sim::thread_detach(thread);
  if (auto f = next_pthread_detach.get()) return f(thread);
  return ESRCH;
}

pthread_t pthread_self() __THROW {
  unsigned long handle = 0;
  if (sim::active() && sim::thread_self(&handle)) return static_cast<pthread_t>(handle);
  if (auto f = next_pthread_self.get()) return f();
  return 0;
}

int pthread_setname_np(pthread_t thread, const char* name) __THROW {
  if (sim::is_thread_handle(static_cast<unsigned long>(thread))) return 0;  // a fiber has no kernel name
  if (auto f = next_pthread_setname_np.get()) return f(thread, name);
  return ESRCH;
}

int pthread_getname_np(pthread_t thread, char* buf, size_t len) __THROW {
  if (sim::is_thread_handle(static_cast<unsigned long>(thread))) {
    if (len > 0) buf[0] = '\0';
    return 0;
  }
  if (auto f = next_pthread_getname_np.get()) return f(thread, buf, len);
  return ESRCH;
}

// ---- the machine's size -----------------------------------------------------------
// std::thread::hardware_concurrency() and thread pools sized from it
// (cpp-httplib's) would follow the test machine: a simulated process's host
// has simulated_cpus processors, whatever the machine running the test.

int get_nprocs() __THROW {
  if (sim::active() && sim::in_process_code()) return sim::simulated_cpus;
  if (auto f = next_get_nprocs.get()) return f();
  return 1;
}

int get_nprocs_conf() __THROW {
  if (sim::active() && sim::in_process_code()) return sim::simulated_cpus;
  if (auto f = next_get_nprocs_conf.get()) return f();
  return 1;
}

long sysconf(int name) __THROW {
  if ((name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) && sim::active() && sim::in_process_code())
    return sim::simulated_cpus;
  if (auto f = next_sysconf.get()) return f(name);
  errno = EINVAL;
  return -1;
}

// ---- a process's end --------------------------------------------------------------
// Inside a simulated process these end that process alone, as the kernel
// ends a process (threads.cpp, world_core::end_running_process); the host
// and the world go on. Elsewhere (a handler, the test body) they are libc's.

__attribute__((noreturn)) void abort() __THROW {
  if (sim::in_process()) sim::end_by_signal(SIGABRT, "abort()");
  if (auto f = next_abort.get()) f();
  ::syscall(SYS_tgkill, ::getpid(), ::gettid(), SIGABRT);
  ::_exit(127);
}

__attribute__((noreturn)) void __assert_fail(const char* assertion, const char* file, unsigned int line, const char* function) __THROW {
  if (sim::in_process()) {
    // glibc's words, on stderr as glibc would write them.
    char text[1024];
    std::snprintf(text, sizeof text, "%s:%u: %s%sAssertion `%s' failed.", file, line, function != nullptr ? function : "",
                  function != nullptr ? ": " : "", assertion);
    std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, text);
    std::fflush(stderr);
    std::string why = "a failed assert: ";
    why += text;
    sim::end_by_signal(SIGABRT, why.c_str());
  }
  if (auto f = next___assert_fail.get()) f(assertion, file, line, function);
  abort();
}

__attribute__((noreturn)) void exit(int status) __THROW {
  if (sim::in_process()) sim::exit_process(status);
  if (auto f = next_exit.get()) f(status);
  ::syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

__attribute__((noreturn)) void _exit(int status) {
  if (sim::in_process()) sim::exit_process(status);
  if (auto f = next__exit.get()) f(status);
  ::syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

__attribute__((noreturn)) void _Exit(int status) __THROW {
  if (sim::in_process()) sim::exit_process(status);
  if (auto f = next__Exit.get()) f(status);
  ::syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

__attribute__((noreturn)) void quick_exit(int status) __THROW {
  if (sim::in_process()) sim::exit_process(status);
  if (auto f = next_quick_exit.get()) f(status);
  ::syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

__attribute__((noreturn)) void pthread_exit(void* retval) {
  if (sim::in_process()) sim::exit_thread(retval);
  if (auto f = next_pthread_exit.get()) f(retval);
  ::syscall(SYS_exit, 0);
  __builtin_unreachable();
}

int raise(int sig) __THROW {
  if (sim::in_process()) return with_errno(sim::process_raise(sig));
  if (auto f = next_raise.get()) return f(sig);
  return static_cast<int>(::syscall(SYS_tgkill, ::getpid(), ::gettid(), sig));
}

int kill(pid_t pid, int sig) __THROW {
  // The simulated process signals itself (its pid is the test program's, as getpid() says).
  if (sim::in_process() && (pid == 0 || pid == ::getpid())) return with_errno(sim::process_raise(sig));
  if (auto f = next_kill.get()) return f(pid, sig);
  return static_cast<int>(::syscall(SYS_kill, pid, sig));
}

int sigaction(int sig, const struct sigaction* act, struct sigaction* old) __THROW {
  if (sim::in_process()) return with_errno(sim::process_sigaction(sig, act, old));
  if (auto f = next_sigaction.get()) return f(sig, act, old);
  return static_cast<int>(::syscall(SYS_rt_sigaction, sig, act, old, NSIG / 8));
}

sighandler_t signal(int sig, sighandler_t handler) __THROW {
  if (sim::in_process()) {
    struct sigaction act {}, old {};
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART;
    if (const int e = sim::process_sigaction(sig, &act, &old); e != 0) {
      errno = e;
      return SIG_ERR;
    }
    return old.sa_handler;
  }
  if (auto f = next_signal.get()) return f(sig, handler);
  errno = ENOSYS;
  return SIG_ERR;
}

int pthread_mutex_lock(pthread_mutex_t* m) __THROWNL { return lock_mutex(m, false); }

int pthread_mutex_trylock(pthread_mutex_t* m) __THROWNL { return lock_mutex(m, true); }

int pthread_mutex_unlock(pthread_mutex_t* m) __THROWNL {
  if (sim::active()) return sim::mutex_unlock(m, real_mutex);
  return real_mutex.unlock(m);
}

int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  if (sim::in_process()) return sim::cond_wait(c, m, CLOCK_REALTIME, -1, real_mutex);
  if (auto f = next_pthread_cond_wait.get()) return f(c, m);
  return EINVAL;
}

int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const timespec* abstime) {
  if (sim::in_process()) return sim::cond_wait(c, m, cond_clock(c), ns_of(*abstime), real_mutex);
  if (auto f = next_pthread_cond_timedwait.get()) return f(c, m, abstime);
  return EINVAL;
}

int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock, const timespec* abstime) {
  if (sim::in_process()) {
    if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME) return EINVAL;
    return sim::cond_wait(c, m, clock, ns_of(*abstime), real_mutex);
  }
  if (auto f = next_pthread_cond_clockwait.get()) return f(c, m, clock, abstime);
  return EINVAL;
}

int pthread_cond_signal(pthread_cond_t* c) __THROWNL {
  if (sim::active() && sim::cond_wake(c, false)) return 0;
  if (auto f = next_pthread_cond_signal.get()) return f(c);
  return 0;
}

int pthread_cond_broadcast(pthread_cond_t* c) __THROWNL {
  if (sim::active() && sim::cond_wake(c, true)) return 0;
  if (auto f = next_pthread_cond_broadcast.get()) return f(c);
  return 0;
}

// ---- sleeping: std::this_thread::sleep_for/sleep_until/yield -----------------------

int nanosleep(const timespec* req, timespec* rem) {
  if (sim::in_process()) {
    sim::sleep(CLOCK_MONOTONIC, false, ns_of(*req));
    if (rem != nullptr) *rem = {};
    return 0;
  }
  if (auto f = next_nanosleep.get()) return f(req, rem);
  return static_cast<int>(::syscall(SYS_nanosleep, req, rem));
}

int clock_nanosleep(clockid_t clock, int flags, const timespec* req, timespec* rem) {
  if (sim::in_process() && (clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME || clock == CLOCK_BOOTTIME)) {
    sim::sleep(clock == CLOCK_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC, (flags & TIMER_ABSTIME) != 0,
               ns_of(*req));
    if (rem != nullptr) *rem = {};
    return 0;
  }
  if (auto f = next_clock_nanosleep.get()) return f(clock, flags, req, rem);
  return static_cast<int>(::syscall(SYS_clock_nanosleep, clock, flags, req, rem));
}

int usleep(useconds_t us) {
  if (sim::in_process()) {
    sim::sleep(CLOCK_MONOTONIC, false, static_cast<std::int64_t>(us) * 1000);
    return 0;
  }
  if (auto f = next_usleep.get()) return f(us);
  return 0;
}

unsigned int sleep(unsigned int s) {
  if (sim::in_process()) {
    sim::sleep(CLOCK_MONOTONIC, false, static_cast<std::int64_t>(s) * 1'000'000'000);
    return 0;
  }
  if (auto f = next_sleep.get()) return f(s);
  return 0;
}

int sched_yield() __THROW {
  if (sim::in_process()) {
    sim::yield();
    return 0;
  }
  if (auto f = next_sched_yield.get()) return f();
  return static_cast<int>(::syscall(SYS_sched_yield));
}

}  // extern "C"

