// socket_options.cpp — setsockopt and getsockopt: what each option changes in the simulated network
//
// One implementation for both paths: Asio's set_option/get_option on
// simasio's sockets (socket_service) and the POSIX calls of a simulated
// process (src/posix/).
#include <simasio/detail/net/socket_ops.hpp>

#include <boost/asio/detail/socket_types.hpp>
#include <boost/asio/error.hpp>

#include <cstring>

#include <netinet/tcp.h>

namespace simasio::detail {

boost::system::error_code socket_ops::set_option(socket_state& s, int level, int name, const void* data,
                                                 std::size_t size) {
  auto as_int = [&] { return size >= sizeof(int) ? *static_cast<const int*>(data) : 0; };
  if (!s.open) return boost::asio::error::bad_descriptor;  // Asio: no descriptor, no option
  if (level == SOL_SOCKET) {
    switch (name) {
      case SO_REUSEADDR: s.reuse_address = as_int() != 0; return {};
      case SO_KEEPALIVE:
        s.keep_alive = as_int() != 0;
        if (s.proto == transport::tcp) tcp_.arm_keepalive(s);
        return {};
      case SO_BROADCAST: s.broadcast = as_int() != 0; return {};
      case SO_SNDBUF:
        if (as_int() <= 0) return boost::asio::error::invalid_argument;
        tcp_.pin_send_buffer(s, static_cast<std::size_t>(as_int()));
        return {};
      case SO_RCVBUF:
        if (as_int() <= 0) return boost::asio::error::invalid_argument;
        tcp_.pin_receive_buffer(s, static_cast<std::size_t>(as_int()));
        return {};
      case SO_LINGER: {
        const auto* l = static_cast<const ::linger*>(data);
        s.linger_on = l->l_onoff != 0;
        s.linger_seconds = l->l_linger;
        return {};
      }
      case SO_SNDLOWAT: return boost::asio::error::no_protocol_option;  // Linux cannot change it: ENOPROTOOPT
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
        if (name == TCP_KEEPIDLE && s.proto == transport::tcp) tcp_.arm_keepalive(s);
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
boost::system::error_code socket_ops::set_ip_option(socket_state& s, int level, int name, const void* data,
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
        return name == IP_ADD_MEMBERSHIP ? join_group(s, group) : leave_group(s, group);
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
        return name == IPV6_JOIN_GROUP ? join_group(s, group) : leave_group(s, group);
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

boost::system::error_code socket_ops::get_option(const socket_state& s, int level, int name, void* data,
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
      case SO_SNDLOWAT: return put_int(1);  // Linux's, fixed
      default: return put_int(0);
    }
  }
  if (level == IPPROTO_TCP) {
    // Linux reads a TCP option of another socket as EOPNOTSUPP (ENOPROTOOPT to set it).
    if (s.proto != transport::tcp) return boost::asio::error::operation_not_supported;
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

}  // namespace simasio::detail
