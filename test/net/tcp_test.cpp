// tcp_test.cpp — simulated TCP: connect, transfer, close, reset, crashes, timeouts
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include "two_hosts.hpp"

#include <simasio/detail/recycler.hpp>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/test/unit_test.hpp>

#include <malloc.h>

#include <array>
#include <functional>
#include <memory>
#include <string>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;
using simasio::duration;

using simasio_test::two_hosts;

namespace {

// Accepts one connection and hands it to `with`.
template <class F>
void accept_one(simasio::host& h, std::uint16_t port, F with) {
  auto acc = std::make_shared<tcp::acceptor>(h.context(), tcp::endpoint(tcp::v4(), port));
  acc->async_accept([acc, with](boost::system::error_code ec, tcp::socket s) mutable {
    BOOST_REQUIRE(!ec);
    with(std::make_shared<tcp::socket>(std::move(s)));
  });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tcp_socket)

BOOST_AUTO_TEST_CASE(connect_and_exchange_from_the_test_body) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  BOOST_TEST(s.remote_endpoint() == t.server_ep);
  BOOST_TEST(peer.remote_endpoint() == s.local_endpoint());
  BOOST_TEST(s.local_endpoint().address() == t.client.address());
  BOOST_TEST(s.local_endpoint().port() >= 49152);
  net::write(s, net::buffer(std::string("hello")));
  std::string got(5, '\0');
  net::read(peer, net::buffer(got));
  BOOST_TEST(got == "hello");
  BOOST_TEST(t.w.now() > duration::zero());
}

BOOST_AUTO_TEST_CASE(connect_to_closed_port_is_refused_after_one_round_trip) {
  simasio::link_config link;
  link.min_latency = link.max_latency = 5ms;
  two_hosts t(1, link);
  tcp::socket s(t.client.context());
  boost::system::error_code ec;
  s.connect(tcp::endpoint(t.server.address(), 1234), ec);
  BOOST_TEST(ec == net::error::connection_refused);
  BOOST_TEST((t.w.now() == duration(10ms)));
}

BOOST_AUTO_TEST_CASE(connect_across_a_partition_times_out) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  t.w.net().partition({{&t.server}, {&t.client}});
  t.w.net().set_connect_timeout(30s);
  tcp::socket s(t.client.context());
  boost::system::error_code ec;
  s.connect(t.server_ep, ec);
  BOOST_TEST(ec == net::error::timed_out);
  BOOST_TEST(t.w.now() >= duration(30s));
}

BOOST_AUTO_TEST_CASE(connect_succeeds_once_the_partition_heals) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  t.w.net().partition({{&t.server}, {&t.client}});
  simasio::steady_timer heal(t.client.context(), 2500ms);
  heal.async_wait([&](auto) { t.w.net().heal(); });
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);  // SYN retried at 1 s, 3 s: the one at 3 s gets through
  BOOST_TEST(t.w.now() >= duration(3s));
  BOOST_TEST(s.is_open());
}

BOOST_AUTO_TEST_CASE(graceful_close_delivers_data_then_eof) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    two_hosts t(seed);
    std::string received;
    boost::system::error_code final_ec;
    accept_one(t.server, 7000, [&](std::shared_ptr<tcp::socket> s) {
      auto buf = std::make_shared<std::string>();
      net::async_read(*s, net::dynamic_buffer(*buf), [&, s, buf](boost::system::error_code ec, std::size_t) {
        received = *buf;
        final_ec = ec;
      });
    });
    net::co_spawn(
        t.client.context(),
        [&]() -> net::awaitable<void> {
          tcp::socket s(co_await net::this_coro::executor);
          co_await s.async_connect(t.server_ep, net::use_awaitable);
          co_await net::async_write(s, net::buffer(std::string(3000, 'z')), net::use_awaitable);
          s.close();
        },
        net::detached);
    t.w.run();
    BOOST_TEST(received == std::string(3000, 'z'));
    BOOST_TEST(final_ec == net::error::eof);
  }
}

BOOST_AUTO_TEST_CASE(close_with_unread_data_resets_the_peer) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  net::write(peer, net::buffer(std::string("unread")));
  s.wait(tcp::socket::wait_read);  // the data is there, nobody reads it
  s.close();                        // abortive: RST
  char c;
  boost::system::error_code ec;
  peer.read_some(net::buffer(&c, 1), ec);
  BOOST_TEST(ec == net::error::connection_reset);
}

BOOST_AUTO_TEST_CASE(linger_zero_makes_close_abortive) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  s.set_option(net::socket_base::linger(true, 0));
  net::socket_base::linger l;
  s.get_option(l);
  BOOST_TEST(l.enabled());
  BOOST_TEST(l.timeout() == 0);
  s.close();
  char c;
  boost::system::error_code ec;
  peer.read_some(net::buffer(&c, 1), ec);
  BOOST_TEST(ec == net::error::connection_reset);
}

BOOST_AUTO_TEST_CASE(shutdown_send_gives_the_peer_eof_and_keeps_receiving) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  s.shutdown(tcp::socket::shutdown_send);
  char c;
  boost::system::error_code ec;
  peer.read_some(net::buffer(&c, 1), ec);
  BOOST_TEST(ec == net::error::eof);
  net::write(peer, net::buffer(std::string("still")));
  std::string got(5, '\0');
  net::read(s, net::buffer(got));
  BOOST_TEST(got == "still");
  boost::system::error_code wec;
  s.write_some(net::buffer("x", 1), wec);
  BOOST_TEST(wec == net::error::broken_pipe);
}

BOOST_AUTO_TEST_CASE(killed_process_closes_its_sockets_with_fin_or_rst) {
  // FIN where nothing was unread: the peer reads eof.
  {
    two_hosts t;
    tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
    tcp::socket s(t.client.context());
    s.connect(t.server_ep);
    tcp::socket peer(t.server.context());
    acc.accept(peer);
    t.server.crash(simasio::crash_kind::process);
    char c;
    boost::system::error_code ec;
    s.read_some(net::buffer(&c, 1), ec);
    BOOST_TEST(ec == net::error::eof);
    // Later segments to the dead connection draw a reset.
    net::write(s, net::buffer("late", 4), ec);
    s.wait(tcp::socket::wait_error, ec);
    s.write_some(net::buffer("x", 1), ec);
    BOOST_TEST(ec == net::error::broken_pipe);  // a reset after the peer's FIN, as Linux reports it
  }
  // RST where data was left unread: the peer gets connection_reset.
  {
    two_hosts t;
    tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
    tcp::socket s(t.client.context());
    s.connect(t.server_ep);
    tcp::socket peer(t.server.context());
    acc.accept(peer);
    net::write(s, net::buffer("unread", 6));
    peer.wait(tcp::socket::wait_read);
    t.server.crash(simasio::crash_kind::process);
    char c;
    boost::system::error_code ec;
    s.read_some(net::buffer(&c, 1), ec);
    BOOST_TEST(ec == net::error::connection_reset);
  }
}

BOOST_AUTO_TEST_CASE(power_cut_host_is_silent_until_the_user_timeout) {
  two_hosts t;
  t.w.net().set_tcp_user_timeout(5min);
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  const duration cut = t.w.now();
  t.server.crash(simasio::crash_kind::power);
  boost::system::error_code read_ec, write_ec;
  char c;
  s.async_read_some(net::buffer(&c, 1), [&](boost::system::error_code ec, std::size_t) { read_ec = ec; });
  const std::string payload(100, 'q');
  net::async_write(s, net::buffer(payload), [&](boost::system::error_code ec, std::size_t) {
    write_ec = ec;
  });
  t.w.run_for(4min);
  BOOST_TEST(!read_ec);  // silence: nothing has happened yet
  t.w.run_for(10min);
  BOOST_TEST(read_ec == net::error::timed_out);
  BOOST_TEST(t.w.now() - cut >= duration(5min));
}

BOOST_AUTO_TEST_CASE(segments_to_a_restarted_power_cut_host_draw_reset) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  t.server.crash(simasio::crash_kind::power);
  t.server.restart();
  boost::system::error_code ec;
  net::write(s, net::buffer("hi", 2), ec);
  char c;
  s.read_some(net::buffer(&c, 1), ec);
  BOOST_TEST(ec == net::error::connection_reset);
}

BOOST_AUTO_TEST_CASE(binding_a_taken_port_is_address_in_use) {
  two_hosts t;
  tcp::acceptor a(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::acceptor b(t.server.context());
  b.open(tcp::v4());
  boost::system::error_code ec;
  b.bind(tcp::endpoint(tcp::v4(), 7000), ec);
  BOOST_TEST(ec == net::error::address_in_use);
  try {  // the throwing form names the host and the endpoint
    tcp::acceptor c(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
    BOOST_FAIL("expected address_in_use");
  } catch (const boost::system::system_error& e) {
    BOOST_TEST(e.code() == net::error::address_in_use);
    BOOST_TEST(std::string(e.what()).find("bind to 0.0.0.0:7000 on host 'server': another TCP socket of this host "
                                          "holds that port") != std::string::npos,
               e.what());
  }
  a.close();
  b.bind(tcp::endpoint(tcp::v4(), 7000), ec);
  BOOST_TEST(!ec);
}

BOOST_AUTO_TEST_CASE(blocking_calls_inside_a_handler_fail_with_would_block) {
  two_hosts t;
  tcp::socket s(t.client.context());
  boost::system::error_code ec;
  net::post(t.client.context(), [&] { s.connect(t.server_ep, ec); });
  t.w.run();
  BOOST_TEST(ec == simasio::error::would_block);
}

BOOST_AUTO_TEST_CASE(cancel_aborts_pending_reads_and_the_socket_stays_usable) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  char c;
  boost::system::error_code ec;
  s.async_read_some(net::buffer(&c, 1), [&](boost::system::error_code e, std::size_t) { ec = e; });
  net::post(t.client.context(), [&] { s.cancel(); });
  t.w.run();
  BOOST_TEST(ec == net::error::operation_aborted);
  net::write(peer, net::buffer("k", 1));
  BOOST_TEST(s.read_some(net::buffer(&c, 1)) == 1u);
  BOOST_TEST(c == 'k');
}

BOOST_AUTO_TEST_CASE(timeout_idiom_read_or_timer_across_seeds) {
  using namespace net::experimental::awaitable_operators;
  int timeouts = 0, replies = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    simasio::link_config link;
    link.min_latency = 10ms;
    link.max_latency = 60ms;
    two_hosts t(seed, link);
    accept_one(t.server, 7000, [](std::shared_ptr<tcp::socket> s) {
      auto buf = std::make_shared<std::array<char, 4>>();
      net::async_read(*s, net::buffer(*buf), [s, buf](boost::system::error_code ec, std::size_t) {
        if (!ec) net::async_write(*s, net::buffer("pong", 4), [s](auto, auto) {});
      });
    });
    bool done = false;
    net::co_spawn(
        t.client.context(),
        [&]() -> net::awaitable<void> {
          auto ex = co_await net::this_coro::executor;
          tcp::socket s(ex);
          co_await s.async_connect(t.server_ep, net::use_awaitable);
          co_await net::async_write(s, net::buffer("ping", 4), net::use_awaitable);
          net::steady_timer deadline(ex, 80ms);  // the round trip takes 20..120 ms
          char buf[4];
          auto r = co_await (s.async_read_some(net::buffer(buf), net::use_awaitable) ||
                             deadline.async_wait(net::use_awaitable));
          if (r.index() == 0) ++replies;
          else ++timeouts;
          // The losing operation was cancelled; the socket still works.
          if (r.index() == 1) co_await s.async_read_some(net::buffer(buf), net::use_awaitable);
          done = true;
        },
        net::detached);
    t.w.run();
    BOOST_TEST(done);
  }
  BOOST_TEST(timeouts > 0);  // the round trip straddles the deadline on some seeds
  BOOST_TEST(replies > 0);
}

BOOST_AUTO_TEST_CASE(small_buffers_bound_partial_writes) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  acc.set_option(net::socket_base::receive_buffer_size(100));  // accepted sockets inherit it
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  s.set_option(net::socket_base::send_buffer_size(100));
  net::socket_base::send_buffer_size size;
  s.get_option(size);
  BOOST_TEST(size.value() == 2304);  // as Linux: a floor of 4608 bytes, read back halved by Asio
  // The send buffer (4608) plus the peer's window (half its 2304) bound a write.
  const std::size_t n = s.write_some(net::buffer(std::string(100'000, 'w')));
  BOOST_TEST(n >= 1u);
  BOOST_TEST(n <= 4608u + 1152u);
}

BOOST_AUTO_TEST_CASE(non_blocking_socket_reads_fail_with_would_block) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  s.non_blocking(true);
  BOOST_TEST(s.non_blocking());
  char c;
  boost::system::error_code ec;
  s.read_some(net::buffer(&c, 1), ec);
  BOOST_TEST(ec == net::error::would_block);
  BOOST_TEST((t.w.now() < duration(1s)));  // it did not wait
}

BOOST_AUTO_TEST_CASE(full_backlog_drops_syns_until_the_server_accepts) {
  two_hosts t;
  tcp::acceptor acc(t.server.context());
  acc.open(tcp::v4());
  acc.bind(tcp::endpoint(tcp::v4(), 7000));
  acc.listen(1);
  tcp::socket first(t.client.context()), extra(t.client.context()), second(t.client.context());
  first.connect(t.server_ep);  // listen(1) holds two, as Linux: nobody accepts
  extra.connect(t.server_ep);
  t.w.run_for(1s);             // their ACKs have arrived: the accept queue is full (Linux then drops SYNs)
  bool second_connected = false;
  second.async_connect(t.server_ep, [&](boost::system::error_code ec) { second_connected = !ec; });
  t.w.run_for(5s);
  BOOST_TEST(!second_connected);
  tcp::socket a1(t.server.context());
  acc.accept(a1);  // frees the slot: the next SYN retry gets through
  t.w.run_for(30s);
  BOOST_TEST(second_connected);
}

// A server owned by its own pending handlers, as Asio servers usually are.
struct accept_loop : std::enable_shared_from_this<accept_loop> {
  explicit accept_loop(net::any_io_executor ex) : acc(ex, tcp::endpoint(tcp::v4(), 7000)) {}
  void accept() {
    acc.async_accept([self = shared_from_this()](boost::system::error_code ec, tcp::socket s) {
      if (ec) return;
      // The session only waits (for an error): what the client sends stays unread.
      auto session = std::make_shared<tcp::socket>(std::move(s));
      session->async_wait(tcp::socket::wait_error, [session](auto) {});
      self->accept();
    });
  }
  tcp::acceptor acc;
};

BOOST_AUTO_TEST_CASE(a_one_way_block_of_the_return_path_times_the_sender_out) {
  two_hosts t;
  t.w.net().set_tcp_user_timeout(2min);
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  t.w.net().block(t.server, t.client);  // acknowledgements cannot come back
  boost::system::error_code ec;
  net::write(s, net::buffer(std::string(10, 'a')), ec);
  char c;
  s.read_some(net::buffer(&c, 1), ec);
  BOOST_TEST(ec == net::error::timed_out);
  BOOST_TEST(t.w.now() >= duration(2min));
}

BOOST_AUTO_TEST_CASE(crashing_a_server_whose_sockets_live_in_its_handlers_is_clean) {
  // The usual server shape: the acceptor and each session are owned by
  // their pending handlers only. A crash destroys them all.
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    two_hosts t(seed);
    t.server.on_boot([](simasio::host& h) { std::make_shared<accept_loop>(h.context().get_executor())->accept(); });
    tcp::socket c1(t.client.context()), c2(t.client.context());
    c1.connect(t.server_ep);
    c2.connect(t.server_ep);
    net::write(c2, net::buffer("x", 1));
    t.w.run_for(100ms);
    t.server.crash(simasio::crash_kind::process);
    char c;
    boost::system::error_code ec1, ec2;
    c1.read_some(net::buffer(&c, 1), ec1);
    c2.read_some(net::buffer(&c, 1), ec2);
    BOOST_TEST(ec1 == net::error::eof);               // nothing unread: FIN
    BOOST_TEST(ec2 == net::error::connection_reset);  // its session left "x" unread: RST
    t.server.restart();
    tcp::socket c3(t.client.context());
    c3.connect(t.server_ep);  // the restarted server accepts again
    BOOST_TEST(c3.is_open());
  }
}

BOOST_AUTO_TEST_CASE(a_context_with_sockets_may_outlive_its_world) {
  auto w = std::make_unique<simasio::world>();
  auto& a = w->add_host("a");
  auto& b = w->add_host("b");
  // The acceptor lives on b's own context, which dies with the world:
  // like any Asio I/O object it must go before its context.
  auto acc = std::make_unique<tcp::acceptor>(b.context(), tcp::endpoint(tcp::v4(), 80));
  auto ioc = std::make_unique<simasio::io_context>(a);
  auto s = std::make_unique<tcp::socket>(*ioc);
  s->connect(tcp::endpoint(b.address(), 80));
  char c;
  s->async_read_some(net::buffer(&c, 1), [](auto, auto) {});
  acc.reset();
  w.reset();  // the world goes before the user's context and socket
  BOOST_CHECK_THROW(s->write_some(net::buffer("x", 1)), simasio::usage_error);
  s.reset();
  ioc.reset();
}

BOOST_AUTO_TEST_CASE(a_late_answer_to_an_abandoned_connect_is_ignored) {
  // Connect to a slow primary, give up, connect the same socket to a
  // backup: the primary's late SYN-ACK must not hijack the socket.
  simasio::world w(3);
  auto& client = w.add_host("client");
  auto& primary = w.add_host("primary");
  auto& backup = w.add_host("backup");
  simasio::link_config slow;
  slow.min_latency = slow.max_latency = 2s;
  w.net().configure(primary, client, slow);
  tcp::acceptor pa(primary.context(), tcp::endpoint(tcp::v4(), 80));
  tcp::acceptor ba(backup.context(), tcp::endpoint(tcp::v4(), 80));
  tcp::socket s(client.context());
  bool first_done = false;
  s.async_connect(tcp::endpoint(primary.address(), 80), [&](boost::system::error_code ec) {
    first_done = true;
    BOOST_TEST(ec == net::error::operation_aborted);
  });
  w.run_for(100ms);
  s.close();
  w.run_for(1ms);
  BOOST_TEST(first_done);
  s.connect(tcp::endpoint(backup.address(), 80));
  w.run_for(5s);  // the primary's SYN-ACK arrives now
  BOOST_TEST(s.remote_endpoint().address() == backup.address());
  tcp::socket peer(backup.context());
  ba.accept(peer);
  net::write(s, net::buffer("to-backup", 9));
  std::string got(9, '\0');
  net::read(peer, net::buffer(got));
  BOOST_TEST(got == "to-backup");
}

BOOST_AUTO_TEST_CASE(second_connect_while_one_is_in_progress_is_already_started) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  boost::system::error_code first = net::error::fault, second = net::error::fault;
  s.async_connect(t.server_ep, [&](boost::system::error_code ec) { first = ec; });
  s.async_connect(t.server_ep, [&](boost::system::error_code ec) { second = ec; });
  t.w.run();
  BOOST_TEST(!first);
  BOOST_TEST(second == net::error::already_started);
}

BOOST_AUTO_TEST_CASE(a_read_inside_a_handler_completes_when_data_is_there) {
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket s(t.client.context());
  s.connect(t.server_ep);
  tcp::socket peer(t.server.context());
  acc.accept(peer);
  net::write(peer, net::buffer("d", 1));
  std::size_t n = 0;
  boost::system::error_code ec, ec_empty;
  s.async_wait(tcp::socket::wait_read, [&](boost::system::error_code) {
    char c;
    n = s.read_some(net::buffer(&c, 1), ec);       // data is there: fine
    s.read_some(net::buffer(&c, 1), ec_empty);     // nothing left: it would block forever
  });
  t.w.run();
  BOOST_TEST(!ec);
  BOOST_TEST(n == 1u);
  BOOST_TEST(ec_empty == simasio::error::would_block);
}

// A finished connection (both sockets closed, its FINs acknowledged,
// nothing on the wire or timed) is freed: a long run's memory follows the
// connections alive, not every connection it ever made. 9,000 connections
// one after another on one world leave the heap where 1,000 left it, give or
// take the socket and connection tables' ids (they held about 750 bytes
// each before). The heap is read with mallinfo2 (glibc), not under ASan.
BOOST_AUTO_TEST_CASE(finished_connections_are_freed) {
  if constexpr (simasio::detail::under_address_sanitizer) {
    BOOST_TEST_MESSAGE("AddressSanitizer's allocator: the heap is not measured");
    return;
  }
  two_hosts t;
  tcp::acceptor acc(t.server.context(), tcp::endpoint(tcp::v4(), 7000));
  std::function<void()> serve = [&] {
    auto s = std::make_shared<tcp::socket>(t.server.context());
    acc.async_accept(*s, [&, s](boost::system::error_code ec) {
      if (ec) return;
      auto buf = std::make_shared<std::array<char, 8>>();
      net::async_read(*s, net::buffer(*buf), [s, buf](boost::system::error_code ec, std::size_t) {
        if (!ec) net::async_write(*s, net::buffer(*buf), [s, buf](auto, auto) { s->close(); });
      });
      serve();
    });
  };
  serve();
  int done = 0, limit = 1000;
  std::function<void()> client = [&] {
    auto s = std::make_shared<tcp::socket>(t.client.context());
    s->async_connect(tcp::endpoint(t.server.address(), 7000), [&, s](boost::system::error_code ec) {
      BOOST_REQUIRE(!ec);
      auto buf = std::make_shared<std::array<char, 8>>();
      net::async_write(*s, net::buffer(*buf), [&, s, buf](auto, auto) {
        net::async_read(*s, net::buffer(*buf), [&, s, buf](boost::system::error_code ec, std::size_t) {
          BOOST_REQUIRE(!ec);
          s->close();
          if (++done < limit) client();
        });
      });
    });
  };
  client();
  t.w.run_for(1h);  // the thousand, their last FINs and TIME_WAIT (60 s)
  BOOST_TEST(done == 1000);
  const std::size_t after_1000 = mallinfo2().uordblks;
  limit = 10000;
  client();
  t.w.run_for(10h);
  BOOST_TEST(done == 10000);
  const std::size_t after_10000 = mallinfo2().uordblks;
  BOOST_TEST(after_10000 < after_1000 + 1'000'000, "grew by " << (after_10000 - after_1000) << " bytes");
}

BOOST_AUTO_TEST_SUITE_END()
