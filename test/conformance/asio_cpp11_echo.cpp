// asio_cpp11_echo.cpp — Asio's cpp11/echo async_tcp_echo_server and blocking_tcp_echo_client, alias-switched,
// each an unmodified main() run as a simulated process of its own host (host::spawn_main)
//
// The server's main() builds its io_context and blocks in run(); the
// client's resolves, connects, reads a line from std::cin, writes it and
// blocks in read() for the echo. Both run as Boost ships them: the client's
// blocking calls suspend its process while the network (latency, loss, a
// partition that heals) and the server run.
#include <simasio/asio.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"

#include "asio_cpp11_echo_server.ipp"
#include "asio_cpp11_echo_client.ipp"

SIMASIO_TEST_CASE(cpp11_echo_processes, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  conformance::faults(world, client, server);
  conformance::capture out;
  conformance::stdin_from input("hello through the partition\n");
  // As `async_tcp_echo_server 7000` on host "server" ...
  const simasio::process s = server.spawn_main(asio_cpp11_echo_server::example_main, {"async_tcp_echo_server", "7000"});
  world.run_for(std::chrono::milliseconds(1));  // the server listens before the client starts, as a user would start them
  // ... and `blocking_tcp_echo_client server 7000` on host "client".
  const simasio::process c =
      client.spawn_main(asio_cpp11_echo_client::example_main, {"blocking_tcp_echo_client", "server", "7000"});
  if (!world.run_until([&] { return c.ended(); }, std::chrono::minutes(10)))
    throw std::runtime_error("the client's main() did not return: " + world.pending_report());
  conformance::expect_contains(out.out(), {"Enter message: ", "Reply is: hello through the partition"},
                               "the client's output");
  if (!out.err().empty()) throw std::runtime_error("a program printed an error: " + out.err());
  if (c.exit_code() != 0) throw std::runtime_error("the client's main() did not return 0");
  if (s.ended()) throw std::runtime_error("the server's main() ended");
}
