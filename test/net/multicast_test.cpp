// multicast_test.cpp — simulated IP multicast: membership, delivery per member host, loopback, errors
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace net = simasio::asio;
using net::ip::udp;
using namespace std::chrono_literals;

namespace {

constexpr unsigned short multicast_port = 30001;
constexpr int max_message_count = 10;

// A group member: a UDP socket on the multicast port (reuse_address, as
// multicast receivers set it), joined to the group, recording every
// datagram and its sender until the socket closes. (The shape of Asio's
// cpp11/multicast receiver; the conformance suite runs Asio's own.)
class receiver {
 public:
  receiver(net::io_context& ctx, const net::ip::address& listen_address, const net::ip::address& group_address)
      : socket_(ctx) {
    const udp::endpoint local(listen_address, multicast_port);
    socket_.open(local.protocol());
    socket_.set_option(udp::socket::reuse_address(true));
    socket_.bind(local);
    socket_.set_option(net::ip::multicast::join_group(group_address));
    receive();
  }

  std::vector<std::string> messages;
  std::set<udp::endpoint> senders;
  udp::socket socket_;

 private:
  void receive() {
    socket_.async_receive_from(net::buffer(buffer_), from_, [this](boost::system::error_code ec, std::size_t n) {
      if (ec) return;  // closed: stop listening
      messages.emplace_back(buffer_.data(), n);
      senders.insert(from_);
      receive();
    });
  }

  udp::endpoint from_;
  std::array<char, 1024> buffer_{};
};

// Sends "Message 0" .. "Message 9" to the group, one a second.
class sender {
 public:
  sender(net::io_context& ctx, const net::ip::address& group_address)
      : to_(group_address, multicast_port), socket_(ctx, to_.protocol()), pause_(ctx) {
    send_next();
  }

  udp::socket& socket() { return socket_; }

 private:
  void send_next() {
    text_ = "Message " + std::to_string(sent_++);
    socket_.async_send_to(net::buffer(text_), to_, [this](boost::system::error_code ec, std::size_t) {
      if (ec || sent_ >= max_message_count) return;
      pause_.expires_after(std::chrono::seconds(1));
      pause_.async_wait([this](boost::system::error_code e) {
        if (!e) send_next();
      });
    });
  }

  udp::endpoint to_;
  udp::socket socket_;
  net::steady_timer pause_;
  int sent_ = 0;
  std::string text_;
};

std::vector<std::string> all_messages() {
  std::vector<std::string> out;
  for (int i = 0; i < max_message_count; ++i) out.push_back("Message " + std::to_string(i));
  return out;
}

const net::ip::address group = net::ip::make_address("239.255.0.1");
const net::ip::address any = net::ip::make_address("0.0.0.0");

}  // namespace

BOOST_AUTO_TEST_SUITE(multicast)

BOOST_AUTO_TEST_CASE(receivers_on_every_member_host_get_every_message) {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      simasio::world w(seed);
      auto& tx = w.add_host("sender");
      std::vector<std::unique_ptr<receiver>> receivers;
      for (int i = 0; i < 3; ++i) receivers.push_back(std::make_unique<receiver>(w.add_host("r" + std::to_string(i)).context(), any, group));
      auto& bystander = w.add_host("bystander");  // bound to the port, not a member
      udp::socket unjoined(bystander.context(), udp::endpoint(udp::v4(), multicast_port));
      char buf[64];
      udp::endpoint from;
      std::size_t bystander_got = 0;
      unjoined.async_receive_from(net::buffer(buf), from, [&](boost::system::error_code ec, std::size_t) {
        if (!ec) ++bystander_got;
      });
      sender s(tx.context(), group);
      w.run_for(30s);
      for (auto& r : receivers) {
        // Independent latencies may reorder a sender's datagrams; each arrives once.
        std::vector<std::string> got = r->messages;
        std::sort(got.begin(), got.end());
        BOOST_TEST(got == all_messages(), boost::test_tools::per_element());
        BOOST_TEST(r->senders.size() == 1u);
        BOOST_TEST(r->senders.begin()->address() == tx.address());
        BOOST_TEST(r->senders.begin()->port() == s.socket().local_endpoint().port());
      }
      BOOST_TEST(bystander_got == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(each_member_gets_its_own_copy_lost_or_delayed_on_its_own_link) {
  std::size_t delivered = 0, sent = 0, receivers_differ = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.loss = 0.3;
    w.net().configure(link);
    auto& tx = w.add_host("sender");
    auto& slow = w.add_host("slow");
    receiver a(w.add_host("a").context(), any, group);
    receiver b(slow.context(), any, group);
    simasio::link_config far;
    far.min_latency = far.max_latency = std::chrono::milliseconds(500);
    far.loss = 0.3;
    w.net().configure(tx, slow, far);
    udp::socket out(tx.context(), udp::v4());
    for (int i = 0; i < 20; ++i)
      out.send_to(net::buffer("m" + std::to_string(i)), udp::endpoint(group, multicast_port));
    sent += 40;
    w.run_for(400ms);
    BOOST_TEST(b.messages.empty());  // its link is slower
    w.run_for(1s);
    delivered += a.messages.size() + b.messages.size();
    if (std::set<std::string>(a.messages.begin(), a.messages.end()) != std::set<std::string>(b.messages.begin(), b.messages.end()))
      ++receivers_differ;
  }
  const double rate = static_cast<double>(delivered) / static_cast<double>(sent);
  BOOST_TEST(rate > 0.65);
  BOOST_TEST(rate < 0.75);
  BOOST_TEST(receivers_differ > 90u);  // losses are independent per member
}

BOOST_AUTO_TEST_CASE(leaving_the_group_or_closing_stops_delivery) {
  simasio::world w(7);
  auto& tx = w.add_host("sender");
  receiver a(w.add_host("a").context(), any, group);
  receiver b(w.add_host("b").context(), any, group);
  udp::socket out(tx.context(), udp::v4());
  out.send_to(net::buffer("one", 3), udp::endpoint(group, multicast_port));
  w.run_for(1s);
  a.socket_.set_option(net::ip::multicast::leave_group(group));
  b.socket_.close();
  out.send_to(net::buffer("two", 3), udp::endpoint(group, multicast_port));
  w.run_for(1s);
  BOOST_TEST(a.messages == std::vector<std::string>{"one"});
  BOOST_TEST(b.messages == std::vector<std::string>{"one"});
  // Leaving while a datagram flies: it is dropped on arrival.
  receiver c(w.add_host("c").context(), any, group);
  out.send_to(net::buffer("three", 5), udp::endpoint(group, multicast_port));
  c.socket_.set_option(net::ip::multicast::leave_group(group));
  w.run_for(1s);
  BOOST_TEST(c.messages.empty());
}

BOOST_AUTO_TEST_CASE(the_senders_own_host_gets_a_copy_unless_loopback_is_off) {
  simasio::world w(8);
  auto& h = w.add_host("h");
  auto& other = w.add_host("other");
  receiver local(h.context(), any, group);
  receiver remote(other.context(), any, group);
  udp::socket out(h.context(), udp::v4());
  net::ip::multicast::enable_loopback loop;
  out.get_option(loop);
  BOOST_TEST(loop.value());  // on by default, as on Linux
  out.send_to(net::buffer("looped", 6), udp::endpoint(group, multicast_port));
  out.set_option(net::ip::multicast::enable_loopback(false));
  out.get_option(loop);
  BOOST_TEST(!loop.value());
  out.send_to(net::buffer("not looped", 10), udp::endpoint(group, multicast_port));
  w.run_for(1s);
  BOOST_TEST(local.messages == std::vector<std::string>{"looped"});
  BOOST_TEST(remote.messages.size() == 2u);
  BOOST_TEST(*local.senders.begin() == udp::endpoint(h.address(), out.local_endpoint().port()));
}

BOOST_AUTO_TEST_CASE(hops_zero_keeps_datagrams_on_the_senders_host) {
  simasio::world w(9);
  auto& h = w.add_host("h");
  auto& other = w.add_host("other");
  receiver local(h.context(), any, group);
  receiver remote(other.context(), any, group);
  udp::socket out(h.context(), udp::v4());
  net::ip::multicast::hops hops;
  out.get_option(hops);
  BOOST_TEST(hops.value() == 1);
  out.set_option(net::ip::multicast::hops(0));
  out.send_to(net::buffer("here", 4), udp::endpoint(group, multicast_port));
  out.set_option(net::ip::multicast::hops(4));
  out.get_option(hops);
  BOOST_TEST(hops.value() == 4);
  out.send_to(net::buffer("everywhere", 10), udp::endpoint(group, multicast_port));
  w.run_for(1s);
  BOOST_TEST(local.messages.size() == 2u);
  BOOST_TEST(remote.messages == std::vector<std::string>{"everywhere"});
}

BOOST_AUTO_TEST_CASE(a_socket_bound_to_the_group_address_receives_and_one_bound_to_the_host_address_does_not) {
  simasio::world w(10);
  auto& tx = w.add_host("sender");
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  receiver on_group(a.context(), group, group);
  receiver on_unicast(b.context(), b.address(), group);
  udp::socket out(tx.context(), udp::v4());
  out.send_to(net::buffer("g", 1), udp::endpoint(group, multicast_port));
  w.run_for(1s);
  BOOST_TEST(on_group.messages.size() == 1u);
  BOOST_TEST(on_unicast.messages.empty());
}

BOOST_AUTO_TEST_CASE(membership_errors_are_linuxs) {
  simasio::world w(11);
  auto& h = w.add_host("h");
  udp::socket s(h.context(), udp::endpoint(udp::v4(), multicast_port));
  boost::system::error_code ec;
  s.set_option(net::ip::multicast::join_group(net::ip::make_address("198.18.0.9")), ec);
  BOOST_TEST(ec == net::error::invalid_argument);  // not a group
  s.set_option(net::ip::multicast::join_group(group), ec);
  BOOST_TEST(!ec);
  s.set_option(net::ip::multicast::join_group(group), ec);
  BOOST_TEST(ec == net::error::address_in_use);  // joined already (EADDRINUSE)
  s.set_option(net::ip::multicast::leave_group(net::ip::make_address("239.1.2.3")), ec);
  BOOST_TEST(ec == boost::system::errc::address_not_available);  // never joined (EADDRNOTAVAIL)
  net::ip::tcp::socket t(h.context(), net::ip::tcp::v4());
  t.set_option(net::ip::multicast::join_group(group), ec);
  BOOST_TEST(ec == boost::system::errc::protocol_error);  // TCP (EPROTO)
  udp::socket closed(h.context());
  closed.set_option(net::ip::multicast::join_group(group), ec);
  BOOST_TEST(ec == net::error::bad_descriptor);
}

BOOST_AUTO_TEST_CASE(a_group_nobody_joined_swallows_datagrams) {
  simasio::world w(12);
  auto& tx = w.add_host("sender");
  auto& b = w.add_host("b");
  udp::socket rx(b.context(), udp::endpoint(udp::v4(), multicast_port));
  udp::socket out(tx.context(), udp::v4());
  BOOST_TEST(out.send_to(net::buffer("x", 1), udp::endpoint(group, multicast_port)) == 1u);
  BOOST_TEST(rx.available() == 0u);
  w.run_for(1s);
  BOOST_TEST(rx.available() == 0u);
}

BOOST_AUTO_TEST_CASE(same_seed_same_multicast_trace) {
  auto run = [](std::uint64_t seed) {
    simasio::world w(seed);
    simasio::link_config link;
    link.loss = 0.2;
    link.duplicate = 0.1;
    w.net().configure(link);
    auto& tx = w.add_host("sender");
    std::vector<std::unique_ptr<receiver>> receivers;
    for (int i = 0; i < 4; ++i) receivers.push_back(std::make_unique<receiver>(w.add_host("r" + std::to_string(i)).context(), any, group));
    sender s(tx.context(), group);
    w.run_for(30s);
    std::string got;
    for (auto& r : receivers)
      for (auto& m : r->messages) got += m + ";";
    return std::make_pair(w.trace_hash(), got);
  };
  for (std::uint64_t seed = 0; seed < 20; ++seed) BOOST_TEST((run(seed) == run(seed)), "seed " << seed);
}

BOOST_AUTO_TEST_SUITE_END()
