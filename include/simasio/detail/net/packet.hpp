// simasio/detail/net/packet.hpp — a packet on the simulated wire
#ifndef SIMASIO_DETAIL_NET_PACKET_HPP
#define SIMASIO_DETAIL_NET_PACKET_HPP

#include <simasio/detail/net/socket_state.hpp>
#include <simasio/sched/timed_event.hpp>
#include <simasio/trace/trace.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace simasio::detail {

class link_layer;

// A packet on the wire (or parked by a hold). The link layer owns every
// packet from new_packet to drop; the protocol a packet is for reads it
// when it arrives.
struct packet {
  enum class type : std::uint8_t { udp, syn, syn_ack, rst, segment };
  static constexpr std::size_t type_count = 5;
  type t = type::udp;
  std::uint64_t seq = 0;
  std::uint32_t from_host = 0, to_host = 0;
  net_endpoint from, to;
  std::uint64_t conn = 0;   // segment, syn_ack, rst: connection id
  int side = 0;             // segment: sender side; rst: side it is for
  std::uint64_t sock = 0;   // syn, syn_ack, refusing rst: the connecting socket's id
  std::uint64_t nonce = 0;  // syn, syn_ack, refusing rst: which connect attempt
  std::vector<char> data;
  bool fin = false;
  link_layer* link = nullptr;
  timed_event ev{&on_fire, this};
  packet* prev = nullptr;
  packet* next = nullptr;

  static void on_fire(timed_event* e);  // link.cpp: the packet arrives
};

// A drop_reason as a trace event's argument.
inline std::uint64_t drop_code(drop_reason r) noexcept { return static_cast<std::uint64_t>(r); }

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_PACKET_HPP
