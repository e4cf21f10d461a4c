// clock_test.cpp — simasio's steady and system clocks over virtual time
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <concepts>
#include <string>

using namespace std::chrono_literals;
using simasio::duration;

// Not "clock": a test suite is a namespace, and ::clock is the C library's.
BOOST_AUTO_TEST_SUITE(clocks)

BOOST_AUTO_TEST_CASE(expiry_compares_with_std_chrono_time_points_since_the_same_epoch) {
  // Beast's http_server_fast: `timer.expiry() <= std::chrono::steady_clock::now()`.
  simasio::world w;
  auto& h = w.add_host("h");
  simasio::steady_timer t(h.context());
  t.expires_at(std::chrono::steady_clock::time_point(std::chrono::seconds(5)));
  const std::chrono::steady_clock::time_point four(std::chrono::seconds(4)), five(std::chrono::seconds(5));
  BOOST_TEST((t.expiry() == five));
  BOOST_TEST((five == t.expiry()));
  BOOST_TEST((t.expiry() > four));
  BOOST_TEST((four <= t.expiry()));
  BOOST_TEST(!(t.expiry() < five));
  simasio::system_timer s(h.context());
  s.expires_at(std::chrono::system_clock::time_point(std::chrono::hours(1'000'000)));
  BOOST_TEST((s.expiry() == std::chrono::system_clock::time_point(std::chrono::hours(1'000'000))));
  BOOST_TEST((s.expiry() != std::chrono::system_clock::time_point(std::chrono::hours(1))));
  // Different kinds of clock still do not compare (steady with system).
  static_assert(!std::totally_ordered_with<simasio::steady_clock::time_point, std::chrono::system_clock::time_point>);
}

BOOST_AUTO_TEST_CASE(system_timer_reads_the_virtual_wall_clock) {
  simasio::world w;
  simasio::io_context ioc;
  const auto start = simasio::system_clock::now();
  BOOST_TEST(simasio::system_clock::to_time_t(start) == 1'577'836'800);  // 2020-01-01T00:00:00Z
  simasio::system_timer t(ioc, start + 90s);
  t.wait();
  BOOST_TEST((simasio::system_clock::now() - start == duration(90s)));
}

BOOST_AUTO_TEST_CASE(clock_without_any_world_is_a_clear_error) {
  try {
    (void)simasio::steady_clock::now();
    BOOST_FAIL("expected escape_error");
  } catch (const simasio::escape_error& e) {
    BOOST_TEST(std::string(e.what()).find("no simasio::world alive") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
