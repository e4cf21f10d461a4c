// pairs.hpp — connected TCP pairs for the rows that compare simulated and real loopback round trips
#pragma once

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <utility>

namespace bench {

/// Two hosts, "server" (listening on @p port) and "client", and a TCP
/// connection between them made with blocking calls from the test body.
/// Returns {client end, server end}.
inline std::pair<simasio::asio::ip::tcp::socket, simasio::asio::ip::tcp::socket> simulated_pair(simasio::world& w,
                                                                                               unsigned short port) {
  namespace net = simasio::asio;
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  net::ip::tcp::acceptor acc(server.context(), {net::ip::tcp::v4(), port});
  net::ip::tcp::socket cs(client.context());
  cs.connect({server.address(), port});
  net::ip::tcp::socket ss(server.context());
  acc.accept(ss);
  return {std::move(cs), std::move(ss)};
}

/// A TCP connection on real loopback (127.0.0.1, an ephemeral port), Nagle
/// off on both ends. Returns {client end, server end}.
inline std::pair<boost::asio::ip::tcp::socket, boost::asio::ip::tcp::socket> loopback_pair(boost::asio::io_context& ioc) {
  namespace net = boost::asio;
  net::ip::tcp::acceptor acc(ioc, {net::ip::make_address("127.0.0.1"), 0});
  net::ip::tcp::socket cs(ioc), ss(ioc);
  cs.connect(acc.local_endpoint());
  acc.accept(ss);
  cs.set_option(net::ip::tcp::no_delay(true));
  ss.set_option(net::ip::tcp::no_delay(true));
  return {std::move(cs), std::move(ss)};
}

}  // namespace bench
