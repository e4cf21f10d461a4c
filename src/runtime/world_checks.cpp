// world_checks.cpp — what a run checks as it goes: objects used from the
// wrong thread or a dead process, real Asio objects on simulated contexts,
// invariants (always), reachability (sometimes), buggify sites, runaways,
// and the report of what is outstanding when a world stalls
#include <simasio/detail/world_core.hpp>

#include <simasio/detail/escape.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/error.hpp>

#include <sstream>

namespace simasio::detail {

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
