// simasio/detail/net/link.hpp — the link layer: hosts, links, faults and packets on the wire
#ifndef SIMASIO_DETAIL_NET_LINK_HPP
#define SIMASIO_DETAIL_NET_LINK_HPP

#include <simasio/detail/net/packet.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/world_options.hpp>

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace simasio::detail {

class link_layer;

// Shared by a rule_guard and the link: which rule, and whether it is still
// installed (link is null once it is removed or the world is gone).
struct rule_slot {
  link_layer* link = nullptr;
  std::uint64_t serial = 0;
};

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
  // The address host id sends from to reach @p to: @p to itself for a
  // loopback address, else its own address of to's family (unspecified if
  // it has none).
  boost::asio::ip::address source_address(std::uint32_t id, const boost::asio::ip::address& to) const;
  std::uint32_t host_count() const noexcept { return static_cast<std::uint32_t>(hosts_.size()); }
  const host_state& host(std::uint32_t id) const noexcept { return *hosts_[id].state; }

  // ---- links and faults (set by network) ------------------------------------
  link_config default_link;
  std::map<std::pair<std::uint32_t, std::uint32_t>, link_config> links;
  const link_config& config(std::uint32_t from, std::uint32_t to) const;

  // The faults are rules, judged in order, the first that does not pass
  // deciding: power (a host without it drops everything), then the
  // network's partition rule (the blocked pairs: drop), then its hold rule
  // (the held pairs: park), then the users' rules in install order.
  std::set<std::pair<std::uint32_t, std::uint32_t>> blocked;  // directed
  std::set<std::pair<std::uint32_t, std::uint32_t>> held;     // unordered (lower id first)
  using pair = std::pair<std::uint32_t, std::uint32_t>;
  struct user_rule {
    std::uint64_t serial = 0;
    fault_rule fn;
    std::shared_ptr<rule_slot> slot;
    std::map<pair, std::vector<packet*>> parked;  // datagrams and control packets it held (unordered pair)
    std::set<pair> stalled;                        // pairs whose TCP directions it held
  };
  struct judgement {
    verdict::action act = verdict::action::pass;
    duration by{0};             // delay
    std::uint64_t reason = 0;   // drop: the drop_reason code
    user_rule* rule = nullptr;  // hold by a user rule: where the packet parks
  };
  // What the rules do with a packet now. On arrival, since is the packet's
  // judged_at: the users' rules installed before it left have had their say.
  judgement judge(const wire_view& w, std::uint64_t since = 0);
  // The serial of the latest user rule (a departing packet's judged_at).
  std::uint64_t rule_serial() const noexcept { return rule_serial_; }
  std::shared_ptr<rule_slot> add_rule(fault_rule fn);
  void remove_rule(std::uint64_t serial);
  // Ends the hold between a and b: parked packets go out in order, then the
  // release hook lets protocols resume what stopped on the hold.
  void release(std::uint32_t a, std::uint32_t b);

  // ---- the wire ---------------------------------------------------------------
  // The directed link's own stream ("network:<from>-><to>"): its latencies,
  // losses, duplicates, TCP segment sizes and partial writes.
  rng& stream(std::uint32_t from, std::uint32_t to);
  duration draw_latency(rng& r, const link_config& cfg);
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
  // world::describe_packets: what a recorded packet carries, for its label.
  packet_decoder decoder;
  // A packet's label in a full recording's annotations.
  std::string label(const wire_view& w);
  // What rules and decoders see of a packet on the wire.
  packet_view view_of(const wire_view& w) const;
  // Records p leaving (net_send, to @p to), labelled when the run records all.
  void record_send(packet* p, std::uint32_t to);
  void schedule_arrival(packet* p, duration at) { core_.schedule(p->ev, at); }
  void park(packet* p, user_rule* by);  // held: sent again by release() or when the rule goes
  void drop(packet* p) noexcept;
  // Payload buffers circulate so that a steady flow allocates nothing: a
  // segment's bytes move from its connection's queue into its packet, a
  // datagram's from its packet into the receiving socket's queue, and each
  // comes back here once sent or read (kept only with pool_allocations).
  std::vector<char> take_buffer() noexcept;
  void keep_buffer(std::vector<char>&& b) noexcept;

  // ---- protocols plug in from above --------------------------------------------
  // The handler of one packet type. A handler that judges itself gets every
  // arrival and owns the packet (TCP segments: the flight retreats on a
  // fault); the others get only packets that passed, and the link drops
  // them after the handler returns.
  using deliver_fn = void (*)(void* self, packet& p);
  void set_protocol(packet::type t, deliver_fn fn, void* self, bool judges_itself);
  // Told of every dropped packet that names a connection (packet::conn).
  using gone_fn = void (*)(void* self, std::uint64_t conn) noexcept;
  void set_packet_gone_hook(gone_fn fn, void* self) noexcept {
    on_gone_ = fn;
    gone_self_ = self;
  }
  using release_fn = void (*)(void* self, std::uint32_t a, std::uint32_t b);
  void set_release_hook(release_fn fn, void* self) noexcept {
    on_release_ = fn;
    release_self_ = self;
  }

 private:
  friend struct packet;
  void arrive(packet* p);
  std::uint64_t drop_cause(std::uint32_t from, std::uint32_t to) const noexcept;
  static pair unordered(std::uint32_t a, std::uint32_t b) noexcept { return {std::min(a, b), std::max(a, b)}; }
  void flush(std::map<pair, std::vector<packet*>>& parked, const pair& key);
  static void on_removals(timed_event* e);
  void finish_removal(std::uint64_t serial);

  world_core& core_;
  struct host_entry {
    host_state* state = nullptr;
    boost::asio::ip::address address;
    std::string key;        // its name as a part of a link's stream key
    std::uint64_t from_hash = 0;  // FNV-1a of "network:<key>->", where its links' keys begin
  };
  std::vector<host_entry> hosts_;  // by host id
  // Writes the key of link token (from << 32 | to): the tape asks for it
  // only when it records or replays (choice_tape::open_deferred).
  static void write_link_key(const void* self, std::uint64_t token, std::string& out);
  // stream() of each directed link that carried something, opened on first
  // use: open addressing on (from, to), at most half full. One table for
  // the world keeps a sweep's memory to the links in use (a table per host
  // grows to every host it ever sent to).
  struct link_slot {
    std::uint64_t link = 0;  // from << 32 | to
    rng* stream = nullptr;   // null: a free slot
  };
  std::vector<link_slot> links_;
  std::size_t links_used_ = 0;
  std::map<boost::asio::ip::address, std::uint32_t> by_address_;
  std::vector<std::uint32_t> by_default_;  // 198.18.x.x: host id by the low 16 bits, or no_host
  packet* packets_ = nullptr;              // every packet in flight or held
  packet* free_packets_ = nullptr;         // dropped packets kept for reuse (see pool_allocations)
  std::vector<std::vector<char>> spare_buffers_;  // empty, with their capacity (take_buffer)
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<packet*>> held_packets_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, duration> link_busy_;  // bandwidth: when each link is free
  struct protocol {
    deliver_fn fn = nullptr;
    void* self = nullptr;
    bool judges_itself = false;
  };
  protocol protocols_[packet::type_count];
  std::vector<std::unique_ptr<user_rule>> rules_;  // install order
  std::uint64_t rule_serial_ = 0;
  int judging_ = 0;                         // inside a rule: removals wait for removal_event_
  std::vector<std::uint64_t> removals_;     // serials of rules removed while judging
  timed_event removal_event_{&link_layer::on_removals, this};
  release_fn on_release_ = nullptr;
  void* release_self_ = nullptr;
  gone_fn on_gone_ = nullptr;
  void* gone_self_ = nullptr;
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_LINK_HPP
