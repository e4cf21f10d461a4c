// echo_ahead.hpp — an echo client that writes everything before reading
// anything, against a server that echoes what it reads. Both stop once
// the buffers between them are full: on Linux it completes while they hold
// what the client writes ahead (4 MB does, 20 MB hangs). The same code
// runs on Asio's io_context and on simasio's; the tests in
// tcp_linux_test.cpp and the bench's echo rows compare the two.
#ifndef SIMASIO_TEST_NET_ECHO_AHEAD_HPP
#define SIMASIO_TEST_NET_ECHO_AHEAD_HPP

#include <boost/asio.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace simasio_test {

template <class Socket, class Acceptor, class Context>
struct echo_ahead {
  echo_ahead(Context& server_ctx, Context& client_ctx, typename Acceptor::endpoint_type at,
             const boost::asio::ip::address& target, std::size_t n)
      : acc(server_ctx, at), server(server_ctx), client(client_ctx), out(n, 'x'), in(n, '\0'), buf(65536) {
    acc.async_accept(server, [this](boost::system::error_code ec) {
      if (!ec) serve();
    });
    client.async_connect(typename Acceptor::endpoint_type(target, acc.local_endpoint().port()),
                         [this](boost::system::error_code ec) {
                           if (!ec) write();
                         });
  }
  // One write_some at a time, so `written` says how far the client got.
  void write() {
    if (written == out.size()) {
      boost::asio::async_read(client, boost::asio::buffer(in), [this](boost::system::error_code ec, std::size_t) {
        done = !ec && in == out;
        boost::system::error_code ignored;
        client.close(ignored);  // the server's read ends: the context runs out of work
        server.close(ignored);
      });
      return;
    }
    client.async_write_some(boost::asio::buffer(out.data() + written, out.size() - written),
                            [this](boost::system::error_code ec, std::size_t m) {
                              written += m;
                              if (!ec) write();
                            });
  }
  void serve() {
    server.async_read_some(boost::asio::buffer(buf), [this](boost::system::error_code ec, std::size_t m) {
      if (ec) return;
      boost::asio::async_write(server, boost::asio::buffer(buf.data(), m), [this](auto e, std::size_t) {
        if (!e) serve();
      });
    });
  }
  Acceptor acc;
  Socket server, client;
  std::string out, in;
  std::vector<char> buf;
  std::size_t written = 0;  // bytes the client's writes got into the buffers
  bool done = false;        // the whole echo came back intact
};

}  // namespace simasio_test

#endif  // SIMASIO_TEST_NET_ECHO_AHEAD_HPP
