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
//                   the host's virtual steady time; REALTIME,
//                   REALTIME_COARSE, TAI: its virtual Unix time. CPU-time
//                   clocks stay real.
//   gettimeofday, time                      virtual Unix time
//   getrandom, getentropy, arc4random*, rand, random,
//   std::random_device::operator()          the world's entropy stream
//   timerfd_settime                         Asio's reactor deadline, kept
//                                           on virtual time by the world
//   pthread_create                          refused (EPERM)
//   socket, connect, send, sendto, sendmsg, sendmmsg   refused (-1, EPERM)
//   getaddrinfo                             refused (EAI_FAIL)
// A refused call reaches no kernel; the run then throws escape_error naming it.
#include <simasio/detail/interpose.hpp>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>

#include <dlfcn.h>
#include <netdb.h>
#include <pthread.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
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
SIMASIO_NEXT(socket, int (*)(int, int, int));
SIMASIO_NEXT(connect, int (*)(int, const sockaddr*, socklen_t));
SIMASIO_NEXT(send, ssize_t (*)(int, const void*, size_t, int));
SIMASIO_NEXT(sendto, ssize_t (*)(int, const void*, size_t, int, const sockaddr*, socklen_t));
SIMASIO_NEXT(sendmsg, ssize_t (*)(int, const msghdr*, int));
SIMASIO_NEXT(sendmmsg, int (*)(int, mmsghdr*, unsigned int, int));
SIMASIO_NEXT(getaddrinfo, int (*)(const char*, const char*, const addrinfo*, addrinfo**));

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

constexpr const char* socket_advice =
    "A real socket would reach real hosts on real time, outside the seed's control: use simasio's sockets and "
    "resolver (write `namespace net = simasio::asio;` and net::ip::tcp::socket, net::ip::udp::socket, "
    "net::ip::tcp::resolver; `namespace beast = simasio::beast;` for beast::tcp_stream).";

int refuse_socket(const char* call) noexcept {
  refuse(call, socket_advice);
  errno = EPERM;
  return -1;
}

}  // namespace

extern "C" {

// ---- clocks ------------------------------------------------------------------

int clock_gettime(clockid_t id, timespec* ts) __THROW {
  if (sim::active()) {
    switch (id) {
      case CLOCK_MONOTONIC:
      case CLOCK_MONOTONIC_RAW:
      case CLOCK_MONOTONIC_COARSE:
      case CLOCK_BOOTTIME:
        to_timespec(sim::steady_ns(), ts);
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

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) __THROWNL {
  if (sim::active()) {
    refuse("pthread_create (std::thread, std::jthread, std::async)",
           "A real thread runs outside the simulation, on real time, in an order no seed decides: post the work to "
           "an io_context of the host instead (an io_context with a concurrency_hint above 1 models a thread pool), "
           "or start the thread before the world runs and keep it away from the world's objects.");
    return EPERM;
  }
  if (auto f = next_pthread_create.get()) return f(thread, attr, start, arg);
  return EAGAIN;
}

// ---- sockets -----------------------------------------------------------------

int socket(int domain, int type, int protocol) __THROW {
  if (sim::active()) return refuse_socket("socket()");
  if (auto f = next_socket.get()) return f(domain, type, protocol);
  return static_cast<int>(::syscall(SYS_socket, domain, type, protocol));
}

int connect(int fd, const sockaddr* addr, socklen_t len) {
  if (sim::active()) return refuse_socket("connect()");
  if (auto f = next_connect.get()) return f(fd, addr, len);
  return static_cast<int>(::syscall(SYS_connect, fd, addr, len));
}

ssize_t send(int fd, const void* buf, size_t n, int flags) {
  if (sim::active()) return refuse_socket("send()");
  if (auto f = next_send.get()) return f(fd, buf, n, flags);
  return ::syscall(SYS_sendto, fd, buf, n, flags, nullptr, 0);
}

ssize_t sendto(int fd, const void* buf, size_t n, int flags, const sockaddr* addr, socklen_t len) {
  if (sim::active()) return refuse_socket("sendto()");
  if (auto f = next_sendto.get()) return f(fd, buf, n, flags, addr, len);
  return ::syscall(SYS_sendto, fd, buf, n, flags, addr, len);
}

ssize_t sendmsg(int fd, const msghdr* msg, int flags) {
  if (sim::active()) return refuse_socket("sendmsg()");
  if (auto f = next_sendmsg.get()) return f(fd, msg, flags);
  return ::syscall(SYS_sendmsg, fd, msg, flags);
}

int sendmmsg(int fd, mmsghdr* msgs, unsigned int n, int flags) {
  if (sim::active()) return refuse_socket("sendmmsg()");
  if (auto f = next_sendmmsg.get()) return f(fd, msgs, n, flags);
  return static_cast<int>(::syscall(SYS_sendmmsg, fd, msgs, n, flags));
}

int getaddrinfo(const char* node, const char* service, const addrinfo* hints, addrinfo** res) {
  if (sim::active()) {
    refuse("getaddrinfo() (a real DNS lookup)", socket_advice);
    return EAI_FAIL;
  }
  if (auto f = next_getaddrinfo.get()) return f(node, service, hints, res);
  return EAI_SYSTEM;
}

}  // extern "C"
