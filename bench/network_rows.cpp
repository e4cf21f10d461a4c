// network_rows.cpp — the simulated network against real loopback, in one
// process: TCP request/response round trips with the same coroutine code on
// boost::asio::io_context (one thread), UDP datagrams, and heap bytes per
// idle connection and per host.
#include "groups.hpp"
#include "pairs.hpp"
#include "../test/net/echo_ahead.hpp"

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio.hpp>

#include <malloc.h>
#include <memory>
#include <string>
#include <vector>

namespace bench {
namespace {

// One coroutine body for both worlds: Net is boost::asio or simasio::asio.
template <class Socket, class Awaitable = boost::asio::awaitable<void>>
Awaitable ping(Socket& s, std::size_t rounds, std::size_t& done) {
  char buf[64] = {};
  for (std::size_t i = 0; i < rounds; ++i) {
    co_await boost::asio::async_write(s, boost::asio::buffer(buf), boost::asio::use_awaitable);
    co_await boost::asio::async_read(s, boost::asio::buffer(buf), boost::asio::use_awaitable);
    ++done;
  }
}

template <class Socket>
boost::asio::awaitable<void> pong(Socket& s) {
  char buf[64];
  for (;;) {
    auto [ec, n] = co_await boost::asio::async_read(s, boost::asio::buffer(buf), boost::asio::as_tuple(boost::asio::use_awaitable));
    if (ec) co_return;
    co_await boost::asio::async_write(s, boost::asio::buffer(buf, n), boost::asio::use_awaitable);
  }
}

double sim_ping_pong(std::size_t rounds) {
  namespace net = simasio::asio;
  simasio::world w(1);
  auto [cs, ss] = simulated_pair(w, 7);
  std::size_t done = 0;
  const auto start = clock_type::now();
  net::co_spawn(w.get_host("server").context(), pong(ss), net::detached);
  net::co_spawn(w.get_host("client").context(), ping(cs, rounds, done), net::detached);
  w.run_until([&] { return done == rounds; }, std::chrono::hours(1000));
  return static_cast<double>(done) / std::chrono::duration<double>(clock_type::now() - start).count();
}

double real_ping_pong(std::size_t rounds) {
  namespace net = boost::asio;
  net::io_context ioc(1);
  auto [cs, ss] = loopback_pair(ioc);
  std::size_t done = 0;
  const auto start = clock_type::now();
  net::co_spawn(ioc, pong(ss), net::detached);
  net::co_spawn(ioc, [&]() -> net::awaitable<void> {
    co_await ping(cs, rounds, done);
    cs.close();
  }, net::detached);
  ioc.run();
  return static_cast<double>(done) / std::chrono::duration<double>(clock_type::now() - start).count();
}

double sim_udp(std::size_t datagrams) {
  namespace net = simasio::asio;
  simasio::world w(2);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  net::ip::udp::socket rx(b.context(), {net::ip::udp::v4(), 9});
  net::ip::udp::socket tx(a.context(), net::ip::udp::v4());
  std::size_t received = 0;
  char buf[64] = {};
  std::function<void()> receive = [&] {
    rx.async_receive(net::buffer(buf), [&](boost::system::error_code ec, std::size_t) {
      if (ec) return;
      if (++received < datagrams) receive();
    });
  };
  receive();
  const auto start = clock_type::now();
  for (std::size_t i = 0; i < datagrams; ++i) {
    tx.send_to(net::buffer(buf), {b.address(), 9});
    if (i % 64 == 63) w.run();  // keep the receive buffer from overflowing
  }
  w.run();
  return static_cast<double>(received) / std::chrono::duration<double>(clock_type::now() - start).count();
}

std::size_t heap_in_use() { return mallinfo2().uordblks; }

// Heap bytes per idle, established connection (both ends) and per host.
std::pair<double, double> memory_per_connection_and_host(std::size_t n) {
  namespace net = simasio::asio;
  simasio::world w(3);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  net::ip::tcp::acceptor acc(server.context(), {net::ip::tcp::v4(), 7});
  std::vector<std::unique_ptr<net::ip::tcp::socket>> sockets;
  sockets.reserve(2 * n);
  const std::size_t before = heap_in_use();
  for (std::size_t i = 0; i < n; ++i) {
    sockets.push_back(std::make_unique<net::ip::tcp::socket>(client.context()));
    sockets.back()->connect({server.address(), 7});
    sockets.push_back(std::make_unique<net::ip::tcp::socket>(server.context()));
    acc.accept(*sockets.back());
  }
  w.run();
  const double per_conn = static_cast<double>(heap_in_use() - before) / static_cast<double>(n);
  const std::size_t before_hosts = heap_in_use();
  for (std::size_t i = 0; i < n; ++i) w.add_host("h" + std::to_string(i)).context();
  const double per_host = static_cast<double>(heap_in_use() - before_hosts) / static_cast<double>(n);
  return {per_conn, per_host};
}

double real_udp(std::size_t datagrams) {
  namespace net = boost::asio;
  net::io_context ioc(1);
  net::ip::udp::socket rx(ioc, {net::ip::make_address("127.0.0.1"), 0});
  net::ip::udp::socket tx(ioc, {net::ip::make_address("127.0.0.1"), 0});
  const auto to = rx.local_endpoint();
  char buf[64] = {};
  std::size_t received = 0;
  const auto start = clock_type::now();
  for (std::size_t i = 0; i < datagrams; i += 64) {
    for (int k = 0; k < 64; ++k) tx.send_to(net::buffer(buf), to);
    for (int k = 0; k < 64; ++k) received += rx.receive(net::buffer(buf)) > 0;
  }
  return static_cast<double>(received) / std::chrono::duration<double>(clock_type::now() - start).count();
}

// The echo client of test/net/echo_ahead.hpp: how many bytes its writes got
// into the kernel's (or the simulation's) buffers before both sides stalled, or all.
double real_echo_ahead(std::size_t n) {
  namespace net = boost::asio;
  net::io_context ioc(1);
  const auto loopback = net::ip::make_address("127.0.0.1");
  simasio_test::echo_ahead<net::ip::tcp::socket, net::ip::tcp::acceptor, net::io_context> e(ioc, ioc, {loopback, 0},
                                                                                             loopback, n);
  ioc.run_for(std::chrono::seconds(3));  // a hang is the outcome, not a failure
  return static_cast<double>(e.written);
}

double sim_echo_ahead(std::size_t n) {
  namespace net = simasio::asio;
  simasio::world w(4);
  auto& h = w.add_host("h");
  const auto loopback = net::ip::make_address("127.0.0.1");
  simasio_test::echo_ahead<net::ip::tcp::socket, net::ip::tcp::acceptor, net::io_context> e(
      h.context(), h.context(), {loopback, 7}, loopback, n);
  w.run();  // returns when nothing can happen any more
  return static_cast<double>(e.written);
}

}  // namespace

void network_rows(const settings& s, std::vector<row>& rows) {
  const std::size_t rounds = s.quick ? 10'000 : 100'000;
  const paired tcp = paired_measured(s.quick ? 1 : 5, [&] { return sim_ping_pong(rounds); },
                                  [&] { return real_ping_pong(rounds); });
  rows.push_back({"TCP request/response, 64 B each way; vs real loopback TCP (round trips/s)", tcp.a, tcp.b,
                  times(tcp.ratio), ">= 10x", tcp.ratio >= 10, "/s"});

  const std::size_t datagrams = s.quick ? 64'000 : 1'000'000;
  const paired udp = paired_measured(s.quick ? 1 : 5, [&] { return sim_udp(datagrams); }, [&] { return real_udp(datagrams); });
  rows.push_back({"UDP datagrams delivered, 64 B; vs real loopback UDP (datagrams/s)", udp.a, udp.b, times(udp.ratio), "",
                  true, "/s"});

  // Fidelity, not speed: the same echo-before-read deadlocks where Linux's does.
  for (const std::size_t n : {std::size_t{4'000'000}, std::size_t{20'000'000}}) {
    const double sim = sim_echo_ahead(n), real = real_echo_ahead(n);
    rows.push_back({"TCP echo client writing " + std::to_string(n / 1'000'000) +
                        " MB before reading: bytes written before both stall (or all); vs real loopback (bytes)",
                    sim, real, times(sim / real), "", true, "B"});
  }

  const auto [per_conn, per_host] = memory_per_connection_and_host(s.quick ? 1'000 : 10'000);
  rows.push_back({"heap per idle TCP connection, both ends (bytes)", per_conn, 0, "", "", true, "B"});
  rows.push_back({"heap per host with its io_context (bytes)", per_host, 0, "", "", true, "B"});
}

}  // namespace bench
