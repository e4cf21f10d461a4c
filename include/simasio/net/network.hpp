// simasio/net/network.hpp — the world's network: link settings and faults
#ifndef SIMASIO_NET_NETWORK_HPP
#define SIMASIO_NET_NETWORK_HPP

#include <simasio/net/fault_rule.hpp>
#include <simasio/world_options.hpp>

#include <vector>

namespace simasio {

class host;
class world;
namespace detail {
class socket_ops;
}

/// What the links of a world do, and the faults injected into them. Every
/// change is recorded in the trace.
///
/// Faults are rules that judge packets (see add_rule). The network's own
/// come first: a host without power drops everything; then partition and
/// block (drop); then hold (park until release). Rules added with
/// add_rule follow in install order; the first verdict that is not pass
/// decides, and a packet no rule stops meets the link's latency and loss.
///
/// @par Determinism
/// Latency, loss, duplication, TCP segment sizes and partial writes are
/// drawn from the directed link's own stream ("network:<from>-><to>"), one
/// draw per decision: traffic on one link never moves another's draws.
class network {
 public:
  /// Sets the defaults of every link (existing overrides stay).
  void configure(link_config config);
  /// Sets one direction, from -> to.
  void configure(host& from, host& to, link_config config);
  /// Cuts every link between hosts of different groups, both ways. Hosts in
  /// no group keep their links. In-flight UDP across the cut is dropped;
  /// TCP is retained and retransmitted until the partition heals or the
  /// TCP user timeout expires.
  void partition(std::vector<std::vector<host*>> groups);
  /// Cuts one direction, from -> to.
  void block(host& from, host& to);
  /// Removes every partition and block (holds stay).
  void heal();
  /// Buffers all traffic between a and b (both ways) until release().
  void hold(host& a, host& b);
  /// Delivers what hold() buffered, each packet with a fresh latency.
  void release(host& a, host& b);
  /// Resets every TCP connection between a and b, as a middlebox that
  /// lost its state would: both ends fail with connection_reset now, and
  /// whatever either side had queued or in flight is gone. Links are
  /// untouched, so new connections work at once.
  void reset(host& a, host& b);
  /// Installs @p rule after every rule installed before it. The rule is
  /// asked about each packet between two different hosts when it leaves
  /// (for TCP: every segment, retransmissions included, each SYN, SYN-ACK
  /// and RST, and each segment's acknowledgement as a tcp_ack on the way
  /// back). A rule installed while a packet flies is asked when it
  /// arrives, where it may drop or hold it (a delay is decided at
  /// departure only). A held packet waits until the rule is removed, then
  /// leaves again and is judged afresh; a held TCP direction resumes then.
  /// Installing and removing are trace events (net_fault rule_added and
  /// rule_removed); a rule's drop is net_drop with reason "rule".
  /// @returns the guard that removes the rule when destroyed (keep() to
  /// leave it installed for the world's life).
  /// @throws config_error if @p rule is empty.
  rule_guard add_rule(fault_rule rule);
  /// Installs @p decoder to label packets in a failing seed's trace: each
  /// arrow of the HTML diagram (and each packet of the JSON lines) shows
  /// the packet's kind, ports and bytes, then what @p decoder returns for
  /// it ("RequestVote term=3"; "" adds nothing). It runs only while a
  /// run records its whole trace (the replay that writes a failure's
  /// artifacts), never in a sweep's runs, and decides nothing: it must not
  /// draw from the world or touch its objects. A later call replaces it;
  /// an empty one removes it.
  void describe_packets(packet_decoder decoder);
  /// How long unacknowledged TCP data is retransmitted before the
  /// connection fails with timed_out. By default a connection gives up at
  /// the first retransmission after 15 minutes (about 924 s, as Linux's
  /// tcp_retries2 does); once set here (or per socket with
  /// TCP_USER_TIMEOUT), the retransmission timer is clamped to it and the
  /// connection fails at @p d, as on Linux since 4.19.
  /// @throws config_error if @p d is not positive.
  void set_tcp_user_timeout(duration d);
  /// TCP socket buffer sizes and their autotuning ceilings for sockets
  /// opened from now on (see tcp_buffers; defaults are Debian 12's).
  /// @throws config_error if an initial size is 0 or above its maximum.
  void set_tcp_buffers(tcp_buffers sizes);
  /// How long a TCP connect retries its SYN before timed_out (default 127 s).
  void set_connect_timeout(duration d);

 private:
  friend class world;  // makes the one network of each world
  explicit network(detail::socket_ops& net) noexcept : net_(&net) {}
  detail::socket_ops* net_;
};

}  // namespace simasio

#endif  // SIMASIO_NET_NETWORK_HPP
