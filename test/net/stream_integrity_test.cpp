// stream_integrity_test.cpp — every byte arrives once, in order, or the connection reports an error
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

namespace {

enum class fault { latency_spread, loss_30, partition_heals, hold_release, small_buffers };

struct outcome {
  std::string sent, echoed;
  boost::system::error_code client_ec, server_ec;
  std::string server_got;
};

// The client streams seeded bytes in seeded write sizes and half-closes;
// the server echoes everything back and closes; the client reads to eof.
outcome run(std::uint64_t seed, fault f) {
  simasio::world w(seed);
  simasio::link_config link;
  link.min_latency = 100us;
  link.max_latency = f == fault::latency_spread ? 80ms : 10ms;
  if (f == fault::loss_30) link.loss = 0.3;
  if (f == fault::small_buffers) {
    // Buffers shrunk far below Linux's, with loss: writes wait on the
    // window again and again, segments are retransmitted into it.
    link.loss = 0.1;
    simasio::tcp_buffers small;
    small.send_initial = small.send_max = 4096;
    small.receive_initial = small.receive_max = 2048;
    w.net().set_tcp_buffers(small);
  }
  w.net().configure(link);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  outcome out;
  const std::size_t size = 2000 + w.random().below(30000);
  for (std::size_t i = 0; i < size; ++i) out.sent.push_back(static_cast<char>(w.random().below(256)));

  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 9000));
  net::co_spawn(
      server.context(),
      [&, acc]() -> net::awaitable<void> {
        tcp::socket s = co_await acc->async_accept(net::use_awaitable);
        std::string got;  // a dynamic buffer holds scratch space while a read is pending
        auto [ec, n] = co_await net::async_read(s, net::dynamic_buffer(got), net::as_tuple(net::use_awaitable));
        out.server_got = got;
        out.server_ec = ec;
        if (ec != net::error::eof) co_return;
        auto [wec, wn] = co_await net::async_write(s, net::buffer(out.server_got), net::as_tuple(net::use_awaitable));
        if (!wec) s.shutdown(tcp::socket::shutdown_send);
      },
      net::detached);
  net::co_spawn(
      client.context(),
      [&]() -> net::awaitable<void> {
        tcp::socket s(co_await net::this_coro::executor);
        auto [cec] = co_await s.async_connect(tcp::endpoint(server.address(), 9000), net::as_tuple(net::use_awaitable));
        if (cec) {
          out.client_ec = cec;
          co_return;
        }
        std::size_t off = 0;
        while (off < out.sent.size()) {
          const std::size_t chunk = 1 + w.random().below(std::min<std::size_t>(4000, out.sent.size() - off));
          auto [ec, n] = co_await net::async_write(s, net::buffer(out.sent.data() + off, chunk), net::as_tuple(net::use_awaitable));
          if (ec) {
            out.client_ec = ec;
            co_return;
          }
          off += n;
        }
        s.shutdown(tcp::socket::shutdown_send);
        std::string echoed;
        auto [ec, n] = co_await net::async_read(s, net::dynamic_buffer(echoed), net::as_tuple(net::use_awaitable));
        out.echoed = echoed;
        out.client_ec = ec;
      },
      net::detached);

  if (f == fault::partition_heals) {
    w.run_for(std::chrono::milliseconds(5 + w.random().below(30)));
    w.net().partition({{&server}, {&client}});
    w.run_for(std::chrono::milliseconds(200 + w.random().below(3000)));
    w.net().heal();
  } else if (f == fault::hold_release) {
    w.run_for(std::chrono::milliseconds(5 + w.random().below(30)));
    w.net().hold(server, client);
    w.run_for(std::chrono::milliseconds(100 + w.random().below(900)));
    w.net().release(server, client);
  }
  w.run_for(20min);
  return out;
}

bool is_prefix(const std::string& part, const std::string& whole) {
  return part.size() <= whole.size() && whole.compare(0, part.size(), part) == 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stream_integrity)

BOOST_AUTO_TEST_CASE(bytes_arrive_exactly_once_in_order_or_the_connection_fails) {
  std::size_t complete = 0, runs = 0;
  for (fault f :
       {fault::latency_spread, fault::loss_30, fault::partition_heals, fault::hold_release, fault::small_buffers}) {
    for (std::uint64_t seed = 0; seed < 250; ++seed) {
      const outcome o = run(seed, f);
      ++runs;
      // Never corruption, loss or duplication: what arrived is a prefix.
      BOOST_REQUIRE_MESSAGE(is_prefix(o.server_got, o.sent), "server stream corrupted, seed " << seed);
      BOOST_REQUIRE_MESSAGE(is_prefix(o.echoed, o.sent), "client stream corrupted, seed " << seed);
      // Without an error, everything arrived: the echo is whole.
      if (o.client_ec == net::error::eof) {
        BOOST_REQUIRE_MESSAGE(o.echoed == o.sent, "seed " << seed << " lost bytes silently");
        ++complete;
      } else {
        // Not complete: the client saw an error (a connect that never got
        // through 30% loss times out, for instance), never silence.
        BOOST_REQUIRE_MESSAGE(o.client_ec, "seed " << seed << " stopped without an error");
      }
    }
  }
  // The faults heal long before the TCP user timeout: nearly every run completes.
  BOOST_TEST(complete > runs * 97 / 100);
}

BOOST_AUTO_TEST_SUITE_END()
