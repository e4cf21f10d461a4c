// link.cpp — the link layer: hosts, links, faults, and packets on the wire
#include <simasio/detail/net/link.hpp>

#include <simasio/detail/int128.hpp>
#include <simasio/detail/recycler.hpp>

#include "../runtime/name_hash.hpp"

#include <algorithm>
#include <utility>

namespace simasio::detail {

void packet::on_fire(timed_event* e) {
  auto* p = static_cast<packet*>(e->owner());
  p->link->arrive(p);
}

link_layer::link_layer(world_core& core) : core_(core) {}

link_layer::~link_layer() {
  core_.cancel(removal_event_);
  for (auto& r : rules_) r->slot->link = nullptr;  // their guards may outlive the world
  rules_.clear();
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

// A host name inside a link's key: '>' and '%' as %XX, so "->" only ever
// separates the two names (hosts "a" and "b->c" are not "a->b" and "c").
std::string key_part(const std::string& name) {
  std::string out;
  for (const char c : name) {
    if (c == '>') out += "%3E";
    else if (c == '%') out += "%25";
    else out += c;
  }
  return out;
}
}  // namespace

void link_layer::add_host(std::uint32_t id, host_state& state, const boost::asio::ip::address& address) {
  if (hosts_.size() <= id) hosts_.resize(id + 1);
  hosts_[id].state = &state;
  hosts_[id].address = address;
  hosts_[id].key = key_part(state.name);
  hosts_[id].from_hash = name_hash_more(name_hash_more(name_hash("network:"), hosts_[id].key), "->");
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

boost::asio::ip::address link_layer::source_address(std::uint32_t id, const boost::asio::ip::address& to) const {
  if (to.is_loopback()) return to;
  const boost::asio::ip::address own = host_address(id);
  if (own.is_v6() != to.is_v6()) return {};  // no address of that family here
  return own;
}

// ---- links and faults -------------------------------------------------------------

const link_config& link_layer::config(std::uint32_t from, std::uint32_t to) const {
  auto it = links.find({from, to});
  return it != links.end() ? it->second : default_link;
}

link_layer::judgement link_layer::judge(const wire_view& w, std::uint64_t since) {
  using action = verdict::action;
  const std::uint32_t from = w.from_host, to = w.to_host;
  if (from == to) return {};
  if (to >= hosts_.size() || !hosts_[to].state->powered || !hosts_[from].state->powered)
    return {action::drop, duration{0}, drop_cause(from, to)};
  if (blocked.count({from, to}) != 0) return {action::drop, duration{0}, drop_code(drop_reason::partitioned)};
  if (held.count(unordered(from, to)) != 0) return {action::hold, duration{0}, drop_code(drop_reason::held)};
  if (rules_.empty() || rules_.back()->serial <= since) return {};
  const packet_view view = view_of(w);
  ++judging_;
  struct done {
    int& depth;
    ~done() { --depth; }
  } leave{judging_};
  // By index: a rule may install another (which then judges this packet too).
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    user_rule& r = *rules_[i];
    if (r.serial <= since || r.slot->link == nullptr) continue;  // had its say, or removed from inside a rule
    const verdict v = r.fn(view);
    switch (v.act) {
      case action::pass: continue;
      case action::drop: return {action::drop, duration{0}, drop_code(drop_reason::rule)};
      case action::hold:
        r.stalled.insert(unordered(from, to));
        return {action::hold, duration{0}, drop_code(drop_reason::held), &r};
      case action::delay: return {action::delay, v.by, 0};
    }
  }
  return {};
}

// In either direction: TCP needs both.
std::uint64_t link_layer::drop_cause(std::uint32_t from, std::uint32_t to) const noexcept {
  if (to >= hosts_.size()) return drop_code(drop_reason::unreachable);
  if (!hosts_[to].state->powered || !hosts_[from].state->powered) return drop_code(drop_reason::power_off);
  return drop_code(drop_reason::partitioned);
}

void link_layer::flush(std::map<pair, std::vector<packet*>>& parked, const pair& key) {
  auto it = parked.find(key);
  if (it == parked.end()) return;
  std::vector<packet*> out = std::move(it->second);
  parked.erase(it);
  for (packet* p : out) send(p);
}

void link_layer::release(std::uint32_t a, std::uint32_t b) {
  const pair key = unordered(a, b);
  held.erase(key);
  flush(held_packets_, key);
  if (on_release_ != nullptr) on_release_(release_self_, a, b);
}

std::shared_ptr<rule_slot> link_layer::add_rule(fault_rule fn) {
  auto r = std::make_unique<user_rule>();
  r->serial = ++rule_serial_;
  r->fn = std::move(fn);
  r->slot = std::make_shared<rule_slot>(rule_slot{this, r->serial});
  rules_.push_back(std::move(r));
  return rules_.back()->slot;
}

// Inside a rule (a rule removing itself) the removal waits for the end of
// the judging: it is finished by an event at the same instant.
void link_layer::remove_rule(std::uint64_t serial) {
  auto it = std::find_if(rules_.begin(), rules_.end(), [serial](const auto& r) { return r->serial == serial; });
  if (it == rules_.end() || (*it)->slot->link == nullptr) return;
  (*it)->slot->link = nullptr;
  if (judging_ > 0) {
    removals_.push_back(serial);
    if (!removal_event_.scheduled()) core_.schedule(removal_event_, core_.now());
    return;
  }
  finish_removal(serial);
}

void link_layer::on_removals(timed_event* e) {
  auto& link = *static_cast<link_layer*>(e->owner());
  for (const std::uint64_t serial : std::exchange(link.removals_, {})) link.finish_removal(serial);
}

// What the rule held goes out, pair by pair, each pair's TCP directions
// resuming after its parked packets.
void link_layer::finish_removal(std::uint64_t serial) {
  auto it = std::find_if(rules_.begin(), rules_.end(), [serial](const auto& r) { return r->serial == serial; });
  if (it == rules_.end()) return;
  std::unique_ptr<user_rule> r = std::move(*it);
  rules_.erase(it);
  record(event_kind::net_fault, no_host, static_cast<std::uint64_t>(fault_kind::rule_removed), no_host);
  std::set<pair> pairs = std::move(r->stalled);
  for (const auto& [key, parked] : r->parked) pairs.insert(key);
  for (const pair& key : pairs) {
    flush(r->parked, key);
    if (on_release_ != nullptr) on_release_(release_self_, key.first, key.second);
  }
}

// ---- the wire -----------------------------------------------------------------------

rng& link_layer::stream(std::uint32_t from, std::uint32_t to) {
  const std::uint64_t link = std::uint64_t{from} << 32 | to;
  if (2 * (links_used_ + 1) > links_.size()) {
    std::vector<link_slot> old(std::max<std::size_t>(64, 2 * links_.size()));
    old.swap(links_);
    const std::size_t mask = links_.size() - 1;
    for (const link_slot& s : old) {
      if (s.stream == nullptr) continue;
      std::size_t i = detail::mix64(s.link) & mask;
      while (links_[i].stream != nullptr) i = (i + 1) & mask;
      links_[i] = s;
    }
  }
  const std::size_t mask = links_.size() - 1;
  std::size_t i = detail::mix64(link) & mask;
  for (; links_[i].stream != nullptr; i = (i + 1) & mask)
    if (links_[i].link == link) return *links_[i].stream;
  rng& r = core_.deferred_stream(name_hash_more(hosts_[from].from_hash, hosts_[to].key), choice_purpose::network,
                                 &write_link_key, this, link);
  links_[i] = link_slot{link, &r};
  ++links_used_;
  return r;
}

void link_layer::write_link_key(const void* self, std::uint64_t token, std::string& out) {
  const auto& hosts = static_cast<const link_layer*>(self)->hosts_;
  out += "network:";
  out += hosts[static_cast<std::size_t>(token >> 32)].key;
  out += "->";
  out += hosts[static_cast<std::uint32_t>(token)].key;
}

duration link_layer::draw_latency(rng& r, const link_config& cfg) {
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
  if (p->conn != 0 && on_gone_ != nullptr) on_gone_(gone_self_, p->conn);
  if constexpr (pool_allocations) {
    p->data.clear();  // keeps its capacity for the next datagram
    if (p->data.capacity() == 0) p->data = take_buffer();  // its bytes moved on (a datagram delivered)
    p->next = free_packets_;
    free_packets_ = p;
  } else {
    delete p;
  }
}

void link_layer::park(packet* p, user_rule* by) {
  (by != nullptr ? by->parked : held_packets_)[unordered(p->from_host, p->to_host)].push_back(p);
}

std::vector<char> link_layer::take_buffer() noexcept {
  if (spare_buffers_.empty()) return {};
  std::vector<char> b = std::move(spare_buffers_.back());
  spare_buffers_.pop_back();
  return b;
}

void link_layer::keep_buffer(std::vector<char>&& b) noexcept {
  // At most 256 of them, none above 16 KiB (a segment is at most an MSS):
  // what a burst needed, not what a large datagram did.
  if constexpr (pool_allocations) {
    if (b.capacity() == 0 || b.capacity() > 16 * 1024 || spare_buffers_.size() >= 256) return;
    b.clear();
    try {
      spare_buffers_.push_back(std::move(b));
    } catch (...) {
      // Out of memory: the buffer is freed instead.
    }
  }
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
    p->judged_at = 0;
    p->not_before = duration(0);
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

std::string link_layer::label(const wire_view& w) {
  std::string out = to_string(w.kind);
  out += " " + std::to_string(w.from->port) + "->" + std::to_string(w.to->port);
  if (!w.payload.empty()) out += " " + std::to_string(w.payload.size()) + " B";
  if (decoder)
    if (std::string said = decoder(view_of(w)); !said.empty()) out += ": " + said;
  return out;
}

packet_view link_layer::view_of(const wire_view& w) const {
  return {w.kind,    hosts_[w.from_host].state->name, hosts_[w.to_host].state->name,
          w.from->address, w.to->address, w.from->port, w.to->port, w.payload};
}

void link_layer::record_send(packet* p, std::uint32_t to) {
  record(event_kind::net_send, p->from_host, p->seq, to);
  if (core_.events().recording_all()) SIMASIO_UNLIKELY core_.events().label_packet(p->seq, label(p->facts()));
}

void link_layer::send(packet* p) {
  record_send(p, p->to_host);
  const judgement j = judge(p->facts());
  switch (j.act) {
    case verdict::action::drop:
      record(event_kind::net_drop, p->from_host, p->seq, j.reason);
      drop(p);
      return;
    case verdict::action::hold:
      park(p, j.rule);
      return;
    case verdict::action::pass:
    case verdict::action::delay:
      break;
  }
  p->judged_at = rule_serial_;
  if (p->from_host == p->to_host) {  // loopback: at once, but never ahead of what it must follow (a reset)
    schedule_arrival(p, std::max(core_.now(), p->not_before));
    return;
  }
  const link_config& cfg = config(p->from_host, p->to_host);
  rng& r = stream(p->from_host, p->to_host);
  // A datagram beyond the MTU travels as IP fragments: losing any loses it.
  const std::size_t payload = cfg.mtu > 28 ? cfg.mtu - 28 : 1;
  const std::size_t fragments = p->data.empty() ? 1 : (p->data.size() + payload - 1) / payload;
  for (std::size_t f = 0; f < fragments; ++f) {
    if (r.chance(world_core::with_mix(cfg.loss, core_.faults().loss))) {
      record(event_kind::net_drop, p->from_host, p->seq, drop_code(drop_reason::lost));
      drop(p);
      return;
    }
  }
  const duration sent_at = on_wire(p->from_host, p->to_host, cfg, p->data.size() + 28 * fragments);
  if (p->t == packet::type::udp && r.chance(world_core::with_mix(cfg.duplicate, core_.faults().duplicate))) {
    packet* copy = new_packet(p->t, p->from_host, p->from, p->to_host, p->to);
    copy->seq = p->seq;
    copy->data = p->data;
    copy->judged_at = p->judged_at;
    record(event_kind::net_duplicate, p->from_host, p->seq, p->to_host);
    schedule_arrival(copy, sent_at + draw_latency(r, cfg) + j.by);
  }
  schedule_arrival(p, std::max(sent_at + draw_latency(r, cfg) + j.by, p->not_before));
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
  // Rules installed while it flew judge it now; a delay is decided at
  // departure only.
  const judgement j = judge(p->facts(), p->judged_at);
  if (j.act == verdict::action::drop) {
    record(event_kind::net_drop, p->to_host, p->seq, j.reason);
    drop(p);
    return;
  }
  if (j.act == verdict::action::hold) {
    park(p, j.rule);
    return;
  }
  record(event_kind::net_deliver, p->to_host, p->seq, p->data.size());
  if (to.fn != nullptr) to.fn(to.self, *p);
  drop(p);
}

}  // namespace simasio::detail
