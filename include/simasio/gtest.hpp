// simasio/gtest.hpp — seed sweeps as GoogleTest tests
#ifndef SIMASIO_GTEST_HPP
#define SIMASIO_GTEST_HPP

#include <simasio/check/check.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <atomic>
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

namespace detail_glue {
// More GoogleTest shards than this register one SIMASIO_TEST (and run_case
// refuses them): that many registrations would only cost memory.
inline constexpr std::uint64_t max_googletest_shards = 100'000;
}  // namespace detail_glue

/// `--simasio-seed=N` on the test program's command line (GoogleTest
/// leaves flags it does not know in place).
inline std::optional<std::uint64_t> seed_argument() {
  std::optional<std::uint64_t> seed;
  for (const std::string& arg : ::testing::internal::GetArgvs())
    if (const auto s = detail::seed_argument(arg, "the test program understands --simasio-seed=N")) seed = s;
  return seed;
}

/// Runs one SIMASIO_TEST: a sweep of @p seeds seeds through simasio::check.
/// GoogleTest assertions of the body are caught per seed on the thread that
/// runs it (so SIMASIO_JOBS=N runs seeds in parallel and a failure is still
/// charged to its own seed); a failure stops the sweep and is shrunk, then
/// the failing seed runs once more on the test's thread so its assertions
/// show once, followed by the lines of DESIGN.md §6 (ADD_FAILURE).
///
/// Sharding (README "Sharding"): under GoogleTest's GTEST_SHARD_INDEX/
/// GTEST_TOTAL_SHARDS every shard runs this test (SIMASIO_TEST registers
/// it once per shard) and splits its seeds; SIMASIO_SHARD_* or TEST_SHARD_*
/// split them likewise.
inline void run_case(std::uint64_t seeds, void (*body)(simasio::world&)) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string(info->test_suite_name()) + "." + info->name();
  check_options opts;
  opts.seeds = seeds;
  opts.name = name;
  opts.print = false;
  opts.jobs = 1;
  shard_from_environment();  // refuses contradictory pairs
  opts.shard = ::simasio::detail::shard_pair("GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS");
  if (opts.shard && opts.shard->count > detail_glue::max_googletest_shards)
    throw config_error("simasio: GTEST_TOTAL_SHARDS=" + std::to_string(opts.shard->count) +
                       " is more than SIMASIO_TEST splits its seeds over (" +
                       std::to_string(detail_glue::max_googletest_shards) + "): use fewer shards");
  if (const auto seed = seed_argument()) {
    // One seed, to look at: stream its logs (unless SIMASIO_LOG says otherwise).
    opts.first_seed = *seed;
    opts.seeds = 1;
    opts.shard_seeds = false;  // that seed, whatever shard this process is
    ::setenv("SIMASIO_LOG", "debug", 0);
  }
  auto scenario = [&](simasio::world& w) {
    ::testing::TestPartResultArray parts;
    {
      ::testing::ScopedFakeTestPartResultReporter intercept(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &parts);
      body(w);
    }
    int failed = 0;
    const ::testing::TestPartResult* first = nullptr;
    for (int i = 0; i < parts.size(); ++i) {
      if (parts.GetTestPartResult(i).skipped()) count_in_run("skipped");  // also from a seed's own process
      if (!parts.GetTestPartResult(i).failed()) continue;
      if (first == nullptr) first = &parts.GetTestPartResult(i);
      ++failed;
    }
    if (failed > 0)
      throw assertion_failed(std::to_string(failed) + " GoogleTest assertion(s) failed in this seed, the first at " +
                             (first->file_name() ? first->file_name() : "?") + ":" +
                             std::to_string(first->line_number()) + ": " + first->summary());
  };
  const check_result r = check(scenario, opts);
  if (r.ok()) {
    const auto skipped = r.counts.count("skipped") != 0 ? r.counts.at("skipped") : 0;
    if (skipped != 0) GTEST_SKIP() << "simasio: " << skipped << " seed(s) of " << r.runs << " skipped";
    return;
  }
  failure f = *r.failure;
  // The failing seed once more, GoogleTest listening: its assertions once.
  if (f.type == "simasio::gtest::assertion_failed") {
    try {
      replay([&](simasio::world& w) { body(w); }, f.seed, opts.world);
    } catch (...) {  // reported below
    }
  }
  if (f.replay.find("--gtest_filter=") == std::string::npos) f.replay += " --gtest_filter=" + name;
  ADD_FAILURE() << failure_report(f, name);
}

namespace detail_glue {

// How many shards GoogleTest runs (GTEST_TOTAL_SHARDS, when both of its
// variables are well formed), else 1. Malformed values register one
// instance, and run_case reports them as a config_error.
inline std::uint64_t googletest_shards() {
  try {
    const auto shard = ::simasio::detail::shard_pair("GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS");
    return shard && shard->count <= max_googletest_shards ? shard->count : 1;
  } catch (const config_error&) {
    return 1;
  }
}

class sweep_test final : public ::testing::Test {
 public:
  sweep_test(std::uint64_t seeds, void (*body)(simasio::world&)) : seeds_(seeds), body_(body) {}
  void TestBody() override { run_case(seeds_, body_); }

 private:
  std::uint64_t seeds_;
  void (*body_)(simasio::world&);
};

// Registers a SIMASIO_TEST. GoogleTest gives each test to one shard, in
// turn over the tests it runs; n registrations side by side under one name
// land in n different shards, so under n GoogleTest shards every shard runs
// the sweep once, with its share of the seeds.
inline bool register_sweep(const char* suite, const char* name, const char* file, int line, std::uint64_t seeds,
                           void (*body)(simasio::world&)) {
  const std::uint64_t n = googletest_shards();
  for (std::uint64_t i = 0; i < n; ++i)
    ::testing::RegisterTest(suite, name, nullptr, nullptr, file, line,
                            [=]() -> ::testing::Test* { return new sweep_test(seeds, body); });
  return true;
}

}  // namespace detail_glue

}  // namespace simasio::gtest

/// Declares a GoogleTest test that sweeps @p seeds seeds; the body that
/// follows sees `simasio::world& world`:
/// @code
/// SIMASIO_TEST(RaftSuite, NeverElectsTwoLeaders, 1000) { ... }
/// @endcode
#define SIMASIO_TEST(suite, name, seeds)                                                         \
  static void suite##_##name##_simasio_body(::simasio::world& world);                           \
  [[maybe_unused]] static const bool suite##_##name##_simasio_registered =                      \
      ::simasio::gtest::detail_glue::register_sweep(#suite, #name, __FILE__, __LINE__, (seeds), \
                                                     &suite##_##name##_simasio_body);            \
  static void suite##_##name##_simasio_body([[maybe_unused]] ::simasio::world& world)

#endif  // SIMASIO_GTEST_HPP
