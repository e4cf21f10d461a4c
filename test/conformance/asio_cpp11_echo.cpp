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
  conformance::echo_through_blocking_client(world, asio_cpp11_echo_server::example_main, "async_tcp_echo_server",
                                            asio_cpp11_echo_client::example_main, "hello through the partition");
}
