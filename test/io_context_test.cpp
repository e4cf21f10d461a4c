// io_context_test.cpp — run/poll/stop semantics, work counting, inline dispatch
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>
#include <simasio/spawn.hpp>  // after <simasio/asio.hpp>, as a user adds it

#include "support.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/defer.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <array>
#include <csignal>
#include <memory>
#include <string>
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
  BOOST_TEST(a.get_host().address().to_string() == "198.19.255.254");
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

// ---- an io_context that outlived its world ------------------------------------
// The world is gone, and with it the host and the network: every use of the
// context (or of an object on it) is a usage_error naming the host, the
// seed and the fix, never a read of freed memory.

namespace {
struct orphan {
  std::unique_ptr<simasio::world> w = std::make_unique<simasio::world>(7);
  std::unique_ptr<simasio::io_context> ioc = std::make_unique<simasio::io_context>(w->add_host("a"));
};

void check_orphan_message(const std::string& what) {
  BOOST_TEST(what.find("io_context of host 'a' outlived its world (seed 7)") != std::string::npos, what);
  BOOST_TEST(what.find("destroy io_contexts and I/O objects before their world, or keep the world alive") !=
                 std::string::npos,
             what);
}

template <class F>
void check_orphan_use(F&& use) {
  check_orphan_message(simasio_test::what_of<simasio::usage_error>(std::forward<F>(use)));
}
}  // namespace

BOOST_AUTO_TEST_CASE(timer_on_an_io_context_that_outlived_its_world_is_a_usage_error) {
  orphan o;
  o.w.reset();
  check_orphan_use([&] { simasio::steady_timer t(*o.ioc); });
  check_orphan_use([&] { simasio::system_timer t(o.ioc->get_executor(), 1s); });
}

BOOST_AUTO_TEST_CASE(get_host_of_an_io_context_that_outlived_its_world_is_a_usage_error) {
  orphan o;
  o.w.reset();
  check_orphan_use([&] { return o.ioc->get_host().name(); });
  check_orphan_use([&] { return o.ioc->get_world().seed(); });
}

BOOST_AUTO_TEST_CASE(running_or_posting_to_an_io_context_that_outlived_its_world_is_a_usage_error) {
  orphan o;
  bool ran = false;
  asio::post(*o.ioc, [&] { ran = true; });
  o.w.reset();
  BOOST_TEST(!ran);  // its pending work died with the world
  BOOST_TEST(o.ioc->concurrency_hint() == 1);
  check_orphan_use([&] { o.ioc->run(); });
  check_orphan_use([&] { o.ioc->run_one(); });
  check_orphan_use([&] { o.ioc->run_for(1s); });
  check_orphan_use([&] { o.ioc->run_one_for(1s); });
  check_orphan_use([&] { o.ioc->poll(); });
  check_orphan_use([&] { o.ioc->poll_one(); });
  check_orphan_use([&] { o.ioc->stop(); });
  check_orphan_use([&] { o.ioc->restart(); });
  check_orphan_use([&] { asio::post(*o.ioc, [] {}); });
  check_orphan_use([&] { asio::dispatch(o.ioc->get_executor(), [] {}); });
  check_orphan_use([&] { asio::defer(o.ioc->get_executor(), [] {}); });
  check_orphan_use([&] { asio::post(asio::any_io_executor(o.ioc->get_executor()), [] {}); });
  check_orphan_use([&] { simasio::io_context::strand s(*o.ioc); s.post([] {}, std::allocator<void>()); });
  BOOST_TEST(!o.ioc->get_executor().running_in_this_thread());
}

BOOST_AUTO_TEST_CASE(io_objects_on_an_io_context_that_outlived_its_world_are_usage_errors) {
  orphan o;
  o.w.reset();
  namespace ip = simasio::asio::ip;
  check_orphan_use([&] { ip::tcp::socket s(*o.ioc); });
  check_orphan_use([&] { ip::tcp::socket s(o.ioc->get_executor(), ip::tcp::v4()); });
  check_orphan_use([&] { ip::udp::socket s(*o.ioc); });
  check_orphan_use([&] { ip::tcp::acceptor a(*o.ioc); });
  check_orphan_use([&] { ip::tcp::acceptor a(*o.ioc, ip::tcp::endpoint(ip::tcp::v4(), 80)); });
  check_orphan_use([&] { ip::tcp::resolver r(*o.ioc); });
  check_orphan_use([&] { simasio::signal_set s(*o.ioc, SIGINT); });
}

BOOST_AUTO_TEST_CASE(io_objects_that_outlived_their_world_are_usage_errors_and_still_destroy_cleanly) {
  orphan o;
  namespace ip = simasio::asio::ip;
  auto timer = std::make_unique<simasio::steady_timer>(*o.ioc, 1s);
  auto signals = std::make_unique<simasio::signal_set>(*o.ioc, SIGTERM);
  auto socket = std::make_unique<ip::tcp::socket>(*o.ioc, ip::tcp::v4());
  auto udp = std::make_unique<ip::udp::socket>(*o.ioc, ip::udp::endpoint(ip::udp::v4(), 53));
  auto acceptor = std::make_unique<ip::tcp::acceptor>(*o.ioc, ip::tcp::endpoint(ip::tcp::v4(), 80));
  auto resolver = std::make_unique<ip::tcp::resolver>(*o.ioc);
  int completions = 0;
  timer->async_wait([&](boost::system::error_code) { ++completions; });
  signals->async_wait([&](boost::system::error_code, int) { ++completions; });
  std::array<char, 4> buf{};
  udp->async_receive(asio::buffer(buf), [&](boost::system::error_code, std::size_t) { ++completions; });
  o.w.reset();
  BOOST_TEST(completions == 0);  // destroyed with the world, never run

  check_orphan_use([&] { timer->async_wait([](boost::system::error_code) {}); });
  check_orphan_use([&] { timer->wait(); });
  check_orphan_use([&] { timer->expires_after(1s); });
  check_orphan_use([&] { timer->expires_at(simasio::steady_clock::time_point{}); });
  check_orphan_use([&] { timer->cancel(); });
  check_orphan_use([&] { timer->cancel_one(); });

  check_orphan_use([&] { signals->async_wait([](boost::system::error_code, int) {}); });
  check_orphan_use([&] { signals->add(SIGINT); });
  check_orphan_use([&] { signals->remove(SIGTERM); });
  check_orphan_use([&] { signals->clear(); });
  check_orphan_use([&] { signals->cancel(); });

  check_orphan_use([&] { socket->connect(ip::tcp::endpoint(asio::ip::make_address("198.18.0.2"), 80)); });
  check_orphan_use([&] { socket->async_connect(ip::tcp::endpoint(asio::ip::make_address("198.18.0.2"), 80),
                                               [](boost::system::error_code) {}); });
  check_orphan_use([&] { socket->async_read_some(asio::buffer(buf), [](boost::system::error_code, std::size_t) {}); });
  check_orphan_use([&] { socket->write_some(asio::buffer(buf)); });
  check_orphan_use([&] { socket->bind(ip::tcp::endpoint(ip::tcp::v4(), 0)); });
  check_orphan_use([&] { socket->set_option(ip::tcp::no_delay(true)); });
  check_orphan_use([&] { socket->close(); });
  check_orphan_use([&] { socket->cancel(); });
  check_orphan_use([&] { udp->send_to(asio::buffer(buf), ip::udp::endpoint(asio::ip::make_address("198.18.0.2"), 53)); });
  check_orphan_use([&] { udp->async_receive(asio::buffer(buf), [](boost::system::error_code, std::size_t) {}); });
  check_orphan_use([&] { acceptor->async_accept([](boost::system::error_code, ip::tcp::socket) {}); });
  check_orphan_use([&] { acceptor->listen(); });
  check_orphan_use([&] { resolver->resolve("a", "80"); });
  check_orphan_use([&] { resolver->async_resolve("a", "80", [](boost::system::error_code, auto) {}); });

  // Destroying them (and then the context) stays clean.
  resolver.reset();
  acceptor.reset();
  udp.reset();
  socket.reset();
  signals.reset();
  timer.reset();
  o.ioc.reset();
}

BOOST_AUTO_TEST_CASE(a_socket_freed_while_another_context_is_orphaned_leaves_the_network_clean) {
  // The acceptor lives on context a, but only a coroutine queued on context
  // b owns it: the world orphans a first, then destroys b's coroutine, and
  // with it the acceptor, while the network still holds it.
  namespace ip = simasio::asio::ip;
  auto w = std::make_unique<simasio::world>(7);
  simasio::io_context a(w->add_host("a"));
  simasio::io_context b(w->add_host("b"));
  auto owned = std::make_shared<ip::tcp::acceptor>(a, ip::tcp::endpoint(ip::tcp::v4(), 80));
  std::weak_ptr<ip::tcp::acceptor> seen = owned;
  simasio::steady_timer t(b, 1s);
  t.async_wait([held = std::move(owned)](boost::system::error_code) {});
  BOOST_TEST(!seen.expired());
  w.reset();
  BOOST_TEST(seen.expired());  // freed with b's pending work; ASan checks the network let go of it
}

// Stackful coroutines come with <simasio/spawn.hpp>, included after
// <simasio/asio.hpp>: net::spawn on the context and on a strand, each
// waiting on simulated timers through its yield_context, across seeds.
BOOST_AUTO_TEST_CASE(spawn_from_its_own_header_runs_on_simulated_time) {
  namespace net = simasio::asio;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    simasio::world w(seed);
    net::io_context& ioc = w.add_host("h").context();
    std::vector<std::string> order;
    net::spawn(ioc, [&](net::yield_context yield) {
      net::steady_timer t(ioc, std::chrono::seconds(2));
      t.async_wait(yield);
      order.push_back("context at " + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(w.now()).count()));
    }, net::detached);
    net::spawn(net::make_strand(ioc), [&](net::basic_yield_context<net::strand<net::io_context::executor_type>> yield) {
      net::steady_timer t(ioc, std::chrono::seconds(1));
      boost::system::error_code ec;
      t.async_wait(yield[ec]);
      order.push_back("strand at " + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(w.now()).count()) +
                      (ec ? " failed" : ""));
    }, net::detached);
    w.run();
    BOOST_TEST_REQUIRE(order.size() == 2u, "seed " << seed);
    BOOST_TEST(order[0] == "strand at 1");
    BOOST_TEST(order[1] == "context at 2");
  }
}

BOOST_AUTO_TEST_SUITE_END()
