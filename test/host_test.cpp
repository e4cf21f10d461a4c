// host_test.cpp — a host's lifecycle: boot, crash, restart; its view of the clock
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include "support.hpp"

#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using simasio::duration;
namespace sim_ip = simasio::asio::ip;

BOOST_AUTO_TEST_SUITE(host)

BOOST_AUTO_TEST_CASE(crash_drops_handlers_and_restart_reboots) {
  simasio::world w;
  auto& a = w.add_host("a");
  int boots = 0, fired = 0;
  a.on_boot([&](simasio::host& h) {
    ++boots;
    auto t = std::make_shared<simasio::steady_timer>(h.context(), 1s);
    t->async_wait([&, t](auto ec) {
      if (!ec) ++fired;
    });
  });
  BOOST_TEST(boots == 1);
  w.run_for(500ms);
  a.crash();
  BOOST_TEST(!a.up());
  asio::post(a.context(), [&] { ++fired; });  // a dead process runs nothing
  w.run_for(2s);
  BOOST_TEST(fired == 0);
  a.restart();
  BOOST_TEST(boots == 2);
  w.run_for(2s);
  BOOST_TEST(fired == 1);
}

// Objects the test keeps from a process that crashed: the usage_error names
// the host, the object and the crash; new objects after the restart work.
BOOST_AUTO_TEST_CASE(objects_of_a_crashed_process_used_after_restart_are_named) {
  simasio::world w;
  auto& a = w.add_host("a");
  std::shared_ptr<simasio::steady_timer> kept_timer;
  std::shared_ptr<sim_ip::tcp::acceptor> kept_acceptor;
  std::shared_ptr<sim_ip::udp::socket> kept_udp;
  std::shared_ptr<sim_ip::tcp::socket> kept_socket;
  a.on_boot([&](simasio::host& h) {
    if (kept_timer) return;  // the second boot makes nothing
    kept_timer = std::make_shared<simasio::steady_timer>(h.context(), 1s);
    kept_acceptor = std::make_shared<sim_ip::tcp::acceptor>(h.context(), sim_ip::tcp::endpoint(sim_ip::tcp::v4(), 80));
    kept_udp = std::make_shared<sim_ip::udp::socket>(h.context(), sim_ip::udp::endpoint(sim_ip::udp::v4(), 53));
    kept_socket = std::make_shared<sim_ip::tcp::socket>(h.context());
  });
  w.run_for(250ms);
  a.crash(simasio::crash_kind::power);
  // While the host is down, its objects' operations are dropped, as any are.
  kept_timer->async_wait([](boost::system::error_code) { BOOST_FAIL("a dead process ran a handler"); });
  w.run_for(2s);
  a.restart();
  auto message = [](auto&& use) { return simasio_test::what_of<simasio::usage_error>(use); };
  const std::string timer_use = message([&] { kept_timer->async_wait([](boost::system::error_code) {}); });
  BOOST_TEST(timer_use.find("a steady_timer of host 'a' was used after the host restarted") != std::string::npos,
             timer_use);
  BOOST_TEST(timer_use.find("died in the power crash at t=0.250") != std::string::npos, timer_use);
  BOOST_TEST(timer_use.find("create new ones in the host's on_boot") != std::string::npos);
  const std::string accept_use = message([&] {
    kept_acceptor->async_accept([](boost::system::error_code, sim_ip::tcp::socket) {});
  });
  BOOST_TEST(accept_use.find("a TCP acceptor of host 'a'") != std::string::npos, accept_use);
  const std::string reopen = message([&] { kept_acceptor->open(sim_ip::tcp::v4()); });
  BOOST_TEST(reopen.find("of host 'a' was used after the host restarted") != std::string::npos, reopen);
  std::array<char, 4> buf{};
  const std::string udp_use = message([&] { kept_udp->async_receive(asio::buffer(buf), [](auto, auto) {}); });
  BOOST_TEST(udp_use.find("a UDP socket of host 'a'") != std::string::npos, udp_use);
  // A send is refused before anything goes out.
  const std::string udp_send = message([&] {
    kept_udp->send_to(asio::buffer(buf), sim_ip::udp::endpoint(a.address(), 53));
  });
  BOOST_TEST(udp_send.find("a UDP socket of host 'a'") != std::string::npos, udp_send);
  // A stale socket cannot take a connection from a new acceptor either.
  sim_ip::tcp::acceptor fresh_acceptor(a.context(), sim_ip::tcp::endpoint(sim_ip::tcp::v4(), 81));
  const std::string accept_into = message([&] {
    fresh_acceptor.async_accept(*kept_socket, [](boost::system::error_code) {});
  });
  BOOST_TEST(accept_into.find("a TCP socket of host 'a'") != std::string::npos, accept_into);
  // A timer moved from is as good as new.
  simasio::steady_timer moved_to(std::move(*kept_timer));
  bool moved_fired = false;
  kept_timer->expires_after(1s);
  kept_timer->async_wait([&](boost::system::error_code ec) { moved_fired = !ec; });
  // What the new process makes works, on the same context and port.
  bool fired = false;
  simasio::steady_timer fresh(a.context(), 1s);
  fresh.async_wait([&](boost::system::error_code ec) { fired = !ec; });
  sim_ip::tcp::acceptor again(a.context(), sim_ip::tcp::endpoint(sim_ip::tcp::v4(), 80));
  w.run_for(2s);
  BOOST_TEST(fired);
  BOOST_TEST(moved_fired);
  BOOST_TEST(again.is_open());
}

BOOST_AUTO_TEST_CASE(boot_runs_as_the_host_so_clocks_read_its_time) {
  simasio::world w;
  auto& a = w.add_host("a");
  a.set_clock(1h);
  std::int64_t seen = -1;
  a.on_boot([&](simasio::host&) { seen = simasio::steady_clock::now().time_since_epoch().count(); });
  BOOST_TEST(seen == duration(1h).count());
}

BOOST_AUTO_TEST_CASE(bad_clock_drift_is_rejected) {
  simasio::world w;
  auto& a = w.add_host("a");
  BOOST_CHECK_THROW(a.set_clock(0s, -2'000'000.0), simasio::config_error);
}

BOOST_AUTO_TEST_SUITE_END()
