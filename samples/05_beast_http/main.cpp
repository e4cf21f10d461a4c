// 05_beast_http — Beast's HTTP over a lossy, partitioned network: a retry
// that charges twice.
//
// A Boost.Beast HTTP/1.1 server keeps an account balance; `POST /transfer`
// adds the amount in the body and answers with the new balance. The client
// makes 5 transfers of 10, one every 400 ms. Each attempt (connect, write the request, read
// the response) has a 500 ms deadline; a failed attempt is retried on a new
// connection after a doubling backoff. Per seed, 10-20% of segments are
// lost, and the client is partitioned from the server from t=1 s to t=3 s.
//
// The naive client retries a POST whose response was lost, so the server
// applies it twice: the sweep finds a seed where the balance ends above 50,
// and its replay shows the same balance. The fixed client sends an
// Idempotency-Key per transfer, which the server remembers; it passes the
// same seeds with the balance exactly 50.
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace net = simasio::asio;
namespace http = boost::beast::http;
using net::ip::tcp;
using namespace std::chrono_literals;
using namespace net::experimental::awaitable_operators;

namespace {

constexpr int transfers = 5;
constexpr int amount = 10;
constexpr auto attempt_deadline = 500ms;

// ---- the server ---------------------------------------------------------------

struct account {
  long balance = 0;
  std::map<std::string, long> seen;  // idempotency key -> the balance that request produced
};

http::response<http::string_body> handle(account& acct, const http::request<http::string_body>& req) {
  http::response<http::string_body> res{http::status::ok, req.version()};
  res.keep_alive(req.keep_alive());
  if (req.method() != http::verb::post || req.target() != "/transfer") {
    res.result(http::status::not_found);
  } else if (auto key = req.find("Idempotency-Key"); key != req.end() && acct.seen.count(std::string(key->value()))) {
    res.body() = std::to_string(acct.seen[std::string(key->value())]);  // a retry: answer again, apply nothing
  } else {
    acct.balance += std::stol(req.body());
    if (key != req.end()) acct.seen[std::string(key->value())] = acct.balance;
    res.body() = std::to_string(acct.balance);
  }
  res.prepare_payload();
  return res;
}

net::awaitable<void> session(account& acct, tcp::socket socket) {
  boost::beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> req;
    auto [ec, n] = co_await http::async_read(socket, buffer, req, net::as_tuple(net::use_awaitable));
    if (ec) co_return;
    auto res = handle(acct, req);
    auto [wec, wn] = co_await http::async_write(socket, res, net::as_tuple(net::use_awaitable));
    if (wec || !res.keep_alive()) co_return;
  }
}

net::awaitable<void> serve(account& acct, tcp::acceptor& acceptor) {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(net::as_tuple(net::use_awaitable));
    if (ec) co_return;
    net::co_spawn(acceptor.get_executor(), session(acct, std::move(socket)), net::detached);
  }
}

// ---- the client -----------------------------------------------------------------

// One attempt on a fresh connection: the response body, or nothing.
net::awaitable<std::optional<std::string>> attempt(tcp::socket& socket, tcp::endpoint server,
                                                   http::request<http::string_body> req) {
  constexpr auto use = net::as_tuple(net::use_awaitable);
  if (auto [ec] = co_await socket.async_connect(server, use); ec) co_return std::nullopt;
  if (auto [ec, n] = co_await http::async_write(socket, req, use); ec) co_return std::nullopt;
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  if (auto [ec, n] = co_await http::async_read(socket, buffer, res, use); ec || res.result() != http::status::ok)
    co_return std::nullopt;
  co_return res.body();
}

struct client_report {
  int acknowledged = 0;
  int attempts = 0;
};

net::awaitable<void> client(tcp::endpoint server, bool idempotent, client_report& report) {
  auto ex = co_await net::this_coro::executor;
  for (int i = 0; i < transfers; ++i) {
    net::steady_timer pace(ex, 400ms);  // a payment every 400 ms: some fall into the partition
    co_await pace.async_wait(net::as_tuple(net::use_awaitable));
    http::request<http::string_body> req{http::verb::post, "/transfer", 11};
    req.set(http::field::host, "bank");
    if (idempotent) req.set("Idempotency-Key", "transfer-" + std::to_string(i));
    req.body() = std::to_string(amount);
    req.prepare_payload();
    auto backoff = 100ms;
    for (;;) {
      ++report.attempts;
      tcp::socket socket(ex);
      net::steady_timer deadline(ex, attempt_deadline);
      auto r = co_await (attempt(socket, server, req) || deadline.async_wait(net::as_tuple(net::use_awaitable)));
      if (r.index() == 0 && std::get<0>(r)) break;  // acknowledged
      net::steady_timer pause(ex, backoff);
      co_await pause.async_wait(net::as_tuple(net::use_awaitable));
      backoff = std::min<std::chrono::milliseconds>(backoff * 2, 1600ms);
    }
    ++report.acknowledged;
  }
}

// ---- one seed --------------------------------------------------------------------

struct outcome {
  long balance = 0;
  client_report report;
};

void bank_run(simasio::world& w, bool idempotent, outcome& out) {
  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 30ms;
  link.loss = 0.10 + 0.10 * static_cast<double>(w.random().below(1001)) / 1000.0;  // 10-20%
  w.net().configure(link);
  auto& bank = w.add_host("bank");
  auto& shop = w.add_host("shop");

  account acct;
  tcp::acceptor acceptor(bank.context(), tcp::endpoint(tcp::v4(), 80));
  net::co_spawn(bank.context(), serve(acct, acceptor), net::detached);
  net::co_spawn(shop.context(), client({bank.address(), 80}, idempotent, out.report), net::detached);

  w.run_for(1s);
  w.net().partition({{&shop}, {&bank}});
  w.run_for(2s);
  w.net().heal();
  w.run_until([&] { return out.report.acknowledged == transfers; }, 60s);
  out.balance = acct.balance;
  if (out.report.acknowledged != transfers)
    throw std::runtime_error("only " + std::to_string(out.report.acknowledged) + " transfers acknowledged");
  if (acct.balance != transfers * amount)
    throw std::runtime_error("balance " + std::to_string(acct.balance) + " after " + std::to_string(transfers) +
                             " transfers of " + std::to_string(amount));
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // keep our lines in order with simasio's (stderr)
  std::printf("simasio: Beast HTTP, 5 POST /transfer of 10, 10-20%% loss, partition from 1 s to 3 s, 300 seeds\n\n");
  simasio::check_options opts;
  opts.seeds = 300;

  opts.name = "bank_naive_retry";
  const auto naive = simasio::check([](simasio::world& w) {
    outcome out;
    bank_run(w, false, out);
  }, opts);
  if (naive.ok()) {
    std::printf("naive retry: no double charge found in %llu seeds\n", static_cast<unsigned long long>(naive.runs));
    return 1;
  }
  const auto seed = naive.failure->seed;
  std::printf("naive retry: double charge at seed %llu (after %llu seeds)\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(naive.runs));
  std::printf("  replay: %s\n", naive.failure->replay.c_str());  // the program by its absolute path
  outcome replayed;
  try {
    simasio::replay([&](simasio::world& w) { bank_run(w, false, replayed); }, seed);
    std::printf("  replay: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  replay reproduces it: balance %ld after %d acknowledged transfers of %d (%d attempts)\n",
                replayed.balance, replayed.report.acknowledged, amount, replayed.report.attempts);
  }

  opts.name = "bank_idempotent";
  std::atomic<int> attempts = 0;  // seeds may run on several threads (SIMASIO_JOBS)
  const auto start = std::chrono::steady_clock::now();
  const auto fixed = simasio::check([&](simasio::world& w) {
    outcome out;
    bank_run(w, true, out);
    attempts += out.report.attempts;
  }, opts);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!fixed.ok()) {
    std::printf("idempotency key: FAILED at seed %llu\n", static_cast<unsigned long long>(fixed.failure->seed));
    return 1;
  }
  std::printf("\nidempotency key: balance exactly 50 over %llu seeds (%.1f attempts per seed on average), %.0f seeds/s\n",
              static_cast<unsigned long long>(fixed.runs), static_cast<double>(attempts.load()) / static_cast<double>(fixed.runs),
              static_cast<double>(fixed.runs) / secs);
  return 0;
}
