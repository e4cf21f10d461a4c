// world_test.cpp — hosts, runs, stalls, invariants, the default world, threads and other worlds
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include "support.hpp"

#include <simasio/detail/env.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <thread>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using simasio::duration;

BOOST_AUTO_TEST_SUITE(world)

BOOST_AUTO_TEST_CASE(hosts_get_addresses_in_creation_order) {
  simasio::world w;
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  auto& c = w.add_host("c", asio::ip::make_address("192.168.1.7"));
  auto& d = w.add_host("d");
  BOOST_TEST(a.address().to_string() == "198.18.0.1");
  BOOST_TEST(b.address().to_string() == "198.18.0.2");
  BOOST_TEST(c.address().to_string() == "192.168.1.7");
  BOOST_TEST(d.address().to_string() == "198.18.0.3");
  BOOST_TEST(&w.get_host("b") == &b);
  BOOST_TEST(w.hosts().size() == 4u);
}

BOOST_AUTO_TEST_CASE(unknown_or_duplicate_hosts_are_clear_errors) {
  simasio::world w;
  w.add_host("a");
  BOOST_CHECK_THROW(w.add_host("a"), simasio::usage_error);
  try {
    w.get_host("zz");
    BOOST_FAIL("expected usage_error");
  } catch (const simasio::usage_error& e) {
    BOOST_TEST(std::string(e.what()).find("no host named 'zz' (hosts: 'a')") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(run_for_lets_exactly_that_much_time_pass) {
  simasio::world w;
  auto& a = w.add_host("a");
  int ticks = 0;
  auto t = std::make_shared<simasio::steady_timer>(a.context());
  std::function<void()> arm = [&] {
    t->expires_after(100ms);
    t->async_wait([&](auto ec) {
      if (ec) return;
      ++ticks;
      arm();
    });
  };
  arm();
  w.run_for(1s);
  BOOST_TEST(ticks == 10);
  BOOST_TEST((w.now() == duration(1s)));
  w.run_for(250ms);
  BOOST_TEST(ticks == 12);
  BOOST_TEST((w.now() == duration(1250ms)));
  t->cancel();
  w.run();
}

BOOST_AUTO_TEST_CASE(run_until_reports_success_and_timeout) {
  simasio::world w;
  auto& a = w.add_host("a");
  bool flag = false;
  simasio::steady_timer t(a.context(), 2s);
  t.async_wait([&](auto) { flag = true; });
  BOOST_TEST(!w.run_until([&] { return flag; }, 1s));
  BOOST_TEST((w.now() == duration(1s)));
  BOOST_TEST(w.run_until([&] { return flag; }, 5s));
  BOOST_TEST((w.now() == duration(2s)));
}

BOOST_AUTO_TEST_CASE(stall_is_detected_and_names_what_waits) {
  simasio::world w;
  auto& a = w.add_host("alpha");
  auto guard = asio::make_work_guard(a.context());
  simasio::steady_timer t(a.context(), simasio::steady_clock::time_point::max());
  t.async_wait([](auto) {});
  w.run();
  BOOST_TEST(w.stalled());
  const std::string r = w.pending_report();
  BOOST_TEST(r.find("host 'alpha'") != std::string::npos);
  BOOST_TEST(r.find("2 unit(s) of outstanding work") != std::string::npos);
  BOOST_TEST(r.find("steady_timer::async_wait") != std::string::npos);
  BOOST_TEST(r.find("work guards") != std::string::npos);
  t.cancel();
}

BOOST_AUTO_TEST_CASE(quiescent_world_is_not_stalled) {
  simasio::world w;
  auto& a = w.add_host("a");
  asio::post(a.context(), [] {});
  BOOST_TEST(w.run() == 1u);
  BOOST_TEST(!w.stalled());
}

BOOST_AUTO_TEST_CASE(invariants_are_checked_after_every_step) {
  simasio::world w;
  auto& a = w.add_host("a");
  int x = 0;
  w.always("x stays below 3", [&] { return x < 3; });
  for (int i = 0; i < 5; ++i) asio::post(a.context(), [&] { ++x; });
  try {
    w.run();
    BOOST_FAIL("expected invariant_error");
  } catch (const simasio::invariant_error& e) {
    BOOST_TEST(e.name() == "x stays below 3");
    BOOST_TEST(x == 3);  // caught right after the step that broke it
    BOOST_TEST(std::string(e.what()).find("step=3") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(runaway_scenario_stops_with_a_clear_error) {
  simasio::world_options opts;
  opts.max_steps = 1000;
  simasio::world w(opts);
  auto& a = w.add_host("spinner");
  std::function<void()> spin = [&] { asio::post(a.context(), spin); };
  spin();
  try {
    w.run();
    BOOST_FAIL("expected runaway_error");
  } catch (const simasio::runaway_error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("more than 1000 steps") != std::string::npos);
    BOOST_TEST(what.find("'spinner'") != std::string::npos);
    BOOST_TEST(what.find("max_steps") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(default_io_context_without_a_world_uses_simasio_seed) {
  simasio_test::scoped_env seed("SIMASIO_SEED", "4823");
  simasio::io_context ioc;
  BOOST_TEST(ioc.get_world().seed() == 4823u);
  simasio::steady_timer t(ioc, 5s);
  t.wait();
  BOOST_TEST((ioc.get_world().now() == duration(5s)));
}

BOOST_AUTO_TEST_CASE(malformed_simasio_seed_is_a_clear_error) {
  for (const char* bad : {"abc", "", "12x", "-1", "99999999999999999999999"}) {
    simasio_test::scoped_env seed("SIMASIO_SEED", bad);
    try {
      simasio::io_context ioc;
      BOOST_FAIL("expected config_error for '" << bad << "'");
    } catch (const simasio::config_error& e) {
      const std::string what = e.what();
      BOOST_TEST(what.find("SIMASIO_SEED") != std::string::npos);
      BOOST_TEST(what.find("expected a whole number") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(simasio_seed_argument_is_strict) {
  using simasio::detail::seed_argument;
  BOOST_TEST(seed_argument("--simasio-seed=4823", "usage").value() == 4823u);
  BOOST_TEST(seed_argument("--simasio-seed=0x12d7", "usage").value() == 4823u);
  BOOST_TEST(!seed_argument("--log_level=all", "usage").has_value());
  BOOST_TEST(!seed_argument("--simasio", "usage").has_value());
  auto message = [](std::string_view arg) {
    return simasio_test::what_of<simasio::config_error>(
        [&] { seed_argument(arg, "the program understands --simasio-seed=N"); });
  };
  BOOST_TEST(message("--simasio-seed=").find("--simasio-seed='' is empty") != std::string::npos);
  BOOST_TEST(message("--simasio-seed=12x").find("is not a number") != std::string::npos);
  BOOST_TEST(message("--simasio-seed=18446744073709551616").find("is too large") != std::string::npos);
  BOOST_TEST(message("--simasio-sed=4").find("unknown option '--simasio-sed=4': the program understands") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(context_outliving_its_world_is_a_clear_error_not_a_crash) {
  auto w = std::make_unique<simasio::world>();
  auto& a = w->add_host("a");
  auto ioc = std::make_unique<simasio::io_context>(a);
  bool ran = false;
  asio::post(*ioc, [&] { ran = true; });
  w.reset();
  BOOST_TEST(!ran);
  BOOST_CHECK_THROW(asio::post(*ioc, [] {}), simasio::usage_error);
}

// A world belongs to one thread at a time; its objects do not cross worlds.
BOOST_AUTO_TEST_CASE(posting_from_a_thread_of_your_own_while_the_world_runs_is_named) {
  simasio::world w(1);
  auto& h = w.add_host("server");
  std::string what;
  boost::asio::post(h.context(), [&] {
    std::thread intruder(
        [&] { what = simasio_test::what_of<simasio::usage_error>([&] { boost::asio::post(h.context(), [] {}); }); });
    intruder.join();
  });
  simasio_test::run_starting_a_thread(w);
  BOOST_TEST(what.find("host 'server'") != std::string::npos);
  BOOST_TEST(what.find("from a thread that is not running its world") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(running_a_world_from_a_second_thread_is_named) {
  simasio::world w(1);
  auto& h = w.add_host("a");
  std::string what;
  boost::asio::post(h.context(), [&] {
    std::thread second(
        [&] { what = simasio_test::what_of<simasio::usage_error>([&] { w.run_for(std::chrono::seconds(1)); }); });
    second.join();
  });
  simasio_test::run_starting_a_thread(w);
  BOOST_TEST(what.find("while another thread runs it") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_object_of_another_world_is_named) {
  simasio::world a(1);
  auto& in_a = a.add_host("alpha");
  simasio::steady_timer timer_of_a(in_a.context());
  simasio::world b(2);
  auto& in_b = b.add_host("beta");
  boost::asio::post(in_b.context(), [&] {
    timer_of_a.expires_after(std::chrono::seconds(1));
    timer_of_a.async_wait([](boost::system::error_code) {});
  });
  const std::string what = simasio_test::what_of<simasio::usage_error>([&] { b.run(); });
  BOOST_TEST(what.find("host 'alpha'") != std::string::npos, what);
  BOOST_TEST(what.find("objects cannot cross worlds") != std::string::npos, what);
  // Each world still works with its own objects.
  bool fired = false;
  timer_of_a.expires_after(std::chrono::seconds(1));
  timer_of_a.async_wait([&](boost::system::error_code ec) { fired = !ec; });
  a.run();
  BOOST_TEST(fired);
}

BOOST_AUTO_TEST_SUITE_END()
