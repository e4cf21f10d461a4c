// tcp.cpp — TCP: connections, handshake, retransmission, windows, close and reset
#include <simasio/detail/net/tcp.hpp>

#include <boost/asio/error.hpp>

#include <algorithm>
#include <bit>

namespace simasio::detail {

namespace aerr = boost::asio::error;

namespace {
constexpr duration max_rto = std::chrono::seconds(120);
constexpr duration initial_rto = std::chrono::milliseconds(200);

// Linux's memory per segment (tcp_sndbuf_expand: payload, headers and
// bookkeeping, rounded up): the send buffer is twice the congestion
// window's worth of it, 10 segments at first.
std::size_t segment_memory(std::size_t mss) { return std::bit_ceil(mss + 640) + 256; }
constexpr std::size_t initial_window = 10;

// The handshake is over for the listener's side (accepted or dropped): no
// more SYN-ACKs.
void end_handshake(world_core& core, tcp_connection& c) noexcept {
  c.half_open = false;
  if (c.synack_timer) core.cancel(*c.synack_timer);
}
}  // namespace

tcp_layer::tcp_layer(link_layer& link, socket_table& table) : link_(link), core_(link.core()), table_(table) {
  link_.set_protocol(packet::type::syn, &tcp_layer::on_arrival<&tcp_layer::syn>, this, false);
  link_.set_protocol(packet::type::syn_ack, &tcp_layer::on_arrival<&tcp_layer::syn_ack>, this, false);
  link_.set_protocol(packet::type::rst, &tcp_layer::on_arrival<&tcp_layer::rst>, this, false);
  link_.set_protocol(packet::type::segment, &tcp_layer::on_arrival<&tcp_layer::segment>, this, true);
  link_.set_protocol(packet::type::ack, &tcp_layer::on_arrival<&tcp_layer::ack>, this, false);
  link_.set_release_hook(&tcp_layer::on_release, this);
  link_.set_packet_gone_hook(&tcp_layer::on_packet_gone, this);
}

tcp_layer::~tcp_layer() {
  link_.set_packet_gone_hook(nullptr, nullptr);
  for (auto& c : connections_)
    if (c)
      for (int side = 0; side < 2; ++side) {
        if (c->attempt[side]) core_.cancel(*c->attempt[side]);
        if (c->keepalive[side]) core_.cancel(*c->keepalive[side]);
        if (side == 1 && c->synack_timer) core_.cancel(*c->synack_timer);
      }
}

// ---- buffers -------------------------------------------------------------------------

void tcp_layer::init_buffers(socket_state& s) const noexcept {
  s.send_buffer = buffers.send_initial;
  s.receive_buffer = buffers.receive_initial;
}

// As Linux: the request is capped at net.core.wmem_max / rmem_max, doubled,
// kept above a floor, and stops autotuning.
void tcp_layer::pin_send_buffer(socket_state& s, std::size_t requested) const noexcept {
  s.send_buffer = std::max<std::size_t>(2 * std::min(requested, buffers.option_max), 4608);
  s.send_pinned = true;
}

void tcp_layer::pin_receive_buffer(socket_state& s, std::size_t requested) const noexcept {
  s.receive_buffer = std::max<std::size_t>(2 * std::min(requested, buffers.option_max), 2304);
  s.receive_pinned = true;
}

void tcp_layer::consumed(socket_state& s, std::size_t n) const noexcept {
  if (!s.receive_pinned) s.receive_buffer = std::min(buffers.receive_max, std::max(s.receive_buffer, s.receive_buffer + n));
}

void tcp_layer::on_packet_gone(void* self, std::uint64_t conn) noexcept {
  auto& tcp = *static_cast<tcp_layer*>(self);
  tcp_connection* c = tcp.find_connection(conn);
  if (c == nullptr || c->packets == 0) return;
  if (--c->packets == 0) {
    try {
      tcp.may_be_done(*c);
    } catch (...) {
      // Out of memory: the connection stays until the world ends.
    }
  }
}

void tcp_layer::reap() noexcept {
  if (reap_.empty()) return;
  for (const std::uint64_t id : reap_) {
    tcp_connection* c = find_connection(id);
    if (c == nullptr || c->packets != 0 || c->sock[0] != 0 || c->sock[1] != 0) continue;
    bool busy = c->synack_timer && c->synack_timer->scheduled();
    for (int side = 0; side < 2 && !busy; ++side) {
      const tcp_channel& ch = c->chan[side];
      busy = !ch.queue.empty() || ch.fin_queued || !ch.in_flight.empty() || ch.attempt_scheduled ||
             (c->attempt[side] && c->attempt[side]->scheduled()) ||
             (c->keepalive[side] && c->keepalive[side]->scheduled());
    }
    if (busy) continue;  // noted again when what keeps it ends
    if (auto it = by_client_attempt_.find({c->client_sock, c->client_nonce});
        it != by_client_attempt_.end() && it->second == id)
      by_client_attempt_.erase(it);
    connections_[id - 1].reset();
  }
  reap_.clear();
}

// TCP channels between a and b that stopped on the hold resume now.
void tcp_layer::on_release(void* self, std::uint32_t a, std::uint32_t b) {
  auto& tcp = *static_cast<tcp_layer*>(self);
  const auto key = std::make_pair(std::min(a, b), std::max(a, b));
  for (auto& c : tcp.connections_) {
    if (!c) continue;
    for (int side = 0; side < 2; ++side) {
      const auto pair =
          std::make_pair(std::min(c->host[side], c->host[1 - side]), std::max(c->host[side], c->host[1 - side]));
      if (pair == key && !c->chan[side].attempt_scheduled && (!c->chan[side].queue.empty() || c->chan[side].fin_queued))
        tcp.transmit(*c, side);
    }
  }
}

// ---- handshake ---------------------------------------------------------------------

void tcp_layer::connect(socket_state& s) {
  s.connecting = true;
  s.ended = false;  // a new handshake: whatever a failed one left is gone
  s.connect_nonce = ++next_nonce_;
  s.syn_attempts = 0;
  s.connect_started = core_.now();
  s.tcp = this;
  send_syn(s.id);
}

// Sends (or resends) the SYN of a connecting socket, with Linux's backoff:
// 1 s, 2 s, 4 s, ... until connect_timeout.
void tcp_layer::send_syn(std::uint64_t sock_id) {
  socket_state* s = table_.find(sock_id);
  if (s == nullptr || !s->connecting) return;
  const std::uint32_t h = s->ctx->host->id;
  const int attempt = s->syn_attempts++;
  if (core_.now() - s->connect_started >= connect_timeout) {
    s->connecting = false;
    up_.connect_done(up_.self, *s, aerr::timed_out);
    return;
  }
  packet* p = link_.new_packet(packet::type::syn, h, s->local, link_.host_of(s->remote.address, h), s->remote);
  p->sock = sock_id;
  p->nonce = s->connect_nonce;
  auto& timer = s->connect_timer;
  if (!timer)
    timer = std::make_unique<timed_event>(
        [](timed_event* ev) {
          auto* sock = static_cast<socket_state*>(ev->owner());
          sock->tcp->send_syn(sock->id);
        },
        s);
  duration backoff = std::chrono::seconds(1) * (std::int64_t{1} << std::min(attempt, 20));
  core_.schedule(*timer, core_.now() + backoff);
  if (p->to_host == no_host) {  // nobody has that address: the SYN vanishes
    link_.record(event_kind::net_send, h, p->seq, no_host);
    link_.record(event_kind::net_drop, h, p->seq, drop_code(drop_reason::unreachable));
    link_.drop(p);
    return;
  }
  link_.send(p);
}

// A SYN: the listener answers with a SYN-ACK and keeps the connection in
// its SYN queue until the client's ACK; accept sees it only then.
void tcp_layer::syn(packet& p) {
  socket_state* listener = table_.bound(p.to_host, transport::tcp, p.to.address, p.to.port);
  if (listener == nullptr || !listener->listening || !link_.host(p.to_host).up) {
    // Nobody listens: the OS answers with a reset, the client gets connection_refused.
    link_.send(link_.reply_to(p, packet::type::rst));
    return;
  }
  // A repeated SYN (our SYN-ACK was lost) gets the same connection's SYN-ACK again.
  tcp_connection* c = nullptr;
  if (auto it = by_client_attempt_.find({p.sock, p.nonce}); it != by_client_attempt_.end())
    c = find_connection(it->second);
  if (c != nullptr && c->sock[1] != 0) {
    send_syn_ack(*c);
    return;
  }  // else we dropped that half-open connection: a new one, as on Linux
  // Full (Linux's sk_acceptq_is_full: more than the backlog waits): the
  // SYN is dropped and the client retries.
  if (static_cast<int>(listener->accept_queue.size()) > listener->backlog) return;
  auto conn = std::make_unique<tcp_connection>();
  conn->tcp = this;
  conn->id = connections_.size() + 1;
  conn->host[0] = p.from_host;
  conn->host[1] = p.to_host;
  conn->ep[0] = p.from;
  conn->ep[1] = p.to;
  socket_state& embryo = table_.create(*listener->ctx, transport::tcp);
  embryo.open = true;
  embryo.embryo = true;
  embryo.v6 = listener->v6;
  embryo.v6_only = listener->v6_only;
  embryo.connected = true;
  embryo.established_once = true;
  embryo.local = p.to;
  embryo.remote = p.from;
  embryo.send_buffer = listener->send_buffer;
  embryo.receive_buffer = listener->receive_buffer;
  embryo.send_pinned = listener->send_pinned;
  embryo.receive_pinned = listener->receive_pinned;
  embryo.reuse_address = listener->reuse_address;  // inherited, as on Linux
  embryo.keep_alive = listener->keep_alive;
  embryo.no_delay = listener->no_delay;
  embryo.keep_idle = listener->keep_idle;
  embryo.keep_interval = listener->keep_interval;
  embryo.keep_count = listener->keep_count;
  embryo.user_timeout = listener->user_timeout;
  embryo.conn = conn.get();
  embryo.side = 1;
  conn->sock[0] = p.sock;
  conn->sock[1] = embryo.id;
  conn->established = false;  // until the client has our SYN-ACK: nothing flows before
  conn->client_nonce = p.nonce;
  conn->client_sock = p.sock;
  conn->listener = listener->id;
  conn->half_open = true;
  by_client_attempt_[{p.sock, p.nonce}] = conn->id;
  c = conn.get();
  connections_.push_back(std::move(conn));
  listener->syn_queue.push_back(embryo.id);
  send_syn_ack(*c);
  c->synack_timer = std::make_unique<timed_event>(
      [](timed_event* e) {
        auto* half = static_cast<tcp_connection*>(e->owner());
        half->tcp->syn_ack_timeout(*half);
      },
      c);
  core_.schedule(*c->synack_timer, core_.now() + std::chrono::seconds(1));
}

void tcp_layer::send_syn_ack(tcp_connection& c) {
  packet* r = link_.new_packet(packet::type::syn_ack, c.host[1], c.ep[1], c.host[0], c.ep[0]);
  r->sock = c.sock[0];
  r->nonce = c.client_nonce;
  r->conn = c.id;
  ++c.packets;
  link_.send(r);
}

// Linux's SYN-ACK backoff: again after 1 s, 2 s, 4 s, ... (synack_retries
// times), and the half-open connection is dropped one doubled wait after
// the last: at 63 s with the default 5.
void tcp_layer::syn_ack_timeout(tcp_connection& c) {
  if (!c.half_open) return;
  const socket_state* listener = table_.find(c.listener);
  const socket_state* embryo = table_.find(c.sock[1]);
  const host_state& server = link_.host(c.host[1]);
  if (c.synack_timeouts >= synack_retries || listener == nullptr || !listener->listening || embryo == nullptr ||
      !server.up || embryo->incarnation != server.incarnation) {
    drop_half_open(c, false);
    return;
  }
  send_syn_ack(c);
  const int timeouts = ++c.synack_timeouts;
  core_.schedule(*c.synack_timer, core_.now() + std::chrono::seconds(1) * (std::int64_t{1} << std::min(timeouts, 20)));
}

void tcp_layer::send_ack(tcp_connection& c) {
  packet* a = link_.new_packet(packet::type::ack, c.host[0], c.ep[0], c.host[1], c.ep[1]);
  a->conn = c.id;
  ++c.packets;
  link_.send(a);
}

void tcp_layer::ack(packet& p) {
  tcp_connection* c = find_connection(p.conn);
  if (c == nullptr || !c->half_open || !link_.host(p.to_host).up) return;  // a repeated ACK: accepted already
  if (!complete_handshake(*c) && c->sock[1] == 0) send_rst(c->host[1], c->ep[1], c->host[0], c->ep[0], c->id, 0);
}

bool tcp_layer::complete_handshake(tcp_connection& c) {
  socket_state* listener = table_.find(c.listener);
  socket_state* embryo = table_.find(c.sock[1]);
  if (listener == nullptr || !listener->listening || embryo == nullptr) {
    drop_half_open(c, false);
    return false;
  }
  if (static_cast<int>(listener->accept_queue.size()) > listener->backlog) return false;
  end_handshake(core_, c);
  std::erase(listener->syn_queue, embryo->id);
  listener->accept_queue.push_back(embryo->id);
  link_.record(event_kind::tcp_connect, c.host[1], c.id, 1);
  established(c, 1);
  ready(*listener);
  return true;
}

void tcp_layer::drop_half_open(tcp_connection& c, bool reset) {
  const std::uint64_t id = c.sock[1];
  if (socket_state* listener = table_.find(c.listener)) std::erase(listener->syn_queue, id);
  end_handshake(core_, c);
  discard_embryo(id, reset);
}

// A connection the program never accepted goes, with an RST to the client or silently.
void tcp_layer::discard_embryo(std::uint64_t id, bool reset) {
  socket_state* e = table_.find(id);
  if (e == nullptr || !e->embryo) return;
  if (e->conn != nullptr) end_handshake(core_, *e->conn);
  abort_connection(*e, reset);
  table_.forget(id);
  delete e;
}

void tcp_layer::syn_ack(packet& p) {
  socket_state* s = table_.find(p.sock);
  tcp_connection* c = find_connection(p.conn);
  if (c == nullptr) return;
  if (s == nullptr || !s->connecting || s->connect_nonce != p.nonce || !link_.host(p.to_host).up) {
    // Our ACK was lost: again, while our OS has the connection (a socket
    // closed gracefully still drains it).
    if (c->established && !c->forgotten[0]) send_ack(*c);
    else send_rst(p.to_host, p.to, p.from_host, p.from, c->id, 1);
    return;
  }
  s->connecting = false;
  s->connected = true;
  s->established_once = true;
  s->conn = c;
  s->side = 0;
  c->established = true;
  if (s->connect_timer) core_.cancel(*s->connect_timer);
  link_.record(event_kind::tcp_connect, p.to_host, c->id, 0);
  established(*c, 0);
  send_ack(*c);
  up_.connect_done(up_.self, *s, {});
  // Data the server queued before we knew of the connection may flow now.
  if (!c->chan[1].queue.empty() || c->chan[1].fin_queued) transmit(*c, 1);
}

void tcp_layer::rst(packet& p) {
  if (p.conn == 0) {  // refusing a connect
    socket_state* s = table_.find(p.sock);
    if (s == nullptr || !s->connecting || s->connect_nonce != p.nonce) return;  // a stale answer
    s->connecting = false;
    if (s->connect_timer) core_.cancel(*s->connect_timer);
    up_.connect_done(up_.self, *s, aerr::connection_refused);
    return;
  }
  tcp_connection* c = find_connection(p.conn);
  if (c == nullptr) return;
  if (p.side == 1 && c->half_open) {  // the client gave up on a connection we had not accepted yet
    drop_half_open(*c, false);
    return;
  }
  socket_state* s = table_.find(c->sock[p.side]);
  if (s == nullptr) {  // closed gracefully, still draining: the OS drops the connection
    stop_channel(*c, p.side);
    return;
  }
  if (s->conn == c) {
    fail(*s, aerr::connection_reset);
  } else if (p.side == 0 && s->connecting && s->connect_nonce == c->client_nonce) {
    // Reset before our SYN-ACK arrived: the connect fails.
    fail(*s, aerr::connection_refused);
  }
}

void tcp_layer::send_rst(std::uint32_t from_host, const net_endpoint& from, std::uint32_t to_host,
                         const net_endpoint& to, std::uint64_t conn, int to_side) {
  packet* r = link_.new_packet(packet::type::rst, from_host, from, to_host, to);
  r->conn = conn;
  r->side = to_side;
  if (tcp_connection* c = find_connection(conn)) {
    ++c->packets;
    // Behind what its side already put on the wire: a reset never
    // overtakes the data sent before it.
    if (!c->chan[1 - to_side].in_flight.empty()) r->not_before = c->chan[1 - to_side].last_arrival + duration(1);
  }
  link_.send(r);
}

// ---- data ----------------------------------------------------------------------------

void tcp_layer::queue_data(tcp_connection& c, int side, boost::span<const char> bytes) {
  tcp_channel& ch = c.chan[side];
  const link_config& cfg = link_.config(c.host[side], c.host[1 - side]);
  const std::size_t mss = cfg.mtu > 40 + 1 ? cfg.mtu - 40 : 1;
  // What the stream carries, in the trace's hash (SIMASIO_VERIFY): per
  // connection and direction, after what it carried before.
  core_.events().fold_bytes(trace::hash_bytes(bytes.data(), bytes.size(), c.id * 2 + static_cast<std::uint64_t>(side)));
  ch.bytes_outstanding += bytes.size();
  // Seeded segment sizes: mostly full segments, sometimes split
  // (link_config::split_segments), so a reader sees data arrive in pieces
  // and framing bugs surface.
  rng& r = link_.stream(c.host[side], c.host[1 - side]);
  std::size_t off = 0;
  while (off < bytes.size()) {
    std::size_t n = std::min(mss, bytes.size() - off);
    if (n > 1 && cfg.split_segments > 0 && r.chance(cfg.split_segments)) n = 1 + r.below(n - 1);
    std::vector<char> seg = link_.take_buffer();
    seg.assign(bytes.begin() + static_cast<std::ptrdiff_t>(off), bytes.begin() + static_cast<std::ptrdiff_t>(off + n));
    ch.queue.push_back(std::move(seg));
    off += n;
  }
  if (!ch.attempt_scheduled && c.established) transmit(c, side);
}

void tcp_layer::queue_fin(tcp_connection& c, int side) {
  tcp_channel& ch = c.chan[side];
  if (ch.fin_queued) return;
  ch.fin_queued = true;
  if (c.closed_first < 0) c.closed_first = side;
  if (!ch.attempt_scheduled) transmit(c, side);
}

void tcp_layer::schedule_attempt(tcp_connection& c, int side, duration at) {
  auto& ev = c.attempt[side];
  if (!ev) {
    // The owner is the connection; the side is recovered from which event fired.
    ev = std::make_unique<timed_event>(
        [](timed_event* e) {
          auto* conn = static_cast<tcp_connection*>(e->owner());
          const int s = conn->attempt[0].get() == e ? 0 : 1;
          conn->chan[s].attempt_scheduled = false;
          conn->tcp->transmit(*conn, s);
          conn->tcp->may_be_done(*conn);
        },
        &c);
  }
  c.chan[side].attempt_scheduled = true;
  core_.schedule(*ev, at);
}

duration tcp_layer::user_timeout_of(const tcp_connection& c, int side) const {
  const socket_state* s = table_.find(c.sock[side]);
  return s != nullptr && s->user_timeout > duration::zero() ? s->user_timeout : user_timeout;
}

// Linux (since 4.19) clamps the retransmission timer to a user timeout the
// program set, so the connection fails at the timeout, not at the first
// retransmission after it; without one, it gives up at the first
// retransmission after 15 minutes, near Linux's tcp_retries2 figure.
duration tcp_layer::retry_at(const tcp_connection& c, int side) const {
  const tcp_channel& ch = c.chan[side];
  const duration next = core_.now() + ch.rto;
  const socket_state* s = table_.find(c.sock[side]);
  const bool clamped = user_timeout_set || (s != nullptr && s->user_timeout > duration::zero());
  if (!clamped || ch.stuck_since < duration::zero()) return next;
  return std::max(core_.now(), std::min(next, ch.stuck_since + user_timeout_of(c, side)));
}

// Sends every queued segment of one direction that the link lets through.
// A blocked link, a power-cut peer or a lost segment means retransmission
// after the RTO (doubling up to 120 s), until the user timeout aborts.
void tcp_layer::transmit(tcp_connection& c, int side) {
  if (!c.established) return;  // the handshake's end starts it
  tcp_channel& ch = c.chan[side];
  const std::uint32_t from = c.host[side], to = c.host[1 - side];
  const link_config& cfg = link_.config(from, to);
  rng& r = link_.stream(from, to);
  using action = verdict::action;
  while (!ch.queue.empty() || ch.fin_queued) {
    // TCP needs both directions: without acknowledgements coming back
    // (a one-way block of the reverse path) the sender keeps retransmitting.
    const wire_view segment{ch.queue.empty() ? packet_kind::tcp_fin : packet_kind::tcp_data, from, to, &c.ep[side],
                            &c.ep[1 - side],
                            ch.queue.empty() ? boost::span<const char>() : boost::span<const char>(ch.queue.front())};
    link_layer::judgement j = link_.judge(segment);
    if (j.act == action::pass || j.act == action::delay) {
      const wire_view ack{packet_kind::tcp_ack, to, from, &c.ep[1 - side], &c.ep[side], {}};
      const link_layer::judgement back = link_.judge(ack);
      if (back.act == action::drop || back.act == action::hold) j = back;
      else if (back.act == action::delay) j.by += back.by;  // the sender learns of delivery later
    }
    if (j.act == action::hold) return;  // the link's release (or the rule's removal) resumes the channel
    const bool lost = j.act != action::drop && from != to && r.chance(world_core::with_mix(cfg.loss, core_.faults().loss));
    if (j.act == action::drop || lost) {
      if (ch.stuck_since < duration::zero()) ch.stuck_since = core_.now();
      if (core_.now() - ch.stuck_since >= user_timeout_of(c, side)) {
        if (socket_state* s = table_.find(c.sock[side])) fail(*s, aerr::timed_out);
        ch.queue.clear();
        ch.fin_queued = false;
        ch.bytes_outstanding = 0;
        return;
      }
      // The segment goes out and is lost on the way: it is numbered like
      // any packet, so the drop names one the trace saw sent.
      const std::uint64_t seq = core_.events().size();
      link_.record(event_kind::net_send, from, seq, to);
      link_.record(event_kind::net_drop, from, seq, lost ? drop_code(drop_reason::lost) : j.reason);
      schedule_attempt(c, side, retry_at(c, side));
      ch.rto = std::min(ch.rto * 2, max_rto);
      return;
    }
    packet* p = link_.new_packet(packet::type::segment, from, c.ep[side], to, c.ep[1 - side]);
    p->conn = c.id;
    ++c.packets;
    p->side = side;
    if (!ch.queue.empty()) {
      p->data.swap(ch.queue.front());  // the packet's old buffer goes back to the pool
      link_.keep_buffer(std::move(ch.queue.front()));
      ch.queue.pop_front();
    } else {
      p->fin = true;
      ch.fin_queued = false;
    }
    link_.record_send(p, to);
    // Strictly after the previous segment: events due at one instant are
    // released in seed order, which must not reorder a stream.
    const duration sent_at = link_.on_wire(from, to, cfg, p->data.size() + 40);
    const duration at = std::max(sent_at + (from == to ? duration::zero() : link_.draw_latency(r, cfg)) + j.by,
                                 ch.last_arrival + duration(1));
    p->judged_at = link_.rule_serial();
    ch.last_arrival = at;
    ch.in_flight.push_back(p);
    link_.schedule_arrival(p, at);
    ch.rto = initial_rto;
    ch.stuck_since = duration(-1);
  }
}

// A segment that did not get through (a rule dropped or held it, or nobody
// received it): back to the queue with the rest of the flight, and for a
// drop, retransmission with backoff.
void tcp_layer::lost_on_arrival(tcp_connection& c, int side, packet& p, std::uint64_t reason, bool retry) {
  tcp_channel& ch = c.chan[side];
  link_.record(event_kind::net_drop, p.to_host, p.seq, reason);
  retreat(c, side, p, reason);  // frees p with the rest of the flight
  if (!retry) return;
  if (ch.stuck_since < duration::zero()) ch.stuck_since = core_.now();
  if (!ch.attempt_scheduled) schedule_attempt(c, side, retry_at(c, side));
  ch.rto = std::min(ch.rto * 2, max_rto);
}

// A partition, a power cut or a hold ate the head of the flight: everything
// in flight goes back to the queue, in order, to be retransmitted. The rest
// of the flight shares the head's fate, and the trace says so packet by
// packet (each sent packet ends delivered or dropped).
void tcp_layer::retreat(tcp_connection& c, int side, const packet& head, std::uint64_t reason) {
  tcp_channel& ch = c.chan[side];
  for (const packet* p : ch.in_flight)
    if (p != &head) link_.record(event_kind::net_drop, p->to_host, p->seq, reason);
  while (!ch.in_flight.empty()) {
    packet* p = ch.in_flight.back();
    ch.in_flight.pop_back();
    if (p->fin) ch.fin_queued = true;
    else ch.queue.push_front(std::move(p->data));
    link_.drop(p);
  }
  ch.last_arrival = core_.now();
}

void tcp_layer::segment(packet& p) {
  tcp_connection* c = find_connection(p.conn);
  if (c == nullptr) {
    link_.record(event_kind::net_drop, p.to_host, p.seq, drop_code(drop_reason::no_socket));
    link_.drop(&p);
    return;
  }
  const int side = p.side;
  tcp_channel& ch = c->chan[side];
  // Rules installed while it flew judge it now (a delay is decided at departure only).
  const link_layer::judgement j = link_.judge(p.facts(), p.judged_at);
  if (j.act == verdict::action::drop || j.act == verdict::action::hold) {
    lost_on_arrival(*c, side, p, j.reason, j.act == verdict::action::drop);
    return;
  }
  // The client's segments carry the acknowledgement of our SYN-ACK: the
  // first one completes a handshake whose ACK was lost.
  if (p.side == 0 && c->half_open) complete_handshake(*c);
  socket_state* r = table_.find(c->sock[1 - p.side]);
  if (r != nullptr && ((r->conn != c && !r->embryo) || !link_.host(p.to_host).up))
    r = nullptr;  // the socket moved on (closed, reused), or its process is down
  if (r == nullptr && (!p.data.empty() || !p.fin)) {
    // The receiving end is gone: its OS answers with a reset and
    // acknowledges nothing, so the sender retransmits until a reset
    // reaches it. (A lone FIN to a side that closed is acknowledged.)
    send_rst(p.to_host, p.to, p.from_host, p.from, c->id, p.side);
    lost_on_arrival(*c, side, p, drop_code(drop_reason::no_socket), true);
    return;
  }
  link_.record(event_kind::net_deliver, p.to_host, p.seq, p.data.size());
  if (!ch.in_flight.empty() && ch.in_flight.front() == &p) ch.in_flight.pop_front();
  ch.bytes_outstanding -= std::min(ch.bytes_outstanding, p.data.size());
  c->last_heard[0] = c->last_heard[1] = core_.now();  // the segment, and its acknowledgement
  if (socket_state* s = table_.find(c->sock[p.side]); s != nullptr && !s->send_pinned && !p.data.empty())
    s->send_buffer = std::min(buffers.send_max, s->send_buffer + 2 * segment_memory(p.data.size()));
  if (r != nullptr) {
    r->rx.append(p.data.begin(), p.data.end());
    if (p.fin) r->rx_fin = true;
    ready(*r);
  }
  if (socket_state* s = table_.find(c->sock[p.side])) ready(*s);  // the window opened
  link_.drop(&p);
}

// ---- establishment and keep-alive ---------------------------------------------------------

// One side's handshake is done: its send buffer takes the initial
// congestion window's size (Linux reads 87040 on a 1500-byte MTU), and its
// keep-alive clock starts.
void tcp_layer::established(tcp_connection& c, int side) {
  c.last_heard[side] = core_.now();
  socket_state* s = table_.find(c.sock[side]);
  if (s == nullptr) return;
  const link_config& cfg = link_.config(c.host[side], c.host[1 - side]);
  const std::size_t mss = cfg.mtu > 40 + 1 ? cfg.mtu - 40 : 1;
  if (!s->send_pinned)
    s->send_buffer = std::min(buffers.send_max, std::max(s->send_buffer, 2 * initial_window * segment_memory(mss)));
  arm_keepalive(*s);
}

void tcp_layer::arm_keepalive(socket_state& s) {
  tcp_connection* c = s.conn;
  if (c == nullptr || !s.keep_alive || s.failed || s.ended) return;
  auto& ev = c->keepalive[s.side];
  if (!ev) {
    ev = std::make_unique<timed_event>(
        [](timed_event* e) {
          auto* conn = static_cast<tcp_connection*>(e->owner());
          conn->tcp->keepalive(*conn, conn->keepalive[0].get() == e ? 0 : 1);
          conn->tcp->may_be_done(*conn);
        },
        c);
  }
  c->probes[s.side] = 0;
  core_.schedule(*ev, std::max(core_.now(), c->last_heard[s.side] + std::chrono::seconds(s.keep_idle)));
}

// After keep_idle of silence, a probe every keep_interval; keep_count
// unanswered probes fail the connection with timed_out, and a peer whose
// connection is gone answers with a reset. While data waits for its
// acknowledgement, retransmission watches the peer instead.
void tcp_layer::keepalive(tcp_connection& c, int side) {
  socket_state* s = table_.find(c.sock[side]);
  if (s == nullptr || s->conn != &c || !s->keep_alive || s->failed || s->ended) return;
  const duration idle = std::chrono::seconds(s->keep_idle);
  const duration now = core_.now();
  const tcp_channel& ch = c.chan[side];
  if (!ch.queue.empty() || !ch.in_flight.empty() || ch.fin_queued) {
    c.probes[side] = 0;
    core_.schedule(*c.keepalive[side], now + idle);
    return;
  }
  if (now - c.last_heard[side] < idle) {  // heard from the peer since: idle again from then
    c.probes[side] = 0;
    core_.schedule(*c.keepalive[side], c.last_heard[side] + idle);
    return;
  }
  if (c.probes[side] >= s->keep_count) {  // as Linux: one interval after the last probe
    fail(*s, aerr::timed_out);
    return;
  }
  const std::uint32_t from = c.host[side], to = c.host[1 - side];
  const wire_view probe{packet_kind::tcp_ack, from, to, &c.ep[side], &c.ep[1 - side], {}};
  const wire_view answer{packet_kind::tcp_ack, to, from, &c.ep[1 - side], &c.ep[side], {}};
  link_layer::judgement j = link_.judge(probe);
  if (j.act == verdict::action::pass || j.act == verdict::action::delay) j = link_.judge(answer);
  const bool passes = j.act == verdict::action::pass || j.act == verdict::action::delay;
  const bool lost = passes && from != to && link_.stream(from, to).chance(world_core::with_mix(link_.config(from, to).loss, core_.faults().loss));
  const std::uint64_t seq = core_.events().size();
  link_.record(event_kind::net_send, from, seq, to);
  if (!passes || lost) {
    link_.record(event_kind::net_drop, from, seq, lost ? drop_code(drop_reason::lost) : j.reason);
    ++c.probes[side];
    core_.schedule(*c.keepalive[side], now + std::chrono::seconds(s->keep_interval));
    return;
  }
  link_.record(event_kind::net_deliver, to, seq, 0);
  const socket_state* peer = table_.find(c.sock[1 - side]);
  if (peer == nullptr || peer->conn != &c || !link_.host(to).up) {
    fail(*s, aerr::connection_reset);  // the peer's OS no longer knows the connection
    return;
  }
  c.last_heard[side] = now;
  c.probes[side] = 0;
  core_.schedule(*c.keepalive[side], now + idle);
}

// ---- failure and close ------------------------------------------------------------------

void tcp_layer::fail(socket_state& s, boost::system::error_code ec) {
  if (s.failed || s.ended) return;
  // As Linux's tcp_reset: a reset after the peer's FIN (CLOSE_WAIT) is a
  // broken pipe. What arrived before stays readable.
  if (ec == aerr::connection_reset && s.rx_fin) ec = aerr::broken_pipe;
  s.failed = ec;
  s.connecting = false;
  link_.record(event_kind::tcp_reset, s.ctx->host->id, s.conn != nullptr ? s.conn->id : 0,
               static_cast<std::uint64_t>(ec.value()));
  if (s.conn != nullptr) s.ended = true;
  detach_connection(s);
  ready(s);
}

// Forgets the connection on this socket's side: queued data is dropped and
// nothing more is retransmitted.
void tcp_layer::detach_connection(socket_state& s) noexcept {
  tcp_connection* c = s.conn;
  if (c == nullptr) return;
  stop_channel(*c, s.side);
  c->sock[s.side] = 0;
  s.conn = nullptr;
  s.connected = false;
  try {
    may_be_done(*c);
  } catch (...) {
    // Out of memory: the connection stays until the world ends.
  }
}

// Side `side`'s OS forgets the connection: nothing more is (re)transmitted.
void tcp_layer::stop_channel(tcp_connection& c, int side) noexcept {
  tcp_channel& ch = c.chan[side];
  ch.queue.clear();
  ch.fin_queued = false;
  ch.bytes_outstanding = 0;
  if (c.attempt[side]) core_.cancel(*c.attempt[side]);
  if (c.keepalive[side]) core_.cancel(*c.keepalive[side]);
  ch.attempt_scheduled = false;
  c.forgotten[side] = true;
}

void tcp_layer::abort_connection(socket_state& s, bool send_reset) {
  tcp_connection* c = s.conn;
  if (c == nullptr) return;
  if (send_reset) send_rst(c->host[s.side], c->ep[s.side], c->host[1 - s.side], c->ep[1 - s.side], c->id, 1 - s.side);
  link_.record(event_kind::tcp_close, s.ctx->host->id, c->id, send_reset ? 1 : 0);
  detach_connection(s);
}

void tcp_layer::close(socket_state& s) {
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
      // The side that closed first waits in TIME_WAIT (from its close: the
      // peer's FIN usually follows within a round trip).
      if (c->closed_first == s.side) table_.time_wait(s.ctx->host->id, s.local, s.reuse_address, core_.now());
      link_.record(event_kind::tcp_close, s.ctx->host->id, c->id, 0);
      c->sock[s.side] = 0;
      s.conn = nullptr;
      may_be_done(*c);
    }
  }
  // Connections the program never accepted are reset, in the accept queue
  // and in the SYN queue alike.
  std::vector<std::uint64_t> unaccepted(s.accept_queue.begin(), s.accept_queue.end());
  unaccepted.insert(unaccepted.end(), s.syn_queue.begin(), s.syn_queue.end());
  s.accept_queue.clear();
  s.syn_queue.clear();
  for (std::uint64_t id : unaccepted) discard_embryo(id, true);
}

void tcp_layer::power_cut(socket_state& s) {
  // Silence: the machine is gone, peers notice only by their timeouts.
  // What it had on the wire is gone too.
  if (s.conn != nullptr) {
    tcp_channel& ch = s.conn->chan[s.side];
    while (!ch.in_flight.empty()) {
      packet* p = ch.in_flight.front();
      ch.in_flight.pop_front();
      link_.record(event_kind::net_drop, s.ctx->host->id, p->seq, drop_code(drop_reason::power_off));
      link_.drop(p);
    }
  }
  detach_connection(s);
}

void tcp_layer::reset_connections(std::uint32_t a, std::uint32_t b) {
  // By index, in creation order: failing a socket may run no user code
  // (completions are posted), but keeps the order independent of addresses.
  for (std::size_t i = 0; i < connections_.size(); ++i) {
    tcp_connection* c = connections_[i].get();
    if (c == nullptr) continue;
    const bool between = (c->host[0] == a && c->host[1] == b) || (c->host[0] == b && c->host[1] == a);
    if (!between) continue;
    for (int side = 0; side < 2; ++side) {
      socket_state* s = table_.find(c->sock[side]);
      if (s != nullptr && s->conn == c) fail(*s, aerr::connection_reset);
    }
  }
}

}  // namespace simasio::detail
