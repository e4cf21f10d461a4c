// scenario.hpp — a write-ahead-log store, a client and a power cut (the sweep in main.cpp, the fuzz target in fuzz.cpp)
#ifndef SIMASIO_SAMPLE_11_SCENARIO_HPP
#define SIMASIO_SAMPLE_11_SCENARIO_HPP

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/as_tuple.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace sample_11 {

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

struct variant {
  const char* name;
  bool sync_before_ack;
  bool sync_directory;
};

inline constexpr variant ack_before_sync{"ack_before_sync", false, true};
inline constexpr variant rename_without_sync{"rename_without_sync", true, false};
inline constexpr variant fixed_store{"fixed", true, true};
inline constexpr int total_puts = 40;
inline constexpr int compact_every = 8;

// ---- records: [length u32][checksum u32][key=value] ----------------------------

inline std::uint32_t checksum(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

inline std::string encode(const std::string& key, const std::string& value) {
  const std::string payload = key + "=" + value;
  std::string rec(8, '\0');
  const auto len = static_cast<std::uint32_t>(payload.size());
  const std::uint32_t sum = checksum(payload);
  std::memcpy(rec.data(), &len, 4);
  std::memcpy(rec.data() + 4, &sum, 4);
  return rec + payload;
}

// Applies every whole record of `data` to `map`; returns where they end.
inline std::size_t decode(const std::string& data, std::map<std::string, std::string>& map) {
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

inline std::string read_whole(net::random_access_file& f) {
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
    simasio::log::logger(host_)->info("recovered {} keys ({} bytes of log)", map_.size(), wal_end_);
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
    simasio::log::logger(host_)->debug("put {} at log offset {}", key, at);
    if (++since_compaction_ == compact_every) compact();
    co_return true;
  }

  void compact() {
    since_compaction_ = 0;
    simasio::log::logger(host_)->info("compacts {} keys into /db/snap", map_.size());
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

inline net::awaitable<void> client(std::shared_ptr<client_state> st) {
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
inline void scenario(simasio::world& w, variant v, bool narrate) {
  auto recovered = std::make_shared<std::map<std::string, std::string>>();
  // The protocol is text lines: a segment's label shows them.
  w.net().describe_packets([](const simasio::packet_view& p) {
    std::string text(p.payload.data(), std::min<std::size_t>(p.payload.size(), 24));
    while (!text.empty() && text.back() == '\n') text.pop_back();
    for (char& c : text)
      if (c == '\n') c = '|';
    return text;
  });
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

}  // namespace sample_11

#endif  // SIMASIO_SAMPLE_11_SCENARIO_HPP
