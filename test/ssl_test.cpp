// ssl_test.cpp — TLS on simulated hosts: Asio's ssl::stream and Beast's ssl_stream, seeded and on virtual time
#define BOOST_TEST_MODULE simasio_ssl
#include <simasio/boost_test.hpp>

// As a TLS program is written: Beast's ssl header, and simasio linked (no
// simasio::ssl target; the conformance suite uses that one). Every world
// makes OpenSSL's randomness and clock its own.
#include <simasio/beast.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>

#include <boost/asio/experimental/awaitable_operators.hpp>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace net = simasio::asio;
namespace beast = simasio::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using net::ip::tcp;
using namespace std::chrono_literals;

static_assert(std::is_same_v<beast::ssl_stream<beast::tcp_stream>, boost::beast::ssl_stream<beast::tcp_stream>>);

namespace {

// ---- test certificates ------------------------------------------------------------
// A CA valid 2015-2035 and two server certificates for "server" it signed:
// one valid only in 2019-2021 (world time 0 is 2020-01-01), one that
// expired in 2019. Made once, inside a world of their own, so their keys
// and signatures are the same in every process.

struct pki {
  std::string ca;                        // PEM
  std::string valid_cert, valid_key;     // PEM: notBefore 2019-01-01, notAfter 2021-12-31
  std::string expired_cert, expired_key; // PEM: notBefore 2018-01-01, notAfter 2019-06-01
};

std::time_t utc(int year, int month, int day) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  return timegm(&tm);
}

using key_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using cert_ptr = std::unique_ptr<X509, decltype(&X509_free)>;

key_ptr new_key() {
  key_ptr key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  BOOST_REQUIRE(key);
  return key;
}

void add_extension(X509* cert, X509V3_CTX& v3, int nid, const char* value) {
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
  BOOST_REQUIRE(ext != nullptr);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// issuer null: self-signed (the CA).
cert_ptr new_cert(EVP_PKEY* key, const char* cn, long serial, std::time_t not_before, std::time_t not_after,
                  X509* issuer, EVP_PKEY* issuer_key) {
  cert_ptr cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), not_before);
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), not_after);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509_set_issuer_name(cert.get(), issuer != nullptr ? X509_get_subject_name(issuer) : name);
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, issuer != nullptr ? issuer : cert.get(), cert.get(), nullptr, nullptr, 0);
  if (issuer == nullptr) {
    add_extension(cert.get(), v3, NID_basic_constraints, "critical,CA:TRUE");
    add_extension(cert.get(), v3, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    add_extension(cert.get(), v3, NID_basic_constraints, "CA:FALSE");
    add_extension(cert.get(), v3, NID_subject_alt_name, "DNS:server");
    add_extension(cert.get(), v3, NID_ext_key_usage, "serverAuth");
  }
  BOOST_REQUIRE(X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256()) > 0);
  return cert;
}

template <class Write>
std::string pem(Write write) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  BOOST_REQUIRE(write(bio.get()) == 1);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}
std::string cert_pem(X509* c) {
  return pem([c](BIO* b) { return PEM_write_bio_X509(b, c); });
}
std::string key_pem(EVP_PKEY* k) {
  return pem([k](BIO* b) { return PEM_write_bio_PrivateKey(b, k, nullptr, nullptr, 0, nullptr, nullptr); });
}

const pki& test_pki() {
  static const pki made = [] {
    simasio::world keys(20200101);  // the seed makes the keys: the same certificates in every process
    pki p;
    key_ptr ca_key = new_key();
    cert_ptr ca = new_cert(ca_key.get(), "simasio test CA", 1, utc(2015, 1, 1), utc(2035, 1, 1), nullptr, nullptr);
    key_ptr valid_key = new_key();
    cert_ptr valid =
        new_cert(valid_key.get(), "server", 2, utc(2019, 1, 1), utc(2021, 12, 31), ca.get(), ca_key.get());
    key_ptr expired_key = new_key();
    cert_ptr expired =
        new_cert(expired_key.get(), "server", 3, utc(2018, 1, 1), utc(2019, 6, 1), ca.get(), ca_key.get());
    p.ca = cert_pem(ca.get());
    p.valid_cert = cert_pem(valid.get());
    p.valid_key = key_pem(valid_key.get());
    p.expired_cert = cert_pem(expired.get());
    p.expired_key = key_pem(expired_key.get());
    return p;
  }();
  return made;
}

std::unique_ptr<ssl::context> server_context(const std::string& cert, const std::string& key) {
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  ctx->use_certificate_chain(net::buffer(cert));
  ctx->use_private_key(net::buffer(key), ssl::context::pem);
  return ctx;
}

std::unique_ptr<ssl::context> client_context() {
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_client);
  ctx->add_certificate_authority(net::buffer(test_pki().ca));
  ctx->set_verify_mode(ssl::verify_peer);
  return ctx;
}

// ---- a stream that keeps a copy of the bytes it carries ------------------------------

template <class Next>
class tap_stream {
 public:
  using executor_type = typename Next::executor_type;
  using next_layer_type = Next;
  using lowest_layer_type = typename Next::lowest_layer_type;

  template <class Arg>
  explicit tap_stream(Arg&& arg) : next_(std::forward<Arg>(arg)) {}

  executor_type get_executor() noexcept { return next_.get_executor(); }
  Next& next_layer() noexcept { return next_; }
  lowest_layer_type& lowest_layer() noexcept { return next_.lowest_layer(); }

  std::string* log = nullptr;  // everything read and written, in order
  int* most_reads = nullptr;  // when set: the most reads of the next layer pending at once

  template <class Buffers, class Token>
  auto async_read_some(const Buffers& buffers, Token&& token) {
    return relay<false>(buffers, std::forward<Token>(token));
  }
  template <class Buffers, class Token>
  auto async_write_some(const Buffers& buffers, Token&& token) {
    return relay<true>(buffers, std::forward<Token>(token));
  }

 private:
  template <bool Write, class Buffers, class Token>
  auto relay(const Buffers& buffers, Token&& token) {
    return net::async_compose<Token, void(boost::system::error_code, std::size_t)>(
        [this, buffers, started = false](auto& self, boost::system::error_code ec = {}, std::size_t n = 0) mutable {
          if (!started) {
            started = true;
            if constexpr (Write) {
              next_.async_write_some(buffers, std::move(self));
            } else {
              ++reads_in_flight_;
              if (most_reads != nullptr) *most_reads = std::max(*most_reads, reads_in_flight_);
              next_.async_read_some(buffers, std::move(self));
            }
            return;
          }
          if constexpr (!Write) --reads_in_flight_;
          if (log != nullptr) {
            std::string bytes(n, '\0');
            net::buffer_copy(net::buffer(bytes), buffers, n);
            *log += bytes;
          }
          self.complete(ec, n);
        },
        token, next_);
  }

  Next next_;
  int reads_in_flight_ = 0;
};

// ---- an HTTPS server and client, generic over the TLS stream -------------------------------

struct outcome {
  boost::system::error_code server_handshake, server_shutdown, client_handshake, client_shutdown;
  long verify_result = -1;
  long server_session_time = 0;  // the Unix time in the server's session (and in the tickets it sent)
  int served = 0;
  bool server_done = false;
  bool client_done = false;
  std::vector<std::string> bodies;
  std::string wire;  // what the client's tap saw, when it has one
};

template <class Stream>
net::awaitable<void> serve_connection(std::shared_ptr<Stream> stream, outcome& out) {
  auto [hec] = co_await stream->async_handshake(ssl::stream_base::server, net::as_tuple(net::use_awaitable));
  out.server_handshake = hec;
  if (hec) co_return;
  // A TLS 1.3 server has sent its session tickets by now.
  out.server_session_time = SSL_SESSION_get_time(SSL_get0_session(stream->native_handle()));
  beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> req;
    auto [ec, n] = co_await http::async_read(*stream, buffer, req, net::as_tuple(net::use_awaitable));
    if (ec == http::error::end_of_stream) break;  // the client's close_notify
    if (ec) co_return;
    http::response<http::string_body> res{http::status::ok, req.version()};
    res.body() = "secret:" + std::string(req.target());
    res.keep_alive(true);
    res.prepare_payload();
    co_await http::async_write(*stream, res, net::use_awaitable);
    ++out.served;
  }
  auto [sec] = co_await stream->async_shutdown(net::as_tuple(net::use_awaitable));
  out.server_shutdown = sec;
  out.server_done = true;
}

template <class Stream>
void serve_https(simasio::host& server, ssl::context& ctx, outcome& out) {
  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 443));
  net::co_spawn(
      server.context(),
      [acc, &ctx, &out]() -> net::awaitable<void> {
        for (;;) {
          auto [ec, s] = co_await acc->async_accept(net::as_tuple(net::use_awaitable));
          if (ec) co_return;
          net::co_spawn(acc->get_executor(), serve_connection(std::make_shared<Stream>(std::move(s), ctx), out),
                        net::detached);
        }
      },
      net::detached);
}

template <class Stream>
net::awaitable<void> fetch(ssl::context& ctx, tcp::endpoint server, int requests, outcome& out) {
  auto ex = co_await net::this_coro::executor;
  Stream stream(ex, ctx);
  if constexpr (requires { stream.next_layer().log; }) stream.next_layer().log = &out.wire;
  stream.set_verify_callback(ssl::host_name_verification("server"));
  co_await beast::get_lowest_layer(stream).async_connect(server, net::use_awaitable);
  auto [hec] = co_await stream.async_handshake(ssl::stream_base::client, net::as_tuple(net::use_awaitable));
  out.client_handshake = hec;
  out.verify_result = SSL_get_verify_result(stream.native_handle());
  if (hec) co_return;
  beast::flat_buffer buffer;
  for (int i = 0; i < requests; ++i) {
    http::request<http::string_body> req{http::verb::get, "/r" + std::to_string(i), 11};
    req.set(http::field::host, "server");
    co_await http::async_write(stream, req, net::use_awaitable);
    http::response<http::string_body> res;
    co_await http::async_read(stream, buffer, res, net::use_awaitable);
    out.bodies.push_back(res.body());
  }
  auto [sec] = co_await stream.async_shutdown(net::as_tuple(net::use_awaitable));
  out.client_shutdown = sec;
  out.client_done = true;
}

// One HTTPS exchange of three requests between two hosts of w, under 5%
// loss and a partition that heals after two seconds.
template <class Stream>
outcome https_under_faults(simasio::world& w) {
  simasio::link_config link;
  link.loss = 0.05;
  w.net().configure(link);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  // Contexts made while the world is current: their session-ticket keys come from the seed too.
  auto server_ctx = server_context(test_pki().valid_cert, test_pki().valid_key);
  auto client_ctx = client_context();
  outcome out;
  serve_https<Stream>(server, *server_ctx, out);
  net::co_spawn(client.context(), fetch<Stream>(*client_ctx, tcp::endpoint(server.address(), 443), 3, out),
                net::detached);
  w.net().partition({{&client}, {&server}});
  w.run_for(2s);
  w.net().heal();
  w.run_for(10min);
  return out;
}

template <class Stream>
void check_https_under_faults(simasio::world& w) {
  const outcome out = https_under_faults<Stream>(w);
  BOOST_TEST(!out.client_handshake, out.client_handshake.message());
  BOOST_TEST(!out.server_handshake, out.server_handshake.message());
  BOOST_TEST(out.verify_result == X509_V_OK);
  // Virtual time (2020-01-01 plus the partition and a few round trips), not the wall clock's.
  const long epoch = simasio::system_clock::epoch.count();
  BOOST_TEST(out.server_session_time >= epoch);
  BOOST_TEST(out.server_session_time < epoch + 60);
  BOOST_TEST(out.bodies == (std::vector<std::string>{"secret:/r0", "secret:/r1", "secret:/r2"}),
             boost::test_tools::per_element());
  BOOST_TEST(out.served == 3);
  BOOST_TEST(out.client_done);
  BOOST_TEST(!out.client_shutdown, out.client_shutdown.message());
  BOOST_TEST(out.server_done);
  BOOST_TEST(!out.server_shutdown, out.server_shutdown.message());
}

// A handshake against a server presenting cert/key, with the client host's
// clock set `skew` ahead; returns what the client saw.
outcome handshake_at(std::uint64_t seed, const std::string& cert, const std::string& key,
                     simasio::duration skew = simasio::duration::zero()) {
  simasio::world w(seed);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  client.set_clock(skew);
  auto server_ctx = server_context(cert, key);
  auto client_ctx = client_context();
  outcome out;
  using stream = ssl::stream<tcp::socket>;
  serve_https<stream>(server, *server_ctx, out);
  net::co_spawn(client.context(), fetch<stream>(*client_ctx, tcp::endpoint(server.address(), 443), 1, out),
                net::detached);
  w.run_for(1min);
  return out;
}

// The verification result of a handshake between two SSL objects over a
// BIO pair, outside any world: OpenSSL's own clock and randomness.
long verify_outside_simulation(ssl::context& client_ctx, ssl::context& server_ctx) {
  SSL* c = SSL_new(client_ctx.native_handle());
  SSL* s = SSL_new(server_ctx.native_handle());
  BIO* cb = nullptr;
  BIO* sb = nullptr;
  BIO_new_bio_pair(&cb, 0, &sb, 0);
  SSL_set_bio(c, cb, cb);
  SSL_set_bio(s, sb, sb);
  SSL_set_connect_state(c);
  SSL_set_accept_state(s);
  for (int i = 0; i < 10; ++i) {
    SSL_do_handshake(c);
    SSL_do_handshake(s);
  }
  const long result = SSL_get_verify_result(c);
  SSL_free(c);
  SSL_free(s);
  return result;
}

// Made before any test's world, so that no sweep constructs a second world.
struct make_pki_first {
  make_pki_first() { test_pki(); }
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(make_pki_first);

BOOST_AUTO_TEST_SUITE(tls)

// ---- HTTPS on every seed, three ways of stacking TLS on a simulated stream ---------

SIMASIO_TEST_CASE(https_over_ssl_stream_on_a_socket_survives_loss_and_a_healing_partition, 100) {
  check_https_under_faults<ssl::stream<tcp::socket>>(world);
}

SIMASIO_TEST_CASE(https_over_ssl_stream_on_a_tcp_stream_survives_loss_and_a_healing_partition, 100) {
  check_https_under_faults<ssl::stream<beast::tcp_stream>>(world);
}

SIMASIO_TEST_CASE(https_over_beast_ssl_stream_survives_loss_and_a_healing_partition, 100) {
  check_https_under_faults<beast::ssl_stream<beast::tcp_stream>>(world);
}

// ---- determinism ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_same_seed_puts_the_same_bytes_on_the_wire_and_another_seed_other_bytes) {
  test_pki();
  using stream = ssl::stream<tap_stream<tcp::socket>>;
  struct run {
    outcome out;
    std::uint64_t hash;
  };
  auto once = [](std::uint64_t seed) {
    simasio::world w(seed);
    outcome out = https_under_faults<stream>(w);
    return run{std::move(out), w.trace_hash()};
  };
  const run a = once(7);
  const run b = once(7);
  const run c = once(8);
  for (const run* r : {&a, &b, &c}) {
    BOOST_TEST(r->out.bodies.size() == 3u);
    BOOST_TEST(r->out.client_done);
  }
  // The tap saw the handshake, three exchanges and the close_notify alerts.
  BOOST_TEST(a.out.wire.size() > 1000u);
  BOOST_TEST((a.out.wire == b.out.wire));
  BOOST_TEST(a.hash == b.hash);
  BOOST_TEST((a.out.wire != c.out.wire));
  BOOST_TEST(a.hash != c.hash);
  // ClientHello: 5 bytes of record header, 4 of handshake header, 2 of
  // version, then the client's 32 random bytes; ECDHE key shares follow.
  BOOST_TEST(a.out.wire.substr(11, 32) == b.out.wire.substr(11, 32));
  BOOST_TEST(a.out.wire.substr(11, 32) != c.out.wire.substr(11, 32));
}

BOOST_AUTO_TEST_CASE(openssl_draws_from_the_seed_inside_a_world_and_real_randomness_outside) {
  auto draw = [] {
    std::array<unsigned char, 32> bytes{};
    BOOST_REQUIRE(RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) == 1);
    return bytes;
  };
  auto priv_draw = [] {
    std::array<unsigned char, 32> bytes{};
    BOOST_REQUIRE(RAND_priv_bytes(bytes.data(), static_cast<int>(bytes.size())) == 1);
    return bytes;
  };
  std::array<unsigned char, 32> in_first{}, in_second{}, in_other{}, priv_first{}, priv_second{};
  {
    simasio::world w(42);
    in_first = draw();
    priv_first = priv_draw();
  }
  {
    simasio::world w(42);
    in_second = draw();
    priv_second = priv_draw();
  }
  {
    simasio::world w(43);
    in_other = draw();
  }
  BOOST_TEST(in_first == in_second);
  BOOST_TEST(priv_first == priv_second);
  BOOST_TEST(in_first != in_other);
  // Outside a world: OpenSSL's DRBG, never the same twice.
  BOOST_TEST(draw() != draw());
  BOOST_TEST(draw() != in_first);
}

// ---- certificate verification on virtual time -------------------------------------------------

BOOST_AUTO_TEST_CASE(a_certificate_valid_only_in_2019_to_2021_verifies_on_virtual_time) {
  const pki& p = test_pki();
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    const outcome out = handshake_at(seed, p.valid_cert, p.valid_key);
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST(!out.client_handshake, out.client_handshake.message());
    BOOST_TEST(out.verify_result == X509_V_OK);
    BOOST_TEST(out.bodies == std::vector<std::string>{"secret:/r0"}, boost::test_tools::per_element());
  }
  // The same certificate outside the simulation, checked against today: expired.
  auto server_ctx = server_context(p.valid_cert, p.valid_key);
  auto client_ctx = client_context();
  BOOST_TEST(verify_outside_simulation(*client_ctx, *server_ctx) == X509_V_ERR_CERT_HAS_EXPIRED);
}

BOOST_AUTO_TEST_CASE(a_certificate_that_expired_in_2019_fails_the_handshake_as_expired) {
  const pki& p = test_pki();
  const outcome out = handshake_at(1, p.expired_cert, p.expired_key);
  BOOST_TEST((out.client_handshake.category() == net::error::get_ssl_category()));
  BOOST_TEST(out.client_handshake.message().find("certificate verify failed") != std::string::npos,
             out.client_handshake.message());
  BOOST_TEST(out.verify_result == X509_V_ERR_CERT_HAS_EXPIRED);
  BOOST_TEST(out.bodies.empty());
}

BOOST_AUTO_TEST_CASE(verification_reads_the_client_hosts_own_clock) {
  const pki& p = test_pki();
  // 2020-01-01 + 3 years on the client host: past the certificate's notAfter.
  const outcome late = handshake_at(2, p.valid_cert, p.valid_key, std::chrono::hours(24 * 365 * 3));
  BOOST_TEST(late.verify_result == X509_V_ERR_CERT_HAS_EXPIRED);
  BOOST_TEST(late.client_handshake.message().find("certificate verify failed") != std::string::npos);
  // 2 years before: not yet valid.
  const outcome early = handshake_at(2, p.valid_cert, p.valid_key, -std::chrono::hours(24 * 365 * 2));
  BOOST_TEST(early.verify_result == X509_V_ERR_CERT_NOT_YET_VALID);
}

// ---- concurrent operations on one ssl::stream ------------------------------------------

namespace {

// Full duplex through one TLS stream on each side (a TLS 1.3 key update
// requested before each client chunk), then, with `overlap`, a shutdown
// that overlaps the other direction, on both sides (without it, each side
// shuts down once nothing else runs on its stream):
// - the client writes `chunks` chunks (asking for a TLS 1.3 key update
//   before each) while it reads the echo; once it has all of it, it starts
//   a last read and async_shutdown together: the shutdown, having sent its
//   close_notify, wants input while the read is reading, and waits on
//   ssl::stream's internal pending_read_ timer;
// - the server echoes with a reader and a writer at once; the write that
//   carries the last of the echo and async_shutdown start together: the
//   close_notify waits on pending_write_ until the write is out.
// Asio's ssl::stream ends those waits by cancelling its internal Asio
// timers; the world polls them, or every run here would stall.
struct duplex_result {
  std::size_t client_sent = 0, client_received = 0, server_echoed = 0;
  bool echo_matches = false;
  boost::system::error_code client_error, server_error;
  boost::system::error_code client_last_read = net::error::would_block, client_shutdown = net::error::would_block;
  boost::system::error_code server_last_read = net::error::would_block, server_shutdown = net::error::would_block;
  int client_most_reads = 0;  // the client's socket reads pending at once, at most
  bool stalled = false;
};

// The tap counts the socket reads ssl::stream has pending at once.
using duplex_stream = ssl::stream<tap_stream<tcp::socket>>;
using namespace boost::asio::experimental::awaitable_operators;

struct echo_state {
  std::string pending;
  std::size_t read = 0;
  bool writing = false;
  bool overlap = true;  // false: the server shuts down after its reader's eof, nothing overlapping
};

net::awaitable<void> echo_writer(std::shared_ptr<duplex_stream> stream, std::shared_ptr<echo_state> st,
                                 std::size_t expected, duplex_result& r) {
  while (!st->pending.empty()) {
    std::string out;
    out.swap(st->pending);
    if (st->overlap && st->read == expected) {
      // The last of the echo, then the close_notify while the reader still
      // reads: a shutdown overlapping a read on one stream.
      auto [ec, n] = co_await net::async_write(*stream, net::buffer(out), net::as_tuple(net::use_awaitable));
      if (ec) r.server_error = ec;
      r.server_echoed += n;
      auto [shutdown] = co_await stream->async_shutdown(net::as_tuple(net::use_awaitable));
      r.server_shutdown = shutdown;
      break;
    }
    auto [ec, n] = co_await net::async_write(*stream, net::buffer(out), net::as_tuple(net::use_awaitable));
    if (ec) {
      r.server_error = ec;
      break;
    }
    r.server_echoed += n;
  }
  st->writing = false;
}

net::awaitable<void> echo_server(std::shared_ptr<duplex_stream> stream, std::size_t expected, bool overlap,
                                 duplex_result& r) {
  co_await stream->async_handshake(ssl::stream_base::server, net::use_awaitable);
  auto st = std::make_shared<echo_state>();
  st->overlap = overlap;
  auto ex = co_await net::this_coro::executor;
  std::array<char, 4096> buf;
  for (;;) {
    auto [ec, n] = co_await stream->async_read_some(net::buffer(buf), net::as_tuple(net::use_awaitable));
    if (ec) {
      r.server_last_read = ec;  // the client's close_notify: eof
      if (!overlap && !st->writing) {
        auto [sec] = co_await stream->async_shutdown(net::as_tuple(net::use_awaitable));
        r.server_shutdown = sec;
      }
      co_return;
    }
    st->pending.append(buf.data(), n);
    st->read += n;
    if (st->writing) continue;
    st->writing = true;
    // The writer runs while this loop reads again.
    net::co_spawn(ex, echo_writer(stream, st, expected, r), net::detached);
  }
}

duplex_result duplex(std::uint64_t seed, int chunks, std::size_t chunk_size, bool overlap) {
  simasio::world w(seed);
  simasio::link_config link;
  link.loss = 0.05;
  w.net().configure(link);
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  auto server_ctx = server_context(test_pki().valid_cert, test_pki().valid_key);
  auto client_ctx = client_context();
  duplex_result r;
  std::string sent;
  for (int i = 0; i < chunks; ++i) sent += std::string(chunk_size, static_cast<char>('a' + i % 26));
  auto acc = std::make_shared<tcp::acceptor>(server.context(), tcp::endpoint(tcp::v4(), 443));
  net::co_spawn(
      server.context(),
      [&, acc]() -> net::awaitable<void> {
        tcp::socket accepted = co_await acc->async_accept(net::use_awaitable);
        auto stream = std::make_shared<duplex_stream>(std::move(accepted), *server_ctx);
        co_await echo_server(stream, sent.size(), overlap, r);
      },
      net::detached);
  std::string received;
  net::co_spawn(
      client.context(),
      [&]() -> net::awaitable<void> {
        auto ex = co_await net::this_coro::executor;
        auto stream = std::make_shared<duplex_stream>(ex, *client_ctx);
        stream->next_layer().most_reads = &r.client_most_reads;
        co_await stream->next_layer().next_layer().async_connect(tcp::endpoint(server.address(), 443), net::use_awaitable);
        co_await stream->async_handshake(ssl::stream_base::client, net::use_awaitable);
        // Writer and reader at once on the same stream. (co_await never sits
        // in an argument list next to a capturing lambda here: GCC 12 then
        // destroys the lambda twice.)
        net::co_spawn(
            ex,
            [stream, &sent, &r, chunks, chunk_size]() -> net::awaitable<void> {
              for (int i = 0; i < chunks; ++i) {
                SSL_key_update(stream->native_handle(), SSL_KEY_UPDATE_REQUESTED);
                auto [ec, n] = co_await net::async_write(
                    *stream, net::buffer(sent.data() + i * chunk_size, chunk_size), net::as_tuple(net::use_awaitable));
                if (ec) {
                  r.client_error = ec;
                  co_return;
                }
                r.client_sent += n;
              }
            },
            net::detached);
        std::array<char, 4096> buf;
        while (received.size() < sent.size()) {
          auto [ec, n] = co_await stream->async_read_some(net::buffer(buf), net::as_tuple(net::use_awaitable));
          if (ec) {
            r.client_error = ec;
            co_return;
          }
          received.append(buf.data(), n);
        }
        r.client_received = received.size();
        r.echo_matches = received == sent;
        if (!overlap) {
          auto [sec] = co_await stream->async_shutdown(net::as_tuple(net::use_awaitable));
          r.client_shutdown = sec;
          co_return;
        }
        // A last read (for the server's close_notify) and the shutdown, at once.
        auto [ec, n, shutdown] =
            co_await (stream->async_read_some(net::buffer(buf), net::as_tuple(net::use_awaitable)) &&
                      stream->async_shutdown(net::as_tuple(net::use_awaitable)));
        r.client_last_read = ec;
        r.client_shutdown = std::get<0>(shutdown);
      },
      net::detached);
  w.run_for(10min);
  r.stalled = w.stalled();
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(concurrent_reads_and_writes_on_one_stream_complete_with_key_updates_in_flight) {
  const int chunks = 12;
  const std::size_t chunk = 6000;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const duplex_result r = duplex(seed, chunks, chunk, false);
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST(!r.stalled);
    BOOST_TEST(r.client_most_reads == 1);
    BOOST_TEST(!r.client_error, r.client_error.message());
    BOOST_TEST(!r.server_error, r.server_error.message());
    BOOST_TEST(r.client_sent == chunks * chunk);
    BOOST_TEST(r.server_echoed == chunks * chunk);
    BOOST_TEST(r.client_received == chunks * chunk);
    BOOST_TEST(r.echo_matches);
    BOOST_TEST(!r.client_shutdown, r.client_shutdown.message());
    BOOST_TEST((r.server_last_read == net::error::eof), r.server_last_read.message());
    BOOST_TEST(!r.server_shutdown, r.server_shutdown.message());
  }
}

// A shutdown overlapping a read on one ssl::stream (the client's last read
// and its shutdown at once; the server's shutdown while its reader still
// reads) meets a known flaw of Asio 1.81's ssl::stream (boostorg/asio pull
// request #28, open): an operation that waited for another one's read of
// the transport also releases the transport when it resumes, even after
// the other one started its next read, so two reads of the socket end up
// pending at once into the stream's one input buffer. On real loopback a
// record arrives in one piece and the second read finds nothing; the
// simulation's short reads split records, the second read's bytes overwrite
// the first's before they reach OpenSSL, and the stream waits forever for
// the rest of a record. The test pins what the simulation shows: seeds
// where the double read happens and the run stalls, the same on a second
// run of each seed, and seeds that complete as on loopback.
BOOST_AUTO_TEST_CASE(a_shutdown_overlapping_a_read_finds_asios_double_read_of_the_transport) {
  const int chunks = 12;
  const std::size_t chunk = 6000;
  int stalled = 0;
  int completed = 0;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const duplex_result r = duplex(seed, chunks, chunk, true);
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST(r.client_received == chunks * chunk);
    BOOST_TEST(r.echo_matches);
    const duplex_result again = duplex(seed, chunks, chunk, true);
    BOOST_TEST(again.stalled == r.stalled);
    BOOST_TEST(again.client_most_reads == r.client_most_reads);
    BOOST_TEST((again.client_last_read == r.client_last_read));
    BOOST_TEST((again.server_shutdown == r.server_shutdown));
    if (r.stalled) {
      ++stalled;
      // Stalled with the double read, the client's last read and shutdown never ending.
      BOOST_TEST(r.client_most_reads == 2);
      BOOST_TEST((r.client_last_read == net::error::would_block));
      BOOST_TEST((r.client_shutdown == net::error::would_block));
    } else {
      ++completed;
      // As on loopback: the last read ends with the peer's close_notify.
      // A shutdown that waited for the other operation's read can end
      // with operation_aborted (so it does on loopback too).
      BOOST_TEST((r.client_last_read == net::error::eof), r.client_last_read.message());
      BOOST_TEST((!r.client_shutdown || r.client_shutdown == net::error::operation_aborted), r.client_shutdown.message());
      BOOST_TEST((r.server_last_read == net::error::eof), r.server_last_read.message());
      BOOST_TEST((!r.server_shutdown || r.server_shutdown == net::error::operation_aborted), r.server_shutdown.message());
    }
  }
  BOOST_TEST(stalled > 0);
  BOOST_TEST(completed > 0);
}

// ---- misuse ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(an_ssl_stream_over_asios_real_socket_on_a_simulated_host_is_an_escape) {
  simasio::world w(3);
  auto& h = w.add_host("h");
  ssl::context ctx(ssl::context::tls_client);
  boost::asio::ssl::stream<boost::asio::ip::tcp::socket> real(h.context(), ctx);
  const std::string what = [&] {
    try {
      w.run_for(1s);
    } catch (const simasio::escape_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }();
  BOOST_TEST(what.find("boost::asio::ip::tcp socket") != std::string::npos, what);
}

BOOST_AUTO_TEST_SUITE_END()
