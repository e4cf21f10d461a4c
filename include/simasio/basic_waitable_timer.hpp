// simasio/basic_waitable_timer.hpp — Asio's waitable timer over virtual time
#ifndef SIMASIO_BASIC_WAITABLE_TIMER_HPP
#define SIMASIO_BASIC_WAITABLE_TIMER_HPP

#include <simasio/detail/config.hpp>

#include <simasio/clock.hpp>
#include <simasio/detail/sim_context.hpp>
#include <simasio/detail/timer_service.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/wait_traits.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace simasio {

namespace detail {
// Blocks the test body until a wait completes; fails inside a handler.
void sync_wait(timer_impl_base& impl, std::int64_t expiry_world_ns, boost::system::error_code& ec);
[[noreturn]] void throw_wait_error(const boost::system::error_code& ec, const char* kind);
// @throws usage_error if the timer's io_context outlived its world.
inline void check_not_orphaned(const timer_impl_base& impl) {
  if (impl.ctx->core == nullptr) SIMASIO_UNLIKELY
    throw_orphaned(*impl.ctx, impl.kind);
}
// World time of a host-local expiry. @throws usage_error if the timer's
// world is gone.
std::int64_t timer_expiry_to_world(const timer_impl_base& impl, std::int64_t local_ns);
// The timer's host clock now. @throws usage_error if the world is gone.
std::int64_t timer_host_now(const timer_impl_base& impl);
}  // namespace detail

/// Asio's `basic_waitable_timer` with the same members, over virtual time.
///
/// Expiry times are read on the timer's host clock (see host::set_clock);
/// the world jumps straight to the next expiry when nothing else is ready.
///
/// @par Completion Signature
/// @code void(boost::system::error_code) @endcode
///
/// @par Per-Operation Cancellation
/// terminal, partial and total cancellation complete the wait with
/// boost::asio::error::operation_aborted.
///
/// @par Determinism
/// A wait draws nothing; waits expiring at the same instant (on any host)
/// are released in a seeded order.
template <typename Time, typename TimeTraits, typename Executor>
class basic_deadline_timer;

template <typename Clock, typename Executor = boost::asio::any_io_executor>
class basic_waitable_timer {
  static_assert(detail::sim_clock_traits<Clock>::value,
                "simasio::basic_waitable_timer needs a simasio clock (simasio::steady_clock or "
                "simasio::system_clock); a real clock would escape the simulation");
  using clock_traits = detail::sim_clock_traits<Clock>;

 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_waitable_timer<Clock, Executor1>;
  };
  using clock_type = Clock;
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;
  using traits_type = boost::asio::wait_traits<Clock>;

  /// A timer on @p ex's context (a simasio::io_context), expiring now.
  /// @throws escape_error if the context is not a simasio::io_context.
  explicit basic_waitable_timer(const executor_type& ex) : ex_(ex) { init(); }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_waitable_timer(ExecutionContext& ctx) : ex_(ctx.get_executor()) {
    init();
  }
  basic_waitable_timer(const executor_type& ex, const time_point& expiry_time) : ex_(ex) {
    init();
    expires_at(expiry_time);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_waitable_timer(ExecutionContext& ctx, const time_point& expiry_time) : ex_(ctx.get_executor()) {
    init();
    expires_at(expiry_time);
  }
  /// From a time point of the std::chrono clock this timer's clock stands
  /// in for (std::chrono::steady_clock for steady_timer, system_clock for
  /// system_timer): see expires_at(std_time_point).
  template <typename StdDuration>
  basic_waitable_timer(const executor_type& ex,
                       const std::chrono::time_point<typename clock_traits::std_clock, StdDuration>& expiry_time)
      : ex_(ex) {
    init();
    expires_at(expiry_time);
  }
  template <typename ExecutionContext, typename StdDuration,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_waitable_timer(ExecutionContext& ctx,
                       const std::chrono::time_point<typename clock_traits::std_clock, StdDuration>& expiry_time)
      : ex_(ctx.get_executor()) {
    init();
    expires_at(expiry_time);
  }
  basic_waitable_timer(const executor_type& ex, const duration& expiry_time) : ex_(ex) {
    init();
    expires_after(expiry_time);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_waitable_timer(ExecutionContext& ctx, const duration& expiry_time) : ex_(ctx.get_executor()) {
    init();
    expires_after(expiry_time);
  }

  /// Moves the timer, its expiry and its pending waits. The moved-from timer
  /// stays usable, like a newly constructed one.
  basic_waitable_timer(basic_waitable_timer&& other) : ex_(other.ex_) { move_from(other); }
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_waitable_timer(basic_waitable_timer<Clock, Executor1>&& other) : ex_(other.ex_) {
    move_from(other);
  }
  basic_waitable_timer& operator=(basic_waitable_timer&& other) {
    if (this != &other) {
      service_->cancel(impl_);
      service_->destroy(impl_);
      ex_ = other.ex_;
      move_from(other);
    }
    return *this;
  }
  basic_waitable_timer(const basic_waitable_timer&) = delete;
  basic_waitable_timer& operator=(const basic_waitable_timer&) = delete;

  /// Cancels pending waits (their handlers get operation_aborted).
  ~basic_waitable_timer() {
    if (service_ != nullptr) {
      service_->cancel(impl_);
      service_->destroy(impl_);
    }
  }

  executor_type get_executor() noexcept { return ex_; }

  /// Cancels every pending wait; returns how many were cancelled.
  std::size_t cancel() {
    detail::check_not_orphaned(impl_);
    return service_->cancel(impl_);
  }
  /// Cancels the oldest pending wait; returns 0 or 1.
  std::size_t cancel_one() {
    detail::check_not_orphaned(impl_);
    return service_->cancel_one(impl_);
  }
#if !defined(BOOST_ASIO_NO_DEPRECATED)
  std::size_t cancel(boost::system::error_code& ec) {
    ec = {};
    return cancel();
  }
  std::size_t cancel_one(boost::system::error_code& ec) {
    ec = {};
    return cancel_one();
  }
  time_point expires_at() const { return expiry_; }
  duration expires_from_now() const { return expiry_ - host_now(); }
  std::size_t expires_from_now(const duration& d) { return expires_after(d); }
  std::size_t expires_from_now(const duration& d, boost::system::error_code& ec) {
    ec = {};
    return expires_after(d);
  }
  std::size_t expires_at(const time_point& expiry_time, boost::system::error_code& ec) {
    ec = {};
    return expires_at(expiry_time);
  }
  template <typename StdDuration>
  std::size_t expires_at(const std::chrono::time_point<typename clock_traits::std_clock, StdDuration>& expiry_time,
                         boost::system::error_code& ec) {
    ec = {};
    return expires_at(expiry_time);
  }
#endif

  time_point expiry() const { return expiry_; }

  /// Sets the expiry; cancels pending waits and returns how many.
  std::size_t expires_at(const time_point& expiry_time) {
    detail::check_not_orphaned(impl_);
    return reset_expiry(expiry_time);
  }
  /// Sets the expiry from a time point of the std::chrono clock this
  /// timer's clock stands in for, as Asio's timers take them
  /// (`timer.expires_at(std::chrono::steady_clock::time_point::max())`).
  /// The same time since the clock's epoch on the host's virtual clock
  /// (std::chrono::steady_clock's epoch is the host's boot in a simulated
  /// process's code: detail::steady_boot_ns()): min() and max() stay min()
  /// and max(); simasio::steady_clock's epoch is
  /// the world's start and system_clock's is Unix time, so a time point
  /// computed from std::chrono::steady_clock::now() (real time) lies far in
  /// virtual time unless the clock reads are interposed.
  template <typename StdDuration>
  std::size_t expires_at(const std::chrono::time_point<typename clock_traits::std_clock, StdDuration>& expiry_time) {
    using std_point = std::chrono::time_point<typename clock_traits::std_clock, StdDuration>;
    if (expiry_time == std_point::max()) return expires_at(time_point::max());
    if (expiry_time == std_point::min()) return expires_at(time_point::min());
    // Beyond what nanoseconds hold (a coarse duration far out): saturate.
    using wide = std::chrono::duration<long double, std::nano>;
    const wide since = expiry_time.time_since_epoch();
    if (since >= wide(duration::max())) return expires_at(time_point::max());
    if (since <= wide(duration::min())) return expires_at(time_point::min());
    return expires_at(time_point(std::chrono::duration_cast<duration>(expiry_time.time_since_epoch()) -
                                 duration(clock_traits::std_offset())));
  }
  /// Sets the expiry relative to the host's clock now.
  std::size_t expires_after(const duration& expiry_time) {
    return reset_expiry(saturating_add(host_now(), expiry_time));  // host_now() checked the world
  }

  /// Blocks until expiry. Only from the test body (it drives the world).
  /// @throws boost::system::system_error with simasio::error::would_block
  /// inside a handler, where it could never complete.
  void wait() {
    boost::system::error_code ec;
    wait(ec);
    if (ec) detail::throw_wait_error(ec, clock_traits::timer_name);
  }
  void wait(boost::system::error_code& ec) {
    detail::sync_wait(impl_, detail::timer_expiry_to_world(impl_, clock_traits::to_local(expiry_)), ec);
  }

  /// Starts an asynchronous wait for the timer's expiry.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. The expiry is read on the timer's host clock and turned into
  /// world time when the wait starts: a later host::set_clock does not move
  /// a pending wait. A timer already expired completes at once (queued,
  /// never inline); one expiring at time_point::max() never completes
  /// unless cancelled.
  ///
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code) @endcode
  /// Success at expiry; operation_aborted when cancel(), cancel_one(),
  /// expires_at(), expires_after() or the timer's destruction cancels it.
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: a wait still pending completes with
  /// operation_aborted. A wait that has expired (its completion queued) is
  /// no longer pending and completes with success.
  ///
  /// @par Determinism
  /// Draws nothing itself. Its expiry is a timed event: events due at the
  /// same virtual instant (timers and packet arrivals, on any host) are
  /// released in an order shuffled by scheduler sub-stream draws, unless
  /// the strategy is fifo. The completion is then scheduled like any
  /// handler's (scheduler sub-stream).
  ///
  /// @throws simasio::usage_error if the timer is used from a thread other
  /// than its world's, after its world is gone, or after its host crashed.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code)) WaitToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_wait(WaitToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<WaitToken, void(boost::system::error_code)>(initiate_async_wait(this),
                                                                                   token);
  }

 private:
  template <typename, typename>
  friend class basic_waitable_timer;

  class initiate_async_wait {
   public:
    using executor_type = Executor;
    explicit initiate_async_wait(basic_waitable_timer* self) noexcept : self_(self) {}
    executor_type get_executor() const noexcept { return self_->get_executor(); }
    template <typename WaitHandler>
    void operator()(WaitHandler&& handler) const {
      self_->impl_.expiry_world_ns =
          detail::timer_expiry_to_world(self_->impl_, clock_traits::to_local(self_->expiry_));
      self_->service_->start_wait(self_->impl_, std::forward<WaitHandler>(handler), self_->ex_);
    }

   private:
    basic_waitable_timer* self_;
  };

  void init() {
    io_context& ctx = detail::sim_context_of_executor(ex_, clock_traits::timer_name);
    service_ = &detail::timer_service::of(ctx);
    service_->construct(impl_, ctx, clock_traits::timer_name);
    expiry_ = host_now();
  }
  std::size_t reset_expiry(const time_point& expiry_time) noexcept {
    const std::size_t n = service_->cancel(impl_);
    expiry_ = expiry_time;
    return n;
  }
  template <typename Other>
  void move_from(Other& other) {
    service_ = other.service_;
    service_->move_construct(impl_, other.impl_);
    expiry_ = other.expiry_;
  }
  static time_point saturating_add(time_point t, duration d) noexcept {
    const auto since = t.time_since_epoch();
    if (d > duration::zero() && since > duration::max() - d) return time_point::max();
    if (d < duration::zero() && since < duration::min() - d) return time_point::min();
    return t + d;
  }
  time_point host_now() const { return clock_traits::from_local(detail::timer_host_now(impl_)); }
  // A deadline_timer is one of these underneath and reads its host's clock too.
  template <typename, typename, typename>
  friend class basic_deadline_timer;

  executor_type ex_;
  detail::timer_service* service_ = nullptr;
  detail::timer_impl_base impl_;
  time_point expiry_{};
};

/// A timer on simasio::steady_clock.
using steady_timer = basic_waitable_timer<steady_clock>;
/// A timer on simasio::system_clock.
using system_timer = basic_waitable_timer<system_clock>;
/// A timer on simasio::high_resolution_clock (steady_clock).
using high_resolution_timer = basic_waitable_timer<high_resolution_clock>;

}  // namespace simasio

#endif  // SIMASIO_BASIC_WAITABLE_TIMER_HPP
