// chaos.hpp — Raft's election on 5 nodes over TCP RPCs under chaos, as one
// scenario: `chaos_run(world, flawed, history)` runs one seed (see main.cpp
// for the parameters). Shared by the sample and the benchmarks.
#pragma once

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace raft_chaos {

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;
using namespace net::experimental::awaitable_operators;

constexpr std::uint16_t port = 7000;
constexpr int cluster = 5;
constexpr auto rpc_timeout = 250ms;
constexpr auto heartbeat_interval = 50ms;

enum class kind : std::uint8_t { request_vote, append_entries };

// The wire format: one fixed-size message each way.
struct request {
  kind type;
  std::uint8_t from;
  std::uint64_t term;
};
struct response {
  std::uint64_t term;
  std::uint8_t ok;  // vote granted / heartbeat accepted
};

// What a node keeps on disk: it outlives the node's process.
struct stable_store {
  std::uint64_t term = 0;
  int voted_for = -1;
};

// Who led which term, across the whole run: the invariant's memory.
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

// What a segment says, for a failing seed's trace: a request to port 7000
// ("RequestVote term=3"), a response from it ("granted term=3").
inline std::string decode(const simasio::packet_view& p) {
  if (p.kind != simasio::packet_kind::tcp_data || p.payload.size() != sizeof(request)) return "";
  if (p.to_port == port) {
    request r;
    std::memcpy(&r, p.payload.data(), sizeof r);
    return std::string(r.type == kind::request_vote ? "RequestVote" : "AppendEntries") + " term=" + std::to_string(r.term);
  }
  if (p.from_port != port) return "";
  response r;
  std::memcpy(&r, p.payload.data(), sizeof r);
  return std::string(r.ok ? "ok" : "refused") + " term=" + std::to_string(r.term);
}

enum class role { follower, candidate, leader };

class node : public std::enable_shared_from_this<node> {
 public:
  node(simasio::world& w, simasio::host& h, int id, std::vector<tcp::endpoint> peers, stable_store& disk,
       history& hist, bool flawed)
      : world_(w), id_(id), peers_(std::move(peers)), disk_(disk), history_(hist), flawed_(flawed),
        acceptor_(h.context(), tcp::endpoint(tcp::v4(), port)), election_(h.context()), heartbeat_(h.context()),
        log_(simasio::log::logger(h)) {}

  void start() {
    net::co_spawn(acceptor_.get_executor(), serve(shared_from_this()), net::detached);
    wait_for_election();
  }

  bool leading() const { return role_ == role::leader; }
  std::uint64_t term() const { return disk_.term; }

 private:
  // ---- server side -------------------------------------------------------
  static net::awaitable<void> serve(std::shared_ptr<node> self) {
    for (;;) {
      auto [ec, socket] = co_await self->acceptor_.async_accept(net::as_tuple(net::use_awaitable));
      if (ec) co_return;
      net::co_spawn(self->acceptor_.get_executor(), answer(self, std::move(socket)), net::detached);
    }
  }

  static net::awaitable<void> answer(std::shared_ptr<node> self, tcp::socket socket) {
    request req{};
    auto [ec, n] = co_await net::async_read(socket, net::buffer(&req, sizeof req), net::as_tuple(net::use_awaitable));
    if (ec) co_return;
    const response res = self->handle(req);
    co_await net::async_write(socket, net::buffer(&res, sizeof res), net::as_tuple(net::use_awaitable));
  }

  response handle(const request& req) {
    observe(req.term);
    bool ok = false;
    if (req.type == kind::request_vote) {
      // The flaw: the term alone decides.
      const bool free = flawed_ || disk_.voted_for == -1 || disk_.voted_for == req.from;
      ok = req.term == disk_.term && free;
      if (ok) {
        disk_.voted_for = req.from;  // on disk before the reply leaves
        wait_for_election();
      }
    } else {
      ok = req.term == disk_.term;
      if (ok) {
        if (role_ == role::candidate) role_ = role::follower;
        wait_for_election();
      }
    }
    return {disk_.term, static_cast<std::uint8_t>(ok)};
  }

  // A newer term seen anywhere makes this node a follower of that term.
  void observe(std::uint64_t term) {
    if (term <= disk_.term) return;
    disk_.term = term;
    disk_.voted_for = -1;
    if (role_ == role::leader) heartbeat_.cancel();
    role_ = role::follower;
    wait_for_election();
  }

  // ---- client side -------------------------------------------------------
  // One RPC: connect, send, read the answer, all within rpc_timeout. Error
  // codes, not exceptions: a refused, reset or slow call is routine here.
  static net::awaitable<std::optional<response>> call(tcp::endpoint to, request req) {
    auto ex = co_await net::this_coro::executor;
    tcp::socket socket(ex);
    net::steady_timer deadline(ex, rpc_timeout);
    auto result = co_await (exchange(socket, to, req) || deadline.async_wait(net::as_tuple(net::use_awaitable)));
    if (result.index() == 0) co_return std::get<0>(result);
    co_return std::nullopt;  // too slow
  }

  static net::awaitable<std::optional<response>> exchange(tcp::socket& socket, tcp::endpoint to, request req) {
    constexpr auto use = net::as_tuple(net::use_awaitable);
    if (auto [ec] = co_await socket.async_connect(to, use); ec) co_return std::nullopt;
    if (auto [ec, n] = co_await net::async_write(socket, net::buffer(&req, sizeof req), use); ec) co_return std::nullopt;
    response res{};
    if (auto [ec, n] = co_await net::async_read(socket, net::buffer(&res, sizeof res), use); ec) co_return std::nullopt;
    co_return res;
  }

  static net::awaitable<void> ask_for_vote(std::shared_ptr<node> self, int peer, std::uint64_t term) {
    auto res = co_await call(self->peers_[static_cast<std::size_t>(peer)],
                             {kind::request_vote, static_cast<std::uint8_t>(self->id_), term});
    if (!res) co_return;
    self->observe(res->term);
    if (self->role_ == role::candidate && self->disk_.term == term && res->ok && ++self->votes_ * 2 > cluster)
      self->lead();
  }

  static net::awaitable<void> send_heartbeat(std::shared_ptr<node> self, int peer, std::uint64_t term) {
    auto res = co_await call(self->peers_[static_cast<std::size_t>(peer)],
                             {kind::append_entries, static_cast<std::uint8_t>(self->id_), term});
    if (res) self->observe(res->term);
  }

  // ---- roles ---------------------------------------------------------------
  void wait_for_election() {
    election_.expires_after(std::chrono::milliseconds(150 + world_.random().below(298)));
    election_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec && self->role_ != role::leader) self->stand();
    });
  }

  void stand() {
    role_ = role::candidate;
    ++disk_.term;
    disk_.voted_for = id_;
    votes_ = 1;
    log_->info("stands for term {}", disk_.term);
    for (int peer = 0; peer < cluster; ++peer)
      if (peer != id_) net::co_spawn(election_.get_executor(), ask_for_vote(shared_from_this(), peer, disk_.term), net::detached);
    wait_for_election();
  }

  void lead() {
    role_ = role::leader;
    log_->info("leads term {}", disk_.term);
    history_.elected(disk_.term, id_);
    election_.cancel();
    beat();  // at once, then every 50 ms
  }

  void beat() {
    if (role_ != role::leader) return;
    for (int peer = 0; peer < cluster; ++peer)
      if (peer != id_)
        net::co_spawn(heartbeat_.get_executor(), send_heartbeat(shared_from_this(), peer, disk_.term), net::detached);
    heartbeat_.expires_after(heartbeat_interval);
    heartbeat_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec) self->beat();
    });
  }

  simasio::world& world_;
  int id_;
  std::vector<tcp::endpoint> peers_;
  stable_store& disk_;
  history& history_;
  bool flawed_;
  tcp::acceptor acceptor_;
  net::steady_timer election_, heartbeat_;
  role role_ = role::follower;
  int votes_ = 0;
  std::shared_ptr<spdlog::logger> log_;
};

// One seed. `chaos_log`, when given, receives what the chaos rounds did.
inline void chaos_run(simasio::world& w, bool flawed, history& hist, std::vector<std::string>* chaos_log = nullptr) {
  simasio::link_config link;
  link.min_latency = 500us;
  link.max_latency = 20ms;
  link.loss = 0.05;
  w.net().configure(link);
  w.net().describe_packets(decode);

  std::vector<simasio::host*> hosts;
  std::vector<tcp::endpoint> peers;
  for (int i = 0; i < cluster; ++i) {
    hosts.push_back(&w.add_host("n" + std::to_string(i)));
    peers.emplace_back(hosts.back()->address(), port);
  }
  auto disks = std::make_shared<std::array<stable_store, cluster>>();
  auto registry = std::make_shared<std::array<std::weak_ptr<node>, cluster>>();
  for (int i = 0; i < cluster; ++i)
    hosts[static_cast<std::size_t>(i)]->on_boot([&w, i, peers, disks, registry, &hist, flawed](simasio::host& h) {
      auto n = std::make_shared<node>(w, h, i, peers, (*disks)[static_cast<std::size_t>(i)], hist, flawed);
      (*registry)[static_cast<std::size_t>(i)] = n;
      n->start();
    });
  w.always("at most one leader per term", [&hist] { return !hist.split; });

  auto note = [&](std::string what) {
    if (chaos_log != nullptr) chaos_log->push_back("t=" + std::to_string(w.now() / 1ms) + "ms " + what);
  };
  auto pick = [&](std::uint64_t n) { return static_cast<std::size_t>(w.random().below(n)); };

  w.run_for(2s);  // quiet
  for (int round = 0; round < 6; ++round) {
    switch (pick(5)) {
      case 0: {  // partition 1 or 2 nodes from the rest
        std::vector<simasio::host*> rest = hosts, minority;
        const std::size_t k = 1 + pick(2);
        for (std::size_t j = 0; j < k; ++j) {
          const std::size_t at = pick(rest.size());
          minority.push_back(rest[at]);
          rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(at));
        }
        w.net().partition({minority, rest});
        std::string names;
        for (auto* h : minority) names += " " + h->name();
        note("partition" + names + " from the rest");
        break;
      }
      case 1:
        w.net().heal();
        note("heal");
        break;
      case 2: {
        simasio::host& h = *hosts[pick(cluster)];
        if (!h.up()) break;
        const bool power = pick(2) == 1;
        h.crash(power ? simasio::crash_kind::power : simasio::crash_kind::process);
        note("crash " + h.name() + (power ? " (power)" : " (process)"));
        break;
      }
      case 3: {
        std::vector<simasio::host*> down;
        for (auto* h : hosts)
          if (!h->up()) down.push_back(h);
        if (down.empty()) break;
        simasio::host& h = *down[pick(down.size())];
        h.restart();
        note("restart " + h.name());
        break;
      }
      case 4: {
        const std::size_t a = pick(cluster);
        const std::size_t b = (a + 1 + pick(cluster - 1)) % cluster;
        w.net().reset(*hosts[a], *hosts[b]);
        note("reset connections " + hosts[a]->name() + " <-> " + hosts[b]->name());
        break;
      }
    }
    w.run_for(std::chrono::milliseconds(300 + pick(501)));
  }
  w.net().heal();
  for (auto* h : hosts)
    if (!h->up()) h->restart();
  note("heal, restart everyone");
  // Liveness: within the final 3 s, some node leads in the newest term.
  auto has_leader = [&] {
    std::uint64_t newest = 0;
    for (const auto& d : *disks) newest = std::max(newest, d.term);
    for (const auto& n : *registry)
      if (auto live = n.lock(); live && live->leading() && live->term() == newest) return true;
    return false;
  };
  const simasio::duration healed_at = w.now();
  const bool led = w.run_until(has_leader, 3s);
  w.run_for(3s - (w.now() - healed_at));
  if (!led) throw std::runtime_error("no leader within 3 s of the cluster healing");
}

}  // namespace raft_chaos
