// socket_service.cpp — sockets of one io_context: creation, options, sync calls
#include <simasio/detail/socket_service.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/net/socket_ops.hpp>
#include <simasio/world.hpp>

#include <boost/asio/detail/socket_types.hpp>

#include <cstring>

#include <netinet/tcp.h>

namespace simasio::detail {

socket_service::socket_service(boost::asio::execution_context& ctx)
    : boost::asio::execution_context::service(ctx) {
  io_context& io = sim_context_of(ctx, "socket");
  ctx_ = &access::state(io);
  net_ = &access::net(io.get_world());
  ctx_->sources.push_back(this);
}

socket_service::~socket_service() {
  free_foreign();
  auto& sources = ctx_->sources;
  for (auto it = sources.begin(); it != sources.end(); ++it)
    if (*it == this) {
      sources.erase(it);
      break;
    }
}

socket_ops& socket_service::net_checked(const char* kind) const {
  if (net() == nullptr) [[unlikely]]
    throw_orphaned(*ctx_, kind);
  return *net_;
}

socket_state& socket_service::create(transport proto) { return net_checked().create_socket(*ctx_, proto); }

// Once the world is gone (the context was cut loose), so is its network:
// sockets that outlive it only free their own state.
socket_ops* socket_service::net() const noexcept { return ctx_->core != nullptr ? net_ : nullptr; }

void socket_service::destroy(socket_state& s) noexcept {
  if (socket_ops* n = net()) n->destroy_socket(s);
  else if (s.net != nullptr) s.net->forget_socket(s);  // context cut loose, network not yet gone
  else delete &s;
}

void socket_service::adopt_foreign(socket_state& s) noexcept {
  try {
    const std::lock_guard<std::mutex> lock(foreign_mutex_);
    foreign_.push_back(&s);
  } catch (...) {
    // Out of memory on a path that is already a usage error: leak the state.
  }
}

void socket_service::free_foreign() noexcept {
  std::vector<socket_state*> states;
  {
    const std::lock_guard<std::mutex> lock(foreign_mutex_);
    states.swap(foreign_);
  }
  for (socket_state* s : states) destroy(*s);
}

void socket_service::shutdown() {
  abandon();
  free_foreign();
}

void socket_service::abandon() noexcept {
  if (socket_ops* n = net()) n->abandon(*ctx_);
}

void socket_service::describe(std::vector<std::string>& out) const {
  if (socket_ops* n = net()) n->describe_pending(*ctx_, out);
}

boost::system::error_code socket_service::set_option(socket_state& s, int level, int name, const void* data,
                                                     std::size_t size) {
  auto as_int = [&] { return size >= sizeof(int) ? *static_cast<const int*>(data) : 0; };
  if (!s.open) return boost::asio::error::bad_descriptor;  // Asio: no descriptor, no option
  if (level == SOL_SOCKET) {
    switch (name) {
      case SO_REUSEADDR: s.reuse_address = as_int() != 0; return {};
      case SO_KEEPALIVE:
        s.keep_alive = as_int() != 0;
        if (s.proto == transport::tcp) net_checked().tcp().arm_keepalive(s);
        return {};
      case SO_BROADCAST: s.broadcast = as_int() != 0; return {};
      case SO_SNDBUF:
        if (as_int() <= 0) return boost::asio::error::invalid_argument;
        net_checked().tcp().pin_send_buffer(s, static_cast<std::size_t>(as_int()));
        return {};
      case SO_RCVBUF:
        if (as_int() <= 0) return boost::asio::error::invalid_argument;
        net_checked().tcp().pin_receive_buffer(s, static_cast<std::size_t>(as_int()));
        return {};
      case SO_LINGER: {
        const auto* l = static_cast<const ::linger*>(data);
        s.linger_on = l->l_onoff != 0;
        s.linger_seconds = l->l_linger;
        return {};
      }
      default: return {};  // accepted, no effect in the simulation
    }
  }
  if (level == IPPROTO_TCP) {
    if (s.proto != transport::tcp) return boost::asio::error::no_protocol_option;  // Linux: ENOPROTOOPT
    const int v = as_int();
    switch (name) {
      case TCP_NODELAY: s.no_delay = v != 0; return {};
      // Linux's ranges: EINVAL outside them.
      case TCP_KEEPIDLE:
      case TCP_KEEPINTVL:
        if (v < 1 || v > 32767) return boost::asio::error::invalid_argument;
        (name == TCP_KEEPIDLE ? s.keep_idle : s.keep_interval) = v;
        if (name == TCP_KEEPIDLE && s.proto == transport::tcp) net_checked().tcp().arm_keepalive(s);
        return {};
      case TCP_KEEPCNT:
        if (v < 1 || v > 127) return boost::asio::error::invalid_argument;
        s.keep_count = v;
        return {};
      case TCP_USER_TIMEOUT:  // milliseconds; 0: the default
        if (v < 0) return boost::asio::error::invalid_argument;
        s.user_timeout = v == 0 ? duration(-1) : duration(std::chrono::milliseconds(v));
        return {};
      default: return {};  // accepted, no effect in the simulation
    }
  }
  if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY) {
    if (!s.v6) return boost::asio::error::no_protocol_option;  // an IPv4 socket has no IPv6 options
    if (s.bound) return boost::asio::error::invalid_argument;  // Linux fixes it at bind
    s.v6_only = size >= sizeof(int) && *static_cast<const int*>(data) != 0;
    return {};
  }
  if (level == IPPROTO_IP || level == IPPROTO_IPV6) return set_ip_option(s, level, name, data, size);
  return {};
}

// Multicast options (Asio's ip::multicast::join_group, leave_group, hops,
// enable_loopback, outbound_interface); other IP options are accepted with
// no effect.
boost::system::error_code socket_service::set_ip_option(socket_state& s, int level, int name, const void* data,
                                                        std::size_t size) {
  // IPv4's TTL and loop are one byte in Asio's options, IPv6's an int.
  auto value = [&]() -> int {
    if (size == sizeof(unsigned char)) return *static_cast<const unsigned char*>(data);
    return size >= sizeof(int) ? *static_cast<const int*>(data) : 0;
  };
  const bool v4 = level == IPPROTO_IP;
  switch (name) {
    case IP_ADD_MEMBERSHIP:
    case IP_DROP_MEMBERSHIP:
      if (!v4) break;
      if (size < sizeof(::ip_mreq)) return boost::asio::error::invalid_argument;
      {
        const auto* m = static_cast<const ::ip_mreq*>(data);
        const boost::asio::ip::address group = boost::asio::ip::address_v4(ntohl(m->imr_multiaddr.s_addr));
        return name == IP_ADD_MEMBERSHIP ? net_checked().join_group(s, group) : net_checked().leave_group(s, group);
      }
    case IPV6_JOIN_GROUP:
    case IPV6_LEAVE_GROUP:
      if (v4) break;
      if (size < sizeof(::ipv6_mreq)) return boost::asio::error::invalid_argument;
      {
        const auto* m = static_cast<const ::ipv6_mreq*>(data);
        boost::asio::ip::address_v6::bytes_type bytes;
        std::memcpy(bytes.data(), &m->ipv6mr_multiaddr, bytes.size());
        const boost::asio::ip::address group = boost::asio::ip::address_v6(bytes);
        return name == IPV6_JOIN_GROUP ? net_checked().join_group(s, group) : net_checked().leave_group(s, group);
      }
    default: break;
  }
  if ((v4 && name == IP_MULTICAST_LOOP) || (!v4 && name == IPV6_MULTICAST_LOOP)) {
    s.multicast_loop = value() != 0;
    return {};
  }
  if ((v4 && name == IP_MULTICAST_TTL) || (!v4 && name == IPV6_MULTICAST_HOPS)) {
    const int hops = value();
    if (hops < -1 || hops > 255) return boost::asio::error::invalid_argument;
    s.multicast_hops = hops == -1 ? 1 : hops;  // -1: the default
    return {};
  }
  return {};  // IP_MULTICAST_IF and the rest: accepted, no effect in the simulation
}

boost::system::error_code socket_service::get_option(const socket_state& s, int level, int name, void* data,
                                                     std::size_t& size) const {
  auto put_int = [&](int v) {
    if (size >= sizeof(int)) *static_cast<int*>(data) = v;
    size = sizeof(int);
    return boost::system::error_code();
  };
  if (!s.open) return boost::asio::error::bad_descriptor;
  if (level == SOL_SOCKET) {
    switch (name) {
      case SO_REUSEADDR: return put_int(s.reuse_address);
      case SO_KEEPALIVE: return put_int(s.keep_alive);
      case SO_BROADCAST: return put_int(s.broadcast);
      // Linux's figure, twice what was asked; Asio on Linux halves it on
      // the way out so that the value set reads back.
      case SO_SNDBUF: return put_int(static_cast<int>(s.send_buffer / 2));
      case SO_RCVBUF: return put_int(static_cast<int>(s.receive_buffer / 2));
      case SO_LINGER: {
        auto* l = static_cast<::linger*>(data);
        l->l_onoff = s.linger_on ? 1 : 0;
        l->l_linger = s.linger_seconds;
        size = sizeof(::linger);
        return {};
      }
      default: return put_int(0);
    }
  }
  if (level == IPPROTO_TCP) {
    if (s.proto != transport::tcp) return boost::asio::error::no_protocol_option;
    switch (name) {
      case TCP_NODELAY: return put_int(s.no_delay);
      case TCP_KEEPIDLE: return put_int(s.keep_idle);
      case TCP_KEEPINTVL: return put_int(s.keep_interval);
      case TCP_KEEPCNT: return put_int(s.keep_count);
      case TCP_USER_TIMEOUT:
        return put_int(s.user_timeout > duration::zero()
                           ? static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(s.user_timeout).count())
                           : 0);
      default: return put_int(0);
    }
  }
  // IPv4's multicast TTL and loop are one byte in Asio's options.
  auto put = [&](int v) {
    if (size == sizeof(unsigned char)) {
      *static_cast<unsigned char*>(data) = static_cast<unsigned char>(v);
      return boost::system::error_code();
    }
    return put_int(v);
  };
  const bool v4 = level == IPPROTO_IP, v6 = level == IPPROTO_IPV6;
  if (v6 && name == IPV6_V6ONLY) {
    if (!s.v6) return boost::asio::error::operation_not_supported;  // Linux: EOPNOTSUPP on an IPv4 socket
    return put_int(s.v6_only);
  }
  if ((v4 && name == IP_MULTICAST_LOOP) || (v6 && name == IPV6_MULTICAST_LOOP)) return put(s.multicast_loop);
  if ((v4 && name == IP_MULTICAST_TTL) || (v6 && name == IPV6_MULTICAST_HOPS)) return put(s.multicast_hops);
  return put_int(0);
}

std::pair<boost::system::error_code, std::size_t> run_sync(
    socket_service& svc, const std::function<void(std::function<void(boost::system::error_code, std::size_t)>)>& start,
    bool socket_non_blocking) {
  svc.net_checked();  // a usage_error if the world is gone
  world_core& core = *svc.ctx().core;
  if (core.in_process() && !core.may_block()) return {error::host_down, 0};
  if (!svc.ctx().host->up) return {error::host_down, 0};
  auto result = std::make_shared<std::optional<std::pair<boost::system::error_code, std::size_t>>>();
  if (core.in_process()) {
    // A simulated process: the call suspends it until the operation's
    // completion (a step of the socket's context) wakes it.
    const process_wakeup wake = core.prepare_wait();
    start([result, wake](boost::system::error_code ec, std::size_t n) {
      *result = std::make_pair(ec, n);
      wake();
    });
    while (!result->has_value()) {
      core.waiting_for("a synchronous socket call");
      if (!core.suspend()) return {error::host_down, 0};  // its host crashed: it is unwinding
    }
    return **result;
  }
  auto record = [result](boost::system::error_code ec, std::size_t n) { *result = std::make_pair(ec, n); };
  if (core.running()) {
    svc.force_non_blocking = true;
    struct reset {
      socket_service& svc;
      ~reset() { svc.force_non_blocking = false; }
    } guard{svc};
    start(record);
    if (result->has_value() && (*result)->first == boost::asio::error::would_block && !socket_non_blocking)
      return {error::would_block, 0};
    return result->has_value() ? **result : std::make_pair(boost::system::error_code(error::would_block), std::size_t{0});
  }
  start(record);
  if (!result->has_value()) {
    const std::function<bool()> done = [&result] { return result->has_value(); };
    run_limits limits;
    limits.until = &done;
    while (!result->has_value() && core.run(limits).end == run_end::stopped) {
    }
  }
  if (!result->has_value()) return {error::stalled, 0};
  return **result;
}

void throw_foreign_thread(const char* kind) {
  throw usage_error(std::string("simasio: a ") + kind +
                    " was used from a thread other than the one that created it; a simulated world and its "
                    "sockets run on one OS thread, so a socket cannot be handed to a real thread of its own (a "
                    "thread per connection, as in std::thread(session, std::move(socket))). Run that code as a "
                    "process of its host (host.spawn) in a program linked with simasio::interpose, where "
                    "std::thread starts a simulated thread of the host; or serve each connection with "
                    "asynchronous operations on the world's io_context (async_read_some and async_write, or "
                    "co_spawn a coroutine per connection)");
}

void throw_socket_error(const boost::system::error_code& ec, const char* what) {
  if (!ec) return;
  if (ec == error::would_block)
    throw boost::system::system_error(ec, std::string("simasio: socket ") + what +
                                              "() was called inside a handler; a blocking call there can never "
                                              "complete. Use the async_ form");
  throw boost::system::system_error(ec, what);
}

void throw_address_in_use(const boost::system::error_code& ec, const socket_state& s, const std::string& address,
                          unsigned short port) {
  const std::string where = (address.find(':') != std::string::npos ? "[" + address + "]" : address) + ":" +
                            std::to_string(port) + " on host '" + s.ctx->host->name + "'";
  const char* proto = s.proto == transport::udp ? "UDP" : "TCP";
  if (port == 0)
    throw boost::system::system_error(ec, "simasio: bind to " + where + ": every ephemeral " + std::string(proto) +
                                              " port of this host is taken (close sockets you no longer use)");
  throw boost::system::system_error(
      ec, "simasio: bind to " + where + ": another " + std::string(proto) +
              " socket of this host holds that port on the same address or the wildcard" +
              (s.proto == transport::tcp ? ", or a connection closed there waits in TIME_WAIT (60 s)" : "") +
              " (close it first, set reuse_address(true) on both sockets as Linux requires, or bind port 0 for a "
              "free one)");
}

}  // namespace simasio::detail
