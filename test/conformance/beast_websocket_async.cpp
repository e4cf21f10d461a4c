// beast_websocket_async.cpp — Beast's websocket/server/async and websocket/client/async, alias-switched
#include <simasio/beast.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"

#include "beast_websocket_server_async.ipp"
#include "beast_websocket_client_async.ipp"

SIMASIO_TEST_CASE(beast_websocket_async, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.localhost();
  conformance::faults(world, client, server);
  std::make_shared<beast_websocket_server_async::listener>(
      server.context(), simasio::asio::ip::tcp::endpoint{simasio::asio::ip::make_address("0.0.0.0"), 8080})
      ->run();
  conformance::capture out;
  const int rc = conformance::run_main(beast_websocket_client_async::example_main,
                                       {"websocket-client-async", "server", "8080", "Hello, simasio"});
  if (rc != 0) throw std::runtime_error("websocket-client-async exited with " + std::to_string(rc));
  conformance::expect_contains(out.out() + out.err(), {"Hello, simasio"}, "the client's output");
  if (!out.err().empty()) throw std::runtime_error("the client reported an error: " + out.err());
}
