// simasio/detail/timer_service.hpp — pending timer waits of one io_context
#ifndef SIMASIO_DETAIL_TIMER_SERVICE_HPP
#define SIMASIO_DETAIL_TIMER_SERVICE_HPP

#include <simasio/detail/access.hpp>
#include <simasio/detail/handler_work.hpp>
#include <simasio/detail/op_memory.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/associated_allocator.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/execution_context.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace simasio::detail {

class timer_service;
struct timer_impl_base;

// A pending wait: in the world's event heap until it expires or is cancelled,
// then in its context's ready queue.
class wait_op_base : public operation {
 public:
  timed_event event_;
  wait_op_base* prev_ = nullptr;  // the timer's FIFO of pending waits
  wait_op_base* next_ = nullptr;
  timer_impl_base* impl_ = nullptr;  // null once no longer pending
  boost::system::error_code ec_;
  boost::asio::cancellation_slot slot_;

 protected:
  explicit wait_op_base(func_type f) noexcept : operation(f), event_(&on_expiry, this) {}
  ~wait_op_base() = default;

 private:
  static void on_expiry(timed_event* ev);
};

// The state behind one timer object.
struct timer_impl_base {
  timer_service* service = nullptr;
  context_state* ctx = nullptr;
  std::uint32_t incarnation = 0;  // of its host when created (host_state::incarnation)
  const char* kind = "timer";
  std::int64_t expiry_world_ns = 0;  // of the latest wait started
  wait_op_base* head = nullptr;
  wait_op_base* tail = nullptr;
  timer_impl_base* prev = nullptr;  // the service's list of timers
  timer_impl_base* next = nullptr;
};

// World time at or beyond which a timer never fires: its waits stay pending
// (and show in stall reports) instead of jumping the clock by centuries.
inline constexpr std::int64_t never_ns = std::numeric_limits<std::int64_t>::max() / 2;

class timer_service final : public boost::asio::execution_context::service, public pending_source {
 public:
  using key_type = timer_service;
  inline static boost::asio::execution_context::id id;

  explicit timer_service(boost::asio::execution_context& ctx);
  ~timer_service() override;

  // The timer service of ctx, created on first use.
  static timer_service& of(io_context& ctx) {
    if (timer_service* s = access::state(ctx).timers) return *s;
    return boost::asio::use_service<timer_service>(ctx);
  }

  void construct(timer_impl_base& impl, io_context& ctx, const char* kind) noexcept;
  void destroy(timer_impl_base& impl) noexcept;
  // Moves the pending waits of `from` to `to` (timer move construction).
  void move_construct(timer_impl_base& to, timer_impl_base& from) noexcept;

  template <class Handler, class IoExecutor>
  void start_wait(timer_impl_base& impl, Handler&& handler, const IoExecutor& io_ex);

  std::size_t cancel(timer_impl_base& impl) noexcept;
  std::size_t cancel_one(timer_impl_base& impl) noexcept;
  void cancel_op(wait_op_base& op) noexcept;
  void expire(wait_op_base& op) noexcept;

  void abandon() noexcept override;
  void describe(std::vector<std::string>& out) const override;

 private:
  void shutdown() override { abandon(); }
  void link(timer_impl_base& impl, wait_op_base& op) noexcept;
  static void unlink(wait_op_base& op) noexcept;

  context_state* ctx_state_ = nullptr;
  timer_impl_base* timers_ = nullptr;
};

// The cancellation-slot handler of one wait.
struct wait_cancellation {
  timer_service* service;
  wait_op_base* op;
  void operator()(boost::asio::cancellation_type_t type) const {
    using ct = boost::asio::cancellation_type;
    if ((type & (ct::terminal | ct::partial | ct::total)) != ct::none) service->cancel_op(*op);
  }
};

template <class Handler, class IoExecutor>
class wait_op final : public handler_op<wait_op_base, Handler, IoExecutor> {
  using base = handler_op<wait_op_base, Handler, IoExecutor>;

 public:
  template <class H>
  wait_op(H&& h, const IoExecutor& io_ex, const context_state& ctx, world_core& core)
      : base(&do_complete, std::forward<H>(h), io_ex, ctx, core) {}

 private:
  static void do_complete(operation* op, bool invoke) {
    auto* o = static_cast<wait_op*>(op);
    base::finish(o, invoke, o->ec_);
  }
};

template <class Handler, class IoExecutor>
void timer_service::start_wait(timer_impl_base& impl, Handler&& handler, const IoExecutor& io_ex) {
  context_state& ctx = *impl.ctx;
  using op_type = wait_op<std::decay_t<Handler>, IoExecutor>;
  op_type* op = start_op<op_type>(ctx, impl.incarnation, impl.kind, std::forward<Handler>(handler), io_ex, no_setup{},
                                  [this](op_type* o) { return wait_cancellation{this, o}; });
  if (op == nullptr) return;
  world_core& core = *ctx.core;
  if (impl.expiry_world_ns <= core.now().count()) {
    core.post_ready(ctx, op);  // already expired: ready at once, never inline
    return;
  }
  link(impl, *op);
  op->event_.context_id = ctx.id;
  if (impl.expiry_world_ns < never_ns) core.schedule(op->event_, duration(impl.expiry_world_ns));
}

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_TIMER_SERVICE_HPP
