// simasio/ip/udp.hpp — the UDP façade: Asio's protocol and endpoint, simasio's I/O objects
#ifndef SIMASIO_IP_UDP_HPP
#define SIMASIO_IP_UDP_HPP

#include <simasio/basic_datagram_socket.hpp>
#include <simasio/ip/basic_resolver.hpp>

#include <boost/asio/ip/udp.hpp>

#include <type_traits>
#include <utility>

namespace simasio::ip {

/// `net::ip::udp` in the drop-in namespace: the protocol object and endpoint
/// are Asio's own (the façade derives from Asio's); socket and resolver are simulated.
struct udp : boost::asio::ip::udp {
  /// The protocol value itself is Asio's (type(), protocol(), family(),
  /// comparisons): the façade holds one, so `net::ip::udp p = ep.protocol();` works.
  udp(const boost::asio::ip::udp& p) noexcept : boost::asio::ip::udp(p) {}
  using endpoint = boost::asio::ip::udp::endpoint;
  using socket = basic_datagram_socket<boost::asio::ip::udp>;
  using resolver = basic_resolver<boost::asio::ip::udp>;
  static boost::asio::ip::udp v4() noexcept { return boost::asio::ip::udp::v4(); }
  static boost::asio::ip::udp v6() noexcept { return boost::asio::ip::udp::v6(); }
};

/// basic_resolver on the façade: the resolver of boost::asio::ip::udp
/// (same protocol_type, endpoint_type and results_type), convertible to and
/// from it by move.
template <typename Executor>
class basic_resolver<udp, Executor> : public basic_resolver<boost::asio::ip::udp, Executor> {
  using base = basic_resolver<boost::asio::ip::udp, Executor>;

 public:
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_resolver<udp, Executor1>;
  };
  using base::base;
  basic_resolver(basic_resolver&&) noexcept = default;
  basic_resolver& operator=(basic_resolver&&) noexcept = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_resolver(basic_resolver<boost::asio::ip::udp, Executor1>&& other) noexcept : base(std::move(other)) {}
  ~basic_resolver() = default;
};

}  // namespace simasio::ip

namespace simasio {

/// basic_datagram_socket on the façade `net::ip::udp`: the socket of
/// boost::asio::ip::udp (Asio's protocol_type and endpoint_type),
/// convertible to and from it by move.
template <typename Executor>
class basic_datagram_socket<ip::udp, Executor> : public basic_datagram_socket<boost::asio::ip::udp, Executor> {
  using base = basic_datagram_socket<boost::asio::ip::udp, Executor>;

 public:
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_datagram_socket<ip::udp, Executor1>;
  };
  using base::base;
  basic_datagram_socket(basic_datagram_socket&&) noexcept = default;
  basic_datagram_socket& operator=(basic_datagram_socket&&) noexcept = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_datagram_socket(basic_datagram_socket<boost::asio::ip::udp, Executor1>&& other) noexcept
      : base(std::move(other)) {}
  basic_datagram_socket& operator=(base&& other) noexcept {
    base::operator=(std::move(other));
    return *this;
  }
  ~basic_datagram_socket() = default;
};

}  // namespace simasio

#endif  // SIMASIO_IP_UDP_HPP
