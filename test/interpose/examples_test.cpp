// examples_test.cpp — Boost's own Asio examples, as shipped, each main() a simulated process
//
// The sources are the ones libboost1.81-doc installs, compiled unmodified
// (only `main` is renamed by a macro, so that several can live in one
// program). They name boost::asio:: directly and run Boost.Asio's own
// io_context: its epoll reactor, eventfd and timerfd, its resolver, its
// signal_set, std::cin and std::cout, all meet the simulation at the
// system-call boundary (simasio::interpose). Each scenario runs 100 seeds
// with latency, 5% loss and a partition that heals, and checks what the
// programs printed.
#include <simasio/simasio.hpp>

#include "faulty_runs.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

int async_tcp_echo_server_main(int argc, char* argv[]);
int blocking_tcp_echo_client_main(int argc, char* argv[]);
int chat_server_main(int argc, char* argv[]);
int chat_client_main(int argc, char* argv[]);
int http_server_main(int argc, char* argv[]);
int http_sync_client_main(int argc, char* argv[]);
int coroutine_echo_server_main();

using namespace std::chrono_literals;

namespace {

std::uint64_t seeds() { return faulty::seeds("SIMASIO_EXAMPLE_SEEDS"); }
simasio::check_options sweep() { return faulty::sweep(seeds()); }
using faulty::failure_of;

// A server and n clients, under the faults of faulty_runs.hpp.
struct faulty_world {
  simasio::world& w;
  simasio::host& server;
  std::vector<simasio::host*> clients;

  faulty_world(simasio::world& world, int n) : w(world), server(world.add_host("server")) {
    for (int i = 0; i < n; ++i) clients.push_back(&w.add_host("client" + std::to_string(i + 1)));
    faulty::network(w);
  }
  void run(const std::function<bool()>& done) { faulty::run_with_partition(w, server, clients, done); }
};

void expect_output(const simasio::process& p, const std::string& expected, const char* who) {
  if (p.stdout_text() != expected)
    throw std::runtime_error(std::string(who) + " printed \"" + p.stdout_text() + "\" (stderr \"" + p.stderr_text() +
                             "\"), expected \"" + expected + "\"");
  if (!p.ended() || p.exit_code() != 0)
    throw std::runtime_error(std::string(who) + " did not end with status 0");
}

// Two blocking echo clients of a server listening on `port`.
void echo_clients(faulty_world& f, const char* port) {
  std::vector<simasio::process> clients;
  for (std::size_t i = 0; i < f.clients.size(); ++i) {
    clients.push_back(f.clients[i]->spawn_main(blocking_tcp_echo_client_main, {"blocking_tcp_echo_client", "server", port}));
    clients.back().write_stdin("hello from client " + std::to_string(i + 1) + "\n");
  }
  f.run([&] {
    for (const auto& c : clients)
      if (!c.ended()) return false;
    return true;
  });
  for (std::size_t i = 0; i < clients.size(); ++i)
    expect_output(clients[i], "Enter message: Reply is: hello from client " + std::to_string(i + 1) + "\n", "a client");
}

std::filesystem::path doc_root() {
  static const std::filesystem::path root = [] {
    auto dir = std::filesystem::temp_directory_path() / ("simasio-http-root-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "index.html") << "<html><body>simulated</body></html>\n";
    return dir;
  }();
  return root;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(boost_examples)

BOOST_AUTO_TEST_CASE(cpp11_async_echo_server_and_blocking_clients) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        faulty_world f(w, 2);
        const simasio::process server = f.server.spawn_main(async_tcp_echo_server_main, {"async_tcp_echo_server", "7000"});
        w.run_for(10ms);
        echo_clients(f, "7000");
        if (server.ended()) throw std::runtime_error("the server ended: " + server.stderr_text());
      },
      sweep());
  BOOST_TEST(r.ok(), failure_of(r));
  BOOST_TEST(r.runs == seeds());
}

BOOST_AUTO_TEST_CASE(cpp20_coroutine_echo_server_and_blocking_clients) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        faulty_world f(w, 2);
        f.server.spawn_main([](int, char**) { return coroutine_echo_server_main(); }, {"echo_server"});
        w.run_for(10ms);
        echo_clients(f, "55555");
      },
      sweep());
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(cpp11_chat_server_relays_every_line_to_every_client) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        faulty_world f(w, 2);
        f.server.spawn_main(chat_server_main, {"chat_server", "9000"});
        w.run_for(10ms);
        const simasio::process one = f.clients[0]->spawn_main(chat_client_main, {"chat_client", "server", "9000"});
        const simasio::process two = f.clients[1]->spawn_main(chat_client_main, {"chat_client", "server", "9000"});
        one.write_stdin("hi from one\n");
        two.write_stdin("hi from two\n");
        auto heard_both = [](const simasio::process& p) {
          const std::string out = p.stdout_text();
          return out.find("hi from one\n") != std::string::npos && out.find("hi from two\n") != std::string::npos;
        };
        f.run([&] { return heard_both(one) && heard_both(two); });
        one.close_stdin();
        two.close_stdin();
        if (!w.run_until([&] { return one.ended() && two.ended(); }, std::chrono::minutes(5)))
          throw std::runtime_error("the chat clients did not leave: " + w.pending_report());
        for (const auto* p : {&one, &two})
          if (p->stdout_text().size() != std::string("hi from one\nhi from two\n").size() || p->exit_code() != 0)
            throw std::runtime_error("a chat client printed \"" + p->stdout_text() + "\"");
      },
      sweep());
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(cpp11_http_server_answers_the_cpp03_sync_client) {
  const std::string root = doc_root().string();
  const auto r = simasio::check(
      [&](simasio::world& w) {
        faulty_world f(w, 1);
        f.server.spawn_main(http_server_main, {"http_server", "0.0.0.0", "80", root});
        w.run_for(10ms);
        const simasio::process client =
            f.clients[0]->spawn_main(http_sync_client_main, {"sync_client", "server", "/index.html"});
        f.run([&] { return client.ended(); });
        const std::string out = client.stdout_text();
        if (out.find("Content-Length: 36\r\nContent-Type: text/html\r\n") == std::string::npos ||
            out.find("<html><body>simulated</body></html>") == std::string::npos || client.exit_code() != 0)
          throw std::runtime_error("the client printed \"" + out + "\" (stderr \"" + client.stderr_text() + "\")");
      },
      sweep());
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(a_seed_of_the_examples_traces_the_same_twice) {
  auto scenario = [](simasio::world& w) {
    faulty_world f(w, 2);
    f.server.spawn_main(async_tcp_echo_server_main, {"async_tcp_echo_server", "7000"});
    w.run_for(10ms);
    echo_clients(f, "7000");
  };
  simasio::check_options o = sweep();
  o.seeds = 20;
  o.verify_determinism = true;
  const auto first = simasio::check(scenario, o);
  const auto second = simasio::check(scenario, o);
  BOOST_TEST(first.ok(), failure_of(first));
  BOOST_TEST(first.trace_hashes == second.trace_hashes);
}

BOOST_AUTO_TEST_SUITE_END()
