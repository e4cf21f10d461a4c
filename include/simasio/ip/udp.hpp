// simasio/ip/udp.hpp — the UDP façade: Asio's protocol and endpoint, simasio's I/O objects
#ifndef SIMASIO_IP_UDP_HPP
#define SIMASIO_IP_UDP_HPP

#include <simasio/basic_datagram_socket.hpp>
#include <simasio/ip/basic_resolver.hpp>

#include <boost/asio/ip/udp.hpp>

namespace simasio::ip {

/// `net::ip::udp` in the drop-in namespace: the protocol object and endpoint
/// are Asio's own; socket and resolver are simulated.
struct udp {
  using endpoint = boost::asio::ip::udp::endpoint;
  using socket = basic_datagram_socket<boost::asio::ip::udp>;
  using resolver = basic_resolver<boost::asio::ip::udp>;
  static boost::asio::ip::udp v4() noexcept { return boost::asio::ip::udp::v4(); }
  static boost::asio::ip::udp v6() noexcept { return boost::asio::ip::udp::v6(); }
};

}  // namespace simasio::ip

#endif  // SIMASIO_IP_UDP_HPP
