// simasio/detail/net/udp.hpp — UDP: datagrams, their delivery, and multicast groups
#ifndef SIMASIO_DETAIL_NET_UDP_HPP
#define SIMASIO_DETAIL_NET_UDP_HPP

#include <simasio/detail/net/link.hpp>
#include <simasio/detail/net/socket_table.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/core/span.hpp>
#include <boost/system/error_code.hpp>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace simasio::detail {

// UDP over the link layer. Arriving datagrams go to the socket bound to
// their port (a group's to its members); the socket layer above learns of
// them through the ready hook it registered.
// What a queued datagram costs its socket's receive buffer, as Linux
// counts it: the kernel memory holding it (its skb's truesize: payload and
// headers rounded up to an allocation, plus the skb itself), not its
// payload. About 2.3 KB for a 1,000-byte datagram.
inline std::size_t datagram_memory(std::size_t payload) noexcept {
  // std::bit_ceil(payload + 384), also in C++17 (the argument is > 1).
  const unsigned long long above = payload + 383;
  return (std::size_t{1} << (sizeof(unsigned long long) * CHAR_BIT - __builtin_clzll(above))) + 256;
}

class udp_layer {
 public:
  udp_layer(link_layer& link, socket_table& table);
  udp_layer(const udp_layer&) = delete;
  udp_layer& operator=(const udp_layer&) = delete;

  using ready_fn = void (*)(void* self, socket_state& s);
  void set_ready_hook(ready_fn fn, void* self) noexcept {
    ready_ = fn;
    ready_self_ = self;
  }

  // Sends a datagram of `size` bytes from a bound socket: the source
  // address as Linux picks it, then one packet (or one per group member).
  boost::system::error_code send(socket_state& s, boost::span<const boost::asio::const_buffer> data,
                                 std::size_t size, const net_endpoint& to);
  // Multicast membership (IP_ADD_MEMBERSHIP, IP_DROP_MEMBERSHIP) of an
  // open socket: errors as Linux's.
  boost::system::error_code join_group(socket_state& s, const boost::asio::ip::address& group);
  boost::system::error_code leave_group(socket_state& s, const boost::asio::ip::address& group);
  void leave_all_groups(socket_state& s) noexcept;

 private:
  static void deliver(void* self, packet& p);
  void enqueue(socket_state& s, const net_endpoint& from, std::vector<char> data);
  void port_unreachable(const packet& p);
  void send_multicast(socket_state& s, std::uint32_t from, const net_endpoint& source, const net_endpoint& to,
                      boost::span<const boost::asio::const_buffer> data, std::size_t size);
  packet* datagram_packet(std::uint32_t from, const net_endpoint& source, std::uint32_t to_host,
                          const net_endpoint& to, boost::span<const boost::asio::const_buffer> data, std::size_t size);

  link_layer& link_;
  socket_table& table_;
  ready_fn ready_ = nullptr;
  void* ready_self_ = nullptr;
  // group -> (member host -> how many of its sockets joined). A host
  // receives a group's datagrams while any of its sockets is a member
  // (Linux's IP_MULTICAST_ALL); copies go out in host id order.
  std::map<boost::asio::ip::address, std::map<std::uint32_t, int>> groups_;
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_UDP_HPP
