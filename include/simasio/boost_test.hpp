// simasio/boost_test.hpp — seed sweeps as Boost.Test cases
#ifndef SIMASIO_BOOST_TEST_HPP
#define SIMASIO_BOOST_TEST_HPP

#include <simasio/check/check.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <boost/test/execution_monitor.hpp>
#include <boost/test/framework.hpp>
#include <boost/test/results_collector.hpp>
#include <boost/test/tree/observer.hpp>
#include <boost/test/unit_test_log.hpp>
#include <boost/test/unit_test_monitor.hpp>
#include <boost/test/unit_test.hpp>
#include <boost/preprocessor/cat.hpp>
#include <boost/preprocessor/facilities/empty.hpp>
#include <boost/preprocessor/facilities/overload.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <iterator>
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

namespace detail_glue {

// Counts failed assertions in place of Boost.Test's results collector.
class assertion_counter final : public boost::unit_test::test_observer {
 public:
  void assertion_result(boost::unit_test::assertion_result ar) override {
    if (ar == boost::unit_test::AR_FAILED) ++failed;
  }
  int priority() override { return 0; }
  std::uint64_t failed = 0;
};

// While it lives, Boost.Test neither prints nor counts assertions: a sweep
// runs a failing seed several times (sweep, shrinking, artifacts), and its
// assertions must show once, from one run of their own.
class quiet_sweep {
 public:
  quiet_sweep() {
    using namespace boost::unit_test;
    for (std::size_t i = 0; i < std::size(formats); ++i)
      levels_[i] = unit_test_log.set_threshold_level(formats[i], log_nothing);
    framework::deregister_observer(results_collector);
    framework::register_observer(counter);
  }
  ~quiet_sweep() {
    using namespace boost::unit_test;
    framework::deregister_observer(counter);
    framework::register_observer(results_collector);
    for (std::size_t i = 0; i < std::size(formats); ++i)
      if (levels_[i] != invalid_log_level) unit_test_log.set_threshold_level(formats[i], levels_[i]);
  }
  quiet_sweep(const quiet_sweep&) = delete;
  quiet_sweep& operator=(const quiet_sweep&) = delete;

  assertion_counter counter;

 private:
  static constexpr boost::unit_test::output_format formats[] = {
      boost::unit_test::OF_CLF, boost::unit_test::OF_XML, boost::unit_test::OF_JUNIT,
      boost::unit_test::OF_CUSTOM_LOGGER};
  boost::unit_test::log_level levels_[std::size(formats)]{};
};

// SIMASIO_JOBS asks for threads; Boost.Test's assertions are not
// thread-safe, so the glue runs seeds on the test's thread (isolated seeds,
// each in a process of its own, may run SIMASIO_JOBS at once) and says so once.
inline void note_jobs_ignored(const check_result& r) {
  static bool said = false;
  const auto jobs = detail::env_in_range("SIMASIO_JOBS", 1, 1024, "worker threads");
  if (said || r.isolated || !jobs || *jobs <= 1) return;
  said = true;
  std::fprintf(stderr,
               "simasio: SIMASIO_JOBS=%llu: SIMASIO_TEST_CASE ran its seeds on the test's own thread, because "
               "Boost.Test's assertions are not thread-safe (a failure could be charged to another seed); isolated "
               "seeds (SIMASIO_ISOLATION=1) run SIMASIO_JOBS processes at once, or shard the sweep: "
               "simasio_add_sweep(... SHARDS n) and ctest -j\n",
               static_cast<unsigned long long>(*jobs));
}

}  // namespace detail_glue

/// Runs one SIMASIO_TEST_CASE: a sweep of @p seeds seeds through
/// simasio::check, one world each. Boost.Test assertions inside the body
/// are counted per seed, so a failing BOOST_TEST makes that seed fail. A
/// failure stops the sweep and is shrunk; then the failing seed runs once
/// more with Boost.Test listening, so its assertions show (and count)
/// once, followed by the lines of DESIGN.md §6 (BOOST_ERROR).
/// Runs serially (Boost.Test's assertions are not thread-safe): SIMASIO_JOBS
/// is not used here, and a note says so, unless the seeds are isolated
/// (each in a process of its own, which may run side by side).
inline void run_case(std::uint64_t seeds, void (*body)(simasio::world&)) {
  const auto& tc = boost::unit_test::framework::current_test_case();
  const std::string name = tc.full_name();
  check_options opts;
  opts.seeds = seeds;
  opts.name = name;
  opts.print = false;
  opts.jobs = 1;
  opts.jobs_from_environment = false;
  if (const auto seed = seed_argument()) {
    // One seed, to look at: stream its logs (unless SIMASIO_LOG says otherwise).
    opts.first_seed = *seed;
    opts.seeds = 1;
    opts.shard_seeds = false;  // that seed, whatever shard this process is
    ::setenv("SIMASIO_LOG", "debug", 0);
  }
  std::optional<check_result> r;
  std::exception_ptr error;
  {
    detail_glue::quiet_sweep quiet;
    auto scenario = [&](simasio::world& w) {
      const std::uint64_t before = quiet.counter.failed;
      bool aborted = false;
      try {
        body(w);
      } catch (const boost::execution_aborted&) {
        aborted = true;  // a failed BOOST_REQUIRE: counted below
      }
      const std::uint64_t failed = quiet.counter.failed - before;
      if (failed > 0 || aborted)
        throw assertion_failed(std::to_string(failed) + " Boost.Test assertion(s) failed in this seed" +
                               (aborted ? " (a BOOST_REQUIRE stopped it)" : "") + "; they are printed above");
    };
    // Under a monitor of our own: a crash or a timeout during the sweep
    // (Boost.Test recovers with siglongjmp, past destructors) becomes an
    // exception here, so Boost.Test is listening again before it reports.
    const auto& outer = boost::unit_test::unit_test_monitor;
    boost::execution_monitor monitor;
    monitor.p_catch_system_errors.set(outer.p_catch_system_errors.get());
    monitor.p_use_alt_stack.set(outer.p_use_alt_stack.get());
    monitor.p_detect_fp_exceptions.set(outer.p_detect_fp_exceptions.get());
    monitor.p_timeout.set(outer.p_timeout.get());
    try {
      monitor.vexecute([&] {
        try {
          r = check(scenario, opts);
        } catch (...) {
          error = std::current_exception();  // a config_error, say: rethrown as itself below
        }
      });
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  detail_glue::note_jobs_ignored(*r);
  if (r->ok()) {
    BOOST_TEST_MESSAGE("simasio: " << name << ": " << r->runs << " seed(s) passed");
    return;
  }
  failure f = *r->failure;
  // The failing seed once more, Boost.Test listening: its assertions once.
  if (f.type == "simasio::boost_test::assertion_failed") {
    world_options once = opts.world;
    try {
      replay([&](simasio::world& w) { body(w); }, f.seed, once);
    } catch (...) {  // reported below
    }
  }
  // A replay line that runs just this case, on just this seed (or tape):
  // --run_test goes before a `--` (after it, Boost.Test passes it on).
  if (f.replay.find("--run_test=" + name) == std::string::npos) {
    const auto dashes = f.replay.find(" -- ");
    const std::string select = " --run_test=" + name;
    if (dashes == std::string::npos && f.replay.size() >= 3 && f.replay.compare(f.replay.size() - 3, 3, " --") == 0)
      f.replay.insert(f.replay.size() - 3, select);
    else if (dashes == std::string::npos) f.replay += select;
    else f.replay.insert(dashes, select);
  }
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
/// `*%boost::unit_test::disabled() * boost::unit_test::label("slow")`.
/// (Dispatched on the argument count as Boost.Test's own macros are, so it
/// is plain C++17 too: no __VA_OPT__.)
#define SIMASIO_TEST_CASE(...) \
  BOOST_PP_CAT(BOOST_PP_OVERLOAD(SIMASIO_DETAIL_TEST_CASE_, __VA_ARGS__)(__VA_ARGS__), BOOST_PP_EMPTY())
#define SIMASIO_DETAIL_TEST_CASE_2(name, seeds) SIMASIO_DETAIL_TEST_CASE(name, seeds, BOOST_AUTO_TEST_CASE(name))
#define SIMASIO_DETAIL_TEST_CASE_3(name, seeds, decorators) \
  SIMASIO_DETAIL_TEST_CASE(name, seeds, BOOST_AUTO_TEST_CASE(name, decorators))
#define SIMASIO_DETAIL_TEST_CASE(name, seeds, test_case)                                   \
  static void name##_simasio_body(::simasio::world& world);                               \
  test_case {                                                                              \
    ::simasio::boost_test::run_case((seeds), &name##_simasio_body);                        \
  }                                                                                        \
  static void name##_simasio_body([[maybe_unused]] ::simasio::world& world)

#endif  // SIMASIO_BOOST_TEST_HPP
