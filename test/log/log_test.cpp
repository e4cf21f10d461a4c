// log_test.cpp — spdlog lines stamped with virtual time and host, kept in a ring
#include <simasio/log/log.hpp>
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <spdlog/sinks/ostream_sink.h>

#include <sstream>

namespace asio = boost::asio;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(logging)

BOOST_AUTO_TEST_CASE(lines_carry_the_host_and_its_virtual_time_at_log_time) {
  simasio::world w;
  auto& a = w.add_host("alpha");
  a.set_clock(2s);
  simasio::steady_timer t(a.context(), 1500ms);
  t.async_wait([&](auto) { simasio::log::logger(a)->info("tick {}", 1); });
  w.run();
  w.run_for(1h);  // the ring formats late: the stamp must not move
  const auto lines = simasio::log::recent_lines(w);
  BOOST_REQUIRE(lines.size() == 1u);
  // 1.5 s of world time plus the host's 2 s offset.
  BOOST_TEST(lines[0].find("[00:00:03.500000] [alpha] [info] tick 1") != std::string::npos, lines[0]);
}

BOOST_AUTO_TEST_CASE(stamps_past_a_day_count_total_hours_instead_of_wrapping) {
  simasio::world w;
  auto& a = w.add_host("alpha");
  simasio::steady_timer t(a.context(), 49h + 2min + 3s);
  t.async_wait([&](auto) { simasio::log::logger(a)->info("two days in"); });
  w.run();
  const auto lines = simasio::log::recent_lines(w);
  BOOST_REQUIRE(lines.size() == 1u);
  BOOST_TEST(lines[0].find("[49:02:03.000000] [alpha] [info] two days in") != std::string::npos, lines[0]);
}

BOOST_AUTO_TEST_CASE(a_failures_log_lines_carry_no_trailing_newline) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 1;
  opts.shrink = false;
  opts.artifacts = false;
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& a = w.add_host("a");
        simasio::log::logger(a)->info("first");
        simasio::log::logger(a)->info("second");
        throw std::runtime_error("fails");
      },
      opts);
  BOOST_REQUIRE(r.failure);
  BOOST_REQUIRE(r.failure->log.size() == 2u);
  for (const auto& line : r.failure->log) BOOST_TEST((line.empty() || line.back() != '\n'), line);
  // The report still puts one line per log line.
  const std::string report = simasio::failure_report(*r.failure, "x");
  BOOST_TEST(report.find("first\n  [") != std::string::npos, report);
}

BOOST_AUTO_TEST_CASE(the_ring_is_bounded) {
  simasio::world w;
  auto& a = w.add_host("a");
  for (int i = 0; i < 1000; ++i) simasio::log::logger(a)->info("line {}", i);
  const auto lines = simasio::log::recent_lines(w);
  BOOST_REQUIRE(lines.size() == simasio::log::ring_lines);
  // The last ring_lines of them, oldest first, after the ring wrapped.
  const std::size_t first = 1000 - simasio::log::ring_lines;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string tail = "] [a] [info] line " + std::to_string(first + k);
    BOOST_TEST(lines[k].ends_with(tail), lines[k]);
  }
}

BOOST_AUTO_TEST_CASE(a_failing_seed_reports_its_log_and_passing_seeds_do_not) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 50;
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& a = w.add_host("a");
        auto& b = w.add_host("b");
        std::string winner;
        asio::post(a.context(), [&] {
          simasio::log::logger(a)->info("a runs");
          if (winner.empty()) winner = "a";
        });
        asio::post(b.context(), [&] {
          simasio::log::logger(b)->warn("b runs");
          if (winner.empty()) winner = "b";
        });
        w.run();
        if (winner == "b") throw std::runtime_error("b won");
      },
      opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_REQUIRE(r.failure->log.size() == 2u);
  BOOST_TEST(r.failure->log[0].find("[b] [warning] b runs") != std::string::npos);
  const std::string report = simasio::failure_report(*r.failure, "race");
  BOOST_TEST(report.find("simasio: log of seed " + std::to_string(r.failure->seed) + " (last 2 lines):") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(your_own_logger_gets_virtual_time_through_the_sink) {
  simasio::world w;
  auto& b = w.add_host("bravo");
  auto mine = std::make_shared<spdlog::logger>("", simasio::log::sink());
  simasio::steady_timer t(b.context(), 250ms);
  t.async_wait([&](auto) { mine->info("from my logger"); });
  w.run();
  const auto lines = simasio::log::recent_lines(w);
  BOOST_REQUIRE(lines.size() == 1u);
  BOOST_TEST(lines[0].find("[00:00:00.250000] [bravo] [info] from my logger") != std::string::npos, lines[0]);
}

BOOST_AUTO_TEST_CASE(a_pattern_set_on_your_logger_leaves_the_worlds_lines_as_they_are) {
  simasio::world w;
  auto& b = w.add_host("bravo");
  auto mine = std::make_shared<spdlog::logger>("", simasio::log::sink());
  mine->set_pattern("%v");  // reaches every sink of the logger, the world's too
  simasio::steady_timer t(b.context(), 250ms);
  t.async_wait([&](auto) { mine->info("patterned"); });
  w.run();
  const auto lines = simasio::log::recent_lines(w);
  BOOST_REQUIRE(lines.size() == 1u);
  BOOST_TEST(lines[0] == "[00:00:00.250000] [bravo] [info] patterned");
}

BOOST_AUTO_TEST_CASE(simasio_log_streams_instead_and_rejects_unknown_levels) {
  {
    simasio_test::scoped_env env("SIMASIO_LOG", "debug");
    simasio::world w;
    auto& a = w.add_host("a");
    simasio::log::logger(a)->debug("streamed");
    BOOST_TEST(simasio::log::recent_lines(w).empty());
  }
  simasio_test::scoped_env env("SIMASIO_LOG", "loud");
  simasio::world w;
  auto& a = w.add_host("a");
  BOOST_CHECK_THROW(simasio::log::logger(a), simasio::config_error);
}

BOOST_AUTO_TEST_SUITE_END()
