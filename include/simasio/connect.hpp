// simasio/connect.hpp — Asio's connect/async_connect free functions for simulated sockets
#ifndef SIMASIO_CONNECT_HPP
#define SIMASIO_CONNECT_HPP

#include <simasio/basic_socket.hpp>

#include <boost/asio/compose.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>

#include <iterator>
#include <memory>
#include <vector>
#include <utility>

namespace simasio {

// Asio's free functions take Asio's own basic_socket; these are the same
// functions for simasio's sockets (the drop-in namespace exports both).

/// Tries each endpoint in turn until one connects; returns it.
/// @throws boost::system::system_error with the last error when none does.
template <typename Protocol, typename Executor, typename EndpointSequence,
          typename = std::enable_if_t<boost::asio::is_endpoint_sequence<EndpointSequence>::value>>
typename Protocol::endpoint connect(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints,
                                    boost::system::error_code& ec) {
  ec = boost::asio::error::not_found;
  for (const auto& entry : endpoints) {
    const typename Protocol::endpoint ep = entry;
    s.close(ec);
    s.connect(ep, ec);
    if (!ec) return ep;
  }
  return typename Protocol::endpoint();
}
template <typename Protocol, typename Executor, typename EndpointSequence,
          typename = std::enable_if_t<boost::asio::is_endpoint_sequence<EndpointSequence>::value>>
typename Protocol::endpoint connect(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints) {
  boost::system::error_code ec;
  auto ep = simasio::connect(s, endpoints, ec);
  detail::throw_socket_error(ec, "connect");
  return ep;
}
template <typename Protocol, typename Executor, typename Iterator,
          typename = std::enable_if_t<!boost::asio::is_endpoint_sequence<Iterator>::value>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end, boost::system::error_code& ec) {
  ec = boost::asio::error::not_found;
  for (Iterator it = begin; it != end; ++it) {
    const typename Protocol::endpoint ep = *it;
    s.close(ec);
    s.connect(ep, ec);
    if (!ec) return it;
  }
  return end;
}
template <typename Protocol, typename Executor, typename Iterator,
          typename = std::enable_if_t<!boost::asio::is_endpoint_sequence<Iterator>::value>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end) {
  boost::system::error_code ec;
  Iterator it = simasio::connect(s, begin, end, ec);
  detail::throw_socket_error(ec, "connect");
  return it;
}

namespace detail {
// Tries endpoints in order with async_connect; completes with the first
// that connects (as an endpoint or an iterator), or with the last error.
template <typename Socket, typename Iterator, bool AsEndpoint>
struct connect_op {
  Socket& s;
  Iterator it, end;
  std::shared_ptr<void> keep;  // the copied endpoint list, for the sequence form
  boost::system::error_code last = boost::asio::error::not_found;
  bool started = false;

  template <typename Self>
  void operator()(Self& self, boost::system::error_code ec = {}) {
    if (!started && it == end) {
      // Nothing to try: complete through the executor, never inline.
      started = true;
      return boost::asio::post(s.get_executor(), std::move(self));
    }
    if (started && it == end) return finish(self, last, end);
    if (started) {
      if (!ec) return finish(self, ec, it);
      last = ec;
      if (ec == boost::asio::error::operation_aborted) return finish(self, ec, end);
      ++it;
    }
    started = true;
    if (it == end) return finish(self, last, end);
    boost::system::error_code ignored;
    s.close(ignored);
    s.async_connect(*it, std::move(self));
  }

  template <typename Self>
  void finish(Self& self, boost::system::error_code ec, Iterator at) {
    if constexpr (AsEndpoint) {
      using endpoint = typename std::iterator_traits<Iterator>::value_type;
      self.complete(ec, at == end ? endpoint() : *at);
    } else {
      self.complete(ec, at);
    }
  }
};
}  // namespace detail

/// Starts an asynchronous connect that tries each endpoint of @p endpoints
/// in turn until one connects: Asio's async_connect for simasio sockets.
///
/// Returns at once; the handler is never invoked from within this function
/// (an empty sequence completes through the socket's executor). Before each
/// attempt the socket is closed, and basic_socket::async_connect reopens it.
/// The endpoints are copied when this function is called.
///
/// @param s The socket to connect. The caller keeps it valid until the
/// handler runs.
/// @param endpoints The endpoints to try, in order (a resolver's results_type).
/// @param token The completion token (a handler, use_awaitable, deferred, ...).
///
/// @par Completion Signature
/// @code void(boost::system::error_code, typename Protocol::endpoint) @endcode
/// The endpoint that connected; else the last attempt's error (not_found
/// for an empty sequence) and a default endpoint.
///
/// @par Per-Operation Cancellation
/// terminal only: async_compose's default filter passes terminal
/// cancellation to the attempt in progress, which completes with
/// operation_aborted, and no further endpoint is tried (that attempt's
/// handshake goes on: close the socket to abandon it). partial and total
/// are filtered out and have no effect (Asio's own async_connect also
/// supports partial). A cancellation emitted while a failed attempt's
/// completion is queued is not seen: the next endpoint is tried.
///
/// @par Determinism
/// Draws nothing itself; each attempt draws as basic_socket::async_connect
/// (SYN, SYN-ACK and RST loss and latency, network sub-stream). Its steps
/// and its completion are scheduled like any handler's (scheduler sub-stream).
///
/// @throws simasio::usage_error if the socket is used from a thread other
/// than its world's, after its world is gone, or after its host crashed.
template <typename Protocol, typename Executor, typename EndpointSequence,
          typename ConnectToken = boost::asio::default_completion_token_t<Executor>,
          typename = std::enable_if_t<boost::asio::is_endpoint_sequence<EndpointSequence>::value>>
auto async_connect(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints,
                   ConnectToken&& token = boost::asio::default_completion_token_t<Executor>()) {
  using endpoint = typename Protocol::endpoint;
  auto list = std::make_shared<std::vector<endpoint>>();
  for (const auto& e : endpoints) list->push_back(e);
  using iterator = typename std::vector<endpoint>::iterator;
  return boost::asio::async_compose<ConnectToken, void(boost::system::error_code, endpoint)>(
      detail::connect_op<basic_socket<Protocol, Executor>, iterator, true>{s, list->begin(), list->end(), list}, token,
      s);
}

/// Starts an asynchronous connect that tries each endpoint of
/// [@p begin, @p end) in turn until one connects: the sequence form of
/// async_connect() otherwise, but the endpoints are not copied.
///
/// @param s The socket to connect. The caller keeps it valid until the
/// handler runs.
/// @param begin The first endpoint to try.
/// @param end One past the last; the range stays valid until the handler runs.
/// @param token The completion token.
///
/// @par Completion Signature
/// @code void(boost::system::error_code, Iterator) @endcode
/// The iterator of the endpoint that connected; else the last attempt's
/// error (not_found for an empty range) and @p end.
///
/// @par Per-Operation Cancellation
/// terminal only, as the sequence form (partial and total have no effect).
///
/// @par Determinism
/// As the sequence form: each attempt draws as basic_socket::async_connect.
template <typename Protocol, typename Executor, typename Iterator,
          typename ConnectToken = boost::asio::default_completion_token_t<Executor>,
          typename = std::enable_if_t<!boost::asio::is_endpoint_sequence<Iterator>::value>>
auto async_connect(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end,
                   ConnectToken&& token = boost::asio::default_completion_token_t<Executor>()) {
  return boost::asio::async_compose<ConnectToken, void(boost::system::error_code, Iterator)>(
      detail::connect_op<basic_socket<Protocol, Executor>, Iterator, false>{s, begin, end, nullptr}, token, s);
}

}  // namespace simasio

#endif  // SIMASIO_CONNECT_HPP
