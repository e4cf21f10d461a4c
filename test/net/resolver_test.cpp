// resolver_test.cpp — names of the world's hosts, localhost, numbers, failures
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/test/unit_test.hpp>

namespace net = simasio::asio;
using net::ip::tcp;

BOOST_AUTO_TEST_SUITE(resolver)

BOOST_AUTO_TEST_CASE(resolves_host_names_localhost_and_numbers) {
  simasio::world w;
  auto& a = w.add_host("alpha");
  auto& b = w.add_host("beta");
  tcp::resolver r(a.context());
  auto res = r.resolve("beta", "http");
  BOOST_REQUIRE(res.size() == 1u);
  BOOST_TEST(res.begin()->endpoint() == tcp::endpoint(b.address(), 80));
  BOOST_TEST(res.begin()->host_name() == "beta");
  BOOST_TEST(r.resolve("localhost", "8080").begin()->endpoint().address().is_loopback());
  BOOST_TEST(r.resolve("198.18.0.2", "1").begin()->endpoint().address() == b.address());
  auto rev = r.resolve(tcp::endpoint(b.address(), 22));
  BOOST_TEST(rev.begin()->host_name() == "beta");
}

BOOST_AUTO_TEST_CASE(unknown_names_fail_with_host_not_found) {
  simasio::world w;
  auto& a = w.add_host("alpha");
  tcp::resolver r(a.context());
  boost::system::error_code ec;
  r.resolve("nowhere", "80", ec);
  BOOST_TEST(ec == net::error::host_not_found);
  r.resolve("alpha", "no-such-service", ec);
  BOOST_TEST(ec == net::error::service_not_found);
  boost::system::error_code async_ec;
  r.async_resolve("nowhere", "80", [&](boost::system::error_code e, tcp::resolver::results_type) { async_ec = e; });
  BOOST_TEST(!async_ec);  // never inline
  w.run();
  BOOST_TEST(async_ec == net::error::host_not_found);
  try {  // the throwing form names the name, the asking host and the world's hosts
    r.resolve("nowhere", "80");
    BOOST_FAIL("expected host_not_found");
  } catch (const boost::system::system_error& e) {
    BOOST_TEST(e.code() == net::error::host_not_found);
    BOOST_TEST(std::string(e.what()).find("resolve 'nowhere', '80' on host 'alpha': no host of this world is named "
                                          "'nowhere' (its hosts: alpha; world::add_host names one)") !=
                   std::string::npos,
               e.what());
  }
  try {
    r.resolve("alpha", "gopherish");
    BOOST_FAIL("expected service_not_found");
  } catch (const boost::system::system_error& e) {
    BOOST_TEST(std::string(e.what()).find("'gopherish' is neither a port number nor a service") != std::string::npos,
               e.what());
  }
  try {
    r.resolve("alpha", "65536");
    BOOST_FAIL("expected service_not_found");
  } catch (const boost::system::system_error& e) {
    BOOST_TEST(std::string(e.what()).find("port 65536 is out of range (0 to 65535)") != std::string::npos, e.what());
  }
  // A big world lists its first 20 hosts.
  for (int i = 0; i < 24; ++i) w.add_host("extra" + std::to_string(i));
  try {
    r.resolve("nowhere", "80");
    BOOST_FAIL("expected host_not_found");
  } catch (const boost::system::system_error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("extra18 and 5 more;") != std::string::npos, what);
    BOOST_TEST(what.find("extra19") == std::string::npos, what);
  }
}

// Like a timer or a socket, a resolver belongs to the process that made it.
BOOST_AUTO_TEST_CASE(a_resolver_of_a_crashed_process_is_refused_after_restart) {
  simasio::world w;
  auto& a = w.add_host("alpha");
  w.add_host("beta");
  tcp::resolver old(a.context());
  w.run_for(std::chrono::milliseconds(250));
  a.crash(simasio::crash_kind::power);
  a.restart();
  auto message = [](auto&& use) { return simasio_test::what_of<simasio::usage_error>(use); };
  const std::string sync_use = message([&] { old.resolve("beta", "80"); });
  BOOST_TEST(sync_use.find("a resolver of host 'alpha' was used after the host restarted") != std::string::npos,
             sync_use);
  BOOST_TEST(sync_use.find("died in the power crash at t=0.250") != std::string::npos, sync_use);
  const std::string async_use =
      message([&] { old.async_resolve("beta", "80", [](boost::system::error_code, tcp::resolver::results_type) {}); });
  BOOST_TEST(async_use.find("a resolver of host 'alpha' was used after the host restarted") != std::string::npos,
             async_use);
  tcp::resolver fresh(a.context());
  BOOST_TEST(fresh.resolve("beta", "80").size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
