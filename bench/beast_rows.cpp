// beast_rows.cpp — Beast's HTTP and websocket round trips in simulation
// against the same code on real loopback, in one process: one coroutine body
// per side, templated on the stream, runs over simasio::beast::tcp_stream on
// two simulated hosts and over boost::beast::tcp_stream on 127.0.0.1. Then
// the ceiling: the same bodies over Beast's in-memory test stream on
// Boost.Asio's io_context (no sockets, no timers, no simulation), which is
// Beast's own work alone: no simulator of these round trips can beat it.
#include "groups.hpp"
#include "pairs.hpp"

#include <simasio/beast.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <boost/beast/_experimental/test/stream.hpp>

#include <string>
#include <vector>

namespace bench {
namespace {

namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
using boost::asio::awaitable;
using boost::asio::use_awaitable;

// Keep-alive GETs, a small body each way.
template <class Stream>
awaitable<void> http_client(Stream& s, std::size_t rounds, std::size_t& done) {
  boost::beast::flat_buffer buffer;
  for (std::size_t i = 0; i < rounds; ++i) {
    http::request<http::string_body> req{http::verb::get, "/ping", 11};
    req.set(http::field::host, "server");
    req.keep_alive(true);
    co_await http::async_write(s, req, use_awaitable);
    http::response<http::string_body> res;
    co_await http::async_read(s, buffer, res, use_awaitable);
    ++done;
  }
}

template <class Stream>
awaitable<void> http_server(Stream& s) {
  boost::beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> req;
    auto [ec, n] = co_await http::async_read(s, buffer, req, boost::asio::as_tuple(use_awaitable));
    if (ec) co_return;
    http::response<http::string_body> res{http::status::ok, req.version()};
    res.body() = "pong";
    res.keep_alive(true);
    res.prepare_payload();
    co_await http::async_write(s, res, use_awaitable);
  }
}

// Text messages of 64 bytes, echoed.
template <class Stream>
awaitable<void> ws_client(Stream& s, std::size_t rounds, std::size_t& done) {
  websocket::stream<Stream&> ws(s);
  co_await ws.async_handshake("server", "/", use_awaitable);
  boost::beast::flat_buffer buffer;
  const std::string msg(64, 'm');
  for (std::size_t i = 0; i < rounds; ++i) {
    co_await ws.async_write(boost::asio::buffer(msg), use_awaitable);
    co_await ws.async_read(buffer, use_awaitable);
    buffer.consume(buffer.size());
    ++done;
  }
}

template <class Stream>
awaitable<void> ws_server(Stream& s) {
  websocket::stream<Stream&> ws(s);
  co_await ws.async_accept(use_awaitable);
  boost::beast::flat_buffer buffer;
  for (;;) {
    auto [ec, n] = co_await ws.async_read(buffer, boost::asio::as_tuple(use_awaitable));
    if (ec) co_return;
    co_await ws.async_write(buffer.data(), use_awaitable);
    buffer.consume(buffer.size());
  }
}

template <class Client, class Server>
double simulated(std::size_t rounds, Client client, Server server) {
  namespace net = simasio::asio;
  simasio::world w(1);
  auto [cs, ss] = simulated_pair(w, 80);
  simasio::beast::tcp_stream c(std::move(cs)), s(std::move(ss));
  std::size_t done = 0;
  const auto start = clock_type::now();
  net::co_spawn(w.get_host("server").context(), server(s), net::detached);
  net::co_spawn(w.get_host("client").context(), client(c, rounds, done), net::detached);
  w.run_until([&] { return done == rounds; }, std::chrono::hours(1000));
  return static_cast<double>(done) / std::chrono::duration<double>(clock_type::now() - start).count();
}

// Runs the server on s and the client on c, connected streams of ioc; the
// client closes c when done, which ends the server.
template <class Stream, class Client, class Server>
double round_trips_on(boost::asio::io_context& ioc, Stream& c, Stream& s, std::size_t rounds, Client client,
                      Server server) {
  namespace net = boost::asio;
  std::size_t done = 0;
  const auto start = clock_type::now();
  net::co_spawn(ioc, server(s), net::detached);
  net::co_spawn(ioc, [&]() -> net::awaitable<void> {
    co_await client(c, rounds, done);
    c.close();
  }, net::detached);
  ioc.run();
  return static_cast<double>(done) / std::chrono::duration<double>(clock_type::now() - start).count();
}

template <class Client, class Server>
double real(std::size_t rounds, Client client, Server server) {
  boost::asio::io_context ioc(1);
  auto [cs, ss] = loopback_pair(ioc);
  boost::beast::tcp_stream c(std::move(cs)), s(std::move(ss));
  return round_trips_on(ioc, c, s, rounds, client, server);
}

template <class Client, class Server>
double in_memory(std::size_t rounds, Client client, Server server) {
  boost::asio::io_context ioc(1);
  boost::beast::test::stream c(ioc), s(ioc);
  c.connect(s);
  return round_trips_on(ioc, c, s, rounds, client, server);
}

}  // namespace

void beast_rows(const settings& s, std::vector<row>& rows) {
  const std::size_t rounds = s.quick ? 2'000 : 20'000;
  const int reps = s.quick ? 1 : 5;
  const auto http_c = [](auto& c, std::size_t r, std::size_t& d) { return http_client(c, r, d); };
  const auto http_s = [](auto& sv) { return http_server(sv); };
  const auto ws_c = [](auto& c, std::size_t r, std::size_t& d) { return ws_client(c, r, d); };
  const auto ws_s = [](auto& sv) { return ws_server(sv); };
  const paired h = paired_measured(reps, [&] { return simulated(rounds, http_c, http_s); },
                                   [&] { return real(rounds, http_c, http_s); });
  rows.push_back({"Beast HTTP keep-alive request/response over tcp_stream; vs real loopback (round trips/s)", h.a, h.b,
                  times(h.ratio), ">= 4x", h.ratio >= 4, "/s"});
  const paired ws = paired_measured(reps, [&] { return simulated(rounds, ws_c, ws_s); },
                                    [&] { return real(rounds, ws_c, ws_s); });
  rows.push_back({"Beast websocket 64 B message echo over tcp_stream; vs real loopback (round trips/s)", ws.a, ws.b,
                  times(ws.ratio), ">= 4x", ws.ratio >= 4, "/s"});
  // The ceilings: Beast's own work, paired with real loopback again; the
  // ratio a simulator that cost nothing would reach.
  const paired hm = paired_measured(reps, [&] { return in_memory(rounds, http_c, http_s); },
                                    [&] { return real(rounds, http_c, http_s); });
  rows.push_back({"Beast HTTP keep-alive over Beast's in-memory test stream on boost::asio::io_context (Beast's own "
                  "work: the most any simulation allows); vs real loopback (round trips/s)",
                  hm.a, hm.b, times(hm.ratio), "", true, "/s"});
  const paired wm = paired_measured(reps, [&] { return in_memory(rounds, ws_c, ws_s); },
                                    [&] { return real(rounds, ws_c, ws_s); });
  rows.push_back({"Beast websocket echo over Beast's in-memory test stream on boost::asio::io_context (Beast's own "
                  "work: the most any simulation allows); vs real loopback (round trips/s)",
                  wm.a, wm.b, times(wm.ratio), "", true, "/s"});
}

}  // namespace bench
