// udp_test.cpp — simulated UDP: datagrams, loss and duplication rates, errors
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <set>
#include <string>

namespace net = simasio::asio;
using net::ip::udp;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(udp_socket)

BOOST_AUTO_TEST_CASE(send_to_and_receive_from_between_hosts) {
  simasio::world w(3);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  udp::socket rx(b.context(), udp::endpoint(udp::v4(), 5353));
  udp::socket tx(a.context(), udp::v4());
  tx.send_to(net::buffer(std::string("ping")), udp::endpoint(b.address(), 5353));
  char buf[16];
  udp::endpoint from;
  const std::size_t n = rx.receive_from(net::buffer(buf), from);
  BOOST_TEST(std::string(buf, n) == "ping");
  BOOST_TEST(from.address() == a.address());
  BOOST_TEST(from.port() == tx.local_endpoint().port());
}

BOOST_AUTO_TEST_CASE(async_receive_from_fills_the_sender_endpoint) {
  simasio::world w(4);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9));
  udp::socket tx(a.context(), udp::endpoint(udp::v4(), 4000));
  char buf[8];
  udp::endpoint from;
  std::size_t got = 0;
  rx.async_receive_from(net::buffer(buf), from, [&](boost::system::error_code ec, std::size_t n) {
    BOOST_TEST(!ec);
    got = n;
  });
  tx.async_send_to(net::buffer("hey", 3), udp::endpoint(b.address(), 9), [](auto, auto) {});
  w.run();
  BOOST_TEST(got == 3u);
  BOOST_TEST(from == udp::endpoint(a.address(), 4000));
}

BOOST_AUTO_TEST_CASE(connected_udp_send_and_receive) {
  simasio::world w(5);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9));
  udp::socket tx(a.context(), udp::v4());
  tx.connect(udp::endpoint(b.address(), 9));
  tx.send(net::buffer("abc", 3));
  char buf[8];
  BOOST_TEST(rx.receive(net::buffer(buf)) == 3u);
}

BOOST_AUTO_TEST_CASE(oversized_datagram_fails_with_message_size) {
  simasio::world w;
  auto& a = w.add_host("a");
  udp::socket tx(a.context(), udp::v4());
  std::string big(70000, 'x');
  boost::system::error_code ec;
  tx.send_to(net::buffer(big), udp::endpoint(a.address(), 9), 0, ec);
  BOOST_TEST(ec == net::error::message_size);
}

BOOST_AUTO_TEST_CASE(loss_and_duplication_rates_match_the_link) {
  std::size_t sent = 0, received = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.loss = 0.2;
    link.duplicate = 0.1;
    w.net().configure(link);
    auto& a = w.add_host("a");
    auto& b = w.add_host("b");
    udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9));
    rx.set_option(net::socket_base::receive_buffer_size(1 << 20));
    udp::socket tx(a.context(), udp::v4());
    for (int i = 0; i < 250; ++i) tx.send_to(net::buffer(&i, sizeof i), udp::endpoint(b.address(), 9));
    sent += 250;
    w.run();
    received += rx.available() > 0 ? 0 : 0;
    char buf[8];
    while (rx.available() > 0) {
      rx.receive(net::buffer(buf));
      ++received;
    }
  }
  // Expected delivered copies per datagram: 0.8 * 1.1 = 0.88.
  const double rate = static_cast<double>(received) / static_cast<double>(sent);
  BOOST_TEST(std::abs(rate - 0.88) < 0.03);
}

BOOST_AUTO_TEST_CASE(udp_across_a_partition_is_dropped_and_flows_after_heal) {
  simasio::world w(6);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9));
  udp::socket tx(a.context(), udp::v4());
  w.net().partition({{&a}, {&b}});
  tx.send_to(net::buffer("lost", 4), udp::endpoint(b.address(), 9));
  w.run();
  BOOST_TEST(rx.available() == 0u);
  w.net().heal();
  tx.send_to(net::buffer("here", 4), udp::endpoint(b.address(), 9));
  w.run();
  BOOST_TEST(rx.available() == 4u);
}

BOOST_AUTO_TEST_CASE(hold_buffers_and_release_delivers) {
  simasio::world w(7);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9));
  udp::socket tx(a.context(), udp::v4());
  w.net().hold(a, b);
  for (int i = 0; i < 3; ++i) tx.send_to(net::buffer("held", 4), udp::endpoint(b.address(), 9));
  w.run_for(10s);
  BOOST_TEST(rx.available() == 0u);
  w.net().release(a, b);
  w.run();
  int n = 0;
  char buf[8];
  while (rx.available() > 0) {
    rx.receive(net::buffer(buf));
    ++n;
  }
  BOOST_TEST(n == 3);
}

BOOST_AUTO_TEST_CASE(datagrams_reorder_with_independent_latencies) {
  bool reordered = false;
  for (std::uint64_t seed = 0; seed < 20 && !reordered; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    auto& b = w.add_host("b");
    udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9));
    udp::socket tx(a.context(), udp::v4());
    for (int i = 0; i < 10; ++i) tx.send_to(net::buffer(&i, sizeof i), udp::endpoint(b.address(), 9));
    w.run();
    int prev = -1;
    while (rx.available() > 0) {
      int v;
      rx.receive(net::buffer(&v, sizeof v));
      reordered |= v < prev;
      prev = v;
    }
  }
  BOOST_TEST(reordered);
}

BOOST_AUTO_TEST_CASE(datagrams_beyond_the_mtu_are_lost_per_fragment) {
  std::size_t small_rx = 0, big_rx = 0;
  const int per_seed = 100;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.loss = 0.3;
    link.mtu = 1500;
    w.net().configure(link);
    auto& a = w.add_host("a");
    auto& b = w.add_host("b");
    udp::socket rx_small(b.context(), udp::endpoint(udp::v4(), 1));
    udp::socket rx_big(b.context(), udp::endpoint(udp::v4(), 2));
    rx_big.set_option(net::socket_base::receive_buffer_size(1 << 22));
    udp::socket tx(a.context(), udp::v4());
    const std::string small(100, 's'), big(4000, 'B');  // 3 fragments
    for (int i = 0; i < per_seed; ++i) {
      tx.send_to(net::buffer(small), udp::endpoint(b.address(), 1));
      tx.send_to(net::buffer(big), udp::endpoint(b.address(), 2));
    }
    w.run();
    std::vector<char> buf(8000);
    while (rx_small.available() > 0) { rx_small.receive(net::buffer(buf)); ++small_rx; }
    while (rx_big.available() > 0) { rx_big.receive(net::buffer(buf)); ++big_rx; }
  }
  const double n = 20.0 * per_seed;
  BOOST_TEST(std::abs(small_rx / n - 0.7) < 0.05);
  BOOST_TEST(std::abs(big_rx / n - 0.343) < 0.05);  // 0.7^3
}

// Payload buffers circulate between packets and sockets' queues (a read
// datagram's buffer carries the next one): every datagram still arrives
// with exactly its own size and bytes, whatever came through before it,
// duplicated or reordered, across seeds.
BOOST_AUTO_TEST_CASE(each_datagram_keeps_its_own_bytes_as_buffers_are_reused) {
  auto size_of = [](int i) { return static_cast<std::size_t>(i % 3 == 0 ? 1200 + i : i % 3 == 1 ? 2 : 300 + i); };
  auto byte_of = [](int i, std::size_t k) { return static_cast<char>((i * 31 + static_cast<int>(k) * 7) & 0x7f); };
  std::size_t received = 0;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.max_latency = 5ms;
    link.duplicate = 0.1;
    w.net().configure(link);
    auto& a = w.add_host("a");
    auto& b = w.add_host("b");
    udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9));
    udp::socket tx(a.context(), udp::v4());
    for (int round = 0; round < 4; ++round) {
      for (int i = round * 25; i < round * 25 + 25; ++i) {
        std::vector<char> out(size_of(i));
        out[0] = static_cast<char>(i);
        for (std::size_t k = 1; k < out.size(); ++k) out[k] = byte_of(i, k);
        tx.send_to(net::buffer(out), udp::endpoint(b.address(), 9));
      }
      w.run();
      while (rx.available() > 0) {
        std::vector<char> in(2000);
        in.resize(rx.receive(net::buffer(in)));
        BOOST_REQUIRE(!in.empty());
        const int i = in[0];
        BOOST_REQUIRE_MESSAGE(in.size() == size_of(i), "seed " << seed << " datagram " << i << ": " << in.size());
        for (std::size_t k = 1; k < in.size(); ++k)
          BOOST_REQUIRE_MESSAGE(in[k] == byte_of(i, k), "seed " << seed << " datagram " << i << " byte " << k);
        ++received;
      }
    }
  }
  BOOST_TEST(received >= 30u * 100u);  // every one, and some twice
}

BOOST_AUTO_TEST_SUITE_END()
