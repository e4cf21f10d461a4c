// asio_cpp11_timeouts.cpp — Asio's cpp11/timeouts server and async_tcp_client, alias-switched
//
// The server relays every line a client sends to all its clients (and to a
// UDP endpoint), and drops clients that stay silent too long; the client
// sends heartbeats, times its connects and reads out. A second, plain
// simasio client says a line; the example client must print it, and stay
// connected through the partition and a minute of heartbeats.
#include <simasio/asio.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"

#include "asio_cpp11_timeouts_server.ipp"
#include "asio_cpp11_timeouts_client.ipp"

namespace {
namespace net = simasio::asio;
using net::ip::tcp;
}  // namespace

SIMASIO_TEST_CASE(cpp11_timeouts, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  auto& speaker = world.add_host("speaker");
  conformance::faults(world, client, server);
  // As `server 8000 <bcast address> 8001` does (the broadcast goes to the speaker host).
  asio_cpp11_timeouts_server::server s(server.context(), tcp::endpoint(tcp::v4(), 8000),
                                       net::ip::udp::endpoint(speaker.address(), 8001));
  conformance::capture out;
  // As `client server 8000` does, on host "client".
  tcp::resolver r(client.context());
  asio_cpp11_timeouts_client::client c(client.context());
  c.start(r.resolve("server", "8000"));
  // After the heal, the speaker says one line through the server.
  auto said = std::make_shared<std::string>();
  net::co_spawn(
      speaker.context(),
      [said]() -> net::awaitable<void> {
        net::steady_timer t(co_await net::this_coro::executor, std::chrono::seconds(20));
        co_await t.async_wait(net::use_awaitable);
        tcp::socket sock(co_await net::this_coro::executor);
        tcp::resolver resolver(co_await net::this_coro::executor);
        co_await net::async_connect(sock, co_await resolver.async_resolve("server", "8000", net::use_awaitable),
                                    net::use_awaitable);
        co_await net::async_write(sock, net::buffer(std::string("the speaker says hello\n")), net::use_awaitable);
        *said = "yes";
        net::steady_timer linger(co_await net::this_coro::executor, std::chrono::seconds(5));
        co_await linger.async_wait(net::use_awaitable);
      },
      net::detached);
  world.run_for(std::chrono::seconds(90));
  c.stop();
  world.run_for(std::chrono::seconds(1));
  conformance::expect_contains(out.out(), {"Connected to", "Received: the speaker says hello"}, "the client's output");
  for (const char* bad : {"Connect timed out", "Error on receive", "Error on heartbeat"})
    if (out.out().find(bad) != std::string::npos)
      throw std::runtime_error(std::string("the client printed \"") + bad + "\":\n" + out.out());
}
