// names.cpp — name lookup in a simulated process: the world's host names, never DNS
//
// getaddrinfo, getnameinfo, gethostbyname(_r) and gethostname answer from
// the world: a host's name is its address (as /etc/hosts would say),
// "localhost" is the loopback, a numeric address is itself, and any other
// name is unknown (EAI_NONAME, HOST_NOT_FOUND). Services are port numbers
// or the few names web code uses. getaddrinfo's list is malloc'd the way
// glibc's is (each entry and its address one block, its canonical name
// another), so libc's freeaddrinfo frees it.
#include "descriptors.hpp"

#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/interpose.hpp>
#include <simasio/detail/net/socket_ops.hpp>
#include <simasio/host.hpp>
#include <simasio/world.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <optional>
#include <vector>

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace simasio::detail::interpose {

namespace {

using boost::asio::ip::address;

struct service_name {
  const char* name;
  int port;
};
constexpr service_name services[] = {{"http", 80},    {"https", 443}, {"ftp", 21},   {"ssh", 22},
                                     {"smtp", 25},    {"domain", 53}, {"www", 80},   {"http-alt", 8080},
                                     {"echo", 7},     {"daytime", 13}, {"ntp", 123}, {"imap", 143}};

// The port a service names; -1 when none.
int port_of(const char* service, bool numeric_only) {
  if (service == nullptr || *service == '\0') return 0;
  char* end = nullptr;
  const long v = std::strtol(service, &end, 10);
  if (*end == '\0') return v >= 0 && v <= 65535 ? static_cast<int>(v) : -1;
  if (numeric_only) return -1;
  for (const auto& s : services)
    if (std::strcmp(s.name, service) == 0) return s.port;
  return -1;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

// The addresses a name has in the running world.
bool lookup(const char* node, std::vector<address>& out, std::string& canonical) {
  boost::system::error_code ec;
  const address numeric = boost::asio::ip::make_address(node, ec);
  if (!ec) {
    out.push_back(numeric);
    canonical = node;
    return true;
  }
  std::string name = lower(node);
  if (!name.empty() && name.back() == '.') name.pop_back();
  if (name == "localhost" || name == "localhost.localdomain" || name == "ip6-localhost") {
    out.push_back(boost::asio::ip::address_v4::loopback());
    out.push_back(boost::asio::ip::address_v6::loopback());
    canonical = "localhost";
    return true;
  }
  socket_ops& net = access::net(*current_world());
  for (std::uint32_t id = 0; id < net.host_count(); ++id) {
    std::string h = net.host_name(id);
    if (lower(h) == name) {
      out.push_back(net.host_address(id));
      canonical = h;
      return true;
    }
  }
  return false;
}

addrinfo* make_entry(const address& a, int port, int socktype, int flags, bool v4_mapped) {
  auto* block = static_cast<char*>(std::calloc(1, sizeof(addrinfo) + sizeof(sockaddr_in6)));
  if (block == nullptr) return nullptr;
  auto* ai = reinterpret_cast<addrinfo*>(block);
  auto* sa = block + sizeof(addrinfo);
  ai->ai_flags = flags;
  ai->ai_socktype = socktype;
  ai->ai_protocol = socktype == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
  if (a.is_v4() && !v4_mapped) {
    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_port = htons(static_cast<std::uint16_t>(port));
    in.sin_addr.s_addr = htonl(a.to_v4().to_uint());
    std::memcpy(sa, &in, sizeof in);
    ai->ai_family = AF_INET;
    ai->ai_addrlen = sizeof in;
  } else {
    const auto v6 = a.is_v4() ? boost::asio::ip::make_address_v6(boost::asio::ip::v4_mapped, a.to_v4()) : a.to_v6();
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    in6.sin6_port = htons(static_cast<std::uint16_t>(port));
    const auto bytes = v6.to_bytes();
    std::memcpy(&in6.sin6_addr, bytes.data(), bytes.size());
    in6.sin6_scope_id = v6.scope_id();
    std::memcpy(sa, &in6, sizeof in6);
    ai->ai_family = AF_INET6;
    ai->ai_addrlen = sizeof in6;
  }
  ai->ai_addr = reinterpret_cast<sockaddr*>(sa);
  return ai;
}

// The calling host's address, if a host calls (a process, or a handler of one of its contexts).
std::optional<address> own_address() {
  world_core& c = *running_core_tls;
  if (c.in_process()) return c.process_host().address();
  if (const context_state* ctx = c.current(); ctx != nullptr)
    return access::net(*current_world()).host_address(ctx->host->id);
  return std::nullopt;
}

// The calling host's name.
std::string own_name() {
  world_core& c = *running_core_tls;
  if (c.in_process()) return c.process_host().name();
  if (const context_state* ctx = c.current(); ctx != nullptr)
    return access::net(*current_world()).host_name(ctx->host->id);
  return "localhost";
}

}  // namespace

int posix_getaddrinfo(const char* node, const char* service, const addrinfo* hints, addrinfo** res) {
  const int family = hints != nullptr ? hints->ai_family : AF_UNSPEC;
  const int flags = hints != nullptr ? hints->ai_flags : (AI_V4MAPPED | AI_ADDRCONFIG);
  const int socktype = hints != nullptr ? hints->ai_socktype : 0;
  if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6) return EAI_FAMILY;
  if (node == nullptr && service == nullptr) return EAI_NONAME;
  if (socktype != 0 && socktype != SOCK_STREAM && socktype != SOCK_DGRAM) return EAI_SOCKTYPE;
  const int port = port_of(service, (flags & AI_NUMERICSERV) != 0);
  if (port < 0) return EAI_SERVICE;
  std::vector<address> found;
  std::string canonical;
  if (node == nullptr) {
    if ((flags & AI_PASSIVE) != 0) {
      found.push_back(boost::asio::ip::address_v6::any());
      found.push_back(boost::asio::ip::address_v4::any());
    } else {
      found.push_back(boost::asio::ip::address_v6::loopback());
      found.push_back(boost::asio::ip::address_v4::loopback());
    }
  } else if ((flags & AI_NUMERICHOST) != 0) {
    boost::system::error_code ec;
    found.push_back(boost::asio::ip::make_address(node, ec));
    if (ec) return EAI_NONAME;
    canonical = node;
  } else if (!lookup(node, found, canonical)) {
    return EAI_NONAME;
  }
  // AI_ADDRCONFIG, as glibc reads it: a family only when the host has an
  // address of it other than the loopback (a simulated host has one address).
  boost::system::error_code not_numeric;
  const bool by_name = node != nullptr && (boost::asio::ip::make_address(node, not_numeric), not_numeric.failed());
  if ((flags & AI_ADDRCONFIG) != 0 && by_name) {
    if (const std::optional<address> own = own_address()) {
      const bool v4 = own->is_v4(), v6 = own->is_v6() && !own->to_v6().is_v4_mapped();
      std::erase_if(found, [&](const address& a) { return a.is_v4() ? !v4 : !v6; });
      if (found.empty()) return EAI_NONAME;
    }
  }
  addrinfo* head = nullptr;
  addrinfo** tail = &head;
  const int types[] = {SOCK_STREAM, SOCK_DGRAM};
  for (const address& a : found) {
    bool mapped = false;
    if (family == AF_INET && !a.is_v4()) continue;
    if (family == AF_INET6 && a.is_v4()) {
      if ((flags & AI_V4MAPPED) == 0) continue;
      mapped = true;
    }
    for (const int t : types) {
      if (socktype != 0 && t != socktype) continue;
      addrinfo* ai = make_entry(a, port, t, flags, mapped);
      if (ai == nullptr) {
        if (head != nullptr) ::freeaddrinfo(head);
        return EAI_MEMORY;
      }
      *tail = ai;
      tail = &ai->ai_next;
    }
  }
  if (head == nullptr) return EAI_NONAME;  // the name has no address of that family (glibc: EAI_NONAME/EAI_ADDRFAMILY)
  if ((flags & AI_CANONNAME) != 0 && !canonical.empty()) head->ai_canonname = ::strdup(canonical.c_str());
  *res = head;
  return 0;
}

int posix_getnameinfo(const sockaddr* sa, socklen_t salen, char* host, socklen_t hostlen, char* serv,
                      socklen_t servlen, int flags) {
  if (sa == nullptr) return EAI_FAIL;
  net_endpoint ep;
  int e = 0;
  if (!posix::endpoint_of(sa, salen, ep, e)) return EAI_FAMILY;
  const address a = ep.address;
  const int port = ep.port;
  if (host != nullptr && hostlen > 0) {
    std::string name;
    if ((flags & NI_NUMERICHOST) == 0) {
      if (a.is_loopback()) {
        name = "localhost";
      } else {
        socket_ops& net = access::net(*current_world());
        for (std::uint32_t id = 0; id < net.host_count(); ++id)
          if (net.host_address(id) == a) name = net.host_name(id);
      }
      if (name.empty() && (flags & NI_NAMEREQD) != 0) return EAI_NONAME;
    }
    if (name.empty()) name = a.to_string();
    if (name.size() >= hostlen) return EAI_OVERFLOW;
    std::memcpy(host, name.c_str(), name.size() + 1);
  }
  if (serv != nullptr && servlen > 0) {
    std::string s = std::to_string(port);
    if ((flags & NI_NUMERICSERV) == 0)
      for (const auto& n : services)
        if (n.port == port) {
          s = n.name;
          break;
        }
    if (s.size() >= servlen) return EAI_OVERFLOW;
    std::memcpy(serv, s.c_str(), s.size() + 1);
  }
  return 0;
}

int posix_gethostbyname_r(const char* name, hostent* out, char* buf, std::size_t buflen, hostent** result, int* h_err) {
  *result = nullptr;
  std::vector<address> found;
  std::string canonical;
  if (name == nullptr || !lookup(name, found, canonical)) {
    if (h_err != nullptr) *h_err = HOST_NOT_FOUND;
    return ENOENT;
  }
  std::vector<address> v4;
  for (const address& a : found)
    if (a.is_v4()) v4.push_back(a);
  if (v4.empty()) {
    if (h_err != nullptr) *h_err = NO_ADDRESS;
    return ENOENT;
  }
  // Layout in buf: the pointer arrays, the addresses, the name.
  const std::size_t need = (v4.size() + 1) * sizeof(char*) + sizeof(char*) + v4.size() * 4 + canonical.size() + 1 + alignof(char*);
  if (buflen < need) {
    if (h_err != nullptr) *h_err = NETDB_INTERNAL;
    return ERANGE;
  }
  char* p = buf;
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(p) % alignof(char*);
  if (misalign != 0) p += alignof(char*) - misalign;
  auto** addrs = reinterpret_cast<char**>(p);
  p += (v4.size() + 1) * sizeof(char*);
  auto** aliases = reinterpret_cast<char**>(p);
  p += sizeof(char*);
  aliases[0] = nullptr;
  for (std::size_t i = 0; i < v4.size(); ++i) {
    const std::uint32_t be = htonl(v4[i].to_v4().to_uint());
    std::memcpy(p, &be, 4);
    addrs[i] = p;
    p += 4;
  }
  addrs[v4.size()] = nullptr;
  std::memcpy(p, canonical.c_str(), canonical.size() + 1);
  out->h_name = p;
  out->h_aliases = aliases;
  out->h_addrtype = AF_INET;
  out->h_length = 4;
  out->h_addr_list = addrs;
  *result = out;
  if (h_err != nullptr) *h_err = 0;
  return 0;
}

hostent* posix_gethostbyname(const char* name) {
  static thread_local hostent entry;
  static thread_local char buf[1024];
  hostent* result = nullptr;
  int err = 0;
  posix_gethostbyname_r(name, &entry, buf, sizeof buf, &result, &err);
  h_errno = err;
  return result;
}

int posix_gethostname(char* name, std::size_t len) {
  const std::string own = own_name();
  if (own.size() + 1 > len) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(name, own.c_str(), own.size() + 1);
  return 0;
}

}  // namespace simasio::detail::interpose
