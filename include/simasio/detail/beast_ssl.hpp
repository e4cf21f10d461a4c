// simasio/detail/beast_ssl.hpp — beast::ssl_stream, when both <simasio/beast.hpp> and <simasio/ssl.hpp> are in
#ifndef SIMASIO_DETAIL_BEAST_SSL_HPP
#define SIMASIO_DETAIL_BEAST_SSL_HPP

#include <boost/beast/ssl.hpp>

namespace simasio::beast {
// Beast's own: ssl_stream<beast::tcp_stream> wraps net::ssl::stream over
// the simulated tcp_stream. Its websocket teardown is Beast's too.
using boost::beast::ssl_stream;
}  // namespace simasio::beast

#endif  // SIMASIO_DETAIL_BEAST_SSL_HPP
