// beast_http_async_ssl.cpp — Beast's http/server/async-ssl and http/client/async-ssl, alias-switched
//
// The server runs as its main() sets it up: a tlsv12 context with Beast's
// example certificate (example/common/server_certificate.hpp). The client's
// main() cannot be run unchanged: it trusts the public root certificates of
// example/common/root_certificates.hpp, which do not sign Beast's
// self-signed example certificate, so on a real machine too it would fail
// verification against this server. The harness builds the client's
// session class itself, with a context that trusts the server's
// certificate and verifies the peer, as the client's main() does for
// public servers. The certificate is valid from 2021-07-06: both hosts'
// clocks are set two years past world time 0 (2020-01-01), to 2022.
#include <simasio/beast.hpp>
#include <simasio/boost_test.hpp>

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "conformance.hpp"
#include "doc_root.hpp"

#include "beast_http_server_async_ssl.ipp"
#include "beast_http_client_async_ssl.ipp"

namespace {

namespace net = simasio::asio;

constexpr auto two_years = std::chrono::hours(24 * 731);

// A client context that trusts exactly the certificate @p server_ctx serves.
void trust_server_certificate(net::ssl::context& client_ctx, net::ssl::context& server_ctx) {
  X509* cert = SSL_CTX_get0_certificate(server_ctx.native_handle());
  if (cert == nullptr || X509_STORE_add_cert(SSL_CTX_get_cert_store(client_ctx.native_handle()), cert) != 1)
    throw std::runtime_error("could not trust the example server's certificate");
}

}  // namespace

SIMASIO_TEST_CASE(beast_http_async_ssl, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& client = world.localhost();  // the client's io_context joins it
  server.set_clock(two_years);
  client.set_clock(two_years);
  conformance::faults(world, client, server);
  // The server's main(), on host "server": a listener on 0.0.0.0:8443.
  net::ssl::context server_ctx{net::ssl::context::tlsv12};
  load_server_certificate(server_ctx);
  std::make_shared<beast_http_server_async_ssl::listener>(
      server.context(), server_ctx, net::ip::tcp::endpoint{net::ip::make_address("0.0.0.0"), 8443},
      std::make_shared<std::string const>(conformance::doc_root()))
      ->run();
  // The client's main(), with the server's certificate as its trust root.
  conformance::capture out;
  net::io_context ioc;
  net::ssl::context ctx{net::ssl::context::tlsv12_client};
  trust_server_certificate(ctx, server_ctx);
  ctx.set_verify_mode(net::ssl::verify_peer);
  std::make_shared<beast_http_client_async_ssl::session>(net::make_strand(ioc), ctx)
      ->run("server", "8443", "/index.html", 11);
  ioc.run();
  conformance::expect_contains(out.out(), {"HTTP/1.1 200 OK", conformance::page}, "the client's output");
  if (!out.err().empty()) throw std::runtime_error("the client reported an error: " + out.err());
}
