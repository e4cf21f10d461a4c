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

/// @par Completion Signature
/// @code void(boost::system::error_code, typename Protocol::endpoint) @endcode
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

/// @par Completion Signature
/// @code void(boost::system::error_code, Iterator) @endcode
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
