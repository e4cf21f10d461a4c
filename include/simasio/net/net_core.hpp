// simasio/net/net_core.hpp — the simulated network: links, faults, packets, TCP and UDP state
#ifndef SIMASIO_NET_NET_CORE_HPP
#define SIMASIO_NET_NET_CORE_HPP

#include <simasio/detail/world_core.hpp>
#include <simasio/net/socket_state.hpp>
#include <simasio/world_options.hpp>

#include <boost/asio/ip/address.hpp>
#include <boost/system/error_code.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace simasio::detail {

struct packet;

// One direction of a TCP connection: bytes waiting to be (re)transmitted,
// segments in flight, and the retransmission clock.
struct tcp_channel {
  fifo<std::vector<char>> queue;  // segments not yet on the wire (or lost and waiting)
  bool fin_queued = false;              // a FIN follows the queue
  fifo<packet*> in_flight;        // on the wire, arriving in order
  duration last_arrival{0};             // arrivals never overtake each other
  bool attempt_scheduled = false;
  duration rto{std::chrono::milliseconds(200)};
  duration stuck_since{-1};             // first failed transmission of the head, for the user timeout
  std::size_t bytes_outstanding = 0;    // queued or in flight: counts against the send window
};

class net_core;

class tcp_connection {
 public:
  net_core* net = nullptr;
  std::uint64_t id = 0;
  std::uint32_t host[2] = {0, 0};
  net_endpoint ep[2];
  std::uint64_t sock[2] = {0, 0};  // socket ids; 0 once that end is gone
  tcp_channel chan[2];              // chan[i]: from side i to side 1 - i
  std::unique_ptr<timed_event> attempt[2];
  bool established = false;
  std::uint64_t client_nonce = 0;  // the connect attempt this connection answers
};

// The network engine of one world. Sockets talk to it; it talks to the
// world core (time, draws, trace) and never to user code directly: it
// completes operations by posting them to their contexts.
class net_core {
  friend class tcp_connection;
 public:
  explicit net_core(world_core& core);
  ~net_core();
  net_core(const net_core&) = delete;
  net_core& operator=(const net_core&) = delete;

  // ---- topology (filled by world and network) ----------------------------
  void add_host(std::uint32_t id, host_state& state, const boost::asio::ip::address& address);
  link_config default_link;
  std::map<std::pair<std::uint32_t, std::uint32_t>, link_config> links;
  std::set<std::pair<std::uint32_t, std::uint32_t>> blocked;  // directed
  std::set<std::pair<std::uint32_t, std::uint32_t>> held;     // unordered (lower id first)
  duration tcp_user_timeout{std::chrono::minutes(15)};
  duration connect_timeout{std::chrono::seconds(127)};
  void release(std::uint32_t a, std::uint32_t b);
  void reset_connections(std::uint32_t a, std::uint32_t b);
  void host_crashed(std::uint32_t host, bool power);
  void host_restarted(std::uint32_t host);

  // ---- sockets ---------------------------------------------------------------
  socket_state& create_socket(context_state& ctx, transport proto);
  void destroy_socket(socket_state& s) noexcept;
  boost::system::error_code open(socket_state& s, bool v6);
  boost::system::error_code bind(socket_state& s, const net_endpoint& ep);
  boost::system::error_code listen(socket_state& s, int backlog);
  boost::system::error_code close(socket_state& s);
  boost::system::error_code shutdown(socket_state& s, bool send, bool receive);
  std::size_t available(const socket_state& s) const noexcept;
  void cancel(socket_state& s) noexcept;
  // Starts an operation: completes it (posts it) now if it can, else keeps it pending.
  void start(socket_state& s, sock_op& op);
  // Per-operation cancellation.
  void cancel_op(sock_op& op) noexcept;
  // Multicast membership (IP_ADD_MEMBERSHIP, IP_DROP_MEMBERSHIP): errors as Linux's.
  boost::system::error_code join_group(socket_state& s, const boost::asio::ip::address& group);
  boost::system::error_code leave_group(socket_state& s, const boost::asio::ip::address& group);
  // UDP send; returns the error and sets bytes.
  boost::system::error_code send_to(socket_state& s, std::span<const boost::asio::const_buffer> data,
                                    const net_endpoint& to, std::size_t& bytes);
  // Host id owning an address, or no_host.
  std::uint32_t host_of(const boost::asio::ip::address& address, std::uint32_t from_host) const noexcept;
  std::string host_name(std::uint32_t id) const;
  boost::asio::ip::address host_address(std::uint32_t id) const { return hosts_.at(id).address; }
  std::uint32_t host_count() const noexcept { return static_cast<std::uint32_t>(hosts_.size()); }
  socket_state* find_socket(std::uint64_t id) const noexcept;
  void describe_pending(const context_state& ctx, std::vector<std::string>& out) const;
  void abandon(context_state& ctx) noexcept;  // the context's pending socket operations die with it

  world_core& core() noexcept { return core_; }

  // world_core::check_alive for a socket, named by its kind unless @p what
  // names it.
  void check_alive(const socket_state& s, const char* what = nullptr) const {
    if (what == nullptr) what = socket_kind(s);
    core_.check_alive(*s.ctx, s.incarnation, what);
  }

 private:
  friend struct packet;
  enum class verdict { pass, drop, hold };
  verdict judge(std::uint32_t from, std::uint32_t to) const;
  std::uint64_t drop_cause(std::uint32_t from, std::uint32_t to) const noexcept;  // a drop_reason, when judge drops
  const link_config& link(std::uint32_t from, std::uint32_t to) const;
  duration draw_latency(const link_config& cfg);
  duration on_wire(std::uint32_t from, std::uint32_t to, const link_config& cfg, std::size_t bytes);
  packet* new_packet(int type, std::uint32_t from_host, const net_endpoint& from, std::uint32_t to_host,
                     const net_endpoint& to);
  packet* reply_to(const packet& p, int type);
  void send_packet(packet* p);                 // through the link, now
  void schedule_arrival(packet* p, duration at);
  void arrive(packet* p);
  void drop_packet(packet* p) noexcept;

  // TCP
  void start_connect(socket_state& s, const net_endpoint& to);
  bool complete_connect(socket_state& s, boost::system::error_code ec);
  void send_syn(std::uint64_t sock_id);
  void on_syn(packet& p);
  void on_syn_ack(packet& p);
  void on_rst(packet& p);
  void on_segment(packet& p);
  void send_rst(std::uint32_t from_host, const net_endpoint& from, std::uint32_t to_host, const net_endpoint& to,
                std::uint64_t conn, int to_side);
  void queue_data(tcp_connection& c, int side, std::vector<char> bytes);
  void queue_fin(tcp_connection& c, int side);
  void transmit(tcp_connection& c, int side);
  void schedule_attempt(tcp_connection& c, int side, duration at);
  // In-flight segments back to the queue, in order; all but @p head (recorded
  // already) recorded dropped for @p reason.
  void retreat(tcp_connection& c, int side, const packet& head, std::uint64_t reason);
  void fail_socket(socket_state& s, boost::system::error_code ec);
  void abort_connection(socket_state& s, bool send_reset);
  void detach_connection(socket_state& s) noexcept;
  tcp_connection* find_connection(std::uint64_t id) const noexcept;

  // operations
  void pump(socket_state& s);
  void complete(sock_op& op, boost::system::error_code ec, std::size_t bytes);
  void finish(sock_op& op, boost::system::error_code ec, std::size_t bytes);
  bool try_read(socket_state& s, sock_op& op);
  bool try_write(socket_state& s, sock_op& op);
  void unlink(socket_state& s, sock_op& op) noexcept;
  static void reset_state(socket_state& s) noexcept;

  void leave_all_groups(socket_state& s) noexcept;
  void send_multicast(socket_state& s, std::uint32_t from, const net_endpoint& source, const net_endpoint& to,
                      std::span<const boost::asio::const_buffer> data, std::size_t size);

  std::uint16_t ephemeral_port(std::uint32_t host, transport proto);
  bool port_taken(std::uint32_t host, transport proto, std::uint16_t port) const;
  std::uint32_t host_of_socket(const socket_state& s) const noexcept { return s.ctx->host->id; }
  void record(event_kind k, std::uint32_t host, std::uint64_t a, std::uint64_t b);

  world_core& core_;
  struct host_entry {
    host_state* state = nullptr;
    boost::asio::ip::address address;
    std::uint16_t next_port[2] = {49152, 49152};
    std::map<std::pair<std::uint8_t, std::uint16_t>, std::uint64_t> ports;  // bound sockets: (transport, port) -> socket
  };
  std::vector<host_entry> hosts_;                       // by host id
  std::map<boost::asio::ip::address, std::uint32_t> by_address_;
  std::vector<std::uint32_t> by_default_;              // 198.18.x.x: host id by the low 16 bits, or no_host
  std::vector<socket_state*> sockets_;                  // by id - 1; null once destroyed
  std::vector<std::unique_ptr<tcp_connection>> connections_;  // by id - 1
  // Multicast: group -> (member host -> how many of its sockets joined). A
  // host receives a group's datagrams while any of its sockets is a member
  // (Linux's IP_MULTICAST_ALL); copies go out in host id order.
  std::map<boost::asio::ip::address, std::map<std::uint32_t, int>> groups_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> by_client_attempt_;  // (socket, nonce) -> connection
  std::uint64_t next_nonce_ = 0;
  packet* packets_ = nullptr;                           // every packet in flight or held
  packet* free_packets_ = nullptr;                      // dropped packets kept for reuse (see pool_allocations)
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<packet*>> held_packets_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, duration> link_busy_;  // bandwidth: when each link is free
};

}  // namespace simasio::detail

#endif  // SIMASIO_NET_NET_CORE_HPP
