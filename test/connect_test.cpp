// connect_test.cpp — connect and async_connect over endpoint sequences and iterator ranges
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <vector>

namespace net = simasio::asio;
using net::ip::tcp;

// Not "connect": a test suite is a namespace, and ::connect is the socket call's.
BOOST_AUTO_TEST_SUITE(connect_functions)

BOOST_AUTO_TEST_CASE(connect_free_function_tries_each_endpoint) {
  simasio::world w;
  auto& a = w.add_host("alpha");
  auto& b = w.add_host("beta");
  tcp::acceptor acc(b.context(), tcp::endpoint(tcp::v4(), 443));
  std::vector<tcp::endpoint> eps{tcp::endpoint(b.address(), 1), tcp::endpoint(b.address(), 443)};
  tcp::socket s(a.context());
  const tcp::endpoint chosen = net::connect(s, eps);
  BOOST_TEST(chosen.port() == 443);
  tcp::socket s2(a.context());
  tcp::endpoint async_chosen;
  net::async_connect(s2, eps, [&](boost::system::error_code ec, const tcp::endpoint& ep) {
    BOOST_TEST(!ec);
    async_chosen = ep;
  });
  w.run();
  BOOST_TEST(async_chosen.port() == 443);
  tcp::socket s3(a.context());
  boost::system::error_code ec;
  auto it = net::connect(s3, eps.begin(), eps.begin() + 1, ec);
  BOOST_TEST(ec == net::error::connection_refused);
  BOOST_TEST((it == eps.begin() + 1));
}

BOOST_AUTO_TEST_SUITE_END()
