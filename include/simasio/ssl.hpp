// simasio/ssl.hpp — TLS in the simulation: net::ssl is Asio's ssl, made deterministic
//
//   namespace net = simasio::asio;
//   net::ssl::context ctx{net::ssl::context::tls_client};
//   net::ssl::stream<net::ip::tcp::socket> s(executor, ctx);     // or
//   net::ssl::stream<beast::tcp_stream> s(executor, ctx);        // or
//   beast::ssl_stream<beast::tcp_stream> s(executor, ctx);       // with <simasio/beast.hpp>
//
// Nothing of Asio's or Beast's TLS is replaced: ssl::context, ssl::stream
// and beast::ssl_stream are theirs, running over simulated streams. What
// simasio adds (src/net/ssl.cpp, the simasio::ssl library) is what makes a TLS
// run a function of its seed:
//
// - Randomness. OpenSSL's RAND (client and server randoms, ECDHE key
//   shares, ECDSA nonces, session ids and tickets, CBC IVs, and ssl::context's
//   ticket keys) comes from the current world's seed while a simasio::world
//   is current on the calling thread (the one running there, else the most
//   recently constructed live one: the same rule as simasio's clocks), and
//   from OpenSSL's own DRBG otherwise. Done with a RAND_METHOD, installed
//   once, that decides per call; see src/net/ssl.cpp for why not a provider.
// - Time. Certificate verification of every SSL_CTX checks validity at the
//   host's virtual system_clock (simasio::system_clock: world time 0 is
//   2020-01-01, host skew applies) unless the application pinned a time
//   itself (X509_V_FLAG_USE_CHECK_TIME); session tickets carry the same
//   virtual time instead of the wall clock. Outside a world, OpenSSL's own.
//
// Link the simasio::ssl CMake target (simasio plus OpenSSL) to use this
// header; it also defines SIMASIO_HAS_SSL, with which <simasio/asio.hpp>
// includes this header itself, so `net::ssl` exists in exactly the
// programs whose OpenSSL is made deterministic. Programs that do not link
// simasio::ssl never link OpenSSL.
//
// Not virtual: OpenSSL's session cache and session resumption read the
// process's time() for session ages (with simasio::interpose linked, time()
// reads the virtual clock too).
#ifndef SIMASIO_SSL_HPP
#define SIMASIO_SSL_HPP

#include <simasio/asio.hpp>

#include <boost/asio/ssl.hpp>

namespace simasio::detail {

// Installs simasio's RAND method and its SSL_CTX hooks; idempotent, and
// thread-safe. Runs before main() in every program that includes this
// header (the variable below), so every SSL_CTX the program creates has
// the hooks.
bool install_ssl_hooks();
inline const bool ssl_hooks_installed = install_ssl_hooks();

}  // namespace simasio::detail

namespace simasio::asio {
/// Asio's TLS: ssl::context, ssl::stream<Stream> over any simulated stream.
namespace ssl = boost::asio::ssl;
}  // namespace simasio::asio

#if defined(SIMASIO_BEAST_HPP)
#include <simasio/detail/beast_ssl.hpp>
#endif

#endif  // SIMASIO_SSL_HPP
