// asio_cpp11_spawn.cpp — Asio's cpp11/spawn echo_server (stackful coroutines: spawn,
// yield_context, a strand and an idle timer) with cpp11/echo's blocking client, alias-switched,
// each an unmodified main() run as a simulated process of its own host
//
// The example includes <boost/asio/spawn.hpp> after the alias switch has put
// <simasio/asio.hpp> first (as a user's switch does when it takes the place
// of <boost/asio.hpp>): net::spawn and net::yield_context must still be
// Boost's, whatever the include order.
#include <simasio/asio.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"

#include "asio_cpp11_spawn_echo_server.ipp"
#include "asio_cpp11_spawn_echo_client.ipp"

SIMASIO_TEST_CASE(cpp11_spawn_echo, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  conformance::faults(world, client, server);
  conformance::capture out;
  conformance::stdin_from input("hello from a stackful coroutine\n");
  // As `echo_server 7000` on host "server" ...
  const simasio::process s = server.spawn_main(asio_cpp11_spawn_echo_server::example_main, {"echo_server", "7000"});
  world.run_for(std::chrono::milliseconds(1));
  // ... and `blocking_tcp_echo_client server 7000` on host "client".
  const simasio::process c =
      client.spawn_main(asio_cpp11_spawn_echo_client::example_main, {"blocking_tcp_echo_client", "server", "7000"});
  if (!world.run_until([&] { return c.ended(); }, std::chrono::minutes(10)))
    throw std::runtime_error("the client's main() did not return: " + world.pending_report());
  conformance::expect_contains(out.out(), {"Enter message: ", "Reply is: hello from a stackful coroutine"},
                               "the client's output");
  if (!out.err().empty()) throw std::runtime_error("a program printed an error: " + out.err());
  if (c.exit_code() != 0) throw std::runtime_error("the client's main() did not return 0");
  if (s.ended()) throw std::runtime_error("the server's main() ended");
}
