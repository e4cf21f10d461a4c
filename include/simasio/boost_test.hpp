// simasio/boost_test.hpp — seed sweeps as Boost.Test cases
#ifndef SIMASIO_BOOST_TEST_HPP
#define SIMASIO_BOOST_TEST_HPP

#include <simasio/check/check.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <boost/test/results_collector.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace simasio::boost_test {

/// Thrown inside a seed's run when a Boost.Test assertion of the body failed
/// during it: that makes the seed a failing one.
class assertion_failed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `--simasio-seed=N` after `--` on the test program's command line
/// (Boost.Test passes what follows `--` to the tests untouched).
/// @throws config_error for a malformed value or an unknown --simasio- option.
inline std::optional<std::uint64_t> seed_argument() {
  auto& suite = boost::unit_test::framework::master_test_suite();
  std::optional<std::uint64_t> seed;
  for (int i = 1; i < suite.argc; ++i)
    if (const auto s = detail::seed_argument(suite.argv[i], "the test program understands --simasio-seed=N (after --)"))
      seed = s;
  return seed;
}

/// Runs one SIMASIO_TEST_CASE: a sweep of @p seeds seeds through
/// simasio::check, one world each. Boost.Test assertions inside the body
/// are counted per seed, so a failing BOOST_TEST makes that seed fail. A
/// failure stops the sweep, is shrunk, and is reported through Boost.Test
/// (BOOST_ERROR) with the lines of DESIGN.md §6, failing the case.
/// Runs serially (Boost.Test's assertions are not thread-safe).
inline void run_case(std::uint64_t seeds, void (*body)(simasio::world&)) {
  const auto& tc = boost::unit_test::framework::current_test_case();
  const std::string name = tc.full_name();
  check_options opts;
  opts.seeds = seeds;
  opts.name = name;
  opts.print = false;
  opts.jobs = 1;
  if (const auto seed = seed_argument()) {
    // One seed, to look at: stream its logs (unless SIMASIO_LOG says otherwise).
    opts.first_seed = *seed;
    opts.seeds = 1;
    ::setenv("SIMASIO_LOG", "debug", 0);
  }
  const auto id = tc.p_id;
  auto scenario = [&](simasio::world& w) {
    const auto before = boost::unit_test::results_collector.results(id).p_assertions_failed.get();
    body(w);
    const auto after = boost::unit_test::results_collector.results(id).p_assertions_failed.get();
    if (after > before)
      throw assertion_failed(std::to_string(after - before) + " Boost.Test assertion(s) failed in this seed (see above)");
  };
  const check_result r = check(scenario, opts);
  if (r.ok()) {
    BOOST_TEST_MESSAGE("simasio: " << name << ": " << r.runs << " seed(s) passed");
    return;
  }
  failure f = *r.failure;
  // A replay line that runs just this case, on just this seed.
  f.replay = "SIMASIO_SEED=" + std::to_string(f.seed) + " " + command_line();
  if (f.replay.find("--run_test=") == std::string::npos) f.replay += " --run_test=" + name;
  BOOST_ERROR(failure_report(f, name));
}

}  // namespace simasio::boost_test

/// Declares a Boost.Test case that sweeps @p seeds seeds; the body that
/// follows sees `simasio::world& world`, seeded for the run:
/// @code
/// SIMASIO_TEST_CASE(raft_never_elects_two_leaders, 1000) {
///   auto& a = world.add_host("a"); ...
/// }
/// @endcode
/// SIMASIO_SEED=N (or `-- --simasio-seed=N`) runs exactly seed N,
/// SIMASIO_SEEDS=N sets how many, SIMASIO_TAPE replays a saved tape.
/// Boost.Test decorators may follow the seed count, e.g.
/// `*boost::unit_test::disabled() * boost::unit_test::label("slow")`.
#define SIMASIO_TEST_CASE(name, seeds, ...)                                                \
  static void name##_simasio_body(::simasio::world& world);                               \
  BOOST_AUTO_TEST_CASE(name __VA_OPT__(, ) __VA_ARGS__) {                                  \
    ::simasio::boost_test::run_case((seeds), &name##_simasio_body);                        \
  }                                                                                        \
  static void name##_simasio_body([[maybe_unused]] ::simasio::world& world)

#endif  // SIMASIO_BOOST_TEST_HPP
