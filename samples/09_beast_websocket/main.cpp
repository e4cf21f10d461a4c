// 09_beast_websocket — a Beast websocket chat under partitions and a server
// crash: a reconnect that re-sends a message without an id.
//
// A Boost.Beast websocket chat server (websocket::stream<beast::tcp_stream>,
// Beast's suggested server timeouts) runs on host "server". It appends each
// chat message to a history that survives its crashes (what its disk would
// hold: kept by the scenario, outside the process), then broadcasts it to
// every member and acknowledges it to the sender. A client that joins says
// how much of the history it has, and the server sends it the rest first.
//
// Three clients on their own hosts each send 6 messages, one at a time, the
// next 100-600 ms after the previous one was acknowledged. A client pings
// the server after 1 s of silence and gives up on a connection after 2 s
// (Beast's idle timeout and keep-alive pings), then reconnects with a
// jittered, doubling backoff and re-sends the message it has not seen
// acknowledged. Per seed: 1-30 ms of latency, 0-5% of segments lost, a
// partition cutting one or two clients from the server, a server crash (its
// process, or its power) with a restart, and a second partition, each at a
// seeded time for a seeded while.
//
// The naive client re-sends the bare text: when the first copy reached the
// server after all (before a partition, or late: retransmitted on the old
// connection once the partition healed) but its acknowledgement never
// reached the client, the history holds it twice. "Every message at most
// once in the history" is checked after every step; at the end every
// acknowledged message must be in the history and every client's
// transcript must equal the history. The fixed client tags each message
// with its (client, sequence) id; the server acknowledges an id it already
// has without appending it again, and rebuilds its set of ids from the
// history when it restarts.
//
// The sweep finds a naive seed, check() shrinks its choice tape, and the
// seed and the shrunk tape are replayed with a narrator. Then the fixed
// client runs the same seeds. `--naive` stops after the replays.
//
// Beast's websocket timeouts run on Asio's own timers; simasio::interpose
// (linked by CMakeLists.txt) puts them on virtual time.
#include "../common/command_line.hpp"
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <simasio/beast.hpp>
#include <simasio/random/tape_file.hpp>  // load_tape: <simasio/simasio.hpp> does not include it
#include <simasio/simasio.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace net = simasio::asio;
namespace beast = simasio::beast;
namespace websocket = beast::websocket;
using net::ip::tcp;
using namespace std::chrono_literals;
using namespace net::experimental::awaitable_operators;

namespace {

constexpr int clients = 3;
constexpr int messages_per_client = 6;
constexpr auto use = net::as_tuple(net::use_awaitable);

// A frame is a header line, then the text: "join c1 7" (c1 has entries 0-6
// of the history: the rest, please), "say" or "say c1/3" (the id), "ack" or
// "ack c1/3", "msg 7" (entry 7).
std::pair<std::string, std::string> split(const std::string& frame) {
  const auto nl = frame.find('\n');
  if (nl == std::string::npos) return {frame, {}};
  return {frame.substr(0, nl), frame.substr(nl + 1)};
}

// What happened, with virtual times, for the replays' report: a line is
// about a client (its name) or about the faults (""). A sweep does not tell.
struct story {
  simasio::world* w = nullptr;  // null: nobody is listening
  std::vector<std::pair<std::string, std::string>> lines;
  void tell(const std::string& about, const std::string& what) {
    if (w != nullptr) lines.emplace_back(about, "t=" + std::to_string(w->now() / 1ms) + "ms " + what);
  }
};

// ---- the server's disk --------------------------------------------------------

// The chat history. The server appends a message before acknowledging it;
// the scenario holds it, so it outlives every crash of the server's process.
struct chat_log {
  struct entry {
    std::string id;  // "c1/3", or empty from a naive client
    std::string text;
  };
  std::vector<entry> entries;
  // The sample's observations, not the server's data: copies of each text,
  // the first text appended twice, and re-sends the server recognised.
  std::map<std::string, int> copies;
  std::string duplicate;
  int deduplicated = 0;

  std::size_t append(entry e) {
    if (++copies[e.text] == 2 && duplicate.empty()) duplicate = e.text;
    entries.push_back(std::move(e));
    return entries.size() - 1;
  }
};

// ---- the server's process -------------------------------------------------------

class chat_room;

// One member's connection: a read loop, and a queue of frames to write
// (a websocket allows one write at a time; broadcasts must not wait on a slow member).
class session : public std::enable_shared_from_this<session> {
 public:
  session(tcp::socket socket, std::shared_ptr<chat_room> room, std::uint64_t id)
      : ws_(std::move(socket)), room_(std::move(room)), id_(id) {}

  static net::awaitable<void> run(std::shared_ptr<session> self);

  std::uint64_t id() const { return id_; }
  const std::string& member() const { return member_; }
  void joined(std::string member) { member_ = std::move(member); }

  void send(std::string frame) {
    if (failed_) return;
    queue_.push_back(std::move(frame));
    if (queue_.size() == 1) write_next();
  }

 private:
  void write_next() {
    ws_.async_write(net::buffer(queue_.front()), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) {
        self->failed_ = true;  // the read loop sees the failure too and leaves the room
        self->queue_.clear();
        return;
      }
      self->queue_.pop_front();
      if (!self->queue_.empty()) self->write_next();
    });
  }

  websocket::stream<beast::tcp_stream> ws_;
  std::shared_ptr<chat_room> room_;
  std::uint64_t id_;
  std::string member_;  // the client's name, from its join
  std::deque<std::string> queue_;
  bool failed_ = false;
};

// Everything here dies with the server's process; the log does not.
class chat_room : public std::enable_shared_from_this<chat_room> {
 public:
  chat_room(simasio::host& h, chat_log& log, story& told)
      : log_(log), told_(told), acceptor_(h.context(), tcp::endpoint(tcp::v4(), 80)) {
    for (const auto& e : log_.entries)  // recovery: the ids already in the history
      if (!e.id.empty()) seen_.insert(e.id);
  }

  void start() { net::co_spawn(acceptor_.get_executor(), accept_loop(shared_from_this()), net::detached); }

  void on_frame(session& from, const std::string& frame) {
    const auto [header, text] = split(frame);
    if (header.starts_with("join ")) {
      const auto space = header.find(' ', 5);
      from.joined(header.substr(5, space - 5));
      const std::size_t have = std::stoul(header.substr(space + 1));
      for (std::size_t i = have; i < log_.entries.size(); ++i) from.send(message(i));
      members_[from.id()] = from.weak_from_this();
    } else if (header == "say" || header.starts_with("say ")) {
      const std::string id = header.size() > 4 ? header.substr(4) : std::string();
      const std::string ack = id.empty() ? "ack" : "ack " + id;
      if (!id.empty() && seen_.contains(id)) {  // a re-send of a message in the history: acknowledge it again
        ++log_.deduplicated;
        told_.tell(from.member(), "the server has " + id + " already: acknowledges it again, appends nothing");
        from.send(ack);
        return;
      }
      const std::size_t index = log_.append({id, text});  // durable before anyone hears of it
      told_.tell(from.member(), "the server appends \"" + text + "\" as entry " + std::to_string(index));
      if (!id.empty()) seen_.insert(id);
      for (auto it = members_.begin(); it != members_.end();) {  // in join order: ids, not pointers
        if (auto member = it->second.lock()) {
          member->send(message(index));
          ++it;
        } else {
          it = members_.erase(it);
        }
      }
      from.send(ack);
    }
  }

  void leave(const session& s, const beast::error_code& ec) {
    told_.tell(s.member(), "the server's session with " + s.member() + " ends: " + ec.message());
    members_.erase(s.id());
  }

 private:
  std::string message(std::size_t index) const {
    return "msg " + std::to_string(index) + "\n" + log_.entries[index].text;
  }

  static net::awaitable<void> accept_loop(std::shared_ptr<chat_room> self) {
    for (;;) {
      auto [ec, socket] = co_await self->acceptor_.async_accept(use);
      if (ec) co_return;
      auto s = std::make_shared<session>(std::move(socket), self, ++self->sessions_);
      net::co_spawn(self->acceptor_.get_executor(), session::run(s), net::detached);
    }
  }

  chat_log& log_;
  story& told_;
  tcp::acceptor acceptor_;
  std::set<std::string> seen_;
  std::map<std::uint64_t, std::weak_ptr<session>> members_;
  std::uint64_t sessions_ = 0;
};

net::awaitable<void> session::run(std::shared_ptr<session> self) {
  self->ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  if (auto [ec] = co_await self->ws_.async_accept(use); ec) co_return;
  beast::flat_buffer buffer;
  for (;;) {
    auto [ec, n] = co_await self->ws_.async_read(buffer, use);
    if (ec) {
      self->room_->leave(*self, ec);
      co_return;
    }
    self->room_->on_frame(*self, beast::buffers_to_string(buffer.data()));
    buffer.consume(n);
  }
}

// ---- the clients ----------------------------------------------------------------

// What a client knows; its host never crashes, so it lives with the scenario.
struct client_state {
  std::string name;
  int acked = 0;                        // messages the server acknowledged, in order
  int written = 0;                      // messages written at least once
  int resent = 0;                       // writes of a message written before
  int connections = 0;                  // joins
  std::vector<std::string> transcript;  // the history as this client received it
  std::string gap;                      // a broadcast that skipped an entry (never expected)
  std::array<simasio::duration, messages_per_client> think{};  // the user's pause after each ack
  story* told = nullptr;

  std::string text(int seq) const { return name + " says #" + std::to_string(seq); }
  std::string id(int seq) const { return name + "/" + std::to_string(seq); }
};

using websocket_stream = websocket::stream<beast::tcp_stream>;

bool cancelled(net::cancellation_state cs) { return cs.cancelled() != net::cancellation_type::none; }

// Reads every frame: acknowledgements wake the sender, broadcasts extend
// the transcript. Returns how the connection ended.
net::awaitable<beast::error_code> receive(websocket_stream& ws, client_state& c, net::steady_timer& wake,
                                          bool with_ids) {
  beast::flat_buffer buffer;
  for (;;) {
    auto [ec, n] = co_await ws.async_read(buffer, use);
    if (ec) co_return ec;
    const auto [header, text] = split(beast::buffers_to_string(buffer.data()));
    buffer.consume(n);
    if (header.starts_with("ack")) {
      // The naive client takes any ack for the message in flight (there is one per connection).
      if (c.acked < messages_per_client && (!with_ids || header == "ack " + c.id(c.acked))) {
        c.told->tell(c.name, c.name + " gets the ack for \"" + c.text(c.acked) + "\"");
        ++c.acked;
        wake.cancel();
      }
    } else if (header.starts_with("msg ")) {
      const std::size_t index = std::stoul(header.substr(4));
      if (index == c.transcript.size()) {
        c.transcript.push_back(text);
      } else if (index > c.transcript.size() && c.gap.empty()) {
        c.gap = "entry " + std::to_string(index) + " arrived after " + std::to_string(c.transcript.size());
      }
    }
  }
}

// Sends the first unacknowledged message (again, after a reconnect), waits
// for its ack, lets the user think, and goes on; with everything
// acknowledged it waits until the connection ends.
net::awaitable<void> send(websocket_stream& ws, client_state& c, net::steady_timer& wake, bool with_ids) {
  auto ex = co_await net::this_coro::executor;
  for (;;) {
    const int seq = c.acked;
    if (seq < messages_per_client) {
      c.told->tell(c.name, c.name + (seq < c.written ? " sends again \"" : " sends \"") + c.text(seq) + "\"");
      if (seq < c.written) ++c.resent;
      c.written = std::max(c.written, seq + 1);
      const std::string frame = (with_ids ? "say " + c.id(seq) : std::string("say")) + "\n" + c.text(seq);
      if (auto [ec, n] = co_await ws.async_write(net::buffer(frame), use); ec) co_return;
    }
    while (c.acked == seq) {  // (with everything acknowledged: until the connection ends)
      wake.expires_at(net::steady_timer::time_point::max());
      co_await wake.async_wait(use);
      if (cancelled(co_await net::this_coro::cancellation_state)) co_return;
    }
    net::steady_timer think(ex, c.think[static_cast<std::size_t>(seq)]);
    co_await think.async_wait(use);
    if (cancelled(co_await net::this_coro::cancellation_state)) co_return;
  }
}

// One connection, from connect to failure. True if it got as far as joining.
net::awaitable<bool> connection(client_state& c, bool with_ids) {
  auto ex = co_await net::this_coro::executor;
  tcp::resolver resolver(ex);
  auto [rec, endpoints] = co_await resolver.async_resolve("server", "80", use);
  if (rec) co_return false;
  websocket_stream ws(ex);
  beast::get_lowest_layer(ws).expires_after(1s);
  if (auto [ec, ep] = co_await beast::get_lowest_layer(ws).async_connect(endpoints, use); ec) co_return false;
  beast::get_lowest_layer(ws).expires_never();  // from here on, the websocket's own timeouts
  websocket::stream_base::timeout opt{};
  opt.handshake_timeout = 1s;
  opt.idle_timeout = 2s;  // a ping after 1 s of silence; no answer within 2 s ends the connection
  opt.keep_alive_pings = true;
  ws.set_option(opt);
  if (auto [ec] = co_await ws.async_handshake("server", "/chat", use); ec) co_return false;
  const std::string join = "join " + c.name + " " + std::to_string(c.transcript.size());
  if (auto [ec, n] = co_await ws.async_write(net::buffer(join), use); ec) co_return false;
  const int k = ++c.connections;
  c.told->tell(c.name, c.name + " joins (connection " + std::to_string(k) + ")");
  net::steady_timer wake(ex);
  const auto ended = co_await (receive(ws, c, wake, with_ids) || send(ws, c, wake, with_ids));
  c.told->tell(c.name, c.name + "'s connection " + std::to_string(k) + " ends: " +
                           (ended.index() == 0 ? std::get<0>(ended).message() : std::string("a write failed")));
  co_return true;
}

net::awaitable<void> chat_client(simasio::world& w, client_state& c, bool with_ids) {
  auto ex = co_await net::this_coro::executor;
  auto backoff = 100ms;
  for (;;) {
    if (co_await connection(c, with_ids)) backoff = 100ms;
    net::steady_timer pause(ex, backoff + w.random().between(0ms, backoff / 2));
    co_await pause.async_wait(use);
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, 1600ms);
  }
}

// ---- one seed ----------------------------------------------------------------------

struct outcome {
  chat_log log;
  std::array<client_state, clients> cs;
  story told;  // told only when outcome::narrate
  bool narrate = false;
  bool power_crash = false;
};

// A seed's faults, drawn before anything runs: they head the choice tape,
// so shrinking can keep them while it makes the rest of the run polite.
struct fault_plan {
  struct cut {
    simasio::duration after, lasts;
    std::vector<std::size_t> clients;  // one or two, cut from the server
  };
  std::uint64_t loss_permille = 0;
  cut first, second;
  simasio::duration crash_after{}, down_for{};
  bool power = false;

  explicit fault_plan(simasio::rng& rnd) {
    loss_permille = rnd.below(51);  // 0-5%
    first = draw_cut(rnd, 200ms, 1500ms);
    crash_after = rnd.between(0ms, 1500ms);  // after the first partition heals
    down_for = rnd.between(200ms, 2000ms);
    power = rnd.chance(0.5);
    second = draw_cut(rnd, 0ms, 1000ms);  // after the restart
  }

 private:
  static cut draw_cut(simasio::rng& rnd, simasio::duration lo, simasio::duration hi) {
    cut c{rnd.between(lo, hi), rnd.between(500ms, 2500ms), {}};
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < clients; ++i) all.push_back(i);
    for (std::size_t n = 1 + rnd.below(2); n > 0; --n) {
      const std::size_t at = rnd.below(all.size());
      c.clients.push_back(all[at]);
      all.erase(all.begin() + static_cast<std::ptrdiff_t>(at));
    }
    std::sort(c.clients.begin(), c.clients.end());
    return c;
  }
};

void chat_run(simasio::world& w, bool with_ids, outcome& out) {
  const fault_plan plan(w.random());
  for (auto& c : out.cs)
    for (auto& pause : c.think) pause = w.random().between(100ms, 600ms);

  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 30ms;
  link.loss = static_cast<double>(plan.loss_permille) / 1000.0;
  w.net().configure(link);

  auto& server = w.add_host("server");
  std::vector<simasio::host*> client_hosts;
  for (int i = 0; i < clients; ++i) client_hosts.push_back(&w.add_host("c" + std::to_string(i)));
  if (out.narrate) out.told.w = &w;
  server.on_boot([&out](simasio::host& h) { std::make_shared<chat_room>(h, out.log, out.told)->start(); });
  for (std::size_t i = 0; i < clients; ++i) {
    auto& c = out.cs[i];
    c.name = client_hosts[i]->name();
    c.told = &out.told;
    net::co_spawn(client_hosts[i]->context(), chat_client(w, c, with_ids), net::detached);
  }
  w.always("every message at most once in the history", [&out] { return out.log.duplicate.empty(); });
  w.sometimes("a client re-sent a message after reconnecting", [&out] {
    return std::any_of(out.cs.begin(), out.cs.end(), [](const client_state& c) { return c.resent > 0; });
  });

  auto note = [&](const std::string& what) { out.told.tell("", what); };
  auto partition = [&](const fault_plan::cut& cut) {
    w.run_for(cut.after);
    std::vector<simasio::host*> away, rest{&server};
    std::string names;
    for (std::size_t i = 0; i < clients; ++i) {
      const bool is_cut = std::find(cut.clients.begin(), cut.clients.end(), i) != cut.clients.end();
      (is_cut ? away : rest).push_back(client_hosts[i]);
      if (is_cut) names += " " + client_hosts[i]->name();
    }
    w.net().partition({away, rest});
    note("partition" + names + " from the server");
    w.run_for(cut.lasts);
    w.net().heal();
    note("heal");
  };

  note(plan.loss_permille == 0 ? std::string("no segment lost")
                                : std::to_string(plan.loss_permille / 10) + "." +
                                      std::to_string(plan.loss_permille % 10) + "% of segments lost");
  partition(plan.first);
  w.run_for(plan.crash_after);
  out.power_crash = plan.power;
  server.crash(plan.power ? simasio::crash_kind::power : simasio::crash_kind::process);
  note(plan.power ? "crash the server (power)" : "crash the server (process)");
  w.run_for(plan.down_for);
  server.restart();
  note("restart the server");
  partition(plan.second);

  auto settled = [&] {
    for (const auto& c : out.cs)
      if (c.acked < messages_per_client || c.transcript.size() < out.log.entries.size()) return false;
    return true;
  };
  if (!w.run_until(settled, 60s)) {
    std::string where;
    for (const auto& c : out.cs)
      where += " " + c.name + ": " + std::to_string(c.acked) + " acknowledged, " +
               std::to_string(c.transcript.size()) + " of " + std::to_string(out.log.entries.size()) + " heard;";
    throw std::runtime_error("not settled 60 s after the last fault:" + where);
  }
  for (const auto& c : out.cs) {
    for (int seq = 0; seq < c.acked; ++seq)
      if (!out.log.copies.contains(c.text(seq)))
        throw std::runtime_error("\"" + c.text(seq) + "\" was acknowledged but is not in the history");
    if (!c.gap.empty()) throw std::runtime_error(c.name + " heard the history out of order: " + c.gap);
    for (std::size_t i = 0; i < c.transcript.size(); ++i)
      if (c.transcript[i] != out.log.entries[i].text)
        throw std::runtime_error(c.name + "'s transcript differs from the history at entry " + std::to_string(i));
  }
}

// ---- the story ---------------------------------------------------------------------

// The client whose message is in the history twice.
const client_state& sender_of_duplicate(const outcome& out) {
  for (const auto& c : out.cs)
    if (out.log.duplicate.starts_with(c.name + " ")) return c;
  throw std::logic_error("no client sent \"" + out.log.duplicate + "\"");
}

std::string describe_duplicate(const outcome& out) {
  const std::string& text = out.log.duplicate;
  const client_state& c = sender_of_duplicate(out);
  return "message \"" + text + "\" appears " + std::to_string(out.log.copies.at(text)) + " times in the history of " +
         std::to_string(out.log.entries.size()) + " entries (" + c.name + " re-sent it on its connection " +
         std::to_string(c.connections) + ")";
}

// The faults, and everything told about the client whose message is doubled.
void print_story(const outcome& out, bool faults_only) {
  const std::string& who = sender_of_duplicate(out).name;
  for (const auto& [about, line] : out.told.lines)
    if (about.empty() || (!faults_only && about == who)) std::printf("    %s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // keep our lines in order with simasio's (stderr)
  bool only_naive = false;
  std::uint64_t seeds = 300;
  sample::read_command_line(argc, argv, seeds, {{"--naive", &only_naive}});
  std::printf("simasio: Beast websocket chat, %d clients x %d messages, 0-5%% loss, two partitions and a server "
              "crash per seed\n\n",
              clients, messages_per_client);
  simasio::check_options opts;
  opts.seeds = seeds;

  // 1. The naive client: sweep, shrink (check() does it), replay.
  opts.name = "chat_naive_resend";
  const auto naive = simasio::check([](simasio::world& w) {
    outcome out;
    chat_run(w, false, out);
  }, opts);
  if (naive.ok() || naive.failure->type == "simasio::unreached") {  // (unreached: no client even re-sent)
    std::printf("naive re-send: no duplicate found in %llu seeds\n", static_cast<unsigned long long>(naive.runs));
    return 1;
  }
  const simasio::failure& f = *naive.failure;
  std::printf("naive re-send (no message id): duplicate at seed %llu (after %llu seeds)\n",
              static_cast<unsigned long long>(f.seed), static_cast<unsigned long long>(naive.runs));
  // simasio's own line (the program by its absolute path), for the naive sweep alone.
  std::printf("  replay: %s%s\n", f.replay.c_str(), f.replay.find(" --naive") == std::string::npos ? " --naive" : "");

  outcome replayed;
  replayed.narrate = true;
  try {
    simasio::replay([&](simasio::world& w) { chat_run(w, false, replayed); }, f.seed);
    std::printf("  replay: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure& e) {
    if (replayed.log.duplicate.empty()) {
      std::printf("  replay failed differently: %s\n", e.what());
      return 1;
    }
    std::printf("  replay reproduces it: %s\n", describe_duplicate(replayed).c_str());
  }
  std::printf("  faults of seed %llu up to the violation:\n", static_cast<unsigned long long>(f.seed));
  print_story(replayed, true);

  if (!f.tape_path.empty()) {
    // The shrunk tape: the seed's draws, most of them made polite.
    const simasio::saved_tape tape = simasio::load_tape(f.tape_path);
    simasio::world_options replay_opts;
    replay_opts.replay_tape = std::make_shared<const simasio::saved_tape>(tape);
    replay_opts.on_tape_mismatch = simasio::tape_mismatch::polite;
    outcome shrunk;
    shrunk.narrate = true;
    try {
      simasio::replay([&](simasio::world& w) { chat_run(w, false, shrunk); }, tape.seed, replay_opts);
      std::printf("  shrunk tape: NOT reproduced\n");
      return 1;
    } catch (const simasio::scenario_failure&) {
      if (shrunk.log.duplicate.empty()) {
        std::printf("  shrunk tape failed differently\n");
        return 1;
      }
      std::printf("  shrunk tape (%llu of %llu draws kept, %llu not polite) reproduces it: %s\n",
                  static_cast<unsigned long long>(f.shrunk_choices),
                  static_cast<unsigned long long>(f.original_choices), static_cast<unsigned long long>(f.deviations),
                  describe_duplicate(shrunk).c_str());
    }
    std::printf("  how it happens under the shrunk tape (the faults, and what %s and the server did):\n",
                sender_of_duplicate(shrunk).name.c_str());
    print_story(shrunk, false);
  }
  if (only_naive) return 0;

  // 2. The fixed client over the same seeds.
  opts.name = "chat_message_ids";
  // What the faults made the clients do, per seed (SIMASIO_JOBS runs seeds on
  // several threads; SIMASIO_VERIFY runs each twice: a map keeps each seed once).
  struct seed_stats {
    int resent = 0, deduplicated = 0, connections = 0;
    bool power = false;
  };
  std::mutex stats_mutex;
  std::map<std::uint64_t, seed_stats> stats;
  const auto fixed = simasio::check([&](simasio::world& w) {
    outcome out;
    chat_run(w, true, out);
    seed_stats s{0, out.log.deduplicated, 0, out.power_crash};
    for (const auto& c : out.cs) {
      s.resent += c.resent;
      s.connections += c.connections;
    }
    const std::lock_guard lock(stats_mutex);
    stats[w.seed()] = s;
  }, opts);
  if (!fixed.ok() && fixed.failure->type == "simasio::unreached") {
    std::printf("message ids: no client re-sent a message in %llu seed(s): the faults never tested the fix\n",
                static_cast<unsigned long long>(fixed.runs));
    return 1;
  }
  if (!fixed.ok()) {
    std::printf("message ids: VIOLATION at seed %llu: %s\n", static_cast<unsigned long long>(fixed.failure->seed),
                fixed.failure->what.c_str());
    return 1;
  }
  std::uint64_t resent = 0, resent_seeds = 0, deduplicated = 0, connections = 0, power = 0;
  for (const auto& [seed, s] : stats) {
    resent += static_cast<std::uint64_t>(s.resent);
    resent_seeds += s.resent > 0 ? 1 : 0;
    deduplicated += static_cast<std::uint64_t>(s.deduplicated);
    connections += static_cast<std::uint64_t>(s.connections);
    power += s.power ? 1 : 0;
  }
  std::printf("\nmessage ids, deduplicated by the server: no violation over %llu seeds "
              "(every message exactly once, every transcript equal to the history)\n",
              static_cast<unsigned long long>(fixed.runs));
  std::printf("  re-sends after a reconnect in %llu of %llu seeds: %llu, of which the server had %llu already "
              "(acknowledged again, not appended); %llu connections; %llu power and %llu process crashes\n",
              static_cast<unsigned long long>(resent_seeds), static_cast<unsigned long long>(stats.size()),
              static_cast<unsigned long long>(resent),
              static_cast<unsigned long long>(deduplicated), static_cast<unsigned long long>(connections),
              static_cast<unsigned long long>(power), static_cast<unsigned long long>(stats.size() - power));
  return 0;
}
