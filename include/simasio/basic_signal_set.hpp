// simasio/basic_signal_set.hpp — signals delivered by host::raise instead of the OS
#ifndef SIMASIO_BASIC_SIGNAL_SET_HPP
#define SIMASIO_BASIC_SIGNAL_SET_HPP

#include <simasio/detail/config.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/handler_work.hpp>
#include <simasio/detail/signal_service.hpp>
#include <simasio/detail/sim_context.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>

#include <type_traits>
#include <utility>

namespace simasio {

/// Asio's `basic_signal_set` for simulated hosts: the same members, but
/// signals come from host::raise(sig), never from the real process (a
/// server waiting on SIGINT/SIGTERM compiles and runs unchanged).
///
/// @par Completion Signature
/// @code void(boost::system::error_code, int) @endcode
template <typename Executor = boost::asio::any_io_executor>
class basic_signal_set {
 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_signal_set<Executor1>;
  };

  explicit basic_signal_set(const executor_type& ex) : ex_(ex) { init(); }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_signal_set(ExecutionContext& ctx) : ex_(ctx.get_executor()) {
    init();
  }
  basic_signal_set(const executor_type& ex, int s1) : basic_signal_set(ex) { add(s1); }
  basic_signal_set(const executor_type& ex, int s1, int s2) : basic_signal_set(ex) {
    add(s1);
    add(s2);
  }
  basic_signal_set(const executor_type& ex, int s1, int s2, int s3) : basic_signal_set(ex) {
    add(s1);
    add(s2);
    add(s3);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_signal_set(ExecutionContext& ctx, int s1) : basic_signal_set(ctx.get_executor()) {
    add(s1);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_signal_set(ExecutionContext& ctx, int s1, int s2) : basic_signal_set(ctx.get_executor()) {
    add(s1);
    add(s2);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_signal_set(ExecutionContext& ctx, int s1, int s2, int s3) : basic_signal_set(ctx.get_executor()) {
    add(s1);
    add(s2);
    add(s3);
  }
  basic_signal_set(const basic_signal_set&) = delete;
  basic_signal_set& operator=(const basic_signal_set&) = delete;
  ~basic_signal_set() {
    service_->cancel(state_);
    service_->remove(state_);
  }

  executor_type get_executor() noexcept { return ex_; }

  void add(int signal_number) {
    check_not_orphaned();
    state_.signals.insert(signal_number);
  }
  void add(int signal_number, boost::system::error_code& ec) {
    ec = {};
    add(signal_number);
  }
  void remove(int signal_number) {
    check_not_orphaned();
    state_.signals.erase(signal_number);
  }
  void remove(int signal_number, boost::system::error_code& ec) {
    ec = {};
    remove(signal_number);
  }
  void clear() {
    check_not_orphaned();
    state_.signals.clear();
    state_.undelivered.clear();
  }
  void clear(boost::system::error_code& ec) {
    ec = {};
    clear();
  }
  void cancel() {
    check_not_orphaned();
    service_->cancel(state_);
  }
  void cancel(boost::system::error_code& ec) {
    ec = {};
    cancel();
  }

  /// Starts an asynchronous wait for one of the set's signals.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. Signals come only from host::raise on this set's host; one
  /// raised while no wait is pending is kept, and the next wait takes it
  /// (at once, queued, never inline). Waits take signals oldest first.
  ///
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, int) @endcode
  /// The signal number; operation_aborted (and 0) on cancel() or the set's
  /// destruction.
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: a wait still pending completes with
  /// operation_aborted; a signal raised later is kept for the next wait.
  ///
  /// @par Determinism
  /// Draws nothing: when it completes depends on when host::raise is
  /// called. Its completion is scheduled like any handler's (scheduler
  /// sub-stream).
  ///
  /// @throws simasio::usage_error if the set is used from a thread other
  /// than its world's, after its world is gone, or after its host crashed.
  template <typename SignalToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_wait(SignalToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<SignalToken, void(boost::system::error_code, int)>(
        [this](auto&& handler) {
          using op_type = detail::signal_wait_op<std::decay_t<decltype(handler)>, Executor>;
          auto* service = service_;
          op_type* op = detail::start_op<op_type>(
              *state_.ctx, state_.incarnation, "signal_set", std::forward<decltype(handler)>(handler), ex_,
              detail::no_setup{}, [service](op_type* o) { return detail::signal_cancellation{service, o}; });
          if (op != nullptr) service_->start(state_, *op);
        },
        token);
  }

 private:
  void init() {
    io_context& ctx = detail::sim_context_of_executor(ex_, "signal_set");
    service_ = &detail::signal_service::of(ctx);
    state_.ctx = &detail::access::state(ctx);
    state_.incarnation = state_.ctx->host->incarnation;
    service_->add(state_);
  }
  // Every member but the destructor refuses a set whose world is gone.
  void check_not_orphaned() const {
    if (state_.ctx->core == nullptr) SIMASIO_UNLIKELY
      detail::throw_orphaned(*state_.ctx, "signal_set");
  }

  executor_type ex_;
  detail::signal_service* service_ = nullptr;
  detail::signal_set_state state_;
};

/// A signal set on the default executor.
using signal_set = basic_signal_set<>;

}  // namespace simasio

#endif  // SIMASIO_BASIC_SIGNAL_SET_HPP
