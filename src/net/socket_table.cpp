// socket_table.cpp — every socket of a world by id, and each host's bound ports
#include <simasio/detail/net/socket_table.hpp>

#include <boost/asio/error.hpp>

#include <chrono>

namespace simasio::detail {

socket_table::~socket_table() {
  for (socket_state*& s : sockets_)
    if (s != nullptr && s->embryo) {
      delete s;
      s = nullptr;
    }
}

socket_state& socket_table::create(context_state& ctx, transport proto) {
  add_host(ctx.host->id);
  std::vector<std::uint64_t>& mine = ports_[ctx.host->id].sockets;
  if (mine.size() == mine.capacity()) {
    // Before it grows: drop the forgotten, and grow anyway when most are
    // alive (so that a host holding steady at the capacity does not walk
    // the whole list at every new socket).
    std::erase_if(mine, [this](std::uint64_t id) { return find(id) == nullptr; });
    if (2 * mine.size() >= mine.capacity()) mine.reserve(2 * mine.capacity() + 8);
  }
  if (sockets_.size() == sockets_.capacity())  // nothing below throws once s exists
    sockets_.reserve(2 * sockets_.capacity() + 16);
  auto* s = new socket_state;
  s->id = sockets_.size() + 1;
  s->proto = proto;
  s->ctx = &ctx;
  s->incarnation = ctx.host->incarnation;
  s->owner = ctx.owner != 0 ? ctx.owner : ctx.core->calling_owner();
  sockets_.push_back(s);
  mine.push_back(s->id);
  return *s;
}

void socket_table::add_host(std::uint32_t id) {
  if (ports_.size() <= id) ports_.resize(id + 1);
}

namespace {
// Whether a binding to address a takes traffic to x (routed: an IPv6
// socket's v4-mapped address is kept as IPv4): a itself; for 0.0.0.0 all
// of IPv4; for :: all of IPv6 and, unless v6_only, all of IPv4 too (a
// dual-stack socket).
bool takes(const boost::asio::ip::address& a, bool v6_only, const boost::asio::ip::address& x) {
  if (a == x) return true;
  if (!a.is_unspecified()) return false;
  return a.is_v4() ? x.is_v4() : x.is_v6() || !v6_only;
}
// Two bindings of one port collide when they take a common address: a
// specific one the other takes, or, both wildcards, a family both take.
bool overlap(const boost::asio::ip::address& a, bool a_v6_only, const boost::asio::ip::address& b, bool b_v6_only) {
  if (!a.is_unspecified()) return takes(b, b_v6_only, a);
  if (!b.is_unspecified()) return takes(a, a_v6_only, b);
  const bool a_v4 = a.is_v4() || !a_v6_only, b_v4 = b.is_v4() || !b_v6_only;
  return (a_v4 && b_v4) || (a.is_v6() && b.is_v6());
}
const std::vector<std::uint64_t> no_sockets;
}  // namespace

int socket_table::local_match(const socket_state& s, const boost::asio::ip::address& to) noexcept {
  if (s.local.address == to) return 2;
  return takes(s.local.address, s.v6_only, to) ? 1 : 0;
}

const std::vector<std::uint64_t>& socket_table::bound_to_port(std::uint32_t host, transport proto,
                                                              std::uint16_t port) const {
  const auto& ports = ports_[host].ports;
  auto it = ports.find({static_cast<std::uint8_t>(proto), port});
  return it == ports.end() ? no_sockets : it->second;
}

socket_state* socket_table::bound(std::uint32_t host, transport proto, const boost::asio::ip::address& address,
                                  std::uint16_t port) const {
  socket_state* best = nullptr;
  int best_score = 0;
  const auto& ids = bound_to_port(host, proto, port);
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    socket_state* s = find(*it);
    if (s == nullptr) continue;
    const int match = local_match(*s, address);
    if (match == 0) continue;
    const int score = 2 * match + (s->listening ? 1 : 0);
    if (score > best_score) {
      best = s;
      best_score = score;
    }
  }
  return best;
}

boost::system::error_code socket_table::may_bind(std::uint32_t host, const socket_state& s,
                                                 const boost::asio::ip::address& address, std::uint16_t port,
                                                 duration now) const {
  for (std::uint64_t id : bound_to_port(host, s.proto, port)) {
    const socket_state* other = find(id);
    if (other == nullptr || other == &s || !overlap(address, s.v6_only, other->local.address, other->v6_only)) continue;
    const bool shared = s.reuse_address && other->reuse_address && !(s.proto == transport::tcp && other->listening);
    if (!shared) return boost::asio::error::address_in_use;
  }
  if (s.proto == transport::tcp) {
    const auto& waiting = ports_[host].time_wait;
    if (auto it = waiting.find(port); it != waiting.end())
      for (const auto& w : it->second)
        if (w.until > now && overlap(address, s.v6_only, w.address, true) && !(s.reuse_address && w.reuse))
          return boost::asio::error::address_in_use;
  }
  return {};
}

bool socket_table::may_listen(std::uint32_t host, const socket_state& s) const {
  for (std::uint64_t id : bound_to_port(host, s.proto, s.local.port)) {
    const socket_state* other = find(id);
    if (other != nullptr && other != &s && other->listening &&
        overlap(s.local.address, s.v6_only, other->local.address, other->v6_only))
      return false;
  }
  return true;
}

void socket_table::time_wait(std::uint32_t host, const net_endpoint& local, bool reuse, duration now) {
  auto& waiting = ports_[host].time_wait[local.port];
  std::erase_if(waiting, [now](const host_ports::waiting& w) { return w.until <= now; });
  waiting.push_back({local.address, reuse, now + time_wait_length});
}

std::uint16_t socket_table::ephemeral_port(std::uint32_t host, transport proto) {
  std::uint16_t& next = ports_[host].next_port[static_cast<int>(proto)];
  for (int tries = 0; tries < 16384; ++tries) {
    const std::uint16_t port = next;
    next = next == 65535 ? 49152 : static_cast<std::uint16_t>(next + 1);
    if (!port_taken(host, proto, port)) return port;
  }
  return 0;
}

void socket_table::unbind(std::uint32_t host, const socket_state& s) noexcept {
  auto& ports = ports_[host].ports;
  auto it = ports.find({static_cast<std::uint8_t>(s.proto), s.local.port});
  if (it == ports.end()) return;
  std::erase(it->second, s.id);
  if (it->second.empty()) ports.erase(it);
}

}  // namespace simasio::detail
