// posix_rows.cpp — the system-call boundary: round trips through POSIX calls and Boost.Asio's own
// io_context in simulated processes, against simasio's own sockets and against real loopback
//
// One 64-byte echo, written once per path: blocking POSIX calls in two
// simulated processes (simasio::interpose serves them), simasio's sockets
// with blocking calls in two processes (the alias path), and blocking
// POSIX calls in two threads over the kernel's 127.0.0.1. Then Beast's
// HTTP keep-alive exchange on Boost.Asio's real io_context and
// boost::beast::tcp_stream, in two simulated processes.
#include "groups.hpp"

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio.hpp>
#include <boost/beast.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <thread>

namespace bench {
namespace {

constexpr std::size_t message = 64;

// The echo over a connected descriptor: `rounds` messages each way.
void echo_client(int fd, std::size_t rounds, std::size_t& done) {
  std::array<char, message> out{}, in{};
  for (std::size_t i = 0; i < rounds; ++i) {
    if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) return;
    std::size_t got = 0;
    while (got < in.size()) {
      const ssize_t n = ::recv(fd, in.data() + got, in.size() - got, 0);
      if (n <= 0) return;
      got += static_cast<std::size_t>(n);
    }
    ++done;
  }
}

void echo_server(int fd) {
  std::array<char, message> buf{};
  for (;;) {
    const ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0) return;
    if (::send(fd, buf.data(), static_cast<std::size_t>(n), MSG_NOSIGNAL) != n) return;
  }
}

int listener(std::uint32_t address, unsigned short port) {
  const int l = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(address);
  const int one = 1;
  ::setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::listen(l, 4);
  return l;
}

int connected(const sockaddr* to, socklen_t len) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::connect(fd, to, len);
  return fd;
}

std::size_t posix_in_processes(std::size_t rounds) {
  simasio::world w(1);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  std::size_t done = 0;
  server.spawn([] {
    const int l = listener(INADDR_ANY, 7000);
    const int fd = ::accept(l, nullptr, nullptr);
    echo_server(fd);
    ::close(fd);
    ::close(l);
  });
  w.run_for(std::chrono::milliseconds(1));
  client.spawn([&] {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (::getaddrinfo("server", "7000", &hints, &res) != 0) return;
    const int fd = connected(res->ai_addr, res->ai_addrlen);
    ::freeaddrinfo(res);
    echo_client(fd, rounds, done);
    ::close(fd);
  });
  w.run_until([&] { return done == rounds; }, std::chrono::hours(1000));
  return done;
}

std::size_t alias_in_processes(std::size_t rounds) {
  namespace net = simasio::asio;
  using net::ip::tcp;
  simasio::world w(1);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  std::size_t done = 0;
  server.spawn([] {
    net::io_context io;
    tcp::acceptor acc(io, {tcp::v4(), 7000});
    tcp::socket s = acc.accept();
    std::array<char, message> buf{};
    boost::system::error_code ec;
    for (;;) {
      const std::size_t n = s.read_some(net::buffer(buf), ec);
      if (ec) return;
      net::write(s, net::buffer(buf.data(), n), ec);
      if (ec) return;
    }
  });
  w.run_for(std::chrono::milliseconds(1));
  client.spawn([&, address = server.address()] {
    net::io_context io;
    tcp::socket s(io);
    s.connect({address, 7000});
    s.set_option(tcp::no_delay(true));
    std::array<char, message> out{}, in{};
    for (std::size_t i = 0; i < rounds; ++i) {
      net::write(s, net::buffer(out));
      net::read(s, net::buffer(in));
      ++done;
    }
  });
  w.run_until([&] { return done == rounds; }, std::chrono::hours(1000));
  return done;
}

std::size_t real_loopback(std::size_t rounds) {
  const int l = listener(INADDR_LOOPBACK, 0);
  sockaddr_in a{};
  socklen_t len = sizeof a;
  ::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len);
  std::thread server([l] {
    const int fd = ::accept(l, nullptr, nullptr);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    echo_server(fd);
    ::close(fd);
  });
  std::size_t done = 0;
  const int fd = connected(reinterpret_cast<sockaddr*>(&a), len);
  echo_client(fd, rounds, done);
  ::close(fd);
  server.join();
  ::close(l);
  return done;
}

// ---- Beast on Boost.Asio's real io_context, in processes ----------------------------

namespace http = boost::beast::http;

boost::asio::awaitable<void> http_server(boost::beast::tcp_stream& s) {
  boost::beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> req;
    auto [ec, n] = co_await http::async_read(s, buffer, req, boost::asio::as_tuple(boost::asio::use_awaitable));
    if (ec) co_return;
    http::response<http::string_body> res{http::status::ok, req.version()};
    res.body() = "pong";
    res.keep_alive(true);
    res.prepare_payload();
    co_await http::async_write(s, res, boost::asio::use_awaitable);
  }
}

boost::asio::awaitable<void> http_client(boost::beast::tcp_stream& s, std::size_t rounds, std::size_t& done) {
  boost::beast::flat_buffer buffer;
  for (std::size_t i = 0; i < rounds; ++i) {
    http::request<http::string_body> req{http::verb::get, "/ping", 11};
    req.set(http::field::host, "server");
    req.keep_alive(true);
    co_await http::async_write(s, req, boost::asio::use_awaitable);
    http::response<http::string_body> res;
    co_await http::async_read(s, buffer, res, boost::asio::use_awaitable);
    ++done;
  }
}

std::size_t beast_in_processes(std::size_t rounds) {
  namespace net = boost::asio;
  using net::ip::tcp;
  simasio::world w(1);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  std::size_t done = 0;
  server.spawn([] {
    net::io_context io;
    tcp::acceptor acc(io, {tcp::v4(), 80});
    boost::beast::tcp_stream s(acc.accept());
    net::co_spawn(io, http_server(s), net::detached);
    io.run();
  });
  w.run_for(std::chrono::milliseconds(1));
  client.spawn([&] {
    net::io_context io;
    tcp::resolver r(io);
    boost::beast::tcp_stream s(io);
    s.connect(r.resolve("server", "80"));
    s.socket().set_option(tcp::no_delay(true));
    net::co_spawn(io, http_client(s, rounds, done), net::detached);
    io.run();
  });
  w.run_until([&] { return done == rounds; }, std::chrono::hours(1000));
  return done;
}

}  // namespace

void posix_rows(const settings& s, std::vector<row>& rows) {
  const std::size_t rounds = s.quick ? 2'000 : 20'000;
  const int reps = s.quick ? 1 : 5;
  const paired alias = paired_rates(reps, [&] { return posix_in_processes(rounds); }, [&] { return alias_in_processes(rounds); });
  rows.push_back({"64 B echo through POSIX calls in two simulated processes; vs simasio's sockets, blocking, in two "
                  "processes (round trips/s)",
                  alias.a, alias.b, times(alias.ratio), "", true, "/s"});
  const paired real = paired_rates(reps, [&] { return posix_in_processes(rounds); }, [&] { return real_loopback(rounds); });
  rows.push_back({"64 B echo through POSIX calls in two simulated processes; vs the same calls on real loopback, two "
                  "threads (round trips/s)",
                  real.a, real.b, times(real.ratio), "", true, "/s"});
  const double beast = best_rate(reps, [&] { return beast_in_processes(rounds); });
  rows.push_back({"Beast HTTP keep-alive on Boost.Asio's own io_context in two simulated processes (round trips/s; "
                  "the beast group's rows: simasio's tcp_stream, real loopback)",
                  beast, 0, "", "", true, "/s"});
}

}  // namespace bench
