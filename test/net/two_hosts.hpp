// two_hosts.hpp — a world with a server and a client host, for the network tests
#ifndef SIMASIO_TEST_NET_TWO_HOSTS_HPP
#define SIMASIO_TEST_NET_TWO_HOSTS_HPP

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <cstdint>

namespace simasio_test {

// Hosts "server" and "client" in a world of @p seed whose links all have
// @p link; server_ep is the port the tests listen on.
struct two_hosts {
  explicit two_hosts(std::uint64_t seed = 1, simasio::link_config link = {}) : w(seed) {
    w.net().configure(link);
  }
  simasio::world w;
  simasio::host& server = w.add_host("server");
  simasio::host& client = w.add_host("client");
  simasio::asio::ip::tcp::endpoint server_ep{server.address(), 7000};
};

}  // namespace simasio_test

#endif  // SIMASIO_TEST_NET_TWO_HOSTS_HPP
