// asio_cpp20_coroutines.cpp — Asio's cpp20/coroutines echo_server, chat_server and timeout, alias-switched
//
// These servers have no client program: the harness's clients are plain
// simasio coroutines that check what the server sends back.
#include <simasio/asio.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"

#include "asio_cpp20_echo_server.ipp"
#include "asio_cpp20_chat_server.ipp"
#include "asio_cpp20_timeout.ipp"

namespace {
namespace net = simasio::asio;
using net::ip::tcp;

// Connects to server:port, writes each line, reads back @p expect bytes.
net::awaitable<std::string> talk(std::string port, std::vector<std::string> lines, std::size_t expect) {
  auto ex = co_await net::this_coro::executor;
  tcp::resolver resolver(ex);
  tcp::socket s(ex);
  co_await net::async_connect(s, co_await resolver.async_resolve("server", port, net::use_awaitable),
                              net::use_awaitable);
  std::string all;
  for (const auto& l : lines) all += l;
  co_await net::async_write(s, net::buffer(all), net::use_awaitable);
  std::string got(expect, '\0');
  co_await net::async_read(s, net::buffer(got), net::use_awaitable);
  co_return got;
}

// Runs @p client on the client host until it finishes (or 10 minutes pass).
std::string run_client(simasio::world& w, simasio::host& client, net::awaitable<std::string> c) {
  std::string result;
  std::exception_ptr error;
  bool done = false;
  net::co_spawn(client.context(), std::move(c), [&](std::exception_ptr e, std::string r) {
    error = e;
    result = std::move(r);
    done = true;
  });
  w.run_until([&] { return done; }, std::chrono::minutes(10));
  if (error) std::rethrow_exception(error);
  if (!done) throw std::runtime_error("the client did not finish in 10 minutes of virtual time");
  return result;
}
}  // namespace

SIMASIO_TEST_CASE(cpp20_echo_server, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  conformance::faults(world, client, server);
  net::co_spawn(server.context(), asio_cpp20_echo_server::listener(), net::detached);
  const std::string sent = "hello\nsimulated\nworld\n";
  const std::string got = run_client(world, client, talk("55555", {sent}, sent.size()));
  if (got != sent) throw std::runtime_error("echo_server echoed \"" + got + "\"");
}

SIMASIO_TEST_CASE(cpp20_chat_server, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& alice = world.add_host("alice");
  auto& bob = world.add_host("bob");
  conformance::faults(world, alice, server);
  // As main() does for `chat_server 9000`.
  net::co_spawn(server.context(),
                asio_cpp20_chat_server::listener(tcp::acceptor(server.context(), {tcp::v4(), 9000})), net::detached);
  // Alice says one line; Bob, joining at any time, hears it (the room keeps
  // recent messages for newcomers) and says his own, which Alice hears.
  std::string alice_heard, bob_heard;
  int done = 0;
  auto member = [&](std::string says, std::string& heard) -> net::awaitable<void> {
    auto ex = co_await net::this_coro::executor;
    tcp::resolver resolver(ex);
    tcp::socket s(ex);
    co_await net::async_connect(s, co_await resolver.async_resolve("server", "9000", net::use_awaitable),
                                net::use_awaitable);
    co_await net::async_write(s, net::buffer(says), net::use_awaitable);
    std::string buf;
    while (heard.find("alice:hi\n") == std::string::npos || heard.find("bob:hello\n") == std::string::npos) {
      char chunk[256];
      std::size_t n = co_await s.async_read_some(net::buffer(chunk), net::use_awaitable);
      heard.append(chunk, n);
    }
    ++done;
  };
  net::co_spawn(alice.context(), member("alice:hi\n", alice_heard), net::detached);
  net::co_spawn(bob.context(), member("bob:hello\n", bob_heard), net::detached);
  if (!world.run_until([&] { return done == 2; }, std::chrono::minutes(10)))
    throw std::runtime_error("the chat members did not hear each other: alice heard \"" + alice_heard +
                             "\", bob heard \"" + bob_heard + "\"");
}

SIMASIO_TEST_CASE(cpp20_timeout, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  conformance::faults(world, client, server);
  // As main() does: an acceptor on 54321 that lives as long as the server.
  auto acceptor = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint{tcp::v4(), 54321});
  net::co_spawn(server.context(), asio_cpp20_timeout::listen(*acceptor), [acceptor](std::exception_ptr) {});
  const std::string sent = "ping pong\n";
  const std::string got = run_client(world, client, talk("54321", {sent}, sent.size()));
  if (got != sent) throw std::runtime_error("timeout's echo sent back \"" + got + "\"");
}
