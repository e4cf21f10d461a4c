// election.hpp — Raft's leader election over simulated UDP, as one scenario:
// `election(world, flawed, history)` runs one seed (see main.cpp for the
// parameters). Shared by the sample and the benchmarks.
#pragma once

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace raft_election {

namespace net = simasio::asio;
using net::ip::udp;
using namespace std::chrono_literals;

constexpr std::uint16_t port = 7000;
constexpr int cluster = 3;

enum class role { follower, candidate, leader };
enum class kind : std::uint8_t { request_vote, vote, heartbeat };

struct message {
  kind type;
  std::uint8_t from;
  std::uint8_t granted;
  std::uint64_t term;
};

// Who led which term: the invariant's memory across the whole run.
struct history {
  std::map<std::uint64_t, int> leader_of_term;
  bool split = false;
  std::uint64_t split_term = 0;
  void elected(std::uint64_t term, int node) {
    auto [it, inserted] = leader_of_term.emplace(term, node);
    if (!inserted && it->second != node) {
      split = true;
      split_term = term;
    }
  }
};

class node : public std::enable_shared_from_this<node> {
 public:
  node(simasio::world& w, simasio::host& h, int id, std::vector<udp::endpoint> peers, history& hist, bool flawed)
      : world_(w), id_(id), peers_(std::move(peers)), history_(hist), flawed_(flawed),
        socket_(h.context(), udp::endpoint(udp::v4(), port)), election_(h.context()), heartbeat_(h.context()),
        log_(simasio::log::logger(h)) {}

  void start() {
    receive();
    wait_for_election();
  }

 private:
  void receive() {
    socket_.async_receive_from(net::buffer(&in_, sizeof in_), sender_,
                               [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                                 if (ec) return;
                                 if (n == sizeof(message)) self->handle(self->in_);
                                 self->receive();
                               });
  }

  // The election timeout is redrawn every time a node starts waiting.
  void wait_for_election() {
    election_.expires_after(std::chrono::milliseconds(150 + world_.random().below(151)));
    election_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec && self->role_ != role::leader) self->stand();
    });
  }

  void stand() {
    role_ = role::candidate;
    ++term_;
    voted_for_ = id_;
    votes_ = 1;
    log_->info("stands for term {}", term_);
    broadcast({kind::request_vote, static_cast<std::uint8_t>(id_), 0, term_});
    wait_for_election();
  }

  void handle(const message& m) {
    if (m.term > term_) {
      term_ = m.term;
      role_ = role::follower;
      voted_for_ = -1;
      heartbeat_.cancel();
    }
    switch (m.type) {
      case kind::request_vote: {
        // The flaw: grant without looking at whom we voted for this term.
        const bool may = flawed_ || voted_for_ == -1 || voted_for_ == m.from;
        const bool grant = m.term == term_ && may;
        if (grant) voted_for_ = m.from;
        if (grant) log_->info("votes for n{} in term {}", m.from, term_);
        send(m.from, {kind::vote, static_cast<std::uint8_t>(id_), static_cast<std::uint8_t>(grant), term_});
        break;
      }
      case kind::vote:
        if (role_ == role::candidate && m.term == term_ && m.granted && ++votes_ * 2 > cluster) lead();
        break;
      case kind::heartbeat:
        if (m.term == term_ && role_ != role::follower) role_ = role::follower;
        break;
    }
    if (role_ != role::leader) wait_for_election();  // any received message resets the timeout
  }

  void lead() {
    role_ = role::leader;
    log_->info("leads term {}", term_);
    history_.elected(term_, id_);
    election_.cancel();
    beat();  // a new leader broadcasts at once, then every 50 ms
  }

  void beat() {
    if (role_ != role::leader) return;
    broadcast({kind::heartbeat, static_cast<std::uint8_t>(id_), 0, term_});
    heartbeat_.expires_after(50ms);
    heartbeat_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec) self->beat();
    });
  }

  void send(int to, const message& m) {
    auto out = std::make_shared<message>(m);
    socket_.async_send_to(net::buffer(out.get(), sizeof *out), peers_[static_cast<std::size_t>(to)],
                          [out](auto, auto) {});
  }
  void broadcast(const message& m) {
    for (int i = 0; i < cluster; ++i)
      if (i != id_) send(i, m);
  }

  simasio::world& world_;
  int id_;
  std::vector<udp::endpoint> peers_;
  history& history_;
  bool flawed_;
  udp::socket socket_;
  net::steady_timer election_, heartbeat_;
  message in_{};
  udp::endpoint sender_;
  role role_ = role::follower;
  std::uint64_t term_ = 0;
  int voted_for_ = -1;
  int votes_ = 0;
  std::shared_ptr<spdlog::logger> log_;
};

// What a datagram says, for a failing seed's trace: "RequestVote term=3".
inline std::string decode(const simasio::packet_view& p) {
  if (p.payload.size() != sizeof(message)) return "";
  message m;
  std::memcpy(&m, p.payload.data(), sizeof m);
  static const char* const names[] = {"RequestVote", "Vote", "Heartbeat"};
  std::string out = std::string(names[static_cast<int>(m.type) % 3]) + " term=" + std::to_string(m.term);
  if (m.type == kind::vote) out += m.granted ? " granted" : " refused";
  return out;
}

// One seed: three nodes, three virtual seconds, the invariant every step.
inline void election(simasio::world& w, bool flawed, history& hist) {
  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 20ms;
  w.net().configure(link);
  w.net().describe_packets(decode);
  std::vector<simasio::host*> hosts;
  std::vector<udp::endpoint> peers;
  for (int i = 0; i < cluster; ++i) {
    hosts.push_back(&w.add_host("n" + std::to_string(i)));
    peers.emplace_back(hosts.back()->address(), port);
  }
  w.always("at most one leader per term", [&hist] { return !hist.split; });
  for (int i = 0; i < cluster; ++i) std::make_shared<node>(w, *hosts[static_cast<std::size_t>(i)], i, peers, hist, flawed)->start();
  w.run_for(3s);
}

}  // namespace raft_election
