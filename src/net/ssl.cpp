// ssl.cpp — OpenSSL's randomness and clock inside a simulation (the simasio::ssl library)
//
// Why a RAND_METHOD and not an OpenSSL 3 provider: OpenSSL 3.0's
// RAND_bytes_ex and RAND_priv_bytes_ex (which libssl, and the default
// provider's key generation and signing through BN_priv_rand*, all call)
// hand every request to an installed RAND_METHOD before they look at a
// DRBG. So one method sees every byte, can decide per call (a world
// current on this thread or not), and keeps no state of its own: the bytes
// of a run are exactly the world's entropy stream, whatever ran before on
// the thread. A seed-source provider would only seed OpenSSL's per-thread
// DRBGs, which persist across runs and reseed on wall-clock intervals: the
// same seed twice would not give the same bytes. The API is deprecated in
// 3.0 but present in every 3.x build that keeps the 3.0 API (Debian's does).
//
// Why an ex_data "new" callback: simasio does not construct the SSL_CTX
// (ssl::context is Asio's), and OpenSSL has no global certificate
// verification time. A new-callback registered on SSL_CTX's ex_data runs
// for every SSL_CTX created after it is registered (install_ssl_hooks runs
// before main()), and installs two per-context hooks that only act while
// a world is current: the certificate verification callback (set the
// verification time, then OpenSSL's own X509_verify_cert) and the ticket
// generation callback (stamp the session with virtual time: TLS 1.3
// servers send tickets after every handshake, and a ticket encrypts the
// session's creation time, which would otherwise put the wall clock into
// the ciphertext). An application that installs its own cert verify or
// session-ticket callbacks on a context replaces simasio's.
#define OPENSSL_SUPPRESS_DEPRECATED  // RAND_set_rand_method, RAND_OpenSSL: see above

#include <simasio/ssl.hpp>

#include <simasio/clock.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/world_core.hpp>

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <ctime>
#include <stdexcept>

namespace simasio::detail {
namespace {

// ---- randomness -------------------------------------------------------------

int sim_rand_bytes(unsigned char* buf, int num) {
  if (num < 0) return 0;
  if (world_core* core = current_core()) {
    core->fill_entropy(buf, static_cast<std::size_t>(num));
    return 1;
  }
  return RAND_OpenSSL()->bytes(buf, num);
}

int sim_rand_seed(const void* buf, int num) {
  const RAND_METHOD* real = RAND_OpenSSL();
  return real->seed != nullptr ? real->seed(buf, num) : 1;
}

int sim_rand_add(const void* buf, int num, double entropy) {
  const RAND_METHOD* real = RAND_OpenSSL();
  return real->add != nullptr ? real->add(buf, num, entropy) : 1;
}

void sim_rand_cleanup() {
  const RAND_METHOD* real = RAND_OpenSSL();
  if (real->cleanup != nullptr) real->cleanup();
}

int sim_rand_status() {
  if (current_core() != nullptr) return 1;
  const RAND_METHOD* real = RAND_OpenSSL();
  return real->status != nullptr ? real->status() : 1;
}

const RAND_METHOD sim_rand_method = {
    sim_rand_seed, sim_rand_bytes, sim_rand_cleanup, sim_rand_add, sim_rand_bytes, sim_rand_status,
};

// ---- time ---------------------------------------------------------------------

// Unix time on the virtual system_clock of the running handler's host (the
// world's own time in the test body), when a world is current.
bool virtual_unix_time(std::time_t& t) {
  if (current_core() == nullptr) return false;
  t = system_clock::to_time_t(system_clock::now());
  return true;
}

int verify_at_virtual_time(X509_STORE_CTX* store, void*) {
  std::time_t t;
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(store);
  const unsigned long flags = X509_VERIFY_PARAM_get_flags(param);
  // A time the application chose, or no time check at all, stays.
  if ((flags & (X509_V_FLAG_USE_CHECK_TIME | X509_V_FLAG_NO_CHECK_TIME)) == 0 && virtual_unix_time(t))
    X509_STORE_CTX_set_time(store, 0, t);
  return X509_verify_cert(store);
}

int stamp_ticket_with_virtual_time(SSL* ssl, void*) {
  std::time_t t;
  if (virtual_unix_time(t)) {
    if (SSL_SESSION* session = SSL_get0_session(ssl)) SSL_SESSION_set_time(session, static_cast<long>(t));
  }
  return 1;
}

void on_new_ssl_ctx(void* parent, void*, CRYPTO_EX_DATA*, int, long, void*) {
  if (parent == nullptr) return;
  auto* ctx = static_cast<SSL_CTX*>(parent);
  SSL_CTX_set_cert_verify_callback(ctx, verify_at_virtual_time, nullptr);
  SSL_CTX_set_session_ticket_cb(ctx, stamp_ticket_with_virtual_time, nullptr, nullptr);
}

}  // namespace

bool install_ssl_hooks() {
  static const bool installed = [] {
    if (OPENSSL_init_ssl(0, nullptr) != 1 || RAND_set_rand_method(&sim_rand_method) != 1 ||
        CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL_CTX, 0, nullptr, on_new_ssl_ctx, nullptr, nullptr) < 0)
      throw std::runtime_error(
          "simasio::ssl: could not install simasio's OpenSSL hooks (RAND method and SSL_CTX callbacks); TLS "
          "in the simulation would not be deterministic");
    return true;
  }();
  return installed;
}

}  // namespace simasio::detail
