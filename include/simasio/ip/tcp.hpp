// simasio/ip/tcp.hpp — the TCP façade: Asio's protocol and endpoint, simasio's I/O objects
#ifndef SIMASIO_IP_TCP_HPP
#define SIMASIO_IP_TCP_HPP

#include <simasio/basic_socket_acceptor.hpp>
#include <simasio/basic_stream_socket.hpp>
#include <simasio/ip/basic_resolver.hpp>

#include <boost/asio/ip/tcp.hpp>

namespace simasio::ip {

/// `net::ip::tcp` in the drop-in namespace: the protocol object and endpoint
/// are Asio's own; socket, acceptor and resolver are simulated.
struct tcp {
  using endpoint = boost::asio::ip::tcp::endpoint;
  using socket = basic_stream_socket<boost::asio::ip::tcp>;
  using acceptor = basic_socket_acceptor<boost::asio::ip::tcp>;
  using resolver = basic_resolver<boost::asio::ip::tcp>;
  using no_delay = boost::asio::ip::tcp::no_delay;
  static boost::asio::ip::tcp v4() noexcept { return boost::asio::ip::tcp::v4(); }
  static boost::asio::ip::tcp v6() noexcept { return boost::asio::ip::tcp::v6(); }
};

}  // namespace simasio::ip

#endif  // SIMASIO_IP_TCP_HPP
