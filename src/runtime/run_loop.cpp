// run_loop.cpp — the scheduling loop: pick, run, advance time, detect stalls
#include <simasio/detail/world_core.hpp>

#include <simasio/detail/current.hpp>
#include <simasio/detail/escape.hpp>
#include <simasio/error.hpp>

#include "asio_memory.hpp"

#include <algorithm>
#include <utility>

#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>  // glibc 2.32+
#define SIMASIO_HAVE_SINGLE_THREADED 1
#endif

namespace simasio::detail {

namespace {

// glibc clears __libc_single_threaded when the process starts its second
// thread, and never sets it again: a run that began single-threaded sees
// any thread started during it (by its handlers or processes, the only
// code running then) without interposing pthread_create.
bool single_threaded() noexcept {
#if defined(SIMASIO_HAVE_SINGLE_THREADED)
  return __libc_single_threaded != 0;
#else
  return false;  // unknown: never watch
#endif
}

// Whether the run on this thread watches for a new thread (it began single-threaded).
constinit thread_local bool watch_threads = false;

std::uint64_t head_seq(const context_state* c) noexcept { return c->ready.front()->seq_; }
// For upper_bound over runnable_: does a head with sequence number s come before c's?
bool before_head(std::uint64_t s, const context_state* c) noexcept { return s < head_seq(c); }

}  // namespace

void world_core::simulated_thread_started() noexcept {
  watch_threads = false;
#if defined(SIMASIO_HAVE_SINGLE_THREADED)
  __libc_single_threaded = 0;
#endif
}

void world_core::make_runnable(context_state& ctx) {
  if (ctx.runnable || ctx.ready.empty() || ctx.stopped || ctx.busy || !ctx.host->up) return;
  const std::uint64_t seq = ctx.ready.front()->seq_;
  // runnable_ is ordered by head sequence number; a fresh head is usually
  // the youngest, so look from the back.
  auto pos = runnable_.end();
  if (!runnable_.empty() && head_seq(runnable_.back()) > seq)
    pos = std::upper_bound(runnable_.begin(), runnable_.end(), seq, before_head);
  runnable_.insert(pos, &ctx);
  ctx.runnable = true;
}

void world_core::make_unrunnable(context_state& ctx) noexcept {
  if (!ctx.runnable) return;
  auto pos = std::find(runnable_.begin(), runnable_.end(), &ctx);
  if (pos != runnable_.end()) runnable_.erase(pos);
  ctx.runnable = false;
}

// ---- running --------------------------------------------------------------------

// Inlined into run_step: the common case is a context with one runner
// taking its oldest handler, a few instructions.
[[gnu::always_inline]] inline operation* world_core::take_operation(context_state& ctx, std::size_t index) {
  if ((ctx.concurrency == 1 && ctx.runners < 2) || ctx.ready.size() == 1 || !explores_) [[likely]] {
    operation* op = ctx.ready.pop();
    if (ctx.ready.empty()) {
      if (runnable_.size() == 1) runnable_.clear();
      else runnable_.erase(runnable_.begin() + static_cast<std::ptrdiff_t>(index));
      ctx.runnable = false;
    } else if (runnable_.size() > 1) {
      reposition(index);
    }
    return op;
  }
  // A pool context: any of its ready handlers may run next.
  const auto i = static_cast<std::size_t>(sched_rng(ctx.host).below(ctx.ready.size()));
  operation* op = ctx.ready.take_at(i);
  if (i == 0 && runnable_.size() > 1) reposition(index);
  return op;
}

// The context at index has a younger head now: move right to keep
// runnable_ ordered by head sequence numbers.
void world_core::reposition(std::size_t index) noexcept {
  const auto at = runnable_.begin() + static_cast<std::ptrdiff_t>(index);
  const std::uint64_t seq = head_seq(*at);
  const auto to = std::upper_bound(at + 1, runnable_.end(), seq, before_head);
  std::rotate(at, at + 1, to);
}

[[gnu::always_inline]] inline void world_core::run_step(std::size_t index) {
  context_state& ctx = *runnable_[index];
  operation* op = take_operation(ctx, index);
  if (++steps_ > opts_.max_steps) {
    op->destroy();
    --ctx.work;
    throw_runaway();
  }
  record(event_kind::handler, ctx.host->id, ctx.id, op->seq_);
  if (watches_steps_) strategy_->stepped(ctx, steps_);
  struct step_guard {
    world_core& core;
    context_state& ctx;
    context_state* saved;
    ~step_guard() {
      core.current_ = saved;
      --ctx.work;
    }
  } guard{*this, ctx, current_};
  current_ = &ctx;
  ++ctx.handlers_run;
  // A handler of a process's own io_context runs with that process's globals.
  if (images_ && ctx.owner != 0) [[unlikely]] switch_images(ctx.owner);
  op->complete();
  if (ctx.context_queried || ctx.real_scheduler != nullptr) [[unlikely]] {
    current_ = guard.saved;  // completions are queued as handlers of their own
    drive_real_objects(ctx);
  }
  if (real_timerfds_dirty_) [[unlikely]] sync_real_timerfds();
  if (watch_threads && !single_threaded()) [[unlikely]] {
    watch_threads = false;
    refuse(
        "simasio: a thread was started while a simulated world runs on this thread (std::thread, std::jthread, "
        "std::async or pthread_create in a handler or a process, or a library's own background thread, such as "
        "the one Asio's real resolver starts): it runs on real time, in an order no seed decides, and the "
        "world's objects belong to this thread. Link simasio::interpose into the test program and start the "
        "threads inside a process of a host (host.spawn): there std::thread starts a simulated thread of the "
        "host. (Without simasio::interpose, simasio sees a new thread only in a program that had no other "
        "thread when the run began.)");
  }
}

void world_core::drive_real_objects(context_state& ctx) {
  if (ctx.real_scheduler == nullptr) {
    ctx.context_queried = false;
    ctx.real_scheduler = real_timer_scheduler(*ctx.exec);
    if (ctx.real_scheduler == nullptr) return;
  }
  // Polling Asio's scheduler runs its reactor (an epoll_wait): only when
  // something is queued there.
  if (real_timers_ready(ctx.real_scheduler)) poll_real_scheduler(ctx);
}

// Asio's timers read std::chrono::steady_clock: the host's clock, when the
// interposition library makes it virtual.
void world_core::poll_real_scheduler(context_state& ctx) {
  const host_state* saved = booting_;
  const std::uint32_t saved_owner = polling_owner_;
  booting_ = ctx.host;
  polling_owner_ = ctx.owner;  // a process's context: its clocks read as its code's (steady_boot_ns)
  struct restore {
    world_core& core;
    const host_state* saved;
    std::uint32_t owner;
    ~restore() {
      core.booting_ = saved;
      core.polling_owner_ = owner;
    }
  } guard{*this, saved, saved_owner};
  poll_real_timers(ctx.real_scheduler);
}

run_result world_core::run(const run_limits& limits) {
  if (running_ && running_core_tls != this)
    throw usage_error(
        "simasio: a run of the world was started while another thread runs it; a world, its hosts and their "
        "objects belong to one thread at a time (give each thread its own world, as check() with jobs does)");
  if (running_ && current_process_ != nullptr)
    throw usage_error(
        "simasio: world::run* was called inside a simulated process (host::spawn); a process is one "
        "program of one host and cannot drive the whole world. Run the world from the test body; inside "
        "the process, block in io_context::run() or a synchronous call, which suspends the process.");
  if (running_)
    throw usage_error(
        "simasio: a run of the world (world::run*, io_context::run*/poll*, or a blocking wait) was "
        "started from inside a handler of the same world; handlers must not run the event loop. "
        "Use the asynchronous operation instead, or drive the world from the test body; to write "
        "blocking code, run it as a process (host::spawn), where blocking calls suspend the process.");
  running_scope scope(*this);
  asio_memory_scope memory;
  running_ = true;
  stalled_ = false;
  watch_threads = single_threaded();
  struct run_guard {
    world_core& core;
    ~run_guard() {
      // Back in the test body: the libraries' globals are its own again.
      if (core.images_) core.switch_images(0);
      core.running_ = false;
      core.stop_requested_ = false;
      core.pending_exception_ = nullptr;  // an exception already left this run
      core.refused_ = nullptr;
    }
  } guard{*this};
  check_escapes();
  run_result r;
  try {
    run_loop(limits, r);
  } catch (...) {
    // A refused call (interpose.hpp) is the cause of what the handler threw.
    if (refused_) std::rethrow_exception(refused_);
    throw;
  }
  if (refused_) std::rethrow_exception(refused_);
  check_escapes();
  return r;
}

void world_core::run_loop(const run_limits& limits, run_result& r) {
  for (;;) {
    if (!run_waiters_.empty()) [[unlikely]] check_run_waiters();
    if (stop_requested_) {
      r.end = run_end::stopped;
      break;
    }
    if (limits.target != nullptr && target_run_ends(limits, r.target_handlers, r.end)) break;
    if (limits.until != nullptr && (*limits.until)()) {
      r.end = run_end::done;
      break;
    }
    if (runnable_.empty()) {
      if (real_timerfds_dirty_) [[unlikely]] {
        sync_real_timerfds();  // may complete handlers
        if (!runnable_.empty()) continue;
      }
      if (advance(limits.deadline)) continue;
      if (!heap_.empty()) {
        r.end = run_end::deadline;
      } else if (any_live_work()) {
        r.end = run_end::stalled;
        if (!ever_stalled_ || stalled_step_ != steps_) {  // a new stall, not the same one run again
          stalled_at_ = now_;  // before a bounded run lets its span pass
          stalled_step_ = steps_;
          ever_stalled_ = true;
        }
        stalled_ = true;
        check_escapes();
      } else {
        r.end = run_end::quiescent;
      }
      // Bounded runs let their whole span of virtual time pass.
      if (limits.deadline != duration::max() && now_ < limits.deadline) {
        now_ = limits.deadline;
        record(event_kind::time_advance, no_host, static_cast<std::uint64_t>(now_.count()));
      }
      break;
    }
    const std::size_t index = pick_context();
    const context_state* ctx = runnable_[index];
    run_step(index);
    ++r.handlers;
    if (ctx == limits.target) ++r.target_handlers;
    if (pending_exception_) std::rethrow_exception(std::exchange(pending_exception_, nullptr));
    if (!invariants_.empty()) check_invariants();
    if (sometimes_open_ != 0) check_sometimes();
  }
}

std::size_t world_core::poll(context_state& ctx, std::size_t max) {
  if (running_)
    throw usage_error("simasio: io_context::poll was called from inside a handler of the same world; "
                      "handlers must not run the event loop");
  running_scope scope(*this);
  asio_memory_scope memory;
  running_ = true;
  struct run_guard {
    world_core& core;
    ~run_guard() {
      // Back in the test body: the libraries' globals are its own again.
      if (core.images_) core.switch_images(0);
      core.running_ = false;
      core.pending_exception_ = nullptr;
      core.refused_ = nullptr;
    }
  } guard{*this};
  check_escapes();
  std::size_t n = 0;
  try {
    // Release what is due now; time does not move.
    while (!heap_.empty() && heap_.top_when() <= now_) advance(now_);
    while (n < max && ctx.runnable) {
      const auto pos = std::find(runnable_.begin(), runnable_.end(), &ctx);
      run_step(static_cast<std::size_t>(pos - runnable_.begin()));
      ++n;
      if (pending_exception_) std::rethrow_exception(std::exchange(pending_exception_, nullptr));
      if (!invariants_.empty()) check_invariants();
    }
  } catch (...) {
    if (refused_) std::rethrow_exception(refused_);
    throw;
  }
  if (refused_) std::rethrow_exception(refused_);
  return n;
}

void world_core::run_as(host_state& host, const std::function<void()>& f) {
  const host_state* saved = booting_;
  booting_ = &host;
  struct restore {
    world_core& core;
    const host_state* saved;
    ~restore() { core.booting_ = saved; }
  } guard{*this, saved};
  f();
}

bool world_core::any_live_work() const noexcept {
  for (const context_state* ctx : contexts_)
    if (ctx != nullptr && ctx->work > 0 && !ctx->stopped && ctx->host->up) return true;
  // A process that is blocked with nothing left to wake it would hang.
  return !processes_.empty() && any_live_process();
}

}  // namespace simasio::detail
