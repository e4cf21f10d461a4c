// simasio/clock.hpp — virtual chrono clocks: each host reads its own view of world time
#ifndef SIMASIO_CLOCK_HPP
#define SIMASIO_CLOCK_HPP

#include <chrono>
#include <compare>
#include <cstdint>
#include <ctime>
#include <type_traits>

namespace simasio {

namespace detail {
struct host_state;
class world_core;
// World time as seen by host h (or unskewed world time when h is null).
std::int64_t host_local_ns(const world_core& core, const host_state* h) noexcept;
// Local time on the host of the running handler of the current world.
// @throws escape_error when no world is alive on this thread.
std::int64_t current_local_ns();
// How far std::chrono::steady_clock (CLOCK_MONOTONIC, with
// simasio::interpose) reads ahead of simasio::steady_clock: 1000 s in a
// simulated process's code (its stack, or a handler of an io_context it
// made), where it reads time since its host booted as Linux's does, never
// 0 (code takes a zero time for "not set": libcurl's timers do); 0
// elsewhere. Timers convert std::chrono::steady_clock time points by it.
std::int64_t steady_boot_ns() noexcept;
}  // namespace detail

/// A steady chrono clock that reads virtual time: the current host's view
/// (offset and drift from host::set_clock) inside a handler, the world's
/// own time in the test body.
///
/// @throws escape_error from now() when no simasio::world is alive on the
/// calling thread.
struct steady_clock {
  /// The clock's ticks: nanoseconds, as virtual time counts them.
  ///@{
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  ///@}
  /// A point of this clock's time: nanoseconds since world time 0, as the
  /// reading host sees them.
  using time_point = std::chrono::time_point<steady_clock, duration>;
  /// True, as for std::chrono::steady_clock: one host's view of time never
  /// goes back unless host::set_clock changes it.
  static constexpr bool is_steady = true;
  /// Virtual time now: the running handler's host's view of it (offset and
  /// drift), or the world's own time in the test body.
  /// @throws escape_error when no simasio::world is alive on the calling
  /// thread.
  static time_point now() { return time_point(duration(detail::current_local_ns())); }
};

/// A wall clock that reads virtual time. World time 0 is
/// 2020-01-01T00:00:00Z; host offsets and drift apply as for steady_clock.
struct system_clock {
  /// The clock's ticks: nanoseconds, as virtual time counts them.
  ///@{
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  ///@}
  /// A point of this clock's time: nanoseconds since the Unix epoch.
  using time_point = std::chrono::time_point<system_clock, duration>;
  /// False, as for std::chrono::system_clock.
  static constexpr bool is_steady = false;
  /// Unix time of world time 0.
  static constexpr std::chrono::seconds epoch{1'577'836'800};
  /// Virtual wall-clock time now: epoch plus what steady_clock::now() reads.
  /// @throws escape_error when no simasio::world is alive on the calling
  /// thread.
  static time_point now() { return time_point(epoch + duration(detail::current_local_ns())); }
  /// @p t as Unix time in whole seconds (truncated toward zero), as
  /// std::chrono::system_clock::to_time_t.
  static std::time_t to_time_t(const time_point& t) noexcept {
    return static_cast<std::time_t>(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
  }
  /// The time point of Unix time @p t (seconds).
  static time_point from_time_t(std::time_t t) noexcept {
    return time_point(std::chrono::duration_cast<duration>(std::chrono::seconds(t)));
  }
};

/// Alias of steady_clock, as libstdc++'s high_resolution_clock is of a real clock.
using high_resolution_clock = steady_clock;

namespace detail {

// Maps a simasio clock's time points to host-local nanoseconds and back.
template <class Clock>
struct sim_clock_traits : std::false_type {};

template <>
struct sim_clock_traits<steady_clock> : std::true_type {
  static std::int64_t to_local(steady_clock::time_point t) noexcept { return t.time_since_epoch().count(); }
  static steady_clock::time_point from_local(std::int64_t ns) noexcept {
    return steady_clock::time_point(steady_clock::duration(ns));
  }
  static constexpr const char* timer_name = "steady_timer";
  using std_clock = std::chrono::steady_clock;  // whose time points the timer also accepts
  // How far std_clock's reading is ahead of this clock's (steady_boot_ns).
  static std::int64_t std_offset() noexcept { return steady_boot_ns(); }
};

template <>
struct sim_clock_traits<system_clock> : std::true_type {
  static std::int64_t to_local(system_clock::time_point t) noexcept {
    return (t.time_since_epoch() - system_clock::epoch).count();
  }
  static system_clock::time_point from_local(std::int64_t ns) noexcept {
    return system_clock::time_point(system_clock::epoch + system_clock::duration(ns));
  }
  static constexpr const char* timer_name = "system_timer";
  using std_clock = std::chrono::system_clock;
  static std::int64_t std_offset() noexcept { return 0; }
};

// True when one clock is a simasio clock and the other the std::chrono
// clock it stands in for (either order).
template <class A, class B, class = void>
struct clock_counterparts : std::false_type {};
template <class A, class B>
struct clock_counterparts<A, B, std::enable_if_t<sim_clock_traits<A>::value>>
    : std::is_same<B, typename sim_clock_traits<A>::std_clock> {};
template <class A, class B>
inline constexpr bool clock_counterparts_v = clock_counterparts<A, B>::value || clock_counterparts<B, A>::value;
template <class A, class B>
using if_clock_counterparts = std::enable_if_t<clock_counterparts_v<A, B>, int>;

}  // namespace detail

/// Compares a simasio clock's time point with one of the std::chrono clock
/// it stands in for (steady with steady, system with system): the same
/// time since the epoch, as timers take them. So Asio code that compares a
/// timer's expiry() with std::chrono::steady_clock::now() compiles (Beast's
/// http_server_fast does); the comparison means what it says only when the
/// real clock reads virtual time too (simasio::interpose).
///@{
template <class C1, class D1, class C2, class D2, detail::if_clock_counterparts<C1, C2> = 0>
constexpr bool operator==(const std::chrono::time_point<C1, D1>& a, const std::chrono::time_point<C2, D2>& b) {
  return a.time_since_epoch() == b.time_since_epoch();
}
template <class C1, class D1, class C2, class D2, detail::if_clock_counterparts<C1, C2> = 0>
constexpr bool operator!=(const std::chrono::time_point<C1, D1>& a, const std::chrono::time_point<C2, D2>& b) {
  return a.time_since_epoch() != b.time_since_epoch();
}
template <class C1, class D1, class C2, class D2, detail::if_clock_counterparts<C1, C2> = 0>
constexpr bool operator<(const std::chrono::time_point<C1, D1>& a, const std::chrono::time_point<C2, D2>& b) {
  return a.time_since_epoch() < b.time_since_epoch();
}
template <class C1, class D1, class C2, class D2, detail::if_clock_counterparts<C1, C2> = 0>
constexpr bool operator<=(const std::chrono::time_point<C1, D1>& a, const std::chrono::time_point<C2, D2>& b) {
  return a.time_since_epoch() <= b.time_since_epoch();
}
template <class C1, class D1, class C2, class D2, detail::if_clock_counterparts<C1, C2> = 0>
constexpr bool operator>(const std::chrono::time_point<C1, D1>& a, const std::chrono::time_point<C2, D2>& b) {
  return a.time_since_epoch() > b.time_since_epoch();
}
template <class C1, class D1, class C2, class D2, detail::if_clock_counterparts<C1, C2> = 0>
constexpr bool operator>=(const std::chrono::time_point<C1, D1>& a, const std::chrono::time_point<C2, D2>& b) {
  return a.time_since_epoch() >= b.time_since_epoch();
}
#if defined(__cpp_impl_three_way_comparison) && defined(__cpp_lib_three_way_comparison)
template <class C1, class D1, class C2, class D2, detail::if_clock_counterparts<C1, C2> = 0>
constexpr auto operator<=>(const std::chrono::time_point<C1, D1>& a, const std::chrono::time_point<C2, D2>& b) {
  return a.time_since_epoch() <=> b.time_since_epoch();
}
#endif
///@}

}  // namespace simasio

#endif  // SIMASIO_CLOCK_HPP
