// beast_hello.hpp — a Beast HTTP server on simasio's own sockets that libraries in processes fetch from
#pragma once

#include "faulty_runs.hpp"

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace beast_hello {

namespace net = simasio::asio;
namespace http = boost::beast::http;
using net::ip::tcp;

// Answers every request on a keep-alive connection with
// "beast says hello to <target>".
net::awaitable<void> beast_session(tcp::socket socket) {
  boost::beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> req;
    auto [ec, n] = co_await http::async_read(socket, buffer, req, net::as_tuple(net::use_awaitable));
    if (ec) co_return;
    http::response<http::string_body> res{http::status::ok, req.version()};
    res.keep_alive(req.keep_alive());
    res.set(http::field::content_type, "text/plain");
    res.body() = "beast says hello to " + std::string(req.target());
    res.prepare_payload();
    auto [wec, wn] = co_await http::async_write(socket, res, net::as_tuple(net::use_awaitable));
    if (wec || !res.keep_alive()) co_return;
  }
}

net::awaitable<void> beast_server(tcp::acceptor& acceptor) {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(net::as_tuple(net::use_awaitable));
    if (ec) co_return;
    net::co_spawn(acceptor.get_executor(), beast_session(std::move(socket)), net::detached);
  }
}

// A host "server" listening on port 8080.
struct beast_host {
  simasio::host& host;
  net::io_context io;
  tcp::acceptor acceptor;
  explicit beast_host(simasio::world& w)
      : host(w.add_host("server")), io(host), acceptor(io, tcp::endpoint(tcp::v4(), 8080)) {
    net::co_spawn(io, beast_server(acceptor), net::detached);
  }
};

// A world under the faults of faulty_runs.hpp: the Beast server, and a
// process on host "client" running client_main; it must print `expected`
// (`who` names the client in the failure).
inline void client_against_beast(simasio::world& w, const std::function<void()>& client_main,
                                 const std::string& expected, const std::string& who) {
  faulty::network(w);
  beast_host server(w);
  auto& client = w.add_host("client");
  const simasio::process p = client.spawn(client_main);
  faulty::run_with_partition(w, server.host, {&client}, [&] { return p.ended(); });
  if (p.stdout_text() != expected) throw std::runtime_error(who + " printed \"" + p.stdout_text() + "\"");
}

}  // namespace beast_hello
