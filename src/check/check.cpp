// check.cpp — seed sweeps: the seeds' runs, the failure they find, its
// replay line, shrunk tape and trace files, and replay()
//
// One seed's run is runs.cpp, the environment's settings settings.cpp,
// shrinking shrink.cpp, the live line progress.cpp (sweep.hpp maps them).
#include <simasio/check/check.hpp>

#include "guard.hpp"
#include "progress.hpp"
#include "sweep.hpp"

#include <simasio/detail/env.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/trace/export.hpp>
#include <simasio/error.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>

namespace simasio::check_impl {

namespace {

// The seeds of one sweep and what their runs left. Seeds are handed out in
// order; a worker stops once its next seed lies past the smallest failure
// found so far. Every seed before that failure was handed out and finished,
// so the reported seed is the smallest failing one whatever the thread
// timing.
class sweep {
 public:
  sweep(seed_runner& runner, const check_options& options, std::vector<std::uint64_t> seeds, progress_line& progress)
      : runner_(runner), options_(options), seeds_(std::move(seeds)), first_failure_(seeds_.size()),
        progress_(progress) {}

  run_request request(std::uint64_t seed) const { return run_request{options_.world, seed, options_.fail_on_stall}; }

  // Runs the seeds on up to jobs workers (threads, or forked children when
  // the runs are isolated).
  void run(unsigned jobs_wanted, const std::optional<unsigned>& isolated_jobs) {
    // The first seed before the others start: under automatic isolation, a
    // scenario that spawns processes is known to need it from there on.
    if (!seeds_.empty() && guard::interrupted() == 0) note(next_++, run_one(seeds_[0]));
    if (runner_.isolated() && !options_.jobs_from_environment && isolated_jobs) jobs_wanted = *isolated_jobs;
    const auto jobs = static_cast<unsigned>(std::min<std::size_t>(jobs_wanted, std::max<std::size_t>(seeds_.size(), 1)));
    if (jobs <= 1 || (runner_.isolated() && options_.verify_determinism)) {
      work();
    } else if (runner_.isolated()) {
      in_children(jobs);
    } else {
      std::vector<std::thread> threads;
      threads.reserve(jobs);
      for (unsigned j = 0; j < jobs; ++j) threads.emplace_back([this] { work(); });
      for (auto& t : threads) t.join();
    }
    std::sort(hashes_.begin(), hashes_.end());
    std::erase_if(hashes_, [&](const auto& h) { return h.first > first_failure_.load(); });
  }

  const std::vector<std::uint64_t>& seeds() const noexcept { return seeds_; }
  // How many seeds ran to their end, and the index of the first that did
  // not (every seed before it ran): for an interrupted sweep's summary.
  std::size_t finished() const noexcept { return hashes_.size(); }
  std::size_t first_unfinished() const {
    std::vector<std::size_t> done;
    for (const auto& h : hashes_) done.push_back(h.first);
    std::sort(done.begin(), done.end());
    std::size_t i = 0;
    while (i < done.size() && done[i] == i) ++i;
    return i;
  }
  // The first failing run, if one failed, and its index in seeds().
  std::optional<run_outcome>& failed() noexcept { return failed_; }
  std::size_t failed_index() const noexcept { return first_failure_.load(); }

  // The sums over the runs, into result.
  void fill(check_result& result) {
    result.reached = std::move(reached_);
    result.counts = std::move(counts_);
    for (const auto& [i, hash] : hashes_) result.trace_hashes.emplace_back(seeds_[i], hash);
    result.isolated = runner_.isolated();
    result.runs = failed_ ? failed_index() + 1 : seeds_.size();
  }

 private:
  run_outcome run_one(std::uint64_t seed) {
    return options_.verify_determinism ? run_verified(runner_, request(seed)) : runner_.run(request(seed));
  }

  void note(std::size_t i, run_outcome out) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [name, hit] : out.reached) reached_[name] += hit ? 1 : 0;
    for (const auto& [what, n] : out.counts) counts_[what] += n;
    hashes_.emplace_back(i, out.trace_hash);
    guard::seed_finished();
    progress_.seed_done(static_cast<bool>(out.error));
    if (out.error && i < first_failure_.load()) {
      first_failure_.store(i);
      failed_ = std::move(out);
    }
  }

  void work() {
    for (;;) {
      if (guard::interrupted() != 0) return;
      const std::size_t i = next_.fetch_add(1);
      if (i >= seeds_.size() || i > first_failure_.load()) return;
      run_outcome out = run_one(seeds_[i]);
      if (guard::interrupted() != 0 && out.error) return;  // killed by the interruption, most likely: not counted
      note(i, std::move(out));
    }
  }

  // Isolated seeds in parallel: up to `jobs` children at once, forked
  // from this thread (a fork copies only the thread that calls it).
  void in_children(unsigned jobs) {
    detail::isolation::children pool(false, runner_.timeout());
    for (;;) {
      while (pool.running() < jobs && next_ < seeds_.size() && next_ <= first_failure_.load() &&
             guard::interrupted() == 0) {
        pool.start(next_, runner_.body(request(seeds_[next_])));
        ++next_;
      }
      if (pool.running() == 0) break;
      auto [i, outcome] = pool.wait_any();
      if (i == detail::isolation::interrupted_tag || guard::interrupted() != 0) break;  // the pool reaps the rest
      run_outcome out = from_child(outcome, runner_.timeout_seconds());
      if (killed_from_outside(out)) out = settle_kill(runner_, request(seeds_[i]), std::move(out));
      note(static_cast<std::size_t>(i), std::move(out));
    }
  }

  seed_runner& runner_;
  const check_options& options_;
  const std::vector<std::uint64_t> seeds_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> first_failure_;
  progress_line& progress_;
  std::mutex mutex_;
  std::optional<run_outcome> failed_;
  std::map<std::string, std::uint64_t> reached_;
  std::map<std::string, std::uint64_t> counts_;
  std::vector<std::pair<std::size_t, std::uint64_t>> hashes_;  // seed index, trace hash
};

// Reachability: a declared condition no run reached fails the sweep.
std::optional<failure> unreached(const check_result& result, const check_options& options,
                                 const std::vector<std::uint64_t>& seeds) {
  for (const auto& [condition, hits] : result.reached) {
    if (hits != 0) continue;
    failure f;
    f.seed = seeds.empty() ? options.first_seed : seeds.front();
    f.what = "sometimes '" + condition + "' was never reached in " + std::to_string(seeds.size()) +
             " seed(s): the sweep never explored that case (more seeds, other faults, or a bug that prevents it)";
    f.type = "simasio::unreached";
    f.replay = "SIMASIO_SEEDS=" + std::to_string(options.seeds) + " " + quoted_command_line();
    return f;
  }
  return std::nullopt;
}

// The failure of run `failed` of seed, and the line that reruns exactly
// it: the tape when one was replayed, else the seed (with the self-check
// on, for a nondeterminism failure: one run alone would pass).
failure failure_of(run_outcome& failed, std::uint64_t seed, const check_options& options, const settings& set) {
  failure f;
  f.seed = seed;
  f.what = std::move(failed.what);
  f.type = std::move(failed.type);
  f.signature = failed.signature;
  f.time = failed.time;
  f.step = failed.step;
  f.log = std::move(failed.log);
  if (set.tape) {
    f.replay = "SIMASIO_TAPE=" + shell_quoted(set.tape_path);
    if (const auto policy = detail::env_string("SIMASIO_TAPE_MISMATCH")) f.replay += " SIMASIO_TAPE_MISMATCH=" + *policy;
  } else {
    f.replay = "SIMASIO_SEED=" + std::to_string(f.seed);
  }
  if (f.type == "simasio::nondeterminism") f.replay += " SIMASIO_VERIFY=1";
  if (options.world.swarm) {
    if (!set.tape) f.replay += " SIMASIO_SWARM=1";  // a tape brings its mix (its swarm section)
    f.faults = failed.faults;
    if (f.faults.empty()) {  // a failure found without the run's world at hand (nondeterminism): draw it again
      world_options o = options.world;
      o.seed = f.seed;
      f.faults = world(o).faults().describe();
    }
  }
  f.replay += " " + quoted_command_line();
  return f;
}

// Shrinks f's run into a saved tape (returned), or says in f why not.
std::optional<saved_tape> shrink_into(failure& f, seed_runner& runner, const check_options& options,
                                      const settings& set, progress_line& progress, const std::string& name) {
  if (!options.shrink) {
    f.not_shrunk = set.tape && !set.shrink_tape ? "a replayed tape is not shrunk again" : "shrinking is off";
    return std::nullopt;
  }
  if (f.type == "simasio::nondeterminism") {
    f.not_shrunk = "a nondeterministic run has no tape that replays it";
    return std::nullopt;
  }
  if (f.type == "simasio::hung") {
    f.not_shrunk = "a hung run is not shrunk (each try would wait out the timeout again)";
    return std::nullopt;
  }
  if (f.type == "simasio::runaway_error") {
    // Each try would run max_steps handlers again: minutes for nothing.
    f.not_shrunk = "a runaway is not shrunk (each try would run all " + std::to_string(options.world.max_steps) +
                   " steps again)";
    return std::nullopt;
  }
  auto s = shrink_failure(runner, options.world, f.seed, f.signature, options.fail_on_stall, options.shrink_budget,
                          &progress);
  progress.shrink_done();
  if (!s) {
    f.not_shrunk = "the failure did not come back the same when the seed ran again";
    return std::nullopt;
  }
  s->tape.scenario = name;
  f.shrunk_choices = s->tape.size();
  f.deviations = s->tape.deviations();
  f.original_choices = s->original_choices;
  try {
    f.tape_path = artifact_stem(options, name) + "-seed" + std::to_string(f.seed) + ".tape";
    save_tape(f.tape_path, s->tape);
  } catch (const std::exception& e) {
    f.artifact_problems.push_back(std::string("shrunk tape not saved: ") + e.what());
    f.tape_path.clear();
  }
  return std::move(s->tape);
}

// A run of req once more, with its last events recorded (replay is
// exact): a long or runaway run keeps only the last max_trace_events.
run_outcome recorded(seed_runner& runner, run_request req, const check_options& options) {
  req.opts.record_trace = true;
  req.opts.record_trace_limit = std::max<std::size_t>(options.max_trace_events, 1);
  req.events = true;
  return runner.run(req, true);
}

recorded_run as_recorded(std::string label, run_outcome&& o) {
  return recorded_run{std::move(label), std::move(o.events), std::move(o.names), std::move(o.notes), o.omitted};
}

// The failing seed's trace files, its failure marked on the diagram; with
// a shrunk tape, the page that puts the tape's run beside the seed's.
void trace_into(failure& f, seed_runner& runner, const run_request& request, const check_options& options,
                const std::string& name, const std::optional<saved_tape>& shrunk) {
  run_outcome again = recorded(runner, request, options);
  std::string base;
  try {
    base = artifact_stem(options, name) + "-seed" + std::to_string(f.seed);
    write_json_lines(base + ".jsonl", again.events, again.names, again.omitted);
    write_chrome_trace(base + ".json", again.events, again.names, again.omitted);
    const trace_failure mark{f.step, f.time.count(), f.what};
    write_html_diagram(base + ".html", name + " seed " + std::to_string(f.seed) + ": " + f.what, again.events,
                       again.names, again.omitted, again.notes, &mark);
    f.trace_path = base;
    if (shrunk) {
      run_request tape_run = request;
      tape_run.opts.replay_tape = std::make_shared<const saved_tape>(*shrunk);
      tape_run.opts.on_tape_mismatch = tape_mismatch::fail;
      run_outcome small = recorded(runner, tape_run, options);
      const std::string compare = base + "-shrunk.compare.html";
      write_html_comparison(compare, name + ": seed " + std::to_string(f.seed) + " beside its shrunk tape",
                            as_recorded("seed " + std::to_string(f.seed), std::move(again)),
                            as_recorded("shrunk tape", std::move(small)));
      f.comparison_path = compare;
    }
  } catch (const std::exception& e) {
    f.artifact_problems.push_back(std::string("trace not written: ") + e.what());
    // The three files go together (the trace: line names them all): none stays alone.
    if (!base.empty() && f.trace_path.empty())
      for (const char* ext : {".jsonl", ".json", ".html"}) std::remove((base + ext).c_str());
  }
}

// SIMASIO_COMPARE_SEED=m beside SIMASIO_SEED=n: both runs recorded, on one
// page that marks where they part.
void compare_seeds(seed_runner& runner, const check_options& options, std::uint64_t seed, std::uint64_t other,
                   const std::string& name) {
  auto run_of = [&](std::uint64_t s) {
    return recorded(runner, run_request{options.world, s, options.fail_on_stall}, options);
  };
  try {
    const std::string path = artifact_stem(options, name) + "-seed" + std::to_string(seed) + "-vs-seed" +
                             std::to_string(other) + ".compare.html";
    write_html_comparison(path, name + ": seed " + std::to_string(seed) + " beside seed " + std::to_string(other),
                          as_recorded("seed " + std::to_string(seed), run_of(seed)),
                          as_recorded("seed " + std::to_string(other), run_of(other)));
    std::fprintf(stderr, "simasio: compare: %s (seed %llu beside seed %llu: where they part)\n", path.c_str(),
                 static_cast<unsigned long long>(seed), static_cast<unsigned long long>(other));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simasio: compare page not written: %s\n", e.what());
  }
  std::fflush(stderr);
}

// Misuse is a programming error, not a finding: no shrinking, no artifacts.
bool misuse(const failure& f) { return f.type == "simasio::usage_error" || f.type == "simasio::config_error"; }

// An interrupted sweep's last words: what ran, and the line that runs the rest.
void interrupted_summary(int sig, const sweep& s, const check_options& options, const settings& set,
                         const std::string& name) {
  const std::size_t j = s.first_unfinished();
  std::string text = "simasio: " + name + ": interrupted by " + detail::signal_name(sig) + ": " +
                     std::to_string(s.finished()) + " of " + std::to_string(s.seeds().size()) +
                     " seed(s) ran, none failed";
  if (j < s.seeds().size()) {
    const shard_spec shard = options.shard_seeds && !set.seed ? set.shard : shard_spec{};
    std::string rest;
    if (set.seed || set.tape) {
      rest = set.tape ? "SIMASIO_TAPE=" + shell_quoted(set.tape_path) : "SIMASIO_SEED=" + std::to_string(*set.seed);
    } else {
      // From a multiple of the shard count, so each shard keeps its seeds.
      const std::uint64_t global = s.seeds()[j] - options.first_seed;
      const std::uint64_t from = global - global % std::max<std::uint64_t>(shard.count, 1);
      rest = "SIMASIO_FIRST_SEED=" + std::to_string(options.first_seed + from) +
             " SIMASIO_SEEDS=" + std::to_string(options.seeds - from);
    }
    text += "; every seed before " + std::to_string(s.seeds()[j]) + " ran\nsimasio: the rest: " + rest + " " +
            quoted_command_line();
  }
  std::fputs((text + "\n").c_str(), stderr);
  std::fflush(stderr);
}

void print(const check_options& options, const std::string& text) {
  if (!options.print) return;
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace

// A tape recorded by another scenario: refused, or (a lenient mismatch
// policy) replayed with a warning.
void check_tape_scenario(const settings& set, const std::string& name) {
  if (!set.tape || set.tape->scenario.empty() || set.tape->scenario == name) return;
  const std::string what = "simasio: SIMASIO_TAPE=" + set.tape_path + " was recorded by scenario '" +
                           set.tape->scenario + "', and this sweep is '" + name + "'";
  const auto policy = env_tape_mismatch().value_or(tape_mismatch::fail);
  if (policy == tape_mismatch::fail)
    throw config_error(what + ": its draws would answer another program's choices. Run the scenario it names (its "
                       "replay line), or set SIMASIO_TAPE_MISMATCH=adapt (or seeded, polite) to replay it anyway");
  std::fprintf(stderr, "%s; replaying it anyway (SIMASIO_TAPE_MISMATCH)\n", what.c_str());
  std::fflush(stderr);
}

check_result check_with(const std::function<void(world&)>& scenario, check_options options, const settings& set) {
  check_tape_scenario(set, options.name.empty() ? "scenario" : options.name);
  if (set.tape) {
    // Replaying a saved tape: exactly its seed; shrunk only when a fuzzer found it.
    options.first_seed = set.tape->seed;
    options.seeds = 1;
    options.shrink = options.shrink && set.shrink_tape;
    options.jobs = 1;
  }
  std::vector<std::uint64_t> seeds =
      options.world.replay_tape ? std::vector<std::uint64_t>{options.first_seed} : seeds_to_run(options, set);
  const std::string name = options.name.empty() ? "scenario" : options.name;
  const guard::sweep_guard guarded(name, quoted_command_line(), seeds.size());
  seed_runner runner(scenario, options.isolation);
  runner.set_timeout(std::chrono::duration_cast<detail::isolation::timeout>(options.seed_timeout));
  derive_pct_horizon(runner, options.world, options.fail_on_stall);
  const shard_spec shard = options.shard_seeds && !set.seed && !options.world.replay_tape ? set.shard : shard_spec{};
  progress_line progress(options, seeds.size(), shard);
  sweep s(runner, options, std::move(seeds), progress);
  s.run(options.jobs, set.isolated_jobs);

  check_result result;
  s.fill(result);
  progress.sweep_over();
  const int stopped_by = guard::interrupted();
  if (!s.failed() && stopped_by != 0) {
    interrupted_summary(stopped_by, s, options, set, name);
    guard::end_interrupted(stopped_by);
  }
  if (!s.failed()) {
    if (set.reachability) result.failure = unreached(result, options, s.seeds());
    if (result.failure)
      print(options, "simasio: FAILED " + name + ": " + result.failure->what + "\nsimasio: rerun: " +
                         result.failure->replay + "\n");
    progress.summary(result.runs, std::nullopt);
    if (set.compare_seed && set.seed) compare_seeds(runner, options, *set.seed, *set.compare_seed, name);
    return result;
  }
  const std::uint64_t seed = s.seeds()[s.failed_index()];
  failure f = failure_of(*s.failed(), seed, options, set);
  std::optional<saved_tape> shrunk;
  if (misuse(f)) {
    f.not_shrunk = "a " + f.type + " is a mistake in the scenario or its settings, not a finding: fix it and run again";
  } else {
    shrunk = shrink_into(f, runner, options, set, progress, name);
    if (options.artifacts && f.type != "simasio::nondeterminism" && f.type != "simasio::hung" &&
        guard::interrupted() == 0)
      trace_into(f, runner, s.request(seed), options, name, shrunk);
  }
  print(options, failure_report(f, name));
  // After the report, whose FAILED line comes first (docs/guides/ci.md).
  if (set.compare_seed && !misuse(f) && guard::interrupted() == 0)
    compare_seeds(runner, options, seed, *set.compare_seed, name);
  progress.summary(result.runs, seed);
  if (const int sig = guard::interrupted()) {
    std::fprintf(stderr, "simasio: %s: interrupted by %s after its failure was found\n", name.c_str(),
                 detail::signal_name(sig).c_str());
    guard::end_interrupted(sig);
  }
  result.failure = std::move(f);
  return result;
}

}  // namespace simasio::check_impl

namespace simasio {

using check_impl::env_isolation;
using check_impl::env_swarm;
using check_impl::env_tape;
using check_impl::quoted_command_line;
using check_impl::run_counts;
using check_impl::run_outcome;
using check_impl::run_request;
using check_impl::seed_runner;

namespace {

std::terminate_handler before_config_error = nullptr;

// A config_error nobody caught (a main() written like the README's quick
// start): its message and exit status 2, not an abort.
[[noreturn]] void uncaught_config_error() {
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const config_error& c) {
      std::fflush(stdout);
      std::fprintf(stderr, "%s\nsimasio: (a config_error nobody caught: the program ends with status 2)\n", c.what());
      std::fflush(stderr);
      std::_Exit(2);
    } catch (...) {
    }
  }
  if (before_config_error != nullptr) before_config_error();
  std::abort();
}

// Before a config_error leaves check(): should nobody catch it, the program
// ends with its message and status 2 (a test framework's glue catches it
// and fails the test).
void on_config_error() {
  static std::once_flag once;
  std::call_once(once, [] { before_config_error = std::set_terminate(&uncaught_config_error); });
}

}  // namespace

check_result check(std::function<void(world&)> scenario, check_options options) {
  try {
    const check_impl::settings set = check_impl::read_settings(options);
    return check_impl::check_with(scenario, std::move(options), set);
  } catch (const config_error&) {
    on_config_error();
    throw;
  }
}

std::string failure_signature(const std::string& type, const std::string& what) {
  std::string out = type + ": ";
  out.reserve(out.size() + what.size());
  for (std::size_t i = 0; i < what.size();) {
    if (std::isdigit(static_cast<unsigned char>(what[i]))) {
      out += '#';
      while (i < what.size() && std::isxdigit(static_cast<unsigned char>(what[i]))) ++i;
      if (i < what.size() && (what[i] == 'x' || what[i] == 'X')) ++i;  // 0x1f
      while (i < what.size() && std::isxdigit(static_cast<unsigned char>(what[i]))) ++i;
    } else {
      out += what[i++];
    }
  }
  return out;
}

std::string failure_report(const failure& f, const std::string& name) {
  std::string out = "simasio: FAILED " + name + " seed=" + std::to_string(f.seed) + " t=" + detail::format_time(f.time) +
                    " step=" + std::to_string(f.step) + ": " + f.what + "\nsimasio: replay: " + f.replay + "\n";
  if (!f.faults.empty()) out += "simasio: swarm: this seed's faults: " + f.faults + "\n";
  for (const std::string& problem : f.artifact_problems) out += "simasio: " + problem + "\n";
  if (!f.tape_path.empty())
    out += "simasio: shrunk: " + std::to_string(f.original_choices) + " choices -> " + std::to_string(f.deviations) +
           " deviations; tape: " + f.tape_path + "\n";
  else if (!f.not_shrunk.empty())
    out += "simasio: not shrunk: " + f.not_shrunk + "\n";
  if (!f.trace_path.empty())
    out += "simasio: trace: " + f.trace_path + ".json (Perfetto/Chrome) and " + f.trace_path + ".html (and .jsonl)\n";
  if (!f.comparison_path.empty())
    out += "simasio: compare: " + f.comparison_path + " (the shrunk tape's run beside the seed's: where they part)\n";
  if (!f.log.empty()) {
    out += "simasio: log of seed " + std::to_string(f.seed) + " (last " + std::to_string(f.log.size()) + " lines):\n";
    for (const std::string& line : f.log) out += "  " + line + "\n";
  }
  return out;
}

std::string command_line() { return quoted_command_line(); }

void count_in_run(std::string_view what) {
  if (run_counts != nullptr) ++(*run_counts)[std::string(what)];
}

void replay(std::function<void(world&)> scenario, std::uint64_t seed, world_options options) {
  try {
    if (const auto tape = env_tape(options)) seed = tape->seed;
    if (const auto swarm = env_swarm()) options.swarm = *swarm;
  } catch (const config_error&) {
    on_config_error();
    throw;
  }
  seed_runner runner(scenario, env_isolation().value_or(isolation::automatic));
  check_impl::derive_pct_horizon(runner, options, false);
  run_outcome out = runner.run(run_request{options, seed, false});
  if (!out.error) return;
  const std::string msg = "simasio: seed=" + std::to_string(seed) + " t=" + detail::format_time(out.time) +
                          " step=" + std::to_string(out.step) + ": " + out.what;
  try {
    std::rethrow_exception(out.error);
  } catch (...) {
    std::throw_with_nested(scenario_failure(msg, seed));
  }
}

}  // namespace simasio
