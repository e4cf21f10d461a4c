// timer_service.cpp — pending waits, expiry, cancellation; virtual clocks
#include <simasio/detail/timer_service.hpp>

#include <simasio/basic_waitable_timer.hpp>
#include <simasio/clock.hpp>
#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/detail/sim_context.hpp>

#include <memory>

#include <simasio/detail/interpose.hpp>
#include <optional>

namespace simasio::detail {

// ---- clocks ---------------------------------------------------------------------

std::int64_t host_local_ns(const world_core& core, const host_state* h) noexcept {
  const std::int64_t w = core.now().count();
  return h != nullptr ? h->local_from_world(w) : w;
}

std::int64_t steady_boot_ns() noexcept {
  const world_core* core = running_core_tls;
  return core != nullptr && core->calling_owner() != 0 ? interpose::monotonic_boot_ns : 0;
}

std::int64_t current_local_ns() {
  world_core* core = current_core();
  if (core == nullptr)
    throw escape_error(
        "simasio: a simasio clock was read with no simasio::world alive on this thread. Create a "
        "simasio::world (or a simasio::io_context, which creates a default world) before reading "
        "simasio::steady_clock or simasio::system_clock.");
  return host_local_ns(*core, core->clock_host());
}

// ---- timer service --------------------------------------------------------------

void wait_op_base::on_expiry(timed_event* ev) {
  auto* op = static_cast<wait_op_base*>(ev->owner());
  op->impl_->service->expire(*op);
}

timer_service::timer_service(boost::asio::execution_context& ctx)
    : boost::asio::execution_context::service(ctx) {
  io_context& io = sim_context_of(ctx, "timer");
  ctx_state_ = &access::state(io);
  ctx_state_->sources.push_back(this);
  ctx_state_->timers = this;
}

timer_service::~timer_service() {
  ctx_state_->timers = nullptr;
  auto& sources = ctx_state_->sources;
  for (auto it = sources.begin(); it != sources.end(); ++it) {
    if (*it == this) {
      sources.erase(it);
      break;
    }
  }
}

void timer_service::construct(timer_impl_base& impl, io_context& ctx, const char* kind) noexcept {
  impl.service = this;
  impl.ctx = &access::state(ctx);
  impl.incarnation = impl.ctx->host->incarnation;
  impl.kind = kind;
  impl.prev = nullptr;
  impl.next = timers_;
  if (timers_ != nullptr) timers_->prev = &impl;
  timers_ = &impl;
}

void timer_service::destroy(timer_impl_base& impl) noexcept {
  if (impl.prev != nullptr) impl.prev->next = impl.next;
  else if (timers_ == &impl) timers_ = impl.next;
  if (impl.next != nullptr) impl.next->prev = impl.prev;
  impl.prev = impl.next = nullptr;
}

void timer_service::move_construct(timer_impl_base& to, timer_impl_base& from) noexcept {
  construct(to, static_cast<io_context&>(context()), from.kind);
  to.ctx = from.ctx;
  to.incarnation = from.incarnation;
  to.expiry_world_ns = from.expiry_world_ns;
  to.head = from.head;
  to.tail = from.tail;
  from.head = from.tail = nullptr;
  // A moved-from timer is as good as new (and as orphaned, once its world is gone).
  if (from.ctx->core != nullptr) from.incarnation = from.ctx->host->incarnation;
  for (wait_op_base* op = to.head; op != nullptr; op = op->next_) op->impl_ = &to;
}

void timer_service::link(timer_impl_base& impl, wait_op_base& op) noexcept {
  op.impl_ = &impl;
  op.prev_ = impl.tail;
  op.next_ = nullptr;
  if (impl.tail != nullptr) impl.tail->next_ = &op;
  else impl.head = &op;
  impl.tail = &op;
}

void timer_service::unlink(wait_op_base& op) noexcept {
  timer_impl_base& impl = *op.impl_;
  if (op.prev_ != nullptr) op.prev_->next_ = op.next_;
  else impl.head = op.next_;
  if (op.next_ != nullptr) op.next_->prev_ = op.prev_;
  else impl.tail = op.prev_;
  op.prev_ = op.next_ = nullptr;
  op.impl_ = nullptr;
}

void timer_service::expire(wait_op_base& op) noexcept {
  context_state& ctx = *op.impl_->ctx;
  unlink(op);
  op.ec_ = {};
  ctx.core->post_ready(ctx, &op);
}

void timer_service::cancel_op(wait_op_base& op) noexcept {
  if (op.impl_ == nullptr) return;  // no longer pending
  context_state& ctx = *op.impl_->ctx;
  unlink(op);
  ctx.core->cancel(op.event_);
  op.ec_ = boost::asio::error::operation_aborted;
  ctx.core->post_ready(ctx, &op);
}

std::size_t timer_service::cancel(timer_impl_base& impl) noexcept {
  std::size_t n = 0;
  while (impl.head != nullptr) {
    cancel_op(*impl.head);
    ++n;
  }
  return n;
}

std::size_t timer_service::cancel_one(timer_impl_base& impl) noexcept {
  if (impl.head == nullptr) return 0;
  cancel_op(*impl.head);
  return 1;
}

void timer_service::abandon() noexcept {
  // Unlink everything first: destroying a handler may destroy other timers.
  std::vector<wait_op_base*> ops;
  for (timer_impl_base* impl = timers_; impl != nullptr; impl = impl->next) {
    while (impl->head != nullptr) {
      wait_op_base* op = impl->head;
      unlink(*op);
      if (ctx_state_->core != nullptr) ctx_state_->core->cancel(op->event_);
      ops.push_back(op);
    }
  }
  for (wait_op_base* op : ops) {
    op->destroy();
    --ctx_state_->work;
  }
}

void timer_service::describe(std::vector<std::string>& out) const {
  for (const timer_impl_base* impl = timers_; impl != nullptr; impl = impl->next) {
    for (const wait_op_base* op = impl->head; op != nullptr; op = op->next_) {
      out.push_back(std::string(impl->kind) + "::async_wait, expiring " +
                    (impl->expiry_world_ns >= never_ns ? std::string("never")
                                                       : "at t=" + format_time(duration(impl->expiry_world_ns))));
    }
  }
}

// ---- timer helpers -----------------------------------------------------------------

std::int64_t timer_expiry_to_world(const timer_impl_base& impl, std::int64_t local_ns) {
  check_not_orphaned(impl);
  if (local_ns >= never_ns) return never_ns;
  return impl.ctx->host->world_from_local(local_ns);
}

std::int64_t timer_host_now(const timer_impl_base& impl) {
  check_not_orphaned(impl);
  return host_local_ns(*impl.ctx->core, impl.ctx->host);
}

void sync_wait(timer_impl_base& impl, std::int64_t expiry_world_ns, boost::system::error_code& ec) {
  check_not_orphaned(impl);
  world_core* core = impl.ctx->core;
  ec = {};
  if (core->in_process()) {
    // A simulated process sleeps until the expiry; the world goes on.
    if (!core->may_block()) {
      ec = error::host_down;
      return;
    }
    core->check_alive(*impl.ctx, impl.incarnation, impl.kind);
    if (!impl.ctx->host->up || !core->sleep_until(expiry_world_ns < never_ns ? duration(expiry_world_ns) : duration::max()))
      ec = error::host_down;
    return;
  }
  if (core->running()) {
    ec = error::would_block;
    return;
  }
  core->check_alive(*impl.ctx, impl.incarnation, impl.kind);
  if (!impl.ctx->host->up) {
    ec = error::host_down;
    return;
  }
  // Like Asio's, a blocking wait just lets time pass until the expiry; it
  // does not depend on the context being run (or stopped), nor on cancel().
  run_limits limits;
  if (expiry_world_ns < never_ns) limits.deadline = duration(expiry_world_ns);
  while (core->now().count() < expiry_world_ns) {
    const run_end end = core->run(limits).end;
    if (end == run_end::stopped) continue;  // world::stop() from a handler: keep waiting
    if (core->now().count() < expiry_world_ns) {
      ec = error::stalled;  // a wait that never expires, and nothing left to run
      return;
    }
  }
}

void throw_wait_error(const boost::system::error_code& ec, const char* kind) {
  if (ec == error::would_block)
    throw boost::system::system_error(
        ec, std::string("simasio: ") + kind +
                "::wait() was called inside a handler; a blocking wait there can never complete. "
                "Use async_wait");
  throw boost::system::system_error(ec, std::string("simasio: ") + kind + "::wait()");
}

}  // namespace simasio::detail
