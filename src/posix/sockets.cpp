// sockets.cpp — POSIX socket calls of a simulated process, on the simulated network
//
// socket, bind, listen, accept, connect, send*, recv*, shutdown,
// getsockopt/setsockopt, getsockname/getpeername: each one a call into the
// same socket layer simasio's own sockets use (socket_ops), as a
// synchronous operation that never waits there. A blocking call that
// would have to wait suspends the process until the socket changes
// (block_on) and tries again; a non-blocking one fails with EAGAIN, as
// Linux's do. Errors are Linux's errno values.
#include "descriptors.hpp"

#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/interpose.hpp>
#include <simasio/detail/net/socket_ops.hpp>
#include <simasio/world.hpp>

#include <boost/asio/error.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

namespace simasio::detail::posix {

namespace {

namespace aerr = boost::asio::error;

struct socket_desc;

// A synchronous operation of the socket layer: it completes inside start()
// (never_wait), or, for a TCP connect, when the handshake ends.
struct direct_op final : sock_op {
  direct_op() noexcept : sock_op(&on_complete) {
    direct_ = true;
    non_blocking_ = true;
  }
  bool done = false;
  socket_desc* connect_of = nullptr;  // a connect: the descriptor its end goes to
  static void on_complete(operation* op, bool invoke);
};

struct socket_desc final : desc_object {
  socket_desc(world_core& c, std::uint32_t o, socket_ops& n, socket_state& st, int d, int t)
      : desc_object(desc_kind::socket, c, o), net(&n), s(&st), domain(d), type(t) {
    s->on_change = &socket_desc::on_change;
    s->watcher = this;
  }
  ~socket_desc() override { close_socket(); }

  socket_ops* net;
  socket_state* s;
  int domain;
  int type;  // SOCK_STREAM or SOCK_DGRAM
  // A TCP handshake under way, and whether its end is left for a later
  // connect() (or shutdown()) to collect: the call that started it returned
  // EINPROGRESS or was interrupted (Linux's SS_CONNECTING). The end is then
  // the socket layer's connect_result, which collects it as the alias path's.
  bool connecting = false;
  bool collect_later = false;
  int so_error = 0;  // a failed handshake's error until SO_ERROR or connect() takes it
  direct_op connect_op;

  static void on_change(void* self) { static_cast<socket_desc*>(self)->changed(); }

  unsigned events() const noexcept override {
    unsigned m = net->poll_events(*s);
    if (so_error != 0) m |= POLLERR;
    return m;
  }
  long read_some(void*, std::size_t) override { return -EBADF; }   // read(): recvmsg
  long write_some(const void*, std::size_t) override { return -EBADF; }
  void last_close() noexcept override { close_socket(); }

  void close_socket() noexcept {
    if (s == nullptr) return;
    s->on_change = nullptr;
    s->watcher = nullptr;
    if (connect_op.sock_ != nullptr) net->cancel_op(connect_op);
    socket_state* st = std::exchange(s, nullptr);
    if (st->ctx->core != nullptr && st->net != nullptr) net->destroy_socket(*st);
    else if (st->net != nullptr) st->net->forget_socket(*st);
    else delete st;
  }
};

void direct_op::on_complete(operation* op, bool) {
  auto* o = static_cast<direct_op*>(op);
  o->done = true;
  if (socket_desc* d = o->connect_of) {
    d->connecting = false;
    if (o->ec_ != aerr::operation_aborted) {
      if (o->ec_) d->so_error = o->ec_.value();
      if (d->collect_later && d->s != nullptr)
        d->s->connect_result = o->ec_ ? socket_state::uncollected::failed : socket_state::uncollected::succeeded;
    }
    d->collect_later = false;
    if (d->s != nullptr) d->changed();
  }
}

int errno_of(const boost::system::error_code& ec) noexcept {
  if (ec.category() == boost::system::system_category() || ec.category() == boost::system::generic_category())
    return ec.value();
  if (ec == aerr::already_open) return EISCONN;
  if (ec == aerr::already_started) return EALREADY;
  if (ec == aerr::not_found) return ENOENT;
  return EIO;
}

// The socket behind fd, held for the length of a call: another thread of
// the process may close the descriptor while this one waits (the call then
// fails with EBADF; Linux's would finish on the open file).
socket_desc* socket_of(int fd, int& e, std::shared_ptr<desc_object>& keep) noexcept {
  keep = shared(fd);
  desc_object* d = keep.get();
  if (d == nullptr) {
    e = EBADF;
    return nullptr;
  }
  if (d->kind != desc_kind::socket) {
    e = ENOTSOCK;
    return nullptr;
  }
  auto* s = static_cast<socket_desc*>(d);
  if (s->s == nullptr || s->s->net == nullptr) {
    e = EBADF;
    return nullptr;
  }
  return s;
}

}  // namespace

bool endpoint_of(const sockaddr* a, socklen_t len, net_endpoint& ep, int& e) noexcept {
  if (a == nullptr || len < sizeof(sa_family_t)) {
    e = EINVAL;
    return false;
  }
  if (a->sa_family == AF_INET) {
    if (len < sizeof(sockaddr_in)) {
      e = EINVAL;
      return false;
    }
    sockaddr_in in;
    std::memcpy(&in, a, sizeof in);
    ep.address = boost::asio::ip::address_v4(ntohl(in.sin_addr.s_addr));
    ep.port = ntohs(in.sin_port);
    return true;
  }
  if (a->sa_family == AF_INET6) {
    if (len < sizeof(sockaddr_in6)) {
      e = EINVAL;
      return false;
    }
    sockaddr_in6 in6;
    std::memcpy(&in6, a, sizeof in6);
    boost::asio::ip::address_v6::bytes_type bytes;
    std::memcpy(bytes.data(), &in6.sin6_addr, bytes.size());
    ep.address = boost::asio::ip::address_v6(bytes, in6.sin6_scope_id);
    ep.port = ntohs(in6.sin6_port);
    return true;
  }
  e = EAFNOSUPPORT;
  return false;
}

namespace {

// Writes ep as the socket's family shows it; *len becomes its full size.
void write_endpoint(bool v6, const net_endpoint& raw, sockaddr* out, socklen_t* len) noexcept {
  if (out == nullptr || len == nullptr) return;
  const net_endpoint ep = as_seen(v6, raw);
  sockaddr_storage st{};
  socklen_t size = 0;
  if (ep.address.is_v4()) {
    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_port = htons(ep.port);
    in.sin_addr.s_addr = htonl(ep.address.to_v4().to_uint());
    std::memcpy(&st, &in, sizeof in);
    size = sizeof in;
  } else {
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    in6.sin6_port = htons(ep.port);
    const auto bytes = ep.address.to_v6().to_bytes();
    std::memcpy(&in6.sin6_addr, bytes.data(), bytes.size());
    in6.sin6_scope_id = ep.address.to_v6().scope_id();
    std::memcpy(&st, &in6, sizeof in6);
    size = sizeof in6;
  }
  std::memcpy(out, &st, std::min<socklen_t>(*len, size));
  *len = size;
}

net_endpoint wildcard(bool v6) {
  return {v6 ? boost::asio::ip::address(boost::asio::ip::address_v6::any())
             : boost::asio::ip::address(boost::asio::ip::address_v4::any()),
          0};
}

// Runs one synchronous operation on the socket: it has completed when this
// returns, but for a TCP connect still in its handshake, which completes
// later (its unit of work stays counted until then).
void run_op(socket_desc& d, direct_op& op) {
  ++d.s->ctx->work;
  d.net->start(*d.s, op);
  if (!op.done) op.ec_ = aerr::would_block;
}

socket_ops& net_of_world() { return access::net(*current_world()); }

void capture(direct_op& op, const msghdr* msg) {
  op.nbufs_ = 0;
  for (std::size_t i = 0; i < msg->msg_iovlen && op.nbufs_ < sock_op::max_buffers; ++i)
    op.bufs_[op.nbufs_++] = boost::asio::mutable_buffer(msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
}

std::size_t total(const msghdr* msg) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < msg->msg_iovlen; ++i) n += msg->msg_iov[i].iov_len;
  return n;
}

bool may_wait(const socket_desc& d, int flags) { return !d.non_blocking && (flags & MSG_DONTWAIT) == 0; }

}  // namespace

}  // namespace simasio::detail::posix

namespace simasio::detail::interpose {

using namespace posix;

int socket_available(posix::desc_object& d) {
  auto& s = static_cast<socket_desc&>(d);
  if (s.s != nullptr && s.s->listening) return -EINVAL;  // Linux's FIONREAD on a listening socket
  return s.s != nullptr && s.s->net != nullptr ? static_cast<int>(s.net->available(*s.s)) : 0;
}

int posix_socket(int domain, int type, int protocol) {
  const int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (domain != AF_INET && domain != AF_INET6) {
    if (domain == AF_UNIX || domain == AF_PACKET || domain == AF_NETLINK) {
      refuse((std::string("simasio: socket(") + (domain == AF_UNIX ? "AF_UNIX" : domain == AF_PACKET ? "AF_PACKET" : "AF_NETLINK") +
              ", ...) in a simulated process: only IPv4 and IPv6 sockets (and socketpair) are simulated, and a real "
              "one would reach the test machine. Use TCP or UDP between the world's hosts.")
                 .c_str());
    }
    return fail(EAFNOSUPPORT);
  }
  transport proto;
  if (kind == SOCK_STREAM && (protocol == 0 || protocol == IPPROTO_TCP)) proto = transport::tcp;
  else if (kind == SOCK_DGRAM && (protocol == 0 || protocol == IPPROTO_UDP)) proto = transport::udp;
  else return fail(kind == SOCK_STREAM || kind == SOCK_DGRAM ? EPROTONOSUPPORT : ESOCKTNOSUPPORT);
  world_core& c = *running_core_tls;
  const std::uint32_t owner = posix::caller(c);
  socket_ops& net = net_of_world();
  socket_state& s = net.create_socket(c.owner_context(owner), proto);
  if (auto ec = net.open(s, domain == AF_INET6)) {
    net.destroy_socket(s);
    return fail(errno_of(ec));
  }
  auto d = std::make_shared<socket_desc>(c, owner, net, s, domain, kind);
  d->non_blocking = (type & SOCK_NONBLOCK) != 0;
  return posix::install(std::move(d), (type & SOCK_CLOEXEC) != 0);
}

int posix_socketpair(int domain, int type, int protocol, int* sv) {
  const int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (domain != AF_UNIX) return fail(EOPNOTSUPP);
  if (kind != SOCK_STREAM || protocol != 0) {
    refuse("simasio: socketpair() in a simulated process makes stream pairs (SOCK_STREAM) only; a datagram or "
           "seqpacket pair is not simulated.");
    return fail(EPROTONOSUPPORT);
  }
  const int flags = ((type & SOCK_NONBLOCK) != 0 ? O_NONBLOCK : 0) | ((type & SOCK_CLOEXEC) != 0 ? O_CLOEXEC : 0);
  return posix_pipe(sv, flags, true);
}

int posix_bind(int fd, const sockaddr* addr, socklen_t len) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) return fail(e);
  net_endpoint ep;
  if (!endpoint_of(addr, len, ep, e)) return fail(e);
  if (auto ec = d->net->bind(*d->s, ep)) return fail(errno_of(ec));
  return 0;
}

int posix_listen(int fd, int backlog) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) return fail(e);
  if (d->type != SOCK_STREAM) return fail(EOPNOTSUPP);
  if (auto ec = d->net->listen(*d->s, backlog)) return fail(errno_of(ec));
  d->changed();
  return 0;
}

int posix_accept(int fd, sockaddr* addr, socklen_t* len, int flags) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) return fail(e);
  if (!d->s->listening) return fail(EINVAL);
  world_core& c = *d->core;
  const bool ok = wait_for(c, {d}, duration::max(), "accept()", [&] {
    return d->s == nullptr || !d->s->listening || !d->s->accept_queue.empty() || d->non_blocking;
  });
  if (!ok) return -1;
  if (d->s == nullptr) return fail(EBADF);
  if (!d->s->listening) return fail(EINVAL);
  if (d->s->accept_queue.empty()) return fail(EAGAIN);
  const std::uint32_t owner = posix::caller(c);
  socket_state& into = d->net->create_socket(c.owner_context(owner), transport::tcp);
  direct_op op;
  op.kind_ = sock_op::kind::accept;
  op.accept_into_ = &into;
  net_endpoint peer;
  op.sender_ = &peer;
  op.write_sender_ = [](void* target, const net_endpoint& from) { *static_cast<net_endpoint*>(target) = from; };
  run_op(*d, op);
  if (op.ec_) {
    d->net->destroy_socket(into);
    return fail(errno_of(op.ec_));
  }
  auto a = std::make_shared<socket_desc>(c, owner, *d->net, into, d->domain, SOCK_STREAM);
  a->non_blocking = (flags & SOCK_NONBLOCK) != 0;
  const int nfd = posix::install(std::move(a), (flags & SOCK_CLOEXEC) != 0);
  if (nfd >= 0) write_endpoint(false, peer, addr, len);  // the op wrote it as the listener's family sees it
  return nfd;
}

int posix_connect(int fd, const sockaddr* addr, socklen_t len) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) return fail(e);
  socket_state& s = *d->s;
  if (addr != nullptr && len >= sizeof(sa_family_t) && addr->sa_family == AF_UNSPEC) {
    if (s.proto == transport::udp) {  // dissolves the association
      s.connected = false;
      s.remote = {};
      return 0;
    }
    return fail(EOPNOTSUPP);
  }
  // A handshake already under way: EALREADY, or wait for it.
  if (d->connecting && d->non_blocking) return fail(EALREADY);
  if (!d->connecting) {
    // The end of an earlier handshake not yet collected (SS_CONNECTING):
    // the socket layer answers it, with no address needed.
    const bool collecting = s.proto == transport::tcp && s.connect_result != socket_state::uncollected::none;
    net_endpoint ep;
    if (!collecting && !endpoint_of(addr, len, ep, e)) return fail(e);
    direct_op& op = d->connect_op;
    op.done = false;
    op.ec_ = {};
    op.kind_ = sock_op::kind::connect;
    op.target_ = ep;
    op.connect_of = s.proto == transport::tcp ? d : nullptr;
    d->connecting = true;
    run_op(*d, op);
    if (op.done) {  // decided at once: collected, a UDP peer, an error, already connected
      d->connecting = false;
      int err = op.ec_ ? errno_of(op.ec_) : 0;
      // Linux: the socket's pending error if any, else ECONNABORTED.
      if (collecting && op.ec_ == aerr::connection_aborted && d->so_error != 0) err = d->so_error;
      d->so_error = 0;
      return err != 0 ? fail(err) : 0;
    }
    if (d->non_blocking) {
      d->collect_later = true;
      return fail(EINPROGRESS);
    }
  }
  const bool ok = wait_for(*d->core, {d}, duration::max(), "connect()", [&] { return d->s == nullptr || !d->connecting; });
  if (!ok) {
    if (d->s != nullptr && d->connecting) d->collect_later = true;  // it goes on; a later connect() collects it
    return -1;
  }
  if (d->s == nullptr) return fail(EBADF);
  if (d->connect_op.ec_) {
    d->so_error = 0;
    return fail(errno_of(d->connect_op.ec_));
  }
  return 0;
}

long posix_sendmsg(int fd, const msghdr* msg, int flags) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) {
    if (e == ENOTSOCK) {  // a socketpair's end
      if (desc_object* o = find(fd); o != nullptr && o->kind == desc_kind::stream_end)
        return desc_writev(fd, msg->msg_iov, static_cast<int>(msg->msg_iovlen));
    }
    return fail(e);
  }
  socket_state& s = *d->s;
  world_core& c = *d->core;
  if (s.proto == transport::udp) {
    net_endpoint to;
    if (msg->msg_name != nullptr && msg->msg_namelen > 0) {
      if (!endpoint_of(static_cast<const sockaddr*>(msg->msg_name), msg->msg_namelen, to, e)) return fail(e);
    } else if (s.connected) {
      to = s.remote;
    } else {
      return fail(EDESTADDRREQ);
    }
    std::vector<boost::asio::const_buffer> bufs;
    for (std::size_t i = 0; i < msg->msg_iovlen; ++i) bufs.emplace_back(msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
    std::size_t bytes = 0;
    if (auto ec = d->net->send_to(s, bufs, to, bytes)) return fail(errno_of(ec));
    return static_cast<long>(bytes);
  }
  const std::size_t want = total(msg);
  std::size_t sent = 0;
  // A blocking send queues everything before it returns; a non-blocking
  // one what fits now.
  msghdr rest = *msg;
  std::vector<iovec> iov(msg->msg_iov, msg->msg_iov + msg->msg_iovlen);
  for (;;) {
    // The part not yet sent.
    std::size_t skip = sent;
    std::vector<iovec> left;
    for (const iovec& v : iov) {
      if (skip >= v.iov_len) {
        skip -= v.iov_len;
        continue;
      }
      left.push_back(iovec{static_cast<char*>(v.iov_base) + skip, v.iov_len - skip});
      skip = 0;
    }
    rest.msg_iov = left.data();
    rest.msg_iovlen = left.size();
    if (d->s == nullptr) return sent > 0 ? static_cast<long>(sent) : fail(EBADF);
    direct_op op;
    op.kind_ = sock_op::kind::write;
    capture(op, &rest);
    run_op(*d, op);
    if (!op.ec_) {
      sent += op.bytes_;
      if (sent >= want || !may_wait(*d, flags)) return static_cast<long>(sent);
      continue;
    }
    if (op.ec_ != aerr::would_block) {
      if (sent > 0) return static_cast<long>(sent);
      const int err = errno_of(op.ec_);
      if (err == EPIPE && (flags & MSG_NOSIGNAL) == 0) process_raise(SIGPIPE);
      return fail(err);
    }
    if (!may_wait(*d, flags)) return sent > 0 ? static_cast<long>(sent) : fail(EAGAIN);
    const bool ok = wait_for(c, {d}, duration::max(), "send() on a full socket", [&] {
      return d->s == nullptr || (d->events() & (POLLOUT | POLLERR | POLLHUP)) != 0;
    });
    if (!ok) return sent > 0 ? static_cast<long>(sent) : -1;
  }
}

long posix_recvmsg(int fd, msghdr* msg, int flags) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) {
    if (e == ENOTSOCK) {
      if (desc_object* o = find(fd); o != nullptr && o->kind == desc_kind::stream_end) {
        msg->msg_flags = 0;
        return desc_readv(fd, msg->msg_iov, static_cast<int>(msg->msg_iovlen));
      }
    }
    return fail(e);
  }
  world_core& c = *d->core;
  msg->msg_flags = 0;
  std::size_t got = 0;
  const std::size_t want = total(msg);
  if (want == 0 && d->s->proto == transport::tcp && !d->s->listening) {
    // Linux's tcp_recvmsg: a zero-length read still waits for data (or the
    // end of the stream) and returns 0 then; Asio's zero-sized read would
    // complete at once.
    const auto ready = [&] {
      return d->s == nullptr || (d->events() & (POLLIN | POLLERR | POLLHUP | POLLRDHUP)) != 0;
    };
    if (!ready() && !may_wait(*d, flags)) return fail(EAGAIN);
    if (!wait_for(c, {d}, duration::max(), "recv() on a socket with nothing to read", ready)) return -1;
    return 0;
  }
  for (;;) {
    if (d->s == nullptr) return got > 0 ? static_cast<long>(got) : fail(EBADF);
    socket_state& s = *d->s;
    direct_op op;
    op.kind_ = s.proto == transport::udp ? sock_op::kind::receive_from : sock_op::kind::read;
    op.peek_ = (flags & MSG_PEEK) != 0;
    msghdr rest = *msg;
    std::vector<iovec> left;
    std::size_t skip = got;
    for (std::size_t i = 0; i < msg->msg_iovlen; ++i) {
      const iovec& v = msg->msg_iov[i];
      if (skip >= v.iov_len) {
        skip -= v.iov_len;
        continue;
      }
      left.push_back(iovec{static_cast<char*>(v.iov_base) + skip, v.iov_len - skip});
      skip = 0;
    }
    rest.msg_iov = left.data();
    rest.msg_iovlen = left.size();
    capture(op, &rest);
    net_endpoint from;
    std::size_t datagram = 0;
    if (s.proto == transport::udp) {
      op.sender_ = &from;
      op.write_sender_ = [](void* target, const net_endpoint& f) { *static_cast<net_endpoint*>(target) = f; };
      datagram = d->net->available(s);
    }
    run_op(*d, op);
    if (!op.ec_) {
      if (s.proto == transport::udp) {
        if (datagram > op.bytes_) msg->msg_flags |= MSG_TRUNC;
        auto* name = static_cast<sockaddr*>(msg->msg_name);
        if (name != nullptr) write_endpoint(false, from, name, &msg->msg_namelen);
        return static_cast<long>((flags & MSG_TRUNC) != 0 ? datagram : op.bytes_);
      }
      got += op.bytes_;
      if ((flags & MSG_WAITALL) == 0 || got >= want || op.bytes_ == 0 || op.peek_) return static_cast<long>(got);
      continue;
    }
    if (op.ec_ == aerr::eof) return static_cast<long>(got);
    if (op.ec_ != aerr::would_block) return got > 0 ? static_cast<long>(got) : fail(errno_of(op.ec_));
    if (!may_wait(*d, flags)) return got > 0 ? static_cast<long>(got) : fail(EAGAIN);
    const bool ok = wait_for(c, {d}, duration::max(), "recv() on a socket with nothing to read", [&] {
      return d->s == nullptr || (d->events() & (POLLIN | POLLERR | POLLHUP | POLLRDHUP)) != 0;
    });
    if (!ok) return got > 0 ? static_cast<long>(got) : -1;
  }
}

int posix_shutdown(int fd, int how) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) return fail(e);
  if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) return fail(EINVAL);
  if (auto ec = d->net->shutdown(*d->s, how != SHUT_RD, how != SHUT_WR)) return fail(errno_of(ec));
  d->changed();
  return 0;
}

int posix_getsockopt(int fd, int level, int name, void* value, socklen_t* len) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) return fail(e);
  auto put = [&](int v) {
    if (*len < sizeof(int)) return fail(EINVAL);
    std::memcpy(value, &v, sizeof v);
    *len = sizeof v;
    return 0;
  };
  if (level == SOL_SOCKET) {
    switch (name) {
      case SO_ERROR: {
        int err = std::exchange(d->so_error, 0);
        if (err == 0 && d->s->failed) err = errno_of(std::exchange(d->s->failed, {}));
        return put(err);
      }
      case SO_TYPE: return put(d->type);
      case SO_DOMAIN: return put(d->domain);
      case SO_PROTOCOL: return put(d->type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP);
      case SO_ACCEPTCONN: return put(d->s->listening ? 1 : 0);
      // The kernel's figure, twice what was asked (socket_ops' get_option
      // halves it as Asio does on Linux after its getsockopt, and Asio in a
      // process halves what this returns).
      case SO_SNDBUF: return put(static_cast<int>(d->s->send_buffer));
      case SO_RCVBUF: return put(static_cast<int>(d->s->receive_buffer));
      default: break;
    }
  }
  std::size_t size = *len;
  if (auto ec = d->net->get_option(*d->s, level, name, value, size)) return fail(errno_of(ec));
  *len = static_cast<socklen_t>(size);
  return 0;
}

int posix_setsockopt(int fd, int level, int name, const void* value, socklen_t len) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) return fail(e);
  if (value == nullptr && len > 0) return fail(EFAULT);
  // Linux doubles what SO_SNDBUF and SO_RCVBUF ask (Asio halves it back on reading).
  if (level == SOL_SOCKET && (name == SO_SNDBUF || name == SO_RCVBUF) && len >= sizeof(int)) {
    int v;
    std::memcpy(&v, value, sizeof v);
    if (v < 0) return fail(EINVAL);
  }
  if (level == SOL_SOCKET && len < sizeof(int) && name != SO_LINGER) return fail(EINVAL);
  if (auto ec = d->net->set_option(*d->s, level, name, value, len)) return fail(errno_of(ec));
  return 0;
}

int posix_getsockname(int fd, sockaddr* addr, socklen_t* len) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) return fail(e);
  // Bound, connected (a connect binds) or accepted (the address the peer
  // dialled): its own address; else the wildcard, port 0.
  const socket_state& s = *d->s;
  const bool has_local = s.bound || s.connected || s.local.port != 0;
  write_endpoint(s.v6, has_local ? s.local : wildcard(s.v6), addr, len);
  return 0;
}

int posix_getpeername(int fd, sockaddr* addr, socklen_t* len) {
  int e = 0;
  std::shared_ptr<desc_object> keep;
  socket_desc* d = socket_of(fd, e, keep);
  if (d == nullptr) return fail(e);
  // Linux's TCP_CLOSE: never connected, reset, or both ways finished (its
  // FIN sent and the peer's received: TIME_WAIT's socket is closed).
  const socket_state& s = *d->s;
  if (!s.connected || (s.proto == transport::tcp && (s.ended || (s.rx_fin && s.tx_shutdown)))) return fail(ENOTCONN);
  write_endpoint(s.v6, s.remote, addr, len);
  return 0;
}

}  // namespace simasio::detail::interpose
