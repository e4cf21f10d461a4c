// scenario.hpp — a threaded server whose worker may lose a wake-up (the sweep in main.cpp, the fuzz target in fuzz.cpp)
//
// Its threads are simulated threads only with simasio::interpose linked.
#ifndef SIMASIO_SAMPLE_10_SCENARIO_HPP
#define SIMASIO_SAMPLE_10_SCENARIO_HPP

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace sample_10 {

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

inline constexpr int clients = 2;
inline constexpr int requests = 3;

struct job {
  std::shared_ptr<tcp::socket> socket;
  std::string line;
};

// The server's main(): `fixed` chooses the worker's wait.
inline void server_main(bool fixed) {
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
inline void client_main(int id, std::string& got) {
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
inline void scenario(simasio::world& w, bool fixed, bool narrate) {
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

}  // namespace sample_10

#endif  // SIMASIO_SAMPLE_10_SCENARIO_HPP
