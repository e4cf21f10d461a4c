// 13_swarm_recovery — a bug that needs many crashes and no loss, found by swarm testing in fewer seeds than by one fixed fault mix.
//
// A key-value store (host "store") logs each put before acknowledging it;
// its log and snapshot stand for files that survive its crashes. After a
// crash, recovery folds the log into the snapshot, which takes 30 ms, and
// puts that arrive meanwhile are acknowledged. The planted bug: the flawed
// store keeps those puts in memory until recovery ends, so a second crash
// during recovery loses puts it acknowledged. The fixed store logs them.
//
// A client (host "client") puts keys 0..59 over TCP, one at a time. A
// connection reset by the store's crash is made again at once; a put with
// no answer in 30 ms (a lost segment waiting for its retransmission, a
// partition) makes it back off for 300 ms, the cautious reaction to a slow
// network. For the first 200 ms, a fault loop of 25 ms rounds crashes the
// store (chance world::faults().crashes per round; it is back 5 ms later)
// or partitions it from the client for 50 ms (faults().partitions); loss,
// duplication, clock drift and disk faults come from the same mix and are
// applied by the world.
//
// So the bug needs two crashes in a row while puts flow: many crashes and
// no loss (every loss sends the client into its back-off, and a client that
// waits sends nothing to lose). The fixed mix is the swarm's average (every
// family on at once at half the middle of its range); swarm testing draws
// a mix per seed, so some seeds have no loss and many crashes. The sample
// sweeps independent seed ranges under the fixed mix with the random-walk
// and PCT schedulers and under swarm testing, and prints the seeds each
// took to its first failure; then it shows one swarm failure as check()
// reports it (the seed's mix is in the report and in the replay line) and
// checks the fixed store under swarm testing.
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;
using namespace net::experimental::awaitable_operators;

namespace {

constexpr int puts = 60;

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
net::awaitable<void> client(tcp::endpoint store_at, std::shared_ptr<client_state> st) {
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

void scenario(simasio::world& w, bool flawed) {
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

simasio::fault_mix fixed_mix() {
  simasio::fault_mix m;
  m.loss = 0.05;
  m.duplicate = 0.025;
  m.partitions = 0.14;
  m.crashes = 0.14;
  m.drift_ppb = 250'000;
  m.disk_faults = 0.0025;
  return m;
}

enum class mode { fixed, pct, swarm };

// Seeds from first_seed until the first failure (0 if none within cap).
std::uint64_t seeds_to_failure(mode m, std::uint64_t first_seed, std::uint64_t cap) {
  simasio::check_options opts;
  opts.first_seed = first_seed;
  opts.seeds = cap;
  opts.print = false;
  opts.shrink = false;
  opts.artifacts = false;
  opts.swarm = m == mode::swarm;
  opts.world.faults = fixed_mix();
  if (m == mode::pct) opts.world.strategy = simasio::strategy::pct;
  const auto r = simasio::check([](simasio::world& w) { scenario(w, true); }, opts);
  return r.ok() ? 0 : r.runs;
}

// The fixed store under swarm testing.
int check_fixed(std::uint64_t seeds) {
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.swarm = true;
  opts.name = "fixed_recovery";
  const auto fixed = simasio::check([](simasio::world& w) { scenario(w, false); }, opts);
  if (!fixed.ok()) return 1;  // check() printed the failure
  std::printf("fixed store (logs what comes in during recovery): no lost put over %llu swarm seeds\n",
              static_cast<unsigned long long>(fixed.runs));
  return 0;
}

std::uint64_t parse(const char* prog, const char* flag, const char* text) {
  char* end = nullptr;
  const std::uint64_t n = std::strtoull(text, &end, 10);
  if (*end != '\0' || n == 0) {
    std::fprintf(stderr, "%s: %s '%s' is not a positive number\n", prog, flag, text);
    std::exit(2);
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::uint64_t sweeps = 20, cap = 3000;
  bool only_fixed = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--fixed") == 0) {
      only_fixed = true;
    } else if (std::strcmp(argv[i], "--sweeps") == 0 && i + 1 < argc) {
      sweeps = parse(argv[0], "--sweeps", argv[++i]);
    } else if (std::strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
      cap = parse(argv[0], "--seeds", argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--fixed] [--sweeps N] [--seeds MAX_PER_SWEEP]\n", argv[0]);
      return 2;
    }
  }
  std::printf("simasio: a store whose recovery holds back puts, crashes and partitions in 25 ms rounds\n\n");
  if (only_fixed) return check_fixed(cap);
  std::printf("seeds to the first lost put, %llu sweeps of up to %llu seeds each (sweep k starts at seed k x 1,000,000)\n\n",
              static_cast<unsigned long long>(sweeps), static_cast<unsigned long long>(cap));
  std::printf("| exploration | found in | mean seeds | median seeds | worst |\n|---|---|---|---|---|\n");
  for (const auto& [m, label] : {std::pair{mode::fixed, "fixed mix, random walk"}, std::pair{mode::pct, "fixed mix, PCT"},
                                 std::pair{mode::swarm, "swarm (a mix per seed)"}}) {
    std::vector<std::uint64_t> found;
    for (std::uint64_t k = 0; k < sweeps; ++k)
      if (const std::uint64_t n = seeds_to_failure(m, k * 1'000'000, cap); n != 0) found.push_back(n);
    std::sort(found.begin(), found.end());
    double mean = 0;
    for (std::uint64_t n : found) mean += static_cast<double>(n);
    if (!found.empty()) mean /= static_cast<double>(found.size());
    std::printf("| %s | %zu/%llu | %.1f | %llu | %llu |\n", label, found.size(), static_cast<unsigned long long>(sweeps),
                mean, static_cast<unsigned long long>(found.empty() ? 0 : found[found.size() / 2]),
                static_cast<unsigned long long>(found.empty() ? 0 : found.back()));
  }

  // One swarm failure as a user sees it: the seed's mix is printed, and
  // the replay line (SIMASIO_SWARM=1 with the seed) reproduces it.
  simasio::check_options opts;
  opts.seeds = cap;
  opts.print = false;
  opts.swarm = true;
  opts.name = "flawed_recovery";
  const auto flawed = simasio::check([](simasio::world& w) { scenario(w, true); }, opts);
  if (flawed.ok()) {
    std::printf("\nflawed recovery under swarm testing: no lost put in %llu seeds\n",
                static_cast<unsigned long long>(flawed.runs));
    return 1;
  }
  const simasio::failure& f = *flawed.failure;
  std::printf("\nflawed recovery, swarm: %s at seed %llu (after %llu seeds)\n  this seed's faults: %s\n  replay: %s\n",
              f.what.c_str(), static_cast<unsigned long long>(f.seed), static_cast<unsigned long long>(flawed.runs),
              f.faults.c_str(), f.replay.c_str());
  simasio::world_options swarm_world;
  swarm_world.swarm = true;
  try {
    simasio::replay([](simasio::world& w) { scenario(w, true); }, f.seed, swarm_world);
    std::printf("  replay did not fail\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  replay reproduces it\n");
  }
  if (!f.tape_path.empty())
    std::printf("  shrunk: %llu choices -> %llu deviations; tape: %s\n",
                static_cast<unsigned long long>(f.original_choices), static_cast<unsigned long long>(f.deviations),
                f.tape_path.c_str());

  return check_fixed(1000);
}
