// simasio/detail/net/socket_table.hpp — every socket of a world by id, and each host's bound ports
#ifndef SIMASIO_DETAIL_NET_SOCKET_TABLE_HPP
#define SIMASIO_DETAIL_NET_SOCKET_TABLE_HPP

#include <simasio/detail/net/socket_state.hpp>

#include <boost/asio/ip/address.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace simasio::detail {

// The registry the protocols and the socket layer share: sockets by id
// (events name sockets by id, so nothing dangles once one is gone) and,
// per host, which sockets hold each (transport, port), and TCP's TIME_WAIT.
class socket_table {
 public:
  socket_table() = default;
  ~socket_table();  // deletes the embryos (accepted by the network, never by the program)
  socket_table(const socket_table&) = delete;
  socket_table& operator=(const socket_table&) = delete;

  // A new socket of ctx, numbered after every other.
  socket_state& create(context_state& ctx, transport proto);
  socket_state* find(std::uint64_t id) const noexcept {
    return id != 0 && id <= sockets_.size() ? sockets_[id - 1] : nullptr;
  }
  // Forgets a socket (its owner deletes it, or the caller does).
  void forget(std::uint64_t id) noexcept { sockets_[id - 1] = nullptr; }
  // By index, in creation order: size() and at(i) (null once forgotten).
  std::size_t size() const noexcept { return sockets_.size(); }
  socket_state* at(std::size_t i) const noexcept { return sockets_[i]; }

  void add_host(std::uint32_t id);
  // Calls f(socket) for every live socket created on host, in creation
  // order (what a context's shutdown walks: its host's sockets, not the
  // world's). f must neither create nor forget sockets.
  template <class F>
  void for_each_on_host(std::uint32_t host, F&& f) const {
    for (const std::uint64_t id : ports_[host].sockets)
      if (socket_state* s = find(id)) f(*s);
  }
  // The socket a packet to address:port on host reaches: one bound to that
  // address before one bound to the wildcard, a listening TCP socket
  // before one that is not, and among equals the latest bound (Linux gives
  // a unicast datagram to the newest of several SO_REUSEADDR sockets).
  socket_state* bound(std::uint32_t host, transport proto, const boost::asio::ip::address& address,
                      std::uint16_t port) const;
  // How well s's local address takes traffic to @p to (routed: IPv4 as
  // IPv4): 2 the same address, 1 a wildcard of its family (an IPv6 one
  // takes IPv4 too unless v6_only), 0 not at all.
  static int local_match(const socket_state& s, const boost::asio::ip::address& to) noexcept;
  // Every socket bound to (proto, port) on host, in bind order.
  const std::vector<std::uint64_t>& bound_to_port(std::uint32_t host, transport proto, std::uint16_t port) const;
  bool port_taken(std::uint32_t host, transport proto, std::uint16_t port) const {
    return ports_[host].ports.count({static_cast<std::uint8_t>(proto), port}) != 0;
  }
  // Whether s may bind address:port, as Linux decides: no other socket
  // (or TCP TIME_WAIT) on that port whose address is the same or either is
  // the wildcard, unless both set SO_REUSEADDR and, for TCP, the other is
  // not listening. Empty if it may, address_in_use otherwise.
  boost::system::error_code may_bind(std::uint32_t host, const socket_state& s, const boost::asio::ip::address& address,
                                     std::uint16_t port, duration now) const;
  // Whether s may listen: no other socket listening on an overlapping address of its port.
  bool may_listen(std::uint32_t host, const socket_state& s) const;
  // The next free port of Linux's ephemeral range (49152 to 65535), or 0.
  std::uint16_t ephemeral_port(std::uint32_t host, transport proto);
  void bind(std::uint32_t host, transport proto, std::uint16_t port, std::uint64_t id) {
    ports_[host].ports[{static_cast<std::uint8_t>(proto), port}].push_back(id);
  }
  // Frees s's port, if s holds it.
  void unbind(std::uint32_t host, const socket_state& s) noexcept;
  void clear_ports(std::uint32_t host) noexcept { ports_[host].ports.clear(); }
  // The side of a TCP connection that closed first keeps its address and
  // port in TIME_WAIT for time_wait_length after its close (Linux: 60 s),
  // so a new socket without SO_REUSEADDR cannot bind them meanwhile; a
  // power cut forgets them.
  static constexpr duration time_wait_length = std::chrono::seconds(60);
  void time_wait(std::uint32_t host, const net_endpoint& local, bool reuse, duration now);
  void clear_time_wait(std::uint32_t host) noexcept { ports_[host].time_wait.clear(); }

 private:
  std::vector<socket_state*> sockets_;  // by id - 1; null once destroyed
  struct host_ports {
    std::uint16_t next_port[2] = {49152, 49152};
    std::vector<std::uint64_t> sockets;  // ids created here, in order; forgotten ones pruned as it grows
    std::map<std::pair<std::uint8_t, std::uint16_t>, std::vector<std::uint64_t>> ports;  // (transport, port) -> sockets
    struct waiting {
      boost::asio::ip::address address;
      bool reuse = false;
      duration until{0};
    };
    std::map<std::uint16_t, std::vector<waiting>> time_wait;  // TCP port -> closed connections' ends
  };
  std::vector<host_ports> ports_;  // by host id
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_SOCKET_TABLE_HPP
