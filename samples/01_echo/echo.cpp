// echo.cpp — the service, identical in both builds.
#include "echo.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace echo {

using net::ip::tcp;

namespace {

net::awaitable<void> session(tcp::socket socket) {
  socket.set_option(tcp::no_delay(true));  // request/response: don't wait for Nagle
  std::vector<char> data(4096);
  for (;;) {
    auto [ec, n] = co_await socket.async_read_some(net::buffer(data), net::as_tuple(net::use_awaitable));
    if (ec) co_return;  // eof, reset: the client is gone
    co_await net::async_write(socket, net::buffer(data.data(), n), net::use_awaitable);
  }
}

// Message i: a size between 1 byte and 10 KiB, filled with a pattern that
// depends on i and the position, so a lost, swapped or repeated byte shows.
std::string message(int i) {
  std::string m(static_cast<std::size_t>(1 + (i * 2654435761u) % 10240), '\0');
  for (std::size_t k = 0; k < m.size(); ++k) m[k] = static_cast<char>('a' + (k * 7 + static_cast<std::size_t>(i)) % 26);
  return m;
}

}  // namespace

net::awaitable<void> serve(tcp::acceptor acceptor) {
  for (;;) {
    tcp::socket socket = co_await acceptor.async_accept(net::use_awaitable);
    net::co_spawn(acceptor.get_executor(), session(std::move(socket)), net::detached);
  }
}

net::awaitable<std::size_t> exchange(tcp::endpoint server, int messages) {
  tcp::socket socket(co_await net::this_coro::executor);
  co_await socket.async_connect(server, net::use_awaitable);
  socket.set_option(tcp::no_delay(true));
  std::size_t echoed = 0;
  for (int i = 0; i < messages; ++i) {
    const std::string out = message(i);
    co_await net::async_write(socket, net::buffer(out), net::use_awaitable);
    std::string back(out.size(), '\0');
    co_await net::async_read(socket, net::buffer(back), net::use_awaitable);
    if (back != out) throw std::runtime_error("echo " + std::to_string(i) + " came back different");
    echoed += back.size();
  }
  socket.shutdown(tcp::socket::shutdown_send);
  co_return echoed;
}

}  // namespace echo
