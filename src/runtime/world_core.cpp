// world_core.cpp — the scheduling loop: pick, run, advance time, detect stalls
#include <simasio/detail/world_core.hpp>

#include <simasio/detail/current.hpp>
#include <simasio/detail/escape.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/error.hpp>

#include "asio_memory.hpp"

#include <algorithm>
#include <utility>
#include <sstream>

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

// The innermost run of a world on this thread (asio_memory.hpp).
constinit thread_local asio_memory_scope* innermost_scope = nullptr;

// world_options::faults, refused when a rate is not a probability.
const fault_mix& checked(const fault_mix& m) {
  auto chance = [](const char* name, double p) {
    if (!(p >= 0.0 && p <= 1.0))
      throw config_error(std::string("simasio: world_options::faults.") + name + " = " + std::to_string(p) +
                         " is not a probability: give a value in [0, 1] (0 turns the family off)");
  };
  chance("loss", m.loss);
  chance("duplicate", m.duplicate);
  chance("partitions", m.partitions);
  chance("crashes", m.crashes);
  chance("disk_faults", m.disk_faults);
  if (m.drift_ppb < 0 || m.drift_ppb >= 1'000'000'000)
    throw config_error("simasio: world_options::faults.drift_ppb = " + std::to_string(m.drift_ppb) +
                       " is out of range: give a bound in [0, 1e9) parts per billion (0 turns drift off)");
  return m;
}

}  // namespace

asio_memory_scope::asio_memory_scope() noexcept : outer_(innermost_scope) {
  innermost_scope = this;
  if constexpr (pool_allocations) push();
}

asio_memory_scope::~asio_memory_scope() {
  pushed_.reset();
  innermost_scope = outer_;
}

asio_memory_scope::fiber_switch::fiber_switch() noexcept : stepped_aside_(nullptr) {
  asio_memory_scope* s = innermost_scope;
  if (s != nullptr && s->pushed_ && call_stack::top() == &s->cache_) {
    s->pushed_.reset();
    stepped_aside_ = s;
  }
}

asio_memory_scope::fiber_switch::~fiber_switch() {
  if (stepped_aside_ != nullptr) stepped_aside_->push();  // above what the fiber left running
}

#if defined(SIMASIO_WITH_OPENSSL)
bool install_ssl_hooks();  // src/net/ssl.cpp
#endif

world_core::world_core(const world_options& opts)
    : opts_(opts),
      entropy_(opts.seed ^ 0x5851F42D4C957F2DULL) {
#if defined(SIMASIO_WITH_OPENSSL)
  install_ssl_hooks();  // OpenSSL's randomness and clock from the world (src/net/ssl.cpp)
#endif
  if (opts_.record_tape) tape_.start_recording();
  if (opts_.replay_tape && opts_.fuzz_input)
    throw config_error("simasio: world_options::replay_tape and world_options::fuzz_input are both set: a run takes "
                       "its draws from a saved tape or from a fuzzer's bytes, not both; clear one");
  if (opts_.replay_tape) tape_.start_replay(opts_.replay_tape, opts_.on_tape_mismatch);
  if (opts_.fuzz_input) tape_.start_fuzzing(opts_.fuzz_input);
  sched_ = &stream("scheduler", choice_purpose::scheduler);
  faults_ = opts_.swarm ? fault_mix::draw(stream("swarm", choice_purpose::swarm)) : checked(opts_.faults);
  trace_.record_all(opts_.record_trace, opts_.record_trace_limit, opts_.record_trace_first);
  trace_.hash_events(opts_.hash_trace);
  strategy_ = sched::make_strategy(opts_, *sched_);
  explores_ = strategy_->explores();
  watches_steps_ = strategy_->watches_steps();
}

world_core::~world_core() = default;

void world_core::fill_entropy(void* out, std::size_t n) noexcept {
  auto* p = static_cast<unsigned char*>(out);
  while (n > 0) {
    std::uint64_t word = entropy_();
    const std::size_t k = n < sizeof word ? n : sizeof word;
    for (std::size_t i = 0; i < k; ++i, word >>= 8) *p++ = static_cast<unsigned char>(word);
    n -= k;
  }
}

std::string world_core::host_name(std::uint32_t id) const {
  if (host_namer) return host_namer(id);
  return "#" + std::to_string(id);
}

// ---- contexts ---------------------------------------------------------------

void world_core::attach(context_state& ctx, host_state& host, boost::asio::execution_context& exec,
                        int concurrency) {
  ctx.core = this;
  ctx.host = &host;
  ctx.exec = &exec;
  ctx.id = static_cast<std::uint32_t>(contexts_.size());
  ctx.concurrency = concurrency < 1 ? 1 : concurrency;
  strategy_->attach(ctx);
  contexts_.push_back(&ctx);
}

void world_core::detach(context_state& ctx) noexcept {
  // Stopped first, and drained from the live queue: destroying an operation
  // may post another (a coroutine's cleanup does), which must not make the
  // context runnable again.
  ctx.stopped = true;
  make_unrunnable(ctx);
  if (ctx.busy_end) cancel(*ctx.busy_end);
  while (!ctx.ready.empty()) {
    ctx.ready.pop()->destroy();
    --ctx.work;
  }
  make_unrunnable(ctx);
  if (ctx.id < contexts_.size() && contexts_[ctx.id] == &ctx) contexts_[ctx.id] = nullptr;
  ctx.core = nullptr;
}

void world_core::drop(context_state& ctx, operation* op) noexcept {
  record(event_kind::dropped, ctx.host->id, ctx.id);
  op->destroy();
  --ctx.work;
}

namespace {
std::uint64_t head_seq(const context_state* c) noexcept { return c->ready.front()->seq_; }
// For upper_bound over runnable_: does a head with sequence number s come before c's?
bool before_head(std::uint64_t s, const context_state* c) noexcept { return s < head_seq(c); }
}  // namespace

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

void world_core::occupy(context_state& ctx, duration until) {
  if (until <= now_) return;
  if (!ctx.busy_end) ctx.busy_end = std::make_unique<timed_event>(&on_busy_end, &ctx);
  ctx.busy = true;
  make_unrunnable(ctx);
  if (ctx.busy_end->scheduled() && ctx.busy_end->when() >= until) return;
  ctx.busy_end->context_id = ctx.id;
  schedule(*ctx.busy_end, until);
}

void world_core::on_busy_end(timed_event* ev) {
  auto& ctx = *static_cast<context_state*>(ev->owner());
  ctx.busy = false;
  ctx.core->make_runnable(ctx);
}

void world_core::stop_context(context_state& ctx) noexcept {
  ctx.stopped = true;
  make_unrunnable(ctx);
}

void world_core::restart_context(context_state& ctx) {
  ctx.stopped = false;
  make_runnable(ctx);
}

void world_core::drop_host_work(host_state& host) noexcept {
  for (context_state* ctx : contexts_) {
    if (ctx == nullptr || ctx->host != &host) continue;
    make_unrunnable(*ctx);
    if (ctx->busy) {  // the blocked thread died with its process
      ctx->busy = false;
      cancel(*ctx->busy_end);
    }
    // The host is down, so whatever destroying these posts is dropped too.
    while (!ctx->ready.empty()) drop(*ctx, ctx->ready.pop());
    for (pending_source* src : ctx->sources) src->abandon();
  }
}

// ---- timed events -------------------------------------------------------------

void world_core::schedule(timed_event& ev, duration when) {
  if (ev.where_ != timed_event::place::idle) cancel(ev);
  ev.when_ = when < now_ ? now_ : when;
  ev.seq_ = ++event_seq_;
  heap_.push(&ev);
}

void world_core::cancel(timed_event& ev) noexcept {
  switch (ev.where_) {
    case timed_event::place::heap:
      heap_.remove(&ev);
      break;
    case timed_event::place::batch:
      batch_[ev.pos_] = nullptr;
      ev.where_ = timed_event::place::idle;
      break;
    case timed_event::place::idle:
      break;
  }
}

// Releases every event due at the earliest pending instant, in seed order.
bool world_core::advance(duration deadline) {
  if (heap_.empty()) return false;
  const duration t = heap_.top_when();
  if (t > deadline) return false;
  if (t > now_) {
    now_ = t;
    record(event_kind::time_advance, no_host, static_cast<std::uint64_t>(t.count()));
    if ((++advances_ & 255) == 0) check_escapes_slice();
  }
  batch_.clear();
  while (!heap_.empty() && heap_.top_when() == t) {
    timed_event* ev = heap_.pop();
    ev->where_ = timed_event::place::batch;
    ev->pos_ = batch_.size();
    batch_.push_back(ev);
  }
  if (batch_.size() > 1 && explores_) {
    // Selection shuffle: drawing 0 everywhere keeps scheduling order (polite).
    rng& r = *sched_;
    for (std::size_t i = 0; i + 1 < batch_.size(); ++i) {
      const std::size_t j = i + r.below(batch_.size() - i);
      if (j != i) {
        std::swap(batch_[i], batch_[j]);
        batch_[i]->pos_ = i;
        batch_[j]->pos_ = j;
      }
    }
  }
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    timed_event* ev = batch_[i];
    if (ev == nullptr) continue;  // cancelled by an earlier event of the batch
    ev->where_ = timed_event::place::idle;
    record(event_kind::timer_fire, no_host, ev->seq_, ev->context_id);
    ev->fire_(ev);
  }
  batch_.clear();
  return true;
}

// ---- draws ----------------------------------------------------------------------

rng& world_core::stream(std::string_view key, choice_purpose p) {
  const std::uint32_t s = tape_.open(key, p);
  // Streams opened on the tape directly (world::tape().open) have no rng here.
  if (s >= streams_.size()) streams_.resize(static_cast<std::size_t>(s) + 1);
  // Its seed: the key's FNV-1a (kept by the tape), mixed, with the world's:
  // it depends on the world's seed and the stream's name, never on when it
  // was opened.
  if (streams_[s] == nullptr)
    streams_[s] = &rngs_.emplace_back(detail::mix64(opts_.seed ^ detail::mix64(tape_.key_hash(s))), p, &tape_, s);
  return *streams_[s];
}

rng& world_core::sched_rng(host_state* h) {
  if (h == nullptr) return *sched_;
  if (h->scheduler == nullptr) h->scheduler = &stream("scheduler:" + h->name, choice_purpose::scheduler);
  return *h->scheduler;
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
  poll_real_scheduler(ctx);
}

// Asio's timers read std::chrono::steady_clock: the host's clock, when the
// interposition library makes it virtual.
void world_core::poll_real_scheduler(context_state& ctx) {
  const host_state* saved = booting_;
  booting_ = ctx.host;
  struct restore {
    world_core& core;
    const host_state* saved;
    ~restore() { core.booting_ = saved; }
  } guard{*this, saved};
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

void world_core::wrong_thread(const context_state& ctx, const world_core* here) const {
  const std::string host = host_name(ctx.host->id);
  if (here != nullptr)
    throw usage_error("simasio: an object of host '" + host + "' (io_context #" + std::to_string(ctx.id) +
                      ") was used while another world runs on this thread; objects cannot cross worlds: create "
                      "them from the world that runs them (its hosts' contexts)");
  throw usage_error("simasio: an object of host '" + host + "' (io_context #" + std::to_string(ctx.id) +
                    ") was used from a thread that is not running its world, while the world runs; a world is "
                    "single-threaded: use its objects only from its handlers (or before and after its runs), "
                    "and give each thread its own world");
}

void world_core::from_dead_process(const context_state& ctx, const char* what) const {
  const host_state& h = *ctx.host;
  throw usage_error("simasio: a " + std::string(what) + " of host '" + h.name +
                    "' was used after the host restarted, but it belonged to the process that died in the " +
                    (h.power_crash ? "power" : "process") + " crash at t=" +
                    format_time(duration(h.crashed_at_ns)) +
                    "; a crash takes the process's sockets, acceptors, timers and open files with it: create new "
                    "ones in the host's on_boot (or after restart()) and drop the old ones when the host crashes");
}

void world_core::check_escapes() {
  for (context_state* ctx : contexts_)
    if (ctx != nullptr) check_escape(*ctx);
}

// While time runs, a few contexts at a time, in turn: the cost per time
// advance stays the same however many hosts the world has. (Every context
// is checked when a run starts and ends, and on a stall.)
void world_core::check_escapes_slice() {
  for (int n = 0; n < 8 && !contexts_.empty(); ++n) {
    if (escape_cursor_ >= contexts_.size()) escape_cursor_ = 0;
    if (context_state* ctx = contexts_[escape_cursor_++]) check_escape(*ctx);
  }
}

void world_core::check_escape(context_state& ctx) {
  // Real Asio objects built outside a step, or from the context itself
  // rather than its executor, are found here.
  if (ctx.real_scheduler == nullptr) ctx.real_scheduler = real_timer_scheduler(*ctx.exec);
  if (stalled_ && ctx.real_scheduler != nullptr && real_timer_waits_pending(ctx.real_scheduler)) {
    throw escape_error(
        std::string("simasio: the world stalled while a real ") + real_timer_kind(*ctx.exec) +
        " wait was pending on simulated io_context #" + std::to_string(ctx.id) + " on host '" + host_name(ctx.host->id) +
        "' (Beast's websocket::stream keeps one for its timeouts, Asio's ssl::stream for its pending "
        "operations), and its deadline is on real time, which does not pass in the simulation, so this wait "
        "would never end. Link simasio::interpose into the test program "
        "(target_link_libraries(<tests> PRIVATE simasio::interpose)) to run Asio's own timers on virtual time; "
        "use net::steady_timer for your own timers (write `namespace net = simasio::asio;`).");
  }
  if (const char* kind = find_escape(*ctx.exec)) {
    throw escape_error(std::string("simasio: a real ") + kind + " is bound to simulated io_context #" +
                       std::to_string(ctx.id) + " on host '" + host_name(ctx.host->id) +
                       "'. Real Asio I/O objects never complete inside the simulation (they would need "
                       "real time, real sockets and a background thread). Use simasio's type instead: "
                       "write `namespace net = simasio::asio;` and net::steady_timer, net::ip::tcp::socket, "
                       "... or simasio::steady_timer directly.");
  }
}

void world_core::always(std::string name, std::function<bool()> invariant) {
  invariants_.push_back({std::move(name), std::move(invariant)});
}

void world_core::sometimes(std::string name, std::function<bool()> condition) {
  const bool hit = condition();
  sometimes_.push_back({std::move(name), std::move(condition), hit});
  if (!hit) ++sometimes_open_;
}

void world_core::check_sometimes() {
  for (reachable& r : sometimes_) {
    if (!r.hit && r.check()) {
      r.hit = true;
      --sometimes_open_;
    }
  }
}

std::vector<std::pair<std::string, bool>> world_core::reachability() const {
  std::vector<std::pair<std::string, bool>> out;
  for (const reachable& r : sometimes_) out.emplace_back(r.name, r.hit);
  return out;
}

// A site is enabled (or not) the first time a seed reaches it; an enabled
// site then fires with its own probability at each call. Both are draws
// from the site's own stream, so adding a site shifts no other decision.
bool world_core::buggify(std::string_view site) {
  if (!opts_.buggify) return false;
  auto it = buggify_sites_.find(site);
  if (it == buggify_sites_.end()) {
    rng& draws = stream("buggify:" + std::string(site), choice_purpose::buggify);
    it = buggify_sites_.emplace(std::string(site), buggify_site{draws.chance(opts_.buggify_sites), &draws}).first;
  }
  return it->second.enabled && it->second.draws->chance(opts_.buggify_fires);
}

void world_core::check_invariants() {
  for (const invariant& inv : invariants_) {
    if (!inv.check()) {
      std::string where;
      if (current_ != nullptr) where = " on host '" + host_name(current_->host->id) + "'";
      throw invariant_error(inv.name, "invariant '" + inv.name + "' violated at t=" + format_time(now_) +
                                          " step=" + std::to_string(steps_) + where);
    }
  }
}

void world_core::throw_runaway() {
  std::ostringstream os;
  os << "simasio: runaway scenario: more than " << opts_.max_steps
     << " steps (world_options::max_steps) at t=" << format_time(now_) << ". ";
  const auto recent = trace_.recent();
  if (!recent.empty()) {
    const trace_event& last = recent.back();
    if (last.kind == event_kind::handler && last.a >= process_context_base) {
      os << "The last step resumed process #" << (last.a - process_context_base) << " of host '"
         << host_name(last.host)
         << "': a process that never blocks (io_context::poll() or a non-blocking call in a loop, a "
            "busy-wait on the clock) never lets virtual time pass, since time moves only when nothing is "
            "runnable. Block instead: io_context::run(), a synchronous socket call, timer.wait(). ";
    } else if (last.kind == event_kind::handler) {
      os << "The last handler ran on host '" << host_name(last.host) << "' (io_context #" << last.a << "). ";
    }
  }
  os << "A handler may be re-posting itself forever, or a periodic timer never stops: bound the run "
        "with world::run_for or world::run_until, or raise world_options::max_steps.";
  throw runaway_error(os.str());
}

std::string world_core::diagnostics() const {
  std::ostringstream os;
  if (stalled_ && stalled_at_ < now_)
    os << "at t=" << format_time(stalled_at_) << " after step " << stalled_step_ << " (nothing could run since; the "
       << "clock went on to t=" << format_time(now_) << "):";
  else
    os << "at t=" << format_time(now_) << " after step " << steps_ << ":";
  bool any = false;
  for (const context_state* ctx : contexts_) {
    if (ctx == nullptr || ctx->work <= 0) continue;
    any = true;
    os << "\n  host '" << host_name(ctx->host->id) << "' io_context #" << ctx->id << ": " << ctx->work
       << " unit(s) of outstanding work";
    if (!ctx->host->up) os << " (host is down)";
    if (ctx->stopped) os << " (stopped)";
    std::vector<std::string> pending;
    for (const pending_source* src : ctx->sources) src->describe(pending);
    const auto ready = static_cast<std::int64_t>(ctx->ready.size());
    if (ready > 0) os << "\n    " << ready << " ready handler(s) not yet run";
    for (const std::string& p : pending) os << "\n    pending: " << p;
    const std::int64_t other = ctx->work - ready - static_cast<std::int64_t>(pending.size());
    if (other > 0)
      os << "\n    " << other
         << " held by work guards or tracked executors (executor_work_guard, a strand or handler "
            "keeping work, an operation of another kind)";
  }
  if (!processes_.empty()) {
    any = any || any_live_process();
    describe_processes(os);
  }
  if (!any) os << " no outstanding work";
  if (!heap_.empty())
    os << "\n  " << heap_.size() << " timed event(s) pending, next at t=" << format_time(heap_.top_when());
  return os.str();
}

}  // namespace simasio::detail
