// main_asio.cpp — the echo service on Boost.Asio over real loopback TCP.
#include "echo.hpp"

#include <chrono>
#include <cstdio>
#include <exception>

int main() {
  net::io_context io;
  net::ip::tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), 0});  // any free port
  const net::ip::tcp::endpoint server = acceptor.local_endpoint();
  net::co_spawn(io, echo::serve(std::move(acceptor)), net::detached);

  std::size_t echoed = 0;
  std::exception_ptr error;
  const auto start = std::chrono::steady_clock::now();
  net::co_spawn(io, echo::exchange(server, 200), [&](std::exception_ptr e, std::size_t bytes) {
    error = e;
    echoed = bytes;
    io.stop();  // the server would accept forever
  });
  io.run();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      std::printf("boost::asio on loopback: FAILED: %s\n", e.what());
      return 1;
    }
  }
  std::printf("boost::asio on loopback 127.0.0.1:%u: 200 messages, %zu bytes echoed intact in %.1f ms\n",
              static_cast<unsigned>(server.port()), echoed, ms);
  return 0;
}
