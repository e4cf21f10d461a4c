// simasio/detail/net/tcp.hpp — TCP: connections, handshake, retransmission, windows, close and reset
#ifndef SIMASIO_DETAIL_NET_TCP_HPP
#define SIMASIO_DETAIL_NET_TCP_HPP

#include <simasio/detail/fifo.hpp>
#include <simasio/detail/net/link.hpp>
#include <simasio/detail/net/socket_table.hpp>

#include <boost/core/span.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace simasio::detail {

// One direction of a TCP connection: bytes waiting to be (re)transmitted,
// segments in flight, and the retransmission clock.
struct tcp_channel {
  fifo<std::vector<char>> queue;  // segments not yet on the wire (or lost and waiting)
  bool fin_queued = false;        // a FIN follows the queue
  fifo<packet*> in_flight;        // on the wire, arriving in order
  duration last_arrival{0};       // arrivals never overtake each other
  bool attempt_scheduled = false;
  duration rto{std::chrono::milliseconds(200)};
  duration stuck_since{-1};           // first failed transmission of the head, for the user timeout
  std::size_t bytes_outstanding = 0;  // queued or in flight: counts against the send window
};

class tcp_layer;

class tcp_connection {
 public:
  tcp_layer* tcp = nullptr;
  std::uint64_t id = 0;
  std::uint32_t host[2] = {0, 0};
  net_endpoint ep[2];
  std::uint64_t sock[2] = {0, 0};  // socket ids; 0 once that end is gone
  tcp_channel chan[2];             // chan[i]: from side i to side 1 - i
  std::unique_ptr<timed_event> attempt[2];
  std::unique_ptr<timed_event> keepalive[2];  // side i's keep-alive timer
  duration last_heard[2] = {};                // when side i last heard from the peer
  int probes[2] = {0, 0};                     // side i's unanswered keep-alive probes
  bool established = false;        // the client has the SYN-ACK: data may flow
  std::uint64_t client_nonce = 0;  // the connect attempt this connection answers
  std::uint64_t client_sock = 0;   // ... from this socket (by_client_attempt_'s key)
  std::uint32_t packets = 0;       // packets on the wire naming it: it is freed only when none is left
  bool forgotten[2] = {false, false};  // side i's OS dropped the connection (reset, failure, power cut)
  int closed_first = -1;           // the side whose FIN was queued first: it goes to TIME_WAIT
  // The listener's side of the handshake, its SYN queue: until the client's
  // ACK (or its first segment) arrives, the server's socket waits outside
  // the accept queue and the SYN-ACK is retransmitted.
  std::uint64_t listener = 0;  // the listening socket's id
  bool half_open = false;
  int synack_timeouts = 0;  // SYN-ACKs the clock has resent
  std::unique_ptr<timed_event> synack_timer;  // owner: this connection
};

// TCP over the link layer: SYN, SYN-ACK and RST, segments with
// retransmission and backoff, the send window, FIN and reset. It changes
// socket state and tells the socket layer above through two hooks: a
// socket may now make progress (ready), and a connect attempt ended
// (connect_done).
class tcp_layer {
 public:
  tcp_layer(link_layer& link, socket_table& table);
  ~tcp_layer();
  tcp_layer(const tcp_layer&) = delete;
  tcp_layer& operator=(const tcp_layer&) = delete;

  duration user_timeout{std::chrono::minutes(15)};
  bool user_timeout_set = false;  // set by the scenario: the retransmission timer is clamped to it
  duration connect_timeout{std::chrono::seconds(127)};
  int synack_retries = 5;  // net.ipv4.tcp_synack_retries: a half-open connection is dropped after 63 s
  tcp_buffers buffers;

  struct hooks {
    void (*ready)(void* self, socket_state& s) = nullptr;
    // Completes the socket's oldest pending connect with ec, then lets the
    // socket make progress.
    void (*connect_done)(void* self, socket_state& s, boost::system::error_code ec) = nullptr;
    void* self = nullptr;
  };
  void set_hooks(hooks h) noexcept { up_ = h; }

  // Starts the handshake of a bound socket whose remote is set: SYNs with
  // Linux's backoff until connect_timeout.
  void connect(socket_state& s);
  // Bytes a connected socket's write accepted: queued as segments.
  void send(socket_state& s, boost::span<const char> bytes) { queue_data(*s.conn, s.side, bytes); }
  // shutdown(send): a FIN after the queued data.
  void shutdown_send(socket_state& s) { queue_fin(*s.conn, s.side); }
  // The TCP part of close(): the handshake stops, the connection ends
  // abortively (RST: unread data, linger 0) or gracefully (FIN after the
  // queue), and connections accepted by the network but not the program
  // are reset and their sockets deleted.
  void close(socket_state& s);
  // The socket fails with ec (reset, timed out): every operation sees it.
  void fail(socket_state& s, boost::system::error_code ec);
  // A power cut: what the socket had on the wire is gone, and its
  // connection is forgotten without a word to the peer.
  void power_cut(socket_state& s);
  // network::reset: both ends of every connection between a and b fail.
  void reset_connections(std::uint32_t a, std::uint32_t b);
  // A new TCP socket's buffer sizes; SO_SNDBUF / SO_RCVBUF as Linux sets them.
  void init_buffers(socket_state& s) const noexcept;
  void pin_send_buffer(socket_state& s, std::size_t requested) const noexcept;
  void pin_receive_buffer(socket_state& s, std::size_t requested) const noexcept;
  // The program read n bytes: receive autotuning follows the reading.
  void consumed(socket_state& s, std::size_t n) const noexcept;
  // (Re)starts the keep-alive timer of a connected socket with keep_alive on.
  void arm_keepalive(socket_state& s);

 private:
  // A packet arrives for handle: finished connections are freed first
  // (no caller holds one then; see reap).
  template <void (tcp_layer::*handle)(packet&)>
  static void on_arrival(void* self, packet& p) {
    auto& tcp = *static_cast<tcp_layer*>(self);
    tcp.reap();
    (tcp.*handle)(p);
  }
  static void on_release(void* self, std::uint32_t a, std::uint32_t b);
  void syn(packet& p);
  void syn_ack(packet& p);
  void rst(packet& p);
  void segment(packet& p);
  void ack(packet& p);
  void send_syn(std::uint64_t sock_id);
  void send_syn_ack(tcp_connection& c);
  void send_ack(tcp_connection& c);
  void syn_ack_timeout(tcp_connection& c);
  // The client's ACK arrived: the server's socket moves from the SYN queue
  // to the accept queue, unless that is full (then the SYN-ACK's next
  // retransmission asks again, as on Linux). False if it did not move.
  bool complete_handshake(tcp_connection& c);
  // A half-open connection ends (retries exhausted, reset, listener gone):
  // its server socket is deleted, and with reset the client hears an RST.
  void drop_half_open(tcp_connection& c, bool reset);
  void discard_embryo(std::uint64_t id, bool reset);
  void send_rst(std::uint32_t from_host, const net_endpoint& from, std::uint32_t to_host, const net_endpoint& to,
                std::uint64_t conn, int to_side);
  void queue_data(tcp_connection& c, int side, boost::span<const char> bytes);
  void queue_fin(tcp_connection& c, int side);
  void transmit(tcp_connection& c, int side);
  void schedule_attempt(tcp_connection& c, int side, duration at);
  // When to retransmit next: after the RTO, clamped to the user timeout when one was set.
  duration retry_at(const tcp_connection& c, int side) const;
  duration user_timeout_of(const tcp_connection& c, int side) const;
  void established(tcp_connection& c, int side);
  void keepalive(tcp_connection& c, int side);
  // In-flight segments back to the queue, in order; all but @p head (recorded
  // already) recorded dropped for @p reason.
  void retreat(tcp_connection& c, int side, const packet& head, std::uint64_t reason);
  void abort_connection(socket_state& s, bool send_reset);
  void detach_connection(socket_state& s) noexcept;
  void stop_channel(tcp_connection& c, int side) noexcept;
  void lost_on_arrival(tcp_connection& c, int side, packet& p, std::uint64_t reason, bool retry);
  tcp_connection* find_connection(std::uint64_t id) const noexcept {
    return id != 0 && id <= connections_.size() ? connections_[id - 1].get() : nullptr;
  }
  void ready(socket_state& s) { up_.ready(up_.self, s); }
  // A connection nothing can reach any more (both sockets gone, nothing
  // queued, on the wire or timed) is freed, so that memory follows the
  // connections alive, not every one ever made; its id stays unused.
  // Candidates are noted where that may have just become true and freed at
  // the next packet's arrival (on_arrival), when no caller holds a connection.
  void may_be_done(const tcp_connection& c) { reap_.push_back(c.id); }
  void reap() noexcept;
  static void on_packet_gone(void* self, std::uint64_t conn) noexcept;

  link_layer& link_;
  world_core& core_;
  socket_table& table_;
  hooks up_;
  std::vector<std::unique_ptr<tcp_connection>> connections_;  // by id - 1
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> by_client_attempt_;  // (socket, nonce) -> connection
  std::uint64_t next_nonce_ = 0;
  std::vector<std::uint64_t> reap_;  // connection ids that may be done
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_NET_TCP_HPP
