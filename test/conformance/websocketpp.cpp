// websocketpp.cpp — websocketpp's own examples, unmodified mains, over the simulated network
//
// websocketpp (Debian's libwebsocketpp-dev) is a header-only websocket
// library on Boost.Asio. Its headers and its examples (libwebsocketpp-doc)
// get the alias switch (test/CMakeLists.txt) and nothing else; each example's
// main() runs as a process of its host, linked with simasio::interpose, so
// the telemetry client's std::thread, std::mutex and sleep() are the
// process's own, on virtual time.
//   - echo_server: listens on 9002 and echoes every message it gets;
//   - telemetry_client ws://server:9002: an io_service thread plus a thread
//     that sends "count is N" once a second.
// Every seed runs under conformance::faults (latency, 5% loss and a partition
// that heals).
#include <simasio/asio.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"

#include "websocketpp_echo_server.ipp"
#include "websocketpp_telemetry_client.ipp"

#include <string>

namespace {

// The server echoes each count it got; the client sent them once a second.
void telemetry_to_echo_server(simasio::world& world, conformance::capture& out) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  conformance::faults(world, client, server);
  const simasio::process s = server.spawn([] { websocketpp_echo_server::example_main(); });  // main() takes no arguments
  world.run_for(std::chrono::milliseconds(1));
  const simasio::process c = client.spawn_main(websocketpp_telemetry_client::example_main,
                                               {"telemetry_client", "ws://server:9002"});
  const bool got_ten = world.run_until(
      [&] { return out.out().find("and message: count is 9\n") != std::string::npos; }, std::chrono::minutes(2));
  if (!got_ten)
    throw std::runtime_error("the echo server did not get ten counts in two minutes: " + world.pending_report() +
                             "\nthe programs' output:\n" + out.out().substr(0, 3000) + out.err());
  conformance::expect_contains(out.out(), {"Connection opened, starting telemetry!", "and message: count is 0\n"},
                               "the programs' output");
  if (s.ended() || c.ended()) throw std::runtime_error("a main() ended while the connection was up");
}

}  // namespace

SIMASIO_TEST_CASE(websocketpp_telemetry_to_echo_server, conformance::seeds) {
  conformance::capture out;
  telemetry_to_echo_server(world, out);
}

// The same seed twice: the same trace, payload bytes included (they fold
// into the trace hash), so nothing in websocketpp drew from a real clock or
// random source (the client's masking keys come from std::random_device).
BOOST_AUTO_TEST_CASE(websocketpp_same_seed_same_bytes) {
  for (std::uint64_t seed : {3u, 11u}) {
    std::uint64_t hashes[2] = {};
    for (std::uint64_t& hash : hashes) {
      simasio::world world(seed);
      conformance::capture out;
      telemetry_to_echo_server(world, out);
      hash = world.trace_hash();
    }
    BOOST_TEST(hashes[0] == hashes[1]);
  }
}
