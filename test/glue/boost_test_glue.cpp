// boost_test_glue.cpp — SIMASIO_TEST_CASE in a Boost.Test program
#define BOOST_TEST_MODULE simasio_boost_test_glue
#include <simasio/boost_test.hpp>

#include <simasio/asio.hpp>
#include <simasio/log/log.hpp>

#include "glue_scenarios.hpp"

#include <cstdlib>
#include <string>

namespace net = simasio::asio;

// Passes on every seed: a message crosses between two hosts.
SIMASIO_TEST_CASE(message_crosses_between_hosts, 50) {
  auto& a = world.add_host("a");
  auto& b = world.add_host("b");
  std::string got;
  net::post(a.context(), [&] {
    simasio::log::logger(a)->debug("sending hello");
    net::post(b.context(), [&] { got = "hello"; });
  });
  world.run();
  BOOST_TEST(got == "hello");
}

// Fails on some seeds through a plain BOOST_TEST: b wins the race. Run
// only by name (the CTest entries check its report and its replay).
SIMASIO_TEST_CASE(planted_race_is_reported, 200) {
  auto& a = world.add_host("a");
  auto& b = world.add_host("b");
  std::string winner;
  net::post(a.context(), [&] { if (winner.empty()) winner = "a"; });
  net::post(b.context(), [&] { if (winner.empty()) winner = "b"; });
  world.run();
  BOOST_TEST(winner == "a");
}

// Fails on seed 50 only, after some seeded work (so seeds take different
// times). Run only by name: with SIMASIO_JOBS=2 the report must still say
// seed 50, every time, and show the assertion once.
SIMASIO_TEST_CASE(fails_only_on_seed_50, 100) {
  glue_scenarios::ping_pong(world);
  BOOST_TEST(world.seed() != 50u);
}

// Records which seeds ran, one line each, in $SIMASIO_GLUE_SEED_LOG (the
// sharding checks read it).
SIMASIO_TEST_CASE(records_its_seeds, 40) {
  glue_scenarios::record_seed(world.seed());
  BOOST_TEST(true);
}

// Aborts on seed 3: Boost.Test recovers from the signal with a long jump,
// and must still be listening to report it (run only by name).
SIMASIO_TEST_CASE(aborts_on_seed_3, 10) {
  if (world.seed() == 3) std::abort();
  BOOST_TEST(true);
}

// Ends the test program from seed 3, as code does on a fatal configuration
// error: the program must still fail, naming the seed (run by name only).
SIMASIO_TEST_CASE(exits_on_seed_3, 10) {
  if (world.seed() == 3) std::exit(0);
}

// Declared after aborts_on_seed_3: with the crash isolated, it still runs.
SIMASIO_TEST_CASE(runs_after_a_crashing_case, 5) { BOOST_TEST(world.seed() < 5u); }
