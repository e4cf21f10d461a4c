// runs.cpp — one seed's run: in this process or in a forked child, its
// outcome carried back as bytes, and the determinism self-check
#include "guard.hpp"
#include "sweep.hpp"

#include <simasio/detail/access.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/log/log.hpp>
#include <simasio/trace/export.hpp>
#include <simasio/error.hpp>

#include <boost/core/demangle.hpp>

#include <cxxabi.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <typeinfo>

namespace simasio::check_impl {

constinit thread_local std::map<std::string, std::uint64_t>* run_counts = nullptr;

namespace {

// What a request keeps of world w, into out.
void keep_records(world& w, const run_request& req, run_outcome& out) {
  if (req.events) {
    const auto& all = w.events().events();
    const std::size_t keep = std::min(all.size(), req.opts.record_trace_limit);
    out.events.assign(all.end() - static_cast<std::ptrdiff_t>(keep), all.end());
    const auto& hashes = w.events().hashes();
    out.hashes.assign(hashes.end() - static_cast<std::ptrdiff_t>(std::min(keep, hashes.size())), hashes.end());
    out.omitted = w.events().events_omitted() + (all.size() - keep);
    out.names.clear();
    for (host* h : w.hosts()) out.names.push_back(h->name());
    out.notes = w.events().annotations();
  }
  if (req.tape) out.tape = w.tape().recorded(w.options().seed);
  out.reached = w.reachability();
  out.time = w.now();
  out.step = w.steps();
  out.trace_hash = w.trace_hash();
}

// A failure that happened in a seed's own process: its text came back, its
// exception object did not.
class isolated_failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The outcome a child sent; a cut-short message reads as far as it goes.
run_outcome decode(const std::string& bytes) {
  detail::isolation::reader r(bytes);
  run_outcome o;
  // Counts come from the child: never trust one to size memory at once.
  auto count = [&r, &bytes] { return std::min<std::uint64_t>(r.u64(), bytes.size()); };
  bool failed = r.u64() != 0;
  o.what = r.str();
  o.type = r.str();
  o.signature = r.str();
  for (std::uint64_t n = count(); n > 0 && r.ok(); --n) o.log.push_back(r.str());
  for (std::uint64_t n = count(); n > 0 && r.ok(); --n) {
    std::string name = r.str();
    o.reached.emplace_back(std::move(name), r.u64() != 0);
  }
  o.time = duration(static_cast<std::int64_t>(r.u64()));
  o.step = r.u64();
  o.trace_hash = r.u64();
  o.faults = r.str();
  for (std::uint64_t n = count(); n > 0 && r.ok(); --n) {
    std::string name = r.str();
    o.counts[name] += r.u64();
  }
  const std::string events = r.str();
  o.events.resize(events.size() / sizeof(trace_event));
  if (!o.events.empty()) std::memcpy(o.events.data(), events.data(), o.events.size() * sizeof(trace_event));
  const std::string hashes = r.str();
  o.hashes.resize(hashes.size() / sizeof(std::uint64_t));
  if (!o.hashes.empty()) std::memcpy(o.hashes.data(), hashes.data(), o.hashes.size() * sizeof(std::uint64_t));
  for (std::uint64_t n = count(); n > 0 && r.ok(); --n) o.names.push_back(r.str());
  o.omitted = r.u64();
  for (std::uint64_t n = count(); n > 0 && r.ok(); --n) {
    trace_annotations::packet_label p;
    p.packet = r.u64();
    p.text = r.str();
    o.notes.packets.push_back(std::move(p));
  }
  for (std::uint64_t n = count(); n > 0 && r.ok(); --n) {
    trace_annotations::log_line l;
    l.step = r.u64();
    l.time_ns = static_cast<std::int64_t>(r.u64());
    l.host = static_cast<std::uint32_t>(r.u64());
    l.level = r.str();
    l.text = r.str();
    o.notes.logs.push_back(std::move(l));
  }
  const std::string tape = r.str();
  if (!tape.empty()) {
    try {
      o.tape = parse_tape(tape, "a seed's process");
    } catch (const tape_error& e) {
      // A child that wrote its own memory over its message: that seed's failure.
      o.tape = saved_tape{};
      failed = true;
      o.what = std::string("the seed's process sent a result simasio could not read (") + e.what() + ")";
      o.type = "simasio::bad_child_message";
      o.signature = o.type;
    }
  }
  if (failed) o.error = std::make_exception_ptr(isolated_failure(o.what));
  return o;
}

}  // namespace

// An outcome as bytes, for a seed that ran in a process of its own.
std::string encode(const run_outcome& o) {
  detail::isolation::writer w;
  w.u64(o.error ? 1 : 0);
  w.str(o.what);
  w.str(o.type);
  w.str(o.signature);
  w.u64(o.log.size());
  for (const auto& line : o.log) w.str(line);
  w.u64(o.reached.size());
  for (const auto& [name, hit] : o.reached) {
    w.str(name);
    w.u64(hit ? 1 : 0);
  }
  w.u64(static_cast<std::uint64_t>(o.time.count()));
  w.u64(o.step);
  w.u64(o.trace_hash);
  w.str(o.faults);
  w.u64(o.counts.size());
  for (const auto& [name, n] : o.counts) {
    w.str(name);
    w.u64(n);
  }
  w.raw(o.events.data(), o.events.size() * sizeof(trace_event));
  w.raw(o.hashes.data(), o.hashes.size() * sizeof(std::uint64_t));
  w.u64(o.names.size());
  for (const auto& n : o.names) w.str(n);
  w.u64(o.omitted);
  w.u64(o.notes.packets.size());
  for (const auto& p : o.notes.packets) {
    w.u64(p.packet);
    w.str(p.text);
  }
  w.u64(o.notes.logs.size());
  for (const auto& l : o.notes.logs) {
    w.u64(l.step);
    w.u64(static_cast<std::uint64_t>(l.time_ns));
    w.u64(l.host);
    w.str(l.level);
    w.str(l.text);
  }
  w.str(o.tape.streams.empty() && !o.tape.positional ? std::string() : format_tape(o.tape));
  return w.bytes();
}

// One run in this process. With stop_at_spawn (automatic isolation), the
// run stops at its first host::spawn and says it needs a process of its own.
run_outcome run_seed(const std::function<void(world&)>& scenario, const run_request& req, bool stop_at_spawn) {
  world_options opts = req.opts;
  opts.seed = req.seed;
  if (req.tape) opts.record_tape = true;
  run_outcome out;
  const guard::seed_mark running(req.seed);  // an exit or fatal signal from here on names this seed
  std::map<std::string, std::uint64_t>* const outer_counts = std::exchange(run_counts, &out.counts);
  world w(opts);
  struct leave {
    world& w;
    const run_request& req;
    run_outcome& out;
    std::map<std::string, std::uint64_t>* outer;
    ~leave() {
      keep_records(w, req, out);
      run_counts = outer;
      if (detail::isolation::in_child()) detail::isolation::set_last_words(nullptr);
    }
  } keep{w, req, out, outer_counts};
  if (detail::isolation::in_child()) {
    // A fatal signal ends this process: what the run drew and traced so far
    // is what the parent can shrink and draw.
    detail::isolation::set_last_words([&w, &req, &out](int) {
      run_outcome partial;
      partial.counts = out.counts;
      keep_records(w, req, partial);
      partial.log = log::recent_lines(w);
      return encode(partial);
    });
  }
  struct restart_guard {
    bool before;
    explicit restart_guard(bool on) : before(std::exchange(detail::spawn_restarts_isolated, on)) {}
    ~restart_guard() { detail::spawn_restarts_isolated = before; }
  } restart{stop_at_spawn};
  try {
    scenario(w);
    if (req.fail_on_stall && w.stalled())
      throw std::runtime_error("deadlock: the world stalled with work outstanding; " + w.pending_report());
  } catch (const detail::isolation_needed&) {
    out.needs_isolation = true;
  } catch (const invariant_error& e) {
    out.error = std::current_exception();
    out.what = e.what();
    out.type = "simasio::invariant_error";
    out.signature = "invariant " + e.name();  // its message names the step, which shrinking changes
  } catch (const runaway_error& e) {
    out.error = std::current_exception();
    out.what = e.what();
    out.type = "simasio::runaway_error";
    out.signature = "runaway";
  } catch (const std::exception& e) {
    out.error = std::current_exception();
    out.what = e.what();
    out.type = boost::core::demangle(typeid(e).name());
    out.signature = failure_signature(out.type, out.what);
  } catch (...) {
    out.error = std::current_exception();
    const std::type_info* thrown = abi::__cxa_current_exception_type();
    out.type = thrown != nullptr ? boost::core::demangle(thrown->name()) : "unknown";
    out.what = "an exception of type " + out.type + ", not derived from std::exception, was thrown";
    out.signature = "thrown " + out.type;
  }
  // A spawn refused for isolation that the scenario caught and went on from:
  // what it did after says nothing, run it isolated all the same.
  if (stop_at_spawn && detail::access::core(w).os_state_used()) out.needs_isolation = true;
  if (out.needs_isolation) return out;
  if (out.error) out.log = log::recent_lines(w);
  if (opts.swarm && out.error) out.faults = w.faults().describe();
  return out;
}

// What became of a run in a child: its message, or its death.
run_outcome from_child(const detail::isolation::child_outcome& c, std::uint64_t timeout_seconds) {
  run_outcome out;
  if (!c.message.empty()) out = decode(c.message);  // all of it, or the last words of a dying run
  if (c.complete && !c.message.empty()) return out;
  std::string said;
  if (!c.output_tail.empty()) {
    said = "; its last lines on stderr:";
    std::size_t start = 0;
    while (start < c.output_tail.size()) {
      std::size_t end = c.output_tail.find('\n', start);
      if (end == std::string::npos) end = c.output_tail.size();
      said += "\n    " + c.output_tail.substr(start, end - start);
      start = end + 1;
    }
  }
  if (c.hung) {
    out.type = "simasio::hung";
    out.what = "the seed's process did not end within " + std::to_string(timeout_seconds) +
               " s of wall-clock time (check_options::seed_timeout, SIMASIO_SEED_TIMEOUT): a real blocking call, or a "
               "loop that never reaches a scheduling point; it was killed" +
               (c.message.empty() ? std::string(" (it said nothing of where it was)")
                                  : " at virtual time " + detail::format_time(out.time) + ", step " +
                                        std::to_string(out.step) + ", where it was when the timeout passed") +
               said;
    out.signature = out.type;
  } else if (c.signal != 0) {
    const std::string name = detail::signal_name(c.signal);
    out.type = "simasio::fatal_signal";
    out.what = "the run killed its process with " + name + said;
    out.signature = out.type + ": " + name;
    out.peak_rss_kib = c.peak_rss_kib;
    out.sigkill = c.signal == SIGKILL;
  } else {
    out.type = "simasio::process_exit";
    out.what = "the run ended its process with exit status " + std::to_string(c.exit_status) +
               " (exit() or a sanitizer's report outside a simulated process)" + said;
    out.signature = out.type + ": " + std::to_string(c.exit_status);
  }
  out.error = std::make_exception_ptr(isolated_failure(out.what));
  return out;
}

bool killed_from_outside(const run_outcome& o) { return o.sigkill; }

namespace {
std::string mib(long kib) { return std::to_string((kib + 512) / 1024) + " MiB"; }
}  // namespace

run_outcome settle_kill(seed_runner& runner, const run_request& req, run_outcome killed) {
  run_outcome again = runner.in_child(req, true);
  if (!again.error) {
    std::fprintf(stderr,
                 "simasio: seed %llu: its process was killed with SIGKILL from outside the run (peak resident memory "
                 "%s: the kernel's OOM killer or a memory limit, most likely); it ran again and passed\n",
                 static_cast<unsigned long long>(req.seed), mib(killed.peak_rss_kib).c_str());
    std::fflush(stderr);
    return again;
  }
  if (!again.sigkill) return again;  // it fails another way, and that reproduces
  killed.what += " (twice: the seed ran again and its process was killed again, with a peak resident memory of " +
                 mib(killed.peak_rss_kib) + ", then " + mib(again.peak_rss_kib) +
                 ": the run kills itself, or the kernel's OOM killer or a memory limit stops it each time)";
  return killed;
}

// SIMASIO_ISOLATION=0, 1 or auto, if set.
std::optional<isolation> env_isolation() {
  const auto v = detail::env_string("SIMASIO_ISOLATION");
  if (!v) return std::nullopt;
  if (*v == "1" || *v == "on") return isolation::on;
  if (*v == "0" || *v == "off") return isolation::off;
  if (*v == "auto") return isolation::automatic;
  throw config_error("simasio: SIMASIO_ISOLATION='" + *v +
                     "' is not a setting: use 1 (each seed in a process of its own), 0 (every seed in the test "
                     "program) or auto (isolate when a seed spawns a process or opens an interposed file)");
}

void derive_pct_horizon(seed_runner& runner, world_options& opts, bool fail_on_stall) {
  if (opts.strategy != strategy::pct || opts.pct_horizon != 0) return;
  if (const auto h = detail::env_in_range("SIMASIO_PCT_HORIZON", 1, UINT64_MAX, "steps over which PCT spreads its change points")) {
    opts.pct_horizon = *h;
    return;
  }
  run_request probe{opts, 0, fail_on_stall};
  probe.opts.strategy = strategy::random_walk;
  probe.opts.replay_tape.reset();
  opts.pct_horizon = std::max<std::uint64_t>(runner.run(probe, true).step, 1);
}

run_outcome run_verified(seed_runner& runner, run_request req) {
  // The first events of each run, enough to name where they part; the
  // hashes still cover every event (a runaway stays bounded in memory).
  constexpr std::size_t kept = 1'000'000;
  req.opts.record_trace = true;
  req.opts.record_trace_limit = kept;
  req.opts.record_trace_first = true;
  req.events = !runner.isolated();
  run_outcome first = runner.run(req);
  req.events = !runner.isolated();
  run_outcome second = runner.run(req);
  if (first.error || second.trace_hash == first.trace_hash) return first.error ? first : second;
  if (first.events.empty() && second.events.empty()) {
    req.events = true;
    run_outcome again = runner.run(req);
    run_outcome& like = again.trace_hash == first.trace_hash ? first : second;
    like.events = std::move(again.events);
    like.hashes = std::move(again.hashes);
    like.names = std::move(again.names);
  }
  // The first event that differs, or after which the rolling hashes do
  // (the events agree, but bytes sent or written before it did not).
  auto same_at = [&](std::size_t k) {
    return first.events[k] == second.events[k] &&
           (k >= first.hashes.size() || k >= second.hashes.size() || first.hashes[k] == second.hashes[k]);
  };
  std::size_t i = 0;
  while (i < first.events.size() && i < second.events.size() && same_at(i)) ++i;
  const bool only_bytes =
      i < first.events.size() && i < second.events.size() && first.events[i] == second.events[i];
  auto show = [&](const run_outcome& run, std::size_t k) {
    if (run.events.empty()) return std::string("(its events are gone: it did not repeat a third time)");
    if (k < run.events.size()) return describe(run.events[k], run.names);
    return run.events.size() < kept ? std::string("(the run ended)")
                                    : "(after the first " + std::to_string(kept) + " events, which are all that is kept)";
  };
  run_outcome out = second;
  out.what = "nondeterminism: the same seed gave trace hash " + std::to_string(first.trace_hash) + ", then " +
             std::to_string(second.trace_hash) + "; first difference at event #" + std::to_string(i) + ": " +
             (only_bytes ? "the events agree (" + show(first, i) +
                               "), but the bytes a socket sent or a file was written up to it differ"
                         : show(first, i) + " vs " + show(second, i)) +
             ". Something outside the seed decided: a wall clock, std::random_device, an unordered container, "
             "a pointer value, or state kept from an earlier run.";
  out.type = "simasio::nondeterminism";
  out.events.clear();
  out.error = std::make_exception_ptr(std::runtime_error(out.what));
  return out;
}

}  // namespace simasio::check_impl
