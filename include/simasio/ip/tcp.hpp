// simasio/ip/tcp.hpp — the TCP façade: Asio's protocol and endpoint, simasio's I/O objects
#ifndef SIMASIO_IP_TCP_HPP
#define SIMASIO_IP_TCP_HPP

#include <simasio/basic_socket_acceptor.hpp>
#include <simasio/basic_stream_socket.hpp>
#include <simasio/ip/basic_resolver.hpp>
#include <simasio/unsimulated.hpp>

#include <boost/asio/ip/tcp.hpp>

#include <type_traits>
#include <utility>

namespace simasio::ip {

/// `net::ip::tcp` in the drop-in namespace: the protocol object and endpoint
/// are Asio's own (the façade derives from Asio's); socket, acceptor and resolver are simulated.
struct tcp : boost::asio::ip::tcp {
  /// The protocol value itself is Asio's (type(), protocol(), family(),
  /// comparisons): the façade holds one, so `net::ip::tcp p = ep.protocol();` works.
  tcp(const boost::asio::ip::tcp& p) noexcept : boost::asio::ip::tcp(p) {}
  using endpoint = boost::asio::ip::tcp::endpoint;
  using socket = basic_stream_socket<boost::asio::ip::tcp>;
  using acceptor = basic_socket_acceptor<boost::asio::ip::tcp>;
  using resolver = basic_resolver<boost::asio::ip::tcp>;
  using no_delay = boost::asio::ip::tcp::no_delay;
#if !defined(BOOST_ASIO_NO_IOSTREAM)
  /// Not simulated: any use fails to compile with a static_assert naming
  /// what to use instead (a blocking std::iostream over a real socket).
  using iostream = simasio::detail::unsimulated_socket_iostream<boost::asio::ip::tcp>;
#endif
  static boost::asio::ip::tcp v4() noexcept { return boost::asio::ip::tcp::v4(); }
  static boost::asio::ip::tcp v6() noexcept { return boost::asio::ip::tcp::v6(); }
};

/// basic_resolver on the façade: the resolver of boost::asio::ip::tcp
/// (same protocol_type, endpoint_type and results_type), convertible to and
/// from it by move.
template <typename Executor>
class basic_resolver<tcp, Executor> : public basic_resolver<boost::asio::ip::tcp, Executor> {
  using base = basic_resolver<boost::asio::ip::tcp, Executor>;

 public:
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_resolver<tcp, Executor1>;
  };
  using base::base;
  basic_resolver(basic_resolver&&) noexcept = default;
  basic_resolver& operator=(basic_resolver&&) noexcept = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_resolver(basic_resolver<boost::asio::ip::tcp, Executor1>&& other) noexcept : base(std::move(other)) {}
  ~basic_resolver() = default;
};

}  // namespace simasio::ip

namespace simasio {

// Code that names the façade as a protocol, as Asio code names
// boost::asio::ip::tcp (net::basic_stream_socket<net::ip::tcp, Executor>,
// Beast's and Asio's examples with their own executor types), gets the
// same objects as on Asio's protocol: protocol_type and endpoint_type are
// Asio's, and each converts to and from its Asio-protocol twin by move.

/// basic_stream_socket on the façade: the socket of boost::asio::ip::tcp.
template <typename Executor>
class basic_stream_socket<ip::tcp, Executor> : public basic_stream_socket<boost::asio::ip::tcp, Executor> {
  using base = basic_stream_socket<boost::asio::ip::tcp, Executor>;

 public:
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_stream_socket<ip::tcp, Executor1>;
  };
  using base::base;
  basic_stream_socket(basic_stream_socket&&) noexcept = default;
  basic_stream_socket& operator=(basic_stream_socket&&) noexcept = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_stream_socket(basic_stream_socket<boost::asio::ip::tcp, Executor1>&& other) noexcept
      : base(std::move(other)) {}
  basic_stream_socket& operator=(base&& other) noexcept {
    base::operator=(std::move(other));
    return *this;
  }
  ~basic_stream_socket() = default;
};

/// basic_socket_acceptor on the façade: the acceptor of boost::asio::ip::tcp.
template <typename Executor>
class basic_socket_acceptor<ip::tcp, Executor> : public basic_socket_acceptor<boost::asio::ip::tcp, Executor> {
  using base = basic_socket_acceptor<boost::asio::ip::tcp, Executor>;

 public:
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_socket_acceptor<ip::tcp, Executor1>;
  };
  using base::base;
  basic_socket_acceptor(basic_socket_acceptor&&) noexcept = default;
  basic_socket_acceptor& operator=(basic_socket_acceptor&&) noexcept = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_socket_acceptor(basic_socket_acceptor<boost::asio::ip::tcp, Executor1>&& other) noexcept
      : base(std::move(other)) {}
  basic_socket_acceptor& operator=(base&& other) noexcept {
    base::operator=(std::move(other));
    return *this;
  }
  ~basic_socket_acceptor() = default;
};

}  // namespace simasio

#endif  // SIMASIO_IP_TCP_HPP
