// 11_wal_store — a key-value store with a write-ahead log loses acknowledged writes to power cuts; found, shrunk, replayed.
//
// The store (host "store") serves "put key value" lines over TCP. Each put
// is appended to a write-ahead log, /db/wal, a random_access_file; every 8
// puts it compacts: the whole map goes to /db/snap.tmp, which is synced and
// renamed over /db/snap, and the log is emptied. On boot it recovers: the
// snapshot, then every whole record of the log (each carries its length and
// a checksum, so a torn tail is cut off).
//
// Two planted bugs, each a classic of real storage engines:
//   ack_before_sync     the put is acknowledged once the log write is in the
//                       page cache, before wal.sync_data();
//   rename_without_sync the snapshot is renamed (and the log created) without
//                       disk::sync_directory("/db"), so a power cut can undo
//                       the rename after the log was emptied.
// A client on host "client" puts 40 keys one at a time, reconnecting when
// the store goes away. Each seed cuts the store's power once at a random
// moment and restarts it; the scenario fails when a put acknowledged before
// the cut is missing from what the store recovered. check() finds each bug,
// shrinks its choice tape and replays it; the fixed store (sync before the
// ack, sync the directory after create and rename) passes the same seeds.
#include "../common/command_line.hpp"
#include <simasio/asio.hpp>
#include <simasio/random/tape_file.hpp>  // load_tape
#include <simasio/simasio.hpp>

#include <boost/asio/as_tuple.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

namespace {

struct variant {
  const char* name;
  bool sync_before_ack;
  bool sync_directory;
};

constexpr variant ack_before_sync{"ack_before_sync", false, true};
constexpr variant rename_without_sync{"rename_without_sync", true, false};
constexpr variant fixed_store{"fixed", true, true};
constexpr int total_puts = 40;
constexpr int compact_every = 8;

// ---- records: [length u32][checksum u32][key=value] ----------------------------

std::uint32_t checksum(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

std::string encode(const std::string& key, const std::string& value) {
  const std::string payload = key + "=" + value;
  std::string rec(8, '\0');
  const auto len = static_cast<std::uint32_t>(payload.size());
  const std::uint32_t sum = checksum(payload);
  std::memcpy(rec.data(), &len, 4);
  std::memcpy(rec.data() + 4, &sum, 4);
  return rec + payload;
}

// Applies every whole record of `data` to `map`; returns where they end.
std::size_t decode(const std::string& data, std::map<std::string, std::string>& map) {
  std::size_t at = 0;
  while (at + 8 <= data.size()) {
    std::uint32_t len = 0, sum = 0;
    std::memcpy(&len, data.data() + at, 4);
    std::memcpy(&sum, data.data() + at + 4, 4);
    if (len == 0 || len > 4096 || at + 8 + len > data.size()) break;
    const std::string payload = data.substr(at + 8, len);
    if (checksum(payload) != sum) break;  // torn or garbage: the log ends here
    const auto eq = payload.find('=');
    if (eq == std::string::npos) break;
    map[payload.substr(0, eq)] = payload.substr(eq + 1);
    at += 8 + len;
  }
  return at;
}

std::string read_whole(net::random_access_file& f) {
  std::string data(static_cast<std::size_t>(f.size()), '\0');
  boost::system::error_code ec;
  if (!data.empty()) net::read_at(f, 0, net::buffer(data), ec);
  return ec ? std::string() : data;
}

// ---- the store --------------------------------------------------------------------

class store : public std::enable_shared_from_this<store> {
 public:
  store(simasio::host& h, variant v) : host_(h), v_(v), acceptor_(h.context()), wal_(h.context()) {}

  // Boot: recover the map from the snapshot and the log, then serve.
  void start(std::map<std::string, std::string>& recovered) {
    auto& disk = host_.disk();
    if (disk.exists("/db/snap")) {
      net::random_access_file snap(host_.context(), "/db/snap", net::file_base::read_only);
      decode(read_whole(snap), map_);
    }
    const bool created = !disk.exists("/db/wal");
    wal_.open("/db/wal", net::file_base::read_write | net::file_base::create);
    if (created && v_.sync_directory) disk.sync_directory("/db");
    wal_end_ = decode(read_whole(wal_), map_);
    recovered = map_;
    acceptor_.open(tcp::v4());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(tcp::endpoint(tcp::v4(), 7000));
    acceptor_.listen();
    net::co_spawn(host_.context(), accept_loop(shared_from_this()), net::detached);
  }

 private:
  static net::awaitable<void> accept_loop(std::shared_ptr<store> self) {
    for (;;) {
      auto [ec, socket] = co_await self->acceptor_.async_accept(net::as_tuple(net::use_awaitable));
      if (ec) co_return;
      net::co_spawn(self->host_.context(), serve(self, std::move(socket)), net::detached);
    }
  }

  static net::awaitable<void> serve(std::shared_ptr<store> self, tcp::socket socket) {
    std::string buf;
    for (;;) {
      auto [ec, n] = co_await net::async_read_until(socket, net::dynamic_buffer(buf), '\n',
                                                    net::as_tuple(net::use_awaitable));
      if (ec) co_return;
      const std::string line = buf.substr(0, n - 1);
      buf.erase(0, n);
      const auto sp1 = line.find(' '), sp2 = line.rfind(' ');
      if (line.rfind("put ", 0) != 0 || sp1 == sp2) co_return;
      const std::string key = line.substr(sp1 + 1, sp2 - sp1 - 1), value = line.substr(sp2 + 1);
      if (!co_await self->put(key, value)) co_return;
      auto [wec, wn] = co_await net::async_write(socket, net::buffer(std::string("ok\n")),
                                                 net::as_tuple(net::use_awaitable));
      if (wec) co_return;
    }
  }

  // Appends the record; true once it may be acknowledged.
  net::awaitable<bool> put(const std::string& key, const std::string& value) {
    const std::string rec = encode(key, value);
    const std::uint64_t at = wal_end_;
    wal_end_ += rec.size();
    auto [ec, n] = co_await net::async_write_at(wal_, at, net::buffer(rec), net::as_tuple(net::use_awaitable));
    if (ec) co_return false;
    if (v_.sync_before_ack) {
      boost::system::error_code sync_ec;
      wal_.sync_data(sync_ec);  // a blocking fsync in the handler, as real servers do
      if (sync_ec) co_return false;
    }
    map_[key] = value;
    if (++since_compaction_ == compact_every) compact();
    co_return true;
  }

  void compact() {
    since_compaction_ = 0;
    {
      net::random_access_file tmp(host_.context(), "/db/snap.tmp",
                                  net::file_base::write_only | net::file_base::create | net::file_base::truncate);
      std::string all;
      for (const auto& [k, v] : map_) all += encode(k, v);
      net::write_at(tmp, 0, net::buffer(all));
      tmp.sync_all();
    }
    host_.disk().rename("/db/snap.tmp", "/db/snap");
    if (v_.sync_directory) host_.disk().sync_directory("/db");
    wal_.resize(0);
    wal_.sync_all();
    wal_end_ = 0;
  }

  simasio::host& host_;
  variant v_;
  tcp::acceptor acceptor_;
  net::random_access_file wal_;
  std::uint64_t wal_end_ = 0;
  int since_compaction_ = 0;
  std::map<std::string, std::string> map_;
};

// ---- the client ---------------------------------------------------------------------

struct client_state {
  std::map<std::string, std::string> acked;
  int next = 0;
  bool done = false;
};

net::awaitable<void> client(std::shared_ptr<client_state> st) {
  auto ex = co_await net::this_coro::executor;
  tcp::resolver resolver(ex);
  while (st->next < total_puts) {
    tcp::socket socket(ex);
    auto [rec, results] = co_await resolver.async_resolve("store", "7000", net::as_tuple(net::use_awaitable));
    auto [cec, ep] = co_await net::async_connect(socket, results, net::as_tuple(net::use_awaitable));
    std::string buf;
    while (!cec && st->next < total_puts) {
      const std::string key = "k" + std::to_string(st->next), value = "v" + std::to_string(st->next);
      // A store that lost power never answers (and never resets the
      // connection): give up on a reply after a second.
      net::steady_timer deadline(ex, 1s);
      deadline.async_wait([&socket](boost::system::error_code e) {
        if (!e) socket.close();
      });
      auto [wec, wn] = co_await net::async_write(socket, net::buffer("put " + key + " " + value + "\n"),
                                                 net::as_tuple(net::use_awaitable));
      if (wec) break;
      auto [ec, n] = co_await net::async_read_until(socket, net::dynamic_buffer(buf), '\n',
                                                    net::as_tuple(net::use_awaitable));
      if (ec) break;
      buf.erase(0, n);
      st->acked[key] = value;
      ++st->next;
    }
    if (st->next < total_puts) {  // the store went away: try again shortly
      net::steady_timer pause(ex, 50ms);
      co_await pause.async_wait(net::use_awaitable);
    }
  }
  st->done = true;
}

// One seed: the client puts 40 keys; the store loses power once, at a moment
// drawn from the seed, and restarts 100 ms later.
void scenario(simasio::world& w, variant v, bool narrate) {
  auto recovered = std::make_shared<std::map<std::string, std::string>>();
  auto& s = w.add_host("store");
  s.on_boot([v, recovered](simasio::host& h) { std::make_shared<store>(h, v)->start(*recovered); });
  auto st = std::make_shared<client_state>();
  net::co_spawn(w.add_host("client").context(), client(st), net::detached);
  const auto cut = std::chrono::milliseconds(w.random().between(20, 400));
  w.run_for(cut);
  const auto acked_before = st->acked;
  s.crash(simasio::crash_kind::power);
  w.run_for(100ms);
  s.restart();
  if (narrate)
    std::printf("    power cut at t=%lld ms after %zu acknowledged puts; the store recovered %zu keys\n",
                static_cast<long long>(cut.count()), acked_before.size(), recovered->size());
  for (const auto& [key, value] : acked_before) {
    const auto it = recovered->find(key);
    if (it == recovered->end() || it->second != value)
      throw std::runtime_error("acknowledged write lost after restart: " + key + "=" + value + " (acknowledged before the power cut at t=" +
                               std::to_string(cut.count()) + " ms)");
  }
  if (!w.run_until([&] { return st->done; }, 30s))
    throw std::runtime_error("the client did not finish its puts: " + w.pending_report());
}

int find_shrink_replay(const variant& v, simasio::check_options opts) {
  opts.name = v.name;
  const auto result = simasio::check([&](simasio::world& w) { scenario(w, v, false); }, opts);
  if (result.ok()) {
    std::printf("%s: no lost write found in %llu seeds\n", v.name, static_cast<unsigned long long>(result.runs));
    return 1;
  }
  const simasio::failure& f = *result.failure;
  std::printf("%s: found at seed %llu (after %llu seeds): %s\n", v.name, static_cast<unsigned long long>(f.seed),
              static_cast<unsigned long long>(result.runs), f.what.c_str());
  std::printf("  replay: %s\n", f.replay.c_str());
  try {
    simasio::replay([&](simasio::world& w) { scenario(w, v, true); }, f.seed);
    std::printf("  replay: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  replay reproduces it\n");
  }
  if (f.tape_path.empty()) {
    std::printf("  no shrunk tape was saved (%s)\n", f.not_shrunk.c_str());
    return 1;
  }
  const simasio::saved_tape tape = simasio::load_tape(f.tape_path);
  simasio::world_options replay_opts;
  replay_opts.replay_tape = std::make_shared<const simasio::saved_tape>(tape);
  replay_opts.on_tape_mismatch = simasio::tape_mismatch::polite;
  try {
    simasio::replay([&](simasio::world& w) { scenario(w, v, false); }, tape.seed, replay_opts);
    std::printf("  shrunk tape: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  shrunk tape (%llu of %llu draws kept, %llu not polite) reproduces it\n",
                static_cast<unsigned long long>(f.shrunk_choices), static_cast<unsigned long long>(f.original_choices),
                static_cast<unsigned long long>(f.deviations));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::uint64_t seeds = 300;
  sample::read_command_line(argc, argv, seeds);
  std::printf("simasio: a key-value store with a write-ahead log, %d puts, one power cut per seed\n\n", total_puts);
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.print = false;
  if (find_shrink_replay(ack_before_sync, opts) != 0) return 1;
  if (find_shrink_replay(rename_without_sync, opts) != 0) return 1;
  opts.name = fixed_store.name;
  const auto fixed = simasio::check([](simasio::world& w) { scenario(w, fixed_store, false); }, opts);
  if (!fixed.ok()) {
    std::printf("fixed store: FAILED at seed %llu: %s\n", static_cast<unsigned long long>(fixed.failure->seed),
                fixed.failure->what.c_str());
    return 1;
  }
  std::printf("fixed store (sync before ack, directory synced): no acknowledged write lost over %llu seeds\n",
              static_cast<unsigned long long>(fixed.runs));
  return 0;
}
