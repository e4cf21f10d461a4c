// gtest_glue.cpp — SIMASIO_TEST in a GoogleTest program
#include <simasio/gtest.hpp>

#include <simasio/asio.hpp>

#include "glue_scenarios.hpp"

#include <cstdlib>
#include <string>

namespace net = simasio::asio;

SIMASIO_TEST(Glue, MessageCrossesBetweenHosts, 50) {
  auto& a = world.add_host("a");
  auto& b = world.add_host("b");
  std::string got;
  net::post(a.context(), [&] { net::post(b.context(), [&] { got = "hello"; }); });
  world.run();
  EXPECT_EQ(got, "hello");
}

// Fails on some seeds through a plain EXPECT_EQ; run only by name.
SIMASIO_TEST(Glue, PlantedRaceIsReported, 200) {
  auto& a = world.add_host("a");
  auto& b = world.add_host("b");
  std::string winner;
  net::post(a.context(), [&] { if (winner.empty()) winner = "a"; });
  net::post(b.context(), [&] { if (winner.empty()) winner = "b"; });
  world.run();
  EXPECT_EQ(winner, "a");
}

// Fails on seed 50 only, after some seeded work (see boost_test_glue.cpp).
SIMASIO_TEST(Glue, FailsOnlyOnSeed50, 100) {
  glue_scenarios::ping_pong(world);
  EXPECT_NE(world.seed(), 50u);
}

using glue_scenarios::record_seed;

// Record which seeds ran in $SIMASIO_GLUE_SEED_LOG (the sharding checks).
SIMASIO_TEST(Glue, RecordsItsSeeds, 40) { record_seed(world.seed()); }

// A plain simasio::check inside an ordinary TEST.
TEST(Glue, PlainCheckRecordsItsSeeds) {
  simasio::check_options opts;
  opts.seeds = 40;
  const auto r = simasio::check([](simasio::world& w) { record_seed(w.seed()); }, opts);
  EXPECT_TRUE(r.ok());
}

// Aborts on seed 3: isolated (SIMASIO_ISOLATION=1), that seed's failure,
// and the program goes on (run only by name).
SIMASIO_TEST(Glue, AbortsOnSeed3, 10) {
  if (world.seed() == 3) std::abort();
}

// Ends the test program from seed 3 (run by name only): the program must
// still fail, naming the seed.
SIMASIO_TEST(Glue, ExitsOnSeed3, 10) {
  if (world.seed() == 3) std::exit(0);
}

// Skips on even seeds: the glue counts skipped seeds, isolated or not.
SIMASIO_TEST(Glue, SkipsEvenSeeds, 10) {
  if (world.seed() % 2 == 0) GTEST_SKIP() << "even";
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
