// env.ipp — what a differential scenario sees, included by real.cpp and
// simulated.cpp inside a namespace where `net` is Boost.Asio or
// simasio::asio. Scenarios are coroutines on the client's context; server
// objects live on the server's context (in simulation another host).

using tcp = net::ip::tcp;
using udp = net::ip::udp;
using namespace std::chrono_literals;
inline constexpr auto tok = net::as_tuple(net::use_awaitable);

struct env {
  net::io_context& server;   // server-side objects
  net::io_context& client;   // client-side objects; the scenario runs here
  net::ip::address server_ip;  // what a client dials
  std::chrono::milliseconds settle_time;  // long enough for what is on the wire to arrive
  std::size_t mtu;
  observations& obs;

  void note(std::string line) { obs.note(std::move(line)); }
  void note(const std::string& what, const boost::system::error_code& ec) { note(what + " " + ec_name(ec)); }
  void note(const std::string& what, const boost::system::error_code& ec, std::size_t n) {
    note(what + " " + ec_name(ec) + " " + std::to_string(n));
  }
  // Waits until packets in flight have arrived and their handlers ran.
  net::awaitable<void> settle(int times = 1) {
    net::steady_timer t(client, settle_time * times);
    co_await t.async_wait(tok);
  }
  // An address as a role: which side it is, and its form.
  std::string who(const net::ip::address& a) const {
    if (a.is_unspecified()) return a.is_v6() ? "[::]" : "0.0.0.0";
    if (a.is_v6() && a.to_v6().is_v4_mapped()) {
      const auto v4 = net::ip::make_address_v4(net::ip::v4_mapped, a.to_v6());
      return "[::ffff:" + who(v4) + "]";
    }
    if (a.is_v6()) return a.is_loopback() ? "[::1]" : "v6";
    return "v4";
  }
};

// ---- helpers -------------------------------------------------------------------------

inline std::vector<char> bytes(std::size_t n, char c = 'x') { return std::vector<char>(n, c); }

template <class Socket>
net::awaitable<void> write_all(env& e, Socket& s, std::size_t n, const char* what = "write") {
  auto data = bytes(n);
  auto [ec, k] = co_await net::async_write(s, net::buffer(data), tok);
  e.note(what, ec, k);
}

template <class Socket>
net::awaitable<std::size_t> read_some(env& e, Socket& s, std::size_t cap, const char* what = "read") {
  std::vector<char> buf(cap);
  auto [ec, k] = co_await s.async_read_some(net::buffer(buf), tok);
  e.note(what, ec, k);
  co_return k;
}

template <class Socket>
void write_sync(env& e, Socket& s, std::size_t n, const char* what = "write") {
  auto data = bytes(n);
  boost::system::error_code ec;
  const std::size_t k = s.write_some(net::buffer(data), ec);
  e.note(what, ec, k);
}

template <class Socket>
void read_sync(env& e, Socket& s, std::size_t cap, const char* what = "read") {
  std::vector<char> buf(cap);
  boost::system::error_code ec;
  const std::size_t k = s.read_some(net::buffer(buf), ec);
  e.note(what, ec, k);
}

// The kernel's answer now: a non-blocking read or write. After EOF or an
// error Boost.Asio's epoll reactor waits for a readiness edge before it
// tries a second asynchronous read, and none comes: what the kernel would
// say is observed this way (scenario asio_read_after_eof shows the wait).
template <class Socket>
void read_nb(env& e, Socket& s, std::size_t cap, const char* what = "read") {
  s.non_blocking(true);
  read_sync(e, s, cap, what);
}

template <class Socket>
void write_nb(env& e, Socket& s, std::size_t n, const char* what = "write") {
  s.non_blocking(true);
  write_sync(e, s, n, what);
}

template <class Socket>
void available(env& e, Socket& s) {
  boost::system::error_code ec;
  const std::size_t n = s.available(ec);
  e.note("available", ec, n);
}

// A listening acceptor on the server's address, any port.
inline tcp::acceptor listener(env& e, int backlog = net::socket_base::max_listen_connections) {
  tcp::acceptor a(e.server);
  a.open(tcp::v4());
  a.set_option(net::socket_base::reuse_address(true));
  a.bind(tcp::endpoint(e.server_ip, 0));
  a.listen(backlog);
  return a;
}

inline tcp::endpoint server_end(env& e, const tcp::acceptor& a) { return tcp::endpoint(e.server_ip, a.local_endpoint().port()); }

struct tcp_pair {
  tcp::socket server;  // accepted
  tcp::socket client;
};

// A connected pair: the client's socket and the one the server accepted.
inline net::awaitable<tcp_pair> connected(env& e, tcp::acceptor& a) {
  auto accepted = std::make_shared<std::optional<tcp::socket>>();
  a.async_accept([accepted](boost::system::error_code ec, tcp::socket s) {
    if (!ec) accepted->emplace(std::move(s));
  });
  tcp::socket c(e.client);
  auto [ec] = co_await c.async_connect(server_end(e, a), tok);
  if (ec) e.note("pair connect", ec);
  co_await e.settle();
  if (!*accepted) {
    e.note("pair: nothing accepted");
    co_return tcp_pair{tcp::socket(e.server), std::move(c)};
  }
  co_return tcp_pair{std::move(**accepted), std::move(c)};
}

inline net::awaitable<tcp_pair> connected(env& e) {
  auto a = listener(e);
  co_return co_await connected(e, a);
}

// ---- the registry ---------------------------------------------------------------------------

using scenario_fn = net::awaitable<void> (*)(env&);
inline std::vector<std::pair<const char*, scenario_fn>>& registry() {
  static std::vector<std::pair<const char*, scenario_fn>> r;
  return r;
}
struct registrar {
  registrar(const char* name, scenario_fn f) { registry().emplace_back(name, f); }
};
#define DIFF_SCENARIO(name)                                   \
  net::awaitable<void> name(env& e);                          \
  inline const registrar name##_registrar{#name, &name};      \
  net::awaitable<void> name(env& e)
