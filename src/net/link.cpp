// link.cpp — the link layer: hosts, links, faults, and packets on the wire
#include <simasio/detail/net/link.hpp>

#include <simasio/detail/int128.hpp>
#include <simasio/detail/recycler.hpp>

#include <algorithm>
#include <utility>

namespace simasio::detail {

void packet::on_fire(timed_event* e) {
  auto* p = static_cast<packet*>(e->owner());
  p->link->arrive(p);
}

link_layer::link_layer(world_core& core) : core_(core) {}

link_layer::~link_layer() {
  while (packets_ != nullptr) drop(packets_);
  while (free_packets_ != nullptr) delete std::exchange(free_packets_, free_packets_->next);
}

// ---- hosts ----------------------------------------------------------------------

namespace {
// 198.18.0.0/15, where world::add_host puts hosts: its low part is also
// indexed directly (host lookup by address is on every packet's path).
constexpr std::uint32_t default_base = 0xC6120000u;
constexpr std::uint32_t indexed = 1u << 16;  // 198.18.x.x: at most 256 KB of index
bool in_index(const boost::asio::ip::address& a, std::uint32_t& offset) noexcept {
  if (!a.is_v4()) return false;
  offset = a.to_v4().to_uint() - default_base;  // wraps for addresses below the range
  return offset < indexed;
}
}  // namespace

void link_layer::add_host(std::uint32_t id, host_state& state, const boost::asio::ip::address& address) {
  if (hosts_.size() <= id) hosts_.resize(id + 1);
  hosts_[id].state = &state;
  hosts_[id].address = address;
  by_address_[address] = id;
  if (std::uint32_t offset = 0; in_index(address, offset)) {
    if (by_default_.size() <= offset)
      by_default_.resize(std::min<std::size_t>(std::max<std::size_t>(offset + 1, by_default_.size() * 2), indexed),
                         no_host);
    by_default_[offset] = id;
  }
}

std::string link_layer::host_name(std::uint32_t id) const {
  return id < hosts_.size() && hosts_[id].state ? hosts_[id].state->name : "#" + std::to_string(id);
}

std::uint32_t link_layer::host_of(const boost::asio::ip::address& address, std::uint32_t from_host) const noexcept {
  if (std::uint32_t offset = 0; in_index(address, offset) && offset < by_default_.size() && by_default_[offset] != no_host)
    return by_default_[offset];
  if (address.is_loopback() || address.is_unspecified()) return from_host;
  auto it = by_address_.find(address);
  if (it != by_address_.end()) return it->second;
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    auto v4 = by_address_.find(boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6()));
    if (v4 != by_address_.end()) return v4->second;
  }
  return no_host;
}

// ---- links and faults -------------------------------------------------------------

const link_config& link_layer::config(std::uint32_t from, std::uint32_t to) const {
  auto it = links.find({from, to});
  return it != links.end() ? it->second : default_link;
}

link_layer::verdict link_layer::judge(std::uint32_t from, std::uint32_t to) const {
  if (from == to) return verdict::pass;
  if (to >= hosts_.size() || !hosts_[to].state->powered || !hosts_[from].state->powered) return verdict::drop;
  if (blocked.count({from, to}) != 0) return verdict::drop;
  if (held.count({std::min(from, to), std::max(from, to)}) != 0) return verdict::hold;
  return verdict::pass;
}

// In either direction: TCP needs both.
std::uint64_t link_layer::drop_cause(std::uint32_t from, std::uint32_t to) const noexcept {
  if (to >= hosts_.size()) return drop_code(drop_reason::unreachable);
  if (!hosts_[to].state->powered || !hosts_[from].state->powered) return drop_code(drop_reason::power_off);
  return drop_code(drop_reason::partitioned);
}

void link_layer::release(std::uint32_t a, std::uint32_t b) {
  const auto key = std::make_pair(std::min(a, b), std::max(a, b));
  held.erase(key);
  auto it = held_packets_.find(key);
  if (it != held_packets_.end()) {
    std::vector<packet*> parked = std::move(it->second);
    held_packets_.erase(it);
    for (packet* p : parked) send(p);
  }
  if (on_release_ != nullptr) on_release_(release_self_, a, b);
}

// ---- the wire -----------------------------------------------------------------------

duration link_layer::draw_latency(const link_config& cfg) {
  rng& r = core_.random(choice_purpose::network);
  if (cfg.latency) return std::max(duration::zero(), cfg.latency(r));
  return r.between(cfg.min_latency, cfg.max_latency);
}

// Immediately on an unlimited link, else after the bytes before it and its
// own bytes have been serialised at the link's bandwidth (integer nanoseconds).
duration link_layer::on_wire(std::uint32_t from, std::uint32_t to, const link_config& cfg, std::size_t bytes) {
  if (cfg.bandwidth == 0 || from == to) return core_.now();
  duration& busy = link_busy_[{from, to}];
  const duration start = std::max(busy, core_.now());
  const auto ns = static_cast<std::int64_t>((static_cast<uint128>(bytes) * 1'000'000'000u + cfg.bandwidth - 1) /
                                            cfg.bandwidth);
  busy = start + duration(ns);
  return busy;
}

void link_layer::drop(packet* p) noexcept {
  core_.cancel(p->ev);
  if (p->prev != nullptr) p->prev->next = p->next;
  else packets_ = p->next;
  if (p->next != nullptr) p->next->prev = p->prev;
  if constexpr (pool_allocations) {
    p->data.clear();  // keeps its capacity for the next datagram
    p->next = free_packets_;
    free_packets_ = p;
  } else {
    delete p;
  }
}

void link_layer::park(packet* p) {
  held_packets_[{std::min(p->from_host, p->to_host), std::max(p->from_host, p->to_host)}].push_back(p);
}

packet* link_layer::new_packet(packet::type t, std::uint32_t from_host, const net_endpoint& from,
                               std::uint32_t to_host, const net_endpoint& to) {
  packet* p = free_packets_;
  if (p != nullptr) {
    free_packets_ = p->next;
    p->conn = 0;
    p->side = 0;
    p->sock = 0;
    p->nonce = 0;
    p->fin = false;
    p->prev = nullptr;
  } else {
    p = new packet;
  }
  p->t = t;
  p->seq = core_.events().size();
  p->from_host = from_host;
  p->to_host = to_host;
  p->from = from;
  p->to = to;
  p->link = this;
  p->next = packets_;
  if (packets_ != nullptr) packets_->prev = p;
  packets_ = p;
  return p;
}

packet* link_layer::reply_to(const packet& p, packet::type t) {
  packet* r = new_packet(t, p.to_host, p.to, p.from_host, p.from);
  r->sock = p.sock;
  r->nonce = p.nonce;
  return r;
}

void link_layer::send(packet* p) {
  record(event_kind::net_send, p->from_host, p->seq, p->to_host);
  switch (judge(p->from_host, p->to_host)) {
    case verdict::drop:
      record(event_kind::net_drop, p->from_host, p->seq, drop_cause(p->from_host, p->to_host));
      drop(p);
      return;
    case verdict::hold:
      park(p);
      return;
    case verdict::pass:
      break;
  }
  if (p->from_host == p->to_host) {
    schedule_arrival(p, core_.now());
    return;
  }
  const link_config& cfg = config(p->from_host, p->to_host);
  rng& r = core_.random(choice_purpose::network);
  // A datagram beyond the MTU travels as IP fragments: losing any loses it.
  const std::size_t payload = cfg.mtu > 28 ? cfg.mtu - 28 : 1;
  const std::size_t fragments = p->data.empty() ? 1 : (p->data.size() + payload - 1) / payload;
  for (std::size_t f = 0; f < fragments; ++f) {
    if (r.chance(cfg.loss)) {
      record(event_kind::net_drop, p->from_host, p->seq, drop_code(drop_reason::lost));
      drop(p);
      return;
    }
  }
  const duration sent_at = on_wire(p->from_host, p->to_host, cfg, p->data.size() + 28 * fragments);
  if (p->t == packet::type::udp && r.chance(cfg.duplicate)) {
    packet* copy = new_packet(p->t, p->from_host, p->from, p->to_host, p->to);
    copy->seq = p->seq;
    copy->data = p->data;
    record(event_kind::net_duplicate, p->from_host, p->seq, p->to_host);
    schedule_arrival(copy, sent_at + draw_latency(cfg));
  }
  schedule_arrival(p, sent_at + draw_latency(cfg));
}

// ---- protocols -------------------------------------------------------------------------

void link_layer::set_protocol(packet::type t, deliver_fn fn, void* self, bool judges_itself) {
  protocols_[static_cast<std::size_t>(t)] = protocol{fn, self, judges_itself};
}

void link_layer::arrive(packet* p) {
  const protocol& to = protocols_[static_cast<std::size_t>(p->t)];
  if (to.judges_itself) {
    to.fn(to.self, *p);  // handles its own verdicts, and frees or re-queues p
    return;
  }
  // The link is judged again on arrival: a partition that began while the
  // packet flew eats it (TCP then retransmits).
  const verdict v = judge(p->from_host, p->to_host);
  if (v == verdict::drop) {
    record(event_kind::net_drop, p->to_host, p->seq, drop_cause(p->from_host, p->to_host));
    drop(p);
    return;
  }
  if (v == verdict::hold) {
    park(p);
    return;
  }
  record(event_kind::net_deliver, p->to_host, p->seq, p->data.size());
  if (to.fn != nullptr) to.fn(to.self, *p);
  drop(p);
}

}  // namespace simasio::detail
