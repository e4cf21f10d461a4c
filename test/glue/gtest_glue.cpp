// gtest_glue.cpp — SIMASIO_TEST in a GoogleTest program
#include <simasio/gtest.hpp>

#include <simasio/asio.hpp>

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

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
