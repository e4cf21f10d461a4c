// simasio/detail/interpose.hpp — what the interposition library (simasio::interpose) asks of the core
//
// simasio::interpose (src/interpose/) defines clock_gettime, getrandom,
// pthread_create, socket, ... in the test executable, so that they preempt
// libc's. Each asks `active()` first: only while a world runs on the calling
// thread (a run of world::run*, io_context::run*/poll*) do these answer;
// otherwise the interposer calls the real function. Nothing here changes a
// world that never calls them: no draw from the seeded streams, no event.
#ifndef SIMASIO_DETAIL_INTERPOSE_HPP
#define SIMASIO_DETAIL_INTERPOSE_HPP

#include <simasio/detail/current.hpp>

#include <cstddef>
#include <cstdint>

namespace simasio::detail::interpose {

// Whether a world runs on this thread.
inline bool active() noexcept { return running_core_tls != nullptr; }

// The steady time of the host whose handler runs (world time outside a
// handler), in nanoseconds; the simasio::steady_clock reading. Requires active().
std::int64_t steady_ns() noexcept;

// Unix time in nanoseconds on that host: simasio::system_clock's reading
// (world time 0 is 2020-01-01T00:00:00Z). Requires active().
std::int64_t realtime_ns() noexcept;

// Fills [buf, buf + n) from the running world's entropy stream: seeded
// from the world's seed, apart from the scheduler, network, user and
// buggify streams (drawing here moves none of them), and not on the tape.
// Requires active().
void entropy(void* buf, std::size_t n) noexcept;

// A call that must not run inside a simulation (a thread, a real socket).
// The interposer returns an error without calling the kernel; the run that
// is in progress throws escape_error(message) when the handler returns (or,
// if the refused call made the handler throw, instead of that exception).
// The first refusal of a run wins. Requires active().
void refuse(const char* message) noexcept;

// Asio's epoll_reactor arms its timerfd with the time to its earliest
// timer (timerfd_settime): the world keeps that deadline on virtual time
// instead of the kernel's real one. `absolute` is TFD_TIMER_ABSTIME;
// `ns` < 0 disarms. Returns false when fd is not a timerfd (errno left by
// the kernel's answer). Requires active().
bool set_timerfd(int fd, bool absolute, std::int64_t ns) noexcept;

}  // namespace simasio::detail::interpose

#endif  // SIMASIO_DETAIL_INTERPOSE_HPP
