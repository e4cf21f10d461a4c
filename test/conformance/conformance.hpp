// conformance.hpp — what every Boost example runs under in the conformance suite
//
// Each harness compiles a Boost example pair (alias-switched by
// cmake/alias_switch.cmake, each program in its own namespace), starts the
// server the way its main() does on host "server", and runs the client
// (its own main(), unchanged, where it can be) on the host its default
// io_context joins. Every seed runs under the same faults (faults()), and
// the harness checks what the client printed.
#ifndef SIMASIO_CONFORMANCE_HPP
#define SIMASIO_CONFORMANCE_HPP

#include <simasio/simasio.hpp>

#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace conformance {

using namespace std::chrono_literals;

/// Seeds per example: 100, or SIMASIO_SEEDS.
inline constexpr std::uint64_t seeds = 100;

/// The faults of every run: 1–30 ms of latency on every link, 5% loss, and
/// one partition between @p a and @p b from 10 ms to 800 ms, then healed
/// (so a connect made at once retries its SYN after the heal, at 1 s).
inline void faults(simasio::world& w, simasio::host& a, simasio::host& b) {
  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 30ms;
  link.loss = 0.05;
  w.net().configure(link);
  auto& chaos = w.add_host("chaos");
  auto timer = std::make_shared<simasio::steady_timer>(chaos.context(), 10ms);
  timer->async_wait([&w, &a, &b, timer](boost::system::error_code) {
    w.net().partition({{&a}, {&b}});
    timer->expires_after(790ms);
    timer->async_wait([&w, timer](boost::system::error_code) { w.net().heal(); });
  });
}

/// Captures what the programs print on std::cout and std::cerr.
class capture {
 public:
  capture() : out_(std::cout.rdbuf(out_text_.rdbuf())), err_(std::cerr.rdbuf(err_text_.rdbuf())) {}
  ~capture() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  capture(const capture&) = delete;
  capture& operator=(const capture&) = delete;
  std::string out() const { return out_text_.str(); }
  std::string err() const { return err_text_.str(); }

 private:
  std::ostringstream out_text_, err_text_;
  std::streambuf* out_;
  std::streambuf* err_;
};

/// Feeds std::cin for the scope's lifetime (clients that read their input
/// with std::cin.getline).
class stdin_from {
 public:
  explicit stdin_from(const std::string& text) : text_(text), saved_(std::cin.rdbuf(text_.rdbuf())) {}
  ~stdin_from() { std::cin.rdbuf(saved_); }
  stdin_from(const stdin_from&) = delete;
  stdin_from& operator=(const stdin_from&) = delete;

 private:
  std::istringstream text_;
  std::streambuf* saved_;
};

/// Fails the run (the sweep then prints the seed and replay line) unless
/// @p text contains every one of @p needles.
inline void expect_contains(const std::string& text, const std::vector<std::string>& needles,
                            const std::string& what) {
  for (const std::string& n : needles)
    if (text.find(n) == std::string::npos)
      throw std::runtime_error(what + " lacks \"" + n + "\"; it was:\n" + text.substr(0, 2000));
}

/// Boost's cpp11/echo blocking_tcp_echo_client against an echo server, each
/// an unmodified main() run as a process of its own host under faults(): as
/// `<server> 7000` on "server" and `blocking_tcp_echo_client server 7000` on
/// "client", typing @p line. The client must print its echo and return 0,
/// with nothing on stderr, and the server must still run.
inline void echo_through_blocking_client(simasio::world& world, std::function<int(int, char**)> server_main,
                                         const std::string& server_name, std::function<int(int, char**)> client_main,
                                         const std::string& line) {
  auto& server = world.add_host("server");
  auto& client = world.add_host("client");
  faults(world, client, server);
  capture out;
  stdin_from input(line + "\n");
  const simasio::process s = server.spawn_main(std::move(server_main), {server_name, "7000"});
  world.run_for(std::chrono::milliseconds(1));  // the server listens first, as a user would start them
  const simasio::process c = client.spawn_main(std::move(client_main), {"blocking_tcp_echo_client", "server", "7000"});
  if (!world.run_until([&] { return c.ended(); }, std::chrono::minutes(10)))
    throw std::runtime_error("the client's main() did not return: " + world.pending_report());
  expect_contains(out.out(), {"Enter message: ", "Reply is: " + line}, "the client's output");
  if (!out.err().empty()) throw std::runtime_error("a program printed an error: " + out.err());
  if (c.exit_code() != 0) throw std::runtime_error("the client's main() did not return 0");
  if (s.ended()) throw std::runtime_error("the server's main() ended");
}

/// Runs an example's main() with @p args (args[0] is the program name).
template <class Main>
int run_main(Main main, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return main(static_cast<int>(args.size()), argv.data());
}

}  // namespace conformance

#endif  // SIMASIO_CONFORMANCE_HPP
