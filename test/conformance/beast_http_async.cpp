// beast_http_async.cpp — Beast's http/server/async and http/client/async, alias-switched
#include <simasio/beast.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"
#include "doc_root.hpp"

#include "beast_http_server_async.ipp"
#include "beast_http_client_async.ipp"

SIMASIO_TEST_CASE(beast_http_async, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.localhost();  // the client's default io_context joins it
  conformance::faults(world, client, server);
  // The server's main(), on host "server": a listener on 0.0.0.0:8080.
  std::make_shared<beast_http_server_async::listener>(
      server.context(), simasio::asio::ip::tcp::endpoint{simasio::asio::ip::make_address("0.0.0.0"), 8080},
      std::make_shared<std::string const>(conformance::doc_root()))
      ->run();
  // The client's main(), unchanged.
  conformance::capture out;
  const int rc = conformance::run_main(beast_http_client_async::example_main,
                                       {"http-client-async", "server", "8080", "/index.html"});
  if (rc != 0) throw std::runtime_error("http-client-async exited with " + std::to_string(rc) + ": " + out.err());
  conformance::expect_contains(out.out() + out.err(), {"HTTP/1.1 200 OK", conformance::page}, "the client's output");
}
