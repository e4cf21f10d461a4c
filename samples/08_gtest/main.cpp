// 08_gtest — a GoogleTest suite of seed sweeps: one passing test, one failing on purpose.
//
// The same lost update as 07_boost_test. The failing test is DISABLED_, so
// the default run skips it; see simasio's report with
//   ./sample_08_gtest --gtest_also_run_disabled_tests --gtest_filter=*LostUpdate*
#include <simasio/gtest.hpp>

#include <simasio/asio.hpp>

namespace net = simasio::asio;

namespace {
void client(simasio::world& world, int& value, bool read_modify_write) {
  net::co_spawn(
      world.add_host("client" + std::to_string(world.hosts().size())).context(),
      [&world, &value, read_modify_write]() -> net::awaitable<void> {
        net::steady_timer t(co_await net::this_coro::executor);
        t.expires_after(std::chrono::milliseconds(world.random().below(10)));
        co_await t.async_wait(net::use_awaitable);
        if (!read_modify_write) {
          value += 1;
          co_return;
        }
        const int seen = value;
        t.expires_after(std::chrono::milliseconds(1 + world.random().below(10)));
        co_await t.async_wait(net::use_awaitable);
        value = seen + 1;
      },
      net::detached);
}
}  // namespace

SIMASIO_TEST(Register, IncrementsAreAtomic, 200) {
  int value = 0;
  client(world, value, false);
  client(world, value, false);
  world.run();
  EXPECT_EQ(value, 2);
}

SIMASIO_TEST(Register, DISABLED_LostUpdateIsFound, 200) {
  int value = 0;
  client(world, value, true);
  client(world, value, true);
  world.run();
  EXPECT_EQ(value, 2);
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
