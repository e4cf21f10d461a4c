// simasio/check/fuzz.hpp — fuzzer-guided exploration: a fuzzer's bytes as the choice tape
//
// A libFuzzer program whose input bytes decide the run's seed and its
// first draws, so coverage of your code steers schedules and faults:
// @code
// #include <simasio/check/fuzz.hpp>
// SIMASIO_FUZZ_SCENARIO(raft_election) {  // sees `simasio::world& world`
//   auto& a = world.add_host("a"); ...
// }
// @endcode
// Build it with clang and -fsanitize=fuzzer (CMake:
// simasio_add_fuzz_scenario), run it as any libFuzzer program. A failing
// input prints simasio's failure lines, saves the run as a choice tape and
// aborts, so libFuzzer keeps the input; the printed line
// `SIMASIO_TAPE=<tape> <program>` replays the run (in this program, or in
// a test that runs the same scenario under check()).
#ifndef SIMASIO_CHECK_FUZZ_HPP
#define SIMASIO_CHECK_FUZZ_HPP

#include <simasio/check/check.hpp>
#include <simasio/world.hpp>
#include <simasio/world_options.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace simasio {

/// How a fuzz target runs its scenario.
struct fuzz_options {
  std::string name;                        ///< shown in the failure lines and file names; default "scenario"
  world_options world{};                   ///< template for every run's world; its seed and draws come from the input
  bool swarm = false;                      ///< the fault mix comes from the input too (SIMASIO_SWARM=1 or 0 overrides)
  bool fail_on_stall = false;              ///< a run that ends stalled (a deadlock) fails
  bool shrink = true;                      ///< minimise the failing run's tape as check() does for a seed
  int shrink_budget = 300;                 ///< replays shrinking may spend
  std::string artifacts_dir = ".simasio";  ///< where tapes and traces go (SIMASIO_ARTIFACTS overrides)
  bool print = true;                       ///< print the failure lines on stderr
  /// The input's own run stays in the fuzzer's process (its coverage guides
  /// the fuzzer) unless this is isolation::on; the runs after a failure
  /// (again, shrinking, artifacts) are isolated as check()'s are.
  /// SIMASIO_ISOLATION overrides for those.
  simasio::isolation isolation = isolation::automatic;
};

/// The seed an input runs with: its first 8 bytes, little-endian (missing
/// bytes count as 0).
///
/// The rest of the input answers the run's draws in the order the program
/// makes them, whatever their stream: a draw below a bound up to 256 takes
/// one byte, a larger bound two, as the top of a fraction of the bound
/// (byte 0 is the polite choice: FIFO pick, minimum latency, no fault).
/// Past the input's end, draws are the seed's own, so the first mutations
/// behave like random seeds and longer inputs steer more of the run.
std::uint64_t fuzz_seed(const std::uint8_t* data, std::size_t size) noexcept;

/// Runs @p scenario once on this input. A failing run is recorded as a
/// choice tape under artifacts_dir (`<name>-fuzz-<hash>.tape`), shrunk as
/// check() shrinks a seed's run, and reported with check()'s lines, the
/// replay line being `SIMASIO_TAPE=<tape> <this command>`. An input that
/// fails and then does not fail the same way when it runs again is a
/// nondeterminism failure (state kept between runs: a fuzzer runs every
/// input in one process). Returns the failure, or nothing.
std::optional<failure> fuzz_run(const std::uint8_t* data, std::size_t size,
                                 const std::function<void(world&)>& scenario, const fuzz_options& options = {});

/// libFuzzer's LLVMFuzzerTestOneInput: fuzz_run, then on a failure a line
/// saying which execution of this process it was, and std::abort() (so
/// libFuzzer stops and keeps the input as `crash-<sha1>`). The empty input,
/// which libFuzzer runs first as a probe whatever the corpus, runs nothing
/// (fuzz_run runs it as seed 0).
int fuzz_one_input(const std::uint8_t* data, std::size_t size, const std::function<void(world&)>& scenario,
                   const fuzz_options& options = {});

/// libFuzzer's LLVMFuzzerInitialize: with SIMASIO_TAPE set, replays that
/// tape under check() (its failure lines, trace and log) and exits, 0 when
/// the run passes and 1 when it fails; otherwise returns 0 and fuzzing
/// starts.
int fuzz_initialize(const std::function<void(world&)>& scenario, const fuzz_options& options = {});

}  // namespace simasio

/// Defines a libFuzzer program's entry points around the body that
/// follows, which sees `simasio::world& world`. The second form takes
/// fuzz_options: `SIMASIO_FUZZ_SCENARIO_WITH(name, my_options())`.
#define SIMASIO_FUZZ_SCENARIO(id) SIMASIO_FUZZ_SCENARIO_WITH(id, ::simasio::fuzz_options{})

#define SIMASIO_FUZZ_SCENARIO_WITH(id, ...)                                                                      \
  static void id##_simasio_fuzz_body(::simasio::world& world);                                                   \
  static const ::simasio::fuzz_options& id##_simasio_fuzz_options() {                                            \
    static const ::simasio::fuzz_options simasio_fuzz_options_ = [] {                                            \
      ::simasio::fuzz_options simasio_fuzz_o_ = __VA_ARGS__;                                                     \
      if (simasio_fuzz_o_.name.empty()) simasio_fuzz_o_.name = #id;                                              \
      return simasio_fuzz_o_;                                                                                    \
    }();                                                                                                         \
    return simasio_fuzz_options_;                                                                                \
  }                                                                                                              \
  extern "C" int LLVMFuzzerInitialize(int*, char***) {                                                           \
    return ::simasio::fuzz_initialize(&id##_simasio_fuzz_body, id##_simasio_fuzz_options());                     \
  }                                                                                                              \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {                            \
    return ::simasio::fuzz_one_input(data, size, &id##_simasio_fuzz_body, id##_simasio_fuzz_options());          \
  }                                                                                                              \
  static void id##_simasio_fuzz_body([[maybe_unused]] ::simasio::world& world)

#endif  // SIMASIO_CHECK_FUZZ_HPP
