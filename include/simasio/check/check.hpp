// simasio/check/check.hpp — sweeping seeds, reporting the first failure, replaying it
#ifndef SIMASIO_CHECK_CHECK_HPP
#define SIMASIO_CHECK_CHECK_HPP

#include <simasio/world_options.hpp>

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
  bool shard_seeds = true;                 ///< split the seeds by the test runner's sharding variables
  bool print = true;                       ///< print the failure lines on stderr
};

/// The first failing seed of a sweep.
struct failure {
  std::uint64_t seed = 0;
  std::string what;    ///< the exception's what() (or the invariant's message)
  std::string replay;  ///< the one pasteable line that reruns exactly this seed
  std::string tape_path, trace_path;
  duration time{0};        ///< virtual time of the failure
  std::uint64_t step = 0;  ///< handlers run before the failure
  std::string type;        ///< the exception's type, demangled
  std::uint64_t original_choices = 0;  ///< draws of the failing run
  std::uint64_t shrunk_choices = 0;    ///< draws kept on the shrunk tape
  std::uint64_t deviations = 0;        ///< non-polite draws on the shrunk tape
  std::vector<std::string> log;        ///< the failing run's last log lines (simasio::log)
};

struct check_result {
  std::uint64_t runs = 0;
  std::optional<simasio::failure> failure;
  /// For each declared world::sometimes condition: in how many runs it held.
  std::map<std::string, std::uint64_t> reached;
  bool ok() const noexcept { return !failure.has_value(); }
};

/// Thrown by replay() when the replayed run fails; what() holds the
/// original text, and the original exception is nested
/// (std::rethrow_if_nested).
class scenario_failure : public std::runtime_error {
 public:
  scenario_failure(const std::string& what, std::uint64_t seed) : std::runtime_error(what), seed_(seed) {}
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
/// twice and reports the first trace event where the runs differ. Test
/// runners' sharding variables (TEST_SHARD_INDEX/TEST_TOTAL_SHARDS, with
/// TEST_SHARD_STATUS_FILE, or GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS) split
/// the seeds: shard k of n runs every n-th seed from the k-th.
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

/// Runs exactly @p seed. @throws scenario_failure if the run fails.
void replay(std::function<void(world&)> scenario, std::uint64_t seed, world_options options = {});

}  // namespace simasio

#endif  // SIMASIO_CHECK_CHECK_HPP
