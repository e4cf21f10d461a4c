// simasio/detail/net/packet.hpp — a packet on the simulated wire
#ifndef SIMASIO_DETAIL_NET_PACKET_HPP
#define SIMASIO_DETAIL_NET_PACKET_HPP

#include <simasio/detail/net/socket_state.hpp>
#include <simasio/net/fault_rule.hpp>
#include <simasio/sched/timed_event.hpp>
#include <simasio/trace/trace.hpp>

#include <boost/core/span.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace simasio::detail {

class link_layer;

// A packet's facts as fault rules judge them: a packet on the wire, or one
// TCP is about to send (a segment, or the acknowledgement of one).
struct wire_view {
  packet_kind kind = packet_kind::udp;
  std::uint32_t from_host = 0, to_host = 0;
  const net_endpoint* from = nullptr;
  const net_endpoint* to = nullptr;
  boost::span<const char> payload;
};

// A packet on the wire (or parked by a hold). The link layer owns every
// packet from new_packet to drop; the protocol a packet is for reads it
// when it arrives.
struct packet {
  // ack: the handshake's last step, the client's acknowledgement of the SYN-ACK.
  enum class type : std::uint8_t { udp, syn, syn_ack, rst, segment, ack };
  static constexpr std::size_t type_count = 6;
  type t = type::udp;
  std::uint64_t seq = 0;
  std::uint32_t from_host = 0, to_host = 0;
  net_endpoint from, to;
  std::uint64_t conn = 0;   // segment, syn_ack, ack, rst: connection id
  int side = 0;             // segment: sender side; rst: side it is for
  std::uint64_t sock = 0;   // syn, syn_ack, refusing rst: the connecting socket's id
  std::uint64_t nonce = 0;  // syn, syn_ack, refusing rst: which connect attempt
  std::vector<char> data;
  bool fin = false;
  std::uint64_t judged_at = 0;  // the rule serial when it left: later rules judge it on arrival
  duration not_before{0};       // rst: after the segments its side sent before it (one flow does not reorder)
  link_layer* link = nullptr;
  timed_event ev{&on_fire, this};
  packet* prev = nullptr;
  packet* next = nullptr;

  static void on_fire(timed_event* e);  // link.cpp: the packet arrives

  wire_view facts() const noexcept {
    static constexpr packet_kind kinds[type_count] = {packet_kind::udp, packet_kind::tcp_syn,
                                                      packet_kind::tcp_syn_ack, packet_kind::tcp_rst,
                                                      packet_kind::tcp_data, packet_kind::tcp_ack};
    const packet_kind k = t == type::segment && fin && data.empty() ? packet_kind::tcp_fin
                                                                    : kinds[static_cast<std::size_t>(t)];
    return {k, from_host, to_host, &from, &to, boost::span<const char>(data.data(), data.size())};
  }
};

// A drop_reason as a trace event's argument.
inline std::uint64_t drop_code(drop_reason r) noexcept { return static_cast<std::uint64_t>(r); }

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_PACKET_HPP
