// simasio/detail/handler_work.hpp — delivering a completion to the handler's executor
#ifndef SIMASIO_DETAIL_HANDLER_WORK_HPP
#define SIMASIO_DETAIL_HANDLER_WORK_HPP

#include <simasio/detail/access.hpp>
#include <simasio/detail/op_memory.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_allocator.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/execution.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>

#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace simasio::detail {

template <class T>
struct is_sim_executor : std::false_type {};
template <class A, std::uintptr_t B>
struct is_sim_executor<io_context::basic_executor_type<A, B>> : std::true_type {};

// True when ex is a plain simasio executor of ctx: the completion, already
// running as a step of ctx, can call the handler directly.
template <class Executor>
bool is_plain_executor_of(const Executor& ex, const context_state& ctx) noexcept {
  if constexpr (is_sim_executor<Executor>::value) {
    return &access::state(ex.context()) == &ctx;
  } else if constexpr (std::is_same_v<Executor, boost::asio::any_io_executor>) {
    using tracked_type = io_context::basic_executor_type<std::allocator<void>, executor_bits::outstanding_work_tracked>;
    if (const auto* p = ex.template target<io_context::executor_type>()) return &access::state(p->context()) == &ctx;
    if (const auto* p = ex.template target<tracked_type>()) return &access::state(p->context()) == &ctx;
    return false;
  } else {
    return false;
  }
}

// A handler with its completion arguments bound.
template <class Handler, class... Args>
class bound_completion {
 public:
  template <class H, class... A>
  explicit bound_completion(H&& h, A&&... args) : handler_(std::forward<H>(h)), args_(std::forward<A>(args)...) {}
  void operator()() { std::apply(std::move(handler_), std::move(args_)); }

 private:
  Handler handler_;
  std::tuple<Args...> args_;
};

// Keeps the handler's associated executor busy (outstanding work) while an
// operation is pending, and hands the completion to it: directly when the
// operation's step already runs there, else through Asio's
// dispatch, which queues when it must.
template <class Handler, class IoExecutor>
class handler_work {
  using assoc_executor = boost::asio::associated_executor_t<Handler, IoExecutor>;

 public:
  handler_work(const Handler& h, const IoExecutor& io_ex, const context_state& io_ctx) {
    assoc_executor ex = boost::asio::get_associated_executor(h, io_ex);
    if (!is_plain_executor_of(ex, io_ctx)) work_.emplace(std::move(ex));
  }

  template <class... Args>
  void complete(Handler& h, Args&&... args) {
    if (!work_) {
      std::move(h)(std::forward<Args>(args)...);
      return;
    }
    // dispatch serves standard and Networking TS executors alike; the work
    // guard is released only once the completion has been handed over.
    boost::asio::dispatch(work_->get_executor(),
                          bound_completion<Handler, std::decay_t<Args>...>(std::move(h), std::forward<Args>(args)...));
    work_.reset();
  }

 private:
  std::optional<boost::asio::executor_work_guard<assoc_executor>> work_;
};

// An I/O operation that owns its handler and the handler's work: the shape
// every simasio I/O object's operations share. Base carries the result
// fields and a cancellation slot_; finish() frees the operation through the
// handler's allocator before the upcall, as Asio requires.
template <class Base, class Handler, class IoExecutor>
class handler_op : public Base {
 public:
  Handler handler_;

 protected:
  template <class H>
  handler_op(operation::func_type f, H&& h, const IoExecutor& io_ex, const context_state& ctx, world_core& core)
      : Base(f), handler_(std::forward<H>(h)), work_(handler_, io_ex, ctx), core_(&core) {}

  // Frees *o (its most derived type), then delivers args when invoking.
  // Results must be copied out of *o into args before the call.
  template <class Derived, class... Args>
  static void finish(Derived* o, bool invoke, Args... args) {
    if (o->slot_.is_connected()) o->slot_.clear();
    auto alloc = boost::asio::get_associated_allocator(o->handler_);
    Handler handler(std::move(o->handler_));
    handler_work<Handler, IoExecutor> work(std::move(o->work_));
    world_core& core = *o->core_;
    delete_op(o, core, alloc);
    if (invoke) work.complete(handler, std::move(args)...);
  }

 private:
  handler_work<Handler, IoExecutor> work_;
  world_core* core_;
};

// start_op's arguments for an operation with nothing to fill in, and for
// one that per-operation cancellation cannot reach.
struct no_setup {
  template <class Op>
  void operator()(Op&) const noexcept {}
};
struct no_cancellation {};

// Starts an asynchronous operation of any simasio I/O object (timer,
// socket, acceptor, resolver, signal_set): the one path they share, so
// their misuse checks and work accounting cannot drift apart. checked_core
// first (world gone, wrong thread, dead process: usage_error before
// anything is allocated); then Op is allocated for the handler, `setup`
// fills it in, it counts as work, it is dropped if the host is down (a
// dead process starts nothing), and the handler's cancellation slot gets
// `cancellation(op)`. Returns the operation for the object to start, or
// nullptr once dropped.
template <class Op, class Handler, class IoExecutor, class Setup, class MakeCancellation>
Op* start_op(context_state& ctx, std::uint32_t incarnation, const char* kind, Handler&& handler,
             const IoExecutor& io_ex, Setup&& setup, MakeCancellation&& cancellation) {
  world_core& core = checked_core(ctx, incarnation, kind);
  auto alloc = boost::asio::get_associated_allocator(handler);
  Op* op = new_op<Op>(core, alloc, std::forward<Handler>(handler), io_ex, ctx, core);
  setup(*op);
  core.work_started(ctx);
  if (!ctx.host->up) {
    core.drop(ctx, op);
    return nullptr;
  }
  if constexpr (!std::is_same_v<std::decay_t<MakeCancellation>, no_cancellation>) {
    auto slot = boost::asio::get_associated_cancellation_slot(op->handler_);
    if (slot.is_connected()) {
      op->slot_ = slot;
      slot.template emplace<decltype(cancellation(op))>(cancellation(op));
    }
  }
  return op;
}

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_HANDLER_WORK_HPP
