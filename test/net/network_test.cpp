// network_test.cpp — the world's network: link settings and resets
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include "two_hosts.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;
using simasio::duration;
using simasio_test::two_hosts;

BOOST_AUTO_TEST_SUITE(network)

BOOST_AUTO_TEST_CASE(network_reset_fails_both_ends_and_new_connections_work) {
  two_hosts t;
  auto& other = t.w.add_host("other");
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context()), bystander(other.context());
  s.connect(t.server_ep);
  bystander.connect(t.server_ep);
  tcp::socket peer(t.server.context()), bystander_peer(t.server.context());
  acc.accept(peer);
  acc.accept(bystander_peer);
  net::write(s, net::buffer("in flight", 9));  // lost with the connection
  boost::system::error_code client_ec, server_ec;
  char c;
  s.async_read_some(net::buffer(&c, 1), [&](boost::system::error_code ec, std::size_t) { client_ec = ec; });
  t.w.net().reset(t.client, t.server);
  t.w.run_for(1s);
  BOOST_TEST(client_ec == net::error::connection_reset);
  peer.read_some(net::buffer(&c, 1), server_ec);
  BOOST_TEST(server_ec == net::error::connection_reset);
  // Only connections between the two hosts are reset.
  net::write(bystander, net::buffer("ok", 2));
  std::string got(2, '\0');
  net::read(bystander_peer, net::buffer(got));
  BOOST_TEST(got == "ok");
  // The link itself is fine: a new connection works at once.
  tcp::socket again(t.client.context());
  again.connect(t.server_ep);
  tcp::socket again_peer(t.server.context());
  acc.accept(again_peer);
  net::write(again, net::buffer("hi", 2));
  net::read(again_peer, net::buffer(got));
  BOOST_TEST(got == "hi");
}

BOOST_AUTO_TEST_CASE(bandwidth_adds_serialisation_delay) {
  simasio::link_config link;
  link.min_latency = link.max_latency = 1ms;
  link.bandwidth = 100'000;  // 100 kB/s
  two_hosts t(1, link);
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  const duration start = t.w.now();
  net::write(s, net::buffer(std::string(50'000, 'b')));
  std::string got(50'000, '\0');
  net::read(peer, net::buffer(got));
  // 50 kB plus headers at 100 kB/s: a little over half a second.
  BOOST_TEST((t.w.now() - start > duration(500ms)));
  BOOST_TEST((t.w.now() - start < duration(600ms)));
}

BOOST_AUTO_TEST_SUITE_END()
