// ops_fuzz.cpp — random socket, acceptor and timer operations under random faults
//
// The input is a program: world and link settings, then operations on
// three hosts (listen, connect, write, read, close, shutdown, cancel,
// timers, UDP datagrams) mixed with faults (partitions, one-way blocks,
// holds, releases, resets, process and power crashes, restarts, new link
// settings) and runs of virtual time. Properties:
//  - TCP: each side reads exactly the bytes the other side wrote, in order,
//    and never more than it wrote (every byte's value says where it
//    belongs);
//  - UDP: a datagram arrives whole, as it was sent;
//  - TCP, once every fault is gone and 130 s pass: a connection whose two sides
//    saw no error and were not closed, shut down or cancelled has
//    delivered everything both sides wrote;
//  - a timer's successful wait never ends before its expiry;
//  - the same program runs twice to the same trace hash and the same counts;
//  - no crash, no leak, no sanitizer report, no exception from simasio.
#include "fuzz_support.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

namespace net = simasio::asio;
using net::ip::tcp;
using net::ip::udp;
using simasio_fuzz::broken;
using namespace std::chrono_literals;

class input {
 public:
  input(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}
  bool empty() const noexcept { return p_ == end_; }
  std::uint8_t byte() noexcept { return p_ == end_ ? 0 : *p_++; }
  std::size_t below(std::size_t n) noexcept { return byte() % n; }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

// Byte k of a stream or datagram: which connection (or datagram), which
// direction, which offset.
std::uint8_t pattern(std::uint32_t id, unsigned dir, std::uint64_t k) {
  std::uint64_t x = (static_cast<std::uint64_t>(id) << 34) ^ (static_cast<std::uint64_t>(dir) << 32) ^ k;
  x *= 0x9E3779B97F4A7C15ULL;
  x ^= x >> 29;
  return static_cast<std::uint8_t>(x >> 24);
}

// One side of a TCP connection. The client's first four bytes carry the
// connection's number, so the server learns which stream it reads.
struct side {
  side(net::io_context& ctx, bool client_side) : socket(ctx), client(client_side) {}
  tcp::socket socket;
  bool client;
  std::uint32_t conn = 0;  // known to a server after four bytes
  bool connected = false, writing = false, reading = false;
  std::uint64_t sent = 0, received = 0;  // bytes written (or being written) / read
  std::size_t chunk = 512;               // bytes asked for by each read
  bool troubled = false;                 // saw an error, or was closed, shut down or cancelled
  std::vector<std::uint8_t> out;
  std::array<std::uint8_t, 4096> in{};

  std::uint8_t outgoing(std::uint64_t k) const {
    if (client) return k < 4 ? static_cast<std::uint8_t>(conn >> (8 * k)) : pattern(conn, 0, k);
    return pattern(conn, 1, k);
  }
};

struct timer_slot {
  explicit timer_slot(net::io_context& ctx) : timer(ctx) {}
  net::steady_timer timer;
};

struct datagram_box {
  explicit datagram_box(net::io_context& ctx) : socket(ctx, udp::endpoint(udp::v4(), 9)) {}
  udp::socket socket;
  std::array<std::uint8_t, 2048> in{};
};

// What one run of a host's process holds. A crash ends it: the harness
// drops it and starts a new one, as a real program's objects die with it.
struct process {
  std::vector<std::shared_ptr<side>> sides;
  std::shared_ptr<tcp::acceptor> acceptors[2];
  std::vector<std::shared_ptr<timer_slot>> timers;
  std::shared_ptr<datagram_box> datagrams;
};

struct counts {
  std::uint64_t connected = 0, bytes = 0, datagrams = 0, timers = 0, errors = 0;
  bool operator==(const counts&) const = default;
};

constexpr std::size_t host_count = 3;

class harness {
 public:
  explicit harness(input in) : in_(in), w_(options()) {
    w_.net().configure(clean_link());
    w_.net().set_tcp_user_timeout(3s);
    w_.net().set_connect_timeout(2s);
    for (std::size_t i = 0; i < host_count; ++i) {
      hosts_.push_back(&w_.add_host("h" + std::to_string(i)));
      live_.push_back(std::make_unique<process>());
    }
  }

  // Plays the program, then takes every fault away and lets the world
  // settle for longer than the longest retransmission backoff (120 s).
  void play() {
    for (int ops = 0; ops < 400 && !in_.empty(); ++ops) step();
    w_.net().heal();
    w_.net().configure(clean_link());
    for (auto* a : hosts_)
      for (auto* b : hosts_)
        if (a != b) {
          w_.net().release(*a, *b);
          w_.net().configure(*a, *b, clean_link());
        }
    for (auto* h : hosts_)
      if (!h->up()) h->restart();
    w_.run_for(130s);
    check_complete();
  }

  // Connections whose sides both lived on untroubled delivered everything.
  void check_complete() const {
    std::map<std::uint32_t, std::pair<const side*, const side*>> by_conn;  // client, server
    for (const auto& p : live_)
      for (const auto& s : p->sides)
        if (s->connected && !s->troubled && (s->client || s->received >= 4))
          (s->client ? by_conn[s->conn].first : by_conn[s->conn].second) = s.get();
    for (const auto& [conn, ends] : by_conn) {
      const auto [client, server] = ends;
      if (client == nullptr || server == nullptr) continue;
      if (client->writing || server->writing || client->received != server->sent || server->received != client->sent)
        broken("connection " + std::to_string(conn) + " healed and quiet for 130 s, yet undelivered: the client read " +
               std::to_string(client->received) + " of " + std::to_string(server->sent) + " bytes, the server " +
               std::to_string(server->received) + " of " + std::to_string(client->sent) + "; " + w_.pending_report());
    }
  }

  std::uint64_t hash() const { return w_.trace_hash(); }
  const counts& tally() const { return tally_; }

 private:
  simasio::world_options options() {
    simasio::world_options o;
    o.seed = in_.byte();
    o.max_steps = 5'000'000;  // far above what the caps below allow
    return o;
  }

  static simasio::link_config clean_link() {
    simasio::link_config link;
    link.min_latency = 100us;
    link.max_latency = 20ms;
    return link;
  }

  simasio::host& any_host() { return *hosts_[in_.below(host_count)]; }
  process& of(const simasio::host& h) { return *live_[h.id()]; }
  std::shared_ptr<side> pick_side(process& p) {
    const std::uint8_t b = in_.byte();
    return p.sides.empty() ? nullptr : p.sides[b % p.sides.size()];
  }

  void step() {
    const std::size_t op = in_.below(22);
    switch (op) {
      case 0: listen(any_host()); break;
      case 1:
      case 2: {
        auto& a = any_host();
        connect(a, any_host());
        break;
      }
      case 3:
      case 4: write(any_host()); break;
      case 5:
      case 6: read(any_host()); break;
      case 7:
      case 8:
      case 9: disturb(op, any_host()); break;
      case 10: start_timer(any_host()); break;
      case 11: {
        auto& p = of(any_host());
        const std::uint8_t b = in_.byte();
        if (!p.timers.empty()) p.timers[b % p.timers.size()]->timer.cancel();
        break;
      }
      case 12: {
        auto& a = any_host();
        send_datagram(a, any_host());
        break;
      }
      case 13: {
        auto& a = any_host();
        auto& b = any_host();
        if (in_.byte() & 1) w_.net().partition({{&a}, {&b}});
        else w_.net().block(a, b);
        break;
      }
      case 14: w_.net().heal(); break;
      case 15:
      case 16: {
        auto& a = any_host();
        auto& b = any_host();
        if (&a == &b) break;
        if (in_.byte() & 1) w_.net().hold(a, b);
        else w_.net().release(a, b);
        break;
      }
      case 17: {
        auto& a = any_host();
        w_.net().reset(a, any_host());
        break;
      }
      case 18: {
        auto& h = any_host();
        const auto kind = in_.byte() & 1 ? simasio::crash_kind::power : simasio::crash_kind::process;
        if (!h.up()) break;
        h.crash(kind);
        live_[h.id()] = std::make_unique<process>();  // the process's objects die with it
        break;
      }
      case 19: {
        auto& h = any_host();
        if (!h.up()) h.restart();
        break;
      }
      case 20: configure(); break;
      case 21: w_.run_for(std::chrono::milliseconds(in_.byte()) * 4); break;
    }
  }

  // Closes (7), half-closes (8) or cancels (9) a side: from then on it may
  // not deliver everything.
  void disturb(std::size_t op, simasio::host& h) {
    const std::shared_ptr<side> s = pick_side(of(h));
    if (!s) return;
    s->troubled = true;
    boost::system::error_code ec;
    if (op == 7) s->socket.close(ec);
    else if (op == 8) s->socket.shutdown(tcp::socket::shutdown_send, ec);
    else s->socket.cancel(ec);
  }

  void configure() {
    auto& a = any_host();
    auto& b = any_host();
    simasio::link_config link;
    link.min_latency = std::chrono::microseconds(in_.byte()) * 50;
    link.max_latency = link.min_latency + std::chrono::microseconds(in_.byte()) * 200;
    link.loss = in_.byte() / 600.0;
    link.duplicate = in_.byte() / 1000.0;
    link.mtu = 576 + std::size_t{in_.byte()} * 4;
    const std::uint8_t bw = in_.byte();
    link.bandwidth = bw < 128 ? 0 : std::uint64_t{bw} * 4000;
    if (&a == &b) w_.net().configure(link);
    else w_.net().configure(a, b, link);
  }

  void listen(simasio::host& h) {
    process& p = of(h);
    auto& slot = p.acceptors[in_.below(2)];
    const unsigned short port = &slot == &p.acceptors[0] ? 80 : 81;
    if (slot) {  // listening already: stop
      boost::system::error_code ec;
      slot->close(ec);
      slot.reset();
      return;
    }
    auto acceptor = std::make_shared<tcp::acceptor>(h.context());
    boost::system::error_code ec;
    acceptor->open(tcp::v4(), ec);
    if (!ec) acceptor->bind(tcp::endpoint(tcp::v4(), port), ec);
    if (!ec) acceptor->listen(8, ec);
    if (ec) return;
    slot = acceptor;
    accept(p, acceptor);
  }

  void accept(process& p, const std::shared_ptr<tcp::acceptor>& acceptor) {
    auto s = std::make_shared<side>(static_cast<net::io_context&>(acceptor->get_executor().context()), false);
    acceptor->async_accept(s->socket, [this, &p, acceptor, s](boost::system::error_code ec) {
      if (ec) return;
      s->connected = true;
      ++tally_.connected;
      p.sides.push_back(s);
      read_loop(s);
      accept(p, acceptor);
    });
  }

  void connect(simasio::host& from, simasio::host& to) {
    process& p = of(from);
    if (p.sides.size() >= 16) return;
    auto s = std::make_shared<side>(from.context(), true);
    s->conn = next_conn_++;
    p.sides.push_back(s);
    const tcp::endpoint peer(to.address(), static_cast<unsigned short>(80 + in_.below(2)));
    s->socket.async_connect(peer, [this, s](boost::system::error_code ec) {
      if (ec) {
        s->troubled = true;
        ++tally_.errors;
        return;
      }
      s->connected = true;
      ++tally_.connected;
      read_loop(s);
    });
  }

  void write(simasio::host& h) {
    std::shared_ptr<side> s = pick_side(of(h));
    const std::size_t n = 1 + std::size_t{in_.byte()} * 37;
    if (!s || !s->connected || s->writing || s->troubled || (!s->client && s->received < 4)) return;
    if (written_total_ + n > max_written) return;  // keeps a program's run short
    written_total_ += n;
    const std::uint64_t start = s->sent;
    s->out.resize(n);
    for (std::size_t i = 0; i < n; ++i) s->out[i] = s->outgoing(start + i);
    s->sent = start + n;  // an upper bound until the write ends
    written_[{s->conn, s->client}] = s->sent;
    s->writing = true;
    net::async_write(s->socket, net::buffer(s->out), [this, s, start](boost::system::error_code ec, std::size_t n) {
      s->writing = false;
      s->sent = start + n;  // a cancelled write may have sent part
      written_[{s->conn, s->client}] = s->sent;
      if (ec) {
        s->troubled = true;
        ++tally_.errors;
      }
    });
  }

  // Sets a side's read size; starts its read loop again if an error (a
  // cancel) stopped it.
  void read(simasio::host& h) {
    std::shared_ptr<side> s = pick_side(of(h));
    const std::size_t n = 64 + std::size_t{in_.byte()} * 16;
    if (!s || !s->connected) return;
    s->chunk = std::min(n, s->in.size());
    read_loop(s);
  }

  // Reads until an error, checking every byte.
  void read_loop(const std::shared_ptr<side>& s) {
    if (s->reading) return;
    s->reading = true;
    s->socket.async_read_some(net::buffer(s->in.data(), s->chunk), [this, s](boost::system::error_code ec, std::size_t got) {
      s->reading = false;
      if (ec && got != 0) broken("a failed read returned bytes");
      if (ec) {
        s->troubled = true;
        ++tally_.errors;
        return;
      }
      check_received(*s, got);
      read_loop(s);
    });
  }

  // The bytes just read continue the peer's stream exactly.
  void check_received(side& s, std::size_t got) {
    for (std::size_t i = 0; i < got; ++i, ++s.received) {
      const std::uint8_t b = s.in[i];
      if (!s.client && s.received < 4) {
        s.conn |= static_cast<std::uint32_t>(b) << (8 * s.received);
        continue;
      }
      const std::uint8_t want = s.client ? pattern(s.conn, 1, s.received) : pattern(s.conn, 0, s.received);
      if (b != want)
        broken("TCP stream of connection " + std::to_string(s.conn) + " corrupted at byte " +
               std::to_string(s.received));
    }
    tally_.bytes += got;
    if (!s.client && s.received >= 4 && (s.conn == 0 || s.conn >= next_conn_))
      broken("a server read a connection number never used: " + std::to_string(s.conn));
    // Never more than the peer has written.
    const auto it = written_.find({s.conn, !s.client});
    const std::uint64_t peer_sent = it == written_.end() ? 0 : it->second;
    if (s.received > peer_sent)
      broken("connection " + std::to_string(s.conn) + " read " + std::to_string(s.received) + " bytes of " +
             std::to_string(peer_sent) + " written");
  }

  void start_timer(simasio::host& h) {
    process& p = of(h);
    if (p.timers.size() < 8) p.timers.push_back(std::make_shared<timer_slot>(h.context()));
    const std::uint8_t b = in_.byte();
    auto t = p.timers[b % p.timers.size()];
    t->timer.expires_after(std::chrono::milliseconds(in_.byte()) * 3);
    const auto expiry = t->timer.expiry();
    t->timer.async_wait([this, t, expiry](boost::system::error_code ec) {
      if (ec) return;
      ++tally_.timers;
      if (simasio::steady_clock::now() < expiry) broken("a timer's wait ended before its expiry");
    });
  }

  void receive(process& p, const std::shared_ptr<datagram_box>& box) {
    box->socket.async_receive(net::buffer(box->in), [this, &p, box](boost::system::error_code ec, std::size_t n) {
      if (ec) return;
      if (n < 8) broken("a datagram shorter than its header");
      std::uint32_t id = 0, size = 0;
      for (int k = 0; k < 4; ++k) {
        id |= static_cast<std::uint32_t>(box->in[static_cast<std::size_t>(k)]) << (8 * k);
        size |= static_cast<std::uint32_t>(box->in[static_cast<std::size_t>(4 + k)]) << (8 * k);
      }
      if (id == 0 || id >= next_datagram_ || size != n - 8) broken("a datagram's header was changed");
      for (std::size_t k = 0; k < size; ++k)
        if (box->in[8 + k] != pattern(id, 2, k)) broken("datagram " + std::to_string(id) + " corrupted");
      ++tally_.datagrams;
      receive(p, box);
    });
  }

  void send_datagram(simasio::host& from, simasio::host& to) {
    for (simasio::host* h : {&from, &to}) {
      process& p = of(*h);
      if (!p.datagrams && h->up()) {
        p.datagrams = std::make_shared<datagram_box>(h->context());
        receive(p, p.datagrams);
      }
    }
    process& p = of(from);
    const std::uint32_t size = std::uint32_t{in_.byte()} * 6;
    if (!p.datagrams) return;
    const std::uint32_t id = next_datagram_++;
    auto bytes = std::make_shared<std::vector<std::uint8_t>>(8 + size);
    for (int k = 0; k < 4; ++k) {
      (*bytes)[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(id >> (8 * k));
      (*bytes)[static_cast<std::size_t>(4 + k)] = static_cast<std::uint8_t>(size >> (8 * k));
    }
    for (std::size_t k = 0; k < size; ++k) (*bytes)[8 + k] = pattern(id, 2, k);
    p.datagrams->socket.async_send_to(net::buffer(*bytes), udp::endpoint(to.address(), 9),
                                      [bytes](boost::system::error_code, std::size_t) {});
  }

  input in_;
  simasio::world w_;  // first: everything below goes before it
  std::vector<simasio::host*> hosts_;
  std::vector<std::unique_ptr<process>> live_;  // by host id
  std::map<std::pair<std::uint32_t, bool>, std::uint64_t> written_;  // (connection, client side) -> bytes
  std::uint32_t next_conn_ = 1, next_datagram_ = 1;
  static constexpr std::uint64_t max_written = 256 * 1024;  // bytes per program, both directions
  std::uint64_t written_total_ = 0;
  counts tally_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  harness first(input(data, size));
  first.play();
  harness second(input(data, size));
  second.play();
  if (first.hash() != second.hash() || !(first.tally() == second.tally()))
    broken("the same program gave trace hashes " + std::to_string(first.hash()) + " and " +
           std::to_string(second.hash()));
  if (std::getenv("SIMASIO_FUZZ_SHOW") != nullptr) {
    const counts& c = first.tally();
    std::fprintf(stderr, "%zu bytes: %llu connections, %llu bytes read, %llu datagrams, %llu timers, %llu errors\n", size,
                 static_cast<unsigned long long>(c.connected), static_cast<unsigned long long>(c.bytes),
                 static_cast<unsigned long long>(c.datagrams), static_cast<unsigned long long>(c.timers),
                 static_cast<unsigned long long>(c.errors));
  }
  return 0;
}
