// socket_table.cpp — every socket of a world by id, and each host's bound ports
#include <simasio/detail/net/socket_table.hpp>

namespace simasio::detail {

socket_table::~socket_table() {
  for (socket_state*& s : sockets_)
    if (s != nullptr && s->embryo) {
      delete s;
      s = nullptr;
    }
}

socket_state& socket_table::create(context_state& ctx, transport proto) {
  auto* s = new socket_state;
  s->id = sockets_.size() + 1;
  s->proto = proto;
  s->ctx = &ctx;
  s->incarnation = ctx.host->incarnation;
  sockets_.push_back(s);
  return *s;
}

void socket_table::add_host(std::uint32_t id) {
  if (ports_.size() <= id) ports_.resize(id + 1);
}

socket_state* socket_table::bound(std::uint32_t host, transport proto, std::uint16_t port) const {
  const auto& ports = ports_[host].ports;
  auto it = ports.find({static_cast<std::uint8_t>(proto), port});
  return it == ports.end() ? nullptr : find(it->second);
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
  if (it != ports.end() && it->second == s.id) ports.erase(it);
}

}  // namespace simasio::detail
