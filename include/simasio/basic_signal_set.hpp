// simasio/basic_signal_set.hpp — signals delivered by host::raise instead of the OS
#ifndef SIMASIO_BASIC_SIGNAL_SET_HPP
#define SIMASIO_BASIC_SIGNAL_SET_HPP

#include <simasio/detail/handler_work.hpp>
#include <simasio/detail/op_memory.hpp>
#include <simasio/detail/sim_context.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_allocator.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/error.hpp>

#include <deque>
#include <set>
#include <string>
#include <vector>

namespace simasio {

namespace detail {

struct signal_set_state;

class signal_op : public operation {
 public:
  boost::system::error_code ec_;
  int signal_ = 0;
  signal_set_state* set_ = nullptr;  // null once no longer waiting
  boost::asio::cancellation_slot slot_;

 protected:
  explicit signal_op(func_type f) noexcept : operation(f) {}
  ~signal_op() = default;
};

struct signal_set_state;

// The state of one signal_set: the signals it waits for, signals raised
// while nobody waited, and its waiting operations.
struct signal_set_state {
  context_state* ctx = nullptr;
  std::uint32_t incarnation = 0;  // of its host when created (host_state::incarnation)
  std::set<int> signals;
  std::deque<int> undelivered;
  std::deque<signal_op*> waiting;
};

// Every signal_set of one io_context; host::raise reaches them through it.
class signal_service final : public boost::asio::execution_context::service, public pending_source {
 public:
  using key_type = signal_service;
  inline static boost::asio::execution_context::id id;
  explicit signal_service(boost::asio::execution_context& ctx);
  ~signal_service() override;
  static signal_service& of(io_context& ctx) { return boost::asio::use_service<signal_service>(ctx); }

  void add(signal_set_state& s) { sets_.push_back(&s); }
  void remove(signal_set_state& s) noexcept;
  void start(signal_set_state& s, signal_op& op);
  std::size_t cancel(signal_set_state& s) noexcept;
  void cancel_op(signal_op& op) noexcept;
  // Delivers sig to every set of this context that has it.
  void raise(int sig);

  void abandon() noexcept override;
  void describe(std::vector<std::string>& out) const override;

 private:
  void shutdown() override { abandon(); }
  void deliver(signal_set_state& s);
  context_state* ctx_;
  std::vector<signal_set_state*> sets_;  // creation order
};

struct signal_cancellation {
  signal_service* service;
  signal_op* op;
  void operator()(boost::asio::cancellation_type_t type) const {
    using ct = boost::asio::cancellation_type;
    if ((type & (ct::terminal | ct::partial | ct::total)) != ct::none) service->cancel_op(*op);
  }
};

template <class Handler, class IoExecutor>
class signal_wait_op final : public handler_op<signal_op, Handler, IoExecutor> {
  using base = handler_op<signal_op, Handler, IoExecutor>;

 public:
  template <class H>
  signal_wait_op(H&& h, const IoExecutor& io_ex, const context_state& ctx, world_core& core)
      : base(&do_complete, std::forward<H>(h), io_ex, ctx, core) {}

 private:
  static void do_complete(operation* op, bool invoke) {
    auto* o = static_cast<signal_wait_op*>(op);
    base::finish(o, invoke, o->ec_, o->signal_);
  }
};

}  // namespace detail

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
    state_.ctx = &ctx.sim_state();
    state_.incarnation = state_.ctx->host->incarnation;
    service_->add(state_);
  }
  // Every member but the destructor refuses a set whose world is gone.
  void check_not_orphaned() const {
    if (state_.ctx->core == nullptr) [[unlikely]]
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
