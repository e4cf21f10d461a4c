// simasio/gtest.hpp — seed sweeps as GoogleTest tests
#ifndef SIMASIO_GTEST_HPP
#define SIMASIO_GTEST_HPP

#include <simasio/check/check.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace simasio::gtest {

/// Thrown inside a seed's run when a GoogleTest assertion of the body
/// failed during it: that makes the seed a failing one.
class assertion_failed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline int failed_parts() {
  const ::testing::TestResult* r = ::testing::UnitTest::GetInstance()->current_test_info()->result();
  int n = 0;
  for (int i = 0; i < r->total_part_count(); ++i) n += r->GetTestPartResult(i).failed() ? 1 : 0;
  return n;
}

/// `--simasio-seed=N` on the test program's command line (GoogleTest
/// leaves flags it does not know in place).
inline std::optional<std::uint64_t> seed_argument() {
  std::optional<std::uint64_t> seed;
  for (const std::string& arg : ::testing::internal::GetArgvs())
    if (const auto s = detail::seed_argument(arg, "the test program understands --simasio-seed=N")) seed = s;
  return seed;
}

/// Runs one SIMASIO_TEST: like simasio::boost_test::run_case, for
/// GoogleTest. GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS shard *tests* here (as
/// GoogleTest itself does), not the seeds of one sweep.
inline void run_case(std::uint64_t seeds, void (*body)(simasio::world&)) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string(info->test_suite_name()) + "." + info->name();
  check_options opts;
  opts.seeds = seeds;
  opts.name = name;
  opts.print = false;
  opts.jobs = 1;
  opts.shard_seeds = false;
  if (const auto seed = seed_argument()) {
    // One seed, to look at: stream its logs (unless SIMASIO_LOG says otherwise).
    opts.first_seed = *seed;
    opts.seeds = 1;
    ::setenv("SIMASIO_LOG", "debug", 0);
  }
  auto scenario = [&](simasio::world& w) {
    const int before = failed_parts();
    body(w);
    const int after = failed_parts();
    if (after > before)
      throw assertion_failed(std::to_string(after - before) + " GoogleTest assertion(s) failed in this seed (see above)");
  };
  const check_result r = check(scenario, opts);
  if (r.ok()) return;
  failure f = *r.failure;
  f.replay = "SIMASIO_SEED=" + std::to_string(f.seed) + " " + command_line();
  if (f.replay.find("--gtest_filter=") == std::string::npos) f.replay += " --gtest_filter=" + name;
  ADD_FAILURE() << failure_report(f, name);
}

}  // namespace simasio::gtest

/// Declares a GoogleTest test that sweeps @p seeds seeds; the body that
/// follows sees `simasio::world& world`:
/// @code
/// SIMASIO_TEST(RaftSuite, NeverElectsTwoLeaders, 1000) { ... }
/// @endcode
#define SIMASIO_TEST(suite, name, seeds)                                                      \
  static void suite##_##name##_simasio_body(::simasio::world& world);                        \
  TEST(suite, name) { ::simasio::gtest::run_case((seeds), &suite##_##name##_simasio_body); } \
  static void suite##_##name##_simasio_body([[maybe_unused]] ::simasio::world& world)

#endif  // SIMASIO_GTEST_HPP
