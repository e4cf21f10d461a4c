// simasio/connect.hpp — Asio's connect/async_connect free functions for simulated sockets
#ifndef SIMASIO_CONNECT_HPP
#define SIMASIO_CONNECT_HPP

#include <simasio/basic_socket.hpp>

#include <boost/asio/compose.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>

#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace simasio {

// Asio's free functions take Asio's own basic_socket; these are the same
// functions for simasio's sockets (the drop-in namespace exports both),
// with the same overloads: a sequence or an iterator range (or, deprecated
// in Asio and still present, a lone iterator that runs to a
// default-constructed end), with or without a connect condition, which is
// asked before each endpoint is tried (a bool, or Asio's older form that
// returns the iterator to try next).

namespace detail {
// Asio's default: every endpoint is tried.
struct always_connect {
  template <typename Endpoint>
  bool operator()(const boost::system::error_code&, const Endpoint&) const noexcept {
    return true;
  }
};

// The first endpoint from @p it on that the condition accepts, or @p end.
template <typename Iterator, typename Condition>
Iterator next_to_try(Condition& condition, const boost::system::error_code& ec, Iterator it, Iterator end) {
  if constexpr (std::is_invocable_r_v<Iterator, Condition&, const boost::system::error_code&, Iterator>) {
    return it == end ? end : static_cast<Iterator>(condition(ec, it));  // Asio's older, iterator form
  } else {
    for (; it != end; ++it) {
      if (condition(ec, *it)) return it;
    }
    return end;
  }
}

template <typename Protocol, typename Executor, typename Iterator, typename Condition>
Iterator connect_range(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end, Condition condition,
                       boost::system::error_code& ec) {
  ec = {};
  for (Iterator it = begin; it != end; ++it) {
    it = next_to_try(condition, ec, it, end);
    if (it == end) break;
    s.close(ec);
    s.connect(*it, ec);
    if (!ec) return it;
  }
  if (!ec) ec = boost::asio::error::not_found;
  return end;
}

template <typename Protocol, typename Executor, typename EndpointSequence, typename Condition>
typename Protocol::endpoint connect_sequence(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints,
                                             Condition condition, boost::system::error_code& ec) {
  const auto it = connect_range(s, endpoints.begin(), endpoints.end(), std::move(condition), ec);
  return ec ? typename Protocol::endpoint() : typename Protocol::endpoint(*it);
}

template <typename T>
inline constexpr bool is_sequence_v = boost::asio::is_endpoint_sequence<T>::value;
template <typename T>
using if_sequence = std::enable_if_t<is_sequence_v<T>>;
template <typename T>
using if_iterator = std::enable_if_t<!is_sequence_v<T>>;
}  // namespace detail

/// Tries each endpoint in turn until one connects; returns it.
/// @throws boost::system::system_error with the last error when none does.
template <typename Protocol, typename Executor, typename EndpointSequence,
          typename = detail::if_sequence<EndpointSequence>>
typename Protocol::endpoint connect(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints,
                                    boost::system::error_code& ec) {
  return detail::connect_sequence(s, endpoints, detail::always_connect{}, ec);
}
template <typename Protocol, typename Executor, typename EndpointSequence,
          typename = detail::if_sequence<EndpointSequence>>
typename Protocol::endpoint connect(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints) {
  boost::system::error_code ec;
  auto ep = detail::connect_sequence(s, endpoints, detail::always_connect{}, ec);
  detail::throw_socket_error(ec, "connect");
  return ep;
}
template <typename Protocol, typename Executor, typename EndpointSequence, typename ConnectCondition,
          typename = detail::if_sequence<EndpointSequence>>
typename Protocol::endpoint connect(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints,
                                    ConnectCondition condition, boost::system::error_code& ec) {
  return detail::connect_sequence(s, endpoints, std::move(condition), ec);
}
template <typename Protocol, typename Executor, typename EndpointSequence, typename ConnectCondition,
          typename = detail::if_sequence<EndpointSequence>,
          typename = std::enable_if_t<!std::is_same_v<ConnectCondition, boost::system::error_code>>>
typename Protocol::endpoint connect(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints,
                                    ConnectCondition condition) {
  boost::system::error_code ec;
  auto ep = detail::connect_sequence(s, endpoints, std::move(condition), ec);
  detail::throw_socket_error(ec, "connect");
  return ep;
}
template <typename Protocol, typename Executor, typename Iterator, typename = detail::if_iterator<Iterator>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end, boost::system::error_code& ec) {
  return detail::connect_range(s, begin, end, detail::always_connect{}, ec);
}
template <typename Protocol, typename Executor, typename Iterator, typename = detail::if_iterator<Iterator>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end) {
  boost::system::error_code ec;
  Iterator it = detail::connect_range(s, begin, end, detail::always_connect{}, ec);
  detail::throw_socket_error(ec, "connect");
  return it;
}
template <typename Protocol, typename Executor, typename Iterator, typename ConnectCondition,
          typename = detail::if_iterator<Iterator>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end, ConnectCondition condition,
                 boost::system::error_code& ec) {
  return detail::connect_range(s, begin, end, std::move(condition), ec);
}
template <typename Protocol, typename Executor, typename Iterator, typename ConnectCondition,
          typename = detail::if_iterator<Iterator>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end, ConnectCondition condition) {
  boost::system::error_code ec;
  Iterator it = detail::connect_range(s, begin, end, std::move(condition), ec);
  detail::throw_socket_error(ec, "connect");
  return it;
}
#if !defined(BOOST_ASIO_NO_DEPRECATED)
// A lone iterator (Asio: deprecated): the range runs to Iterator().
template <typename Protocol, typename Executor, typename Iterator, typename = detail::if_iterator<Iterator>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin, boost::system::error_code& ec) {
  return detail::connect_range(s, begin, Iterator(), detail::always_connect{}, ec);
}
template <typename Protocol, typename Executor, typename Iterator, typename = detail::if_iterator<Iterator>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin) {
  boost::system::error_code ec;
  Iterator it = detail::connect_range(s, begin, Iterator(), detail::always_connect{}, ec);
  detail::throw_socket_error(ec, "connect");
  return it;
}
template <typename Protocol, typename Executor, typename Iterator, typename ConnectCondition,
          typename = detail::if_iterator<Iterator>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin, ConnectCondition condition,
                 boost::system::error_code& ec) {
  return detail::connect_range(s, begin, Iterator(), std::move(condition), ec);
}
template <typename Protocol, typename Executor, typename Iterator, typename ConnectCondition,
          typename = detail::if_iterator<Iterator>,
          typename = std::enable_if_t<!std::is_same_v<ConnectCondition, boost::system::error_code>>>
Iterator connect(basic_socket<Protocol, Executor>& s, Iterator begin, ConnectCondition condition) {
  boost::system::error_code ec;
  Iterator it = detail::connect_range(s, begin, Iterator(), std::move(condition), ec);
  detail::throw_socket_error(ec, "connect");
  return it;
}
#endif  // !defined(BOOST_ASIO_NO_DEPRECATED)

namespace detail {
// Tries endpoints in order with async_connect, each the condition accepts;
// completes with the first that connects (as an endpoint or an iterator),
// or with the last error (not_found when none was tried).
template <typename Socket, typename Iterator, typename Condition, bool AsEndpoint>
struct connect_op {
  Socket& s;
  Iterator it, end;
  Condition condition;
  std::shared_ptr<void> keep;  // the copied endpoint list, for the sequence form
  boost::system::error_code last{};
  bool started = false;

  template <typename Self>
  void operator()(Self& self, boost::system::error_code ec = {}) {
    if (!started) {
      started = true;
      it = next_to_try(condition, last, it, end);
      // Nothing to try: complete through the executor, never inline.
      if (it == end) return boost::asio::post(s.get_executor(), std::move(self));
      return attempt(self);
    }
    if (it == end) return finish(self, last ? last : boost::asio::error::not_found, end);
    if (!ec) return finish(self, ec, it);
    last = ec;
    if (ec == boost::asio::error::operation_aborted) return finish(self, ec, end);
    it = next_to_try(condition, last, ++it, end);
    if (it == end) return finish(self, last, end);
    attempt(self);
  }

  template <typename Self>
  void attempt(Self& self) {
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

template <typename Protocol, typename Executor, typename EndpointSequence, typename Condition, typename Token>
auto async_connect_sequence(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints,
                            Condition condition, Token&& token) {
  using endpoint = typename Protocol::endpoint;
  auto list = std::make_shared<std::vector<endpoint>>();
  for (const auto& e : endpoints) list->push_back(e);
  using iterator = typename std::vector<endpoint>::iterator;
  return boost::asio::async_compose<Token, void(boost::system::error_code, endpoint)>(
      connect_op<basic_socket<Protocol, Executor>, iterator, Condition, true>{s, list->begin(), list->end(),
                                                                                std::move(condition), list},
      token, s);
}

template <typename Protocol, typename Executor, typename Iterator, typename Condition, typename Token>
auto async_connect_range(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end, Condition condition,
                         Token&& token) {
  return boost::asio::async_compose<Token, void(boost::system::error_code, Iterator)>(
      connect_op<basic_socket<Protocol, Executor>, Iterator, Condition, false>{s, begin, end, std::move(condition),
                                                                                nullptr},
      token, s);
}
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
          BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, typename Protocol::endpoint))
              RangeConnectToken = boost::asio::default_completion_token_t<Executor>,
          typename = detail::if_sequence<EndpointSequence>>
auto async_connect(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints,
                   RangeConnectToken&& token = boost::asio::default_completion_token_t<Executor>()) {
  return detail::async_connect_sequence(s, endpoints, detail::always_connect{},
                                        std::forward<RangeConnectToken>(token));
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
          BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, Iterator))
              IteratorConnectToken = boost::asio::default_completion_token_t<Executor>,
          typename = detail::if_iterator<Iterator>>
auto async_connect(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end,
                   IteratorConnectToken&& token = boost::asio::default_completion_token_t<Executor>()) {
  return detail::async_connect_range(s, begin, end, detail::always_connect{},
                                     std::forward<IteratorConnectToken>(token));
}

/// async_connect over a sequence, trying only the endpoints @p condition
/// accepts (called with the last error and the next endpoint; Asio's
/// connect condition): the sequence form otherwise.
///
/// @par Completion Signature
/// @code void(boost::system::error_code, typename Protocol::endpoint) @endcode
///
/// @par Per-Operation Cancellation
/// terminal only, as the sequence form.
///
/// @par Determinism
/// As the sequence form.
template <typename Protocol, typename Executor, typename EndpointSequence, typename ConnectCondition,
          BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, typename Protocol::endpoint))
              RangeConnectToken = boost::asio::default_completion_token_t<Executor>,
          typename = detail::if_sequence<EndpointSequence>>
auto async_connect(basic_socket<Protocol, Executor>& s, const EndpointSequence& endpoints,
                   ConnectCondition condition,
                   RangeConnectToken&& token = boost::asio::default_completion_token_t<Executor>()) {
  return detail::async_connect_sequence(s, endpoints, std::move(condition), std::forward<RangeConnectToken>(token));
}

/// async_connect over [@p begin, @p end), trying only the endpoints
/// @p condition accepts: the range form otherwise.
///
/// @par Completion Signature
/// @code void(boost::system::error_code, Iterator) @endcode
///
/// @par Per-Operation Cancellation
/// terminal only, as the sequence form.
///
/// @par Determinism
/// As the sequence form.
template <typename Protocol, typename Executor, typename Iterator, typename ConnectCondition,
          BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, Iterator))
              IteratorConnectToken = boost::asio::default_completion_token_t<Executor>,
          typename = detail::if_iterator<Iterator>>
auto async_connect(basic_socket<Protocol, Executor>& s, Iterator begin, Iterator end, ConnectCondition condition,
                   IteratorConnectToken&& token = boost::asio::default_completion_token_t<Executor>()) {
  return detail::async_connect_range(s, begin, end, std::move(condition), std::forward<IteratorConnectToken>(token));
}

#if !defined(BOOST_ASIO_NO_DEPRECATED)
/// A lone iterator (Asio: deprecated): the range form up to Iterator().
///
/// @par Completion Signature
/// @code void(boost::system::error_code, Iterator) @endcode
///
/// @par Per-Operation Cancellation
/// terminal only, as the sequence form.
///
/// @par Determinism
/// As the sequence form.
template <typename Protocol, typename Executor, typename Iterator,
          BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, Iterator))
              IteratorConnectToken = boost::asio::default_completion_token_t<Executor>,
          typename = detail::if_iterator<Iterator>>
auto async_connect(basic_socket<Protocol, Executor>& s, Iterator begin,
                   IteratorConnectToken&& token = boost::asio::default_completion_token_t<Executor>()) {
  return detail::async_connect_range(s, begin, Iterator(), detail::always_connect{},
                                     std::forward<IteratorConnectToken>(token));
}
/// A lone iterator with a condition (Asio: deprecated).
///
/// @par Completion Signature
/// @code void(boost::system::error_code, Iterator) @endcode
///
/// @par Per-Operation Cancellation
/// terminal only, as the sequence form.
///
/// @par Determinism
/// As the sequence form.
template <typename Protocol, typename Executor, typename Iterator, typename ConnectCondition,
          BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, Iterator))
              IteratorConnectToken = boost::asio::default_completion_token_t<Executor>,
          typename = detail::if_iterator<Iterator>>
auto async_connect(basic_socket<Protocol, Executor>& s, Iterator begin, ConnectCondition condition,
                   IteratorConnectToken&& token = boost::asio::default_completion_token_t<Executor>()) {
  return detail::async_connect_range(s, begin, Iterator(), std::move(condition),
                                     std::forward<IteratorConnectToken>(token));
}
#endif  // !defined(BOOST_ASIO_NO_DEPRECATED)

}  // namespace simasio

#endif  // SIMASIO_CONNECT_HPP
