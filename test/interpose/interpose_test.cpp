// interpose_test.cpp — simasio::interpose: libc's clocks, entropy, threads and sockets inside a run
//
// This program links simasio::interpose; simasio_tests does not. The socket
// suite runs inside a network namespace without interfaces (unshare -n), so
// that a regression fails here instead of reaching a real host.
#include <simasio/beast.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/deadline_timer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/test/unit_test.hpp>

#include "../support.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <functional>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

namespace net = simasio::asio;
namespace beast = simasio::beast;
namespace websocket = beast::websocket;
using net::ip::tcp;
using namespace std::chrono_literals;

namespace {

std::size_t entries(const char* dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// Runs f as a handler of host h, then runs the world; returns the
// escape_error's message ("no error" when the run throws none).
template <class F>
std::string escape_of(simasio::world& w, simasio::host& h, F f) {
  net::post(h.context(), std::move(f));
  try {
    w.run();
  } catch (const simasio::escape_error& e) {
    return e.what();
  }
  return "no error";
}

std::int64_t kernel_realtime_ns() {
  timespec ts{};
  ::syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

// ---- clocks -----------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(interpose_clocks)

BOOST_AUTO_TEST_CASE(std_clocks_time_and_gettimeofday_read_the_hosts_virtual_clock_inside_a_run) {
  simasio::world w(1);
  auto& a = w.add_host("a");
  a.set_clock(1h);
  w.run_for(30s);
  std::chrono::nanoseconds std_steady{}, sim_steady{}, std_system{}, sim_system{}, boot{}, raw{};
  std::time_t t = 0;
  timeval tv{};
  net::post(a.context(), [&] {
    std_steady = std::chrono::steady_clock::now().time_since_epoch();
    sim_steady = simasio::steady_clock::now().time_since_epoch();
    std_system = std::chrono::system_clock::now().time_since_epoch();
    sim_system = simasio::system_clock::now().time_since_epoch();
    t = std::time(nullptr);
    ::gettimeofday(&tv, nullptr);
    timespec ts{};
    ::clock_gettime(CLOCK_BOOTTIME, &ts);
    boot = std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
    ::clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    raw = std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  });
  w.run();
  BOOST_TEST(std_steady.count() == sim_steady.count());
  BOOST_TEST(std_steady.count() == std::chrono::nanoseconds(1h + 30s).count());
  BOOST_TEST(boot.count() == sim_steady.count());
  BOOST_TEST(raw.count() == sim_steady.count());
  BOOST_TEST(std_system.count() == sim_system.count());
  BOOST_TEST(std_system.count() == std::chrono::nanoseconds(simasio::system_clock::epoch + 1h + 30s).count());
  BOOST_TEST(t == 1'577'836'800 + 3600 + 30);
  BOOST_TEST(tv.tv_sec == t);
  BOOST_TEST(tv.tv_usec == 0);
}

BOOST_AUTO_TEST_CASE(a_drifting_host_reads_its_own_view_and_the_test_body_reads_real_time) {
  simasio::world w(2);
  auto& a = w.add_host("a");
  a.set_clock(-5s, 100.0);  // 100 ppm fast, 5 s behind
  std::chrono::nanoseconds seen{}, expected{};
  simasio::steady_timer timer(a.context());
  timer.expires_after(10s);
  timer.async_wait([&](auto) {
    seen = std::chrono::steady_clock::now().time_since_epoch();
    expected = simasio::steady_clock::now().time_since_epoch();
  });
  w.run();
  BOOST_TEST(seen.count() == expected.count());
  BOOST_TEST(seen.count() != w.now().count());  // the host's view, not world time
  // Outside a run, libc's answer is the kernel's.
  const std::int64_t before = kernel_realtime_ns();
  const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  const std::int64_t after = kernel_realtime_ns();
  BOOST_TEST(before <= now);
  BOOST_TEST(now <= after);
}

// Beast's basic_stream compares its deadline with steady_clock::now() for a
// zero-length read: with real time that is always past a virtual deadline.
BOOST_AUTO_TEST_CASE(beast_zero_length_read_compares_its_deadline_with_virtual_time) {
  simasio::world w(3);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
  auto peer = std::make_shared<tcp::socket>(server.context());
  acc->async_accept(*peer, [](auto) {});
  beast::error_code early = net::error::would_block, late = net::error::would_block;
  net::co_spawn(
      client.context(),
      [&]() -> net::awaitable<void> {
        beast::tcp_stream stream(co_await net::this_coro::executor);
        co_await stream.async_connect(tcp::endpoint(server.address(), 80), net::use_awaitable);
        stream.expires_after(30s);
        std::array<char, 1> none{};
        auto [ec1, n1] = co_await stream.async_read_some(net::buffer(none, 0), net::as_tuple(net::use_awaitable));
        early = ec1;
        simasio::steady_timer wait(co_await net::this_coro::executor, 31s);
        co_await wait.async_wait(net::use_awaitable);
        auto [ec2, n2] = co_await stream.async_read_some(net::buffer(none, 0), net::as_tuple(net::use_awaitable));
        late = ec2;
      },
      net::detached);
  w.run_for(1min);
  BOOST_TEST(!early, early.message());
  BOOST_TEST((late == beast::error::timeout), late.message());
}

BOOST_AUTO_TEST_SUITE_END()

// ---- entropy ------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(interpose_entropy)

namespace {
std::vector<unsigned char> entropy_of_a_run(std::uint64_t seed) {
  simasio::world w(seed);
  auto& a = w.add_host("a");
  std::vector<unsigned char> out;
  net::post(a.context(), [&] {
    unsigned char buf[16];
    BOOST_TEST(::getrandom(buf, sizeof buf, 0) == 16);
    out.insert(out.end(), buf, buf + 16);
    BOOST_TEST(::getentropy(buf, sizeof buf) == 0);
    out.insert(out.end(), buf, buf + 16);
    std::random_device rd;
    for (int i = 0; i < 2; ++i) {
      const unsigned v = rd();
      for (int b = 0; b < 4; ++b) out.push_back(static_cast<unsigned char>(v >> (8 * b)));
    }
    const int r = std::rand();
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<unsigned char>(r >> (8 * b)));
  });
  w.run();
  return out;
}
}  // namespace

BOOST_AUTO_TEST_CASE(getrandom_getentropy_random_device_and_rand_follow_the_seed) {
  const auto a = entropy_of_a_run(1);
  BOOST_TEST(a.size() == 44u);
  BOOST_TEST(a == entropy_of_a_run(1), boost::test_tools::per_element());
  BOOST_TEST(a != entropy_of_a_run(2));
  // Outside a run, the kernel's entropy.
  unsigned char x[16], y[16];
  BOOST_TEST(::getrandom(x, sizeof x, 0) == 16);
  BOOST_TEST(::getrandom(y, sizeof y, 0) == 16);
  BOOST_TEST(std::vector<unsigned char>(x, x + 16) != std::vector<unsigned char>(y, y + 16));
}

BOOST_AUTO_TEST_CASE(drawing_entropy_moves_no_other_stream) {
  auto scenario = [](bool draw) {
    simasio::world w(7);
    simasio::link_config link;
    link.loss = 0.2;
    w.net().configure(link);
    auto& a = w.add_host("a");
    auto& b = w.add_host("b");
    auto rx = std::make_shared<net::ip::udp::socket>(b.context(), net::ip::udp::endpoint(net::ip::udp::v4(), 9));
    auto buf = std::make_shared<std::array<char, 8>>();
    rx->async_receive(net::buffer(*buf), [rx, buf](auto, auto) {});
    std::uint64_t user = 0;
    net::post(a.context(), [&, addr = b.address()] {
      if (draw) {
        unsigned char bytes[64];
        (void)::getrandom(bytes, sizeof bytes, 0);
      }
      user = w.random().below(1'000'000);
      auto tx = std::make_shared<net::ip::udp::socket>(a.context(), net::ip::udp::v4());
      for (int i = 0; i < 5; ++i) tx->async_send_to(net::buffer("hi", 2), {addr, 9}, [tx](auto, auto) {});
    });
    w.run();
    return std::pair(w.trace_hash(), user);
  };
  BOOST_TEST((scenario(false) == scenario(true)));
}

BOOST_AUTO_TEST_SUITE_END()

// ---- threads --------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(interpose_threads)

BOOST_AUTO_TEST_CASE(std_thread_inside_a_run_is_an_escape_error_naming_pthread_create) {
  simasio::world w;
  auto& a = w.add_host("a");
  const std::size_t threads = entries("/proc/self/task");
  bool ran = false;
  const std::string what = escape_of(w, a, [&] {
    std::thread t([&] { ran = true; });
    t.join();
  });
  BOOST_TEST(what.find("pthread_create (std::thread") != std::string::npos, what);
  BOOST_TEST(what.find("io_context of the host") != std::string::npos, what);
  BOOST_TEST(!ran);
  BOOST_TEST(entries("/proc/self/task") == threads);
}

BOOST_AUTO_TEST_CASE(a_handler_that_swallows_the_error_still_fails_the_run_and_threads_work_outside) {
  simasio::world w;
  auto& a = w.add_host("a");
  std::string swallowed;
  const std::string what = escape_of(w, a, [&] {
    try {
      std::thread([] {}).join();
    } catch (const std::system_error& e) {
      swallowed = e.what();
    }
  });
  BOOST_TEST(!swallowed.empty());
  BOOST_TEST(what.find("pthread_create") != std::string::npos, what);
  // Outside a run, a real thread; and the world runs on.
  bool ran = false;
  std::thread([&] { ran = true; }).join();
  BOOST_TEST(ran);
  int handled = 0;
  net::post(a.context(), [&] { ++handled; });
  w.run();
  BOOST_TEST(handled == 1);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- sockets (inside unshare -n) --------------------------------------------------------

BOOST_AUTO_TEST_SUITE(interpose_sockets)

// glibc's AI_ADDRCONFIG: a family only where the host has an address of it
// besides the loopback. On a host with an IPv4 address only, "localhost"
// resolves to 127.0.0.1 alone (and to both without the flag).
BOOST_AUTO_TEST_CASE(localhost_with_ai_addrconfig_on_an_ipv4_host_is_127_0_0_1_alone) {
  simasio::world w(2);
  auto& h = w.add_host("h");
  auto families = std::make_shared<std::vector<std::vector<int>>>();
  const simasio::process p = h.spawn([families] {
    for (const int flags : {AI_ADDRCONFIG, 0}) {
      addrinfo hints{};
      hints.ai_family = AF_UNSPEC;
      hints.ai_socktype = SOCK_STREAM;
      hints.ai_flags = flags;
      addrinfo* res = nullptr;
      if (::getaddrinfo("localhost", "80", &hints, &res) != 0) throw std::runtime_error("getaddrinfo failed");
      families->emplace_back();
      for (addrinfo* a = res; a != nullptr; a = a->ai_next) families->back().push_back(a->ai_family);
      ::freeaddrinfo(res);
    }
  });
  w.run();
  BOOST_TEST((p.exit_code() == 0));
  BOOST_REQUIRE(families->size() == 2u);
  BOOST_TEST(((*families)[0] == std::vector<int>{AF_INET}));
  BOOST_TEST(((*families)[1] == std::vector<int>{AF_INET, AF_INET6}));
}

BOOST_AUTO_TEST_CASE(outside_a_run_sockets_are_real_and_the_sandbox_has_no_route) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  BOOST_REQUIRE(fd >= 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  ::inet_pton(AF_INET, "192.0.2.1", &to.sin_addr);
  errno = 0;
  const auto sent = ::sendto(fd, "x", 1, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  const int err = errno;
  ::close(fd);
  BOOST_TEST(sent == -1);
  BOOST_TEST(err == ENETUNREACH, std::strerror(err));
}

BOOST_AUTO_TEST_CASE(an_asio_socket_opened_in_a_handler_is_refused_before_the_kernel) {
  simasio::world w;
  auto& a = w.add_host("a");
  boost::asio::io_context real;
  boost::asio::ip::tcp::socket unopened(real);  // Asio's reactor has its descriptors now
  const std::size_t fds = entries("/proc/self/fd");
  const std::string what = escape_of(w, a, [&] {
    boost::asio::ip::tcp::socket s(real);
    s.open(boost::asio::ip::tcp::v4());
  });
  BOOST_TEST(what.find("simasio: socket() was called while a simulated world runs") != std::string::npos, what);
  BOOST_TEST(what.find("namespace net = simasio::asio;") != std::string::npos, what);
  BOOST_TEST(entries("/proc/self/fd") == fds);  // no descriptor was made
}

// A real io_context that waits (its reactor's epoll_wait with a timeout)
// while a world is alive on the thread would wait on real time while the
// virtual clock stands: in the scenario body, between runs, and in a
// handler. It is an escape, named; a poll (no wait) is not, and without a
// world a real io_context waits as it always did.
BOOST_AUTO_TEST_CASE(a_real_io_context_that_waits_while_a_world_is_alive_is_an_escape) {
  simasio::world w(3);
  auto& a = w.add_host("a");
  boost::asio::io_context real;
  boost::asio::steady_timer timer(real, 50ms);
  bool fired = false;
  timer.async_wait([&](boost::system::error_code) { fired = true; });
  std::string body = "no error";
  try {
    real.run();  // the scenario body, between runs of the world
  } catch (const simasio::escape_error& e) {
    body = e.what();
  }
  BOOST_TEST(!fired);
  BOOST_TEST(body.find("a real boost::asio::io_context waited on real time") != std::string::npos, body);
  BOOST_TEST(body.find("epoll_wait") != std::string::npos, body);
  BOOST_TEST(body.find("namespace net = simasio::asio;") != std::string::npos, body);
  real.restart();
  const std::string handler = escape_of(w, a, [&] { real.run(); });
  BOOST_TEST(handler.find("a real boost::asio::io_context waited on real time") != std::string::npos, handler);
  BOOST_TEST(!fired);
  int polled = 0;
  boost::asio::post(real, [&] { ++polled; });
  real.restart();
  BOOST_TEST(real.poll() == 1U);  // a poll does not wait
  BOOST_TEST(polled == 1);
}

BOOST_AUTO_TEST_CASE(a_real_io_context_with_no_world_still_waits_on_real_time) {
  boost::asio::io_context real;
  boost::asio::steady_timer timer(real, 1ms);
  bool fired = false;
  timer.async_wait([&](boost::system::error_code ec) { fired = !ec; });
  real.run();
  BOOST_TEST(fired);
}

BOOST_AUTO_TEST_CASE(connect_send_and_getaddrinfo_on_sockets_made_outside_a_run_are_refused) {
  boost::asio::io_context real;
  boost::asio::ip::tcp::socket tcp_socket(real, boost::asio::ip::tcp::v4());
  boost::asio::ip::udp::socket udp_socket(real, boost::asio::ip::udp::v4());
  const boost::asio::ip::address far = boost::asio::ip::make_address("192.0.2.1");
  struct call {
    const char* name;
    std::function<void()> f;
  };
  const std::vector<call> calls{
      {"connect()", [&] { tcp_socket.connect({far, 80}); }},
      {"sendto()", [&] { udp_socket.send_to(boost::asio::buffer("x", 1), {far, 9}); }},
      {"sendmsg()",
       [&] {
         msghdr msg{};
         (void)::sendmsg(udp_socket.native_handle(), &msg, 0);
       }},
      {"send()", [&] { (void)::send(tcp_socket.native_handle(), "x", 1, 0); }},
      {"getaddrinfo()",
       [&] {
         addrinfo* res = nullptr;
         if (::getaddrinfo("example.com", "80", nullptr, &res) == 0) ::freeaddrinfo(res);
       }},
  };
  for (const call& c : calls) {
    simasio::world w;
    auto& a = w.add_host("a");
    const std::string what = escape_of(w, a, c.f);
    BOOST_TEST_INFO(c.name);
    BOOST_TEST(what.find(std::string("simasio: ") + c.name) != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_SUITE_END()

// ---- Asio's own timers ----------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(interpose_asio_timers)

// Boost.Asio's synchronous timer waits loop on select(0, ...) until their
// clock says the deadline passed; poll() and select() with no descriptor are
// the portable sleep. In a process each waits in virtual time: with a real
// sleep the virtual clock would stand still and the wait never end (the
// seed's watchdog then reports it hung, so the defect cannot hang the suite).
BOOST_AUTO_TEST_CASE(synchronous_timer_waits_and_descriptorless_poll_and_select_wait_in_virtual_time) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& h = w.add_host("h");
        const simasio::process p = h.spawn([] {
          boost::asio::io_context ioc;
          boost::asio::deadline_timer legacy(ioc, boost::posix_time::seconds(5));
          legacy.wait();
          boost::asio::steady_timer steady(ioc, std::chrono::seconds(3));
          steady.wait();
          if (::poll(nullptr, 0, 2000) != 0) throw std::runtime_error("poll(nullptr, 0, 2000) did not time out");
          timeval one{1, 0};
          if (::select(0, nullptr, nullptr, nullptr, &one) != 0) throw std::runtime_error("select did not time out");
        });
        w.run_until([&] { return p.ended(); }, std::chrono::minutes(1));
        if (!p.ended() || p.exit_code() != 0) throw std::runtime_error("the process did not end well: " + p.why());
        // 5 + 3 + 2 + 1 s of waits, all of them in virtual time.
        if (w.now() < std::chrono::seconds(11) || w.now() > std::chrono::seconds(12))
          throw std::runtime_error("the waits took " + std::to_string(w.now().count()) + " ns of virtual time");
      },
      simasio_test::watched_sweep(5));
  BOOST_TEST(r.ok(), (r.failure ? r.failure->what : ""));
}

BOOST_AUTO_TEST_CASE(an_asio_steady_timer_on_a_simulated_context_fires_at_virtual_30_s) {
  simasio::world w(4);
  auto& a = w.add_host("a");
  std::shared_ptr<boost::asio::steady_timer> timer;
  simasio::duration fired_at{-1};
  boost::system::error_code result = net::error::would_block;
  net::post(a.context(), [&] {
    timer = std::make_shared<boost::asio::steady_timer>(a.context());
    timer->expires_after(30s);
    timer->async_wait([&](boost::system::error_code ec) {
      result = ec;
      fired_at = w.now();
    });
  });
  w.run();
  BOOST_TEST(!result, result.message());
  BOOST_TEST(fired_at.count() == simasio::duration(30s).count());
  BOOST_TEST(w.now().count() == simasio::duration(30s).count());  // an idle reactor keeps no wake-up
  BOOST_TEST(!w.stalled());
}

BOOST_AUTO_TEST_CASE(timers_of_several_lengths_fire_in_order_at_their_virtual_deadlines) {
  simasio::world w(5);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  b.set_clock(2h);
  std::vector<std::shared_ptr<boost::asio::steady_timer>> timers;
  std::vector<std::pair<int, simasio::duration>> fired;
  for (int seconds : {45 * 60, 7, 300}) {  // beyond, under and at the reactor's five-minute cap
    for (simasio::host* h : {&a, &b}) {
      net::post(h->context(), [&, h, seconds] {
        auto t = std::make_shared<boost::asio::steady_timer>(h->context());
        timers.push_back(t);
        t->expires_after(std::chrono::seconds(seconds));
        t->async_wait([&, seconds](auto) { fired.emplace_back(seconds, w.now()); });
      });
    }
  }
  w.run();
  BOOST_REQUIRE(fired.size() == 6u);
  for (std::size_t i = 0; i < fired.size(); ++i) {
    BOOST_TEST_INFO(i);
    BOOST_TEST(fired[i].second.count() == simasio::duration(std::chrono::seconds(fired[i].first)).count());
  }
  BOOST_TEST(w.now().count() == simasio::duration(45min).count());
}

BOOST_AUTO_TEST_CASE(websocket_idle_timeout_closes_a_stream_whose_peer_was_partitioned_away) {
  simasio::world w(6);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 80));
  simasio::duration accepted_at{-1}, failed_at{-1};
  beast::error_code failure;
  net::co_spawn(
      server.context(),
      [&]() -> net::awaitable<void> {
        websocket::stream<beast::tcp_stream> ws(co_await acc->async_accept(net::use_awaitable));
        websocket::stream_base::timeout opt{};
        opt.handshake_timeout = 30s;
        opt.idle_timeout = 60s;
        opt.keep_alive_pings = false;
        ws.set_option(opt);
        co_await ws.async_accept(net::use_awaitable);
        accepted_at = w.now();
        beast::flat_buffer buffer;
        auto [ec, n] = co_await ws.async_read(buffer, net::as_tuple(net::use_awaitable));
        failure = ec;
        failed_at = w.now();
      },
      net::detached);
  bool handshaken = false;
  auto client_ws = std::make_shared<websocket::stream<beast::tcp_stream>>(client.context());
  net::co_spawn(
      client.context(),
      [&]() -> net::awaitable<void> {
        co_await beast::get_lowest_layer(*client_ws).async_connect(tcp::endpoint(server.address(), 80),
                                                                   net::use_awaitable);
        co_await client_ws->async_handshake("server", "/", net::use_awaitable);
        handshaken = true;
        w.net().partition({{&server}, {&client}});
      },
      net::detached);
  w.run_for(10min);
  BOOST_REQUIRE(handshaken);
  BOOST_TEST((failure == beast::error::timeout), failure.message());
  BOOST_TEST((failed_at - accepted_at).count() == simasio::duration(60s).count());
}

BOOST_AUTO_TEST_SUITE_END()

// ---- determinism ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(interpose_determinism)

// The scenario simasio_tests shows SIMASIO_VERIFY=1 catching: a deadline
// from std::chrono::steady_clock::now(). Read inside a run, it is virtual.
BOOST_AUTO_TEST_CASE(a_deadline_from_std_steady_clock_is_deterministic_with_the_library) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 5;
  opts.verify_determinism = true;
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& a = w.add_host("a");
        auto t = std::make_shared<simasio::steady_timer>(a.context());
        net::post(a.context(), [t] {
          t->expires_at(std::chrono::steady_clock::now() + 1s);
          t->async_wait([t](auto) {});
        });
        w.run();
        if (w.now() != simasio::duration(1s)) throw std::runtime_error("deadline not on virtual time");
      },
      opts);
  BOOST_TEST(r.ok(), (r.failure ? r.failure->what : std::string()));
}

BOOST_AUTO_TEST_SUITE_END()
