// interpose_support.cpp — the core's side of simasio::interpose (detail/interpose.hpp)
//
// Virtual clocks and seeded entropy for the interposed libc functions,
// refused calls turned into escape_errors, and Asio's reactor timerfd kept
// on virtual time. Linux only for the timerfd: the one reactor Asio uses
// here is epoll's.
#include <simasio/detail/interpose.hpp>

#include <simasio/clock.hpp>
#include <simasio/detail/escape.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/error.hpp>

#include <algorithm>
#include <memory>
#include <string>

#if defined(__linux__)
#include <poll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>
#endif

namespace simasio::detail {

namespace interpose {

std::int64_t steady_ns() noexcept {
  const world_core& core = *running_core_tls;
  return host_local_ns(core, core.clock_host());
}

std::int64_t realtime_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(system_clock::epoch).count() + steady_ns();
}

void entropy(void* buf, std::size_t n) noexcept { running_core_tls->fill_entropy(buf, n); }

void refuse(const char* message) noexcept { running_core_tls->refuse(message); }

void refuse_real_wait(const char* call, int timeout_ms) {
  const world* w = current_world();
  if (w == nullptr || (running_core_tls == nullptr && is_default_world(*w))) return;
  throw escape_error(
      std::string("simasio: a real boost::asio::io_context waited on real time (its reactor called ") + call +
      (timeout_ms < 0 ? " with no timeout" : " with a timeout of " + std::to_string(timeout_ms) + " ms") +
      (running_core_tls != nullptr ? ") in a handler of a simulated world" : ") while a simulated world is alive") +
      " on this thread, outside a simulated process. Its timers and sockets are real: it would wait real seconds "
      "while the virtual clock stands still, and a seed would no longer decide what it does. Use simasio's "
      "io_context (`namespace net = simasio::asio;` and net::io_context, or host.context()), or run the code as "
      "a process of a host (host.spawn(...) or host.spawn_main(...)), where boost::asio::io_context itself is "
      "simulated.");
}

bool set_timerfd(int fd, bool absolute, std::int64_t ns) noexcept {
  world_core& core = *running_core_tls;
  if (ns < 0) return core.set_real_timerfd(fd, duration::max());
  const host_state* host = core.clock_host();
  const std::int64_t local_now = host_local_ns(core, host);
  // Asio's relative values are at most 5 minutes: no overflow.
  const std::int64_t local = absolute ? ns - steady_boot_ns() : local_now + ns;
  const std::int64_t world = host != nullptr ? host->world_from_local(local) : local;
  return core.set_real_timerfd(fd, duration(world));
}

}  // namespace interpose

void world_core::refuse(const char* message) noexcept {
  if (refused_) return;
  try {
    refused_ = std::make_exception_ptr(escape_error(message));
  } catch (...) {
    refused_ = std::current_exception();  // bad_alloc: still fails the run
  }
  pending_exception_ = refused_;
}

#if defined(__linux__)
namespace {
// The kernel's own timerfd_settime: the libc symbol may be the interposer.
int raw_timerfd_settime(int fd, int flags, const itimerspec* v, itimerspec* old) noexcept {
  return static_cast<int>(::syscall(SYS_timerfd_settime, fd, flags, v, old));
}
}  // namespace

bool world_core::set_real_timerfd(int fd, duration deadline, bool simulated) noexcept {
  // The kernel timer stays disarmed (which also clears an expiry not yet
  // read): only the world decides when the fd becomes readable.
  itimerspec off{};
  itimerspec old{};
  if (!simulated && raw_timerfd_settime(fd, 0, &off, &old) != 0) return false;
  real_timerfd* entry = nullptr;
  for (auto& e : real_timerfds_)
    if (e->fd == fd) entry = e.get();
  if (entry == nullptr) {
    try {
      real_timerfds_.push_back(std::make_unique<real_timerfd>(this, fd));
    } catch (...) {
      return false;
    }
    entry = real_timerfds_.back().get();
  }
  entry->simulated = simulated;
  entry->deadline = deadline;
  real_timerfds_dirty_ = true;
  return true;
}

// The deadline came: the fd becomes readable (the kernel timer is armed to
// expire at once, and we wait until it has), then every Asio scheduler on a
// simulated context is polled; the reactor that owns the fd runs its due
// timers and arms the fd again.
void world_core::on_real_timerfd(timed_event* ev) {
  auto* entry = static_cast<real_timerfd*>(ev->owner());
  world_core& core = *entry->core;
  entry->deadline = duration::max();
  const itimerspec now{{0, 0}, {0, 1}};
  if (!entry->simulated && raw_timerfd_settime(entry->fd, TFD_TIMER_ABSTIME, &now, nullptr) == 0) {
    pollfd p{entry->fd, POLLIN, 0};
    while (::poll(&p, 1, -1) < 0) {
    }
  }
  for (context_state* ctx : core.contexts_) {
    if (ctx == nullptr) continue;
    if (ctx->real_scheduler == nullptr) ctx->real_scheduler = real_timer_scheduler(*ctx->exec);
    if (ctx->real_scheduler != nullptr) core.poll_real_scheduler(*ctx);
  }
  core.sync_real_timerfds();
}

// Puts each armed deadline in the event heap, but only while some Asio
// scheduler has work (a pending wait): an idle reactor re-arms every five
// minutes, which must not keep the world running.
void world_core::sync_real_timerfds() {
  bool pending = false;
  for (context_state* ctx : contexts_) {
    if (ctx == nullptr || !ctx->host->up) continue;
    if (ctx->real_scheduler == nullptr) ctx->real_scheduler = real_timer_scheduler(*ctx->exec);
    if (ctx->real_scheduler == nullptr) continue;
    const host_state* saved = booting_;
    booting_ = ctx->host;
    const bool p = real_timer_waits_pending(ctx->real_scheduler);
    booting_ = saved;
    pending = pending || p;
  }
  real_timerfds_dirty_ = false;
  for (auto& e : real_timerfds_) {
    if (pending && e->deadline != duration::max()) {
      if (!e->ev.scheduled() || e->ev.when() != std::max(e->deadline, now_)) schedule(e->ev, e->deadline);
    } else {
      cancel(e->ev);
    }
  }
}
#else
bool world_core::set_real_timerfd(int, duration) noexcept { return false; }
void world_core::on_real_timerfd(timed_event*) {}
void world_core::sync_real_timerfds() { real_timerfds_dirty_ = false; }
#endif

}  // namespace simasio::detail
