// scenario.hpp — a store whose recovery holds back puts (the sweep in main.cpp, the fuzz target in fuzz.cpp)
#ifndef SIMASIO_SAMPLE_13_SCENARIO_HPP
#define SIMASIO_SAMPLE_13_SCENARIO_HPP

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sample_13 {

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;
using namespace net::experimental::awaitable_operators;

inline constexpr int puts = 60;

// What survives the store's crashes (its files, in effect).
struct durable {
  std::set<int> snapshot;
  std::vector<int> log;
};

// The store. Recovery after a crash folds the log into the snapshot, which
// takes 30 ms; puts that arrive meanwhile are acknowledged. The fixed
// store logs them as usual; the planted bug: the flawed store keeps them
// in memory and appends them to the log when recovery ends, so a second
// crash during recovery loses puts it acknowledged.
class store : public std::enable_shared_from_this<store> {
 public:
  store(simasio::host& h, std::shared_ptr<durable> disk, bool flawed)
      : acceptor_(h.context(), tcp::endpoint(tcp::v4(), 9)), recovery_(h.context()), disk_(std::move(disk)), flawed_(flawed) {}

  void start() {
    auto self = shared_from_this();
    if (!disk_->log.empty()) {
      recovering_ = true;
      recovery_.expires_after(30ms);
      recovery_.async_wait([self](boost::system::error_code ec) {
        if (ec) return;
        auto& d = *self->disk_;
        d.snapshot.insert(d.log.begin(), d.log.end());
        d.log = std::move(self->held_);  // what came in meanwhile (the fixed store holds nothing back)
        self->recovering_ = false;
      });
    }
    net::co_spawn(acceptor_.get_executor(), accept(self), net::detached);
  }

 private:
  static net::awaitable<void> accept(std::shared_ptr<store> self) {
    for (;;) {
      auto [ec, socket] = co_await self->acceptor_.async_accept(net::as_tuple(net::use_awaitable));
      if (ec) co_return;
      net::co_spawn(self->acceptor_.get_executor(), serve(self, std::move(socket)), net::detached);
    }
  }
  static net::awaitable<void> serve(std::shared_ptr<store> self, tcp::socket socket) {
    std::string buf;
    for (;;) {
      auto [ec, n] = co_await net::async_read_until(socket, net::dynamic_buffer(buf), '\n', net::as_tuple(net::use_awaitable));
      if (ec) co_return;
      const int key = std::atoi(buf.substr(0, n - 1).c_str());
      buf.erase(0, n);
      self->put(key);
      auto [wec, wn] = co_await net::async_write(socket, net::buffer(std::to_string(key) + "\n"), net::as_tuple(net::use_awaitable));
      if (wec) co_return;
    }
  }
  void put(int key) {
    const auto& d = *disk_;
    const bool known = d.snapshot.count(key) != 0 || std::find(d.log.begin(), d.log.end(), key) != d.log.end() ||
                       std::find(held_.begin(), held_.end(), key) != held_.end();
    if (known) return;
    if (flawed_ && recovering_) held_.push_back(key);  // the planted bug
    else disk_->log.push_back(key);
  }

  tcp::acceptor acceptor_;
  net::steady_timer recovery_;
  std::shared_ptr<durable> disk_;
  bool flawed_;
  bool recovering_ = false;
  std::vector<int> held_;
};

struct client_state {
  std::set<int> acked;
  bool done = false;
};

// Puts keys 0..59, one at a time. A connection the store resets (it
// crashed) is made again at once; a put with no answer in 30 ms (a lost
// segment waiting for its retransmission, a partition) makes the client
// back off for 300 ms: the cautious reaction to a slow network.
inline net::awaitable<void> client(tcp::endpoint store_at, std::shared_ptr<client_state> st) {
  auto ex = co_await net::this_coro::executor;
  int key = 0;
  while (key < puts) {
    tcp::socket socket(ex);
    auto [cec] = co_await socket.async_connect(store_at, net::as_tuple(net::use_awaitable));
    bool slow = false;
    std::string buf;
    while (!cec && key < puts) {
      net::steady_timer deadline(ex, 30ms);
      deadline.async_wait([&socket, &slow](boost::system::error_code e) {
        if (e) return;
        slow = true;
        socket.close();
      });
      auto [wec, wn] = co_await net::async_write(socket, net::buffer(std::to_string(key) + "\n"), net::as_tuple(net::use_awaitable));
      if (wec) break;
      auto [ec, n] = co_await net::async_read_until(socket, net::dynamic_buffer(buf), '\n', net::as_tuple(net::use_awaitable));
      if (ec) break;
      buf.erase(0, n);
      st->acked.insert(key++);
    }
    net::steady_timer pause(ex, slow ? 300ms : 2ms);
    co_await pause.async_wait(net::use_awaitable);
  }
  st->done = true;
}

inline void scenario(simasio::world& w, bool flawed) {
  auto disk = std::make_shared<durable>();
  auto& s = w.add_host("store");
  auto& c = w.add_host("client");
  s.on_boot([disk, flawed](simasio::host& h) { std::make_shared<store>(h, disk, flawed)->start(); });
  auto st = std::make_shared<client_state>();
  net::co_spawn(c.context(), client(tcp::endpoint(s.address(), 9), st), net::detached);

  const simasio::fault_mix& mix = w.faults();
  simasio::rng& nemesis = w.random("nemesis");
  int partition_rounds = 0;
  for (int round = 0; round < 8; ++round) {  // 200 ms of faults, in 25 ms rounds
    if (partition_rounds > 0 && --partition_rounds == 0) w.net().heal();
    if (nemesis.chance(mix.crashes)) {
      s.crash(simasio::crash_kind::process);  // down for 5 ms, then it recovers
      w.run_for(5ms);
      s.restart();
      w.run_for(20ms);
      continue;
    }
    if (partition_rounds == 0 && nemesis.chance(mix.partitions)) {
      w.net().partition({{&s}, {&c}});
      partition_rounds = 2;
    }
    w.run_for(25ms);
  }
  w.net().heal();
  if (!s.up()) s.restart();
  if (!w.run_until([&] { return st->done; }, 600s))
    throw std::runtime_error("the client did not finish its puts: " + w.pending_report());
  const auto& d = *disk;
  for (int key : st->acked) {
    if (d.snapshot.count(key) == 0 && std::find(d.log.begin(), d.log.end(), key) == d.log.end())
      throw std::runtime_error("acknowledged put " + std::to_string(key) + " is in neither the snapshot nor the log");
  }
}

// The fixed mix the sample compares swarm testing with: each family at the
// middle of its swarm range.
inline simasio::fault_mix fixed_mix() {
  simasio::fault_mix m;
  m.loss = 0.05;
  m.duplicate = 0.025;
  m.partitions = 0.14;
  m.crashes = 0.14;
  m.drift_ppb = 250'000;
  m.disk_faults = 0.0025;
  return m;
}

}  // namespace sample_13

#endif  // SIMASIO_SAMPLE_13_SCENARIO_HPP
