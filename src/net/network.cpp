// network.cpp — the network façade (links, faults) and name resolution
#include <simasio/net/network.hpp>

#include <simasio/detail/format.hpp>
#include <simasio/error.hpp>
#include <simasio/host.hpp>
#include <simasio/ip/basic_resolver.hpp>
#include <simasio/detail/net/socket_ops.hpp>

#include <boost/asio/error.hpp>

#include <algorithm>
#include <charconv>

namespace simasio {

namespace {
std::uint64_t code(fault_kind k) { return static_cast<std::uint64_t>(k); }
}  // namespace

void network::configure(link_config config) {
  net_->link().default_link = std::move(config);
  net_->core().record(event_kind::net_fault, no_host, code(fault_kind::configure), no_host);
}

void network::configure(host& from, host& to, link_config config) {
  net_->link().links[{from.id(), to.id()}] = std::move(config);
  net_->core().record(event_kind::net_fault, from.id(), code(fault_kind::configure), to.id());
}

void network::partition(std::vector<std::vector<host*>> groups) {
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t other = 0; other < groups.size(); ++other) {
      if (g == other) continue;
      for (host* a : groups[g])
        for (host* b : groups[other]) {
          net_->link().blocked.insert({a->id(), b->id()});
          net_->core().record(event_kind::net_fault, a->id(), code(fault_kind::block), b->id());
        }
    }
}

void network::block(host& from, host& to) {
  net_->link().blocked.insert({from.id(), to.id()});
  net_->core().record(event_kind::net_fault, from.id(), code(fault_kind::block), to.id());
}

void network::heal() {
  net_->link().blocked.clear();
  net_->core().record(event_kind::net_fault, no_host, code(fault_kind::heal), no_host);
}

void network::hold(host& a, host& b) {
  net_->link().held.insert({std::min(a.id(), b.id()), std::max(a.id(), b.id())});
  net_->core().record(event_kind::net_fault, a.id(), code(fault_kind::hold), b.id());
}

void network::release(host& a, host& b) {
  net_->core().record(event_kind::net_fault, a.id(), code(fault_kind::release), b.id());
  net_->link().release(a.id(), b.id());
}

void network::reset(host& a, host& b) {
  net_->core().record(event_kind::net_fault, a.id(), code(fault_kind::reset), b.id());
  net_->tcp().reset_connections(a.id(), b.id());
}

rule_guard network::add_rule(fault_rule rule) {
  if (!rule)
    throw config_error("simasio: network::add_rule was given an empty fault_rule; pass a callable that returns a "
                       "verdict (verdict::pass() for packets it leaves alone)");
  net_->core().record(event_kind::net_fault, no_host, code(fault_kind::rule_added), no_host);
  return rule_guard(net_->link().add_rule(std::move(rule)));
}

void network::describe_packets(packet_decoder decoder) { net_->link().decoder = std::move(decoder); }

void network::set_tcp_user_timeout(duration d) {
  if (d <= duration::zero())
    throw config_error("simasio: network::set_tcp_user_timeout(" + detail::format_time(d) +
                       "): the TCP user timeout must be positive");
  net_->tcp().user_timeout = d;
  net_->tcp().user_timeout_set = true;
}

void network::set_tcp_buffers(tcp_buffers sizes) {
  const auto bad = [](const char* what) {
    throw config_error(std::string("simasio: network::set_tcp_buffers: ") + what);
  };
  if (sizes.send_initial == 0 || sizes.receive_initial == 0) bad("initial sizes must be positive");
  if (sizes.send_initial > sizes.send_max) bad("send_initial is above send_max");
  if (sizes.receive_initial > sizes.receive_max) bad("receive_initial is above receive_max");
  if (sizes.option_max == 0) bad("option_max must be positive");
  net_->tcp().buffers = sizes;
}
void network::set_connect_timeout(duration d) { net_->tcp().connect_timeout = d; }

namespace ip::detail {

boost::system::error_code lookup(simasio::detail::socket_ops& net, std::uint32_t from_host, std::string_view host,
                                 boost::asio::ip::address& out) {
  if (host == "localhost" || host.empty()) {
    out = boost::asio::ip::address_v4::loopback();
    return {};
  }
  boost::system::error_code ec;
  out = boost::asio::ip::make_address(std::string(host), ec);
  if (!ec) return {};
  for (std::uint32_t id = 0; id < net.host_count(); ++id) {
    if (net.host_name(id) == host) {
      out = net.host_address(id);
      return {};
    }
  }
  (void)from_host;
  return boost::asio::error::host_not_found;
}

boost::system::error_code lookup_service(std::string_view service, std::uint16_t& port) {
  static constexpr std::pair<std::string_view, std::uint16_t> known[] = {
      {"echo", 7}, {"discard", 9}, {"daytime", 13}, {"ftp", 21}, {"ssh", 22}, {"telnet", 23}, {"smtp", 25},
      {"time", 37}, {"domain", 53}, {"http", 80},
      {"pop3", 110}, {"imap", 143}, {"https", 443}, {"redis", 6379}, {"http-alt", 8080}};
  if (service.empty()) {
    port = 0;
    return {};
  }
  unsigned value = 0;
  const auto [end, err] = std::from_chars(service.data(), service.data() + service.size(), value);
  if (err == std::errc() && end == service.data() + service.size() && value <= 65535) {
    port = static_cast<std::uint16_t>(value);
    return {};
  }
  for (const auto& [name, p] : known)
    if (name == service) {
      port = p;
      return {};
    }
  return boost::asio::error::service_not_found;
}

void throw_lookup_failure(const boost::system::error_code& ec, simasio::detail::socket_ops& net, std::uint32_t from_host,
                          std::string_view host, std::string_view service) {
  std::string what = "simasio: resolve '" + std::string(host) + "', '" + std::string(service) + "' on host '" +
                     net.host_name(from_host) + "'";
  if (ec == boost::asio::error::host_not_found) {
    what += ": no host of this world is named '" + std::string(host) + "' (its hosts:";
    constexpr std::uint32_t shown = 20;
    for (std::uint32_t id = 0; id < net.host_count() && id < shown; ++id) what += (id ? ", " : " ") + net.host_name(id);
    if (net.host_count() > shown) what += " and " + std::to_string(net.host_count() - shown) + " more";
    what += "; world::add_host names one)";
  } else if (ec == boost::asio::error::service_not_found) {
    const bool digits = !service.empty() && service.find_first_not_of("0123456789") == std::string_view::npos;
    what += digits ? ": port " + std::string(service) + " is out of range (0 to 65535)"
                   : ": '" + std::string(service) + "' is neither a port number nor a service simasio knows (use the number)";
  }
  throw boost::system::system_error(ec, what);
}

}  // namespace ip::detail
}  // namespace simasio
