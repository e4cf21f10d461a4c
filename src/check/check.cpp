// check.cpp — seed sweeps, failure lines and replay
#include <simasio/check/check.hpp>
#include <simasio/check/fuzz.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/log/log.hpp>
#include <simasio/random/tape_file.hpp>
#include <simasio/trace/export.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <boost/core/demangle.hpp>

#include "isolation.hpp"
#include "../runtime/name_hash.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>
#include <exception>
#include <fstream>
#include <iterator>
#include <typeinfo>

namespace simasio {
namespace {

// One run of a scenario: which seed, on which world options, and what to
// keep of it besides the outcome.
struct run_request {
  world_options opts;
  std::uint64_t seed = 0;
  bool fail_on_stall = false;
  bool events = false;  // the recorded trace events (opts.record_trace), the hosts' names and omitted count
  bool tape = false;    // the choice tape of its draws
};

struct run_outcome {
  std::exception_ptr error;
  std::string what;
  std::string type;
  std::string signature;  // what makes two failures "the same" while shrinking
  std::vector<std::string> log;  // the ring of the run's log lines, kept when it failed
  std::vector<std::pair<std::string, bool>> reached;  // world::sometimes conditions
  duration time{0};
  std::uint64_t step = 0;
  std::uint64_t trace_hash = 0;
  std::string faults;  // swarm testing: the drawn mix
  bool needs_isolation = false;  // automatic isolation: it stopped at its first spawn, to run in a child
  std::map<std::string, std::uint64_t> counts;  // count_in_run
  // Kept as run_request asked:
  std::vector<trace_event> events;
  std::vector<std::uint64_t> hashes;  // the rolling hash after each of events
  std::vector<std::string> names;
  std::uint64_t omitted = 0;
  saved_tape tape;
};

// The counts of the run on this thread (count_in_run), or null.
thread_local std::map<std::string, std::uint64_t>* run_counts = nullptr;

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
  }
  if (req.tape) out.tape = w.tape().recorded(w.options().seed);
  out.reached = w.reachability();
  out.time = w.now();
  out.step = w.steps();
  out.trace_hash = w.trace_hash();
}

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
  w.str(o.tape.streams.empty() && !o.tape.positional ? std::string() : format_tape(o.tape));
  return w.bytes();
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
  const bool failed = r.u64() != 0;
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
  const std::string tape = r.str();
  if (!tape.empty()) o.tape = parse_tape(tape, "a seed's process");
  if (failed) o.error = std::make_exception_ptr(isolated_failure(o.what));
  return o;
}

// One run in this process. With stop_at_spawn (automatic isolation), the
// run stops at its first host::spawn and says it needs a process of its own.
run_outcome run_seed(const std::function<void(world&)>& scenario, const run_request& req, bool stop_at_spawn) {
  world_options opts = req.opts;
  opts.seed = req.seed;
  if (req.tape) opts.record_tape = true;
  run_outcome out;
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
    out.what = "an exception not derived from std::exception";
    out.type = "unknown";
    out.signature = out.type;
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
run_outcome from_child(const detail::isolation::child_outcome& c) {
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
  if (c.signal != 0) {
    const std::string name = detail::signal_name(c.signal);
    out.type = "simasio::fatal_signal";
    out.what = "the run killed its process with " + name + said;
    out.signature = out.type + ": " + name;
  } else {
    out.type = "simasio::process_exit";
    out.what = "the run ended its process with exit status " + std::to_string(c.exit_status) +
               " (exit() or a sanitizer's report outside a simulated process)" + said;
    out.signature = out.type + ": " + std::to_string(c.exit_status);
  }
  out.error = std::make_exception_ptr(isolated_failure(out.what));
  return out;
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

// Runs a scenario's runs where check_options::isolation says: in this
// process, or each in a child forked from it. Automatic isolation runs in
// this process until a run starts a simulated process: at that spawn the
// run stops (isolation_needed, before any process code ran, so nothing of
// it stays here) and runs again in a child, and so does every later run.
class seed_runner {
 public:
  seed_runner(const std::function<void(world&)>& scenario, isolation mode) : scenario_(scenario), mode_(mode) {}

  // A quiet run (shrinking, the artifacts' run) shows nothing of a child's
  // output: the sweep's run of that seed showed it once.
  run_outcome run(const run_request& req, bool quiet = false) {
    if (mode_.load() == isolation::automatic) {
      run_outcome out = run_seed(scenario_, req, true);
      if (!out.needs_isolation) return out;
      mode_.store(isolation::on);
    }
    if (mode_.load() == isolation::off) return run_seed(scenario_, req, false);
    return from_child(detail::isolation::run_in_child(body(req), quiet));
  }

  // Whether runs go to children (automatic: once a run spawned a process).
  bool isolated() const noexcept { return mode_.load() == isolation::on; }
  // What a child runs for req.
  detail::isolation::child_body body(const run_request& req) const {
    return [this, req] { return encode(run_seed(scenario_, req, false)); };
  }

 private:
  const std::function<void(world&)>& scenario_;
  std::atomic<isolation> mode_;  // automatic until a run spawns; worker threads read it
};

// PCT's horizon, when world_options::pct_horizon is 0: SIMASIO_PCT_HORIZON,
// or the step count of the scenario's seed 0 under random_walk (so every
// seed, alone or in a sweep, gets the same). Change points spread over a
// fixed 10,000 steps never fired in runs of 5 to 400 steps.
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

// @p path made absolute and normal (as it is when that fails), so a line
// that names it works from any directory.
std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

// One shell word: as it is when plain, else in single quotes.
std::string shell_quoted(const std::string& arg) {
  const bool plain = !arg.empty() && arg.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
                                         std::string::npos;
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string quoted_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (raw.empty()) return "<the same test command>";
  std::string out;
  std::size_t start = 0;
  while (start < raw.size()) {
    std::size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    std::string arg = raw.substr(start, end - start);
    // The program by an absolute path, so the line works from any directory
    // (a bare name was found through PATH and works as it is).
    if (start == 0 && arg.find('/') != std::string::npos) arg = absolute_path(arg);
    if (!out.empty()) out += ' ';
    out += shell_quoted(arg);
    start = end + 1;
  }
  return out;
}

}  // namespace
}  // namespace simasio

// Defined when GoogleTest is linked into the program (weak references:
// null otherwise; Itanium C++ ABI names). GoogleTest shards its tests with
// GTEST_*; inside a running GoogleTest test simasio must then not split
// that test's sweep a second time.
extern void* simasio_googletest_instance() __asm__("_ZN7testing8UnitTest11GetInstanceEv") __attribute__((weak));
// testing::UnitTest::current_test_info() const: non-null while a test runs.
extern const void* simasio_googletest_current_test(const void* unit_test)
    __asm__("_ZNK7testing8UnitTest17current_test_infoEv") __attribute__((weak));

namespace simasio {
namespace detail {

bool googletest_running_a_test() noexcept {
  if (&::simasio_googletest_instance == nullptr || &::simasio_googletest_current_test == nullptr) return false;
  return ::simasio_googletest_current_test(::simasio_googletest_instance()) != nullptr;
}

std::optional<shard_spec> shard_pair(const char* index_var, const char* count_var) {
  const auto index_text = env_string(index_var);
  const auto count_text = env_string(count_var);
  if (!index_text && !count_text) return std::nullopt;
  if (!index_text || !count_text)
    throw config_error(std::string("simasio: ") + (count_text ? count_var : index_var) + " is set but " +
                       (count_text ? index_var : count_var) + " is not: set both (" + index_var +
                       " counts from 0 and is below " + count_var + ")");
  const std::uint64_t count = *env_in_range(count_var, 1, UINT64_MAX, "how many shards");
  const std::uint64_t index = *env_u64(index_var);
  if (index >= count)
    throw config_error(std::string("simasio: ") + index_var + "=" + std::to_string(index) + " does not fit " +
                       count_var + "=" + std::to_string(count) + ": the index counts from 0 and must be below the count");
  return shard_spec{index, count, std::string(index_var) + "/" + count_var};
}

}  // namespace detail

shard_spec shard_from_environment() {
  const auto own = detail::shard_pair("SIMASIO_SHARD_INDEX", "SIMASIO_SHARD_COUNT");
  const auto test = detail::shard_pair("TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS");
  const auto gtest = detail::shard_pair("GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS");
  // Bazel's protocol: touching the status file says sharding is supported.
  if (test)
    if (const auto status = detail::env_string("TEST_SHARD_STATUS_FILE")) std::ofstream(*status, std::ios::app);
  if (gtest && detail::googletest_running_a_test()) {
    if (own)
      throw config_error("simasio: SIMASIO_SHARD_INDEX/SIMASIO_SHARD_COUNT and GoogleTest's GTEST_SHARD_INDEX/"
                         "GTEST_TOTAL_SHARDS are both set: GoogleTest runs each test in one of its shards and "
                         "simasio would split that test's seeds again, so some seeds would run nowhere. Set one pair.");
    return shard_spec{};  // this test runs in one GoogleTest shard only: all its seeds here
  }
  std::optional<shard_spec> chosen;
  for (const auto* pair : {&own, &test, &gtest}) {
    if (!*pair) continue;
    if (!chosen) {
      chosen = **pair;
    } else if ((*pair)->index != chosen->index || (*pair)->count != chosen->count) {
      throw config_error("simasio: " + chosen->source + " say shard " + std::to_string(chosen->index) + " of " +
                         std::to_string(chosen->count) + " but " + (*pair)->source + " say " +
                         std::to_string((*pair)->index) + " of " + std::to_string((*pair)->count) +
                         ": set one pair (or give both the same values)");
    }
  }
  return chosen.value_or(shard_spec{});
}

namespace {

// Every SIMASIO_* setting check() reads, parsed before the first seed so a
// malformed one is a config_error, never a failure charged to a seed.
struct settings {
  std::optional<std::uint64_t> seed;  // SIMASIO_SEED
  std::optional<saved_tape> tape;     // SIMASIO_TAPE, loaded
  std::string tape_path;              // its absolute path, for replay lines
  shard_spec shard;
  bool shrink_tape = false;           // the tape is a fuzzer's find: shrink it as a seed's run would be
  bool reachability = true;           // fail a sweep in which a sometimes-condition never held
  // SIMASIO_JOBS where check_options::jobs_from_environment is off (the
  // Boost.Test glue, whose assertions are not thread-safe): isolated seeds
  // run in processes of their own, where the glue may use it.
  std::optional<unsigned> isolated_jobs;
};

// SIMASIO_SWARM=0 or 1, if set.
std::optional<bool> env_swarm() {
  const auto v = detail::env_in_range("SIMASIO_SWARM", 0, 1, "0 (the fixed fault mix) or 1 (swarm testing: a mix per seed)");
  if (!v) return std::nullopt;
  return *v == 1;
}

// SIMASIO_TAPE=file: the tape's seed, its draws from the file.
std::optional<saved_tape> env_tape(world_options& opts, std::string* absolute = nullptr) {
  const auto path = detail::env_string("SIMASIO_TAPE");
  if (!path) return std::nullopt;
  saved_tape tape = load_tape(*path);
  if (absolute != nullptr) *absolute = absolute_path(*path);
  opts.replay_tape = std::make_shared<const saved_tape>(tape);
  opts.on_tape_mismatch = tape_mismatch::fail;
  // Its fault mix is on it: a tape with a swarm section was recorded under
  // swarm testing, and replays only under it.
  if (tape.find("swarm") != nullptr) opts.swarm = true;
  if (const auto policy = detail::env_string("SIMASIO_TAPE_MISMATCH")) {
    if (*policy == "fail") opts.on_tape_mismatch = tape_mismatch::fail;
    else if (*policy == "seeded") opts.on_tape_mismatch = tape_mismatch::seeded;
    else if (*policy == "polite") opts.on_tape_mismatch = tape_mismatch::polite;
    else if (*policy == "adapt") opts.on_tape_mismatch = tape_mismatch::adapt;
    else
      throw config_error("simasio: SIMASIO_TAPE_MISMATCH='" + *policy +
                         "' is not a policy: use fail (stop with an error), seeded (continue with the seed's own "
                         "draws), polite (continue with polite draws) or adapt (keep following the tape, recorded values clamped "
                         "below the new bounds)");
  }
  return tape;
}

settings read_settings(check_options& options) {
  settings out;
  detail::env_log_level();  // a bad level is an error now, not in the first seed's world
  out.seed = detail::env_u64("SIMASIO_SEED");
  if (const auto n = detail::env_in_range("SIMASIO_SEEDS", 1, UINT64_MAX, "how many seeds the sweep runs"))
    options.seeds = *n;
  if (const auto jobs = detail::env_in_range("SIMASIO_JOBS", 1, 1024, "worker threads")) {
    if (options.jobs_from_environment) options.jobs = static_cast<unsigned>(*jobs);
    out.isolated_jobs = static_cast<unsigned>(*jobs);
  }
  if (const auto iso = env_isolation()) options.isolation = *iso;
  if (const auto verify = detail::env_in_range("SIMASIO_VERIFY", 0, 1, "0 (off) or 1 (run every seed twice and compare)"))
    options.verify_determinism = *verify == 1;
  if (const auto swarm = env_swarm()) {
    options.swarm = *swarm;
    options.world.swarm = options.swarm;
  } else if (options.swarm) {
    options.world.swarm = true;
  }
  out.shard = options.shard ? *options.shard : shard_from_environment();
  out.tape = env_tape(options.world, &out.tape_path);
  if (options.jobs == 0) throw config_error("simasio: check_options::jobs must be at least 1");
  if (options.seeds == 0 && !out.seed && !out.tape)
    throw config_error("simasio: check_options::seeds is 0: the sweep would run nothing; give at least 1");
  if (options.verify_determinism && !options.world.hash_trace)
    throw config_error("simasio: verifying determinism compares trace hashes, but world_options::hash_trace is off: "
                       "turn it on (it is on by default)");
  return out;
}

// Which seeds this process runs: SIMASIO_SEED (exactly one), else the
// options' range, thinned to this process's shard.
std::vector<std::uint64_t> seeds_to_run(const check_options& options, const settings& set) {
  if (set.seed) return {*set.seed};
  const shard_spec shard = options.shard_seeds ? set.shard : shard_spec{};
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t i = shard.index; i < options.seeds; i += shard.count) {
    seeds.push_back(options.first_seed + i);
    if (options.seeds - i <= shard.count) break;  // the next step would pass the end (or wrap)
  }
  return seeds;
}

// Runs a seed twice with full traces; a different trace is a failure that
// names the first event where the runs part. Isolated runs compare their
// hashes first and carry their events across only when they differ.
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

// Minimises a failing run's choice tape toward the polite run (every draw
// 0: FIFO picks, minimum latency, no faults) while the same failure
// persists, within a budget of replays. Streams are independent, so
// zeroing one draw never moves another stream's draws: first whole
// streams go polite, in halving groups; then each stream's shortest
// failing prefix; then single deviations, in halving chunks (delta
// debugging); then, in a stream, one other value for its first deviation
// in place of the deviations after it. Replays answer draws beyond a
// stream's section, or past a divergence in it, politely.
struct shrunk {
  saved_tape tape;
  std::uint64_t original_choices = 0;
  int replays = 0;
};

// What a replay of t needs: trailing polite draws and all-polite streams
// say nothing a polite replay would not do anyway.
// The swarm section stays, one draw at least: it says the tape was
// recorded under swarm testing (and replays only under it).
void trim(saved_tape& t) {
  for (tape_stream& s : t.streams) {
    const std::size_t keep = s.key == "swarm" ? 1 : 0;
    while (s.choices.size() > keep && s.choices.back().value == 0) s.choices.pop_back();
  }
  std::erase_if(t.streams, [](const tape_stream& s) { return s.choices.empty(); });
}

std::optional<shrunk> shrink_failure(seed_runner& runner, const world_options& base, std::uint64_t seed,
                                     const std::string& signature, bool fail_on_stall, int budget) {
  run_request req{base, seed, fail_on_stall};
  req.tape = true;
  run_outcome first = runner.run(req, true);
  if (first.signature != signature) return std::nullopt;  // not reproducible: nothing to shrink
  saved_tape recorded = std::move(first.tape);
  shrunk result;
  result.original_choices = recorded.size();
  saved_tape best = std::move(recorded);
  trim(best);
  auto still_fails = [&](saved_tape candidate) {
    if (result.replays >= budget) return false;
    ++result.replays;
    run_request again = req;
    again.opts.replay_tape = std::make_shared<const saved_tape>(std::move(candidate));
    again.opts.on_tape_mismatch = tape_mismatch::adapt;
    run_outcome out = runner.run(again, true);
    if (out.signature != signature) return false;
    saved_tape got = std::move(out.tape);
    // Keep what the program actually drew: later draws may have changed.
    trim(got);
    best = std::move(got);
    return true;
  };
  // Delta debugging over n items of best: drop(candidate, first, count)
  // makes items [first, first + count) polite; a success restarts with the
  // (re-recorded) best at the same chunk size.
  auto reduce = [&](auto count, auto drop) {
    for (std::size_t chunk = std::max<std::size_t>(count() / 2, 1); chunk >= 1 && result.replays < budget;) {
      bool progressed = false;
      for (std::size_t start = 0; start < count() && result.replays < budget; start += chunk) {
        saved_tape candidate = best;
        drop(candidate, start, std::min(chunk, count() - start));
        if (still_fails(std::move(candidate))) {
          progressed = true;
          break;
        }
      }
      if (!progressed) {
        if (chunk == 1) break;
        chunk /= 2;
      }
    }
  };
  // 1. Whole streams.
  reduce([&] { return best.streams.size(); },
         [](saved_tape& c, std::size_t first, std::size_t n) {
           c.streams.erase(c.streams.begin() + static_cast<std::ptrdiff_t>(first),
                           c.streams.begin() + static_cast<std::ptrdiff_t>(first + n));
         });
  // 2. Each stream's shortest failing prefix (the rest of it polite).
  std::vector<std::string> keys;
  for (const tape_stream& t : best.streams) keys.push_back(t.key);
  for (const std::string& key : keys) {
    const tape_stream* now = best.find(key);
    std::size_t lo = 0, hi = now != nullptr ? now->choices.size() : 0;
    while (lo < hi && result.replays < budget) {
      const std::size_t mid = lo + (hi - lo) / 2;
      saved_tape candidate = best;
      for (tape_stream& t : candidate.streams)
        if (t.key == key) t.choices.resize(std::min(mid, t.choices.size()));
      if (still_fails(std::move(candidate))) {
        now = best.find(key);
        hi = now != nullptr ? std::min(mid, now->choices.size()) : 0;  // gone: the whole stream went polite
      } else {
        lo = mid + 1;
      }
    }
  }
  // 3. Single deviations, stream after stream.
  auto deviation_positions = [&] {
    std::vector<std::pair<std::size_t, std::size_t>> pos;
    for (std::size_t s = 0; s < best.streams.size(); ++s)
      for (std::size_t i = 0; i < best.streams[s].choices.size(); ++i)
        if (best.streams[s].choices[i].value != 0) pos.emplace_back(s, i);
    return pos;
  };
  reduce([&] { return static_cast<std::size_t>(best.deviations()); },
         [&](saved_tape& c, std::size_t first, std::size_t n) {
           const auto pos = deviation_positions();
           for (std::size_t k = first; k < first + n; ++k) c.streams[pos[k].first].choices[pos[k].second].value = 0;
         });
  // 4. One deviation for several: zeroing only moves a draw toward 0, so
  // picks 4, 2, 3 that put one host first never become the single pick 5
  // that does it at once. For a stream's first deviation of a small bound,
  // try every other value with the rest of the stream polite; keep what
  // fails with fewer deviations.
  for (std::size_t k = 0; k < best.streams.size() && result.replays < budget; ++k) {
    const tape_stream& t = best.streams[k];
    std::size_t first = 0;
    while (first < t.choices.size() && t.choices[first].value == 0) ++first;
    if (first == t.choices.size() || t.choices[first].bound > 16) continue;
    std::uint64_t others = 0;
    for (std::size_t i = first + 1; i < t.choices.size(); ++i) others += t.choices[i].value != 0;
    if (others == 0) continue;
    const std::string key = t.key;
    const choice at = t.choices[first];
    const std::uint64_t before = best.deviations();
    for (std::uint64_t v = 1; v < at.bound && result.replays < budget; ++v) {
      if (v == at.value) continue;
      saved_tape candidate = best;
      candidate.streams[k].choices.resize(first + 1);
      candidate.streams[k].choices[first].value = v;
      const saved_tape kept = best;
      if (still_fails(std::move(candidate))) {
        if (best.deviations() < before) break;
        best = kept;  // no simpler
      }
    }
    if (best.find(key) == nullptr) k = static_cast<std::size_t>(-1);  // the streams moved: look again from the start
  }
  best.seed = seed;
  result.tape = std::move(best);
  return result;
}

std::string artifacts_dir(const check_options& options) {
  return detail::env_string("SIMASIO_ARTIFACTS").value_or(options.artifacts_dir);
}

std::string file_stem(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out.empty() ? "scenario" : out;
}

}  // namespace

namespace {

// check() once its settings are read (fuzz_run comes here with the tape of
// a fuzzer's failing input).
check_result check_with(const std::function<void(world&)>& scenario, check_options options, const settings& set) {
  if (set.tape) {
    // Replaying a saved tape: exactly its seed; shrunk only when a fuzzer found it.
    options.first_seed = set.tape->seed;
    options.seeds = 1;
    options.shrink = options.shrink && set.shrink_tape;
    options.jobs = 1;
  }
  const std::vector<std::uint64_t> seeds =
      options.world.replay_tape ? std::vector<std::uint64_t>{options.first_seed} : seeds_to_run(options, set);
  seed_runner runner(scenario, options.isolation);
  derive_pct_horizon(runner, options.world, options.fail_on_stall);
  auto request = [&](std::uint64_t seed) { return run_request{options.world, seed, options.fail_on_stall}; };
  auto run_one = [&](std::uint64_t seed) {
    return options.verify_determinism ? run_verified(runner, request(seed)) : runner.run(request(seed));
  };

  // Seeds are handed out in order; a worker stops once its next seed lies
  // past the smallest failure found so far. Every seed before that failure
  // was handed out and finished, so the reported seed is the smallest
  // failing one whatever the thread timing.
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> first_failure{seeds.size()};
  std::mutex mutex;
  std::optional<run_outcome> failed;
  std::map<std::string, std::uint64_t> reached;
  std::map<std::string, std::uint64_t> counts;
  std::vector<std::pair<std::size_t, std::uint64_t>> hashes;  // seed index, trace hash
  auto note = [&](std::size_t i, run_outcome out) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [name, hit] : out.reached) reached[name] += hit ? 1 : 0;
    for (const auto& [what, n] : out.counts) counts[what] += n;
    hashes.emplace_back(i, out.trace_hash);
    if (out.error && i < first_failure.load()) {
      first_failure.store(i);
      failed = std::move(out);
    }
  };
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= seeds.size() || i > first_failure.load()) return;
      note(i, run_one(seeds[i]));
    }
  };
  // The first seed before the others start: under automatic isolation, a
  // scenario that spawns processes is known to need it from there on.
  if (!seeds.empty()) note(next++, run_one(seeds[0]));
  if (runner.isolated() && !options.jobs_from_environment && set.isolated_jobs) options.jobs = *set.isolated_jobs;
  const unsigned jobs = static_cast<unsigned>(std::min<std::size_t>(options.jobs, std::max<std::size_t>(seeds.size(), 1)));
  if (jobs <= 1 || (runner.isolated() && options.verify_determinism)) {
    worker();
  } else if (runner.isolated()) {
    // Isolated seeds in parallel: up to `jobs` children at once, forked
    // from this thread (a fork copies only the thread that calls it).
    detail::isolation::children pool;
    for (;;) {
      while (pool.running() < jobs && next < seeds.size() && next <= first_failure.load()) {
        pool.start(next, runner.body(request(seeds[next])));
        ++next;
      }
      if (pool.running() == 0) break;
      auto [i, outcome] = pool.wait_any();
      note(static_cast<std::size_t>(i), from_child(outcome));
    }
  } else {
    std::vector<std::thread> threads;
    threads.reserve(jobs);
    for (unsigned j = 0; j < jobs; ++j) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }
  std::sort(hashes.begin(), hashes.end());
  std::erase_if(hashes, [&](const auto& h) { return h.first > first_failure.load(); });

  const std::string name = options.name.empty() ? "scenario" : options.name;
  check_result result;
  result.reached = std::move(reached);
  result.counts = std::move(counts);
  for (const auto& [i, hash] : hashes) result.trace_hashes.emplace_back(seeds[i], hash);
  result.isolated = runner.isolated();
  if (!failed) {
    result.runs = seeds.size();
    // Reachability: a declared condition no run reached fails the sweep.
    for (const auto& [condition, hits] : result.reached) {
      if (hits != 0 || !set.reachability) continue;
      failure f;
      f.seed = seeds.empty() ? options.first_seed : seeds.front();
      f.what = "sometimes '" + condition + "' was never reached in " + std::to_string(seeds.size()) +
               " seed(s): the sweep never explored that case (more seeds, other faults, or a bug that prevents it)";
      f.type = "simasio::unreached";
      f.replay = "SIMASIO_SEEDS=" + std::to_string(options.seeds) + " " + quoted_command_line();
      if (options.print) {
        std::fprintf(stderr, "simasio: FAILED %s: %s\nsimasio: rerun: %s\n", name.c_str(), f.what.c_str(),
                     f.replay.c_str());
        std::fflush(stderr);
      }
      result.failure = std::move(f);
      break;
    }
    return result;
  }
  const std::size_t index = first_failure.load();
  result.runs = index + 1;
  failure f;
  f.seed = seeds[index];
  f.what = std::move(failed->what);
  f.type = std::move(failed->type);
  f.signature = failed->signature;
  f.time = failed->time;
  f.step = failed->step;
  const bool nondeterminism = f.type == "simasio::nondeterminism";
  const bool runaway = f.type == "simasio::runaway_error";
  // The line that reruns exactly this: the tape when one was replayed,
  // else the seed (with the self-check on, for a nondeterminism failure:
  // one run alone would pass).
  if (set.tape) {
    f.replay = "SIMASIO_TAPE=" + shell_quoted(set.tape_path);
    if (const auto policy = detail::env_string("SIMASIO_TAPE_MISMATCH")) f.replay += " SIMASIO_TAPE_MISMATCH=" + *policy;
  } else {
    f.replay = "SIMASIO_SEED=" + std::to_string(f.seed);
  }
  if (nondeterminism) f.replay += " SIMASIO_VERIFY=1";
  if (options.world.swarm) {
    if (!set.tape) f.replay += " SIMASIO_SWARM=1";  // a tape brings its mix (its swarm section)
    f.faults = failed->faults;
    if (f.faults.empty()) {  // a failure found without the run's world at hand (nondeterminism): draw it again
      world_options o = options.world;
      o.seed = f.seed;
      f.faults = world(o).faults().describe();
    }
  }
  f.replay += " " + quoted_command_line();
  if (!options.shrink) {
    f.not_shrunk = set.tape && !set.shrink_tape ? "a replayed tape is not shrunk again" : "shrinking is off";
  } else if (nondeterminism) {
    f.not_shrunk = "a nondeterministic run has no tape that replays it";
  } else if (runaway) {
    // Each try would run max_steps handlers again: minutes for nothing.
    f.not_shrunk = "a runaway is not shrunk (each try would run all " + std::to_string(options.world.max_steps) +
                   " steps again)";
  } else {
    if (auto s = shrink_failure(runner, options.world, f.seed, failed->signature, options.fail_on_stall,
                                options.shrink_budget)) {
      const std::string dir = artifacts_dir(options);
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      f.tape_path = dir + "/" + file_stem(name) + "-seed" + std::to_string(f.seed) + ".tape";
      f.shrunk_choices = s->tape.size();
      f.deviations = s->tape.deviations();
      f.original_choices = s->original_choices;
      try {
        save_tape(f.tape_path, s->tape);
      } catch (const tape_error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        f.tape_path.clear();
      }
    } else {
      f.not_shrunk = "the failure did not come back the same when the seed ran again";
    }
  }
  f.log = std::move(failed->log);
  if (options.artifacts && !nondeterminism) {
    // The failing seed once more, with its last events recorded (replay is
    // exact); a long or runaway run keeps only the last max_trace_events.
    run_request traced = request(f.seed);
    traced.opts.record_trace = true;
    traced.opts.record_trace_limit = std::max<std::size_t>(options.max_trace_events, 1);
    traced.events = true;
    const run_outcome again = runner.run(traced, true);
    const std::vector<trace_event>& events = again.events;
    const std::vector<std::string>& names = again.names;
    const std::uint64_t omitted = again.omitted;
    const std::string dir = artifacts_dir(options);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string base = dir + "/" + file_stem(name) + "-seed" + std::to_string(f.seed);
    try {
      write_json_lines(base + ".jsonl", events, names, omitted);
      write_chrome_trace(base + ".json", events, names, omitted);
      write_html_diagram(base + ".html", name + " seed " + std::to_string(f.seed) + ": " + f.what, events, names,
                         omitted);
      f.trace_path = base;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
    }
  }
  if (options.print) {
    std::fputs(failure_report(f, name).c_str(), stderr);
    std::fflush(stderr);
  }
  result.failure = std::move(f);
  return result;
}

}  // namespace

check_result check(std::function<void(world&)> scenario, check_options options) {
  const settings set = read_settings(options);
  return check_with(scenario, std::move(options), set);
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
  if (!f.tape_path.empty())
    out += "simasio: shrunk: " + std::to_string(f.original_choices) + " choices -> " + std::to_string(f.deviations) +
           " deviations; tape: " + f.tape_path + "\n";
  else if (!f.not_shrunk.empty())
    out += "simasio: not shrunk: " + f.not_shrunk + "\n";
  if (!f.trace_path.empty())
    out += "simasio: trace: " + f.trace_path + ".json (Perfetto/Chrome) and " + f.trace_path + ".html (and .jsonl)\n";
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
  if (const auto tape = env_tape(options)) seed = tape->seed;
  if (const auto swarm = env_swarm()) options.swarm = *swarm;
  seed_runner runner(scenario, env_isolation().value_or(isolation::automatic));
  derive_pct_horizon(runner, options, false);
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

// ---- fuzzer-guided exploration ------------------------------------------------

std::uint64_t fuzz_seed(const std::uint8_t* data, std::size_t size) noexcept {
  std::uint64_t seed = 0;
  for (std::size_t i = 0; i < 8 && i < size; ++i) seed |= std::uint64_t{data[i]} << (8 * i);
  return seed;
}

namespace {

check_options check_options_of(const fuzz_options& f, const world_options& world) {
  check_options c;
  c.name = f.name.empty() ? "scenario" : f.name;
  c.world = world;
  c.swarm = world.swarm;
  c.fail_on_stall = f.fail_on_stall;
  c.shrink = f.shrink;
  c.shrink_budget = f.shrink_budget;
  c.artifacts_dir = f.artifacts_dir;
  c.print = f.print;
  c.jobs = 1;
  c.jobs_from_environment = false;
  c.shard_seeds = false;
  c.isolation = f.isolation;
  return c;
}

world_options fuzz_world(const fuzz_options& f) {
  world_options o = f.world;
  o.swarm = env_swarm().value_or(f.swarm || f.world.swarm);
  o.replay_tape.reset();
  o.fuzz_input.reset();
  return o;
}

}  // namespace

std::optional<failure> fuzz_run(const std::uint8_t* data, std::size_t size,
                                const std::function<void(world&)>& scenario, const fuzz_options& options) {
  world_options o = fuzz_world(options);
  const std::uint64_t seed = fuzz_seed(data, size);
  if (size > 8) o.fuzz_input = std::make_shared<const std::vector<std::uint8_t>>(data + 8, data + size);
  // The input's run is in this process, where the fuzzer sees its coverage,
  // unless isolation is on; what follows a failure is isolated as check()'s runs are.
  seed_runner input_runner(scenario, options.isolation == isolation::on ? isolation::on : isolation::off);
  const run_outcome out = input_runner.run(run_request{o, seed, options.fail_on_stall});
  if (!out.error) return std::nullopt;
  // The run once more, recorded: its draws are a tape that replays it
  // without the input (and without the fuzzer).
  seed_runner runner(scenario, env_isolation().value_or(options.isolation));
  run_request recorded{o, seed, options.fail_on_stall};
  recorded.tape = true;
  run_outcome again = runner.run(recorded);
  saved_tape tape = std::move(again.tape);
  check_options c = check_options_of(options, o);
  // The failures fuzz_run words itself (check_with prints the ones it finds).
  auto reported = [&c](failure f) {
    if (c.print) {
      std::fputs(failure_report(f, c.name).c_str(), stderr);
      std::fflush(stderr);
    }
    return std::optional<failure>(std::move(f));
  };
  if (again.signature != out.signature) {
    failure f;
    f.seed = seed;
    f.type = "simasio::nondeterminism";
    f.what = "nondeterminism: this input failed (" + out.what + ") and then " +
             (again.error ? "failed otherwise (" + again.what + ")" : std::string("passed")) +
             " when it ran again: something outside the input decided (a wall clock, std::random_device, an "
             "unordered container, or state kept from an earlier run: a fuzzer runs every input in one process)";
    f.replay = "(none: the run does not repeat) " + quoted_command_line();
    f.time = out.time;
    f.step = out.step;
    return reported(std::move(f));
  }
  std::uint64_t h = detail::name_hash(std::string_view(reinterpret_cast<const char*>(data), size));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  const std::string dir = artifacts_dir(c);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  settings set;
  set.reachability = false;  // one run: a condition it did not reach says nothing
  set.tape_path = absolute_path(dir + "/" + file_stem(c.name) + "-fuzz-" + hex + ".tape");
  try {
    save_tape(set.tape_path, tape);
  } catch (const tape_error& e) {
    // No tape to replay: report the input's failure as it is.
    failure f;
    f.seed = seed;
    f.what = out.what;
    f.type = out.type;
    f.signature = out.signature;
    f.time = out.time;
    f.step = out.step;
    f.log = out.log;
    f.faults = out.faults;
    f.replay = "(rerun the input) " + quoted_command_line();
    f.not_shrunk = e.what();
    return reported(std::move(f));
  }
  c.world.replay_tape = std::make_shared<const saved_tape>(tape);
  c.world.on_tape_mismatch = tape_mismatch::fail;
  c.world.fuzz_input.reset();
  set.tape = std::move(tape);
  set.shrink_tape = true;
  check_result r = check_with(scenario, c, set);
  if (r.failure) return std::move(r.failure);
  // The tape holds every draw the input's run made: its replay must fail too.
  failure f;
  f.seed = seed;
  f.type = "simasio::nondeterminism";
  f.what = "nondeterminism: this input failed (" + out.what + ") but the tape of its draws (" + set.tape_path +
           ") passes: something outside the draws decided";
  f.replay = "SIMASIO_TAPE=" + shell_quoted(set.tape_path) + " " + quoted_command_line();
  return reported(std::move(f));
}

int fuzz_one_input(const std::uint8_t* data, std::size_t size, const std::function<void(world&)>& scenario,
                   const fuzz_options& options) {
  // libFuzzer probes every target with an empty input first, whatever the
  // corpus: running it would make seed 0 every fuzzing run's first.
  if (size == 0) return 0;
  static std::atomic<std::uint64_t> executions{0};
  const std::uint64_t n = ++executions;
  const std::optional<failure> f = fuzz_run(data, size, scenario, options);
  if (!f) return 0;
  std::fprintf(stderr,
               "simasio: fuzz: %s failed at execution %llu of this process; replay the run with the line above "
               "(libFuzzer keeps the input as a crash file)\n",
               options.name.empty() ? "scenario" : options.name.c_str(), static_cast<unsigned long long>(n));
  std::fflush(stderr);
  std::abort();
}

int fuzz_initialize(const std::function<void(world&)>& scenario, const fuzz_options& options) {
  if (!detail::env_string("SIMASIO_TAPE")) return 0;
  check_options c = check_options_of(options, fuzz_world(options));
  settings set = read_settings(c);
  set.reachability = false;  // one run: a condition it did not reach says nothing
  const check_result r = check_with(scenario, c, set);
  if (r.ok()) std::fprintf(stderr, "simasio: the tape's run passes\n");
  std::fflush(stderr);
  std::exit(r.ok() ? 0 : 1);
}

}  // namespace simasio
