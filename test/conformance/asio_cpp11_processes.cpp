// asio_cpp11_processes.cpp — Asio examples whose main() uses threads and futures, each an unmodified main() on its host
//
// Linked with simasio::interpose: inside a process, std::thread starts a
// simulated thread of the host, and std::future::get, std::mutex and
// std::this_thread::sleep_for block fibers, not the test program.
//   - cpp11/echo/blocking_tcp_echo_server: a thread per connection, serving
//     two blocking_tcp_echo_client mains on two other hosts;
//   - cpp11/futures/daytime_client: its io_context runs on a std::thread
//     while main() waits on use_future futures, against cpp03's daytime6
//     UDP server on another host;
//   - cpp11/http/server: its main() on host "web" (signals, acceptor, files
//     from a document root), fetched by cpp03's http sync_client main;
//   - cpp11/parallel_group/wait_for_one and wait_for_all: stdin through
//     posix::stream_descriptor raced against a timer, fed by the scenario
//     (process::write_stdin).
// Every seed runs under conformance::faults: latency, 5% loss and a
// partition that heals.
#include <simasio/asio.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"
#include "doc_root.hpp"

#include "asio_cpp11_blocking_echo_server.ipp"
#include "asio_cpp11_blocking_echo_client.ipp"
#include "asio_cpp11_daytime_client.ipp"
#include "asio_cpp03_daytime6_server.ipp"
#include "asio_cpp11_http_server_main.ipp"
#include "asio_cpp03_http_sync_client.ipp"
#include "asio_cpp11_wait_for_one.ipp"
#include "asio_cpp11_wait_for_all.ipp"

namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

SIMASIO_TEST_CASE(blocking_echo_thread_per_connection, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& first = world.add_host("client1");
  auto& second = world.add_host("client2");
  conformance::faults(world, first, server);
  conformance::capture out;
  conformance::stdin_from input("first line\nsecond line\n");  // one line for each client, whichever reads first
  // `blocking_tcp_echo_server 7000`: a std::thread per accepted connection.
  const simasio::process s =
      server.spawn_main(asio_cpp11_blocking_echo_server::example_main, {"blocking_tcp_echo_server", "7000"});
  world.run_for(std::chrono::milliseconds(1));
  const std::vector<std::string> args{"blocking_tcp_echo_client", "server", "7000"};
  const simasio::process a = first.spawn_main(asio_cpp11_blocking_echo_client::example_main, args);
  const simasio::process b = second.spawn_main(asio_cpp11_blocking_echo_client::example_main, args);
  if (!world.run_until([&] { return a.ended() && b.ended(); }, std::chrono::minutes(10)))
    throw std::runtime_error("a client's main() did not return: " + world.pending_report() +
                             "\nthe programs' errors: " + out.err());
  conformance::expect_contains(out.out(), {"Reply is: first line", "Reply is: second line"}, "the clients' output");
  if (count_of(out.out(), "Enter message: ") != 2) throw std::runtime_error("expected two prompts:\n" + out.out());
  if (!out.err().empty()) throw std::runtime_error("a program printed an error: " + out.err());
  if (a.exit_code() != 0 || b.exit_code() != 0) throw std::runtime_error("a client's main() did not return 0");
  if (s.ended()) throw std::runtime_error("the server's main() ended");
  // The clients closed their sockets: the server's session threads read
  // eof and returned; only its main thread, blocked in accept(), is left.
  world.run_for(std::chrono::seconds(5));
  if (world.pending_report().find("std::thread") != std::string::npos)
    throw std::runtime_error("a session thread is still waiting: " + world.pending_report());
}

// UDP has no retransmission and Asio's daytime client sets no timeout: a
// lost request or reply leaves it waiting for good, as on a real network.
// Every seed either prints the server's time or stalls with the client
// waiting on its future; both happen across the sweep.
namespace {
int daytime_printed = 0, daytime_lost = 0;
}

SIMASIO_TEST_CASE(futures_daytime, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  conformance::faults(world, client, server);
  conformance::capture out;
  server.spawn([] { asio_cpp03_daytime6_server::example_main(); });  // its main() takes no arguments
  world.run_for(std::chrono::milliseconds(1));
  const simasio::process c =
      client.spawn_main(asio_cpp11_daytime_client::example_main, {"daytime_client", "server"});
  if (world.run_until([&] { return c.ended(); }, std::chrono::minutes(10))) {
    ++daytime_printed;
    // ctime() of the server's virtual clock: the world starts on 2020-01-01.
    conformance::expect_contains(out.out(), {"Jan  1 00:00:0", "2020\n"}, "the client's output");
    if (!out.err().empty()) throw std::runtime_error("a program printed an error: " + out.err());
    if (c.exit_code() != 0) throw std::runtime_error("the client's main() did not return 0");
  } else {
    ++daytime_lost;
    const std::string report = world.pending_report();
    if (!world.stalled() || report.find("a futex wait") == std::string::npos)
      throw std::runtime_error("the client neither printed the time nor waited for a lost datagram: " + report);
    if (!out.out().empty()) throw std::runtime_error("the client printed without a reply: " + out.out());
  }
}

BOOST_AUTO_TEST_CASE(futures_daytime_both_outcomes_were_seen, *boost::unit_test::depends_on("futures_daytime")) {
  BOOST_TEST(daytime_printed > 0);
  BOOST_TEST(daytime_lost > 0);
}

SIMASIO_TEST_CASE(http_server_main, conformance::seeds) {
  auto& web = world.add_host("web");
  auto& client = world.add_host("client");
  conformance::faults(world, client, web);
  conformance::capture out;
  // `http_server 0.0.0.0 80 <doc_root>` on host "web" ...
  const simasio::process s = web.spawn_main(asio_cpp11_http_server_main::example_main,
                                            {"http_server", "0.0.0.0", "80", conformance::doc_root()});
  world.run_for(std::chrono::milliseconds(1));
  // ... and `sync_client web /index.html` on host "client".
  const simasio::process c =
      client.spawn_main(asio_cpp03_http_sync_client::example_main, {"sync_client", "web", "/index.html"});
  if (!world.run_until([&] { return c.ended(); }, std::chrono::minutes(10)))
    throw std::runtime_error("the client's main() did not return: " + world.pending_report());
  conformance::expect_contains(out.out(), {"Content-Type: text/html", conformance::page},
                               "the client's output");
  if (!out.err().empty()) throw std::runtime_error("a program printed an error: " + out.err());
  if (c.exit_code() != 0) throw std::runtime_error("the client's main() did not return 0");
  // SIGTERM ends the server's main() as on Linux: its signal_set stops the io_context.
  web.raise(SIGTERM);
  if (!world.run_until([&] { return s.ended(); }, std::chrono::seconds(10)))
    throw std::runtime_error("the server's main() did not end on SIGTERM: " + world.pending_report());
  if (s.exit_code() != 0) throw std::runtime_error("the server's main() did not return 0");
}

// Asio's parallel_group examples: main() reads standard input through
// posix::stream_descriptor(ctx, ::dup(STDIN_FILENO)) in parallel with a
// 5-second timer. Here stdin is the process's simulated pipe: on even seeds
// a line is typed at 1 s and the read finishes first; on odd seeds nothing
// is typed and the timer does. wait_for_one cancels the other operation;
// wait_for_all waits for both (stdin is closed at 6 s on odd seeds, so the
// read ends).
namespace {

void run_parallel_group(simasio::world& world, void (*example_main)(), bool wait_all) {
  auto& shell = world.add_host("shell");
  conformance::capture out;
  const bool typed = world.seed() % 2 == 0;
  const simasio::process p = shell.spawn([example_main] { example_main(); });
  simasio::asio::steady_timer at(shell.context(), std::chrono::seconds(typed ? 1 : 6));
  at.async_wait([&](boost::system::error_code) {
    if (typed) p.write_stdin("hello\n");
    else p.close_stdin();
  });
  if (!world.run_until([&] { return p.ended(); }, std::chrono::minutes(1)))
    throw std::runtime_error("the example's main() did not return: " + world.pending_report());
  const auto ended_at = std::chrono::duration_cast<std::chrono::seconds>(world.now()).count();
  if (typed) {
    conformance::expect_contains(out.out(), {"descriptor finished: system:0, 6\n"}, "the example's output");
    if (ended_at != (wait_all ? 5 : 1))
      throw std::runtime_error("main() returned at " + std::to_string(ended_at) + " s");
  } else {
    conformance::expect_contains(out.out(), {"timer finished: system:0\n"}, "the example's output");
    if (ended_at != (wait_all ? 6 : 5))
      throw std::runtime_error("main() returned at " + std::to_string(ended_at) + " s");
  }
  if (out.out().find("finished") != out.out().rfind("finished"))
    throw std::runtime_error("the example printed twice: " + out.out());
}

}  // namespace

SIMASIO_TEST_CASE(parallel_group_wait_for_one, conformance::seeds) {
  run_parallel_group(world, [] { asio_cpp11_wait_for_one::example_main(); }, false);
}

SIMASIO_TEST_CASE(parallel_group_wait_for_all, conformance::seeds) {
  run_parallel_group(world, [] { asio_cpp11_wait_for_all::example_main(); }, true);
}
