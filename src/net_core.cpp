// net_core.cpp — links, faults, packets, and the TCP and UDP state machines
#include <simasio/net/net_core.hpp>

#include <simasio/detail/int128.hpp>
#include <simasio/detail/recycler.hpp>

#include <simasio/detail/format.hpp>
#include <simasio/error.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>

#include <algorithm>
#include <tuple>
#include <utility>

namespace simasio::detail {

namespace aerr = boost::asio::error;

namespace {
constexpr std::size_t max_datagram = 65507;
constexpr duration max_rto = std::chrono::seconds(120);
constexpr duration initial_rto = std::chrono::milliseconds(200);

std::uint64_t code(drop_reason r) noexcept { return static_cast<std::uint64_t>(r); }
}  // namespace

std::string net_endpoint::to_string() const { return address.to_string() + ":" + std::to_string(port); }

// A packet on the wire (or parked by hold). Owned by net_core's list.
struct packet {
  enum class type : std::uint8_t { udp, syn, syn_ack, rst, segment };
  type t = type::udp;
  std::uint64_t seq = 0;
  std::uint32_t from_host = 0, to_host = 0;
  net_endpoint from, to;
  std::uint64_t conn = 0;  // segment, syn_ack, rst: connection id
  int side = 0;            // segment: sender side; rst: side it is for
  std::uint64_t sock = 0;  // syn, syn_ack, refusing rst: the connecting socket's id
  std::uint64_t nonce = 0;  // syn, syn_ack, refusing rst: which connect attempt
  std::vector<char> data;
  bool fin = false;
  net_core* net = nullptr;
  timed_event ev{&on_fire, this};
  packet* prev = nullptr;
  packet* next = nullptr;

  static void on_fire(timed_event* e) {
    auto* p = static_cast<packet*>(e->owner());
    p->net->arrive(p);
  }
};

// ---- construction and topology -----------------------------------------------

net_core::net_core(world_core& core) : core_(core) {}

net_core::~net_core() {
  while (packets_ != nullptr) drop_packet(packets_);
  while (free_packets_ != nullptr) delete std::exchange(free_packets_, free_packets_->next);
  for (socket_state*& s : sockets_)
    if (s != nullptr && s->embryo) {
      delete s;
      s = nullptr;
    }
  for (socket_state* s : sockets_)
    if (s != nullptr && s->connect_timer) core_.cancel(*s->connect_timer);
  for (auto& c : connections_)
    if (c)
      for (auto& a : c->attempt)
        if (a) core_.cancel(*a);
}

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

void net_core::add_host(std::uint32_t id, host_state& state, const boost::asio::ip::address& address) {
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

std::string net_core::host_name(std::uint32_t id) const {
  return id < hosts_.size() && hosts_[id].state ? hosts_[id].state->name : "#" + std::to_string(id);
}

std::uint32_t net_core::host_of(const boost::asio::ip::address& address, std::uint32_t from_host) const noexcept {
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

const link_config& net_core::link(std::uint32_t from, std::uint32_t to) const {
  auto it = links.find({from, to});
  return it != links.end() ? it->second : default_link;
}

net_core::verdict net_core::judge(std::uint32_t from, std::uint32_t to) const {
  if (from == to) return verdict::pass;
  if (to >= hosts_.size() || !hosts_[to].state->powered || !hosts_[from].state->powered) return verdict::drop;
  if (blocked.count({from, to}) != 0) return verdict::drop;
  if (held.count({std::min(from, to), std::max(from, to)}) != 0) return verdict::hold;
  return verdict::pass;
}

// Why judge() dropped between from and to: a host without power, else a
// block (in either direction: TCP needs both).
std::uint64_t net_core::drop_cause(std::uint32_t from, std::uint32_t to) const noexcept {
  if (to >= hosts_.size()) return code(drop_reason::unreachable);
  if (!hosts_[to].state->powered || !hosts_[from].state->powered) return code(drop_reason::power_off);
  return code(drop_reason::partitioned);
}

duration net_core::draw_latency(const link_config& cfg) {
  rng& r = core_.random(choice_purpose::network);
  if (cfg.latency) return std::max(duration::zero(), cfg.latency(r));
  return r.between(cfg.min_latency, cfg.max_latency);
}

void net_core::record(event_kind k, std::uint32_t host, std::uint64_t a, std::uint64_t b) { core_.record(k, host, a, b); }

// When a packet of `bytes` sent now has left the sender: immediately on an
// unlimited link, else after the bytes before it and its own bytes have
// been serialised at the link's bandwidth (integer nanoseconds).
duration net_core::on_wire(std::uint32_t from, std::uint32_t to, const link_config& cfg, std::size_t bytes) {
  if (cfg.bandwidth == 0 || from == to) return core_.now();
  duration& busy = link_busy_[{from, to}];
  const duration start = std::max(busy, core_.now());
  const auto ns = static_cast<std::int64_t>((static_cast<uint128>(bytes) * 1'000'000'000u + cfg.bandwidth - 1) /
                                            cfg.bandwidth);
  busy = start + duration(ns);
  return busy;
}

void net_core::release(std::uint32_t a, std::uint32_t b) {
  const auto key = std::make_pair(std::min(a, b), std::max(a, b));
  held.erase(key);
  auto it = held_packets_.find(key);
  if (it != held_packets_.end()) {
    std::vector<packet*> parked = std::move(it->second);
    held_packets_.erase(it);
    for (packet* p : parked) send_packet(p);
  }
  // TCP channels between a and b that stopped on the hold resume now.
  for (auto& c : connections_) {
    if (!c) continue;
    for (int side = 0; side < 2; ++side) {
      const auto pair = std::make_pair(std::min(c->host[side], c->host[1 - side]), std::max(c->host[side], c->host[1 - side]));
      if (pair == key && !c->chan[side].attempt_scheduled && (!c->chan[side].queue.empty() || c->chan[side].fin_queued))
        transmit(*c, side);
    }
  }
}

// ---- packets --------------------------------------------------------------------

void net_core::drop_packet(packet* p) noexcept {
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

void net_core::schedule_arrival(packet* p, duration at) { core_.schedule(p->ev, at); }

// A new packet, numbered for the trace and tracked until it is dropped.
packet* net_core::new_packet(int type, std::uint32_t from_host, const net_endpoint& from, std::uint32_t to_host,
                             const net_endpoint& to) {
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
  p->t = static_cast<packet::type>(type);
  p->seq = core_.events().size();
  p->from_host = from_host;
  p->to_host = to_host;
  p->from = from;
  p->to = to;
  p->net = this;
  p->next = packets_;
  if (packets_ != nullptr) packets_->prev = p;
  packets_ = p;
  return p;
}

// The answer to p (SYN-ACK, RST): back the way it came, for the same attempt.
packet* net_core::reply_to(const packet& p, int type) {
  packet* r = new_packet(type, p.to_host, p.to, p.from_host, p.from);
  r->sock = p.sock;
  r->nonce = p.nonce;
  return r;
}

// Puts a datagram or control packet on the link: lost, parked, duplicated
// or scheduled to arrive, as the link and the seed decide.
void net_core::send_packet(packet* p) {
  record(event_kind::net_send, p->from_host, p->seq, p->to_host);
  switch (judge(p->from_host, p->to_host)) {
    case verdict::drop:
      record(event_kind::net_drop, p->from_host, p->seq, drop_cause(p->from_host, p->to_host));
      drop_packet(p);
      return;
    case verdict::hold:
      held_packets_[{std::min(p->from_host, p->to_host), std::max(p->from_host, p->to_host)}].push_back(p);
      return;
    case verdict::pass:
      break;
  }
  if (p->from_host == p->to_host) {
    schedule_arrival(p, core_.now());
    return;
  }
  const link_config& cfg = link(p->from_host, p->to_host);
  rng& r = core_.random(choice_purpose::network);
  // A datagram beyond the MTU travels as IP fragments: losing any loses it.
  const std::size_t payload = cfg.mtu > 28 ? cfg.mtu - 28 : 1;
  const std::size_t fragments = p->data.empty() ? 1 : (p->data.size() + payload - 1) / payload;
  for (std::size_t f = 0; f < fragments; ++f) {
    if (r.chance(cfg.loss)) {
      record(event_kind::net_drop, p->from_host, p->seq, code(drop_reason::lost));
      drop_packet(p);
      return;
    }
  }
  const duration sent_at = on_wire(p->from_host, p->to_host, cfg, p->data.size() + 28 * fragments);
  if (p->t == packet::type::udp && r.chance(cfg.duplicate)) {
    packet* copy = new_packet(static_cast<int>(p->t), p->from_host, p->from, p->to_host, p->to);
    copy->seq = p->seq;
    copy->data = p->data;
    record(event_kind::net_duplicate, p->from_host, p->seq, p->to_host);
    schedule_arrival(copy, sent_at + draw_latency(cfg));
  }
  schedule_arrival(p, sent_at + draw_latency(cfg));
}

void net_core::arrive(packet* p) {
  // The link is judged again on arrival: a partition that began while the
  // packet flew eats it (TCP then retransmits).
  const verdict v = judge(p->from_host, p->to_host);
  if (p->t == packet::type::segment) {
    on_segment(*p);  // handles its own verdicts, and frees or re-queues p
    return;
  }
  if (v == verdict::drop) {
    record(event_kind::net_drop, p->to_host, p->seq, drop_cause(p->from_host, p->to_host));
    drop_packet(p);
    return;
  }
  if (v == verdict::hold) {
    held_packets_[{std::min(p->from_host, p->to_host), std::max(p->from_host, p->to_host)}].push_back(p);
    return;
  }
  record(event_kind::net_deliver, p->to_host, p->seq, p->data.size());
  switch (p->t) {
    case packet::type::udp: {
      auto& ports = hosts_[p->to_host].ports;
      auto it = ports.find({static_cast<std::uint8_t>(transport::udp), p->to.port});
      socket_state* s = it == ports.end() ? nullptr : find_socket(it->second);
      // A group's datagram needs a member on this host (it may have left
      // while the datagram flew) and a socket bound to any address or the group.
      if (s != nullptr && p->to.address.is_multicast()) {
        auto g = groups_.find(p->to.address);
        if (g == groups_.end() || g->second.count(p->to_host) == 0 ||
            !(s->local.address.is_unspecified() || s->local.address == p->to.address))
          s = nullptr;
      } else if (s != nullptr && s->local.address.is_multicast()) {
        s = nullptr;  // bound to a group: unicast is not for it
      }
      if (s == nullptr || !s->ctx->host->up || (s->connected && !(s->remote == p->from))) {
        record(event_kind::net_drop, p->to_host, p->seq, code(drop_reason::no_socket));
      } else if (s->datagram_bytes + p->data.size() > s->receive_buffer) {
        record(event_kind::net_drop, p->to_host, p->seq, code(drop_reason::buffer_full));
      } else {
        s->datagram_bytes += p->data.size();
        s->datagrams.push_back(datagram{p->from, std::move(p->data)});
        pump(*s);
      }
      break;
    }
    case packet::type::syn: on_syn(*p); break;
    case packet::type::syn_ack: on_syn_ack(*p); break;
    case packet::type::rst: on_rst(*p); break;
    case packet::type::segment: break;
  }
  drop_packet(p);
}

// ---- sockets --------------------------------------------------------------------------

socket_state& net_core::create_socket(context_state& ctx, transport proto) {
  auto* s = new socket_state;
  s->id = sockets_.size() + 1;
  s->proto = proto;
  s->ctx = &ctx;
  s->incarnation = ctx.host->incarnation;
  s->net = this;
  sockets_.push_back(s);
  return *s;
}

socket_state* net_core::find_socket(std::uint64_t id) const noexcept {
  return id != 0 && id <= sockets_.size() ? sockets_[id - 1] : nullptr;
}

tcp_connection* net_core::find_connection(std::uint64_t id) const noexcept {
  return id != 0 && id <= connections_.size() ? connections_[id - 1].get() : nullptr;
}

void net_core::destroy_socket(socket_state& s) noexcept {
  // The owner is being destroyed: its handlers cannot destroy it again.
  if (s.open) close(s);
  cancel(s);
  if (s.connect_timer) core_.cancel(*s.connect_timer);
  sockets_[s.id - 1] = nullptr;
  delete &s;
}

boost::system::error_code net_core::open(socket_state& s, bool v6) {
  check_alive(s);
  if (s.open) return aerr::already_open;
  reset_state(s);
  s.open = true;
  s.v6 = v6;
  return {};
}

bool net_core::port_taken(std::uint32_t host, transport proto, std::uint16_t port) const {
  return hosts_[host].ports.count({static_cast<std::uint8_t>(proto), port}) != 0;
}

std::uint16_t net_core::ephemeral_port(std::uint32_t host, transport proto) {
  std::uint16_t& next = hosts_[host].next_port[static_cast<int>(proto)];
  for (int tries = 0; tries < 16384; ++tries) {
    const std::uint16_t port = next;
    next = next == 65535 ? 49152 : static_cast<std::uint16_t>(next + 1);
    if (!port_taken(host, proto, port)) return port;
  }
  return 0;
}

boost::system::error_code net_core::bind(socket_state& s, const net_endpoint& ep) {
  check_alive(s);
  if (!s.open) return aerr::bad_descriptor;
  if (s.bound) return aerr::invalid_argument;
  const std::uint32_t h = host_of_socket(s);
  // A UDP socket may bind to a group's address: it receives only that group.
  const bool group = s.proto == transport::udp && ep.address.is_multicast();
  if (!ep.address.is_unspecified() && !ep.address.is_loopback() && !group && host_of(ep.address, h) != h)
    return boost::system::errc::make_error_code(boost::system::errc::address_not_available);
  std::uint16_t port = ep.port;
  if (port == 0) {
    port = ephemeral_port(h, s.proto);
    if (port == 0) return aerr::address_in_use;
  } else if (port_taken(h, s.proto, port)) {
    return aerr::address_in_use;
  }
  hosts_[h].ports[{static_cast<std::uint8_t>(s.proto), port}] = s.id;
  s.bound = true;
  s.local = net_endpoint{ep.address.is_unspecified() ? ep.address : ep.address, port};
  return {};
}

boost::system::error_code net_core::listen(socket_state& s, int backlog) {
  check_alive(s, "TCP acceptor");
  if (!s.open) return aerr::bad_descriptor;
  if (!s.bound) {
    if (auto ec = bind(s, net_endpoint{s.v6 ? boost::asio::ip::address(boost::asio::ip::address_v6::any())
                                            : boost::asio::ip::address(boost::asio::ip::address_v4::any()),
                                       0}))
      return ec;
  }
  s.listening = true;
  s.backlog = backlog < 1 ? 1 : backlog;
  return {};
}

std::size_t net_core::available(const socket_state& s) const noexcept {
  if (s.proto == transport::udp) return s.datagrams.empty() ? 0 : s.datagrams.front().data.size();
  return s.rx.size();
}

void net_core::unlink(socket_state& s, sock_op& op) noexcept {
  sock_op* prev = nullptr;
  for (sock_op* o = s.pending_head; o != nullptr; prev = o, o = o->next_pending_) {
    if (o != &op) continue;
    if (prev != nullptr) prev->next_pending_ = o->next_pending_;
    else s.pending_head = o->next_pending_;
    if (s.pending_tail == o) s.pending_tail = prev;
    break;
  }
  op.next_pending_ = nullptr;
  op.sock_ = nullptr;
}

void net_core::complete(sock_op& op, boost::system::error_code ec, std::size_t bytes) {
  unlink(*op.sock_, op);
  finish(op, ec, bytes);
}

// Hands an unlinked operation over. Handing over may destroy its handler
// (its host is down) and with it the socket: nothing here touches the socket.
void net_core::finish(sock_op& op, boost::system::error_code ec, std::size_t bytes) {
  context_state& ctx = *op.ctx_;
  op.ec_ = ec;
  op.bytes_ = bytes;
  if (op.direct_) {
    // A synchronous call from the test body: it only records its result,
    // and must not depend on its context being run.
    --ctx.work;
    op.complete();
    return;
  }
  core_.post_ready(ctx, &op);
}

void net_core::cancel(socket_state& s) noexcept {
  // Unlink all first: completing one may destroy the socket.
  std::vector<sock_op*> ops;
  while (s.pending_head != nullptr) {
    sock_op* op = s.pending_head;
    unlink(s, *op);
    ops.push_back(op);
  }
  for (sock_op* op : ops) finish(*op, aerr::operation_aborted, 0);
}

void net_core::cancel_op(sock_op& op) noexcept {
  if (op.sock_ != nullptr) complete(op, aerr::operation_aborted, 0);
}

void net_core::abandon(context_state& ctx) noexcept {
  std::vector<sock_op*> ops;
  for (socket_state* s : sockets_) {
    if (s == nullptr || s->ctx != &ctx) continue;
    while (s->pending_head != nullptr) {
      sock_op* op = s->pending_head;
      unlink(*s, *op);
      ops.push_back(op);
    }
  }
  for (sock_op* op : ops) {
    op->destroy();
    --ctx.work;
  }
}

void net_core::describe_pending(const context_state& ctx, std::vector<std::string>& out) const {
  static const char* names[] = {"async_read_some", "async_write_some", "async_connect", "async_accept",
                                "async_wait(wait_read)", "async_wait(wait_write)", "async_wait(wait_error)",
                                "async_receive_from"};
  for (const socket_state* s : sockets_) {
    if (s == nullptr || s->ctx != &ctx) continue;
    for (const sock_op* op = s->pending_head; op != nullptr; op = op->next_pending_) {
      std::string what = s->proto == transport::tcp ? (s->listening ? "tcp acceptor " : "tcp socket ") : "udp socket ";
      what += s->local.to_string();
      if (s->connected || s->connecting) what += " -> " + s->remote.to_string();
      out.push_back(what + ": " + names[static_cast<int>(op->kind_)]);
    }
  }
}

void net_core::start(socket_state& s, sock_op& op) {
  op.sock_ = &s;
  op.ctx_ = s.ctx;
  op.next_pending_ = nullptr;
  if (s.pending_tail != nullptr) s.pending_tail->next_pending_ = &op;
  else s.pending_head = &op;
  s.pending_tail = &op;
  if (!s.open && op.kind_ != sock_op::kind::connect) {
    complete(op, aerr::bad_descriptor, 0);
    return;
  }
  if (op.kind_ == sock_op::kind::connect) {
    start_connect(s, op.target_);
    return;
  }
  // A synchronous call completes (and frees itself) inside pump: read the
  // flag first, and find the op afterwards by address only.
  const bool never_wait = op.non_blocking_;
  pump(s);
  if (!never_wait) return;
  // A non-blocking socket's synchronous call never waits, as in Asio.
  for (sock_op* o = s.pending_head; o != nullptr; o = o->next_pending_)
    if (o == &op) return complete(op, aerr::would_block, 0);
}

// Completes whatever pending operations the socket's state now allows, in
// FIFO order per kind.
void net_core::pump(socket_state& s) {
  bool read_blocked = false, write_blocked = false, accept_blocked = false;
  sock_op* op = s.pending_head;
  while (op != nullptr) {
    sock_op* next = op->next_pending_;
    switch (op->kind_) {
      case sock_op::kind::read:
      case sock_op::kind::receive_from:
        if (!read_blocked && !try_read(s, *op)) read_blocked = true;
        break;
      case sock_op::kind::write:
        if (!write_blocked && !try_write(s, *op)) write_blocked = true;
        break;
      case sock_op::kind::accept:
        if (accept_blocked) break;
        if (op->accept_into_ == nullptr) {
          complete(*op, aerr::already_open, 0);  // the peer socket was open already
        } else if (s.failed) {
          complete(*op, s.failed, 0);
        } else if (!s.listening) {
          complete(*op, aerr::invalid_argument, 0);
        } else if (!s.accept_queue.empty()) {
          const std::uint64_t id = s.accept_queue.front();
          s.accept_queue.pop_front();
          socket_state* embryo = find_socket(id);
          socket_state& into = *op->accept_into_;
          // The accepted connection moves into the caller's socket.
          const std::uint64_t into_id = into.id;
          context_state* into_ctx = into.ctx;
          const std::uint32_t into_incarnation = into.incarnation;
          into = std::move(*embryo);
          into.id = into_id;
          into.ctx = into_ctx;
          into.incarnation = into_incarnation;
          into.pending_head = into.pending_tail = nullptr;
          if (into.conn != nullptr) into.conn->sock[into.side] = into_id;
          sockets_[id - 1] = nullptr;
          delete embryo;
          if (op->sender_ != nullptr) op->write_sender_(op->sender_, into.remote);
          into.embryo = false;
          complete(*op, {}, 0);  // like Linux: a connection reset meanwhile shows on the first read
        } else {
          accept_blocked = true;
        }
        break;
      case sock_op::kind::wait_read:
        if (s.failed || !s.rx.empty() || s.rx_fin || s.rx_shutdown || !s.accept_queue.empty() || !s.datagrams.empty())
          complete(*op, s.failed, 0);
        break;
      case sock_op::kind::wait_write: {
        const bool writable = s.proto == transport::udp || s.failed || s.tx_shutdown ||
                              (s.connected && s.conn != nullptr &&
                               s.conn->chan[s.side].bytes_outstanding < s.send_buffer);
        if (writable) complete(*op, s.failed, 0);
        break;
      }
      case sock_op::kind::wait_error:
        if (s.failed) complete(*op, {}, 0);
        break;
      case sock_op::kind::connect:
        if (s.failed && !s.connecting) complete(*op, s.failed, 0);  // reset during the handshake
        break;  // otherwise completed by the handshake
    }
    op = next;
  }
}

bool net_core::try_read(socket_state& s, sock_op& op) {
  if (s.proto == transport::udp) {
    if (s.datagrams.empty()) return false;
    datagram& d = s.datagrams.front();
    std::size_t copied = 0;
    for (std::size_t i = 0; i < op.nbufs_ && copied < d.data.size(); ++i)
      copied += boost::asio::buffer_copy(op.bufs_[i], boost::asio::buffer(d.data.data() + copied, d.data.size() - copied));
    if (op.sender_ != nullptr) op.write_sender_(op.sender_, d.from);
    if (!op.peek_) {
      s.datagram_bytes -= d.data.size();
      s.datagrams.pop_front();
    }
    complete(op, {}, copied);
    return true;
  }
  const std::size_t cap = op.capacity();
  if (s.failed) {
    complete(op, s.failed, 0);
    return true;
  }
  if (cap == 0) {
    complete(op, {}, 0);  // Asio: a zero-sized read completes at once
    return true;
  }
  if (!s.rx.empty()) {
    std::size_t copied = 0;
    for (std::size_t i = 0; i < op.nbufs_ && copied < s.rx.size(); ++i) {
      auto* dst = static_cast<char*>(op.bufs_[i].data());
      const std::size_t n = std::min(op.bufs_[i].size(), s.rx.size() - copied);
      std::copy_n(s.rx.data() + copied, n, dst);
      copied += n;
    }
    const bool consumed = !op.peek_;
    if (consumed) s.rx.pop_front(copied);
    complete(op, {}, copied);  // a synchronous op frees itself here
    // Reading opened the peer's window.
    if (consumed && s.conn != nullptr)
      if (socket_state* peer = find_socket(s.conn->sock[1 - s.side])) pump(*peer);
    return true;
  }
  if (s.rx_fin || s.rx_shutdown) {
    complete(op, aerr::eof, 0);
    return true;
  }
  if (!s.connected && !s.connecting) {
    complete(op, aerr::not_connected, 0);
    return true;
  }
  return false;
}

bool net_core::try_write(socket_state& s, sock_op& op) {
  if (s.proto == transport::udp) {
    complete(op, op.ec_, op.bytes_);  // UDP sends are decided at initiation
    return true;
  }
  if (s.failed) {
    complete(op, s.failed, 0);
    return true;
  }
  if (s.tx_shutdown) {
    complete(op, aerr::broken_pipe, 0);
    return true;
  }
  if (!s.connected) {
    if (s.connecting) return false;
    complete(op, aerr::not_connected, 0);
    return true;
  }
  const std::size_t cap = op.capacity();
  if (cap == 0) {
    complete(op, {}, 0);
    return true;
  }
  tcp_channel& ch = s.conn->chan[s.side];
  std::size_t unread_at_peer = 0;
  if (socket_state* peer = find_socket(s.conn->sock[1 - s.side])) unread_at_peer = peer->rx.size();
  const std::size_t used = ch.bytes_outstanding + unread_at_peer;
  if (used >= s.send_buffer) return false;  // the window is full: wait for the peer to read
  std::size_t n = std::min(cap, s.send_buffer - used);
  // Writes may be accepted partially, as a kernel does: the seed decides.
  rng& r = core_.random(choice_purpose::network);
  if (n > 1 && r.chance(0.25)) n = 1 + r.below(n - 1) + 0;
  std::vector<char> bytes(n);
  std::size_t copied = 0;
  for (std::size_t i = 0; i < op.nbufs_ && copied < n; ++i) {
    const std::size_t k = std::min(op.bufs_[i].size(), n - copied);
    std::copy_n(static_cast<const char*>(op.bufs_[i].data()), k, bytes.data() + copied);
    copied += k;
  }
  complete(op, {}, n);
  queue_data(*s.conn, s.side, std::move(bytes));
  return true;
}

boost::system::error_code net_core::send_to(socket_state& s, std::span<const boost::asio::const_buffer> data,
                                            const net_endpoint& to, std::size_t& bytes) {
  check_alive(s);  // before anything is sent
  bytes = 0;
  if (!s.open) return aerr::bad_descriptor;
  std::size_t size = 0;
  for (const auto& b : data) size += b.size();
  if (size > max_datagram) return aerr::message_size;
  if (!s.bound) {
    if (auto ec = bind(s, net_endpoint{s.v6 ? boost::asio::ip::address(boost::asio::ip::address_v6::any())
                                            : boost::asio::ip::address(boost::asio::ip::address_v4::any()),
                                       0}))
      return ec;
  }
  const std::uint32_t from = host_of_socket(s);
  // The source address, as Linux picks it: a socket bound to the wildcard
  // sends from 127.0.0.1 to loopback and from its host's address elsewhere;
  // one bound to loopback cannot reach another host (EINVAL).
  net_endpoint source{s.local.address, s.local.port};
  if (source.address.is_unspecified() || source.address.is_multicast())
    source.address = to.address.is_loopback() ? to.address : hosts_[from].address;
  else if (source.address.is_loopback() && !to.address.is_loopback() && host_of(to.address, from) != from)
    return aerr::invalid_argument;
  if (to.address.is_multicast()) {
    send_multicast(s, from, source, to, data, size);
    bytes = size;
    return {};
  }
  packet* p = new_packet(static_cast<int>(packet::type::udp), from, source, host_of(to.address, from), to);
  p->data.resize(size);
  std::size_t off = 0;
  for (const auto& b : data) {
    std::copy_n(static_cast<const char*>(b.data()), b.size(), p->data.data() + off);
    off += b.size();
  }
  bytes = size;
  if (p->to_host == no_host) {  // nobody has that address: the datagram vanishes
    record(event_kind::net_send, from, p->seq, no_host);
    record(event_kind::net_drop, from, p->seq, code(drop_reason::unreachable));
    drop_packet(p);
    return {};
  }
  send_packet(p);
  return {};
}

// ---- multicast -------------------------------------------------------------------------

boost::system::error_code net_core::join_group(socket_state& s, const boost::asio::ip::address& group) {
  check_alive(s);
  if (!s.open) return aerr::bad_descriptor;
  if (s.proto != transport::udp) return boost::system::errc::make_error_code(boost::system::errc::protocol_error);
  if (!group.is_multicast()) return aerr::invalid_argument;
  if (std::find(s.groups.begin(), s.groups.end(), group) != s.groups.end()) return aerr::address_in_use;
  s.groups.push_back(group);
  ++groups_[group][host_of_socket(s)];
  return {};
}

boost::system::error_code net_core::leave_group(socket_state& s, const boost::asio::ip::address& group) {
  check_alive(s);
  if (!s.open) return aerr::bad_descriptor;
  if (s.proto != transport::udp) return boost::system::errc::make_error_code(boost::system::errc::protocol_error);
  if (!group.is_multicast()) return aerr::invalid_argument;
  auto it = std::find(s.groups.begin(), s.groups.end(), group);
  if (it == s.groups.end())
    return boost::system::errc::make_error_code(boost::system::errc::address_not_available);
  s.groups.erase(it);
  auto g = groups_.find(group);
  if (g != groups_.end()) {
    auto m = g->second.find(host_of_socket(s));
    if (m != g->second.end() && --m->second <= 0) g->second.erase(m);
    if (g->second.empty()) groups_.erase(g);
  }
  return {};
}

void net_core::leave_all_groups(socket_state& s) noexcept {
  while (!s.groups.empty()) {
    const boost::asio::ip::address group = s.groups.back();
    s.groups.pop_back();
    auto g = groups_.find(group);
    if (g == groups_.end()) continue;
    auto m = g->second.find(host_of_socket(s));
    if (m != g->second.end() && --m->second <= 0) g->second.erase(m);
    if (g->second.empty()) groups_.erase(g);
  }
}

// One copy per member host, each over its own link (its own loss, latency
// and duplication draws), in host id order. The sender's own host gets a
// copy only with IP_MULTICAST_LOOP (the default); hops 0 keeps it there.
void net_core::send_multicast(socket_state& s, std::uint32_t from, const net_endpoint& source, const net_endpoint& to,
                              std::span<const boost::asio::const_buffer> data, std::size_t size) {
  bool sent = false;
  if (auto g = groups_.find(to.address); g != groups_.end()) {
    for (const auto& [member, count] : g->second) {
      if (member == from ? !s.multicast_loop : s.multicast_hops == 0) continue;
      packet* p = new_packet(static_cast<int>(packet::type::udp), from, source, member, to);
      p->data.resize(size);
      std::size_t off = 0;
      for (const auto& b : data) {
        std::copy_n(static_cast<const char*>(b.data()), b.size(), p->data.data() + off);
        off += b.size();
      }
      send_packet(p);
      sent = true;
    }
  }
  if (!sent) {  // no member anywhere: the datagram reaches nobody
    const std::uint64_t seq = core_.events().size();
    record(event_kind::net_send, from, seq, no_host);
    record(event_kind::net_drop, from, seq, code(drop_reason::unreachable));
  }
}

// ---- TCP ---------------------------------------------------------------------------------

// Completes the oldest pending connect of s with ec; false when none is pending.
bool net_core::complete_connect(socket_state& s, boost::system::error_code ec) {
  for (sock_op* op = s.pending_head; op != nullptr; op = op->next_pending_)
    if (op->kind_ == sock_op::kind::connect) {
      complete(*op, ec, 0);
      return true;
    }
  return false;
}

void net_core::start_connect(socket_state& s, const net_endpoint& to) {
  if (s.connected) {
    pump(s);
    complete_connect(s, aerr::already_connected);
    return;
  }
  const std::uint32_t h = host_of_socket(s);
  if (!s.bound) {
    if (auto ec = bind(s, net_endpoint{boost::asio::ip::address(), 0}))
      if (complete_connect(s, ec)) return;
  }
  if (s.local.address.is_unspecified() || s.local.address == boost::asio::ip::address()) {
    s.local.address = to.address.is_loopback() ? to.address : hosts_[h].address;
  } else if (s.local.address.is_loopback() && !to.address.is_loopback() && host_of(to.address, h) != h) {
    complete_connect(s, aerr::invalid_argument);  // bound to loopback: no route to another host (Linux: EINVAL)
    return;
  }
  s.remote = to;
  if (s.proto == transport::udp) {  // connect() on UDP just fixes the peer
    s.connected = true;
    complete_connect(s, {});
    return;
  }
  if (s.connecting) {  // one handshake at a time, like Linux's EALREADY
    sock_op* last = s.pending_tail;
    if (last != nullptr && last->kind_ == sock_op::kind::connect) complete(*last, aerr::already_started, 0);
    return;
  }
  s.connecting = true;
  s.connect_nonce = ++next_nonce_;
  s.syn_attempts = 0;
  s.connect_started = core_.now();
  send_syn(s.id);
}

// Sends (or resends) the SYN of a connecting socket, with Linux's backoff:
// 1 s, 2 s, 4 s, ... until connect_timeout.
void net_core::send_syn(std::uint64_t sock_id) {
  socket_state* s = find_socket(sock_id);
  if (s == nullptr || !s->connecting) return;
  const std::uint32_t h = host_of_socket(*s);
  const int attempt = s->syn_attempts++;
  if (core_.now() - s->connect_started >= connect_timeout) {
    s->connecting = false;
    complete_connect(*s, aerr::timed_out);
    pump(*s);
    return;
  }
  packet* p = new_packet(static_cast<int>(packet::type::syn), h, s->local, host_of(s->remote.address, h), s->remote);
  p->sock = sock_id;
  p->nonce = s->connect_nonce;
  auto& timer = s->connect_timer;
  if (!timer)
    timer = std::make_unique<timed_event>(
        [](timed_event* ev) {
          auto* sock = static_cast<socket_state*>(ev->owner());
          sock->net->send_syn(sock->id);
        },
        s);
  duration backoff = std::chrono::seconds(1) * (std::int64_t{1} << std::min(attempt, 20));
  core_.schedule(*timer, core_.now() + backoff);
  if (p->to_host == no_host) {  // nobody has that address: the SYN vanishes
    record(event_kind::net_send, h, p->seq, no_host);
    record(event_kind::net_drop, h, p->seq, code(drop_reason::unreachable));
    drop_packet(p);
    return;
  }
  send_packet(p);
}

void net_core::on_syn(packet& p) {
  auto& ports = hosts_[p.to_host].ports;
  auto it = ports.find({static_cast<std::uint8_t>(transport::tcp), p.to.port});
  socket_state* listener = it == ports.end() ? nullptr : find_socket(it->second);
  if (listener == nullptr || !listener->listening || !hosts_[p.to_host].state->up) {
    // Nobody listens: the OS answers with a reset, the client gets connection_refused.
    send_packet(reply_to(p, static_cast<int>(packet::type::rst)));
    return;
  }
  // A repeated SYN (our SYN-ACK was lost) gets the same connection's SYN-ACK again.
  tcp_connection* c = nullptr;
  if (auto it = by_client_attempt_.find({p.sock, p.nonce}); it != by_client_attempt_.end())
    c = find_connection(it->second);
  if (c == nullptr) {
    if (static_cast<int>(listener->accept_queue.size()) >= listener->backlog) return;  // full: the client retries
    auto conn = std::make_unique<tcp_connection>();
    conn->net = this;
    conn->id = connections_.size() + 1;
    conn->host[0] = p.from_host;
    conn->host[1] = p.to_host;
    conn->ep[0] = p.from;
    conn->ep[1] = p.to;
    socket_state& embryo = create_socket(*listener->ctx, transport::tcp);
    embryo.open = true;
    embryo.embryo = true;
    embryo.v6 = listener->v6;
    embryo.connected = true;
    embryo.local = p.to;
    embryo.remote = p.from;
    embryo.send_buffer = listener->send_buffer;
    embryo.receive_buffer = listener->receive_buffer;
    embryo.conn = conn.get();
    embryo.side = 1;
    conn->sock[0] = p.sock;
    conn->sock[1] = embryo.id;
    conn->established = false;  // until the client has our SYN-ACK: nothing flows before
    conn->client_nonce = p.nonce;
    by_client_attempt_[{p.sock, p.nonce}] = conn->id;
    c = conn.get();
    connections_.push_back(std::move(conn));
    listener->accept_queue.push_back(embryo.id);
    record(event_kind::tcp_connect, p.to_host, c->id, 1);
    pump(*listener);
  }
  packet* r = reply_to(p, static_cast<int>(packet::type::syn_ack));
  r->conn = c->id;
  send_packet(r);
}

void net_core::on_syn_ack(packet& p) {
  socket_state* s = find_socket(p.sock);
  tcp_connection* c = find_connection(p.conn);
  if (c == nullptr) return;
  if (s == nullptr || !s->connecting || s->connect_nonce != p.nonce || !hosts_[p.to_host].state->up) {
    if (s == nullptr || !s->connected || s->conn != c)
      send_rst(p.to_host, p.to, p.from_host, p.from, c->id, 1);
    return;
  }
  s->connecting = false;
  s->connected = true;
  s->conn = c;
  s->side = 0;
  c->established = true;
  if (s->connect_timer) core_.cancel(*s->connect_timer);
  record(event_kind::tcp_connect, p.to_host, c->id, 0);
  complete_connect(*s, {});
  pump(*s);
  // Data the server queued before we knew of the connection may flow now.
  if (!c->chan[1].queue.empty() || c->chan[1].fin_queued) transmit(*c, 1);
}

void net_core::on_rst(packet& p) {
  if (p.conn == 0) {  // refusing a connect
    socket_state* s = find_socket(p.sock);
    if (s == nullptr || !s->connecting || s->connect_nonce != p.nonce) return;  // a stale answer
    s->connecting = false;
    if (s->connect_timer) core_.cancel(*s->connect_timer);
    complete_connect(*s, aerr::connection_refused);
    pump(*s);
    return;
  }
  tcp_connection* c = find_connection(p.conn);
  if (c == nullptr) return;
  socket_state* s = find_socket(c->sock[p.side]);
  if (s == nullptr) return;
  if (s->conn == c) {
    fail_socket(*s, aerr::connection_reset);
  } else if (p.side == 0 && s->connecting && s->connect_nonce == c->client_nonce) {
    // Reset before our SYN-ACK arrived: the connect fails.
    fail_socket(*s, aerr::connection_refused);
  }
}

void net_core::send_rst(std::uint32_t from_host, const net_endpoint& from, std::uint32_t to_host,
                        const net_endpoint& to, std::uint64_t conn, int to_side) {
  packet* r = new_packet(static_cast<int>(packet::type::rst), from_host, from, to_host, to);
  r->conn = conn;
  r->side = to_side;
  send_packet(r);
}

void net_core::queue_data(tcp_connection& c, int side, std::vector<char> bytes) {
  tcp_channel& ch = c.chan[side];
  const link_config& cfg = link(c.host[side], c.host[1 - side]);
  const std::size_t mss = cfg.mtu > 40 + 1 ? cfg.mtu - 40 : 1;
  ch.bytes_outstanding += bytes.size();
  // Seeded segment sizes: mostly full segments, sometimes split, so a
  // reader sees data arrive in pieces and framing bugs surface.
  rng& r = core_.random(choice_purpose::network);
  std::size_t off = 0;
  while (off < bytes.size()) {
    std::size_t n = std::min(mss, bytes.size() - off);
    if (n > 1 && r.chance(0.25)) n = 1 + r.below(n - 1);
    ch.queue.emplace_back(bytes.begin() + static_cast<std::ptrdiff_t>(off),
                          bytes.begin() + static_cast<std::ptrdiff_t>(off + n));
    off += n;
  }
  if (!ch.attempt_scheduled && c.established) transmit(c, side);
}

void net_core::queue_fin(tcp_connection& c, int side) {
  tcp_channel& ch = c.chan[side];
  if (ch.fin_queued) return;
  ch.fin_queued = true;
  if (!ch.attempt_scheduled) transmit(c, side);
}

void net_core::schedule_attempt(tcp_connection& c, int side, duration at) {
  auto& ev = c.attempt[side];
  if (!ev) {
    // The owner is the connection; the side is recovered from which event fired.
    ev = std::make_unique<timed_event>(
        [](timed_event* e) {
          auto* conn = static_cast<tcp_connection*>(e->owner());
          const int s = conn->attempt[0].get() == e ? 0 : 1;
          conn->chan[s].attempt_scheduled = false;
          conn->net->transmit(*conn, s);
        },
        &c);
  }
  c.chan[side].attempt_scheduled = true;
  core_.schedule(*ev, at);
}

// Sends every queued segment of one direction that the link lets through.
// A blocked link, a power-cut peer or a lost segment means retransmission
// after the RTO (doubling up to 120 s), until the user timeout aborts.
void net_core::transmit(tcp_connection& c, int side) {
  if (!c.established) return;  // the handshake's end starts it
  tcp_channel& ch = c.chan[side];
  const std::uint32_t from = c.host[side], to = c.host[1 - side];
  const link_config& cfg = link(from, to);
  rng& r = core_.random(choice_purpose::network);
  while (!ch.queue.empty() || ch.fin_queued) {
    // TCP needs both directions: without acknowledgements coming back
    // (a one-way block of the reverse path) the sender keeps retransmitting.
    verdict v = judge(from, to);
    if (v == verdict::pass && judge(to, from) == verdict::drop) v = verdict::drop;
    if (v == verdict::hold) return;  // release() resumes the channel
    const bool lost = v == verdict::pass && from != to && r.chance(cfg.loss);
    if (v == verdict::drop || lost) {
      if (ch.stuck_since < duration::zero()) ch.stuck_since = core_.now();
      if (core_.now() - ch.stuck_since >= tcp_user_timeout) {
        if (socket_state* s = find_socket(c.sock[side])) fail_socket(*s, aerr::timed_out);
        ch.queue.clear();
        ch.fin_queued = false;
        ch.bytes_outstanding = 0;
        return;
      }
      // The segment goes out and is lost on the way: it is numbered like
      // any packet, so the drop names one the trace saw sent.
      const std::uint64_t seq = core_.events().size();
      record(event_kind::net_send, from, seq, to);
      record(event_kind::net_drop, from, seq, lost ? code(drop_reason::lost) : drop_cause(from, to));
      schedule_attempt(c, side, core_.now() + ch.rto);
      ch.rto = std::min(ch.rto * 2, max_rto);
      return;
    }
    packet* p = new_packet(static_cast<int>(packet::type::segment), from, c.ep[side], to, c.ep[1 - side]);
    p->conn = c.id;
    p->side = side;
    if (!ch.queue.empty()) {
      p->data = std::move(ch.queue.front());
      ch.queue.pop_front();
    } else {
      p->fin = true;
      ch.fin_queued = false;
    }
    record(event_kind::net_send, from, p->seq, to);
    // Strictly after the previous segment: events due at one instant are
    // released in seed order, which must not reorder a stream.
    const duration sent_at = on_wire(from, to, cfg, p->data.size() + 40);
    const duration at = std::max(sent_at + (from == to ? duration::zero() : draw_latency(cfg)),
                                 ch.last_arrival + duration(1));
    ch.last_arrival = at;
    ch.in_flight.push_back(p);
    schedule_arrival(p, at);
    ch.rto = initial_rto;
    ch.stuck_since = duration(-1);
  }
}

// A partition, a power cut or a hold ate the head of the flight: everything
// in flight goes back to the queue, in order, to be retransmitted. The rest
// of the flight shares the head's fate, and the trace says so packet by
// packet (each sent packet ends delivered or dropped).
void net_core::retreat(tcp_connection& c, int side, const packet& head, std::uint64_t reason) {
  tcp_channel& ch = c.chan[side];
  for (const packet* p : ch.in_flight)
    if (p != &head) record(event_kind::net_drop, p->to_host, p->seq, reason);
  while (!ch.in_flight.empty()) {
    packet* p = ch.in_flight.back();
    ch.in_flight.pop_back();
    if (p->fin) ch.fin_queued = true;
    else ch.queue.push_front(std::move(p->data));
    drop_packet(p);
  }
  ch.last_arrival = core_.now();
}

void net_core::on_segment(packet& p) {
  tcp_connection* c = find_connection(p.conn);
  if (c == nullptr) {
    record(event_kind::net_drop, p.to_host, p.seq, code(drop_reason::no_socket));
    drop_packet(&p);
    return;
  }
  const int side = p.side;
  tcp_channel& ch = c->chan[side];
  const verdict v = judge(p.from_host, p.to_host);
  if (v != verdict::pass) {
    const std::uint64_t reason = v == verdict::hold ? code(drop_reason::held) : drop_cause(p.from_host, p.to_host);
    record(event_kind::net_drop, p.to_host, p.seq, reason);
    retreat(*c, side, p, reason);  // frees p with the rest of the flight
    if (v == verdict::drop) {
      if (ch.stuck_since < duration::zero()) ch.stuck_since = core_.now();
      if (!ch.attempt_scheduled) schedule_attempt(*c, side, core_.now() + ch.rto);
      ch.rto = std::min(ch.rto * 2, max_rto);
    }
    return;
  }
  record(event_kind::net_deliver, p.to_host, p.seq, p.data.size());
  if (!ch.in_flight.empty() && ch.in_flight.front() == &p) ch.in_flight.pop_front();
  ch.bytes_outstanding -= std::min(ch.bytes_outstanding, p.data.size());
  socket_state* r = find_socket(c->sock[1 - p.side]);
  if (r != nullptr && r->conn != c && !r->embryo) r = nullptr;  // the socket moved on (closed, reused)
  if (r == nullptr || !hosts_[p.to_host].state->up) {
    // The receiving end is gone: its OS answers with a reset.
    if (!p.data.empty() || !p.fin) send_rst(p.to_host, p.to, p.from_host, p.from, c->id, p.side);
  } else {
    r->rx.append(p.data.begin(), p.data.end());
    if (p.fin) r->rx_fin = true;
    pump(*r);
  }
  if (socket_state* s = find_socket(c->sock[p.side])) pump(*s);  // the window opened
  drop_packet(&p);
}

void net_core::fail_socket(socket_state& s, boost::system::error_code ec) {
  if (s.failed) return;
  s.failed = ec;
  s.connecting = false;
  record(event_kind::tcp_reset, host_of_socket(s), s.conn != nullptr ? s.conn->id : 0,
         static_cast<std::uint64_t>(ec.value()));
  s.rx.clear();
  detach_connection(s);
  pump(s);
}

// Forgets the connection on this socket's side: queued data is dropped and
// nothing more is retransmitted.
void net_core::detach_connection(socket_state& s) noexcept {
  tcp_connection* c = s.conn;
  if (c == nullptr) return;
  tcp_channel& ch = c->chan[s.side];
  ch.queue.clear();
  ch.fin_queued = false;
  ch.bytes_outstanding = 0;
  if (c->attempt[s.side]) core_.cancel(*c->attempt[s.side]);
  ch.attempt_scheduled = false;
  c->sock[s.side] = 0;
  s.conn = nullptr;
  s.connected = false;
}

void net_core::abort_connection(socket_state& s, bool send_reset) {
  tcp_connection* c = s.conn;
  if (c == nullptr) return;
  if (send_reset) send_rst(c->host[s.side], c->ep[s.side], c->host[1 - s.side], c->ep[1 - s.side], c->id, 1 - s.side);
  record(event_kind::tcp_close, host_of_socket(s), c->id, send_reset ? 1 : 0);
  detach_connection(s);
}

boost::system::error_code net_core::close(socket_state& s) {
  if (!s.open) return aerr::bad_descriptor;
  if (s.connecting) {
    s.connecting = false;
    if (s.connect_timer) core_.cancel(*s.connect_timer);
  }
  if (s.conn != nullptr) {
    // Unread data, or linger 0, makes a close abortive (RST); otherwise the
    // queued data drains and a FIN follows (unless shutdown sent it already).
    const bool abortive = !s.rx.empty() || (s.linger_on && s.linger_seconds == 0);
    if (abortive) {
      abort_connection(s, true);
    } else {
      tcp_connection* c = s.conn;
      if (!s.tx_shutdown) queue_fin(*c, s.side);
      record(event_kind::tcp_close, host_of_socket(s), c->id, 0);
      c->sock[s.side] = 0;
      s.conn = nullptr;
    }
  }
  std::vector<std::uint64_t> unaccepted(s.accept_queue.begin(), s.accept_queue.end());
  s.accept_queue.clear();
  for (std::uint64_t id : unaccepted) {
    if (socket_state* e = find_socket(id)) {
      abort_connection(*e, true);
      sockets_[id - 1] = nullptr;
      delete e;
    }
  }
  leave_all_groups(s);
  if (s.bound) {
    auto& ports = hosts_[host_of_socket(s)].ports;
    auto it = ports.find({static_cast<std::uint8_t>(s.proto), s.local.port});
    if (it != ports.end() && it->second == s.id) ports.erase(it);
  }
  reset_state(s);
  cancel(s);  // last: completing may destroy the socket
  return {};
}

// Back to a fresh, closed socket, keeping identity (id, context, protocol)
// and any operations still queued on it.
void net_core::reset_state(socket_state& s) noexcept {
  socket_state fresh;
  fresh.id = s.id;
  fresh.ctx = s.ctx;
  fresh.incarnation = s.incarnation;
  fresh.proto = s.proto;
  fresh.pending_head = s.pending_head;
  fresh.pending_tail = s.pending_tail;
  fresh.net = s.net;
  fresh.connect_timer = std::move(s.connect_timer);  // idle: close() cancelled it
  s = std::move(fresh);
}

boost::system::error_code net_core::shutdown(socket_state& s, bool send, bool receive) {
  if (!s.open) return aerr::bad_descriptor;
  if (s.proto == transport::tcp && !s.connected) return aerr::not_connected;
  if (send && !s.tx_shutdown && s.conn != nullptr) {
    s.tx_shutdown = true;
    queue_fin(*s.conn, s.side);
  }
  if (receive) s.rx_shutdown = true;
  pump(s);
  return {};
}

void net_core::host_crashed(std::uint32_t host, bool power) {
  // By index: closing one socket may destroy (or create) others.
  for (std::size_t i = 0; i < sockets_.size(); ++i) {
    socket_state* s = sockets_[i];
    if (s == nullptr || host_of_socket(*s) != host) continue;
    if (power) {
      // Silence: the machine is gone, peers notice only by their timeouts.
      // What it had on the wire is gone too.
      if (s->conn != nullptr) {
        tcp_channel& ch = s->conn->chan[s->side];
        while (!ch.in_flight.empty()) {
          packet* p = ch.in_flight.front();
          ch.in_flight.pop_front();
          record(event_kind::net_drop, host, p->seq, code(drop_reason::power_off));
          drop_packet(p);
        }
      }
      detach_connection(*s);
      leave_all_groups(*s);
      s->connecting = false;
    } else if (s->open) {
      // The OS closes what the process left open: RST where data was unread, else FIN.
      close(*s);
    }
  }
  hosts_[host].ports.clear();
}

void net_core::host_restarted(std::uint32_t) {}

void net_core::reset_connections(std::uint32_t a, std::uint32_t b) {
  // By index, in creation order: failing a socket may run no user code
  // (completions are posted), but keeps the order independent of addresses.
  for (std::size_t i = 0; i < connections_.size(); ++i) {
    tcp_connection* c = connections_[i].get();
    if (c == nullptr) continue;
    const bool between = (c->host[0] == a && c->host[1] == b) || (c->host[0] == b && c->host[1] == a);
    if (!between) continue;
    for (int side = 0; side < 2; ++side) {
      socket_state* s = find_socket(c->sock[side]);
      if (s != nullptr && s->conn == c) fail_socket(*s, boost::asio::error::connection_reset);
    }
  }
}

}  // namespace simasio::detail
