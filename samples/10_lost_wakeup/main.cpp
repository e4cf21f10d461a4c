// 10_lost_wakeup — a threaded server whose worker loses a condition variable's wake-up, found, shrunk and replayed.
//
// The server is a plain blocking main(): it accepts connections, gives each
// a reader thread, and the readers hand requests to one worker thread
// through a queue and a std::condition_variable. The planted bug is the
// classic one: the worker calls cv.wait(lock) without a predicate loop, so
// a notify that arrives while it is busy writing a reply is lost, and that
// request waits until the next one comes (the last one waits for ever).
// Each request takes the worker 0.5 ms (a sleep_for in virtual time).
// Two clients on two hosts send three requests each.
//
// Every main runs as a simulated process (host::spawn); with
// simasio::interpose linked, its std::thread, std::mutex and
// std::condition_variable are simulated threads whose lock, wait and notify
// points are seeded scheduling choices. So the sweep finds a seed where the
// notify is lost, check() shrinks its choice tape, and both replay exactly.
// Then the fixed worker (cv.wait(lock, predicate)) runs the same seeds clean.
#include "../common/command_line.hpp"
#include <simasio/asio.hpp>
#include <simasio/random/tape_file.hpp>  // load_tape
#include <simasio/simasio.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

namespace {

constexpr int clients = 2;
constexpr int requests = 3;

struct job {
  std::shared_ptr<tcp::socket> socket;
  std::string line;
};

// The server's main(): `fixed` chooses the worker's wait.
void server_main(bool fixed) {
  net::io_context ioc;
  tcp::acceptor acceptor(ioc, tcp::endpoint(tcp::v4(), 7000));
  std::mutex m;
  std::condition_variable cv;
  std::deque<job> queue;
  std::thread worker([&] {
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      if (fixed) {
        cv.wait(lock, [&] { return !queue.empty(); });
      } else {
        cv.wait(lock);  // the bug: a notify sent while the worker was writing is lost
      }
      job j = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      std::this_thread::sleep_for(500us);  // the work: 0.5 ms of virtual time
      const std::string reply = "done " + j.line;
      boost::system::error_code ec;
      net::write(*j.socket, net::buffer(reply), ec);
      lock.lock();
    }
  });
  for (;;) {
    auto socket = std::make_shared<tcp::socket>(acceptor.accept());
    std::thread([&m, &cv, &queue, socket] {
      std::string buf;
      for (;;) {
        boost::system::error_code ec;
        const std::size_t n = net::read_until(*socket, net::dynamic_buffer(buf), '\n', ec);
        if (ec) return;
        {
          std::lock_guard<std::mutex> lock(m);
          queue.push_back(job{socket, buf.substr(0, n)});
        }
        buf.erase(0, n);
        cv.notify_one();
      }
    }).detach();
  }
}

// A client's main(): three requests, each waiting for its reply.
void client_main(int id, std::string& got) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  tcp::resolver resolver(ioc);
  net::connect(socket, resolver.resolve("server", "7000"));
  std::string buf;
  for (int i = 0; i < requests; ++i) {
    const std::string line = "c" + std::to_string(id) + "-" + std::to_string(i) + "\n";
    net::write(socket, net::buffer(line));
    const std::size_t n = net::read_until(socket, net::dynamic_buffer(buf), '\n');
    got += buf.substr(0, n);
    buf.erase(0, n);
  }
}

// One seed: the server, two clients 1.75 ms apart, 1–20 ms of latency. Fails when a
// client does not get all its replies within a minute of virtual time.
void scenario(simasio::world& w, bool fixed, bool narrate) {
  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 20ms;
  w.net().configure(link);
  auto& server = w.add_host("server");
  server.spawn([fixed] { server_main(fixed); });
  w.run_for(1ms);
  std::string got[clients];
  simasio::process client[clients];
  for (int c = 0; c < clients; ++c) {
    if (c > 0) w.run_for(1750us);  // the second client starts 1.75 ms after the first
    client[c] = w.add_host("client" + std::to_string(c)).spawn([c, &got] { client_main(c, got[c]); });
  }
  const bool done = w.run_until([&] { return client[0].ended() && client[1].ended(); }, 60s);
  if (narrate) {
    for (int c = 0; c < clients; ++c) {
      std::string shown = got[c];
      for (char& ch : shown)
        if (ch == '\n') ch = ' ';
      std::printf("    client%d got: %s%s\n", c, shown.c_str(), client[c].ended() ? "(all replies)" : "... waiting");
    }
  }
  if (!done)
    throw std::runtime_error("a client is still waiting for a reply after 60 s: " + w.pending_report());
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::uint64_t seeds = 300;
  sample::read_command_line(argc, argv, seeds);
  std::printf("simasio: a threaded server (reader threads, one worker, a condition variable), %d clients x %d "
              "requests\n\n",
              clients, requests);
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.print = false;

  // 1. The worker without a predicate loop: sweep, shrink, replay.
  opts.name = "worker_without_predicate";
  const auto naive = simasio::check([](simasio::world& w) { scenario(w, false, false); }, opts);
  if (naive.ok()) {
    std::printf("cv.wait(lock): no lost wake-up found in %llu seeds\n", static_cast<unsigned long long>(naive.runs));
    return 1;
  }
  const simasio::failure& f = *naive.failure;
  std::printf("cv.wait(lock) without a predicate: lost wake-up at seed %llu (after %llu seeds)\n",
              static_cast<unsigned long long>(f.seed), static_cast<unsigned long long>(naive.runs));
  const auto waiting = f.what.find("blocked in std::condition_variable::wait");
  std::printf("  the stall report names the waiting worker: %s\n", waiting != std::string::npos ? "yes" : "no");
  if (waiting == std::string::npos) {
    std::printf("%s\n", f.what.c_str());
    return 1;
  }
  std::printf("  replay: %s\n", f.replay.c_str());
  try {
    std::printf("  replaying seed %llu:\n", static_cast<unsigned long long>(f.seed));
    simasio::replay([](simasio::world& w) { scenario(w, false, true); }, f.seed);
    std::printf("  replay: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  replay reproduces it\n");
  }
  if (f.tape_path.empty()) {
    std::printf("  no shrunk tape was saved\n");
    return 1;
  }
  const simasio::saved_tape tape = simasio::load_tape(f.tape_path);
  simasio::world_options replay_opts;
  replay_opts.replay_tape = std::make_shared<const simasio::saved_tape>(tape);
  replay_opts.on_tape_mismatch = simasio::tape_mismatch::polite;
  try {
    simasio::replay([](simasio::world& w) { scenario(w, false, false); }, tape.seed, replay_opts);
    std::printf("  shrunk tape: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  shrunk tape (%llu of %llu draws kept, %llu not polite) reproduces it\n",
                static_cast<unsigned long long>(f.shrunk_choices), static_cast<unsigned long long>(f.original_choices),
                static_cast<unsigned long long>(f.deviations));
  }

  // 2. The fixed worker, same seeds.
  opts.name = "worker_with_predicate";
  const auto fixed = simasio::check([](simasio::world& w) { scenario(w, true, false); }, opts);
  if (!fixed.ok()) {
    std::printf("cv.wait(lock, predicate): FAILED at seed %llu: %s\n",
                static_cast<unsigned long long>(fixed.failure->seed), fixed.failure->what.c_str());
    return 1;
  }
  std::printf("cv.wait(lock, predicate): every reply delivered over %llu seeds\n",
              static_cast<unsigned long long>(fixed.runs));
  return 0;
}
