// tcp_linux_test.cpp — TCP where real programs notice Linux: socket buffers
// and their autotuning, SO_SNDBUF / SO_RCVBUF, the user timeout, keep-alive.
// Each is compared with real Linux on 127.0.0.1 where loopback can show it.
#include "echo_ahead.hpp"

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <netinet/tcp.h>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;
using simasio::duration;

namespace {

using keep_idle = boost::asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPIDLE>;
using keep_interval = boost::asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPINTVL>;
using keep_count = boost::asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPCNT>;
using user_timeout = boost::asio::detail::socket_option::integer<IPPROTO_TCP, TCP_USER_TIMEOUT>;

bool simulated_echo(std::uint64_t seed, std::size_t n, const simasio::tcp_buffers* sizes = nullptr) {
  simasio::world w(seed);
  if (sizes != nullptr) w.net().set_tcp_buffers(*sizes);
  auto& s = w.add_host("server");
  auto& c = w.add_host("client");
  simasio_test::echo_ahead<tcp::socket, tcp::acceptor, net::io_context> e(s.context(), c.context(), tcp::endpoint(tcp::v4(), 7),
                                                      s.address(), n);
  w.run();  // returns when nothing can happen any more: done, or a deadlock
  return e.done;
}

// Real Linux on loopback. The guard only stops a run that hangs; no
// assertion depends on how long anything takes.
bool real_echo(std::size_t n) {
  boost::asio::io_context io;
  using rtcp = boost::asio::ip::tcp;
  const auto loopback = boost::asio::ip::make_address("127.0.0.1");
  simasio_test::echo_ahead<rtcp::socket, rtcp::acceptor, boost::asio::io_context> e(io, io, rtcp::endpoint(loopback, 0), loopback, n);
  io.run_for(std::chrono::seconds(120));
  return e.done;
}

long proc_value(const char* path, int field = 0) {
  std::ifstream f(path);
  long v = -1;
  for (int i = 0; i <= field && f >> v; ++i) {
  }
  return v;
}

// A server on "server":7 that accepts one connection and never reads or
// writes; the client connects and keeps one read pending.
struct idle_pair {
  explicit idle_pair(std::uint64_t seed) : w(seed) {
    acc.async_accept([this](boost::system::error_code ec, tcp::socket sock) {
      if (!ec) peer = std::make_unique<tcp::socket>(std::move(sock));
    });
  }
  void connect(std::function<void(tcp::socket&)> configure) {
    client.async_connect(tcp::endpoint(server.address(), 7), [this, configure](boost::system::error_code ec) {
      BOOST_REQUIRE(!ec);
      configure(client);
      client.async_read_some(net::buffer(buf), [this](boost::system::error_code e, std::size_t) {
        failed = e;
        failed_at = w.now();
      });
    });
  }
  simasio::world w;
  simasio::host& server = w.add_host("server");
  simasio::host& client_host = w.add_host("client");
  tcp::acceptor acc{server.context(), tcp::endpoint(tcp::v4(), 7)};
  tcp::socket client{client_host.context()};
  std::unique_ptr<tcp::socket> peer;
  char buf[16];
  boost::system::error_code failed;
  duration failed_at{-1};
};

}  // namespace

BOOST_AUTO_TEST_SUITE(tcp_linux)

// Regression: with fixed 64 KiB buffers a 200 KB echo deadlocked.
BOOST_AUTO_TEST_CASE(an_echo_client_that_writes_first_completes_where_linux_does) {
  for (const std::size_t n : {std::size_t{200'000}, std::size_t{1'000'000}, std::size_t{4'000'000}}) {
    BOOST_TEST(real_echo(n), "real loopback, " << n << " bytes");
    for (std::uint64_t seed = 0; seed < (n > 1'000'000 ? 3u : 10u); ++seed)
      BOOST_TEST(simulated_echo(seed, n), "simulated, " << n << " bytes, seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(an_echo_larger_than_every_buffer_together_deadlocks_as_on_linux) {
  // 4 MiB send buffers and 6 MiB receive buffers (half of it window) hold
  // about 14 MB between the two programs: 20 MB cannot fit. (Real loopback
  // hangs too: see the bench's echo row; a test never waits for a hang.)
  for (std::uint64_t seed = 0; seed < 2; ++seed) BOOST_TEST(!simulated_echo(seed, 20'000'000), "seed " << seed);
}

BOOST_AUTO_TEST_CASE(shrunk_buffers_find_the_latent_deadlock_on_purpose) {
  simasio::tcp_buffers small;
  small.send_initial = small.send_max = 32768;
  small.receive_initial = small.receive_max = 65536;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    BOOST_TEST(!simulated_echo(seed, 200'000, &small), "seed " << seed);
    BOOST_TEST(simulated_echo(seed, 20'000, &small), "seed " << seed);
  }
  simasio::world w;
  simasio::tcp_buffers bad;
  bad.send_initial = bad.send_max + 1;
  BOOST_CHECK_THROW(w.net().set_tcp_buffers(bad), simasio::config_error);
}

BOOST_AUTO_TEST_CASE(buffer_sizes_read_and_pin_as_on_linux) {
  // The model is configured with this machine's sysctls, then compared
  // with a real socket's getsockopt.
  simasio::tcp_buffers sizes;
  if (const long v = proc_value("/proc/sys/net/ipv4/tcp_wmem", 1); v > 0) sizes.send_initial = static_cast<std::size_t>(v);
  if (const long v = proc_value("/proc/sys/net/ipv4/tcp_rmem", 1); v > 0)
    sizes.receive_initial = static_cast<std::size_t>(v);
  if (const long v = proc_value("/proc/sys/net/core/wmem_max"); v > 0) sizes.option_max = static_cast<std::size_t>(v);
  sizes.send_max = std::max(sizes.send_max, sizes.send_initial);
  sizes.receive_max = std::max(sizes.receive_max, sizes.receive_initial);
  const bool same_max = proc_value("/proc/sys/net/core/wmem_max") == proc_value("/proc/sys/net/core/rmem_max");

  boost::asio::io_context io;
  boost::asio::ip::tcp::socket real(io, boost::asio::ip::tcp::v4());
  simasio::world w;
  w.net().set_tcp_buffers(sizes);
  tcp::socket sim(w.add_host("h").context(), tcp::v4());
  auto both = [&](auto option) {
    auto r = option, s = option;
    real.get_option(r);
    sim.get_option(s);
    BOOST_TEST(r.value() == s.value());
    return s.value();
  };
  // Asio on Linux halves what the kernel reports (the kernel doubles what is set).
  BOOST_TEST(both(net::socket_base::send_buffer_size()) == static_cast<int>(sizes.send_initial / 2));
  BOOST_TEST(both(net::socket_base::receive_buffer_size()) == static_cast<int>(sizes.receive_initial / 2));
  for (const int request : {1, 5000, 100'000, 50'000'000}) {
    real.set_option(boost::asio::socket_base::send_buffer_size(request));
    sim.set_option(net::socket_base::send_buffer_size(request));
    both(net::socket_base::send_buffer_size());
    if (same_max) {
      real.set_option(boost::asio::socket_base::receive_buffer_size(request));
      sim.set_option(net::socket_base::receive_buffer_size(request));
      both(net::socket_base::receive_buffer_size());
    }
  }
}

BOOST_AUTO_TEST_CASE(send_buffers_grow_once_connected_and_as_data_flows_unless_pinned) {
  simasio::world w(3);
  auto& s = w.add_host("server");
  auto& c = w.add_host("client");
  tcp::acceptor acc(s.context(), tcp::endpoint(tcp::v4(), 7));
  tcp::socket pinned(c.context()), tuned(c.context());
  pinned.open(tcp::v4());
  pinned.set_option(net::socket_base::send_buffer_size(10000));
  tuned.connect(tcp::endpoint(s.address(), 7));
  pinned.connect(tcp::endpoint(s.address(), 7));
  net::socket_base::send_buffer_size size;
  tuned.get_option(size);
  BOOST_TEST(size.value() == 87040 / 2);  // Linux's 87040 on a 1500-byte MTU link, halved by Asio
  pinned.get_option(size);
  BOOST_TEST(size.value() == 10000);
  tcp::socket a(s.context()), b(s.context());
  acc.accept(a);
  acc.accept(b);
  net::write(tuned, net::buffer(std::string(100'000, 'x')));
  std::string got(100'000, '\0');
  net::read(a, net::buffer(got));
  tuned.get_option(size);
  BOOST_TEST(size.value() > 87040 / 2);
  BOOST_TEST(size.value() <= 4194304 / 2);
  pinned.get_option(size);
  BOOST_TEST(size.value() == 10000);
}

BOOST_AUTO_TEST_CASE(a_user_timeout_fails_a_connection_to_a_silent_peer_at_the_timeout) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    // World-wide, and per socket (TCP_USER_TIMEOUT), each clamping the RTO.
    for (int per_socket = 0; per_socket < 2; ++per_socket) {
      idle_pair t(seed);
      if (!per_socket) t.w.net().set_tcp_user_timeout(30s);
      duration wrote_at{-1};
      t.connect([&](tcp::socket& s) {
        if (per_socket) s.set_option(user_timeout(30'000));
        auto cut = std::make_shared<net::steady_timer>(s.get_executor(), 1s);
        cut->async_wait([&, cut](auto) {
          t.server.crash(simasio::crash_kind::power);
          wrote_at = t.w.now();
          net::async_write(t.client, net::buffer("ping", 4), [](auto, auto) {});
        });
      });
      t.w.run();
      BOOST_TEST(t.failed == net::error::timed_out);
      // Linux >= 4.19: at the timeout (the first retransmission is 200 ms
      // after the write), not at the first retransmission after it (51 s).
      BOOST_TEST((t.failed_at - wrote_at == 30s), "seed " << seed << ": " << (t.failed_at - wrote_at).count());
    }
  }
}

BOOST_AUTO_TEST_CASE(without_a_user_timeout_retransmission_gives_up_near_linuxs_924_seconds) {
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    idle_pair t(seed);
    duration wrote_at{-1};
    t.connect([&](tcp::socket& s) {
      auto cut = std::make_shared<net::steady_timer>(s.get_executor(), 1s);
      cut->async_wait([&, cut](auto) {
        t.server.crash(simasio::crash_kind::power);
        wrote_at = t.w.now();
        net::async_write(t.client, net::buffer("ping", 4), [](auto, auto) {});
      });
    });
    t.w.run();
    BOOST_TEST(t.failed == net::error::timed_out);
    BOOST_TEST((t.failed_at - wrote_at > 900s && t.failed_at - wrote_at < 1030s));
  }
}

BOOST_AUTO_TEST_CASE(keep_alive_notices_a_power_cut_peer_of_an_idle_reader) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    // Linux's defaults: 7200 s idle, then 9 probes 75 s apart.
    idle_pair t(seed);
    duration connected_at{-1};
    t.connect([&](tcp::socket& s) {
      s.set_option(net::socket_base::keep_alive(true));
      connected_at = t.w.now();
      t.server.crash(simasio::crash_kind::power);
    });
    t.w.run();
    BOOST_TEST(t.failed == net::error::timed_out);
    BOOST_TEST((t.failed_at - connected_at >= 7200s + 9 * 75s - 1s && t.failed_at - connected_at <= 7200s + 9 * 75s),
               "seed " << seed);
  }
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    // Per socket: 10 s, 2 s apart, 3 probes.
    idle_pair t(seed);
    duration connected_at{-1};
    t.connect([&](tcp::socket& s) {
      s.set_option(net::socket_base::keep_alive(true));
      s.set_option(keep_idle(10));
      s.set_option(keep_interval(2));
      s.set_option(keep_count(3));
      connected_at = t.w.now();
      t.server.crash(simasio::crash_kind::power);
    });
    t.w.run();
    BOOST_TEST(t.failed == net::error::timed_out);
    BOOST_TEST((t.failed_at - connected_at >= 15s && t.failed_at - connected_at <= 16s), "seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(keep_alive_is_off_by_default_and_answered_by_a_live_peer) {
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    idle_pair off(seed);
    off.connect([&](tcp::socket&) { off.server.crash(simasio::crash_kind::power); });
    off.w.run_for(10h);
    BOOST_TEST((off.failed_at == duration{-1}));  // an idle reader never notices without keep-alive

    idle_pair live(seed);
    live.connect([&](tcp::socket& s) {
      s.set_option(net::socket_base::keep_alive(true));
      s.set_option(keep_idle(60));
    });
    live.w.run_for(10h);
    BOOST_TEST((live.failed_at == duration{-1}));  // probes answered all along
  }
}

BOOST_AUTO_TEST_CASE(keep_alive_draws_a_reset_from_a_peer_that_lost_the_connection) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    idle_pair t(seed);
    t.connect([&](tcp::socket& s) {
      s.set_option(net::socket_base::keep_alive(true));
      s.set_option(keep_idle(30));
      auto cut = std::make_shared<net::steady_timer>(s.get_executor(), 1s);
      cut->async_wait([&, cut](auto) {
        t.server.crash(simasio::crash_kind::power);  // silent: no FIN, no RST
        t.server.restart();                          // back up, without the connection
      });
    });
    t.w.run();
    BOOST_TEST(t.failed == net::error::connection_reset);
    BOOST_TEST((t.failed_at >= 30s && t.failed_at <= 32s), "seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(keep_alive_options_read_as_on_linux) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket real(io, boost::asio::ip::tcp::v4());
  simasio::world w;
  tcp::socket sim(w.add_host("h").context(), tcp::v4());
  auto both = [&](auto option) {
    auto r = option, s = option;
    real.get_option(r);
    sim.get_option(s);
    BOOST_TEST(r.value() == s.value());
  };
  // Linux's defaults come from sysctls; simasio models the stock values.
  if (proc_value("/proc/sys/net/ipv4/tcp_keepalive_time") == 7200) both(keep_idle());
  if (proc_value("/proc/sys/net/ipv4/tcp_keepalive_intvl") == 75) both(keep_interval());
  if (proc_value("/proc/sys/net/ipv4/tcp_keepalive_probes") == 9) both(keep_count());
  both(user_timeout());
  real.set_option(keep_idle(42));
  sim.set_option(keep_idle(42));
  both(keep_idle());
  real.set_option(user_timeout(1500));
  sim.set_option(user_timeout(1500));
  both(user_timeout());
  boost::system::error_code real_ec, sim_ec;
  real.set_option(keep_count(0), real_ec);
  sim.set_option(keep_count(0), sim_ec);
  BOOST_TEST(real_ec == sim_ec);
  BOOST_TEST(sim_ec == net::error::invalid_argument);
}

// Options a socket does not have answer as Linux's do: a TCP option on a
// UDP socket (ENOPROTOOPT to set, EOPNOTSUPP to read), SO_SNDLOWAT (Linux
// cannot change it: ENOPROTOOPT, and it reads 1), through Asio's options
// on both kinds of socket, compared with the kernel's sockets.
BOOST_AUTO_TEST_CASE(options_a_socket_lacks_fail_as_on_linux) {
  using send_low_watermark = boost::asio::socket_base::send_low_watermark;
  using no_delay = boost::asio::ip::tcp::no_delay;
  boost::asio::io_context io;
  boost::asio::ip::udp::socket real_udp(io, boost::asio::ip::udp::v4());
  boost::asio::ip::tcp::socket real_tcp(io, boost::asio::ip::tcp::v4());
  simasio::world w;
  auto& h = w.add_host("h");
  net::ip::udp::socket sim_udp(h.context(), net::ip::udp::v4());
  tcp::socket sim_tcp(h.context(), tcp::v4());
  auto set_both = [](auto& real, auto& sim, auto option) {
    boost::system::error_code real_ec, sim_ec;
    real.set_option(option, real_ec);
    sim.set_option(option, sim_ec);
    BOOST_TEST(real_ec == sim_ec, real_ec.message() << " / " << sim_ec.message());
    return sim_ec;
  };
  auto get_both = [](auto& real, auto& sim, auto option) {
    auto r = option, s = option;
    boost::system::error_code real_ec, sim_ec;
    real.get_option(r, real_ec);
    sim.get_option(s, sim_ec);
    BOOST_TEST(real_ec == sim_ec, real_ec.message() << " / " << sim_ec.message());
    if (!real_ec && !sim_ec) BOOST_TEST(r.value() == s.value());
    return sim_ec;
  };
  BOOST_TEST(set_both(real_udp, sim_udp, no_delay(true)) == net::error::no_protocol_option);
  BOOST_TEST(get_both(real_udp, sim_udp, no_delay()) == net::error::operation_not_supported);
  BOOST_TEST(set_both(real_udp, sim_udp, keep_idle(5)) == net::error::no_protocol_option);
  BOOST_TEST(get_both(real_udp, sim_udp, keep_idle()) == net::error::operation_not_supported);
  BOOST_TEST(set_both(real_tcp, sim_tcp, send_low_watermark(4096)) == net::error::no_protocol_option);
  BOOST_TEST(set_both(real_udp, sim_udp, send_low_watermark(4096)) == net::error::no_protocol_option);
  BOOST_TEST(!get_both(real_tcp, sim_tcp, send_low_watermark()));
  BOOST_TEST(!get_both(real_udp, sim_udp, send_low_watermark()));
}

// UDP's buffers are capped and floored as TCP's are: at wmem_max and
// rmem_max (the model is given this machine's), and at Linux's minimum,
// compared with the kernel's.
BOOST_AUTO_TEST_CASE(udp_buffer_sizes_are_capped_and_floored_as_on_linux) {
  using send_buffer = boost::asio::socket_base::send_buffer_size;
  using receive_buffer = boost::asio::socket_base::receive_buffer_size;
  const long wmem_max = proc_value("/proc/sys/net/core/wmem_max");
  const long rmem_max = proc_value("/proc/sys/net/core/rmem_max");
  BOOST_REQUIRE(wmem_max > 0);
  simasio::tcp_buffers sizes;
  sizes.option_max = static_cast<std::size_t>(wmem_max);
  boost::asio::io_context io;
  boost::asio::ip::udp::socket real(io, boost::asio::ip::udp::v4());
  simasio::world w;
  w.net().set_tcp_buffers(sizes);
  net::ip::udp::socket sim(w.add_host("h").context(), net::ip::udp::v4());
  auto same = [&](auto option) {
    real.set_option(option);
    sim.set_option(option);
    auto r = option, s = option;
    real.get_option(r);
    sim.get_option(s);
    BOOST_TEST(r.value() == s.value(),
               "set " << option.value() << ": Linux " << r.value() << ", simasio " << s.value());
  };
  for (const long size : {1L, 1000L, 65536L, 2 * wmem_max}) {
    same(send_buffer(static_cast<int>(size)));
    if (rmem_max == wmem_max) same(receive_buffer(static_cast<int>(size)));  // the model has one maximum for both
  }
}

// ---- the handshake: the listener's SYN queue ----------------------------------------------

namespace {

// A client and a server with one accept pending; a fault rule may watch
// the handshake's packets.
struct handshake {
  explicit handshake(std::uint64_t seed) : w(seed) {
    acc.async_accept([this](boost::system::error_code ec, tcp::socket sock) {
      accepted_at = w.now();
      accept_ec = ec;
      if (!ec) peer = std::make_unique<tcp::socket>(std::move(sock));
    });
  }
  void connect(std::function<void()> then = {}) {
    client.async_connect(tcp::endpoint(server.address(), 7), [this, then](boost::system::error_code ec) {
      connect_ec = ec;
      connected_at = w.now();
      if (then) then();
    });
  }
  simasio::world w;
  simasio::host& server = w.add_host("server");
  simasio::host& client_host = w.add_host("client");
  tcp::acceptor acc{server.context(), tcp::endpoint(tcp::v4(), 7)};
  tcp::socket client{client_host.context()};
  std::unique_ptr<tcp::socket> peer;
  boost::system::error_code connect_ec, accept_ec;
  duration connected_at{-1}, accepted_at{-1};
};

bool from_client(const simasio::packet_view& p) { return p.from_host == "client"; }

// Counts the client's ACKs in `acks` and drops the first: the handshake's.
simasio::rule_guard drop_first_client_ack(handshake& t, int& acks) {
  return t.w.net().add_rule([&acks](const simasio::packet_view& p) {
    return p.kind == simasio::packet_kind::tcp_ack && from_client(p) && ++acks == 1 ? simasio::verdict::drop()
                                                                                    : simasio::verdict::pass();
  });
}

}  // namespace

// Regression: accept completed on the client's SYN, before the client knew
// of the connection.
BOOST_AUTO_TEST_CASE(accept_completes_on_the_clients_ack_after_its_connect) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    handshake t(seed);
    t.connect();
    t.w.run();
    BOOST_TEST(!t.connect_ec);
    BOOST_TEST(!t.accept_ec);
    // Links take 1 to 10 ms: the ACK arrives one latency after the SYN-ACK.
    BOOST_TEST((t.accepted_at > t.connected_at && t.accepted_at - t.connected_at <= 10ms), "seed " << seed);
    BOOST_TEST(t.peer->remote_endpoint() == t.client.local_endpoint());
  }
}

BOOST_AUTO_TEST_CASE(a_lost_ack_is_asked_for_again_by_the_syn_ack_retransmission) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    // The client stays silent: the server's SYN-ACK, resent after 1 s, draws the ACK again.
    handshake t(seed);
    int acks = 0;
    auto rule = drop_first_client_ack(t, acks);
    t.connect();
    t.w.run();
    BOOST_TEST(!t.accept_ec);
    BOOST_TEST((t.accepted_at >= 1s && t.accepted_at <= 1s + 30ms), "seed " << seed);
    BOOST_TEST(acks == 2);
  }
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    // The client writes at once: its first segment completes the handshake, as on Linux.
    handshake t(seed);
    int acks = 0;
    auto rule = drop_first_client_ack(t, acks);
    std::string got(5, '\0');
    t.connect([&] { net::async_write(t.client, net::buffer("hello", 5), [](auto, std::size_t) {}); });
    t.w.run_for(500ms);
    BOOST_REQUIRE(t.peer);
    BOOST_TEST(t.accepted_at < 1s, "seed " << seed);
    net::async_read(*t.peer, net::buffer(got), [](auto, std::size_t) {});
    t.w.run();
    BOOST_TEST(got == "hello");
  }
}

// Regression: a client whose connect timed out under loss left the server
// holding an accepted connection forever.
BOOST_AUTO_TEST_CASE(a_connect_that_timed_out_leaves_the_server_nothing_to_accept) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    handshake t(seed);
    auto lose = t.w.net().add_rule([](const simasio::packet_view& p) {
      return p.kind == simasio::packet_kind::tcp_syn_ack ? simasio::verdict::drop() : simasio::verdict::pass();
    });
    t.connect();
    t.w.run_for(200s);
    BOOST_TEST(t.connect_ec == net::error::timed_out);
    BOOST_TEST(t.accepted_at == duration(-1), "seed " << seed);
    // The listener is clean: the next client's connection is the one accepted.
    lose.remove();
    tcp::socket second(t.client_host.context());
    second.async_connect(tcp::endpoint(t.server.address(), 7), [](boost::system::error_code ec) { BOOST_TEST(!ec); });
    t.w.run();
    BOOST_REQUIRE(t.peer);
    BOOST_TEST(t.peer->remote_endpoint() == second.local_endpoint(), "seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(a_half_open_connection_is_dropped_after_linuxs_syn_ack_retries) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    // Every ACK of the client is lost: the server resends its SYN-ACK after
    // 1, 3, 7, 15 and 31 s (tcp_synack_retries 5), drops the connection
    // at 63 s, and the client's first write then draws a reset.
    handshake t(seed);
    std::vector<duration> syn_acks;
    auto lose = t.w.net().add_rule([&](const simasio::packet_view& p) {
      if (p.kind == simasio::packet_kind::tcp_syn_ack) syn_acks.push_back(t.w.now());
      return p.kind == simasio::packet_kind::tcp_ack && from_client(p) ? simasio::verdict::drop()
                                                                       : simasio::verdict::pass();
    });
    t.connect();
    t.w.run_for(70s);
    BOOST_TEST(!t.connect_ec);
    BOOST_TEST(t.accepted_at == duration(-1));
    BOOST_REQUIRE(syn_acks.size() == 6u);
    const duration expected[] = {0s, 1s, 3s, 7s, 15s, 31s};
    for (std::size_t i = 0; i < 6; ++i) BOOST_TEST(syn_acks[i] - syn_acks[0] == expected[i], "seed " << seed);
    lose.remove();
    boost::system::error_code read_ec;
    char c = 0;
    net::async_write(t.client, net::buffer("x", 1), [](auto, std::size_t) {});
    t.client.async_read_some(net::buffer(&c, 1), [&](boost::system::error_code ec, std::size_t) { read_ec = ec; });
    t.w.run();
    BOOST_TEST(read_ec == net::error::connection_reset, "seed " << seed);
    BOOST_TEST(t.accepted_at == duration(-1));
  }
}

BOOST_AUTO_TEST_CASE(closing_a_listener_resets_its_half_open_connections) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    handshake t(seed);
    auto lose = t.w.net().add_rule([](const simasio::packet_view& p) {
      return p.kind == simasio::packet_kind::tcp_ack && from_client(p) ? simasio::verdict::drop()
                                                                       : simasio::verdict::pass();
    });
    boost::system::error_code read_ec;
    char c = 0;
    t.connect([&] {
      t.client.async_read_some(net::buffer(&c, 1), [&](boost::system::error_code ec, std::size_t) { read_ec = ec; });
    });
    t.w.run_for(500ms);
    t.acc.close();
    t.w.run();
    BOOST_TEST(t.accept_ec == net::error::operation_aborted);
    BOOST_TEST(read_ec == net::error::connection_reset, "seed " << seed);
  }
}

// On one host's loopback a reset arrives after the data sent before it,
// as between two hosts (and on Linux, where the data is read first): a
// loopback packet is delivered at once, but never ahead of what it follows.
BOOST_AUTO_TEST_CASE(a_reset_on_loopback_does_not_overtake_the_data_before_it) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world w(seed);
    auto& h = w.add_host("h");
    tcp::acceptor a(h.context(), tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    tcp::socket server(h.context()), client(h.context());
    a.async_accept(server, [](boost::system::error_code) {});
    client.async_connect(a.local_endpoint(), [](boost::system::error_code) {});
    w.run();
    net::write(server, net::buffer("abc", 3));
    server.set_option(net::socket_base::linger(true, 0));
    server.close();
    w.run();
    boost::system::error_code ec;
    BOOST_TEST(client.available(ec) == 3U);
    char buf[16];
    BOOST_TEST(client.read_some(net::buffer(buf), ec) == 3U);
    BOOST_TEST(!ec);
    client.read_some(net::buffer(buf), ec);
    BOOST_TEST(ec == net::error::connection_reset, ec.message());
  }
}

BOOST_AUTO_TEST_SUITE_END()
