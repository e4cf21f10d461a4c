// foreign_thread_test.cpp — a socket used from a thread of its own is a named usage_error
//
// Asio's cpp11/echo/blocking_tcp_echo_server.cpp hands each accepted socket
// to a thread (std::thread(session, a.accept()).detach()) that blocks in
// read_some and write. A simulated world runs on one thread: the session
// thread must fail at its first use of the socket with a usage_error that
// names the problem and the fix, without touching the world, so the world
// itself stays deterministic.
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include "../support.hpp"

#include <string>
#include <thread>
#include <vector>

#include <sys/single_threaded.h>

namespace net = simasio::asio;
using net::ip::tcp;

namespace {

// The session of Asio's blocking echo server, recording what it caught.
void session(tcp::socket sock, std::string& caught) {
  try {
    for (;;) {
      char data[1024];
      boost::system::error_code error;
      std::size_t length = sock.read_some(net::buffer(data), error);
      if (error == net::error::eof) break;
      if (error) throw boost::system::system_error(error);
      net::write(sock, net::buffer(data, length));
    }
  } catch (std::exception& e) {
    caught = e.what();
  }
}

// A client that sends a line and waits for its echo.
void start_client(simasio::host& client, const simasio::host& server, std::string& echoed) {
  net::co_spawn(
      client.context(),
      [&echoed, address = server.address()]() -> net::awaitable<void> {
        tcp::socket s(co_await net::this_coro::executor);
        co_await s.async_connect(tcp::endpoint(address, 7), net::use_awaitable);
        co_await net::async_write(s, net::buffer(std::string("hello")), net::use_awaitable);
        std::string reply(5, '\0');
        co_await net::async_read(s, net::buffer(reply), net::use_awaitable);
        echoed = reply;
      },
      net::detached);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(foreign_thread)

BOOST_AUTO_TEST_CASE(thread_per_connection_server_fails_with_a_named_usage_error) {
  for (int round = 0; round < 20; ++round) {  // thread timing varies; the outcome must not
    simasio::world w(11);
    auto& server = w.add_host("server");
    auto& client = w.add_host("client");
    std::string echoed;
    start_client(client, server, echoed);
    tcp::acceptor a(server.context(), tcp::endpoint(tcp::v4(), 7));
    std::string caught;
    std::thread t(session, a.accept(), std::ref(caught));
    // The server loops to its next accept: the client waits for an echo
    // that the session thread can never send, so the world stalls.
    const std::string stalled = simasio_test::what_of<boost::system::system_error>([&] { a.accept(); });
    t.join();
    BOOST_TEST(caught.find("simasio: a TCP socket was used from a thread other than the one that created it") !=
                   std::string::npos,
               caught);
    BOOST_TEST(caught.find("std::thread(session, std::move(socket))") != std::string::npos, caught);
    BOOST_TEST(caught.find("co_spawn a coroutine per connection") != std::string::npos, caught);
    BOOST_TEST(stalled != "no error");
    BOOST_TEST(echoed.empty());
  }
}

BOOST_AUTO_TEST_CASE(each_use_from_another_thread_throws_usage_error_while_the_world_is_idle) {
  simasio::world w(12);
  auto& h = w.add_host("h");
  tcp::socket s(h.context());
  net::ip::udp::socket u(h.context(), net::ip::udp::v4());
  tcp::acceptor a(h.context(), tcp::endpoint(tcp::v4(), 80));
  int refused = 0;
  std::thread t([&] {
    char b[4];
    auto count = [&](auto&& f) {
      try {
        f();
      } catch (const simasio::usage_error&) {
        ++refused;
      }
    };
    count([&] { s.open(tcp::v4()); });
    count([&] { s.async_read_some(net::buffer(b), [](boost::system::error_code, std::size_t) {}); });
    count([&] { s.connect(tcp::endpoint(h.address(), 80)); });
    count([&] { u.send_to(net::buffer(b), net::ip::udp::endpoint(h.address(), 9)); });
    count([&] { a.accept(); });
    count([&] { a.async_accept([](boost::system::error_code, tcp::socket) {}); });
  });
  t.join();
  BOOST_TEST(refused == 6);
  // The world saw none of it: nothing is pending, and the objects still work here.
  BOOST_TEST(w.run() == 0u);
  s.open(tcp::v4());
  BOOST_TEST(s.is_open());
}

// Boost's cpp11 futures daytime client runs its io_context on a std::thread
// while main() waits on futures; run from a scenario body, the thread's run
// ended at once (nothing runs while the body waits) and the body's wait hung
// for ever. Each way to run a context from such a thread is a usage_error
// naming the way out, and the world saw none of it.
BOOST_AUTO_TEST_CASE(running_an_io_context_from_a_thread_with_no_world_is_a_usage_error_naming_the_way_out) {
  simasio::world w(4);
  auto& h = w.add_host("h");
  net::io_context& io = h.context();
  auto work = net::make_work_guard(io);
  bool ran = false;
  net::post(io, [&] { ran = true; });
  std::vector<std::string> caught;
  std::thread t([&] {
    auto count = [&](auto&& f) {
      try {
        f();
      } catch (const simasio::usage_error& e) {
        caught.push_back(e.what());
      }
    };
    count([&] { io.run(); });
    count([&] { io.run_one(); });
    count([&] { io.run_for(std::chrono::seconds(1)); });
    count([&] { io.poll(); });
    count([&] { io.poll_one(); });
  });
  t.join();
  BOOST_TEST(caught.size() == 5U);
  for (const std::string& what : caught) {
    BOOST_TEST(what.find("was called from a thread that runs no world") != std::string::npos, what);
    BOOST_TEST(what.find("host.spawn_main") != std::string::npos, what);
  }
  if (!caught.empty()) BOOST_TEST(caught.front().find("simasio: io_context::run was called") == 0U, caught.front());
  BOOST_TEST(!ran);
  BOOST_TEST(w.now() == simasio::duration::zero());
  BOOST_TEST(io.poll() == 1U);  // on the world's own thread it runs
  BOOST_TEST(ran);
}

BOOST_AUTO_TEST_CASE(a_socket_destroyed_on_another_thread_is_freed_with_its_context) {
  simasio::world w(13);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  std::string echoed;
  start_client(client, server, echoed);
  tcp::acceptor a(server.context(), tcp::endpoint(tcp::v4(), 7));
  std::thread([sock = a.accept()]() mutable { tcp::socket gone = std::move(sock); }).join();
  // The world never sees the socket go (no FIN): the client waits on.
  w.run();
  BOOST_TEST(w.stalled());
  BOOST_TEST(echoed.empty());
}  // under ASan: no leak, no use after free when the contexts and world go

// A library's thread that kept a reference to the scenario's io_context and
// calls it after the scenario returned gets a usage_error, not freed memory.
BOOST_AUTO_TEST_CASE(a_thread_that_outlives_the_scenario_gets_a_usage_error_from_its_destroyed_io_context) {
  std::string caught;
  simasio::world w(1);
  auto ctx = std::make_unique<simasio::io_context>(w.add_host("h"));
  simasio::io_context* kept = ctx.get();
  ctx.reset();  // gone, as a scenario's io_context is when the scenario returns
  std::thread late([&caught, kept] {
    try {
      kept->stop();
    } catch (const simasio::usage_error& e) {
      caught = e.what();
    }
  });
  late.join();
  BOOST_TEST(caught.find("io_context::stop was called on an io_context that no longer exists") != std::string::npos,
             caught);
}

BOOST_AUTO_TEST_SUITE_END()

// Without simasio::interpose, simasio cannot refuse pthread_create, but a
// run that began in a single-threaded program sees a thread started during
// it (glibc's __libc_single_threaded) and fails with a named escape_error.
// CTest runs this suite alone in its own process, before any thread exists.
BOOST_AUTO_TEST_SUITE(thread_started_in_a_run)

BOOST_AUTO_TEST_CASE(a_thread_a_handler_starts_fails_the_run_with_an_escape_error_naming_the_way_out) {
  BOOST_REQUIRE_MESSAGE(__libc_single_threaded, "this suite must run in a process that has started no thread yet");
  simasio::world w(1);
  auto& h = w.add_host("h");
  bool ran = false;
  int handled = 0;
  net::post(h.context(), [&] {
    ++handled;
    std::thread([&ran] { ran = true; }).join();
  });
  net::post(h.context(), [&] { ++handled; });
  const std::string what = simasio_test::what_of<simasio::escape_error>([&] { w.run(); });
  BOOST_TEST(what.find("simasio: a thread was started while a simulated world runs on this thread") !=
                 std::string::npos,
             what);
  BOOST_TEST(what.find("Link simasio::interpose") != std::string::npos, what);
  BOOST_TEST(what.find("host.spawn") != std::string::npos, what);
  BOOST_TEST(ran);           // simasio saw the thread; it could not stop it
  BOOST_TEST(handled == 1);  // the run ended after the step that started it
  // The program has a second thread for good now: later runs are not
  // watched, and run on.
  BOOST_TEST(w.run() == 1u);
  BOOST_TEST(handled == 2);
}

BOOST_AUTO_TEST_SUITE_END()
