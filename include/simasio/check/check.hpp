// simasio/check/check.hpp — sweeping seeds, reporting the first failure, replaying it
#ifndef SIMASIO_CHECK_CHECK_HPP
#define SIMASIO_CHECK_CHECK_HPP

#include <simasio/world_options.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace simasio {

class world;

/// A process's share of every sweep: shard `index` of `count` runs the
/// seeds first_seed + i whose i % count == index, so shards 0..count-1
/// together run each seed exactly once (README "Sharding").
struct shard_spec {
  std::uint64_t index = 0;  ///< this shard, from 0
  std::uint64_t count = 1;  ///< how many shards
  std::string source;       ///< which variables said so ("" when unsharded)
};

/// The shard of this process by the README's rule: SIMASIO_SHARD_INDEX/
/// SIMASIO_SHARD_COUNT, TEST_SHARD_INDEX/TEST_TOTAL_SHARDS (CTest, Bazel),
/// GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS. Inside a running GoogleTest test
/// GoogleTest's variables shard its tests: that test runs in one shard
/// only, so a sweep inside an ordinary TEST runs all its seeds there
/// (SIMASIO_TEST splits its seeds itself). @throws config_error for a malformed,
/// half-set or contradictory pair.
shard_spec shard_from_environment();

namespace detail {
// True while GoogleTest runs a test on this thread (GoogleTest then owns
// the GTEST_* variables: they gave that test to this shard).
bool googletest_running_a_test() noexcept;
// One pair of shard variables (both or neither). @throws config_error.
std::optional<shard_spec> shard_pair(const char* index_var, const char* count_var);
}  // namespace detail

/// Whether check() runs each seed in a process of its own (README, "Seed
/// isolation"). An isolated seed runs in a child forked from the test
/// program, which runs no seed itself: every seed starts from the program
/// as it was before the sweep, whatever an earlier seed did to C globals,
/// libraries' one-time state or the heap; and a seed that kills its process
/// (abort, a failed assert, SIGSEGV, std::terminate) is that seed's failure,
/// with the signal named, while the test program goes on. What the scenario
/// writes into the test program's memory stays in the child: use the
/// check_result (failure, trace_hashes, reached) to learn what happened.
enum class isolation {
  /// Isolate a scenario that starts simulated processes: seeds run in the
  /// test program until one calls host::spawn (or spawn_main); that run
  /// stops there, before any process code ran, and runs again in a child,
  /// as every later run does. A scenario that never spawns runs as with off.
  automatic,
  on,   ///< every run (seeds, shrinking, replay, artifacts) in a forked child
  off,  ///< every run in the test program itself
};

/// How check() sweeps seeds.
struct check_options {
  std::uint64_t first_seed = 0;            ///< first seed of the sweep
  std::uint64_t seeds = 100;               ///< how many seeds (SIMASIO_SEEDS overrides)
  unsigned jobs = 1;                       ///< worker threads, one world each (SIMASIO_JOBS overrides)
  bool shrink = true;                      ///< minimise a failing seed's choice tape, save it under artifacts_dir
  std::string artifacts_dir = ".simasio";  ///< where failure artifacts go (SIMASIO_ARTIFACTS overrides)
  int shrink_budget = 300;                 ///< replays shrinking may spend
  bool artifacts = true;                   ///< write the failing seed's trace (.jsonl, .json, .html) under artifacts_dir
  std::string name;                        ///< shown in the FAILED line; default "scenario"
  world_options world{};                   ///< template for every run's world; its seed is replaced
  bool fail_on_stall = false;              ///< a run that ends stalled (a deadlock) fails
  bool verify_determinism = false;         ///< run every seed twice; a different trace fails (SIMASIO_VERIFY=1)
  bool shard_seeds = true;                 ///< split the seeds among shards (README "Sharding")
  std::optional<shard_spec> shard{};       ///< this process's shard; unset: shard_from_environment()
  bool jobs_from_environment = true;       ///< SIMASIO_JOBS may set jobs (off in the Boost.Test glue)
  std::size_t max_trace_events = 100'000;  ///< trace artifacts keep at most the last this many events
  bool print = true;                       ///< print the failure lines on stderr
  /// How the sweep shows itself on stderr: on a terminal (not under a CI
  /// system's variables), a live line of seeds done, seeds/s, time left and
  /// failures, then a one-line summary; elsewhere the summary alone, and only
  /// when print is on. SIMASIO_PROGRESS=0 turns both off, =1 draws the live
  /// line even off a terminal.
  bool progress = true;
  /// Swarm testing: each seed draws its own fault mix (world_options::swarm,
  /// see fault_mix); SIMASIO_SWARM=1 or 0 overrides.
  bool swarm = false;
  /// Whether each seed runs in a process of its own; SIMASIO_ISOLATION=1,
  /// 0 or auto overrides (see simasio::isolation).
  simasio::isolation isolation = isolation::automatic;
  /// Wall-clock time a seed's own process (isolation) may run before it is
  /// taken for hung: it is then killed and reported as that seed's failure
  /// ("simasio::hung", with the virtual time and step it had reached), and
  /// the sweep goes on. 0 for no limit; SIMASIO_SEED_TIMEOUT=seconds overrides.
  std::chrono::seconds seed_timeout{120};
};

/// The first failing seed of a sweep.
struct failure {
  std::uint64_t seed = 0;  ///< the failing seed
  std::string what;    ///< the exception's what() (or the invariant's message)
  std::string replay;  ///< the one pasteable line that reruns exactly this seed
  /// Artifacts under check_options::artifacts_dir, empty when none was
  /// written: tape_path is the shrunk choice tape, trace_path the trace
  /// files' path without their extensions (.jsonl, .json, .html).
  ///@{
  std::string tape_path, trace_path;
  ///@}
  duration time{0};        ///< virtual time of the failure
  std::uint64_t step = 0;  ///< handlers run before the failure
  std::string type;        ///< the exception's type, demangled
  std::uint64_t original_choices = 0;  ///< draws of the failing run
  std::uint64_t shrunk_choices = 0;    ///< draws kept on the shrunk tape
  std::uint64_t deviations = 0;        ///< non-polite draws on the shrunk tape
  std::vector<std::string> log;        ///< the failing run's last log lines (simasio::log)
  std::string signature;               ///< what shrinking keeps equal: type, and message with numbers masked
  std::string not_shrunk;              ///< why the failure was not shrunk, when it was not
  /// The page that puts the shrunk tape's run beside the seed's, event by
  /// event, and marks where they part ("" when there is none).
  std::string comparison_path;
  std::string faults;                  ///< swarm testing: the seed's drawn fault mix (fault_mix::describe)
  /// Artifacts that could not be written whole, each with the file, its
  /// directory and the system's reason (their partial files are removed);
  /// failure_report prints them after the FAILED and replay lines.
  std::vector<std::string> artifact_problems{};
};

/// What makes two failures "the same" while shrinking: the exception's
/// type and its message with every number masked ("stalled at t=#.#s"),
/// so times, steps and counts that shrinking changes do not matter.
std::string failure_signature(const std::string& type, const std::string& what);

/// What check() found.
struct check_result {
  /// How many of this process's seeds (its shard's) the sweep counts: in
  /// seed order, those up to and including the failing one; all of them
  /// when none failed.
  std::uint64_t runs = 0;
  std::optional<simasio::failure> failure;  ///< the first failing seed, if one failed
  /// For each declared world::sometimes condition: in how many runs it held.
  std::map<std::string, std::uint64_t> reached;
  /// Each seed that ran and its world's trace_hash(), in seed order (up to
  /// and including a failing one).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> trace_hashes;
  /// Whether the seeds ran in processes of their own (check_options::isolation).
  bool isolated = false;
  /// What the seeds counted with simasio::count_in_run, summed over the runs.
  std::map<std::string, std::uint64_t> counts;
  /// True when no seed failed.
  bool ok() const noexcept { return !failure.has_value(); }
};

/// Thrown by replay() when the replayed run fails; what() holds the
/// original text, and the original exception is nested
/// (std::rethrow_if_nested).
class scenario_failure : public std::runtime_error {
 public:
  /// The failure of the replayed run of @p seed.
  /// @param what the message what() returns.
  /// @param seed the seed that ran.
  scenario_failure(const std::string& what, std::uint64_t seed) : std::runtime_error(what), seed_(seed) {}
  /// The seed whose run failed.
  std::uint64_t seed() const noexcept { return seed_; }

 private:
  std::uint64_t seed_;
};

/// Runs @p scenario on fresh worlds with seeds first_seed, first_seed+1, ...
/// and stops at the first failure: an exception from the scenario or any
/// handler, a violated world::always invariant, a runaway run (max_steps),
/// or (with fail_on_stall) a stall. Prints
/// `simasio: FAILED <name> seed=N t=... step=...: <what>` and the replay
/// line on stderr.
///
/// With jobs > 1, worker threads run seeds in parallel (one world each);
/// the reported failure is still the smallest failing seed, whatever the
/// timing. A scenario must then not share mutable state between runs.
///
/// SIMASIO_SEED=N runs exactly seed N; SIMASIO_SEEDS=N sets how many;
/// SIMASIO_JOBS=N the worker threads; SIMASIO_VERIFY=1 runs every seed
/// twice and reports the first trace event where the runs differ. The
/// shard (shard_from_environment) splits the seeds: shard k of n runs
/// every n-th seed from the k-th. Every setting is read before the first
/// seed runs.
/// @throws config_error for a malformed or inconsistent setting.
check_result check(std::function<void(world&)> scenario, check_options options = {});

/// The failure lines of DESIGN.md §6 ("simasio: FAILED <name> seed=...",
/// "simasio: replay: ...", and "simasio: shrunk: ..." when a tape was
/// saved), each ending in a newline.
std::string failure_report(const failure& f, const std::string& name);

/// The command line of this process, shell-quoted (for replay lines).
std::string command_line();

/// Fault injection points in your code: false outside a simulation; inside,
/// each site is enabled for a seed with world_options::buggify_sites, and an
/// enabled site is true at a call with world_options::buggify_fires.
/// @code
/// if (simasio::buggify("slow disk")) co_await sleep(2s);
/// @endcode
bool buggify(std::string_view site);

/// Counts one @p what in the run of the calling thread's sweep: check()
/// sums the counts of every seed into check_result::counts, also from
/// seeds that ran in processes of their own (where a counter in the test
/// program's memory would stay at 0). Outside a sweep it does nothing.
void count_in_run(std::string_view what);

/// Runs exactly @p seed (isolated as SIMASIO_ISOLATION says; automatic by
/// default). @throws scenario_failure if the run fails.
void replay(std::function<void(world&)> scenario, std::uint64_t seed, world_options options = {});

}  // namespace simasio

#endif  // SIMASIO_CHECK_CHECK_HPP
