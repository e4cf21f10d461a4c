// scenario.hpp — a primary-backup register, two recorded clients (the sweep in main.cpp, the fuzz target in fuzz.cpp)
#ifndef SIMASIO_SAMPLE_12_SCENARIO_HPP
#define SIMASIO_SAMPLE_12_SCENARIO_HPP

#include <simasio/asio.hpp>
#include <simasio/check/linearizability.hpp>
#include <simasio/check/models.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>

namespace sample_12 {

namespace net = simasio::asio;
using net::ip::udp;
using namespace std::chrono_literals;
using namespace net::experimental::awaitable_operators;

// ---- the sequential model -------------------------------------------------------------
using reg_input = simasio::models::register_op<>;
using register_model = simasio::models::register_model<>;
using reg_history = simasio::history<reg_input, int>;

inline constexpr unsigned short port = 7000;

// ---- the servers: "w <v>" -> "ok", "r" -> "<v>", "fwd <v>" (primary to backup) ----------
inline net::awaitable<void> serve(std::shared_ptr<int> value, bool primary, udp::endpoint backup) {
  auto ex = co_await net::this_coro::executor;
  udp::socket socket(ex, udp::endpoint(udp::v4(), port));
  char buf[64];
  for (;;) {
    udp::endpoint from;
    auto [ec, n] = co_await socket.async_receive_from(net::buffer(buf), from, net::as_tuple(net::use_awaitable));
    if (ec) co_return;
    const std::string msg(buf, n);
    std::string reply;
    if (msg.rfind("w ", 0) == 0 && primary) {
      *value = std::stoi(msg.substr(2));
      // Forward to the backup without waiting: fire and forget.
      co_await socket.async_send_to(net::buffer("fwd " + msg.substr(2)), backup, net::as_tuple(net::use_awaitable));
      reply = "ok";
    } else if (msg.rfind("fwd ", 0) == 0) {
      *value = std::stoi(msg.substr(4));
      continue;
    } else if (msg == "r") {
      reply = std::to_string(*value);
    } else {
      continue;
    }
    co_await socket.async_send_to(net::buffer(reply), from, net::as_tuple(net::use_awaitable));
  }
}

// ---- a client: 20 operations, each recorded with its invocation and response -------------
inline net::awaitable<void> client(std::uint32_t id, reg_history& h, udp::endpoint primary, udp::endpoint reads_from,
                            std::shared_ptr<int> done, simasio::world& w) {
  auto ex = co_await net::this_coro::executor;
  udp::socket socket(ex, udp::v4());
  char buf[64];
  for (int i = 0; i < 20; ++i) {
    const bool write = w.random().below(2) == 0;
    const int value = static_cast<int>(id) * 1000 + i + 1;  // distinct values
    const auto op = h.invoke(id, reg_input{write, value});
    const std::string msg = write ? "w " + std::to_string(value) : "r";
    co_await socket.async_send_to(net::buffer(msg), write ? primary : reads_from, net::as_tuple(net::use_awaitable));
    net::steady_timer timeout(ex, 30ms);
    udp::endpoint from;
    auto result = co_await (socket.async_receive_from(net::buffer(buf), from, net::as_tuple(net::use_awaitable)) ||
                            timeout.async_wait(net::as_tuple(net::use_awaitable)));
    if (result.index() == 0 && !std::get<0>(std::get<0>(result))) {
      const std::string reply(buf, std::get<1>(std::get<0>(result)));
      h.complete(op, write ? 0 : std::stoi(reply));
    } else {
      h.timeout(op);
      // A late reply would answer the next operation: start again on a fresh socket.
      socket = udp::socket(ex, udp::v4());
    }
    net::steady_timer pause(ex, std::chrono::milliseconds(1 + w.random().below(10)));
    co_await pause.async_wait(net::use_awaitable);
  }
  ++*done;
}

// One seed: 1-10 ms latency, the primary partitioned from the backup for
// 50-250 ms starting at a drawn moment.
inline void scenario(simasio::world& w, bool reads_from_backup, reg_history& h) {
  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 10ms;
  w.net().configure(link);
  auto& p = w.add_host("primary");
  auto& b = w.add_host("backup");
  const udp::endpoint primary_ep(p.address(), port), backup_ep(b.address(), port);
  net::co_spawn(p.context(), serve(std::make_shared<int>(0), true, backup_ep), net::detached);
  net::co_spawn(b.context(), serve(std::make_shared<int>(0), false, backup_ep), net::detached);
  auto done = std::make_shared<int>(0);
  for (std::uint32_t c = 0; c < 2; ++c)
    net::co_spawn(w.add_host("client" + std::to_string(c)).context(),
                  client(c, h, primary_ep, reads_from_backup ? backup_ep : primary_ep, done, w), net::detached);
  const auto start = std::chrono::milliseconds(w.random().between(0, 150));
  const auto length = std::chrono::milliseconds(w.random().between(50, 250));
  w.run_for(start);
  w.net().partition({{&p}, {&b}});
  w.run_for(length);
  w.net().heal();
  if (!w.run_until([&] { return *done == 2; }, 10s)) throw std::runtime_error("the clients did not finish");
  simasio::require_linearizable(h, register_model{}, reads_from_backup ? "reads_from_backup" : "reads_from_primary");
}

}  // namespace sample_12

#endif  // SIMASIO_SAMPLE_12_SCENARIO_HPP
