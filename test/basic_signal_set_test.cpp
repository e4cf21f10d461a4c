// basic_signal_set_test.cpp — signals come from host::raise
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include "support.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <memory>
#include <string>
#include <thread>

namespace net = simasio::asio;

BOOST_AUTO_TEST_SUITE(signal_set)

BOOST_AUTO_TEST_CASE(raise_completes_a_waiting_signal_set_on_that_host_only) {
  simasio::world w;
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  net::signal_set sa(a.context(), SIGINT, SIGTERM);
  net::signal_set sb(b.context(), SIGTERM);
  int got_a = 0, got_b = 0;
  sa.async_wait([&](boost::system::error_code ec, int sig) {
    BOOST_TEST(!ec);
    got_a = sig;
  });
  sb.async_wait([&](boost::system::error_code ec, int sig) { got_b = ec ? -1 : sig; });
  a.raise(SIGTERM);
  w.run();
  BOOST_TEST(got_a == SIGTERM);
  BOOST_TEST(got_b == 0);
  sb.cancel();
  w.run();
  BOOST_TEST(got_b == -1);
}

BOOST_AUTO_TEST_CASE(a_signal_raised_before_the_wait_is_kept) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::signal_set s(a.context(), SIGHUP);
  a.raise(SIGUSR1);  // not in the set: ignored
  a.raise(SIGHUP);
  int got = 0;
  s.async_wait([&](boost::system::error_code, int sig) { got = sig; });
  w.run();
  BOOST_TEST(got == SIGHUP);
}

BOOST_AUTO_TEST_CASE(a_pending_signal_wait_shows_in_the_stall_report) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::signal_set s(a.context(), SIGINT);
  s.async_wait([](auto, auto) {});
  w.run();
  BOOST_TEST(w.stalled());
  BOOST_TEST(w.pending_report().find("signal_set::async_wait for signal(s) 2") != std::string::npos);
  s.cancel();
  w.run();
}

BOOST_AUTO_TEST_CASE(per_operation_cancellation_lets_awaitable_operators_finish) {
  using namespace net::experimental::awaitable_operators;
  simasio::world w;
  auto& a = w.add_host("a");
  bool finished = false;
  net::co_spawn(
      a.context(),
      [&]() -> net::awaitable<void> {
        auto ex = co_await net::this_coro::executor;
        net::signal_set signals(ex, SIGTERM);
        net::steady_timer work(ex, std::chrono::seconds(1));
        co_await (signals.async_wait(net::use_awaitable) || work.async_wait(net::use_awaitable));
        finished = true;
      },
      net::detached);
  w.run();
  BOOST_TEST(finished);
}

BOOST_AUTO_TEST_CASE(async_wait_after_the_world_is_destroyed_is_a_usage_error) {
  auto w = std::make_unique<simasio::world>(7);
  auto ioc = std::make_unique<simasio::io_context>(w->add_host("a"));
  net::signal_set s(*ioc, SIGINT);
  w.reset();
  const std::string what = simasio_test::what_of<simasio::usage_error>(
      [&] { s.async_wait([](boost::system::error_code, int) {}); });
  BOOST_TEST(what.find("io_context of host 'a' outlived its world (seed 7)") != std::string::npos, what);
}

// Like a timer or a socket, a signal_set belongs to the process that made it.
BOOST_AUTO_TEST_CASE(a_signal_set_of_a_crashed_process_is_refused_after_restart) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::signal_set old(a.context(), SIGTERM);
  w.run_for(std::chrono::milliseconds(250));
  a.crash(simasio::crash_kind::process);
  bool ran = false;
  old.async_wait([&](boost::system::error_code, int) { ran = true; });  // host down: dropped
  a.restart();
  a.raise(SIGTERM);
  w.run();
  BOOST_TEST(!ran);
  const std::string what = simasio_test::what_of<simasio::usage_error>(
      [&] { old.async_wait([](boost::system::error_code, int) {}); });
  BOOST_TEST(what.find("a signal_set of host 'a' was used after the host restarted") != std::string::npos, what);
  BOOST_TEST(what.find("died in the process crash at t=0.250") != std::string::npos, what);
  // One made by the new process works.
  net::signal_set fresh(a.context(), SIGTERM);
  int got = 0;
  fresh.async_wait([&](boost::system::error_code ec, int sig) { got = ec ? -1 : sig; });
  a.raise(SIGTERM);
  w.run();
  BOOST_TEST(got == SIGTERM);
}

BOOST_AUTO_TEST_CASE(async_wait_from_another_thread_while_the_world_runs_is_a_usage_error) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::signal_set s(a.context(), SIGTERM);
  std::string what;
  net::post(a.context(), [&] {
    std::thread intruder([&] {
      what = simasio_test::what_of<simasio::usage_error>([&] { s.async_wait([](boost::system::error_code, int) {}); });
    });
    intruder.join();
  });
  simasio_test::run_starting_a_thread(w);
  BOOST_TEST(what.find("from a thread that is not running its world") != std::string::npos, what);
}

BOOST_AUTO_TEST_SUITE_END()
