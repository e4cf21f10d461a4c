// autobahn.cpp — autobahn-cpp's own examples, unmodified mains, against a WAMP router in the scenario
//
// autobahn-cpp (Debian's autobahn-cpp-dev, unpacked: its package conflicts
// with Boost 1.81's) is a header-only WAMP client on Boost.Asio whose API
// returns boost::futures with continuations (.then). Its headers and its
// examples (autobahn-cpp-doc) get the alias switch and nothing else; each
// example's main() runs as a process linked with simasio::interpose, so the
// threads Boost.Thread starts for .then continuations are threads of that
// process, on virtual time. The router is the scenario's (wamp_router.hpp).
//   - callee registers com.examples.calculator.add2; caller calls it with
//     (23, 777) and prints the result, then leaves and stops;
//   - subscriber subscribes to com.examples.subscriptions.topic1; publisher
//     publishes "hello" on it and leaves.
// Every seed runs under conformance::faults (latency, 5% loss and a partition
// that heals).
#include <simasio/asio.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"
#include "wamp_router.hpp"

#include "autobahn_callee.ipp"
#include "autobahn_caller.ipp"
#include "autobahn_publisher.ipp"
#include "autobahn_subscriber.ipp"

#include <memory>
#include <string>

namespace {

// The router on host "router", port 8000 (the examples' default port);
// the examples take its address with -h (they parse an IP address).
struct router_host {
  simasio::host& host;
  std::unique_ptr<wamp::router> router;
  std::string ip;
};

router_host start_router(simasio::world& world) {
  auto& host = world.add_host("router");
  router_host r{host, std::make_unique<wamp::router>(host.context(), 8000), host.address().to_string()};
  return r;
}

void call_add2(simasio::world& world, conformance::capture& out) {
  router_host r = start_router(world);
  auto& callee_host = world.add_host("callee");
  auto& caller_host = world.add_host("caller");
  conformance::faults(world, callee_host, r.host);  // the partition cuts the callee's connect and register
  const simasio::process callee =
      callee_host.spawn_main(autobahn_callee::example_main, {"callee", "-h", r.ip, "-p", "8000"});
  if (!world.run_until([&] { return r.router->registered("com.examples.calculator.add2"); }, std::chrono::minutes(1)))
    throw std::runtime_error("the callee did not register in a minute: " + world.pending_report() +
                             "\nits output:\n" + out.err().substr(0, 3000));
  const simasio::process caller =
      caller_host.spawn_main(autobahn_caller::example_main, {"caller", "-h", r.ip, "-p", "8000"});
  if (!world.run_until([&] { return caller.ended(); }, std::chrono::minutes(2)))
    throw std::runtime_error("the caller's main() did not return in two minutes: " + world.pending_report() +
                             "\nthe programs' output:\n" + out.err().substr(0, 3000));
  conformance::expect_contains(out.err(),
                               {"Procedure com.examples.calculator.add2 invoked: 23, 777", "call result: 800",
                                "left session (wamp.close.goodbye_and_out)", "stopped session"},
                               "the programs' output");
  if (caller.exit_code() != 0) throw std::runtime_error("the caller's main() did not return 0");
  if (callee.ended()) throw std::runtime_error("the callee's main() ended");
}

void publish_hello(simasio::world& world, conformance::capture& out) {
  router_host r = start_router(world);
  auto& subscriber_host = world.add_host("subscriber");
  auto& publisher_host = world.add_host("publisher");
  conformance::faults(world, subscriber_host, r.host);  // the partition cuts the subscriber's connect and subscribe
  const simasio::process subscriber =
      subscriber_host.spawn_main(autobahn_subscriber::example_main, {"subscriber", "-h", r.ip, "-p", "8000"});
  if (!world.run_until([&] { return r.router->subscribers("com.examples.subscriptions.topic1") > 0; },
                       std::chrono::minutes(1)))
    throw std::runtime_error("the subscriber did not subscribe in a minute: " + world.pending_report() +
                             "\nits output:\n" + out.err().substr(0, 3000));
  const simasio::process publisher =
      publisher_host.spawn_main(autobahn_publisher::example_main, {"publisher", "-h", r.ip, "-p", "8000"});
  if (!world.run_until([&] { return publisher.ended() && out.err().find("received event") != std::string::npos; },
                       std::chrono::minutes(2)))
    throw std::runtime_error("the event did not arrive in two minutes: " + world.pending_report() +
                             "\nthe programs' output:\n" + out.err().substr(0, 3000));
  conformance::expect_contains(out.err(), {"event published", "received event: hello", "stopped session"},
                               "the programs' output");
  if (publisher.exit_code() != 0) throw std::runtime_error("the publisher's main() did not return 0");
  if (subscriber.ended()) throw std::runtime_error("the subscriber's main() ended");
}

}  // namespace

SIMASIO_TEST_CASE(autobahn_caller_to_callee, conformance::seeds) {
  conformance::capture out;
  call_add2(world, out);
}

SIMASIO_TEST_CASE(autobahn_publisher_to_subscriber, conformance::seeds) {
  conformance::capture out;
  publish_hello(world, out);
}

// The same seed twice: the same trace, payload bytes included, so nothing
// in autobahn-cpp or Boost.Thread drew from a real clock or random source.
// A library's first use in an OS process initializes its globals once (the
// first world's first continuation thread takes one more scheduling point
// than any later world's: Boost.Thread's lazily made thread data); check()
// gives every seed of a scenario with processes a fresh program, where a
// replay matches it. Here, one OS process runs the
// seed three times: the first run warms the library, the next two compare.
BOOST_AUTO_TEST_CASE(autobahn_same_seed_same_bytes) {
  for (std::uint64_t seed : {3u, 11u}) {
    std::uint64_t hashes[3] = {};
    for (std::uint64_t& hash : hashes) {
      simasio::world world(seed);
      conformance::capture out;
      call_add2(world, out);
      hash = world.trace_hash();
    }
    BOOST_TEST(hashes[1] == hashes[2]);
  }
}
