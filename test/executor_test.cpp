// executor_test.cpp — Asio's executor model and algorithms over simasio::io_context
#include <simasio/simasio.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/recycler.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/detail/thread_context.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/test/unit_test.hpp>

#include <memory>
#include <tuple>
#include <variant>
#include <vector>

namespace asio = boost::asio;
namespace execution = boost::asio::execution;
using namespace std::chrono_literals;
using sim_executor = simasio::io_context::executor_type;

static_assert(execution::is_executor_v<sim_executor>);
static_assert(asio::is_executor<sim_executor>::value);  // Networking TS model too
static_assert(std::is_convertible_v<sim_executor, asio::any_io_executor>);
static_assert(asio::can_require_v<sim_executor, execution::blocking_t::never_t>);
static_assert(asio::can_require_v<sim_executor, execution::blocking_t::possibly_t>);
static_assert(asio::can_require_v<sim_executor, execution::outstanding_work_t::tracked_t>);
static_assert(asio::can_require_v<sim_executor, execution::relationship_t::continuation_t>);
static_assert(asio::can_query_v<sim_executor, execution::mapping_t>);

BOOST_AUTO_TEST_SUITE(executor)

BOOST_AUTO_TEST_CASE(properties_are_queryable_and_requirable) {
  simasio::world w;
  simasio::io_context ioc;
  const sim_executor ex = ioc.get_executor();
  BOOST_TEST(&asio::query(ex, execution::context) == &ioc);
  BOOST_TEST((asio::query(ex, execution::blocking) == execution::blocking.possibly));
  BOOST_TEST((asio::query(asio::require(ex, execution::blocking.never), execution::blocking) ==
             execution::blocking.never));
  BOOST_TEST((asio::query(ex, execution::relationship) == execution::relationship.fork));
  BOOST_TEST((asio::query(asio::require(ex, execution::relationship.continuation), execution::relationship) ==
             execution::relationship.continuation));
  BOOST_TEST((asio::query(ex, execution::outstanding_work) == execution::outstanding_work.untracked));
  BOOST_TEST((asio::query(asio::require(ex, execution::outstanding_work.tracked), execution::outstanding_work) ==
             execution::outstanding_work.tracked));
  BOOST_TEST((asio::query(ex, execution::mapping) == execution::mapping.thread));
  BOOST_TEST((asio::query(ex, execution::allocator) == std::allocator<void>()));
  BOOST_TEST((ex == ioc.get_executor()));
  BOOST_TEST((ex != asio::require(ex, execution::blocking.never)));
  simasio::io_context other;
  BOOST_TEST((ex != other.get_executor()));
}

BOOST_AUTO_TEST_CASE(tracked_executors_really_count_work) {
  simasio::world w;
  simasio::io_context ioc;
  {
    auto tracked = asio::prefer(ioc.get_executor(), execution::outstanding_work.tracked);
    auto copy = tracked;
    BOOST_TEST(ioc.run() == 0u);
    BOOST_TEST(w.stalled());  // two tracked executors keep it "busy" with nothing to do
    BOOST_TEST(simasio::detail::access::state(ioc).work == 2);
  }
  BOOST_TEST(simasio::detail::access::state(ioc).work == 0);
  ioc.restart();
  BOOST_TEST(ioc.run() == 0u);
  BOOST_TEST(!w.stalled());
}

BOOST_AUTO_TEST_CASE(blocking_never_never_runs_inline) {
  simasio::world w;
  simasio::io_context ioc;
  std::vector<int> order;
  asio::post(ioc, [&] {
    execution::execute(asio::require(ioc.get_executor(), execution::blocking.never), [&] { order.push_back(2); });
    execution::execute(ioc.get_executor(), [&] { order.push_back(1); });  // possibly: inline
  });
  ioc.run();
  BOOST_TEST(order == std::vector<int>({1, 2}), boost::test_tools::per_element());
}

template <class T>
struct counting_allocator {
  using value_type = T;
  int* count;
  explicit counting_allocator(int* c) : count(c) {}
  template <class U>
  counting_allocator(const counting_allocator<U>& o) : count(o.count) {}
  T* allocate(std::size_t n) {
    ++*count;
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) { std::allocator<T>().deallocate(p, n); }
  template <class U>
  bool operator==(const counting_allocator<U>& o) const { return count == o.count; }
};

BOOST_AUTO_TEST_CASE(associated_allocator_is_really_used) {
  simasio::world w;
  simasio::io_context ioc;
  int allocations = 0;
  bool ran = false;
  asio::post(ioc, asio::bind_allocator(counting_allocator<int>(&allocations), [&] { ran = true; }));
  simasio::steady_timer t(ioc, 1ms);
  t.async_wait(asio::bind_allocator(counting_allocator<int>(&allocations), [&](auto) {}));
  const int after_start = allocations;
  ioc.run();
  BOOST_TEST(ran);
  BOOST_TEST(after_start >= 2);
}

BOOST_AUTO_TEST_CASE(any_io_executor_post_and_dispatch) {
  simasio::world w;
  simasio::io_context ioc;
  asio::any_io_executor ex = ioc.get_executor();
  int n = 0;
  asio::post(ex, [&] { ++n; });
  asio::dispatch(ex, [&] { ++n; });
  asio::defer(ex, [&] { ++n; });
  ioc.run();
  BOOST_TEST(n == 3);
}

BOOST_AUTO_TEST_CASE(strands_keep_order_on_pool_contexts_across_seeds) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    simasio::world w(seed);
    simasio::io_context pool(4);
    auto s1 = asio::make_strand(pool);
    auto s2 = asio::make_strand(pool.get_executor());
    std::vector<int> a, b;
    for (int i = 0; i < 30; ++i) {
      asio::post(s1, [&a, i] { a.push_back(i); });
      asio::post(s2, [&b, i] { b.push_back(i); });
      asio::post(pool, [] {});
    }
    pool.run();
    BOOST_REQUIRE(a.size() == 30u);
    BOOST_REQUIRE(b.size() == 30u);
    for (int i = 0; i < 30; ++i) {
      BOOST_REQUIRE(a[static_cast<std::size_t>(i)] == i);
      BOOST_REQUIRE(b[static_cast<std::size_t>(i)] == i);
    }
  }
}

BOOST_AUTO_TEST_CASE(pool_context_without_strand_reorders_on_some_seed) {
  bool reordered = false;
  for (std::uint64_t seed = 0; seed < 50 && !reordered; ++seed) {
    simasio::world w(seed);
    simasio::io_context pool(4);
    std::vector<int> order;
    for (int i = 0; i < 10; ++i) asio::post(pool, [&order, i] { order.push_back(i); });
    pool.run();
    for (std::size_t i = 1; i < order.size(); ++i) reordered |= order[i] < order[i - 1];
  }
  BOOST_TEST(reordered);
}

BOOST_AUTO_TEST_CASE(bind_executor_sends_completion_through_the_strand) {
  simasio::world w(2);
  simasio::io_context pool(4);
  auto strand = asio::make_strand(pool);
  simasio::steady_timer t(pool, 5ms);
  bool in_strand = false;
  t.async_wait(asio::bind_executor(strand, [&](boost::system::error_code) {
    in_strand = strand.running_in_this_thread();
  }));
  pool.run();
  BOOST_TEST(in_strand);
}

BOOST_AUTO_TEST_CASE(co_spawn_on_any_io_executor_and_on_the_simasio_executor) {
  simasio::world w;
  simasio::io_context ioc;
  auto on_any = []() -> asio::awaitable<int> {
    auto ex = co_await asio::this_coro::executor;
    simasio::steady_timer t(ex, 10ms);
    co_await t.async_wait(asio::use_awaitable);
    co_return 7;
  };
  auto on_sim = []() -> asio::awaitable<int, sim_executor> {
    auto ex = co_await asio::this_coro::executor;
    simasio::basic_waitable_timer<simasio::steady_clock, sim_executor> t(ex, 20ms);
    co_await t.async_wait(asio::use_awaitable_t<sim_executor>());
    co_return 8;
  };
  int a = 0, b = 0;
  asio::co_spawn(ioc, on_any(), [&](std::exception_ptr, int v) { a = v; });
  asio::co_spawn(ioc.get_executor(), on_sim(), [&](std::exception_ptr, int v) { b = v; });
  ioc.run();
  BOOST_TEST(a == 7);
  BOOST_TEST(b == 8);
  BOOST_TEST(w.now() == simasio::duration(20ms));
}

BOOST_AUTO_TEST_CASE(exceptions_reach_the_co_spawn_handler) {
  simasio::world w;
  simasio::io_context ioc;
  std::string what;
  asio::co_spawn(
      ioc, []() -> asio::awaitable<void> { throw std::runtime_error("in coroutine"); co_return; },
      [&](std::exception_ptr e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          what = ex.what();
        }
      });
  ioc.run();
  BOOST_TEST(what == "in coroutine");
}

// Asio takes coroutine frames, co_spawn and parallel_group state and its
// handlers' memory from the recycling cache of the scheduler running on the
// thread (thread_context's call stack), and from malloc when none runs. A
// run of the world provides that cache while it lasts, like io_context::run,
// and restores the thread's own afterwards (pooling is off under
// AddressSanitizer, as for simasio's operations).
BOOST_AUTO_TEST_CASE(a_run_gives_asio_a_recycling_cache_for_coroutine_frames) {
  using boost::asio::detail::thread_context;
  simasio::world w;
  simasio::io_context ioc;
  std::vector<bool> cached;
  auto probe = [&]() -> asio::awaitable<void> {
    for (int i = 0; i < 3; ++i) {
      cached.push_back(thread_context::top_of_thread_call_stack() != nullptr);
      simasio::steady_timer t(co_await asio::this_coro::executor, 1ms);
      co_await t.async_wait(asio::use_awaitable);
    }
  };
  BOOST_TEST(thread_context::top_of_thread_call_stack() == nullptr);
  asio::co_spawn(ioc, probe(), asio::detached);
  ioc.run();
  BOOST_TEST(cached == std::vector<bool>(3, simasio::detail::pool_allocations));
  BOOST_TEST(thread_context::top_of_thread_call_stack() == nullptr);

  // A world run from a handler of a real io_context: Asio's own cache
  // comes back when the run ends.
  asio::io_context real(1);
  void* outer = nullptr;
  void* during = nullptr;
  void* after = nullptr;
  asio::post(real, [&] {
    outer = thread_context::top_of_thread_call_stack();
    asio::post(ioc, [&] { during = thread_context::top_of_thread_call_stack(); });
    ioc.restart();
    ioc.run();
    after = thread_context::top_of_thread_call_stack();
  });
  real.run();
  BOOST_TEST(outer != nullptr);
  BOOST_TEST((during != outer) == simasio::detail::pool_allocations);
  BOOST_TEST(after == outer);
}

template <class Token>
auto async_wait_twice(simasio::steady_timer& t, Token&& token) {
  return asio::async_compose<Token, void(boost::system::error_code, int)>(
      [&t, step = 0](auto& self, boost::system::error_code ec = {}) mutable {
        if (ec) return self.complete(ec, step);
        if (step < 2) {
          ++step;
          t.expires_after(5ms);
          return t.async_wait(std::move(self));
        }
        self.complete({}, step);
      },
      token, t);
}

BOOST_AUTO_TEST_CASE(async_compose_builds_on_simasio_timers) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t(ioc);
  int steps = -1;
  async_wait_twice(t, [&](boost::system::error_code ec, int n) {
    BOOST_TEST(!ec);
    steps = n;
  });
  ioc.run();
  BOOST_TEST(steps == 2);
  BOOST_TEST(w.now() == simasio::duration(10ms));
}

BOOST_AUTO_TEST_CASE(deferred_as_tuple_and_redirect_error) {
  simasio::world w;
  simasio::io_context ioc;
  simasio::steady_timer t1(ioc, 1ms), t2(ioc, 2ms), t3(ioc, 1h);
  bool deferred_ran = false;
  auto op = t1.async_wait(asio::deferred);
  std::move(op)([&](boost::system::error_code ec) { deferred_ran = !ec; });
  boost::system::error_code tuple_ec = asio::error::fault;
  t2.async_wait(asio::as_tuple([&](std::tuple<boost::system::error_code> r) { tuple_ec = std::get<0>(r); }));
  boost::system::error_code redirected;
  bool coro_done = false;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        co_await t3.async_wait(asio::redirect_error(asio::use_awaitable, redirected));
        auto [ec] = co_await t1.async_wait(asio::as_tuple(asio::deferred));
        (void)ec;
        coro_done = true;
      },
      asio::detached);
  asio::post(ioc, [&] { t3.cancel(); });
  ioc.run();
  BOOST_TEST(deferred_ran);
  BOOST_TEST(!tuple_ec);
  BOOST_TEST(redirected == asio::error::operation_aborted);
  BOOST_TEST(coro_done);
}

BOOST_AUTO_TEST_CASE(awaitable_operators_race_two_timers) {
  using namespace asio::experimental::awaitable_operators;
  simasio::world w;
  simasio::io_context ioc;
  std::size_t winner = 99;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        auto ex = co_await asio::this_coro::executor;
        simasio::steady_timer fast(ex, 10ms), slow(ex, 1s);
        auto r = co_await (slow.async_wait(asio::use_awaitable) || fast.async_wait(asio::use_awaitable));
        winner = r.index();
        // The loser was cancelled; the timer stays usable.
        slow.expires_after(5ms);
        co_await slow.async_wait(asio::use_awaitable);
      },
      asio::detached);
  ioc.run();
  BOOST_TEST(winner == 1u);
  BOOST_TEST(w.now() == simasio::duration(15ms));
}

BOOST_AUTO_TEST_CASE(use_future_is_ready_after_running_the_world) {
  simasio::world w;
  simasio::io_context ioc;
  std::future<int> f = asio::post(ioc, asio::use_future([] { return 42; }));
  // future.get() here would block forever: the only thread that could
  // complete it is this one. Run the world first, then get().
  ioc.run();
  BOOST_TEST(f.get() == 42);
}

BOOST_AUTO_TEST_SUITE_END()
