// asio_cpp11_multicast.cpp — Asio's cpp11/multicast receiver and sender, alias-switched
//
// Three receivers on their own hosts join 239.255.0.1; the sender sends its
// ten messages to the group. UDP may lose some (5% loss, and the partition
// cuts the first receiver off for a while): every printed line must be one
// of the sender's messages, none more than once per receiver, and most must
// arrive.
#include <simasio/asio.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"

#include "asio_cpp11_multicast_receiver.ipp"
#include "asio_cpp11_multicast_sender.ipp"

#include <map>

SIMASIO_TEST_CASE(cpp11_multicast, conformance::seeds) {
  namespace net = simasio::asio;
  const auto group = net::ip::make_address("239.255.0.1");
  const auto any = net::ip::make_address("0.0.0.0");
  auto& tx = world.add_host("sender");
  std::vector<std::unique_ptr<asio_cpp11_multicast_receiver::receiver>> receivers;
  std::vector<simasio::host*> hosts;
  for (int i = 0; i < 3; ++i) hosts.push_back(&world.add_host("receiver" + std::to_string(i)));
  conformance::faults(world, tx, *hosts[0]);
  conformance::capture out;
  // As each receiver's main() does (`receiver 0.0.0.0 239.255.0.1`), then the sender's.
  for (auto* h : hosts)
    receivers.push_back(std::make_unique<asio_cpp11_multicast_receiver::receiver>(h->context(), any, group));
  asio_cpp11_multicast_sender::sender s(tx.context(), group);
  world.run_for(std::chrono::seconds(30));
  std::map<std::string, int> seen;
  std::istringstream lines(out.out());
  int total = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Message ", 0) != 0) throw std::runtime_error("a receiver printed \"" + line + "\"");
    if (++seen[line] > 3) throw std::runtime_error("\"" + line + "\" arrived more than once per receiver");
    ++total;
  }
  if (seen.size() > 10) throw std::runtime_error("more distinct messages than the sender sent");
  if (total < 15) throw std::runtime_error("only " + std::to_string(total) + " of 30 copies arrived:\n" + out.out());
}
