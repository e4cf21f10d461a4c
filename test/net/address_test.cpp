// address_test.cpp — host addresses and the source address of what sockets send
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>

namespace net = simasio::asio;
using net::ip::tcp;
using net::ip::udp;
using namespace std::chrono_literals;

namespace {

// A UDP echo server: answers every datagram to its sender.
struct udp_echo {
  udp::socket socket;
  char buf[64];
  udp::endpoint sender;
  udp::endpoint last_sender;
  explicit udp_echo(net::io_context& io, unsigned short port) : socket(io, udp::endpoint(udp::v4(), port)) {
    receive();
  }
  void receive() {
    socket.async_receive_from(net::buffer(buf), sender, [this](boost::system::error_code ec, std::size_t n) {
      if (ec) return;
      last_sender = sender;
      socket.async_send_to(net::buffer(buf, n), sender, [this](boost::system::error_code, std::size_t) { receive(); });
    });
  }
};

// Sends "ping" to `to` and records the answer and who sent it.
struct udp_pinger {
  udp::socket socket;
  char buf[64];
  udp::endpoint from;
  std::string answer;
  udp_pinger(net::io_context& io, udp::endpoint to) : socket(io, udp::v4()) {
    socket.async_send_to(net::buffer("ping", 4), to, [](boost::system::error_code, std::size_t) {});
    socket.async_receive_from(net::buffer(buf), from, [this](boost::system::error_code ec, std::size_t n) {
      if (!ec) answer.assign(buf, n);
    });
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(addresses)

BOOST_AUTO_TEST_CASE(default_addresses_come_from_the_benchmarking_range_and_wrap_into_198_19) {
  simasio::world w;
  BOOST_TEST(w.add_host("h1").address().to_string() == "198.18.0.1");
  for (int i = 2; i < 255; ++i) w.add_host("h" + std::to_string(i));
  BOOST_TEST(w.add_host("h255").address().to_string() == "198.18.0.255");
  BOOST_TEST(w.add_host("h256").address().to_string() == "198.18.1.0");
  for (int i = 257; i < 65535; ++i) w.add_host("h" + std::to_string(i));
  BOOST_TEST(w.add_host("h65535").address().to_string() == "198.18.255.255");
  BOOST_TEST(w.add_host("h65536").address().to_string() == "198.19.0.0");
  // Every one of them is reachable by its address.
  udp::socket rx(w.get_host("h65536").context(), udp::endpoint(udp::v4(), 9));
  udp::socket tx(w.get_host("h300").context(), udp::v4());
  tx.send_to(net::buffer("x", 1), udp::endpoint(w.get_host("h65536").address(), 9));
  char c;
  udp::endpoint from;
  BOOST_TEST(rx.receive_from(net::buffer(&c, 1), from) == 1u);
  BOOST_TEST(from.address() == w.get_host("h300").address());
}

BOOST_AUTO_TEST_CASE(default_addresses_skip_explicit_ones_and_localhost_takes_the_top) {
  simasio::world w;
  auto& x = w.add_host("x", net::ip::make_address("198.18.0.2"));
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  BOOST_TEST(x.address().to_string() == "198.18.0.2");
  BOOST_TEST(a.address().to_string() == "198.18.0.1");
  BOOST_TEST(b.address().to_string() == "198.18.0.3");
  simasio::io_context io;
  BOOST_TEST(io.get_host().name() == "localhost");
  BOOST_TEST(io.get_host().address().to_string() == "198.19.255.254");
  BOOST_TEST(w.add_host("c").address().to_string() == "198.18.0.4");
}

BOOST_AUTO_TEST_CASE(loopback_wildcard_and_multicast_addresses_are_refused_for_hosts) {
  simasio::world w;
  for (const char* a : {"127.0.0.1", "0.0.0.0", "239.255.0.1", "::1"}) {
    BOOST_TEST_CONTEXT(a) {
      try {
        w.add_host(std::string("h") + a, net::ip::make_address(a));
        BOOST_FAIL("add_host accepted " << a);
      } catch (const simasio::usage_error& e) {
        BOOST_TEST(std::string(e.what()).find(std::string(a) + " cannot be the address of host") != std::string::npos);
      }
    }
  }
  BOOST_TEST(w.hosts().empty());
}

BOOST_AUTO_TEST_CASE(past_the_default_range_add_host_fails_naming_the_range) {
  simasio::world w;
  // 131070 addresses: 198.18.0.1 to 198.19.255.254; localhost takes the last.
  simasio::io_context io;
  for (std::uint32_t i = 1; i < 131070; ++i) w.add_host("h" + std::to_string(i));
  BOOST_TEST(w.get_host("h131069").address().to_string() == "198.19.255.253");
  try {
    w.add_host("one_too_many");
    BOOST_FAIL("add_host past the default range succeeded");
  } catch (const simasio::usage_error& e) {
    BOOST_TEST(std::string(e.what()).find("198.18.0.1 - 198.19.255.254 are used up") != std::string::npos);
  }
  BOOST_TEST(w.add_host("explicit", net::ip::make_address("192.0.2.1")).address().to_string() == "192.0.2.1");
}

// A default-constructed io_context joins "localhost": other hosts reach it
// by its address, and it answers them at theirs.
BOOST_AUTO_TEST_CASE(udp_server_on_the_default_context_answers_another_host) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      simasio::world w(seed);
      net::io_context io;
      auto& client_host = w.add_host("client");
      udp_echo server(io, 7);
      udp_pinger client(client_host.context(), udp::endpoint(io.get_host().address(), 7));
      w.run_for(5s);
      BOOST_TEST(client.answer == "ping");
      BOOST_TEST(client.from == udp::endpoint(io.get_host().address(), 7));
      BOOST_TEST(server.last_sender == udp::endpoint(client_host.address(), client.socket.local_endpoint().port()));
    }
  }
}

BOOST_AUTO_TEST_CASE(udp_client_on_the_default_context_gets_the_answer_of_another_host) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      simasio::world w(seed);
      net::io_context io;
      auto& server_host = w.add_host("server");
      udp_echo server(server_host.context(), 7);
      udp_pinger client(io, udp::endpoint(server_host.address(), 7));
      w.run_for(5s);
      BOOST_TEST(client.answer == "ping");
      BOOST_TEST(server.last_sender.address() == io.get_host().address());
      BOOST_TEST(!server.last_sender.address().is_loopback());
    }
  }
}

BOOST_AUTO_TEST_CASE(tcp_peers_of_the_default_context_see_real_addresses_both_ways) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      simasio::world w(seed);
      net::io_context io;
      auto& other = w.add_host("other");
      // Server on the default context, client elsewhere.
      tcp::acceptor acceptor(io, tcp::endpoint(tcp::v4(), 8000));
      tcp::socket accepted(io);
      tcp::endpoint seen_by_server;
      acceptor.async_accept(accepted, [&](boost::system::error_code ec) {
        if (!ec) seen_by_server = accepted.remote_endpoint();
      });
      tcp::socket client(other.context());
      client.async_connect(tcp::endpoint(io.get_host().address(), 8000), [](boost::system::error_code) {});
      // Server elsewhere, client on the default context.
      tcp::acceptor acceptor2(other.context(), tcp::endpoint(tcp::v4(), 8001));
      tcp::socket accepted2(other.context());
      tcp::endpoint seen_by_server2;
      acceptor2.async_accept(accepted2, [&](boost::system::error_code ec) {
        if (!ec) seen_by_server2 = accepted2.remote_endpoint();
      });
      tcp::socket client2(io);
      client2.async_connect(tcp::endpoint(other.address(), 8001), [](boost::system::error_code) {});
      w.run_for(5s);
      BOOST_TEST(seen_by_server == client.local_endpoint());
      BOOST_TEST(seen_by_server.address() == other.address());
      BOOST_TEST(accepted.local_endpoint() == tcp::endpoint(io.get_host().address(), 8000));
      BOOST_TEST(seen_by_server2 == client2.local_endpoint());
      BOOST_TEST(seen_by_server2.address() == io.get_host().address());
      BOOST_TEST(!seen_by_server2.address().is_loopback());
    }
  }
}

BOOST_AUTO_TEST_CASE(traffic_to_loopback_stays_on_loopback) {
  simasio::world w(3);
  auto& h = w.add_host("h");
  udp::socket rx(h.context(), udp::endpoint(udp::v4(), 9));
  udp::socket tx(h.context(), udp::v4());
  tx.send_to(net::buffer("x", 1), udp::endpoint(net::ip::make_address("127.0.0.1"), 9));
  char c;
  udp::endpoint from;
  rx.receive_from(net::buffer(&c, 1), from);
  BOOST_TEST(from.address().to_string() == "127.0.0.1");
  tcp::acceptor acceptor(h.context(), tcp::endpoint(tcp::v4(), 80));
  tcp::socket client(h.context());
  client.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), 80));
  tcp::socket accepted(h.context());
  acceptor.accept(accepted);
  BOOST_TEST(accepted.remote_endpoint() == client.local_endpoint());
  BOOST_TEST(client.local_endpoint().address().to_string() == "127.0.0.1");
}

BOOST_AUTO_TEST_CASE(a_socket_bound_to_its_host_address_sends_from_it_even_to_loopback) {
  simasio::world w(4);
  auto& h = w.add_host("h");
  udp::socket rx(h.context(), udp::endpoint(udp::v4(), 9));
  udp::socket tx(h.context(), udp::endpoint(h.address(), 0));
  tx.send_to(net::buffer("x", 1), udp::endpoint(net::ip::make_address("127.0.0.1"), 9));
  char c;
  udp::endpoint from;
  rx.receive_from(net::buffer(&c, 1), from);
  BOOST_TEST(from == tx.local_endpoint());
  BOOST_TEST(from.address() == h.address());
}

BOOST_AUTO_TEST_CASE(a_socket_bound_to_loopback_cannot_reach_another_host) {
  simasio::world w(5);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9));
  udp::socket tx(a.context(), udp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  boost::system::error_code ec;
  tx.send_to(net::buffer("x", 1), udp::endpoint(b.address(), 9), 0, ec);
  BOOST_TEST(ec == net::error::invalid_argument);
  tx.send_to(net::buffer("x", 1), udp::endpoint(a.address(), 9), 0, ec);  // its own host: fine
  BOOST_TEST(!ec);
  tcp::acceptor acceptor(b.context(), tcp::endpoint(tcp::v4(), 80));
  tcp::socket client(a.context());
  client.open(tcp::v4());
  client.bind(tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  client.connect(tcp::endpoint(b.address(), 80), ec);
  BOOST_TEST(ec == net::error::invalid_argument);
}

// ---- IPv6 hosts ---------------------------------------------------------------------
// Hosts have one address, IPv4 or IPv6; sockets reach a host over its
// family, and a dual-stack IPv6 socket reaches IPv4 hosts through v4-mapped
// addresses (the differential suite checks the same against Linux).

BOOST_AUTO_TEST_CASE(ipv6_hosts_talk_tcp_and_udp_and_see_each_others_addresses) {
  simasio::world w(5);
  auto& a = w.add_host("a", net::ip::make_address("fd00::a"));
  auto& b = w.add_host("b", net::ip::make_address("fd00::b"));
  tcp::acceptor acceptor(b.context(), tcp::endpoint(tcp::v6(), 80));
  tcp::socket client(a.context());
  tcp::socket served(b.context());
  acceptor.async_accept(served, [](boost::system::error_code ec) { BOOST_TEST(!ec); });
  client.async_connect(tcp::endpoint(b.address(), 80), [](boost::system::error_code ec) { BOOST_TEST(!ec); });
  w.run();
  BOOST_TEST(client.local_endpoint().address() == a.address());
  BOOST_TEST(served.remote_endpoint() == client.local_endpoint());
  BOOST_TEST(served.local_endpoint() == tcp::endpoint(b.address(), 80));

  udp::socket rx(b.context(), udp::endpoint(udp::v6(), 53));
  udp::socket tx(a.context(), udp::v6());
  tx.send_to(net::buffer("x", 1), udp::endpoint(b.address(), 53));
  char c = 0;
  udp::endpoint from;
  rx.async_receive_from(net::buffer(&c, 1), from, [](boost::system::error_code ec, std::size_t) { BOOST_TEST(!ec); });
  w.run();
  BOOST_TEST(c == 'x');
  BOOST_TEST(from.address() == a.address());
}

BOOST_AUTO_TEST_CASE(a_host_without_an_address_of_a_family_cannot_send_over_it) {
  simasio::world w(5);
  auto& v4 = w.add_host("v4");
  auto& v6 = w.add_host("v6", net::ip::make_address("fd00::6"));
  boost::system::error_code ec;
  tcp::socket from_v4(v4.context());
  from_v4.open(tcp::v6());
  from_v4.connect(tcp::endpoint(v6.address(), 80), ec);
  BOOST_TEST(ec == net::error::network_unreachable);
  udp::socket udp_from_v6(v6.context(), udp::v4());
  udp_from_v6.send_to(net::buffer("x", 1), udp::endpoint(v4.address(), 53), 0, ec);
  BOOST_TEST(ec == net::error::network_unreachable);
  // Loopback stays open to both.
  udp::socket loop(v6.context(), udp::v4());
  loop.send_to(net::buffer("x", 1), udp::endpoint(net::ip::make_address("127.0.0.1"), 53), 0, ec);
  BOOST_TEST(!ec);
}

BOOST_AUTO_TEST_CASE(a_dual_stack_server_sees_ipv4_clients_as_v4_mapped_and_v6_only_refuses_them) {
  simasio::world w(5);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  tcp::acceptor dual(server.context(), tcp::endpoint(tcp::v6(), 80));
  tcp::socket served(server.context());
  dual.async_accept(served, [](boost::system::error_code ec) { BOOST_TEST(!ec); });
  tcp::socket c(client.context());
  c.async_connect(tcp::endpoint(server.address(), 80), [](boost::system::error_code ec) { BOOST_TEST(!ec); });
  w.run();
  const auto mapped = [](const net::ip::address& a) { return net::ip::make_address_v6(net::ip::v4_mapped, a.to_v4()); };
  BOOST_TEST(served.remote_endpoint().address() == net::ip::address(mapped(client.address())));
  BOOST_TEST(served.local_endpoint().address() == net::ip::address(mapped(server.address())));
  BOOST_TEST(c.remote_endpoint().address() == server.address());

  tcp::acceptor only(server.context());
  only.open(tcp::v6());
  only.set_option(net::ip::v6_only(true));
  only.bind(tcp::endpoint(tcp::v6(), 81));
  only.listen();
  tcp::socket refused(client.context());
  boost::system::error_code ec;
  refused.async_connect(tcp::endpoint(server.address(), 81), [&](boost::system::error_code e) { ec = e; });
  w.run();
  BOOST_TEST(ec == net::error::connection_refused);
}

BOOST_AUTO_TEST_CASE(addresses_of_the_wrong_family_get_linuxs_errors) {
  simasio::world w(5);
  auto& h = w.add_host("h");
  boost::system::error_code ec;
  tcp::socket v4(h.context());
  v4.open(tcp::v4());
  v4.bind(tcp::endpoint(net::ip::address_v6::any(), 0), ec);
  BOOST_TEST(ec == net::error::address_family_not_supported);
  v4.connect(tcp::endpoint(net::ip::address_v6::loopback(), 80), ec);
  BOOST_TEST(ec == net::error::address_family_not_supported);
  v4.set_option(net::ip::v6_only(true), ec);
  BOOST_TEST(ec == net::error::no_protocol_option);
  tcp::socket v6(h.context());
  v6.open(tcp::v6());
  v6.connect(tcp::endpoint(h.address(), 80), ec);  // a 16-byte sockaddr_in: too short for AF_INET6
  BOOST_TEST(ec == net::error::invalid_argument);
  v6.bind(tcp::endpoint(tcp::v6(), 0));
  v6.set_option(net::ip::v6_only(true), ec);  // fixed at bind
  BOOST_TEST(ec == net::error::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
