// asio_test.cpp — Asio-style code compiles and runs against simasio::asio
#include <simasio/asio.hpp>
#include <simasio/world.hpp>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/test/unit_test.hpp>

#include <type_traits>

namespace net = simasio::asio;

// What `namespace net = simasio::asio;` swaps, and what it keeps.
static_assert(std::is_same_v<net::io_context, simasio::io_context>);
static_assert(std::is_same_v<net::steady_timer, simasio::steady_timer>);
static_assert(std::is_same_v<net::system_timer, simasio::system_timer>);
static_assert(std::is_same_v<net::high_resolution_timer, simasio::high_resolution_timer>);
static_assert(std::is_same_v<net::any_io_executor, simasio::any_io_executor>);
static_assert(std::is_base_of_v<boost::asio::any_io_executor, net::any_io_executor>);
static_assert(std::is_same_v<net::ip::address, boost::asio::ip::address>);
static_assert(std::is_same_v<net::error::basic_errors, boost::asio::error::basic_errors>);

namespace user_code {
using namespace net;  // must stay unambiguous

// A typical periodic task, written the way Asio users write it.
class heartbeat {
 public:
  explicit heartbeat(any_io_executor ex) : timer_(ex) {}
  void start(int beats) {
    left_ = beats;
    arm();
  }
  int beats = 0;

 private:
  void arm() {
    timer_.expires_after(std::chrono::milliseconds(50));
    timer_.async_wait(bind_executor(timer_.get_executor(), [this](const boost::system::error_code& ec) {
      if (ec == error::operation_aborted) return;
      ++beats;
      if (--left_ > 0) arm();
    }));
  }
  steady_timer timer_;
  int left_ = 0;
};

awaitable<int> race(steady_timer::duration fast) {
  using namespace net::experimental::awaitable_operators;
  auto ex = co_await this_coro::executor;
  steady_timer a(ex, fast), b(ex, std::chrono::seconds(1));
  auto r = co_await (a.async_wait(use_awaitable) || b.async_wait(use_awaitable));
  co_return static_cast<int>(r.index());
}

}  // namespace user_code

BOOST_AUTO_TEST_SUITE(asio_namespace)

BOOST_AUTO_TEST_CASE(asio_style_code_runs_unchanged_on_the_simulated_namespace) {
  simasio::world w(1);
  net::io_context ioc;
  auto strand = net::make_strand(ioc);
  user_code::heartbeat hb(strand);
  hb.start(4);
  int winner = -1;
  net::co_spawn(ioc, user_code::race(std::chrono::milliseconds(10)), [&](std::exception_ptr, int r) { winner = r; });
  auto guard = net::make_work_guard(ioc);
  net::post(ioc, [&guard] { guard.reset(); });
  ioc.run();
  BOOST_TEST(hb.beats == 4);
  BOOST_TEST(winner == 0);
  BOOST_TEST((w.now() == std::chrono::milliseconds(200)));
}

BOOST_AUTO_TEST_SUITE_END()
