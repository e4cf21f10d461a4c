// simasio/beast.hpp — Beast on simulated sockets and timers
//
//   namespace net   = simasio::asio;    // was boost::asio
//   namespace beast = simasio::beast;   // was boost::beast
//
// Every public name of boost::beast is re-exported here by a
// using-declaration (never a using-directive, so `using namespace beast;`
// stays unambiguous) and its nested namespaces (http, websocket, zlib) by
// namespace aliases, except basic_stream and tcp_stream: they are Beast's
// own basic_stream instantiated with simasio::any_io_executor, whose socket
// and timers Asio's templates then define as simasio's simulated ones
// (detail/asio_specializations.hpp). Nothing of Beast is copied or changed:
// timeouts (expires_after, expires_never), rate policies, async_connect
// over resolver results, socket() and release_socket() are Beast's code
// running over a simulated socket and timers on virtual time.
//
// websocket::stream<beast::tcp_stream> tears down through Beast's own
// teardown for basic_stream. For websocket::stream<net::ip::tcp::socket>
// (a simasio socket), teardown and async_teardown below are found by
// argument-dependent lookup, as Beast asks of user socket types.
//
// With <simasio/ssl.hpp> (the simasio::ssl target), beast::ssl_stream is
// Beast's own too: beast::ssl_stream<beast::tcp_stream> is TLS over the
// simulated tcp_stream.
#ifndef SIMASIO_BEAST_HPP
#define SIMASIO_BEAST_HPP

#include <simasio/asio.hpp>

#include <boost/beast.hpp>
#include <boost/beast/core/buffer_ref.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace simasio::detail {

// The executor a simasio::beast::basic_stream runs on: Asio's
// any_io_executor becomes simasio's (same object, simulated key).
template <typename Executor>
struct beast_executor {
  static_assert(simasio::detail::is_simulated_executor<Executor>::value,
                "simasio::beast::basic_stream needs simasio::any_io_executor (net::any_io_executor), a type "
                "derived from it, or a strand of one: other executors would select Asio's real socket");
  using type = Executor;
};
template <>
struct beast_executor<boost::asio::any_io_executor> {
  using type = simasio::any_io_executor;
};

}  // namespace simasio::detail

namespace simasio::beast {

// ---------------------------------------------------------------------------
// Simulated by simasio: Beast's stream on a simulated socket and timers.

/// boost::beast::basic_stream on simasio's socket and virtual-time timers.
template <typename Protocol, typename Executor = simasio::any_io_executor,
          typename RatePolicy = boost::beast::unlimited_rate_policy>
using basic_stream = boost::beast::basic_stream<simasio::detail::asio_protocol_t<Protocol>,
                                                typename simasio::detail::beast_executor<Executor>::type, RatePolicy>;
/// boost::beast::tcp_stream on simasio's socket and virtual-time timers.
using tcp_stream = basic_stream<boost::asio::ip::tcp>;

// ---------------------------------------------------------------------------
// Beast's own.

namespace net = simasio::asio;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
namespace zlib = boost::beast::zlib;
namespace errc = boost::beast::errc;

// Buffers and buffer sequences.
using boost::beast::basic_flat_buffer;
using boost::beast::basic_multi_buffer;
using boost::beast::buffer_ref;
using boost::beast::buffers_adaptor;
using boost::beast::buffers_cat;
using boost::beast::buffers_cat_view;
using boost::beast::buffers_front;
using boost::beast::buffers_iterator_type;
using boost::beast::buffers_prefix;
using boost::beast::buffers_prefix_view;
using boost::beast::buffers_range;
using boost::beast::buffers_range_ref;
using boost::beast::buffers_suffix;
using boost::beast::buffers_to_string;
using boost::beast::buffers_type;
using boost::beast::flat_buffer;
using boost::beast::flat_static_buffer;
using boost::beast::flat_static_buffer_base;
using boost::beast::is_const_buffer_sequence;
using boost::beast::is_mutable_buffer_sequence;
using boost::beast::make_printable;
using boost::beast::multi_buffer;
using boost::beast::ostream;
using boost::beast::read_size;
using boost::beast::read_size_or_throw;
using boost::beast::static_buffer;
using boost::beast::static_buffer_base;
using boost::beast::is_buffers_generator;
using boost::beast::async_write;
using boost::beast::write;

// Streams and stream traits.
using boost::beast::buffered_read_stream;
using boost::beast::flat_stream;
using boost::beast::executor_type;
using boost::beast::get_lowest_layer;
using boost::beast::has_get_executor;
using boost::beast::is_async_read_stream;
using boost::beast::is_async_stream;
using boost::beast::is_async_write_stream;
using boost::beast::is_sync_read_stream;
using boost::beast::is_sync_stream;
using boost::beast::is_sync_write_stream;
using boost::beast::lowest_layer_type;
using boost::beast::beast_close_socket;
using boost::beast::teardown;
using boost::beast::async_teardown;
using boost::beast::detect_ssl;
using boost::beast::async_detect_ssl;
using boost::beast::role_type;

// Rate policies.
using boost::beast::rate_policy_access;
using boost::beast::simple_rate_policy;
using boost::beast::unlimited_rate_policy;

// Composed operations and handlers.
using boost::beast::allocate_stable;
using boost::beast::async_base;
using boost::beast::bind_front_handler;
using boost::beast::bind_handler;
using boost::beast::saved_handler;
using boost::beast::stable_async_base;

// Files.
using boost::beast::file;
using boost::beast::file_mode;
using boost::beast::file_posix;
using boost::beast::file_stdio;
using boost::beast::is_file;

// Errors.
using boost::beast::condition;
using boost::beast::error;
using boost::beast::error_category;
using boost::beast::error_code;
using boost::beast::error_condition;
using boost::beast::generic_category;
using boost::beast::make_error_code;
using boost::beast::make_error_condition;
using boost::beast::system_category;
using boost::beast::system_error;

// Strings.
using boost::beast::basic_string_view;
using boost::beast::iequal;
using boost::beast::iequals;
using boost::beast::iless;
using boost::beast::span;
using boost::beast::static_string;
using boost::beast::string_view;
using boost::beast::to_static_string;
using boost::beast::to_string_view;

using boost::beast::swap;

}  // namespace simasio::beast

namespace simasio {

// Websocket teardown for simasio's own sockets (websocket::stream over
// net::ip::tcp::socket), found by argument-dependent lookup. Like Beast's
// for Asio sockets: the server shuts its sending side first, then both
// roles read until the peer's end of stream, the client shuts its side,
// and the socket is closed.

/// Closes a simulated socket the way Beast closes Asio's (beast::close_socket
/// finds it by argument-dependent lookup): errors are ignored.
template <typename Protocol, typename Executor>
void beast_close_socket(basic_socket<Protocol, Executor>& socket) {
  boost::system::error_code ignored;
  socket.close(ignored);
}

/// Tears down a websocket's simulated TCP connection (blocking; from the
/// test body only, like every blocking call).
template <typename Protocol, typename Executor>
void teardown(boost::beast::role_type role, basic_stream_socket<Protocol, Executor>& socket,
              boost::system::error_code& ec) {
  ec = {};
  if (role == boost::beast::role_type::server) socket.shutdown(boost::asio::socket_base::shutdown_send, ec);
  if (ec) return;
  for (;;) {
    char buf[2048];
    const std::size_t n = socket.read_some(boost::asio::buffer(buf), ec);
    if (ec == boost::asio::error::eof) {
      ec = {};
      break;
    }
    if (ec) return;
    if (n == 0) break;
  }
  if (role == boost::beast::role_type::client) socket.shutdown(boost::asio::socket_base::shutdown_send, ec);
  if (ec) return;
  socket.close(ec);
}

namespace detail {
template <typename Socket>
class async_teardown_op {
 public:
  async_teardown_op(Socket& socket, boost::beast::role_type role) : socket_(&socket), role_(role) {}

  template <typename Self>
  void operator()(Self& self, boost::system::error_code ec = {}, std::size_t n = 0) {
    switch (step_) {
      case 0:
        step_ = 1;
        if (role_ == boost::beast::role_type::server)
          socket_->shutdown(boost::asio::socket_base::shutdown_send, ec);
        if (ec) {
          // Complete through the executor, never inside the initiation.
          step_ = 2;
          return boost::asio::post(socket_->get_executor(), boost::asio::append(std::move(self), ec, 0));
        }
        return read(self);
      case 2:
        return finish(self, ec);
      case 1:
        if (ec == boost::asio::error::eof || (!ec && n == 0)) {
          ec = {};
          if (role_ == boost::beast::role_type::client)
            socket_->shutdown(boost::asio::socket_base::shutdown_send, ec);
          if (!ec) socket_->close(ec);
          return finish(self, ec);
        }
        if (ec) return finish(self, ec);
        return read(self);
    }
  }

 private:
  template <typename Self>
  void read(Self& self) {
    socket_->async_read_some(boost::asio::buffer(*buf_), std::move(self));
  }
  template <typename Self>
  void finish(Self& self, boost::system::error_code ec) {
    self.complete(ec);
  }

  Socket* socket_;
  boost::beast::role_type role_;
  int step_ = 0;
  std::shared_ptr<std::array<char, 2048>> buf_ = std::make_shared<std::array<char, 2048>>();
};
}  // namespace detail

/// Tears down a websocket's simulated TCP connection asynchronously: the
/// customization point Beast's websocket::stream calls (found by
/// argument-dependent lookup) when it closes over a simasio socket.
///
/// Returns at once; the handler is never invoked from within this
/// function. A server shuts its sending side first; both roles then read
/// (and discard) until the peer's end of stream; a client then shuts its
/// sending side; the socket is closed.
///
/// @param role Whether this end is the websocket client or server.
/// @param socket The connected socket. The caller keeps it valid until the
/// handler runs.
/// @param handler The completion handler (Beast passes its own; this
/// function returns void, so it takes no token that produces a result).
///
/// @par Completion Signature
/// @code void(boost::system::error_code) @endcode
/// Success once the socket is closed (the peer's eof is not an error);
/// otherwise the first error of shutdown, the reads (connection_reset,
/// timed_out, ...) or close, with the socket left open.
///
/// @par Per-Operation Cancellation
/// terminal only: async_compose's default filter passes terminal
/// cancellation to the pending read, and the teardown completes with
/// operation_aborted, the socket left open. partial and total have no effect.
///
/// @par Determinism
/// Draws nothing itself. Each shutdown queues a FIN, whose sending draws
/// loss and latency between different hosts (network sub-stream); the
/// reads draw as basic_stream_socket::async_read_some. Its steps and
/// its completion are scheduled like any handler's (scheduler sub-stream).
template <typename Protocol, typename Executor, typename TeardownHandler>
void async_teardown(boost::beast::role_type role, basic_stream_socket<Protocol, Executor>& socket,
                    TeardownHandler&& handler) {
  boost::asio::async_compose<TeardownHandler, void(boost::system::error_code)>(
      detail::async_teardown_op<basic_stream_socket<Protocol, Executor>>(socket, role), handler, socket);
}

}  // namespace simasio

// beast::ssl_stream is Beast's (TLS over the simulated tcp_stream): usable
// once <boost/beast/ssl.hpp> is included, before or after this header, as
// in every Beast TLS program. Declared here so as not to pull OpenSSL's
// headers into other programs.
namespace boost::beast {
template <class NextLayer>
class ssl_stream;
}  // namespace boost::beast
namespace simasio::beast {
using boost::beast::ssl_stream;
}  // namespace simasio::beast

#if defined(SIMASIO_SSL_HPP)
#include <simasio/detail/beast_ssl.hpp>
#endif

#endif  // SIMASIO_BEAST_HPP
