// fault_rule_test.cpp — faults as data: rules that judge packets (network::add_rule)
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

namespace net = simasio::asio;
using net::ip::tcp;
using net::ip::udp;
using namespace std::chrono_literals;
using simasio::duration;
using simasio::packet_kind;
using simasio::packet_view;
using simasio::verdict;

namespace {

simasio::world_options traced(std::uint64_t seed) {
  simasio::world_options o;
  o.seed = seed;
  o.record_trace = true;
  return o;
}

std::size_t count_drops(const simasio::world& w, simasio::drop_reason why) {
  std::size_t n = 0;
  for (const auto& e : w.events().events())
    if (e.kind == simasio::event_kind::net_drop && e.b == static_cast<std::uint64_t>(why)) ++n;
  return n;
}

// n1 sends `count` numbered datagrams to n2, one every 50 ms; n2 records
// each one's arrival.
struct datagrams {
  explicit datagrams(simasio::world& w, int count) : w(w), count(count) {
    rx.async_receive_from(net::buffer(buf), from, [this](auto ec, std::size_t n) { on_receive(ec, n); });
    for (int i = 0; i < count; ++i) {
      auto t = std::make_shared<net::steady_timer>(n1.context(), 50ms * i);
      t->async_wait([this, t, i](auto) {
        auto msg = std::make_shared<std::string>("AppendEntries " + std::to_string(i));
        tx.async_send_to(net::buffer(*msg), udp::endpoint(n2.address(), 9), [msg](auto, auto) {});
      });
    }
  }
  void on_receive(boost::system::error_code ec, std::size_t n) {
    if (ec) return;
    got.emplace_back(buf, n);
    at.push_back(w.now());
    rx.async_receive_from(net::buffer(buf), from, [this](auto e, std::size_t m) { on_receive(e, m); });
  }
  simasio::world& w;
  int count;
  simasio::host& n1 = w.add_host("n1");
  simasio::host& n2 = w.add_host("n2");
  udp::socket rx{n2.context(), udp::endpoint(udp::v4(), 9)};
  udp::socket tx{n1.context(), udp::v4()};
  char buf[64];
  udp::endpoint from;
  std::vector<std::string> got;
  std::vector<duration> at;
};

// A server on "server" echoes nothing: it reads everything the client
// writes until eof, then reports it.
struct stream_pair {
  explicit stream_pair(simasio::world& w) : w(w) {
    acc.async_accept([this](boost::system::error_code ec, tcp::socket s) {
      BOOST_REQUIRE(!ec);
      peer = std::make_unique<tcp::socket>(std::move(s));
      read_more();
    });
  }
  void read_more() {
    peer->async_read_some(net::buffer(buf), [this](boost::system::error_code ec, std::size_t n) {
      received.append(buf, n);
      if (ec) {
        end = ec;
        return;
      }
      read_more();
    });
  }
  void send(std::string data) {
    out = std::move(data);
    client.async_connect(tcp::endpoint(server.address(), 7000), [this](boost::system::error_code ec) {
      BOOST_REQUIRE(!ec);
      net::async_write(client, net::buffer(out), [this](boost::system::error_code e, std::size_t) {
        BOOST_REQUIRE(!e);
        client.shutdown(tcp::socket::shutdown_send);
        written_at = w.now();
      });
    });
  }
  simasio::world& w;
  simasio::host& server = w.add_host("server");
  simasio::host& client_host = w.add_host("client");
  tcp::acceptor acc{server.context(), tcp::endpoint(tcp::v4(), 7000)};
  tcp::socket client{client_host.context()};
  std::unique_ptr<tcp::socket> peer;
  char buf[4096];
  std::string out, received;
  boost::system::error_code end;
  duration written_at{-1};
};

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fault_rule)

BOOST_AUTO_TEST_CASE(a_rule_drops_every_third_datagram_it_names) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    simasio::world w(traced(seed));
    datagrams d(w, 30);
    int seen = 0;
    auto rule = w.net().add_rule([&](const packet_view& p) {
      if (p.from_host != "n1" || p.kind != packet_kind::udp || !p.contains("AppendEntries")) return verdict::pass();
      return ++seen % 3 == 0 ? verdict::drop() : verdict::pass();
    });
    w.run();
    BOOST_TEST(seen == 30);  // each datagram judged once
    BOOST_TEST(d.got.size() == 20u);
    BOOST_TEST(count_drops(w, simasio::drop_reason::rule) == 10u);
    for (const std::string& m : d.got) {
      const int i = std::stoi(m.substr(m.find(' ') + 1));
      BOOST_TEST((i + 1) % 3 != 0, "datagram " << i << " should have been dropped (seed " << seed << ")");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_delay_rule_adds_to_the_link_latency_while_its_predicate_holds) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    simasio::world w(seed);
    datagrams d(w, 10);
    bool slow = true;  // the predicate: switched off at 225 ms
    auto off = std::make_shared<net::steady_timer>(d.n1.context(), 225ms);
    off->async_wait([&, off](auto) { slow = false; });
    auto rule = w.net().add_rule([&](const packet_view& p) {
      return p.to_host == "n1" || (p.to_host == "n2" && slow) ? verdict::delay(2s) : verdict::pass();
    });
    w.run();
    BOOST_REQUIRE(d.got.size() == 10u);
    for (std::size_t k = 0; k < d.got.size(); ++k) {
      const int i = std::stoi(d.got[k].substr(d.got[k].find(' ') + 1));
      const duration sent = 50ms * i;
      const duration latency = d.at[k] - sent;
      // Sent at 0..200 ms (before the switch): 2 s more than the 1..10 ms link.
      if (sent < 225ms) BOOST_TEST((latency >= 2001ms && latency <= 2010ms), "seed " << seed << " #" << i);
      else BOOST_TEST((latency >= 1ms && latency <= 10ms), "seed " << seed << " #" << i);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_first_rule_that_does_not_pass_decides_in_install_order) {
  for (int order = 0; order < 2; ++order) {
    simasio::world w(traced(7));
    datagrams d(w, 5);
    std::vector<simasio::rule_guard> rules;
    auto delay = [](const packet_view&) { return verdict::delay(1s); };
    auto drop = [](const packet_view&) { return verdict::drop(); };
    if (order == 0) {
      rules.push_back(w.net().add_rule(delay));
      rules.push_back(w.net().add_rule(drop));
    } else {
      rules.push_back(w.net().add_rule(drop));
      rules.push_back(w.net().add_rule(delay));
    }
    w.run();
    BOOST_TEST(d.got.size() == (order == 0 ? 5u : 0u));
    if (order == 0) BOOST_TEST((d.at.front() >= 1001ms));
  }
}

BOOST_AUTO_TEST_CASE(the_networks_own_faults_come_before_user_rules) {
  simasio::world w(traced(3));
  datagrams d(w, 6);
  int asked = 0;
  auto rule = w.net().add_rule([&](const packet_view&) {
    ++asked;
    return verdict::pass();
  });
  w.net().block(d.n1, d.n2);
  w.run();
  BOOST_TEST(asked == 0);
  BOOST_TEST(d.got.empty());
  BOOST_TEST(count_drops(w, simasio::drop_reason::partitioned) == 6u);
}

BOOST_AUTO_TEST_CASE(a_held_datagram_leaves_when_its_rule_is_removed) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world w(seed);
    datagrams d(w, 8);
    simasio::rule_guard rule = w.net().add_rule([](const packet_view& p) {
      return p.kind == packet_kind::udp ? verdict::hold() : verdict::pass();
    });
    BOOST_TEST(rule.active());
    w.run_for(5s);
    BOOST_TEST(d.got.empty());
    const duration removed_at = w.now();
    rule.remove();
    BOOST_TEST(!rule.active());
    w.run();
    BOOST_TEST(d.got.size() == 8u);
    for (duration t : d.at) BOOST_TEST((t >= removed_at + 1ms && t <= removed_at + 10ms));
  }
}

BOOST_AUTO_TEST_CASE(a_rule_installed_while_a_datagram_flies_judges_it_on_arrival) {
  simasio::link_config slow;
  slow.min_latency = slow.max_latency = 1s;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    simasio::world w(traced(seed));
    w.net().configure(slow);
    datagrams d(w, 1);
    int asked = 0;
    simasio::rule_guard rule;
    auto later = std::make_shared<net::steady_timer>(d.n2.context(), 500ms);
    later->async_wait([&, later](auto) {
      rule = w.net().add_rule([&](const packet_view&) {
        ++asked;
        return verdict::drop();
      });
    });
    w.run();
    BOOST_TEST(asked == 1);
    BOOST_TEST(d.got.empty());
    BOOST_TEST(count_drops(w, simasio::drop_reason::rule) == 1u);
  }
}

BOOST_AUTO_TEST_CASE(tcp_retransmits_segments_a_rule_drops_and_the_stream_survives) {
  const std::string data = pattern(200'000);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world w(traced(seed));
    stream_pair s(w);
    int dropped = 0;
    auto rule = w.net().add_rule([&](const packet_view& p) {
      if (p.kind != packet_kind::tcp_data || p.from_host != "client") return verdict::pass();
      return ++dropped <= 5 ? verdict::drop() : verdict::pass();
    });
    s.send(data);
    w.run();
    BOOST_TEST(s.end == net::error::eof);
    BOOST_TEST((s.received == data), "seed " << seed);
    BOOST_TEST(count_drops(w, simasio::drop_reason::rule) == 5u);
    BOOST_TEST((w.now() >= 200ms));  // at least one retransmission timeout
  }
}

BOOST_AUTO_TEST_CASE(dropping_acknowledgements_stalls_the_sender_until_the_rule_goes) {
  const std::string data = pattern(50'000);
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    simasio::world w(seed);
    stream_pair s(w);
    int acks = 0;
    // The server's acknowledgements: the client never learns its data arrived.
    simasio::rule_guard rule;
    auto connected = std::make_shared<net::steady_timer>(s.server.context(), 1s);
    connected->async_wait([&, connected](auto) {
      rule = w.net().add_rule([&](const packet_view& p) {
        if (p.kind == packet_kind::tcp_ack && p.from_host == "server") ++acks;
        return p.kind == packet_kind::tcp_ack && p.from_host == "server" ? verdict::drop() : verdict::pass();
      });
      s.send(data);
    });
    w.run_for(60s);
    BOOST_TEST(s.received.empty());
    BOOST_TEST(acks > 3);  // retransmitted with backoff
    rule.remove();
    w.run();
    BOOST_TEST((s.received == data));
    BOOST_TEST(s.end == net::error::eof);
  }
}

BOOST_AUTO_TEST_CASE(a_held_tcp_direction_resumes_when_the_rule_is_removed) {
  const std::string data = pattern(100'000);
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    simasio::world w(seed);
    stream_pair s(w);
    simasio::rule_guard rule;
    auto connected = std::make_shared<net::steady_timer>(s.server.context(), 1s);
    connected->async_wait([&, connected](auto) {
      rule = w.net().add_rule([](const packet_view& p) {
        return p.kind == packet_kind::tcp_data ? verdict::hold() : verdict::pass();
      });
      s.send(data);
    });
    w.run_for(30s);
    BOOST_TEST(s.received.empty());
    rule = simasio::rule_guard();  // move-assigning removes the rule it held
    w.run();
    BOOST_TEST((s.received == data));
  }
}

BOOST_AUTO_TEST_CASE(a_rule_may_remove_itself_from_inside) {
  simasio::world w(traced(11));
  datagrams d(w, 6);
  simasio::rule_guard rule;
  int asked = 0;
  rule = w.net().add_rule([&](const packet_view&) {
    ++asked;
    rule.remove();  // finished after this judging
    return verdict::drop();
  });
  w.run();
  BOOST_TEST(asked == 1);
  BOOST_TEST(d.got.size() == 5u);
}

BOOST_AUTO_TEST_CASE(rules_are_trace_events_and_replay_exactly) {
  auto run = [](std::uint64_t seed) {
    simasio::world w(traced(seed));
    simasio::link_config lossy;
    lossy.loss = 0.1;
    w.net().configure(lossy);
    datagrams d(w, 20);
    int n = 0;
    auto rule = w.net().add_rule([&](const packet_view& p) {
      return ++n % 4 == 0 ? verdict::drop() : p.contains("1") ? verdict::delay(300ms) : verdict::pass();
    });
    w.run_for(500ms);
    rule.remove();
    w.run();
    std::size_t added = 0, removed = 0;
    for (const auto& e : w.events().events())
      if (e.kind == simasio::event_kind::net_fault) {
        added += e.a == static_cast<std::uint64_t>(simasio::fault_kind::rule_added);
        removed += e.a == static_cast<std::uint64_t>(simasio::fault_kind::rule_removed);
      }
    BOOST_TEST(added == 1u);
    BOOST_TEST(removed == 1u);
    return w.trace_hash();
  };
  for (std::uint64_t seed = 0; seed < 20; ++seed) BOOST_TEST(run(seed) == run(seed));
  BOOST_TEST(run(1) != run(2));
}

BOOST_AUTO_TEST_CASE(a_guard_outliving_its_world_is_harmless_and_keep_leaves_the_rule) {
  simasio::rule_guard outlives;
  {
    simasio::world w(1);
    datagrams d(w, 3);
    outlives = w.net().add_rule([](const packet_view&) { return verdict::drop(); });
    w.net().add_rule([](const packet_view&) { return verdict::pass(); }).keep();
    w.run();
    BOOST_TEST(d.got.empty());
    BOOST_TEST(outlives.active());
  }
  BOOST_TEST(!outlives.active());
  outlives.remove();  // nothing left to remove
}

BOOST_AUTO_TEST_CASE(misuse_is_a_clear_error) {
  simasio::world w(1);
  BOOST_CHECK_EXCEPTION((void)w.net().add_rule(simasio::fault_rule{}), simasio::config_error, [](const auto& e) {
    return std::string(e.what()).find("empty fault_rule") != std::string::npos;
  });
  BOOST_CHECK_EXCEPTION(verdict::delay(-1ms), simasio::config_error, [](const auto& e) {
    return std::string(e.what()).find("cannot be negative") != std::string::npos;
  });
  BOOST_TEST(std::string(simasio::to_string(packet_kind::tcp_ack)) == "tcp_ack");
}

BOOST_AUTO_TEST_SUITE_END()
