// torture_test.cpp — every fault at once, many seeds, each run twice
//
// Six hosts with skewed, drifting clocks; TCP request/response with
// deadlines (checked byte for byte), UDP gossip, a pool context with and
// without a strand; links with a wide latency spread, loss and duplication;
// and, at seeded instants, partitions, one-way blocks, holds and releases,
// connection resets, process and power crashes, restarts and heals. Each
// seed runs twice and must give the same trace hash. The hashes of all
// seeds fold into one digest that is pinned: the same digest under g++ -O2,
// g++ -O0 with ASan+UBSan and clang is the cross-build check.
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace net = simasio::asio;
using net::ip::tcp;
using net::ip::udp;
using namespace std::chrono_literals;
using namespace net::experimental::awaitable_operators;

namespace {

constexpr int hosts_in_world = 6;

// The payload of request i from host h: its bytes say where they belong.
std::string payload(int h, int i) {
  std::string s(static_cast<std::size_t>(64 + (h * 131 + i * 977) % 3000), '\0');
  for (std::size_t k = 0; k < s.size(); ++k) s[k] = static_cast<char>((k * 31 + static_cast<std::size_t>(h * 7 + i)) & 0xFF);
  return s;
}

net::awaitable<void> serve_echo(tcp::acceptor& acceptor) {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(net::as_tuple(net::use_awaitable));
    if (ec) co_return;
    net::co_spawn(
        acceptor.get_executor(),
        [](tcp::socket s) -> net::awaitable<void> {
          std::array<char, 1024> buf;
          for (;;) {
            auto [rec, n] = co_await s.async_read_some(net::buffer(buf), net::as_tuple(net::use_awaitable));
            if (rec) co_return;
            auto [wec, m] = co_await net::async_write(s, net::buffer(buf.data(), n), net::as_tuple(net::use_awaitable));
            if (wec) co_return;
          }
        }(std::move(socket)),
        net::detached);
  }
}

net::awaitable<std::optional<bool>> exchange(tcp::socket& s, tcp::endpoint to, std::string out) {
  constexpr auto use = net::as_tuple(net::use_awaitable);
  if (auto [ec] = co_await s.async_connect(to, use); ec) co_return std::nullopt;
  if (auto [ec, n] = co_await net::async_write(s, net::buffer(out), use); ec) co_return std::nullopt;
  std::string back(out.size(), '\0');
  if (auto [ec, n] = co_await net::async_read(s, net::buffer(back), use); ec) co_return std::nullopt;
  co_return back == out;
}

// One request with a deadline; an answer that arrives must be exact.
net::awaitable<std::optional<bool>> request(tcp::endpoint to, std::string out) {
  auto ex = co_await net::this_coro::executor;
  tcp::socket s(ex);
  net::steady_timer deadline(ex, 400ms);
  auto r = co_await (exchange(s, to, std::move(out)) || deadline.async_wait(net::as_tuple(net::use_awaitable)));
  if (r.index() == 0) co_return std::get<0>(r);
  co_return std::nullopt;
}

// Sends a datagram to a random peer every 50 ms and takes whatever arrives.
// Handlers hold it; it goes when its host's handlers do (crash, world end).
class gossiper : public std::enable_shared_from_this<gossiper> {
 public:
  gossiper(simasio::world& w, std::vector<simasio::host*>& hosts, simasio::host& h)
      : world_(w), hosts_(hosts), socket_(h.context(), udp::endpoint(udp::v4(), 9)), tick_(h.context()) {}
  void start() {
    receive();
    gossip();
  }

 private:
  void receive() {
    socket_.async_receive(net::buffer(buf_), [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
      if (!ec) self->receive();
    });
  }
  void gossip() {
    const auto& to = hosts_[world_.random().below(hosts_.size())]->address();
    socket_.async_send_to(net::buffer(buf_.data(), 16), udp::endpoint(to, 9), [self = shared_from_this()](auto, auto) {});
    tick_.expires_after(50ms);
    tick_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec) self->gossip();
    });
  }

  simasio::world& world_;
  std::vector<simasio::host*>& hosts_;
  udp::socket socket_;
  net::steady_timer tick_;
  std::array<char, 64> buf_{};
};

struct tally {
  int corrupted = 0;
  int answered = 0;
};

// One seed of everything. Returns the trace hash.
std::uint64_t run_torture(std::uint64_t seed) {
  simasio::world w(seed);
  auto& r = w.random();
  simasio::link_config link;
  link.min_latency = 100us;
  link.max_latency = 60ms;
  link.loss = 0.05;
  link.duplicate = 0.02;
  w.net().configure(link);
  w.net().set_tcp_user_timeout(2s);
  w.net().set_connect_timeout(3s);

  std::vector<simasio::host*> hosts;
  for (int i = 0; i < hosts_in_world; ++i) {
    hosts.push_back(&w.add_host("t" + std::to_string(i)));
    // Two draws, two statements: the order of evaluation of a call's
    // arguments differs between compilers.
    const auto offset = std::chrono::milliseconds(r.below(500));
    const double drift_ppm = static_cast<double>(r.below(401)) - 200.0;
    hosts.back()->set_clock(offset, drift_ppm);
  }
  auto result = std::make_shared<tally>();
  for (int i = 0; i < hosts_in_world; ++i) {
    hosts[static_cast<std::size_t>(i)]->on_boot([&w, &hosts, i, result](simasio::host& h) {
      // TCP echo service and a client that calls random peers.
      auto acceptor = std::make_shared<tcp::acceptor>(h.context(), tcp::endpoint(tcp::v4(), 7));
      net::co_spawn(h.context(), [acceptor]() -> net::awaitable<void> { co_await serve_echo(*acceptor); },
                    net::detached);
      net::co_spawn(
          h.context(),
          [&w, &hosts, i, result]() -> net::awaitable<void> {
            auto ex = co_await net::this_coro::executor;
            net::steady_timer pause(ex);
            for (int k = 0; k < 8; ++k) {
              pause.expires_after(std::chrono::milliseconds(10 + w.random().below(200)));
              co_await pause.async_wait(net::as_tuple(net::use_awaitable));
              const auto peer = hosts[w.random().below(hosts.size())];
              auto ok = co_await request({peer->address(), 7}, payload(i, k));
              if (ok) {
                ++result->answered;
                if (!*ok) ++result->corrupted;
              }
            }
          },
          net::detached);
      // UDP gossip: a datagram to a random peer every 50 ms.
      std::make_shared<gossiper>(w, hosts, h)->start();
    });
  }
  // A pool context: posts through a strand and around it.
  simasio::io_context pool(*hosts[0], 4);
  auto strand = net::make_strand(pool);
  int through_strand = 0, around = 0;
  for (int i = 0; i < 20; ++i) {
    net::post(strand, [&through_strand] { ++through_strand; });
    net::post(pool, [&around] { ++around; });
  }

  // Faults at seeded instants.
  for (int round = 0; round < 12; ++round) {
    w.run_for(std::chrono::milliseconds(50 + r.below(200)));
    auto& a = *hosts[r.below(hosts.size())];
    auto& b = *hosts[r.below(hosts.size())];
    switch (r.below(9)) {
      case 0: w.net().partition({{&a}, {&b}}); break;
      case 1: w.net().block(a, b); break;
      case 2: w.net().heal(); break;
      case 3: if (&a != &b) w.net().hold(a, b); break;
      case 4: if (&a != &b) w.net().release(a, b); break;
      case 5: w.net().reset(a, b); break;
      case 6: if (a.up()) a.crash(simasio::crash_kind::process); break;
      case 7: if (a.up()) a.crash(simasio::crash_kind::power); break;
      case 8: if (!a.up()) a.restart(); break;
    }
  }
  w.net().heal();
  for (int i = 0; i < hosts_in_world; ++i)
    for (int j = 0; j < hosts_in_world; ++j)
      if (i < j) w.net().release(*hosts[static_cast<std::size_t>(i)], *hosts[static_cast<std::size_t>(j)]);
  for (auto* h : hosts)
    if (!h->up()) h->restart();
  w.run_for(1s);
  if (result->corrupted != 0) throw std::runtime_error("seed " + std::to_string(seed) + ": a TCP answer came back corrupted");
  return w.trace_hash() ^ static_cast<std::uint64_t>(through_strand * 1000 + around);
}

std::uint64_t seeds_to_run() {
  if (const char* v = std::getenv("SIMASIO_TORTURE_SEEDS")) return std::strtoull(v, nullptr, 10);
  return 10'000;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(torture)

BOOST_AUTO_TEST_CASE(every_fault_many_seeds_twice_same_hash_and_pinned_digest) {
  const std::uint64_t seeds = seeds_to_run();
  std::uint64_t digest = 0;
  std::uint64_t digest_at_1000 = 0;
  std::set<std::uint64_t> distinct;
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    const std::uint64_t first = run_torture(seed);
    const std::uint64_t second = run_torture(seed);
    BOOST_REQUIRE_MESSAGE(first == second, "seed " << seed << " gave trace hash " << first << ", then " << second);
    digest = simasio::trace::fold(digest, first);
    distinct.insert(first);
    if (std::getenv("SIMASIO_TORTURE_PRINT")) BOOST_TEST_MESSAGE("seed " << seed << " hash " << first);
    if (seed + 1 == 1000) digest_at_1000 = digest;
  }
  BOOST_TEST_MESSAGE("torture digest over " << seeds << " seeds: " << digest << " (first 1000: " << digest_at_1000 << ")");
  // Pinned: the same on every compiler, optimisation level and sanitizer.
  if (seeds >= 1000) BOOST_TEST(digest_at_1000 == 14013300492107705464u);
  if (seeds == 10'000) BOOST_TEST(digest == 6797001149298923136u);
  // Different seeds explore different runs.
  BOOST_TEST(distinct.size() >= seeds - seeds / 100);
}

BOOST_AUTO_TEST_SUITE_END()
