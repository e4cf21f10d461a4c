// basic_waitable_timer_test.cpp — basic_waitable_timer over virtual time
#include <simasio/simasio.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using simasio::duration;

BOOST_AUTO_TEST_SUITE(timer)

BOOST_AUTO_TEST_CASE(std_chrono_time_points_are_accepted_as_asio_accepts_them) {
  simasio::world w;
  auto& h = w.add_host("h");
  // Asio's own chat server and timeout examples: an expiry that never comes,
  // then cancel_one() to wake a waiter.
  simasio::steady_timer never(h.context());
  never.expires_at(std::chrono::steady_clock::time_point::max());
  BOOST_TEST((never.expiry() == simasio::steady_clock::time_point::max()));
  boost::system::error_code never_ec;
  duration never_at{-1};
  never.async_wait([&](auto ec) { never_ec = ec; never_at = w.now(); });
  // The same time since the epoch on virtual time, for both clocks, and in
  // the constructors.
  simasio::steady_timer steady(h.context(), std::chrono::steady_clock::time_point(2s));
  simasio::system_timer system(h.context());
  system.expires_at(std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          (simasio::system_clock::now() + 3s).time_since_epoch())));
  duration steady_at{-1}, system_at{-1};
  steady.async_wait([&](auto ec) { BOOST_TEST(!ec); steady_at = w.now(); });
  system.async_wait([&](auto ec) {
    BOOST_TEST(!ec);
    system_at = w.now();
    never.cancel_one();
  });
  w.run();
  BOOST_TEST((steady_at == duration(2s)));
  BOOST_TEST((system_at == duration(3s)));
  BOOST_TEST((never_at == duration(3s)));
  BOOST_TEST((never_ec == asio::error::operation_aborted));
  // A coarse time point beyond what nanoseconds hold saturates.
  simasio::steady_timer far(h.context());
  far.expires_at(std::chrono::time_point<std::chrono::steady_clock, std::chrono::hours>(std::chrono::hours(1LL << 50)));
  BOOST_TEST((far.expiry() == simasio::steady_clock::time_point::max()));
}

BOOST_AUTO_TEST_CASE(waits_complete_at_their_expiry_in_virtual_time) {
  simasio::world w;
  simasio::io_context ioc;
  std::vector<std::pair<int, duration>> fired;
  simasio::steady_timer a(ioc, 300ms), b(ioc, 100ms), c(ioc, 200ms);
  a.async_wait([&](auto ec) { BOOST_TEST(!ec); fired.emplace_back(1, w.now()); });
  b.async_wait([&](auto ec) { BOOST_TEST(!ec); fired.emplace_back(2, w.now()); });
  c.async_wait([&](auto ec) { BOOST_TEST(!ec); fired.emplace_back(3, w.now()); });
  ioc.run();
  BOOST_REQUIRE(fired.size() == 3u);
  BOOST_TEST(fired[0].first == 2);
  BOOST_TEST(fired[1].first == 3);
  BOOST_TEST(fired[2].first == 1);
  BOOST_TEST((fired[2].second == duration(300ms)));
}

BOOST_AUTO_TEST_CASE(hours_of_virtual_time_pass_at_once) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc, 24h);
  bool fired = false;
  t.async_wait([&](auto) { fired = true; });
  ioc.run();
  BOOST_TEST(fired);
  BOOST_TEST((w.now() == duration(24h)));
}

BOOST_AUTO_TEST_CASE(an_expired_timer_completes_but_never_inline) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc);  // expires now
  bool fired = false;
  asio::post(ioc, [&] {
    t.async_wait([&](auto ec) {
      BOOST_TEST(!ec);
      fired = true;
    });
    BOOST_TEST(!fired);
  });
  ioc.run();
  BOOST_TEST(fired);
}

BOOST_AUTO_TEST_CASE(cancel_completes_with_operation_aborted_in_fifo_order) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc, 1s);
  std::vector<int> order;
  for (int i = 0; i < 3; ++i)
    t.async_wait([&, i](boost::system::error_code ec) {
      BOOST_TEST(ec == asio::error::operation_aborted);
      order.push_back(i);
    });
  asio::post(ioc, [&] { BOOST_TEST(t.cancel() == 3u); });
  ioc.run();
  BOOST_TEST(order == std::vector<int>({0, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST((w.now() == duration(0)));
}

BOOST_AUTO_TEST_CASE(cancel_one_and_expires_after_cancel_pending_waits) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc, 1s);
  int aborted = 0, ok = 0;
  auto h = [&](boost::system::error_code ec) { ec ? ++aborted : ++ok; };
  t.async_wait(h);
  t.async_wait(h);
  t.async_wait(h);
  BOOST_TEST(t.cancel_one() == 1u);
  BOOST_TEST(t.expires_after(2s) == 2u);
  t.async_wait(h);
  ioc.run();
  BOOST_TEST(aborted == 3);
  BOOST_TEST(ok == 1);
  BOOST_TEST((w.now() == duration(2s)));
}

BOOST_AUTO_TEST_CASE(per_operation_cancellation_of_every_type) {
  for (auto type : {asio::cancellation_type::terminal, asio::cancellation_type::partial,
                    asio::cancellation_type::total}) {
    simasio::world w;
    simasio::io_context ioc;
    simasio::steady_timer t(ioc, 1s), other(ioc, 1s);
    asio::cancellation_signal sig;
    boost::system::error_code got, other_ec = asio::error::fault;
    t.async_wait(asio::bind_cancellation_slot(sig.slot(), [&](auto ec) { got = ec; }));
    other.async_wait([&](auto ec) { other_ec = ec; });
    asio::post(ioc, [&] { sig.emit(type); });
    ioc.run();
    BOOST_TEST(got == asio::error::operation_aborted);
    BOOST_TEST(!other_ec);  // only the bound operation was cancelled
  }
}

BOOST_AUTO_TEST_CASE(destroying_a_timer_aborts_its_waits) {
  simasio::world w;
  simasio::io_context ioc;
  boost::system::error_code got;
  {
    simasio::steady_timer t(ioc, 1s);
    t.async_wait([&](auto ec) { got = ec; });
  }
  ioc.run();
  BOOST_TEST(got == asio::error::operation_aborted);
}

BOOST_AUTO_TEST_CASE(moved_timer_keeps_its_pending_wait_and_expiry) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer a(ioc, 50ms);
  bool fired = false;
  a.async_wait([&](auto ec) { fired = !ec; });
  simasio::steady_timer b(std::move(a));
  BOOST_TEST((b.expiry() == simasio::steady_clock::time_point(duration(50ms))));
  BOOST_TEST(a.cancel() == 0u);
  ioc.run();
  BOOST_TEST(fired);
}

BOOST_AUTO_TEST_CASE(sync_wait_from_the_test_body_drives_the_world) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc, 3s);
  t.wait();
  BOOST_TEST((w.now() == duration(3s)));
}

BOOST_AUTO_TEST_CASE(sync_wait_inside_a_handler_fails_with_would_block) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc, 3s);
  boost::system::error_code ec;
  std::string thrown;
  asio::post(ioc, [&] {
    t.wait(ec);
    try {
      t.wait();
    } catch (const boost::system::system_error& e) {
      thrown = e.what();
    }
  });
  ioc.run();
  BOOST_TEST(ec == simasio::error::would_block);
  BOOST_TEST(thrown.find("inside a handler") != std::string::npos);
  BOOST_TEST(thrown.find("async_wait") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(sync_wait_does_not_depend_on_the_context_running) {
  simasio::world w;
  simasio::io_context ioc;
  ioc.run();  // nothing to do: stopped, as in Asio
  BOOST_TEST(ioc.stopped());
  simasio::steady_timer t(ioc, 1s);
  t.wait();
  BOOST_TEST((w.now() == duration(1s)));
}

BOOST_AUTO_TEST_CASE(sync_wait_on_a_crashed_host_fails_with_host_down) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::steady_timer t(a.context(), 1s);
  a.crash();
  boost::system::error_code ec;
  t.wait(ec);
  BOOST_TEST(ec == simasio::error::host_down);
}

BOOST_AUTO_TEST_CASE(sync_wait_in_a_boot_function_keeps_the_host_clock) {
  simasio::world w;
  auto& a = w.add_host("a");
  a.set_clock(10s);
  std::int64_t before = 0, after = 0;
  a.on_boot([&](simasio::host& h) {
    simasio::steady_timer t(h.context(), 1s);
    before = simasio::steady_clock::now().time_since_epoch().count();
    t.wait();
    after = simasio::steady_clock::now().time_since_epoch().count();
  });
  BOOST_TEST(before == duration(10s).count());
  BOOST_TEST(after == duration(11s).count());
}

BOOST_AUTO_TEST_CASE(host_clock_offset_and_drift_shift_expiry) {
  simasio::world w;
  auto& fast = w.add_host("fast");
  auto& slow = w.add_host("slow");
  fast.set_clock(5s, 100'000.0);  // +10% rate
  slow.set_clock(-5s, -100'000.0);
  duration fast_at{}, slow_at{};
  std::int64_t fast_local = 0;
  fast.on_boot([&](simasio::host& h) {
    auto t = std::make_shared<simasio::steady_timer>(h.context());
    t->expires_after(11s);  // local clock runs 10% fast: 10s of world time
    t->async_wait([&, t](auto) {
      fast_at = w.now();
      fast_local = simasio::steady_clock::now().time_since_epoch().count();
    });
  });
  slow.on_boot([&](simasio::host& h) {
    auto t = std::make_shared<simasio::steady_timer>(h.context(), 9s);
    t->async_wait([&, t](auto) { slow_at = w.now(); });
  });
  w.run();
  BOOST_TEST((fast_at == duration(10s)));
  BOOST_TEST(fast_local == duration(5s + 11s).count());
  BOOST_TEST((slow_at == duration(10s)));
}

BOOST_AUTO_TEST_CASE(rebind_executor_makes_use_awaitable_the_default) {
  using timer = asio::use_awaitable_t<>::as_default_on_t<simasio::steady_timer>;
  simasio::world w;
  simasio::io_context ioc;
  bool done = false;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        timer t(co_await asio::this_coro::executor, 40ms);
        co_await t.async_wait();
        done = true;
      },
      asio::detached);
  ioc.run();
  BOOST_TEST(done);
  BOOST_TEST((w.now() == duration(40ms)));
}

BOOST_AUTO_TEST_CASE(a_timer_that_never_expires_shows_in_the_stall_report) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc, simasio::steady_clock::time_point::max());
  t.async_wait([](auto) {});
  w.run();
  BOOST_TEST(w.stalled());
  BOOST_TEST(w.pending_report().find("steady_timer::async_wait, expiring never") != std::string::npos);
  BOOST_TEST((w.now() == duration(0)));
  t.cancel();
  w.run();
  BOOST_TEST(!w.stalled());
}

BOOST_AUTO_TEST_CASE(high_resolution_timer_alias_works) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::high_resolution_timer t(ioc, 7ms);
  t.wait();
  BOOST_TEST((w.now() == duration(7ms)));
}

BOOST_AUTO_TEST_SUITE_END()
