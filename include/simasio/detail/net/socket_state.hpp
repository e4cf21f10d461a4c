// simasio/detail/net/socket_state.hpp — what the simulated network knows of one socket
#ifndef SIMASIO_DETAIL_NET_SOCKET_STATE_HPP
#define SIMASIO_DETAIL_NET_SOCKET_STATE_HPP

#include <simasio/detail/fifo.hpp>
#include <simasio/detail/operation.hpp>
#include <simasio/detail/world_core.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simasio::detail {

enum class transport : std::uint8_t { tcp, udp };

// An address and a port, whatever the protocol.
struct net_endpoint {
  boost::asio::ip::address address;
  std::uint16_t port = 0;
  friend bool operator==(const net_endpoint& a, const net_endpoint& b) noexcept {
    return a.address == b.address && a.port == b.port;
  }
  friend bool operator!=(const net_endpoint& a, const net_endpoint& b) noexcept { return !(a == b); }
  std::string to_string() const;
};

// An endpoint as a socket of the given family shows it: the network keeps
// IPv4 traffic in IPv4 addresses, and an IPv6 socket sees them v4-mapped
// ([::ffff:a.b.c.d]), the wildcard as [::].
inline net_endpoint as_seen(bool v6, const net_endpoint& ep) {
  if (!v6 || !ep.address.is_v4()) return ep;
  if (ep.address.is_unspecified()) return {boost::asio::ip::address_v6::any(), ep.port};
  return {boost::asio::ip::make_address_v6(boost::asio::ip::v4_mapped, ep.address.to_v4()), ep.port};
}

struct socket_state;
class tcp_connection;
class socket_ops;
class tcp_layer;

// A pending socket operation. Buffers are captured at start (at most
// max_buffers of them, like Asio's own socket operations), so the engine
// can fill or drain them without knowing the buffer sequence type.
class sock_op : public operation {
 public:
  enum class kind : std::uint8_t { read, write, connect, accept, wait_read, wait_write, wait_error, receive_from };
  static constexpr std::size_t max_buffers = 16;

  kind kind_ = kind::read;
  sock_op* next_pending_ = nullptr;  // the socket's FIFO of pending operations
  socket_state* sock_ = nullptr;     // null once no longer pending
  context_state* ctx_ = nullptr;     // where the completion goes
  boost::system::error_code ec_;
  std::size_t bytes_ = 0;
  boost::asio::mutable_buffer bufs_[max_buffers];
  std::size_t nbufs_ = 0;
  bool peek_ = false;                    // message_peek
  bool direct_ = false;                  // a synchronous call: completes without a handler step
  bool non_blocking_ = false;            // a synchronous call on a non-blocking socket: would_block, never wait
  // receive_from: where the sender goes (the caller's typed endpoint)
  void* sender_ = nullptr;
  void (*write_sender_)(void* sender, const net_endpoint& from) = nullptr;
  net_endpoint target_;                  // connect: the peer
  socket_state* accept_into_ = nullptr;  // accept: the socket that gets the connection
  boost::asio::cancellation_slot slot_;

  std::size_t capacity() const noexcept {
    std::size_t n = 0;
    for (std::size_t i = 0; i < nbufs_; ++i) n += bufs_[i].size();
    return n;
  }
  template <class Buffers>
  void capture(const Buffers& buffers) {
    nbufs_ = 0;
    for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers); ++it) {
      if (nbufs_ == max_buffers) break;
      const auto b = *it;
      bufs_[nbufs_++] = boost::asio::mutable_buffer(const_cast<void*>(static_cast<const void*>(b.data())), b.size());
    }
  }

 protected:
  explicit sock_op(func_type f) noexcept : operation(f) {}
  ~sock_op() = default;
};

// A datagram waiting in a UDP socket's receive queue.
struct datagram {
  net_endpoint from;
  std::vector<char> data;
};

// One socket as the network sees it. The socket object owns it; the engine
// refers to sockets by id in events, so nothing dangles once it is gone.
struct socket_state {
  std::uint64_t id = 0;
  transport proto = transport::tcp;
  context_state* ctx = nullptr;
  std::uint32_t incarnation = 0;  // of its host when created (host_state::incarnation)
  std::uint32_t owner = 0;        // the process that made it, group + 1 (world_core::calling_owner); 0: none
  bool open = false;
  bool v6 = false;
  bool v6_only = false;  // IPV6_V6ONLY (Linux's default, net.ipv6.bindv6only, is 0: dual-stack)
  bool bound = false;
  bool listening = false;
  net_endpoint local;
  net_endpoint remote;
  bool connected = false;  // TCP established, or UDP connect()ed

  // options
  bool no_delay = false, keep_alive = false, reuse_address = false, broadcast = false;
  bool linger_on = false;
  int linger_seconds = 0;
  std::size_t send_buffer = 65536;      // TCP: autotuned from tcp_buffers unless pinned (SO_SNDBUF)
  std::size_t receive_buffer = 131072;  // TCP: likewise; UDP: the datagram queue's limit
  bool send_pinned = false, receive_pinned = false;
  int keep_idle = 7200, keep_interval = 75, keep_count = 9;  // TCP_KEEPIDLE, TCP_KEEPINTVL (s), TCP_KEEPCNT
  duration user_timeout{-1};  // TCP_USER_TIMEOUT; negative: the network's
  bool non_blocking = false;

  // TCP
  tcp_connection* conn = nullptr;
  int side = 0;                 // which end of conn this socket is
  fifo<char> rx;          // received, unread bytes
  bool rx_fin = false;          // the peer's FIN arrived after rx
  bool tx_shutdown = false;     // we sent (or queued) our FIN
  bool rx_shutdown = false;     // shutdown(receive): reads see eof
  // Linux's sk_err: a reset or timeout, reported once by the next read
  // (after the data that arrived before it) or write, then cleared.
  boost::system::error_code failed;
  bool ended = false;  // the connection died (reset, timeout): reads then see eof, writes broken_pipe
  bool established_once = false;  // it was connected (Linux's SS_CONNECTED stays): connect() is EISCONN
  // A connect that completed asynchronously and no later connect() has
  // collected (Linux's SS_CONNECTING): the next connect returns success
  // (it succeeded) or connection_aborted (it failed), and only then
  // already_connected or a new attempt.
  enum class uncollected : std::uint8_t { none, succeeded, failed };
  uncollected connect_result = uncollected::none;
  bool connecting = false;
  std::uint64_t connect_nonce = 0;  // which connect attempt a handshake packet answers
  int syn_attempts = 0;             // SYNs sent by this connect
  duration connect_started{0};      // when this connect began
  std::unique_ptr<timed_event> connect_timer;  // SYN retransmission; owner: this socket
  socket_ops* net = nullptr;        // the network's socket layer, which this socket calls
  tcp_layer* tcp = nullptr;         // the TCP layer retransmitting its SYN (connect_timer)
  bool embryo = false;              // accepted by the network, not yet by the program
  int backlog = 0;
  fifo<std::uint64_t> accept_queue;  // ids of accepted, not yet taken sockets
  std::vector<std::uint64_t> syn_queue;  // ids of half-open connections' sockets (SYN in, ACK not yet)

  // UDP
  fifo<datagram> datagrams;
  std::size_t datagram_bytes = 0;
  std::vector<boost::asio::ip::address> groups;  // multicast groups joined, in join order
  bool multicast_loop = true;                    // IP_MULTICAST_LOOP: our host's members get our datagrams
  int multicast_hops = 1;                        // IP_MULTICAST_TTL: 0 keeps datagrams on our host

  sock_op* pending_head = nullptr;
  sock_op* pending_tail = nullptr;

  // A POSIX descriptor watching it (src/posix/): told whenever the socket
  // may have made progress, before its pending operations are pumped.
  void (*on_change)(void* watcher) = nullptr;
  void* watcher = nullptr;
};

// How messages name a socket: "UDP socket", "TCP acceptor" or "TCP socket".
inline const char* socket_kind(const socket_state& s) noexcept {
  return s.proto == transport::udp ? "UDP socket" : s.listening ? "TCP acceptor" : "TCP socket";
}

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_SOCKET_STATE_HPP
