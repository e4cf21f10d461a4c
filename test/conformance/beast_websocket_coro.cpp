// beast_websocket_coro.cpp — Beast's websocket/server/coro and websocket/client/coro, alias-switched
#include <simasio/beast.hpp>
#include <simasio/spawn.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"

#include "beast_websocket_server_coro.ipp"
#include "beast_websocket_client_coro.ipp"

SIMASIO_TEST_CASE(beast_websocket_coro, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.localhost();
  conformance::faults(world, client, server);
  // As the server's main() does, on host "server".
  simasio::asio::io_context& ioc = server.context();
  simasio::asio::spawn(ioc, std::bind(&beast_websocket_server_coro::do_listen, std::ref(ioc),
                                      simasio::asio::ip::tcp::endpoint{simasio::asio::ip::make_address("0.0.0.0"), 8080},
                                      std::placeholders::_1));
  conformance::capture out;
  const int rc = conformance::run_main(beast_websocket_client_coro::example_main,
                                       {"websocket-client-coro", "server", "8080", "Hello, simasio"});
  if (rc != 0) throw std::runtime_error("websocket-client-coro exited with " + std::to_string(rc));
  conformance::expect_contains(out.out() + out.err(), {"Hello, simasio"}, "the client's output");
  if (!out.err().empty()) throw std::runtime_error("the client reported an error: " + out.err());
}
