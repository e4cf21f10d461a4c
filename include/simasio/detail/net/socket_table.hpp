// simasio/detail/net/socket_table.hpp — every socket of a world by id, and each host's bound ports
#ifndef SIMASIO_DETAIL_NET_SOCKET_TABLE_HPP
#define SIMASIO_DETAIL_NET_SOCKET_TABLE_HPP

#include <simasio/detail/net/socket_state.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace simasio::detail {

// The registry the protocols and the socket layer share: sockets by id
// (events name sockets by id, so nothing dangles once one is gone) and,
// per host, which socket holds each (transport, port).
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
  // The socket bound to (proto, port) on host, or null.
  socket_state* bound(std::uint32_t host, transport proto, std::uint16_t port) const;
  bool port_taken(std::uint32_t host, transport proto, std::uint16_t port) const {
    return ports_[host].ports.count({static_cast<std::uint8_t>(proto), port}) != 0;
  }
  // The next free port of Linux's ephemeral range (49152 to 65535), or 0.
  std::uint16_t ephemeral_port(std::uint32_t host, transport proto);
  void bind(std::uint32_t host, transport proto, std::uint16_t port, std::uint64_t id) {
    ports_[host].ports[{static_cast<std::uint8_t>(proto), port}] = id;
  }
  // Frees s's port, if s holds it.
  void unbind(std::uint32_t host, const socket_state& s) noexcept;
  void clear_ports(std::uint32_t host) noexcept { ports_[host].ports.clear(); }

 private:
  std::vector<socket_state*> sockets_;  // by id - 1; null once destroyed
  struct host_ports {
    std::uint16_t next_port[2] = {49152, 49152};
    std::map<std::pair<std::uint8_t, std::uint16_t>, std::uint64_t> ports;  // (transport, port) -> socket
  };
  std::vector<host_ports> ports_;  // by host id
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_SOCKET_TABLE_HPP
