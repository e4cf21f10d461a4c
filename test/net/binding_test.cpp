// binding_test.cpp — which address and port a socket may bind, as on Linux:
// per address, SO_REUSEADDR, and TIME_WAIT for the side of a connection
// that closed first. Each case runs the same code on real Linux loopback
// (127.0.0.2 standing for the simulated host's own address) and compares.
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio.hpp>
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

namespace net = simasio::asio;
using namespace std::chrono_literals;
using boost::system::error_code;
using simasio::duration;

namespace {

enum class at { loopback, own, any };

struct step {
  at where;
  bool reuse = false;
  bool listen = false;
};

// Binds one socket per step to the same port, in order; each result is
// the bind's error, or the listen's when the bind succeeded.
template <class Socket, class Context>
std::vector<error_code> bind_all(Context& ctx, const boost::asio::ip::address& own, unsigned short port,
                                 const std::vector<step>& steps) {
  std::vector<std::unique_ptr<Socket>> keep;
  std::vector<error_code> out;
  for (const step& s : steps) {
    auto sock = std::make_unique<Socket>(ctx);
    sock->open(Socket::protocol_type::v4());
    sock->set_option(boost::asio::socket_base::reuse_address(s.reuse));
    const auto address = s.where == at::loopback ? boost::asio::ip::make_address("127.0.0.1")
                         : s.where == at::own    ? own
                                                 : boost::asio::ip::address(boost::asio::ip::address_v4::any());
    error_code ec;
    sock->bind(typename Socket::endpoint_type(address, port), ec);
    if constexpr (requires { sock->listen(); })
      if (!ec && s.listen) sock->listen(boost::asio::socket_base::max_listen_connections, ec);
    out.push_back(ec);
    keep.push_back(std::move(sock));
  }
  return out;
}

// A port free on real loopback just now.
unsigned short free_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  boost::asio::ip::udp::socket u(io, {boost::asio::ip::make_address("127.0.0.1"), a.local_endpoint().port()});
  return a.local_endpoint().port();
}

template <bool Tcp>
void compare(const std::vector<step>& steps, const std::vector<error_code>& expected) {
  using real_socket =
      std::conditional_t<Tcp, boost::asio::ip::tcp::acceptor, boost::asio::ip::udp::socket>;
  using sim_socket = std::conditional_t<Tcp, net::ip::tcp::acceptor, net::ip::udp::socket>;
  const unsigned short port = free_port();
  boost::asio::io_context io;
  const auto real = bind_all<real_socket>(io, boost::asio::ip::make_address("127.0.0.2"), port, steps);
  simasio::world w;
  auto& h = w.add_host("h");
  const auto sim = bind_all<sim_socket>(h.context(), h.address(), port, steps);
  BOOST_TEST(real == expected, "real Linux");
  BOOST_TEST(sim == expected, "simulated");
}

const error_code ok{};
const error_code in_use = boost::asio::error::address_in_use;

// Over a connection on `port` (127.0.0.1), one side closes first, then the
// other; 100 ms later the listener closes and a new one binds the port.
// The result is the new bind's error.
template <class Acceptor, class Socket, class Context, class Timer>
struct rebind {
  rebind(Context& ctx, unsigned short port, bool old_reuse, bool server_first, bool new_reuse)
      : ctx(ctx), acc(ctx), server(ctx), client(ctx), timer(ctx) {
    const typename Acceptor::endpoint_type ep(boost::asio::ip::make_address("127.0.0.1"), port);
    acc.open(ep.protocol());
    acc.set_option(boost::asio::socket_base::reuse_address(old_reuse));
    acc.bind(ep);
    acc.listen();
    // Both ends connected (the connect's handler has run too), then the closes.
    auto both = [this, server_first, new_reuse, ep](error_code ec) {
      BOOST_REQUIRE(!ec);
      if (++connected < 2) return;
      Socket& first = server_first ? server : client;
      Socket& second = server_first ? client : server;
      first.close();
      second.async_read_some(boost::asio::buffer(buf), [this, &second, new_reuse, ep](error_code e, std::size_t) {
        BOOST_TEST(e == boost::asio::error::eof);
        second.close();
        timer.expires_after(std::chrono::milliseconds(100));
        timer.async_wait([this, new_reuse, ep](error_code) {
          acc.close();
          Acceptor again(this->ctx);
          again.open(ep.protocol());
          again.set_option(boost::asio::socket_base::reuse_address(new_reuse));
          again.bind(ep, result);
        });
      });
    };
    acc.async_accept(server, both);
    client.async_connect(ep, both);
  }
  Context& ctx;
  Acceptor acc;
  Socket server, client;
  Timer timer;
  char buf[1];
  int connected = 0;
  error_code result{boost::asio::error::would_block};  // not yet
};

error_code real_rebind(bool old_reuse, bool server_first, bool new_reuse) {
  boost::asio::io_context io;
  rebind<boost::asio::ip::tcp::acceptor, boost::asio::ip::tcp::socket, boost::asio::io_context,
         boost::asio::steady_timer>
      r(io, free_port(), old_reuse, server_first, new_reuse);
  io.run_for(std::chrono::seconds(30));
  return r.result;
}

error_code sim_rebind(std::uint64_t seed, bool old_reuse, bool server_first, bool new_reuse) {
  simasio::world w(seed);
  rebind<net::ip::tcp::acceptor, net::ip::tcp::socket, net::io_context, net::steady_timer> r(
      w.add_host("h").context(), 8080, old_reuse, server_first, new_reuse);
  w.run();
  return r.result;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(binding)

BOOST_AUTO_TEST_CASE(tcp_ports_bind_per_address_as_on_linux) {
  compare<true>({{at::loopback}, {at::own}}, {ok, ok});
  compare<true>({{at::loopback}, {at::any}}, {ok, in_use});
  compare<true>({{at::any}, {at::loopback}}, {ok, in_use});
  compare<true>({{at::loopback, false, true}, {at::own, false, true}}, {ok, ok});
  // SO_REUSEADDR on both shares a port unless one of them listens.
  compare<true>({{at::loopback, true}, {at::loopback, true}}, {ok, ok});
  compare<true>({{at::loopback, true}, {at::loopback, true, true}}, {ok, ok});
  compare<true>({{at::loopback, true, true}, {at::loopback, true}}, {ok, in_use});
  compare<true>({{at::loopback, true, true}, {at::any, true}}, {ok, in_use});
  compare<true>({{at::loopback, false}, {at::loopback, true}}, {ok, in_use});
}

BOOST_AUTO_TEST_CASE(udp_ports_bind_per_address_as_on_linux) {
  compare<false>({{at::loopback}, {at::own}}, {ok, ok});
  compare<false>({{at::loopback}, {at::any}}, {ok, in_use});
  compare<false>({{at::loopback, true}, {at::loopback, true}}, {ok, ok});
  compare<false>({{at::loopback, true}, {at::any, true}}, {ok, ok});
  compare<false>({{at::loopback, false}, {at::loopback, true}}, {ok, in_use});
}

BOOST_AUTO_TEST_CASE(a_connection_reaches_the_listener_of_its_address) {
  // Two listeners on one port, one per address: each gets the connections to its own.
  auto run = [](auto& ctx, auto&& run_all, const boost::asio::ip::address& own, unsigned short port,
                auto acceptor_tag, auto socket_tag) {
    using acceptor = typename decltype(acceptor_tag)::type;
    using socket = typename decltype(socket_tag)::type;
    const auto lo = boost::asio::ip::make_address("127.0.0.1");
    acceptor a(ctx, {lo, port}), b(ctx, {own, port});
    socket in_a(ctx), in_b(ctx), to_a(ctx), to_b(ctx);
    a.async_accept(in_a, [](error_code ec) { BOOST_TEST(!ec); });
    b.async_accept(in_b, [](error_code ec) { BOOST_TEST(!ec); });
    to_a.async_connect({lo, port}, [](error_code ec) { BOOST_TEST(!ec); });
    to_b.async_connect({own, port}, [](error_code ec) { BOOST_TEST(!ec); });
    run_all();
    BOOST_TEST(in_a.remote_endpoint() == to_a.local_endpoint());
    BOOST_TEST(in_b.remote_endpoint() == to_b.local_endpoint());
    BOOST_TEST(in_b.local_endpoint().address() == own);
  };
  {
    boost::asio::io_context io;
    run(io, [&] { io.run_for(std::chrono::seconds(30)); }, boost::asio::ip::make_address("127.0.0.2"), free_port(),
        std::type_identity<boost::asio::ip::tcp::acceptor>{}, std::type_identity<boost::asio::ip::tcp::socket>{});
  }
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    simasio::world w(seed);
    auto& h = w.add_host("h");
    run(h.context(), [&] { w.run(); }, h.address(), 80, std::type_identity<net::ip::tcp::acceptor>{},
        std::type_identity<net::ip::tcp::socket>{});
  }
}

BOOST_AUTO_TEST_CASE(the_side_that_closes_first_holds_its_port_in_time_wait) {
  struct expectation {
    bool old_reuse, server_first, new_reuse;
    error_code result;
  };
  const expectation cases[] = {
      {false, true, false, in_use},  // the classic "Address already in use" of a restarted server
      {true, true, true, ok},        // both set SO_REUSEADDR: the new one binds at once
      {true, true, false, in_use},   // both must set it
      {false, true, true, in_use},
      {false, false, false, ok},     // the client closed first: its port waits, not the server's
  };
  for (const expectation& e : cases) {
    BOOST_TEST(real_rebind(e.old_reuse, e.server_first, e.new_reuse) == e.result,
               "real Linux " << e.old_reuse << e.server_first << e.new_reuse);
    for (std::uint64_t seed = 0; seed < 10; ++seed)
      BOOST_TEST(sim_rebind(seed, e.old_reuse, e.server_first, e.new_reuse) == e.result,
                 "simulated " << e.old_reuse << e.server_first << e.new_reuse << ", seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(time_wait_lasts_sixty_seconds) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    simasio::world w(seed);
    auto& h = w.add_host("h");
    const net::ip::tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 8080);
    net::ip::tcp::acceptor acc(h.context());
    acc.open(ep.protocol());
    acc.bind(ep);
    acc.listen();
    net::ip::tcp::socket server(h.context()), client(h.context());
    duration closed_at{-1};
    acc.async_accept(server, [&](error_code ec) {
      BOOST_REQUIRE(!ec);
      server.close();
      closed_at = w.now();
      acc.close();
    });
    client.async_connect(ep, [](error_code ec) { BOOST_REQUIRE(!ec); });
    w.run();
    auto bind_at = [&](duration when) {
      w.run_for(closed_at + when - w.now());
      net::ip::tcp::acceptor again(h.context());
      again.open(ep.protocol());
      error_code ec;
      again.bind(ep, ec);
      return ec;
    };
    BOOST_TEST(bind_at(59s) == in_use, "seed " << seed);
    BOOST_TEST(bind_at(60s) == ok, "seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(a_restarted_server_binds_at_once_with_reuse_address) {
  // Asio's acceptor constructor sets SO_REUSEADDR: a server restarted
  // after a crash binds its port although the connections its crash closed
  // wait in TIME_WAIT. Without SO_REUSEADDR the bind fails, as on Linux.
  for (const bool reuse : {true, false}) {
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      simasio::world w(seed);
      auto& server = w.add_host("server");
      auto& client_host = w.add_host("client");
      int boots = 0;
      error_code second_boot;
      std::shared_ptr<net::ip::tcp::socket> accepted;
      server.on_boot([&](simasio::host& h) {
        auto acc = std::make_shared<net::ip::tcp::acceptor>(h.context());
        const net::ip::tcp::endpoint ep(net::ip::tcp::v4(), 7);
        acc->open(ep.protocol());
        acc->set_option(net::socket_base::reuse_address(boots == 0 || reuse));
        error_code ec;
        acc->bind(ep, ec);
        if (boots++ == 1) second_boot = ec;
        if (ec) return;
        acc->listen();
        acc->async_accept([acc, &accepted](error_code e, net::ip::tcp::socket s) {
          if (!e) accepted = std::make_shared<net::ip::tcp::socket>(std::move(s));
        });
      });
      net::ip::tcp::socket client(client_host.context());
      client.async_connect({server.address(), 7}, [&](error_code ec) { BOOST_REQUIRE(!ec); });
      w.run_for(1s);
      BOOST_REQUIRE(accepted);
      accepted.reset();
      server.crash();  // the OS closes the accepted connection: the server closed first
      server.restart();
      w.run_for(1s);
      BOOST_TEST(boots == 2);
      BOOST_TEST(second_boot == (reuse ? ok : in_use), "seed " << seed);
    }
  }
}

BOOST_AUTO_TEST_CASE(sockets_sharing_a_udp_port_as_on_linux) {
  // Unicast: of two SO_REUSEADDR sockets on one address and port, the one
  // bound last receives, on real Linux and simulated.
  auto which = [](auto& ctx, auto&& run_all, auto socket_tag, unsigned short port) {
    using socket = typename decltype(socket_tag)::type;
    const typename socket::endpoint_type ep(boost::asio::ip::make_address("127.0.0.1"), port);
    socket first(ctx), second(ctx), sender(ctx);
    for (socket* s : {&first, &second}) {
      s->open(ep.protocol());
      s->set_option(boost::asio::socket_base::reuse_address(true));
      s->bind(ep);
    }
    sender.open(ep.protocol());
    sender.send_to(boost::asio::buffer("x", 1), ep);
    char c[1];
    int got = 0;
    first.async_receive(boost::asio::buffer(c), [&](error_code ec, std::size_t) { if (!ec) got |= 1; });
    second.async_receive(boost::asio::buffer(c), [&](error_code ec, std::size_t) { if (!ec) got |= 2; });
    run_all();
    return got;
  };
  boost::asio::io_context io;
  const int real = which(io, [&] { io.run_for(std::chrono::milliseconds(200)); },
                         std::type_identity<boost::asio::ip::udp::socket>{}, free_port());
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    simasio::world w(seed);
    auto& h = w.add_host("h");
    const int sim = which(h.context(), [&] { w.run(); }, std::type_identity<net::ip::udp::socket>{}, 5000);
    BOOST_TEST(sim == real, "seed " << seed);
  }
  BOOST_TEST(real == 2);
}

BOOST_AUTO_TEST_CASE(every_member_socket_sharing_a_port_gets_a_group_datagram) {
  // Two receivers on one host, both bound to 0.0.0.0:30001 with
  // SO_REUSEADDR (as Boost's multicast receiver example binds), both get it.
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    simasio::world w(seed);
    auto& rx = w.add_host("rx");
    auto& tx = w.add_host("tx");
    const auto group = net::ip::make_address("239.255.0.1");
    std::vector<std::unique_ptr<net::ip::udp::socket>> members;
    int got = 0;
    char buf[8];
    for (int i = 0; i < 2; ++i) {
      auto s = std::make_unique<net::ip::udp::socket>(rx.context());
      s->open(net::ip::udp::v4());
      s->set_option(net::socket_base::reuse_address(true));
      s->bind({net::ip::address_v4::any(), 30001});
      s->set_option(net::ip::multicast::join_group(group));
      s->async_receive(net::buffer(buf), [&](error_code ec, std::size_t n) {
        if (!ec && n == 5) ++got;
      });
      members.push_back(std::move(s));
    }
    net::ip::udp::socket sender(tx.context(), net::ip::udp::v4());
    sender.send_to(net::buffer("hello", 5), {group, 30001});
    w.run();
    BOOST_TEST(got == 2, "seed " << seed);
  }
}

BOOST_AUTO_TEST_SUITE_END()
