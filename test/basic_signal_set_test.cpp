// basic_signal_set_test.cpp — signals come from host::raise
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/test/unit_test.hpp>

#include <csignal>

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

BOOST_AUTO_TEST_SUITE_END()
