// udp.cpp — UDP: datagrams, their delivery, and multicast groups
#include <simasio/detail/net/udp.hpp>

#include <boost/asio/error.hpp>

#include <algorithm>

namespace simasio::detail {

namespace aerr = boost::asio::error;

namespace {
// One socket of `host` is no longer a member of `group`: the host leaves
// the group with its last member socket, the group goes with its last host.
void forget_member(std::map<boost::asio::ip::address, std::map<std::uint32_t, int>>& groups,
                   const boost::asio::ip::address& group, std::uint32_t host) noexcept {
  auto g = groups.find(group);
  if (g == groups.end()) return;
  auto m = g->second.find(host);
  if (m != g->second.end() && --m->second <= 0) g->second.erase(m);
  if (g->second.empty()) groups.erase(g);
}
}  // namespace

udp_layer::udp_layer(link_layer& link, socket_table& table) : link_(link), table_(table) {
  link_.set_protocol(packet::type::udp, &udp_layer::deliver, this, false);
}

// A datagram that passed its link: to the socket bound to its address and
// port (a group's datagram: to every socket of a member host bound to its
// port), unless nobody listens there or the socket's receive buffer is full.
void udp_layer::deliver(void* self, packet& p) {
  auto& udp = *static_cast<udp_layer*>(self);
  const auto takes = [&p](const socket_state& s) {
    return s.ctx->host->up && !(s.connected && !(s.remote == p.from));
  };
  const auto has_room = [&p](const socket_state& s) {
    // Linux: what fits, and always one datagram into an empty queue.
    return s.datagram_bytes == 0 || s.datagram_bytes + datagram_memory(p.data.size()) <= s.receive_buffer;
  };
  if (!p.to.address.is_multicast()) {
    socket_state* s = udp.table_.bound(p.to_host, transport::udp, p.to.address, p.to.port);
    if (s == nullptr || !takes(*s)) {
      udp.link_.record(event_kind::net_drop, p.to_host, p.seq, drop_code(drop_reason::no_socket));
      if (s == nullptr) udp.port_unreachable(p);
    } else if (!has_room(*s)) {
      udp.link_.record(event_kind::net_drop, p.to_host, p.seq, drop_code(drop_reason::buffer_full));
    } else {
      udp.enqueue(*s, p.from, std::move(p.data));
    }
    return;
  }
  // A group's datagram needs a member on this host (it may have left while
  // the datagram flew); every socket bound to the port, on any address or
  // the group's, gets a copy, in bind order.
  auto g = udp.groups_.find(p.to.address);
  const bool member = g != udp.groups_.end() && g->second.count(p.to_host) != 0;
  std::vector<socket_state*> to;
  bool full = false;
  if (member)
    for (std::uint64_t id : udp.table_.bound_to_port(p.to_host, transport::udp, p.to.port)) {
      socket_state* s = udp.table_.find(id);
      if (s == nullptr || socket_table::local_match(*s, p.to.address) == 0 || !takes(*s))
        continue;
      if (has_room(*s)) to.push_back(s);
      else full = true;
    }
  if (to.empty()) {
    const drop_reason why = full ? drop_reason::buffer_full : drop_reason::no_socket;
    udp.link_.record(event_kind::net_drop, p.to_host, p.seq, drop_code(why));
    return;
  }
  for (std::size_t i = 0; i + 1 < to.size(); ++i) udp.enqueue(*to[i], p.from, p.data);
  udp.enqueue(*to.back(), p.from, std::move(p.data));
}

// Nobody has the port: the host answers with ICMP port unreachable, which
// Linux reports to a sender connected to that address and port (its next
// receive fails with connection_refused); an unconnected sender never hears.
void udp_layer::port_unreachable(const packet& p) {
  if (!link_.host(p.to_host).up || !link_.host(p.from_host).up) return;
  socket_state* sender = table_.bound(p.from_host, transport::udp, p.from.address, p.from.port);
  if (sender == nullptr || !sender->connected || !(sender->remote == p.to)) return;
  sender->failed = boost::asio::error::connection_refused;
  ready_(ready_self_, *sender);
}

void udp_layer::enqueue(socket_state& s, const net_endpoint& from, std::vector<char> data) {
  s.datagram_bytes += datagram_memory(data.size());
  s.datagrams.push_back(datagram{from, std::move(data)});
  ready_(ready_self_, s);
}

packet* udp_layer::datagram_packet(std::uint32_t from, const net_endpoint& source, std::uint32_t to_host,
                                   const net_endpoint& to, boost::span<const boost::asio::const_buffer> data,
                                   std::size_t size) {
  packet* p = link_.new_packet(packet::type::udp, from, source, to_host, to);
  p->data.resize(size);
  std::size_t off = 0;
  for (const auto& b : data) {
    std::copy_n(static_cast<const char*>(b.data()), b.size(), p->data.data() + off);
    off += b.size();
  }
  return p;
}

boost::system::error_code udp_layer::send(socket_state& s, boost::span<const boost::asio::const_buffer> data,
                                          std::size_t size, const net_endpoint& to) {
  const std::uint32_t from = s.ctx->host->id;
  // What the datagram carries, in the trace's hash (SIMASIO_VERIFY).
  std::uint64_t carried = s.id;
  for (const auto& b : data) carried = trace::hash_bytes(b.data(), b.size(), carried);
  link_.core().events().fold_bytes(carried);
  // The source address, as Linux picks it: a socket bound to the wildcard
  // sends from 127.0.0.1 to loopback and from its host's address elsewhere;
  // one bound to loopback cannot reach another host (EINVAL).
  net_endpoint source{s.local.address, s.local.port};
  if (source.address.is_unspecified() || source.address.is_multicast()) {
    source.address = to.address.is_multicast() ? link_.host_address(from) : link_.source_address(from, to.address);
    if (source.address.is_unspecified()) return aerr::network_unreachable;  // no address of that family here
  } else if (source.address.is_loopback() && !to.address.is_loopback() && link_.host_of(to.address, from) != from)
    return aerr::invalid_argument;
  if (to.address.is_multicast()) {
    send_multicast(s, from, source, to, data, size);
    return {};
  }
  packet* p = datagram_packet(from, source, link_.host_of(to.address, from), to, data, size);
  if (p->to_host == no_host) {  // nobody has that address: the datagram vanishes
    link_.record(event_kind::net_send, from, p->seq, no_host);
    link_.record(event_kind::net_drop, from, p->seq, drop_code(drop_reason::unreachable));
    link_.drop(p);
    return {};
  }
  link_.send(p);
  return {};
}

// One copy per member host, each over its own link (its own loss, latency
// and duplication draws), in host id order. The sender's own host gets a
// copy only with IP_MULTICAST_LOOP (the default); hops 0 keeps it there.
void udp_layer::send_multicast(socket_state& s, std::uint32_t from, const net_endpoint& source,
                               const net_endpoint& to, boost::span<const boost::asio::const_buffer> data,
                               std::size_t size) {
  bool sent = false;
  if (auto g = groups_.find(to.address); g != groups_.end()) {
    for (const auto& [member, count] : g->second) {
      if (member == from ? !s.multicast_loop : s.multicast_hops == 0) continue;
      link_.send(datagram_packet(from, source, member, to, data, size));
      sent = true;
    }
  }
  if (!sent) {  // no member anywhere: the datagram reaches nobody
    const std::uint64_t seq = link_.core().events().size();
    link_.record(event_kind::net_send, from, seq, no_host);
    link_.record(event_kind::net_drop, from, seq, drop_code(drop_reason::unreachable));
  }
}

boost::system::error_code udp_layer::join_group(socket_state& s, const boost::asio::ip::address& group) {
  if (s.proto != transport::udp) return boost::system::errc::make_error_code(boost::system::errc::protocol_error);
  if (!group.is_multicast()) return aerr::invalid_argument;
  if (std::find(s.groups.begin(), s.groups.end(), group) != s.groups.end()) return aerr::address_in_use;
  s.groups.push_back(group);
  ++groups_[group][s.ctx->host->id];
  return {};
}

boost::system::error_code udp_layer::leave_group(socket_state& s, const boost::asio::ip::address& group) {
  if (s.proto != transport::udp) return boost::system::errc::make_error_code(boost::system::errc::protocol_error);
  if (!group.is_multicast()) return aerr::invalid_argument;
  auto it = std::find(s.groups.begin(), s.groups.end(), group);
  if (it == s.groups.end())
    return boost::system::errc::make_error_code(boost::system::errc::address_not_available);
  s.groups.erase(it);
  forget_member(groups_, group, s.ctx->host->id);
  return {};
}

void udp_layer::leave_all_groups(socket_state& s) noexcept {
  while (!s.groups.empty()) {
    const boost::asio::ip::address group = s.groups.back();
    s.groups.pop_back();
    forget_member(groups_, group, s.ctx->host->id);
  }
}

}  // namespace simasio::detail
