// deep_retry.hpp — a planted bug four unlucky attempts deep, for comparing
// exploration strategies (simasio_hunt, and the fuzz target deep_retry_fuzz).
//
// A client asks a server for a value over UDP with 5% loss each way and a
// 20 ms deadline per attempt. Each attempt takes another path through the
// client: retry, retry with a longer deadline, ask the backup, and after
// four timeouts in a row serve the cached value, which is stale: the
// planted bug. Four failed attempts in a row happen on about 1 seed in
// 11,000; each attempt that fails reaches new code, which is what a
// coverage-guided fuzzer keeps and builds on.
#pragma once

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <array>
#include <chrono>
#include <stdexcept>
#include <string>

namespace deep_retry {

namespace net = simasio::asio;
using net::ip::udp;
using namespace std::chrono_literals;

inline constexpr unsigned short port = 9000;

class client {
 public:
  client(simasio::host& h, udp::endpoint primary, udp::endpoint backup)
      : socket_(h.context(), udp::endpoint(udp::v4(), 0)), timer_(h.context()), primary_(primary), backup_(backup) {
    attempt(primary_, 20ms);
    receive();
  }
  const std::string& value() const { return value_; }

 private:
  void attempt(udp::endpoint to, std::chrono::milliseconds deadline) {
    ++attempts_;
    socket_.send_to(net::buffer("get", 3), to);
    timer_.expires_after(deadline);
    timer_.async_wait([this](boost::system::error_code ec) {
      if (ec || !value_.empty()) return;
      timed_out();
    });
  }
  // Each timeout takes its own path: the stages a fuzzer's coverage sees.
  void timed_out() {
    switch (attempts_) {
      case 1:
        attempt(primary_, 20ms);  // once more, as before
        break;
      case 2:
        attempt(primary_, 40ms);  // the link may be slow: a longer deadline
        break;
      case 3:
        attempt(backup_, 40ms);  // the primary may be down: ask the backup
        break;
      default:
        value_ = cached_;  // the bug: the cache was never refreshed
        socket_.close();
        break;
    }
  }
  void receive() {
    socket_.async_receive(net::buffer(buf_), [this](boost::system::error_code ec, std::size_t n) {
      if (ec) return;
      if (value_.empty()) {
        value_.assign(buf_.data(), n);
        timer_.cancel();
      }
      receive();
    });
  }

  udp::socket socket_;
  net::steady_timer timer_;
  udp::endpoint primary_, backup_;
  std::array<char, 16> buf_{};
  std::string value_;
  std::string cached_ = "v1";
  int attempts_ = 0;
};

class server {
 public:
  explicit server(simasio::host& h) : socket_(h.context(), udp::endpoint(udp::v4(), port)) { receive(); }

 private:
  void receive() {
    socket_.async_receive_from(net::buffer(buf_), from_, [this](boost::system::error_code ec, std::size_t) {
      if (ec) return;
      socket_.send_to(net::buffer("v2", 2), from_);
      receive();
    });
  }
  udp::socket socket_;
  udp::endpoint from_;
  std::array<char, 16> buf_{};
};

inline void scenario(simasio::world& w) {
  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 5ms;
  link.loss = 0.05;
  w.net().configure(link);
  auto& primary = w.add_host("primary");
  auto& backup = w.add_host("backup");
  auto& cli = w.add_host("client");
  server p(primary), b(backup);
  client c(cli, udp::endpoint(primary.address(), port), udp::endpoint(backup.address(), port));
  w.run_for(1s);
  if (c.value() != "v2") throw std::runtime_error("the client served '" + c.value() + "' after four timeouts in a row");
}

}  // namespace deep_retry
