// escape_test.cpp — real Asio objects on simulated contexts, and the reverse
#include <simasio/simasio.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/system_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/test/unit_test.hpp>

#include <filesystem>

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {
std::size_t thread_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

template <class Make>
std::string escape_message(Make make) {
  simasio::world w;
  simasio::io_context ioc;
  const std::size_t threads = thread_count();
  auto object = make(ioc);
  std::string what;
  try {
    ioc.run();
  } catch (const simasio::escape_error& e) {
    what = e.what();
  }
  BOOST_TEST(thread_count() == threads);  // Asio never started its background thread
  return what;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(escape)

// Asio's own timers are driven (Beast's websocket::stream and Asio's
// ssl::stream hold one): a wait only real time could end is named when the
// world stalls on it. Deadlines a day of real time away: with 1 s, a
// loaded machine (a parallel ctest) passed it before the stall, the real
// timer fired, and there was no error to see.
BOOST_AUTO_TEST_CASE(real_steady_timer_on_a_simulated_context_is_named) {
  const std::string what = escape_message([](simasio::io_context& ioc) {
    auto t = std::make_unique<asio::steady_timer>(ioc, 24h);
    t->async_wait([](auto) {});
    return t;
  });
  BOOST_TEST(what.find("real boost::asio::steady_timer") != std::string::npos);
  BOOST_TEST(what.find("namespace net = simasio::asio") != std::string::npos);
  BOOST_TEST(what.find("host 'localhost'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_cancelled_real_timer_wait_completes_inside_the_simulation) {
  // The pattern of Asio's ssl::stream: wait "forever", get cancelled by a
  // simulated event. The cancellation reaches the handler, on virtual time.
  simasio::world w(1);
  simasio::io_context ioc;
  const std::size_t threads = thread_count();
  asio::steady_timer real(ioc, asio::steady_timer::time_point::max());
  boost::system::error_code got;
  bool done = false;
  real.async_wait([&](boost::system::error_code ec) {
    got = ec;
    done = true;
  });
  simasio::steady_timer sim(ioc, 5s);
  sim.async_wait([&](boost::system::error_code) { real.cancel(); });
  ioc.run();
  BOOST_TEST(done);
  BOOST_TEST((got == asio::error::operation_aborted), got.message());
  BOOST_TEST(w.now() == simasio::duration(5s));
  BOOST_TEST(thread_count() == threads);
}

BOOST_AUTO_TEST_CASE(real_system_timer_is_named) {
  const std::string what = escape_message([](simasio::io_context& ioc) {
    auto t = std::make_unique<asio::system_timer>(ioc, 24h);
    t->async_wait([](auto) {});
    return t;
  });
  BOOST_TEST(what.find("boost::asio::system_timer") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(real_tcp_socket_is_named) {
  const std::string what = escape_message([](simasio::io_context& ioc) {
    auto s = std::make_unique<asio::ip::tcp::socket>(ioc);
    return s;
  });
  BOOST_TEST(what.find("boost::asio::ip::tcp socket or acceptor") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(beast_tcp_stream_is_named_by_its_real_socket) {
  // beast::tcp_stream holds a real boost::asio socket and steady_timer.
  const std::string what = escape_message([](simasio::io_context& ioc) {
    return std::make_unique<boost::beast::tcp_stream>(ioc);
  });
  BOOST_TEST(what.find("boost::beast::tcp_stream holds both") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(real_udp_socket_is_named) {
  const std::string what = escape_message([](simasio::io_context& ioc) {
    return std::make_unique<asio::ip::udp::socket>(ioc);
  });
  BOOST_TEST(what.find("boost::asio::ip::udp::socket") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(real_signal_set_is_named) {
  const std::string what = escape_message([](simasio::io_context& ioc) {
    return std::make_unique<asio::signal_set>(ioc);
  });
  BOOST_TEST(what.find("boost::asio::signal_set") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(real_resolver_is_named) {
  const std::string what = escape_message([](simasio::io_context& ioc) {
    return std::make_unique<asio::ip::tcp::resolver>(ioc);
  });
  BOOST_TEST(what.find("boost::asio::ip::tcp::resolver") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(simulated_timer_on_a_real_io_context_is_refused) {
  asio::io_context real;
  try {
    simasio::steady_timer t(real, 1s);
    BOOST_FAIL("expected escape_error");
  } catch (const simasio::escape_error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("simasio::steady_timer") != std::string::npos);
    BOOST_TEST(what.find("not a simasio::io_context") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
