// simasio/detail/net/socket_ops.hpp — the socket layer: what sockets call, on top of the network stack
#ifndef SIMASIO_DETAIL_NET_SOCKET_OPS_HPP
#define SIMASIO_DETAIL_NET_SOCKET_OPS_HPP

#include <simasio/detail/net/link.hpp>
#include <simasio/detail/net/socket_state.hpp>
#include <simasio/detail/net/socket_table.hpp>
#include <simasio/detail/net/tcp.hpp>
#include <simasio/detail/net/udp.hpp>
#include <simasio/detail/world_core.hpp>

#include <boost/asio/ip/address.hpp>
#include <boost/core/span.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace simasio::detail {

// A world's network, as its sockets see it. The stack, bottom up:
//   link_layer    hosts, links, faults, packets on the wire   (link.hpp)
//   socket_table  sockets by id, bound ports per host         (socket_table.hpp)
//   udp_layer     datagrams and multicast groups              (udp.hpp)
//   tcp_layer     connections, handshake, retransmission      (tcp.hpp)
//   socket_ops    this: open, bind, listen, close, and the pending
//                 operations of each socket (read, write, accept, wait)
// Each layer calls only the layers below it. What happens below that a
// socket must hear of comes up through hooks this layer registers: a
// socket may make progress (ready: pump its pending operations), and a
// connect attempt ended. Completions go to the socket's context as posted
// operations; nothing here calls user code directly.
class socket_ops {
 public:
  explicit socket_ops(world_core& core);
  ~socket_ops();
  socket_ops(const socket_ops&) = delete;
  socket_ops& operator=(const socket_ops&) = delete;

  world_core& core() noexcept { return core_; }
  link_layer& link() noexcept { return link_; }
  tcp_layer& tcp() noexcept { return tcp_; }

  // ---- hosts (world) ------------------------------------------------------------
  void add_host(std::uint32_t id, host_state& state, const boost::asio::ip::address& address);
  void host_crashed(std::uint32_t host, bool power);
  // A process ended without unwinding (exit, abort): the OS closes the
  // sockets it made (socket_state::owner), RST where data was unread, else FIN.
  void close_owned(std::uint32_t owner);
  std::uint32_t host_of(const boost::asio::ip::address& address, std::uint32_t from_host) const noexcept {
    return link_.host_of(address, from_host);
  }
  std::string host_name(std::uint32_t id) const { return link_.host_name(id); }
  boost::asio::ip::address host_address(std::uint32_t id) const { return link_.host_address(id); }
  std::uint32_t host_count() const noexcept { return link_.host_count(); }

  // ---- sockets -----------------------------------------------------------------------
  socket_state& create_socket(context_state& ctx, transport proto);
  void destroy_socket(socket_state& s) noexcept;
  // Frees a socket whose context the dying world has already cut loose:
  // nothing is sent, the network only lets go of it.
  void forget_socket(socket_state& s) noexcept;
  socket_state* find_socket(std::uint64_t id) const noexcept { return table_.find(id); }
  boost::system::error_code open(socket_state& s, bool v6);
  boost::system::error_code bind(socket_state& s, const net_endpoint& ep);
  boost::system::error_code listen(socket_state& s, int backlog);
  boost::system::error_code close(socket_state& s);
  boost::system::error_code shutdown(socket_state& s, bool send, bool receive);
  std::size_t available(const socket_state& s) const noexcept;
  // What poll() reports for s now, as Linux's tcp_poll and datagram_poll:
  // POLLIN, POLLOUT, POLLERR, POLLHUP, POLLRDHUP bits.
  unsigned poll_events(const socket_state& s) const noexcept;
  // Socket options (setsockopt, getsockopt; Asio's set_option/get_option):
  // Linux's errors; options without an effect in the simulation are kept
  // as accepted.
  boost::system::error_code set_option(socket_state& s, int level, int name, const void* data, std::size_t size);
  boost::system::error_code get_option(const socket_state& s, int level, int name, void* data,
                                       std::size_t& size) const;
  void cancel(socket_state& s) noexcept;
  // Starts an operation: completes it (posts it) now if it can, else keeps it pending.
  void start(socket_state& s, sock_op& op);
  // Per-operation cancellation.
  void cancel_op(sock_op& op) noexcept;
  // Multicast membership (IP_ADD_MEMBERSHIP, IP_DROP_MEMBERSHIP): errors as Linux's.
  boost::system::error_code join_group(socket_state& s, const boost::asio::ip::address& group);
  boost::system::error_code leave_group(socket_state& s, const boost::asio::ip::address& group);
  // UDP send; returns the error and sets bytes.
  boost::system::error_code send_to(socket_state& s, boost::span<const boost::asio::const_buffer> data,
                                    const net_endpoint& to, std::size_t& bytes);
  void describe_pending(const context_state& ctx, std::vector<std::string>& out) const;
  void abandon(context_state& ctx) noexcept;  // the context's pending socket operations die with it

  // world_core::check_alive for a socket, named by its kind unless @p what
  // names it.
  void check_alive(const socket_state& s, const char* what = nullptr) const {
    if (what == nullptr) what = socket_kind(s);
    core_.check_alive(*s.ctx, s.incarnation, what);
  }

 private:
  static void on_ready(void* self, socket_state& s) { static_cast<socket_ops*>(self)->pump(s); }
  static void on_connect_done(void* self, socket_state& s, boost::system::error_code ec);
  void start_connect(socket_state& s, const net_endpoint& asked);
  // An address a call on s names, as the network routes it: an IPv4-mapped
  // IPv6 address is IPv4. Linux's error when it does not fit the socket's
  // family (EAFNOSUPPORT, EINVAL, ENETUNREACH, by call and v6_only).
  enum class use : std::uint8_t { bind, connect, send };
  static boost::system::error_code routed(const socket_state& s, boost::asio::ip::address& a, use u);
  boost::system::error_code bind_routed(socket_state& s, const net_endpoint& ep);
  bool complete_connect(socket_state& s, boost::system::error_code ec);
  boost::system::error_code bind_any(socket_state& s);
  void pump(socket_state& s);
  void accept(socket_state& listener, sock_op& op);
  void complete(sock_op& op, boost::system::error_code ec, std::size_t bytes);
  void finish(sock_op& op, boost::system::error_code ec, std::size_t bytes);
  bool try_read(socket_state& s, sock_op& op);
  bool try_write(socket_state& s, sock_op& op);
  std::size_t write_room(const socket_state& s) const;
  void unlink(socket_state& s, sock_op& op) noexcept;
  // Unlinks every pending operation of s into out, oldest first.
  static void take_pending(socket_state& s, std::vector<sock_op*>& out) noexcept;
  static void reset_state(socket_state& s) noexcept;
  boost::system::error_code set_ip_option(socket_state& s, int level, int name, const void* data, std::size_t size);
  bool readable(const socket_state& s) const noexcept;
  bool writable(const socket_state& s) const noexcept;

  world_core& core_;
  link_layer link_;
  std::vector<char> write_scratch_;  // a TCP write's bytes on their way to tcp_layer::send
  socket_table table_;
  udp_layer udp_;
  tcp_layer tcp_;
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_SOCKET_OPS_HPP
