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
  conformance::echo_through_blocking_client(world, asio_cpp11_spawn_echo_server::example_main, "echo_server",
                                            asio_cpp11_spawn_echo_client::example_main,
                                            "hello from a stackful coroutine");
}
