// interpret.ipp — runs a generated socket program (program.hpp) against
// env, on either side: included after env.ipp. Each operation notes what
// it saw; completions of asynchronous operations note theirs when they
// come, and the settle after each operation makes that order Linux's.

struct program_sockets {
  std::optional<tcp::acceptor> l;
  std::uint16_t port = 0;
  std::array<std::optional<tcp::socket>, 4> t;  // c0 c1 s0 s1
  // A read on it reported EOF or an error: Boost.Asio's epoll reactor would
  // wait for an edge before another asynchronous read (asio_read_after_eof),
  // so the program starts none.
  std::array<bool, 4> ended{};
  std::array<bool, 4> reading{};
  int accepted = 0;
  std::optional<udp::socket> us, uc;
};

inline int tcp_index(const std::string& name) {
  static const char* const names[] = {"c0", "c1", "s0", "s1"};
  for (int i = 0; i < 4; ++i)
    if (name == names[i]) return i;
  return -1;
}

inline std::size_t size_arg(const op& o) { return o.arg.empty() ? 1 : static_cast<std::size_t>(std::stoul(o.arg)); }

inline net::awaitable<void> run_program(env& e, program p) {
  auto st = std::make_shared<program_sockets>();
  st->l.emplace(listener(e));
  st->port = st->l->local_endpoint().port();
  st->us.emplace(e.server, udp::endpoint(e.server_ip, 0));
  const udp::endpoint udp_server(e.server_ip, st->us->local_endpoint().port());
  for (const op& o : p) {
    const std::string& v = o.verb;
    const std::string line = o.text();
    boost::system::error_code ec;
    const int i = tcp_index(o.target);
    tcp::socket* s = i >= 0 && st->t[static_cast<std::size_t>(i)] ? &*st->t[static_cast<std::size_t>(i)] : nullptr;
    if (v == "connect") {
      if (i < 0 || i > 1) continue;
      auto& c = st->t[static_cast<std::size_t>(i)];
      if (!c) c.emplace(e.client);
      c->async_connect(tcp::endpoint(e.server_ip, st->port),
                       [&e, line](boost::system::error_code cec) { e.note(line + ": " + ec_name(cec)); });
    } else if (v == "accept") {
      if (st->accepted == 2) continue;
      tcp::socket peer(e.server);
      st->l->non_blocking(true, ec);
      if (!ec) st->l->accept(peer, ec);
      e.note(line + ": " + ec_name(ec));
      if (!ec) st->t[static_cast<std::size_t>(2 + st->accepted++)].emplace(std::move(peer));
    } else if (v == "close_listener") {
      st->l->close(ec);
      e.note(line + ": " + ec_name(ec));
    } else if (s == nullptr && i >= 0) {
      e.note(line + ": no such socket");
    } else if (v == "write") {
      auto data = bytes(size_arg(o));
      s->non_blocking(true, ec);
      std::size_t k = 0;
      if (!ec) k = s->write_some(net::buffer(data), ec);
      e.note(line + ": " + ec_name(ec) + " " + std::to_string(k));
    } else if (v == "read") {
      std::vector<char> buf(size_arg(o));
      s->non_blocking(true, ec);
      std::size_t k = 0;
      if (!ec) k = s->read_some(net::buffer(buf), ec);
      if (ec && ec != net::error::would_block) st->ended[static_cast<std::size_t>(i)] = true;
      e.note(line + ": " + ec_name(ec) + " " + std::to_string(k));
    } else if (v == "aread") {
      const auto at = static_cast<std::size_t>(i);
      if (st->ended[at] || st->reading[at]) {
        e.note(line + ": skipped");
        continue;
      }
      st->reading[at] = true;
      auto buf = std::make_shared<std::vector<char>>(size_arg(o));
      s->async_read_some(net::buffer(*buf), [&e, st, at, buf, line](boost::system::error_code rec, std::size_t k) {
        st->reading[at] = false;
        if (rec && rec != net::error::operation_aborted) st->ended[at] = true;
        e.note(line + ": " + ec_name(rec) + " " + std::to_string(k));
      });
    } else if (v == "cancel") {
      s->cancel(ec);
      e.note(line + ": " + ec_name(ec));
    } else if (v == "shutdown") {
      s->shutdown(o.arg == "send"      ? net::socket_base::shutdown_send
                  : o.arg == "receive" ? net::socket_base::shutdown_receive
                                       : net::socket_base::shutdown_both,
                  ec);
      e.note(line + ": " + ec_name(ec));
    } else if (v == "close" || v == "linger0") {
      if (v == "linger0") s->set_option(net::socket_base::linger(true, 0), ec);
      if (!ec) s->close(ec);
      e.note(line + ": " + ec_name(ec));
    } else if (v == "nodelay") {
      s->set_option(tcp::no_delay(true), ec);
      e.note(line + ": " + ec_name(ec));
    } else if (v == "available") {
      const std::size_t n = s->available(ec);
      e.note(line + ": " + ec_name(ec) + " " + std::to_string(n));
    } else if (v == "udp_send") {
      if (!st->uc) st->uc.emplace(e.client, udp::v4());
      auto data = bytes(size_arg(o));
      const std::size_t k = st->uc->send_to(net::buffer(data), udp_server, 0, ec);
      e.note(line + ": " + ec_name(ec) + " " + std::to_string(k));
    } else if (v == "udp_connect") {
      if (!st->uc) st->uc.emplace(e.client, udp::v4());
      st->uc->connect(udp_server, ec);
      e.note(line + ": " + ec_name(ec));
    } else if (v == "udp_recv" || v == "udp_crecv") {
      auto& u = v == "udp_recv" ? st->us : st->uc;
      if (!u) {
        e.note(line + ": no such socket");
        continue;
      }
      std::vector<char> buf(size_arg(o));
      udp::endpoint from;
      u->non_blocking(true, ec);
      std::size_t k = 0;
      if (!ec) k = u->receive_from(net::buffer(buf), from, 0, ec);
      e.note(line + ": " + ec_name(ec) + " " + std::to_string(k));
    } else if (v == "udp_close_server") {
      st->us->close(ec);
      e.note(line + ": " + ec_name(ec));
    } else {
      e.note(line + ": unknown operation");
    }
    co_await e.settle();
  }
  // Everything closes: pending reads end, then the peers' last words arrive.
  // One at a time: each pending read's completion before the next close
  // (sockets of both sides complete in one order on Linux's one context).
  boost::system::error_code ec;
  for (std::size_t k = 0; k < st->t.size(); ++k)
    if (st->t[k]) {
      const bool pending = st->reading[k];
      st->t[k]->close(ec);
      if (pending) co_await e.settle();
    }
  if (st->uc) st->uc->close(ec);
  st->us->close(ec);
  st->l->close(ec);
  co_await e.settle();
}

// What a run runs: the written scenarios (unless only programs), then the
// programs, each as a name and a way to start it; --only picks one of either.
using scenario_start = std::function<net::awaitable<void>(env&)>;
inline std::vector<std::pair<std::string, scenario_start>> scenarios_to_run(const run_settings& s) {
  std::vector<std::pair<std::string, scenario_start>> out;
  if (!s.programs_only)
    for (const auto& [name, fn] : registry())
      if (s.only.empty() || s.only == name) out.emplace_back(name, fn);
  for (const auto& [name, text] : s.programs)
    if (s.only.empty() || s.only == name)
      out.emplace_back(name, [p = parse_program(text)](env& e) { return run_program(e, p); });
  return out;
}
