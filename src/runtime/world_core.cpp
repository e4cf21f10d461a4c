// world_core.cpp — the world's state: its construction, contexts, timed events and draws
//
// The scheduling loop that runs it is run_loop.cpp; what a run checks as
// it goes (escapes, invariants, reachability, runaways) is world_checks.cpp.
#include <simasio/detail/world_core.hpp>

#include <simasio/detail/current.hpp>
#include <simasio/error.hpp>

#include <utility>

namespace simasio::detail {

namespace {

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

rng& world_core::stream(std::string_view key, choice_purpose p) { return generator(tape_.open(key, p), p); }

rng& world_core::deferred_stream(std::uint64_t hash, choice_purpose p, choice_tape::key_writer write,
                                 const void* context, std::uint64_t token) {
  return generator(tape_.open_deferred(hash, p, write, context, token), p);
}

rng& world_core::generator(std::uint32_t s, choice_purpose p) {
  // Its seed: the key's FNV-1a (kept by the tape), mixed, with the world's:
  // it depends on the world's seed and the stream's name, never on when it
  // was opened.
  const auto make = [&] {
    return &rngs_.emplace_back(detail::mix64(opts_.seed ^ detail::mix64(tape_.key_hash(s))), p, &tape_, s);
  };
  if ((s & choice_tape::deferred_bit) != 0) return *make();
  // Streams opened on the tape directly (world::tape().open) have no rng here.
  if (s >= streams_.size()) streams_.resize(static_cast<std::size_t>(s) + 1);
  if (streams_[s] == nullptr) streams_[s] = make();
  return *streams_[s];
}

rng& world_core::sched_rng(host_state* h) {
  if (h == nullptr) return *sched_;
  if (h->scheduler == nullptr) h->scheduler = &stream("scheduler:" + h->name, choice_purpose::scheduler);
  return *h->scheduler;
}

}  // namespace simasio::detail
