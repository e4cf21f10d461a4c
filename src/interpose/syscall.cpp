// syscall.cpp — simasio::interpose's syscall(): the futexes behind std::future, std::atomic::wait and std::latch
//
// libstdc++ waits and wakes with syscall(SYS_futex, ...) rather than a libc
// function. Inside a simulated process a wait blocks the fiber until a wake
// on the same address (threads.cpp); every other system call goes to libc.
// A file of its own, without <unistd.h>: glibc declares syscall() noexcept,
// and this definition must be able to unwind a process whose host crashed
// while it waited (process_exit).
#include <simasio/detail/interpose.hpp>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include <dlfcn.h>
#include <linux/futex.h>
#include <sys/syscall.h>

namespace {

namespace sim = simasio::detail::interpose;

using syscall_fn = long (*)(long, ...);

syscall_fn real_syscall() noexcept {
  static std::atomic<syscall_fn> fn{nullptr};
  syscall_fn f = fn.load(std::memory_order_acquire);
  if (f == nullptr) {
    f = reinterpret_cast<syscall_fn>(::dlsym(RTLD_NEXT, "syscall"));
    fn.store(f, std::memory_order_release);
  }
  return f;
}

bool is_wait(long op) noexcept {
  const long cmd = op & FUTEX_CMD_MASK;
  return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET;
}

}  // namespace

// Like libc's, it reads six arguments whatever the call: the sixth comes
// from the caller's stack frame, beyond what a call with fewer passed, so
// AddressSanitizer must not check those reads.
// Defined under a C++ name of its own, emitted as the symbol `syscall`: a
// header that declares glibc's noexcept `syscall` may come in through the
// standard headers, and clang would give this definition that noexcept.
extern "C" long simasio_interposed_syscall(long number, ...) __asm__("syscall");

extern "C" __attribute__((no_sanitize("address"))) long simasio_interposed_syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& x : a) x = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_futex && sim::active()) {
    bool handled = false;
    const long r = sim::futex(reinterpret_cast<std::uint32_t*>(a[0]), static_cast<int>(a[1]),
                              static_cast<std::uint32_t>(a[2]), reinterpret_cast<const void*>(a[3]),
                              static_cast<std::uint32_t>(a[5]), handled);
    if (handled) return r;
    if (is_wait(a[1]) && a[3] == 0 && !sim::in_process()) {
      // A handler (or the code that runs the world) waits with no deadline.
      // Another OS thread may end the wait (a function-local static that
      // thread initialises); if none does in 10 s, say why it may never end.
      if (syscall_fn f = real_syscall()) {
        struct {
          long tv_sec, tv_nsec;
        } ten_seconds{10, 0};
        const long r = f(number, a[0], a[1] & ~long{FUTEX_CLOCK_REALTIME}, a[2],
                         (a[1] & FUTEX_CMD_MASK) == FUTEX_WAIT ? reinterpret_cast<long>(&ten_seconds) : 0, a[4], a[5]);
        if (r == -1 && errno == ETIMEDOUT) {
          static thread_local bool said = false;
          if (!said) {
            said = true;
            std::fputs(
                "simasio: a handler has waited 10 s on a futex (std::future::get() or wait(), std::atomic::wait, "
                "a latch or semaphore) while a simulated world runs. Nothing else of the world runs while a "
                "handler does, so the wait cannot end (a real io_context would hang the same way). Use the "
                "asynchronous completion instead of a future, or run the blocking code as a process of a host "
                "(host.spawn), where such waits suspend the process.\n",
                stderr);
          }
          errno = EINTR;  // the caller checks its value and waits again
        }
        return r;
      }
    }
  }
  if (syscall_fn f = real_syscall()) return f(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  errno = ENOSYS;
  return -1;
}
