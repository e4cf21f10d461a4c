// simasio/net/fault_rule.hpp — faults as data: a rule judges each packet
#ifndef SIMASIO_NET_FAULT_RULE_HPP
#define SIMASIO_NET_FAULT_RULE_HPP

#include <simasio/world_options.hpp>

#include <boost/asio/ip/address.hpp>
#include <boost/core/span.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

namespace simasio {

/// What a packet on the simulated wire is.
enum class packet_kind : std::uint8_t {
  udp,          ///< a datagram (payload: its bytes)
  tcp_syn,      ///< a connect attempt
  tcp_syn_ack,  ///< the listener's answer to it
  tcp_rst,      ///< a reset (refused connect, dead connection)
  tcp_data,     ///< a TCP segment carrying stream bytes (payload: those bytes)
  tcp_fin,      ///< the end of one direction of a stream
  tcp_ack,      ///< an acknowledgement: of a segment, on its way back to the sender, of the
                ///< SYN-ACK (the handshake's last step, after which the listener accepts),
                ///< or a keep-alive probe and its answer
};

/// Lower-case name of a kind ("udp", "tcp_data", ...).
const char* to_string(packet_kind) noexcept;

/// What a fault rule sees of one packet. Valid only during the call.
struct packet_view {
  packet_kind kind = packet_kind::udp;  ///< what the packet is
  std::string_view from_host;  ///< the sending host's name
  std::string_view to_host;    ///< the receiving host's name
  /// The packet's source and destination addresses.
  ///@{
  boost::asio::ip::address from_address, to_address;
  ///@}
  /// The packet's source and destination ports.
  ///@{
  std::uint16_t from_port = 0, to_port = 0;
  ///@}
  /// The datagram, or the bytes of a tcp_data segment (TCP cuts a stream
  /// into segments of at most mtu - 40 bytes, sometimes fewer: a message
  /// can span segments). Empty for the other kinds.
  boost::span<const char> payload;

  /// True for a TCP packet: every kind but udp.
  bool is_tcp() const noexcept { return kind != packet_kind::udp; }
  /// True if the payload contains @p bytes.
  bool contains(std::string_view bytes) const noexcept {
    return std::string_view(payload.data(), payload.size()).find(bytes) != std::string_view::npos;
  }
};

/// What a rule does with a packet.
struct verdict {
  /// What happens to the packet.
  enum class action : std::uint8_t {
    pass,   ///< no opinion: the next rule decides, and the link if none does
    drop,   ///< lost (TCP retransmits after its timeout, with backoff)
    hold,   ///< parked until the rule is removed, then sent
    delay,  ///< delivered `by` later than the link would
  };
  action act = action::pass;  ///< what happens to the packet
  duration by{0};              ///< for delay: how much later than the link would deliver it

  /// No opinion: the next rule decides, and the link if none does.
  static constexpr verdict pass() noexcept { return {}; }
  /// Lose the packet (TCP retransmits after its timeout, with backoff).
  static constexpr verdict drop() noexcept { return {action::drop, duration{0}}; }
  /// Park the packet until the rule is removed, then send it.
  static constexpr verdict hold() noexcept { return {action::hold, duration{0}}; }
  /// Deliver the packet @p d later than the link would.
  /// @throws config_error if @p d is negative.
  static verdict delay(duration d);
};

/// A fault rule: called on the simulation thread for packets between two
/// different hosts (a host's packets to itself are never judged). It may
/// keep state (counters) and read the scenario's state; it must draw
/// randomness only from the world (world::random) to stay deterministic.
using fault_rule = std::function<verdict(const packet_view&)>;

/// Says what a packet carries, for a failing seed's trace (see
/// network::describe_packets): "RequestVote term=3", or "" for nothing.
using packet_decoder = std::function<std::string(const packet_view&)>;

class network;
namespace detail {
struct rule_slot;
}

/// Owns one installed rule: destroying (or remove()) uninstalls it, and
/// sends on what it held. Outliving the world is harmless.
class [[nodiscard]] rule_guard {
 public:
  /// A guard of no rule.
  rule_guard() noexcept = default;
  /// Takes over @p other's rule; @p other then guards none.
  rule_guard(rule_guard&& other) noexcept = default;
  /// Uninstalls this guard's rule (as remove()), then takes over @p other's.
  rule_guard& operator=(rule_guard&& other) noexcept;
  rule_guard(const rule_guard&) = delete;
  rule_guard& operator=(const rule_guard&) = delete;
  ~rule_guard() { remove(); }

  /// Uninstalls the rule now (nothing if already removed).
  void remove() noexcept;
  /// Lets the rule stay installed for the rest of the world's life.
  void keep() noexcept { slot_.reset(); }
  /// True while this guard has a rule installed.
  bool active() const noexcept;

 private:
  friend class network;  // network::add_rule makes guards
  explicit rule_guard(std::shared_ptr<detail::rule_slot> slot) noexcept : slot_(std::move(slot)) {}
  std::shared_ptr<detail::rule_slot> slot_;
};

}  // namespace simasio

#endif  // SIMASIO_NET_FAULT_RULE_HPP
