// socket_ops.cpp — the socket layer: open, bind, listen, close, and each socket's pending operations
#include <simasio/detail/net/socket_ops.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>

#include <algorithm>

#include <poll.h>
#include <utility>

namespace simasio::detail {

namespace aerr = boost::asio::error;

namespace {
constexpr std::size_t max_datagram = 65507;

bool is_v4_mapped(const boost::asio::ip::address& a) { return a.is_v6() && a.to_v6().is_v4_mapped(); }
}  // namespace

boost::system::error_code socket_ops::routed(const socket_state& s, boost::asio::ip::address& a, use u) {
  if (!s.v6) return a.is_v6() ? aerr::address_family_not_supported : boost::system::error_code();
  if (a.is_v4()) {
    // Asio passes an IPv4 endpoint as a 16-byte sockaddr_in, too short for
    // an AF_INET6 socket's bind and TCP connect (EINVAL); UDP takes it as
    // IPv4 unless the socket is v6_only.
    if (s.proto == transport::tcp || u == use::bind) return aerr::invalid_argument;
    if (s.v6_only) return u == use::connect ? aerr::address_family_not_supported : aerr::network_unreachable;
    return {};
  }
  if (is_v4_mapped(a)) {
    if (s.v6_only) return u == use::bind ? aerr::invalid_argument : aerr::network_unreachable;
    a = boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, a.to_v6());
  }
  return {};
}

std::string net_endpoint::to_string() const { return address.to_string() + ":" + std::to_string(port); }

socket_ops::socket_ops(world_core& core) : core_(core), link_(core), udp_(link_, table_), tcp_(link_, table_) {
  udp_.set_ready_hook(&socket_ops::on_ready, this);
  tcp_.set_hooks({&socket_ops::on_ready, &socket_ops::on_connect_done, this});
}

socket_ops::~socket_ops() {
  // Sockets their owners still hold outlive the network: they only free
  // their own state from now on.
  for (std::size_t i = 0; i < table_.size(); ++i)
    if (socket_state* s = table_.at(i); s != nullptr) {
      if (s->connect_timer) core_.cancel(*s->connect_timer);
      s->net = nullptr;
    }
}

void socket_ops::add_host(std::uint32_t id, host_state& state, const boost::asio::ip::address& address) {
  link_.add_host(id, state, address);
  table_.add_host(id);
}

// ---- sockets --------------------------------------------------------------------------

socket_state& socket_ops::create_socket(context_state& ctx, transport proto) {
  socket_state& s = table_.create(ctx, proto);
  s.net = this;
  return s;
}

void socket_ops::destroy_socket(socket_state& s) noexcept {
  // The owner is being destroyed: its handlers cannot destroy it again.
  if (s.open) close(s);
  cancel(s);
  forget_socket(s);
}

void socket_ops::forget_socket(socket_state& s) noexcept {
  if (s.connect_timer) core_.cancel(*s.connect_timer);
  table_.forget(s.id);
  delete &s;
}

boost::system::error_code socket_ops::open(socket_state& s, bool v6) {
  check_alive(s);
  if (s.open) return aerr::already_open;
  reset_state(s);
  s.open = true;
  s.v6 = v6;
  if (s.proto == transport::tcp) {
    tcp_.init_buffers(s);
  } else {
    s.send_buffer = tcp_.buffers.socket_default;
    s.receive_buffer = tcp_.buffers.socket_default;
  }
  return {};
}

boost::system::error_code socket_ops::bind(socket_state& s, const net_endpoint& asked) {
  check_alive(s);
  if (!s.open) return aerr::bad_descriptor;
  net_endpoint ep = asked;
  if (auto ec = routed(s, ep.address, use::bind)) return ec;
  return bind_routed(s, ep);
}

boost::system::error_code socket_ops::bind_routed(socket_state& s, const net_endpoint& ep) {
  if (s.bound) return aerr::invalid_argument;
  const std::uint32_t h = s.ctx->host->id;
  // A UDP socket may bind to a group's address: it receives only that group.
  const bool group = s.proto == transport::udp && ep.address.is_multicast();
  if (!ep.address.is_unspecified() && !ep.address.is_loopback() && !group && link_.host_of(ep.address, h) != h)
    return boost::system::errc::make_error_code(boost::system::errc::address_not_available);
  std::uint16_t port = ep.port;
  if (port == 0) {
    port = table_.ephemeral_port(h, s.proto);
    if (port == 0) return aerr::address_in_use;
  } else if (auto ec = table_.may_bind(h, s, ep.address, port, core_.now())) {
    return ec;
  }
  table_.bind(h, s.proto, port, s.id);
  s.bound = true;
  s.local = net_endpoint{ep.address, port};
  return {};
}

// An implicit bind (listen, send_to): the wildcard of the socket's family, an ephemeral port.
boost::system::error_code socket_ops::bind_any(socket_state& s) {
  return bind_routed(s, net_endpoint{s.v6 ? boost::asio::ip::address(boost::asio::ip::address_v6::any())
                                   : boost::asio::ip::address(boost::asio::ip::address_v4::any()),
                              0});
}

boost::system::error_code socket_ops::listen(socket_state& s, int backlog) {
  check_alive(s, "TCP acceptor");
  if (!s.open) return aerr::bad_descriptor;
  if (!s.bound)
    if (auto ec = bind_any(s)) return ec;
  if (!table_.may_listen(s.ctx->host->id, s)) return aerr::address_in_use;
  s.listening = true;
  s.backlog = std::clamp(backlog, 0, 4096);  // net.core.somaxconn caps it; Linux keeps one more than this
  return {};
}

std::size_t socket_ops::available(const socket_state& s) const noexcept {
  if (s.proto == transport::udp) return s.datagrams.empty() ? 0 : s.datagrams.front().data.size();
  return s.rx.size();
}

boost::system::error_code socket_ops::close(socket_state& s) {
  if (!s.open) return aerr::bad_descriptor;
  tcp_.close(s);
  udp_.leave_all_groups(s);
  if (s.bound) table_.unbind(s.ctx->host->id, s);
  reset_state(s);
  cancel(s);  // last: completing may destroy the socket
  return {};
}

// Back to a fresh, closed socket, keeping identity (id, context, protocol)
// and any operations still queued on it.
void socket_ops::reset_state(socket_state& s) noexcept {
  socket_state fresh;
  fresh.id = s.id;
  fresh.ctx = s.ctx;
  fresh.incarnation = s.incarnation;
  fresh.owner = s.owner;
  fresh.proto = s.proto;
  fresh.pending_head = s.pending_head;
  fresh.pending_tail = s.pending_tail;
  fresh.net = s.net;
  fresh.tcp = s.tcp;
  fresh.connect_timer = std::move(s.connect_timer);  // idle: close() cancelled it
  fresh.on_change = s.on_change;
  fresh.watcher = s.watcher;
  s = std::move(fresh);
}

boost::system::error_code socket_ops::shutdown(socket_state& s, bool send, bool receive) {
  if (!s.open) return aerr::bad_descriptor;
  if (s.proto == transport::tcp && !s.connected) return aerr::not_connected;
  s.connect_result = socket_state::uncollected::none;  // Linux's shutdown ends SS_CONNECTING: connect() is EISCONN now
  if (send && !s.tx_shutdown && s.conn != nullptr) {
    s.tx_shutdown = true;
    tcp_.shutdown_send(s);
  }
  if (receive) s.rx_shutdown = true;
  pump(s);
  return {};
}

void socket_ops::host_crashed(std::uint32_t host, bool power) {
  // By index: closing one socket may destroy (or create) others.
  for (std::size_t i = 0; i < table_.size(); ++i) {
    socket_state* s = table_.at(i);
    if (s == nullptr || s->ctx->host->id != host) continue;
    if (power) {
      tcp_.power_cut(*s);
      udp_.leave_all_groups(*s);
      s->connecting = false;
    } else if (s->open) {
      // The OS closes what the process left open: RST where data was unread, else FIN.
      close(*s);
    }
  }
  table_.clear_ports(host);
  if (power) table_.clear_time_wait(host);
}

void socket_ops::close_owned(std::uint32_t owner) {
  for (std::size_t i = 0; i < table_.size(); ++i) {  // by index: closing may destroy or create sockets
    socket_state* s = table_.at(i);
    if (s != nullptr && s->open && s->owner == owner) close(*s);
  }
}

// ---- UDP -------------------------------------------------------------------------------

boost::system::error_code socket_ops::send_to(socket_state& s, boost::span<const boost::asio::const_buffer> data,
                                              const net_endpoint& to, std::size_t& bytes) {
  check_alive(s);  // before anything is sent
  bytes = 0;
  if (!s.open) return aerr::bad_descriptor;
  std::size_t size = 0;
  for (const auto& b : data) size += b.size();
  if (size > max_datagram) return aerr::message_size;
  net_endpoint routed_to = to;
  if (auto ec = routed(s, routed_to.address, use::send)) return ec;
  if (!s.bound)
    if (auto ec = bind_any(s)) return ec;
  if (auto ec = udp_.send(s, data, size, routed_to)) return ec;
  bytes = size;
  return {};
}

boost::system::error_code socket_ops::join_group(socket_state& s, const boost::asio::ip::address& group) {
  check_alive(s);
  if (!s.open) return aerr::bad_descriptor;
  return udp_.join_group(s, group);
}

boost::system::error_code socket_ops::leave_group(socket_state& s, const boost::asio::ip::address& group) {
  check_alive(s);
  if (!s.open) return aerr::bad_descriptor;
  return udp_.leave_group(s, group);
}

// ---- connect ----------------------------------------------------------------------------

// Completes the oldest pending connect of s with ec; false when none is pending.
bool socket_ops::complete_connect(socket_state& s, boost::system::error_code ec) {
  for (sock_op* op = s.pending_head; op != nullptr; op = op->next_pending_)
    if (op->kind_ == sock_op::kind::connect) {
      // An asynchronous (non-blocking) connect leaves its result for the
      // next connect() to collect, as Linux's SS_CONNECTING does.
      if (s.proto == transport::tcp && !op->direct_ && ec != aerr::already_connected && ec != aerr::already_started &&
          ec != aerr::operation_aborted)
        s.connect_result = ec ? socket_state::uncollected::failed : socket_state::uncollected::succeeded;
      complete(*op, ec, 0);
      return true;
    }
  return false;
}

void socket_ops::on_connect_done(void* self, socket_state& s, boost::system::error_code ec) {
  auto& ops = *static_cast<socket_ops*>(self);
  // A handshake that failed leaves the socket done, as Linux's tcp_done:
  // reads then see eof, not not_connected.
  if (ec) s.ended = true;
  ops.complete_connect(s, ec);
  ops.pump(s);
}

void socket_ops::start_connect(socket_state& s, const net_endpoint& asked) {
  if (s.proto == transport::tcp && s.connect_result != socket_state::uncollected::none) {
    // Linux's SS_CONNECTING, collected: success if the connection still
    // lives, else its pending error (once) or connection_aborted.
    boost::system::error_code ec;
    if (s.connect_result == socket_state::uncollected::failed) ec = aerr::connection_aborted;
    else if (s.ended) ec = s.failed ? std::exchange(s.failed, {}) : boost::system::error_code(aerr::connection_aborted);
    s.connect_result = socket_state::uncollected::none;
    if (ec) {  // Linux disconnects it (SS_UNCONNECTED): reads are not_connected, connect may start again
      s.established_once = false;
      s.ended = false;
    }
    for (sock_op* op = s.pending_head; op != nullptr; op = op->next_pending_)
      if (op->kind_ == sock_op::kind::connect) {
        complete(*op, ec, 0);
        return;
      }
    return;
  }
  // Once connected, a TCP socket stays so for connect() even after a reset
  // (Linux's SS_CONNECTED); a UDP socket may connect again, to another peer.
  if (s.proto == transport::tcp && (s.connected || (s.ended && s.established_once))) {
    if (s.connected) pump(s);  // (not after a reset: pump would hand the connect its error)
    complete_connect(s, aerr::already_connected);
    return;
  }
  net_endpoint to = asked;
  if (auto ec = routed(s, to.address, use::connect)) {
    complete_connect(s, ec);
    return;
  }
  const std::uint32_t h = s.ctx->host->id;
  if (!s.bound) {
    if (auto ec = bind_any(s))
      if (complete_connect(s, ec)) return;
  }
  if (s.local.address.is_unspecified()) {
    s.local.address = link_.source_address(h, to.address);
    if (s.local.address.is_unspecified()) {  // this host has no address of that family
      complete_connect(s, aerr::network_unreachable);
      return;
    }
  } else if (s.local.address.is_loopback() && !to.address.is_loopback() && link_.host_of(to.address, h) != h) {
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
  tcp_.connect(s);
}

// ---- pending operations -------------------------------------------------------------------

void socket_ops::unlink(socket_state& s, sock_op& op) noexcept {
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

void socket_ops::take_pending(socket_state& s, std::vector<sock_op*>& out) noexcept {
  while (s.pending_head != nullptr) {
    sock_op* op = s.pending_head;
    s.pending_head = op->next_pending_;
    op->next_pending_ = nullptr;
    op->sock_ = nullptr;
    out.push_back(op);
  }
  s.pending_tail = nullptr;
}

void socket_ops::complete(sock_op& op, boost::system::error_code ec, std::size_t bytes) {
  unlink(*op.sock_, op);
  finish(op, ec, bytes);
}

// Hands an unlinked operation over. Handing over may destroy its handler
// (its host is down) and with it the socket: nothing here touches the socket.
void socket_ops::finish(sock_op& op, boost::system::error_code ec, std::size_t bytes) {
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

void socket_ops::cancel(socket_state& s) noexcept {
  // Unlink all first: completing one may destroy the socket.
  std::vector<sock_op*> ops;
  take_pending(s, ops);
  for (sock_op* op : ops) finish(*op, aerr::operation_aborted, 0);
}

void socket_ops::cancel_op(sock_op& op) noexcept {
  if (op.sock_ != nullptr) complete(op, aerr::operation_aborted, 0);
}

void socket_ops::abandon(context_state& ctx) noexcept {
  std::vector<sock_op*> ops;
  table_.for_each_on_host(ctx.host->id, [&](socket_state& s) {
    if (s.ctx == &ctx) take_pending(s, ops);
  });
  for (sock_op* op : ops) {
    op->destroy();
    --ctx.work;
  }
}

void socket_ops::describe_pending(const context_state& ctx, std::vector<std::string>& out) const {
  static const char* names[] = {"async_read_some", "async_write_some", "async_connect", "async_accept",
                                "async_wait(wait_read)", "async_wait(wait_write)", "async_wait(wait_error)",
                                "async_receive_from"};
  table_.for_each_on_host(ctx.host->id, [&](const socket_state& s) {
    if (s.ctx != &ctx) return;
    for (const sock_op* op = s.pending_head; op != nullptr; op = op->next_pending_) {
      std::string what = s.proto == transport::tcp ? (s.listening ? "tcp acceptor " : "tcp socket ") : "udp socket ";
      what += s.local.to_string();
      if (s.connected || s.connecting) what += " -> " + s.remote.to_string();
      out.push_back(what + ": " + names[static_cast<int>(op->kind_)]);
    }
  });
}

void socket_ops::start(socket_state& s, sock_op& op) {
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
void socket_ops::pump(socket_state& s) {
  if (s.on_change != nullptr) s.on_change(s.watcher);
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
          accept(s, *op);
        } else {
          accept_blocked = true;
        }
        break;
      // Readiness, as poll reports it: a failed connection is readable and
      // writable (the read or write then reports the error).
      case sock_op::kind::wait_read:
        if (readable(s)) complete(*op, {}, 0);
        break;
      case sock_op::kind::wait_write:
        if (writable(s)) complete(*op, {}, 0);
        break;
      case sock_op::kind::wait_error:
        if (s.failed) complete(*op, {}, 0);
        break;
      case sock_op::kind::connect:
        if (s.failed && !s.connecting) complete(*op, std::exchange(s.failed, {}), 0);  // reset during the handshake
        break;  // otherwise completed by the handshake
    }
    op = next;
  }
}

bool socket_ops::readable(const socket_state& s) const noexcept {
  return s.failed || s.ended || !s.rx.empty() || s.rx_fin || s.rx_shutdown || !s.accept_queue.empty() ||
         !s.datagrams.empty();
}

bool socket_ops::writable(const socket_state& s) const noexcept {
  return s.proto == transport::udp || s.failed || s.ended || s.tx_shutdown ||
         (s.connected && s.conn != nullptr && write_room(s) > 0);
}

unsigned socket_ops::poll_events(const socket_state& s) const noexcept {
  if (!s.open) return POLLNVAL;
  unsigned mask = 0;
  if (s.failed) mask |= POLLERR;
  if (s.proto == transport::udp) {
    if (!s.datagrams.empty()) mask |= POLLIN;
    if (s.rx_shutdown) mask |= POLLIN | POLLRDHUP;
    if (s.rx_shutdown && s.tx_shutdown) mask |= POLLHUP;
    return mask | POLLOUT;
  }
  if (s.listening) return s.accept_queue.empty() ? mask : mask | POLLIN;
  const bool rcv_shutdown = s.rx_fin || s.rx_shutdown || s.ended;
  const bool closed = !s.connected && !s.connecting;  // TCP_CLOSE: never connected, or done
  if ((rcv_shutdown && s.tx_shutdown) || closed) mask |= POLLHUP;
  if (rcv_shutdown) mask |= POLLIN | POLLRDHUP;
  if (!s.connecting || s.connected) {  // not SYN_SENT
    if (!s.rx.empty()) mask |= POLLIN;
    if (s.tx_shutdown || closed || (s.conn != nullptr && write_room(s) > 0)) mask |= POLLOUT;
  }
  return mask;
}

// The oldest connection the network accepted moves into the caller's socket.
void socket_ops::accept(socket_state& listener, sock_op& op) {
  const std::uint64_t id = listener.accept_queue.front();
  listener.accept_queue.pop_front();
  socket_state* embryo = table_.find(id);
  socket_state& into = *op.accept_into_;
  const std::uint64_t into_id = into.id;
  context_state* into_ctx = into.ctx;
  const std::uint32_t into_incarnation = into.incarnation;
  auto* const into_on_change = into.on_change;
  void* const into_watcher = into.watcher;
  into = std::move(*embryo);
  into.on_change = into_on_change;
  into.watcher = into_watcher;
  into.id = into_id;
  into.ctx = into_ctx;
  into.incarnation = into_incarnation;
  into.net = this;
  into.pending_head = into.pending_tail = nullptr;
  if (into.conn != nullptr) into.conn->sock[into.side] = into_id;
  table_.forget(id);
  delete embryo;
  if (op.sender_ != nullptr) op.write_sender_(op.sender_, as_seen(into.v6, into.remote));
  into.embryo = false;
  complete(op, {}, 0);  // like Linux: a connection reset meanwhile shows on the first read
}

bool socket_ops::try_read(socket_state& s, sock_op& op) {
  if (s.proto == transport::udp) {
    if (s.failed) {  // ICMP port unreachable on a connected socket, reported once (before queued datagrams, as Linux)
      complete(op, std::exchange(s.failed, {}), 0);
      return true;
    }
    if (s.datagrams.empty()) return false;
    datagram& d = s.datagrams.front();
    std::size_t copied = 0;
    for (std::size_t i = 0; i < op.nbufs_ && copied < d.data.size(); ++i)
      copied += boost::asio::buffer_copy(op.bufs_[i], boost::asio::buffer(d.data.data() + copied, d.data.size() - copied));
    if (op.sender_ != nullptr) op.write_sender_(op.sender_, as_seen(s.v6, d.from));
    if (!op.peek_) {
      s.datagram_bytes -= datagram_memory(d.data.size());
      link_.keep_buffer(std::move(d.data));
      s.datagrams.pop_front();
    }
    complete(op, {}, copied);
    return true;
  }
  const std::size_t cap = op.capacity();
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
    if (consumed) {
      s.rx.pop_front(copied);
      tcp_.consumed(s, copied);
    }
    complete(op, {}, copied);  // a synchronous op frees itself here
    // Reading opened the peer's window.
    if (consumed && s.conn != nullptr)
      if (socket_state* peer = table_.find(s.conn->sock[1 - s.side])) pump(*peer);
    return true;
  }
  // As Linux's tcp_recvmsg: after the peer's FIN, eof; else a pending
  // error, once; then eof on a connection that died.
  if (s.rx_fin || s.rx_shutdown) {
    complete(op, aerr::eof, 0);
    return true;
  }
  if (s.failed) {
    complete(op, std::exchange(s.failed, {}), 0);
    return true;
  }
  if (s.ended) {
    complete(op, aerr::eof, 0);
    return true;
  }
  if (!s.connected && !s.connecting) {
    complete(op, aerr::not_connected, 0);
    return true;
  }
  return false;
}

// What a connected TCP socket's write may queue now: its send buffer plus
// the peer's receive window (half the peer's receive buffer, as Linux
// advertises with tcp_adv_win_scale 1), less what is queued, in flight, or
// delivered and unread.
std::size_t socket_ops::write_room(const socket_state& s) const {
  const tcp_channel& ch = s.conn->chan[s.side];
  const socket_state* peer = table_.find(s.conn->sock[1 - s.side]);
  const std::size_t used = ch.bytes_outstanding + (peer != nullptr ? peer->rx.size() : 0);
  const std::size_t limit = s.send_buffer + (peer != nullptr ? peer->receive_buffer / 2 : 0);
  return used >= limit ? 0 : limit - used;
}

bool socket_ops::try_write(socket_state& s, sock_op& op) {
  if (s.proto == transport::udp) {
    complete(op, op.ec_, op.bytes_);  // UDP sends are decided at initiation
    return true;
  }
  // As Linux's tcp_sendmsg: a pending error, once; then (and on a socket
  // that never connected, or after shutdown) a broken pipe.
  if (s.failed) {
    complete(op, std::exchange(s.failed, {}), 0);
    return true;
  }
  if (s.tx_shutdown) {
    complete(op, aerr::broken_pipe, 0);
    return true;
  }
  if (!s.connected) {
    if (s.connecting) return false;
    complete(op, aerr::broken_pipe, 0);
    return true;
  }
  const std::size_t cap = op.capacity();
  if (cap == 0) {
    complete(op, {}, 0);
    return true;
  }
  const std::size_t room = write_room(s);
  if (room == 0) return false;  // the buffers are full: wait for the peer to read
  std::size_t n = std::min(cap, room);
  // Writes may be accepted partially (link_config::partial_writes): the seed decides.
  const std::uint32_t from = s.conn->host[s.side], to = s.conn->host[1 - s.side];
  rng& r = link_.stream(from, to);
  if (const double p = link_.config(from, to).partial_writes; n > 1 && p > 0 && r.chance(p)) n = 1 + r.below(n - 1);
  std::vector<char> bytes = std::move(write_scratch_);  // its capacity, safe from a nested write
  bytes.resize(n);
  std::size_t copied = 0;
  for (std::size_t i = 0; i < op.nbufs_ && copied < n; ++i) {
    const std::size_t k = std::min(op.bufs_[i].size(), n - copied);
    std::copy_n(static_cast<const char*>(op.bufs_[i].data()), k, bytes.data() + copied);
    copied += k;
  }
  complete(op, {}, n);
  tcp_.send(s, bytes);
  if (bytes.capacity() <= 64 * 1024) write_scratch_ = std::move(bytes);  // not the largest write for good
  return true;
}

}  // namespace simasio::detail
