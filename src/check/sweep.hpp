// sweep.hpp — what check()'s parts share: one seed's run and its outcome,
// where runs happen (this process or forked children), the settings a sweep
// reads from the environment, shrinking, and the replay line (not installed)
//
// check.cpp runs the sweep and words its failure; runs.cpp runs one seed
// (in this process or a child) and checks determinism; settings.cpp reads
// SIMASIO_* and shards, and writes the command line that reruns a seed;
// shrink.cpp minimises a failing tape; progress.cpp draws a sweep's live
// line; fuzz.cpp is the fuzzer's entry.
#ifndef SIMASIO_SRC_CHECK_SWEEP_HPP
#define SIMASIO_SRC_CHECK_SWEEP_HPP

#include <simasio/check/check.hpp>
#include <simasio/random/tape_file.hpp>
#include <simasio/trace/trace.hpp>
#include <simasio/world.hpp>

#include "isolation.hpp"

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace simasio::check_impl {

// ---- one seed's run (runs.cpp) ------------------------------------------------

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
  long peak_rss_kib = 0;         // a run killed in a child: that child's peak resident memory
  bool sigkill = false;          // its child died of SIGKILL (not the watchdog's)
  std::map<std::string, std::uint64_t> counts;  // count_in_run
  // Kept as run_request asked:
  std::vector<trace_event> events;
  std::vector<std::uint64_t> hashes;  // the rolling hash after each of events
  std::vector<std::string> names;
  trace_annotations notes;  // packet labels and log lines of a recorded run
  std::uint64_t omitted = 0;
  saved_tape tape;
};


// The counts of the run on this thread (count_in_run), or null.
extern thread_local std::map<std::string, std::uint64_t>* run_counts;

// What became of a run in a child: its message, or its death (hung: it
// outlived a timeout of @p timeout_seconds).
run_outcome from_child(const detail::isolation::child_outcome& c, std::uint64_t timeout_seconds = 0);

// A run whose child was killed with SIGKILL, not by the run itself as far as
// anyone can tell (the kernel's OOM killer, a CI runner's memory limit, a
// user's kill -9): runs it once more. If the second run passes, says so on
// stderr and returns it; otherwise returns the failure, saying whether the
// kill came again.
run_outcome settle_kill(class seed_runner& runner, const run_request& req, run_outcome killed);

// Whether a child's outcome was a SIGKILL its run did not announce.
bool killed_from_outside(const run_outcome& o);

// One run in this process. With stop_at_spawn (automatic isolation), the
// run stops at its first host::spawn and says it needs a process of its own.
run_outcome run_seed(const std::function<void(world&)>& scenario, const run_request& req, bool stop_at_spawn);

// An outcome as bytes, for a seed that ran in a process of its own.
std::string encode(const run_outcome& o);

// SIMASIO_ISOLATION=0, 1 or auto, if set.
std::optional<isolation> env_isolation();

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
    run_outcome out = in_child(req, quiet);
    return killed_from_outside(out) ? settle_kill(*this, req, std::move(out)) : out;
  }

  // One run in a child, as it came back (no second run for a SIGKILL).
  run_outcome in_child(const run_request& req, bool quiet) {
    return from_child(detail::isolation::run_in_child(body(req), quiet, timeout_), timeout_seconds());
  }

  // Wall-clock time a child may run before it is taken for hung (0: no limit).
  void set_timeout(detail::isolation::timeout t) noexcept { timeout_ = t; }
  detail::isolation::timeout timeout() const noexcept { return timeout_; }
  std::uint64_t timeout_seconds() const noexcept { return static_cast<std::uint64_t>(timeout_.count() / 1000); }

  // Whether runs go to children (automatic: once a run spawned a process).
  bool isolated() const noexcept { return mode_.load() == isolation::on; }
  // What a child runs for req.
  detail::isolation::child_body body(const run_request& req) const {
    return [this, req] { return encode(run_seed(scenario_, req, false)); };
  }

 private:
  const std::function<void(world&)>& scenario_;
  std::atomic<isolation> mode_;  // automatic until a run spawns; worker threads read it
  detail::isolation::timeout timeout_{0};
};

// PCT's horizon, when world_options::pct_horizon is 0: SIMASIO_PCT_HORIZON,
// or the step count of the scenario's seed 0 under random_walk (so every
// seed, alone or in a sweep, gets the same).
void derive_pct_horizon(seed_runner& runner, world_options& opts, bool fail_on_stall);

// Runs a seed twice with full traces; a different trace is a failure that
// names the first event where the runs part.
run_outcome run_verified(seed_runner& runner, run_request req);

// ---- settings, shards and replay lines (settings.cpp) ----------------------------

// Every SIMASIO_* setting check() reads, parsed before the first seed so a
// malformed one is a config_error, never a failure charged to a seed.
struct settings {
  std::optional<std::uint64_t> seed;  // SIMASIO_SEED
  std::optional<saved_tape> tape;     // SIMASIO_TAPE, loaded
  std::string tape_path;              // its absolute path, for replay lines
  shard_spec shard;
  bool shrink_tape = false;           // the tape is a fuzzer's find: shrink it as a seed's run would be
  bool reachability = true;           // fail a sweep in which a sometimes-condition never held
  std::optional<std::uint64_t> compare_seed;  // SIMASIO_COMPARE_SEED: a seed to put beside SIMASIO_SEED's
  // SIMASIO_JOBS where check_options::jobs_from_environment is off (the
  // Boost.Test glue, whose assertions are not thread-safe): isolated seeds
  // run in processes of their own, where the glue may use it.
  std::optional<unsigned> isolated_jobs;
};

// SIMASIO_SWARM=0 or 1, if set.
std::optional<bool> env_swarm();

// SIMASIO_TAPE_MISMATCH, if set. @throws config_error for an unknown policy.
std::optional<tape_mismatch> env_tape_mismatch();

// SIMASIO_TAPE=file: the tape's seed, its draws from the file.
std::optional<saved_tape> env_tape(world_options& opts, std::string* absolute = nullptr);

// Every setting check() reads, into options and the returned settings.
settings read_settings(check_options& options);

// Which seeds this process runs: SIMASIO_SEED (exactly one), else the
// options' range, thinned to this process's shard.
std::vector<std::uint64_t> seeds_to_run(const check_options& options, const settings& set);

// @p path made absolute and normal (as it is when that fails), so a line
// that names it works from any directory.
std::string absolute_path(const std::string& path);

// One shell word: as it is when plain, else in single quotes.
std::string shell_quoted(const std::string& arg);

// This program's command line, quoted for a shell, its program absolute.
std::string quoted_command_line();

// Where failure artifacts go (SIMASIO_ARTIFACTS, else the options').
std::string artifacts_dir(const check_options& options);

// A scenario's name as a file name.
std::string file_stem(const std::string& name);

// Where a scenario's artifacts go, as a path prefix ("<dir>/<file_stem>"),
// the directory created if missing. @throws artifact_error when it cannot be.
std::string artifact_stem(const check_options& options, const std::string& name);

// ---- shrinking (shrink.cpp) -------------------------------------------------------

class progress_line;

struct shrunk {
  saved_tape tape;
  std::uint64_t original_choices = 0;
  int replays = 0;
};

// Minimises the failing run of seed's tape toward the polite run while a
// failure with the same signature persists, within budget replays; nothing
// when the seed does not fail the same way again.
std::optional<shrunk> shrink_failure(seed_runner& runner, const world_options& base, std::uint64_t seed,
                                     const std::string& signature, bool fail_on_stall, int budget,
                                     progress_line* progress = nullptr);

// ---- the sweep (check.cpp) --------------------------------------------------------

// check() once its settings are read (fuzz_run comes here with the tape of
// a fuzzer's failing input).
check_result check_with(const std::function<void(world&)>& scenario, check_options options, const settings& set);

}  // namespace simasio::check_impl

#endif  // SIMASIO_SRC_CHECK_SWEEP_HPP
