// simasio/detail/net/link.hpp — the link layer: hosts, links, faults and packets on the wire
#ifndef SIMASIO_DETAIL_NET_LINK_HPP
#define SIMASIO_DETAIL_NET_LINK_HPP

#include <simasio/detail/net/packet.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/world_options.hpp>

#include <boost/asio/ip/address.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace simasio::detail {

// The bottom of a world's network. It knows hosts and their addresses, the
// links between them (latency, loss, duplication, bandwidth, MTU) and the
// faults on them, and carries packets: it loses, parks, duplicates and
// delays them as the links and the seed decide. It knows no protocol: TCP
// and UDP register a handler per packet type (set_protocol), and the link
// hands each arriving packet to it. It calls nothing above it.
class link_layer {
 public:
  explicit link_layer(world_core& core);
  ~link_layer();
  link_layer(const link_layer&) = delete;
  link_layer& operator=(const link_layer&) = delete;

  world_core& core() noexcept { return core_; }
  void record(event_kind k, std::uint32_t host, std::uint64_t a, std::uint64_t b) { core_.record(k, host, a, b); }

  // ---- hosts ---------------------------------------------------------------
  void add_host(std::uint32_t id, host_state& state, const boost::asio::ip::address& address);
  // Host id owning an address (loopback and the unspecified address: from_host), or no_host.
  std::uint32_t host_of(const boost::asio::ip::address& address, std::uint32_t from_host) const noexcept;
  std::string host_name(std::uint32_t id) const;
  boost::asio::ip::address host_address(std::uint32_t id) const { return hosts_.at(id).address; }
  std::uint32_t host_count() const noexcept { return static_cast<std::uint32_t>(hosts_.size()); }
  const host_state& host(std::uint32_t id) const noexcept { return *hosts_[id].state; }

  // ---- links and faults (set by network) ------------------------------------
  link_config default_link;
  std::map<std::pair<std::uint32_t, std::uint32_t>, link_config> links;
  std::set<std::pair<std::uint32_t, std::uint32_t>> blocked;  // directed
  std::set<std::pair<std::uint32_t, std::uint32_t>> held;     // unordered (lower id first)
  const link_config& config(std::uint32_t from, std::uint32_t to) const;
  enum class verdict { pass, drop, hold };
  // What the link between from and to does with a packet now.
  verdict judge(std::uint32_t from, std::uint32_t to) const;
  // Why judge() dropped (a drop_reason): a host without power, else a block.
  std::uint64_t drop_cause(std::uint32_t from, std::uint32_t to) const noexcept;
  // Ends the hold between a and b: parked packets go out in order, then the
  // release hook lets protocols resume what stopped on the hold.
  void release(std::uint32_t a, std::uint32_t b);

  // ---- the wire ---------------------------------------------------------------
  duration draw_latency(const link_config& cfg);
  // When a packet of `bytes` sent now has left the sender (bandwidth).
  duration on_wire(std::uint32_t from, std::uint32_t to, const link_config& cfg, std::size_t bytes);
  // A new packet, numbered for the trace and tracked until dropped.
  packet* new_packet(packet::type t, std::uint32_t from_host, const net_endpoint& from, std::uint32_t to_host,
                     const net_endpoint& to);
  // The answer to p (SYN-ACK, RST): back the way it came, for the same attempt.
  packet* reply_to(const packet& p, packet::type t);
  // Puts a datagram or control packet on the link: lost, parked,
  // duplicated or scheduled to arrive, as the link and the seed decide.
  void send(packet* p);
  void schedule_arrival(packet* p, duration at) { core_.schedule(p->ev, at); }
  void park(packet* p);  // held: sent again by release()
  void drop(packet* p) noexcept;

  // ---- protocols plug in from above --------------------------------------------
  // The handler of one packet type. A handler that judges itself gets every
  // arrival and owns the packet (TCP segments: the flight retreats on a
  // fault); the others get only packets that passed, and the link drops
  // them after the handler returns.
  using deliver_fn = void (*)(void* self, packet& p);
  void set_protocol(packet::type t, deliver_fn fn, void* self, bool judges_itself);
  using release_fn = void (*)(void* self, std::uint32_t a, std::uint32_t b);
  void set_release_hook(release_fn fn, void* self) noexcept {
    on_release_ = fn;
    release_self_ = self;
  }

 private:
  friend struct packet;
  void arrive(packet* p);

  world_core& core_;
  struct host_entry {
    host_state* state = nullptr;
    boost::asio::ip::address address;
  };
  std::vector<host_entry> hosts_;  // by host id
  std::map<boost::asio::ip::address, std::uint32_t> by_address_;
  std::vector<std::uint32_t> by_default_;  // 198.18.x.x: host id by the low 16 bits, or no_host
  packet* packets_ = nullptr;              // every packet in flight or held
  packet* free_packets_ = nullptr;         // dropped packets kept for reuse (see pool_allocations)
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<packet*>> held_packets_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, duration> link_busy_;  // bandwidth: when each link is free
  struct protocol {
    deliver_fn fn = nullptr;
    void* self = nullptr;
    bool judges_itself = false;
  };
  protocol protocols_[packet::type_count];
  release_fn on_release_ = nullptr;
  void* release_self_ = nullptr;
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_LINK_HPP
