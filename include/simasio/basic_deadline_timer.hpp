// simasio/basic_deadline_timer.hpp — Asio's deprecated-style deadline_timer on the host's virtual clock
#ifndef SIMASIO_BASIC_DEADLINE_TIMER_HPP
#define SIMASIO_BASIC_DEADLINE_TIMER_HPP

#include <simasio/basic_waitable_timer.hpp>
#include <simasio/clock.hpp>

#include <boost/asio/detail/config.hpp>

#if defined(BOOST_ASIO_HAS_BOOST_DATE_TIME)

#include <boost/asio/time_traits.hpp>
#include <boost/date_time/posix_time/posix_time_types.hpp>

#include <chrono>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace simasio {

namespace detail {
// A ptime is UTC; the host's system_clock counts from the Unix epoch.
inline system_clock::time_point to_system(const boost::posix_time::ptime& t) {
  if (t.is_pos_infinity()) return system_clock::time_point::max();
  if (t.is_special()) return system_clock::time_point::min();  // neg_infin, not_a_date_time: already expired
  static const boost::posix_time::ptime epoch(boost::gregorian::date(1970, 1, 1));
  const std::int64_t us = (t - epoch).total_microseconds();
  return system_clock::time_point(std::chrono::microseconds(us));
}
inline boost::posix_time::ptime from_system(system_clock::time_point t) {
  if (t == system_clock::time_point::max()) return boost::posix_time::ptime(boost::posix_time::pos_infin);
  if (t == system_clock::time_point::min()) return boost::posix_time::ptime(boost::posix_time::neg_infin);
  static const boost::posix_time::ptime epoch(boost::gregorian::date(1970, 1, 1));
  return epoch +
         boost::posix_time::microseconds(std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count());
}
inline system_clock::duration to_duration(const boost::posix_time::time_duration& d) {
  if (d.is_pos_infinity()) return system_clock::duration::max();
  if (d.is_special()) return system_clock::duration::min();
  return std::chrono::microseconds(d.total_microseconds());
}
}  // namespace detail

/// Asio's `basic_deadline_timer` (`net::deadline_timer`, Boost.Date_Time's
/// `ptime` and `time_duration`) on the host's virtual clock: expires_at()
/// takes a UTC ptime on the host's system_clock (world time 0 is
/// 2020-01-01), expires_from_now() a time_duration from the host's now. It
/// is simasio's system_timer underneath, so waits, cancellation and
/// determinism are that timer's. Only `ptime` is simulated: another Time
/// type's traits read a real clock, and are refused at compile time.
template <typename Time = boost::posix_time::ptime, typename TimeTraits = boost::asio::time_traits<Time>,
          typename Executor = boost::asio::any_io_executor>
class basic_deadline_timer {
  static_assert(std::is_same_v<Time, boost::posix_time::ptime>,
                "simasio: basic_deadline_timer is simulated for boost::posix_time::ptime only (net::deadline_timer); "
                "another Time's traits read a real clock. Use net::steady_timer or net::system_timer");
  using timer_type = basic_waitable_timer<system_clock, Executor>;

 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_deadline_timer<Time, TimeTraits, Executor1>;
  };
  using traits_type = TimeTraits;
  using time_type = typename traits_type::time_type;
  using duration_type = typename traits_type::duration_type;

  explicit basic_deadline_timer(const executor_type& ex) : timer_(ex) {}
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_deadline_timer(ExecutionContext& ctx) : timer_(ctx) {}
  basic_deadline_timer(const executor_type& ex, const time_type& expiry_time) : timer_(ex) {
    expires_at(expiry_time);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_deadline_timer(ExecutionContext& ctx, const time_type& expiry_time) : timer_(ctx) {
    expires_at(expiry_time);
  }
  basic_deadline_timer(const executor_type& ex, const duration_type& expiry_time) : timer_(ex) {
    expires_from_now(expiry_time);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_deadline_timer(ExecutionContext& ctx, const duration_type& expiry_time) : timer_(ctx) {
    expires_from_now(expiry_time);
  }
  basic_deadline_timer(basic_deadline_timer&&) = default;
  basic_deadline_timer& operator=(basic_deadline_timer&&) = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_deadline_timer(basic_deadline_timer<Time, TimeTraits, Executor1>&& other) : timer_(std::move(other.timer_)) {}
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_deadline_timer& operator=(basic_deadline_timer<Time, TimeTraits, Executor1>&& other) {
    timer_ = std::move(other.timer_);
    return *this;
  }

  executor_type get_executor() noexcept { return timer_.get_executor(); }

  std::size_t cancel() { return timer_.cancel(); }
  std::size_t cancel(boost::system::error_code& ec) { return timer_.cancel(ec); }
  std::size_t cancel_one() { return timer_.cancel_one(); }
  std::size_t cancel_one(boost::system::error_code& ec) { return timer_.cancel_one(ec); }

  time_type expires_at() const { return detail::from_system(timer_.expiry()); }
  std::size_t expires_at(const time_type& expiry_time) { return timer_.expires_at(detail::to_system(expiry_time)); }
  std::size_t expires_at(const time_type& expiry_time, boost::system::error_code& ec) {
    ec = {};
    return expires_at(expiry_time);
  }
  /// How long from the timer's host's now until the expiry (negative once passed).
  duration_type expires_from_now() const {
    return boost::posix_time::microseconds(
        std::chrono::duration_cast<std::chrono::microseconds>(timer_.expiry() - timer_.host_now()).count());
  }
  std::size_t expires_from_now(const duration_type& expiry_time) {
    return timer_.expires_after(detail::to_duration(expiry_time));
  }
  std::size_t expires_from_now(const duration_type& expiry_time, boost::system::error_code& ec) {
    ec = {};
    return expires_from_now(expiry_time);
  }

  void wait() { timer_.wait(); }
  void wait(boost::system::error_code& ec) { timer_.wait(ec); }

  /// Starts an asynchronous wait until the expiry on virtual time: the
  /// system_timer's async_wait.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code) @endcode
  /// Success at the expiry; operation_aborted when cancelled, or when the
  /// expiry is changed or the timer destroyed first.
  ///
  /// @par Per-Operation Cancellation
  /// As basic_waitable_timer::async_wait: terminal, partial and total.
  ///
  /// @par Determinism
  /// As basic_waitable_timer::async_wait.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code))
                WaitToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_wait(WaitToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return timer_.async_wait(std::forward<WaitToken>(token));
  }

 private:
  template <typename, typename, typename>
  friend class basic_deadline_timer;
  timer_type timer_;
};

/// `net::deadline_timer`: a ptime deadline on the host's virtual clock.
using deadline_timer = basic_deadline_timer<boost::posix_time::ptime>;

}  // namespace simasio

#endif  // defined(BOOST_ASIO_HAS_BOOST_DATE_TIME)

#endif  // SIMASIO_BASIC_DEADLINE_TIMER_HPP
