// io_context_test.cpp — run/poll/stop semantics, work counting, inline dispatch
#include <simasio/simasio.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/defer.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <memory>
#include <stdexcept>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(io_context)

BOOST_AUTO_TEST_CASE(run_executes_posted_handlers_in_fifo_order) {
  simasio::world w(3);
  simasio::io_context ioc;
  std::vector<int> order;
  for (int i = 0; i < 10; ++i) asio::post(ioc, [&order, i] { order.push_back(i); });
  BOOST_TEST(ioc.run() == 10u);
  BOOST_TEST(order == std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(run_returns_when_out_of_work_and_leaves_the_context_stopped) {
  simasio::world w;
  simasio::io_context ioc;
  int n = 0;
  asio::post(ioc, [&] { ++n; });
  BOOST_TEST(ioc.run() == 1u);
  BOOST_TEST(ioc.stopped());
  asio::post(ioc, [&] { ++n; });
  BOOST_TEST(ioc.run() == 0u);  // Asio: stopped until restart()
  ioc.restart();
  BOOST_TEST(ioc.run() == 1u);
  BOOST_TEST(n == 2);
}

BOOST_AUTO_TEST_CASE(run_one_runs_exactly_one_handler) {
  simasio::world w;
  simasio::io_context ioc;
  int n = 0;
  for (int i = 0; i < 3; ++i) asio::post(ioc, [&] { ++n; });
  BOOST_TEST(ioc.run_one() == 1u);
  BOOST_TEST(n == 1);
  BOOST_TEST(ioc.run_one() == 1u);
  BOOST_TEST(n == 2);
}

BOOST_AUTO_TEST_CASE(poll_runs_ready_handlers_without_moving_time) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc, 1s);
  bool fired = false;
  t.async_wait([&](boost::system::error_code) { fired = true; });
  int n = 0;
  asio::post(ioc, [&] { ++n; });
  asio::post(ioc, [&] { ++n; });
  BOOST_TEST(ioc.poll_one() == 1u);
  BOOST_TEST(ioc.poll() == 1u);
  BOOST_TEST(n == 2);
  BOOST_TEST(!fired);
  BOOST_TEST(w.now() == simasio::duration::zero());
  BOOST_TEST(ioc.run() == 1u);
  BOOST_TEST(fired);
  BOOST_TEST(w.now() == simasio::duration(1s));
}

BOOST_AUTO_TEST_CASE(run_for_stops_at_the_deadline) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer a(ioc, 1s), b(ioc, 5s);
  int fired = 0;
  a.async_wait([&](auto) { ++fired; });
  b.async_wait([&](auto) { ++fired; });
  BOOST_TEST(ioc.run_for(2s) == 1u);
  BOOST_TEST(fired == 1);
  BOOST_TEST(w.now() == simasio::duration(2s));
  BOOST_TEST(ioc.run_until(simasio::steady_clock::now() + 10s) == 1u);
  BOOST_TEST(fired == 2);
}

BOOST_AUTO_TEST_CASE(stop_makes_run_return_and_restart_resumes) {
  simasio::world w;
  simasio::io_context ioc;
  int n = 0;
  asio::post(ioc, [&] {
    ++n;
    ioc.stop();
  });
  asio::post(ioc, [&] { ++n; });
  BOOST_TEST(ioc.run() == 1u);
  BOOST_TEST(ioc.stopped());
  ioc.restart();
  BOOST_TEST(ioc.run() == 1u);
  BOOST_TEST(n == 2);
}

BOOST_AUTO_TEST_CASE(work_guard_keeps_run_going_until_reset) {
  simasio::world w;
  simasio::io_context ioc;
  auto guard = asio::make_work_guard(ioc);
  simasio::steady_timer t(ioc, 1s);
  t.async_wait([&](auto) { guard.reset(); });
  // Without counting, run() would return at once; with it, the world
  // reaches t=1s, the guard is released and run() returns.
  BOOST_TEST(ioc.run() == 1u);
  BOOST_TEST(w.now() == simasio::duration(1s));
  BOOST_TEST(!w.stalled());
}

BOOST_AUTO_TEST_CASE(work_guard_alone_is_a_stall_not_a_hang) {
  simasio::world w;
  simasio::io_context ioc;
  auto guard = asio::make_work_guard(ioc);
  BOOST_TEST(ioc.run() == 0u);
  BOOST_TEST(w.stalled());
  const std::string report = w.pending_report();
  BOOST_TEST(report.find("localhost") != std::string::npos);
  BOOST_TEST(report.find("work guard") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(dispatch_runs_inline_inside_the_context_and_post_queues) {
  simasio::world w;
  simasio::io_context ioc;
  std::vector<int> order;
  asio::post(ioc, [&] {
    order.push_back(1);
    asio::post(ioc, [&] { order.push_back(4); });
    asio::defer(ioc, [&] { order.push_back(5); });
    asio::dispatch(ioc, [&] { order.push_back(2); });
    order.push_back(3);
  });
  ioc.run();
  BOOST_TEST(order == std::vector<int>({1, 2, 3, 4, 5}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(dispatch_from_outside_the_context_queues) {
  simasio::world w;
  simasio::io_context ioc;
  bool ran = false;
  asio::dispatch(ioc, [&] { ran = true; });
  BOOST_TEST(!ran);
  ioc.run();
  BOOST_TEST(ran);
}

BOOST_AUTO_TEST_CASE(handler_exception_leaves_run_and_run_can_resume) {
  simasio::world w;
  simasio::io_context ioc;
  int n = 0;
  asio::post(ioc, [] { throw std::runtime_error("boom"); });
  asio::post(ioc, [&] { ++n; });
  BOOST_CHECK_THROW(ioc.run(), std::runtime_error);
  BOOST_TEST(n == 0);
  BOOST_TEST(ioc.run() == 1u);
  BOOST_TEST(n == 1);
}

BOOST_AUTO_TEST_CASE(exception_from_inline_dispatch_surfaces_after_the_handler) {
  simasio::world w;
  simasio::io_context ioc;
  bool continued = false;
  asio::post(ioc, [&] {
    asio::dispatch(ioc, [] { throw std::logic_error("inner"); });
    continued = true;  // Asio captures and rethrows once this handler returns
  });
  BOOST_CHECK_THROW(ioc.run(), std::logic_error);
  BOOST_TEST(continued);
}

BOOST_AUTO_TEST_CASE(running_the_world_inside_a_handler_is_a_clear_error) {
  simasio::world w;
  simasio::io_context ioc;
  std::string message;
  asio::post(ioc, [&] {
    try {
      ioc.run();
    } catch (const simasio::usage_error& e) {
      message = e.what();
    }
  });
  ioc.run();
  BOOST_TEST(message.find("inside a handler") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(default_contexts_share_one_world_and_talk) {
  simasio::world w(5);
  simasio::io_context a, b;
  BOOST_TEST(&a.get_world() == &w);
  BOOST_TEST(&b.get_world() == &w);
  BOOST_TEST(a.get_host().name() == "localhost");
  BOOST_TEST(a.get_host().address().to_string() == "127.0.0.1");
  bool pinged = false;
  asio::post(a, [&] { asio::post(b, [&] { pinged = true; }); });
  w.run();
  BOOST_TEST(pinged);
}

BOOST_AUTO_TEST_CASE(legacy_strand_and_work_compile_and_serialise) {
  simasio::world w;
  simasio::io_context ioc(4);
  simasio::io_context::strand s(ioc);
  std::vector<int> order;
  for (int i = 0; i < 20; ++i) asio::post(s, [&order, i] { order.push_back(i); });
  auto wrapped = s.wrap([&order](int v) { order.push_back(v); });
  wrapped(100);
  ioc.run();
  BOOST_REQUIRE(order.size() == 21u);
  for (int i = 0; i < 20; ++i) BOOST_TEST(order[static_cast<std::size_t>(i)] == i);
  BOOST_TEST(order.back() == 100);
}

BOOST_AUTO_TEST_CASE(destroying_a_context_with_queued_coroutines_is_clean) {
  // Destroying the queued start of a coroutine posts its cleanup to the
  // same context: that must not make the dying context runnable again.
  simasio::world w;
  auto& h = w.add_host("a");
  {
    simasio::io_context ctx(h);
    asio::co_spawn(ctx, []() -> asio::awaitable<void> { co_return; }, asio::detached);
    simasio::steady_timer t(ctx, 1s);
    asio::co_spawn(ctx, [&t]() -> asio::awaitable<void> { co_await t.async_wait(asio::use_awaitable); },
                   asio::detached);
  }
  BOOST_TEST(w.run() == 0u);
  BOOST_TEST(!w.stalled());
}

BOOST_AUTO_TEST_CASE(the_default_world_lives_as_long_as_any_default_context) {
  auto server = std::make_unique<simasio::io_context>();
  simasio::io_context client;
  simasio::world* shared = &client.get_world();
  BOOST_TEST(&server->get_world() == shared);
  server.reset();
  simasio::steady_timer t(client, 2s);
  t.wait();
  BOOST_TEST((client.get_world().now() == simasio::duration(2s)));
}

BOOST_AUTO_TEST_CASE(poll_that_runs_out_of_work_stops_the_context_like_asio) {
  simasio::world w;
  simasio::io_context ioc;
  int n = 0;
  asio::post(ioc, [&] { ++n; });
  BOOST_TEST(ioc.poll() == 1u);
  BOOST_TEST(ioc.stopped());
  asio::post(ioc, [&] { ++n; });
  BOOST_TEST(ioc.poll() == 0u);  // as in Asio: restart() first
  ioc.restart();
  BOOST_TEST(ioc.poll() == 1u);
  BOOST_TEST(n == 2);
}

BOOST_AUTO_TEST_CASE(an_exception_that_left_run_is_not_rethrown_later) {
  simasio::world w;
  simasio::io_context ioc;
  asio::post(ioc, [&] {
    asio::dispatch(ioc, [] { throw std::logic_error("captured"); });
    throw std::runtime_error("direct");
  });
  BOOST_CHECK_THROW(ioc.run(), std::runtime_error);
  ioc.restart();
  asio::post(ioc, [] {});
  BOOST_CHECK_NO_THROW(ioc.run());
}

BOOST_AUTO_TEST_CASE(run_for_saturates_huge_durations) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc, 3s);
  bool fired = false;
  t.async_wait([&](auto) { fired = true; });
  w.run_for(1s);
  BOOST_TEST(w.run_until([&] { return fired; }, simasio::duration::max()));
  BOOST_TEST((w.now() == simasio::duration(3s)));
  ioc.restart();
  BOOST_TEST(ioc.run_for(std::chrono::hours::max()) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
