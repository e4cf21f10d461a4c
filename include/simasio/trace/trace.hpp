// simasio/trace/trace.hpp — trace events, the rolling hash and the recent-event ring
#ifndef SIMASIO_TRACE_TRACE_HPP
#define SIMASIO_TRACE_TRACE_HPP

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace simasio {

/// What happened at one point of a run.
enum class event_kind : std::uint8_t {
  handler = 0,       ///< a handler ran: a = context id, b = operation sequence number
  time_advance = 1,  ///< virtual time jumped: a = new time in ns
  timer_fire = 2,    ///< a timed event fired: a = event sequence number, b = context id
  crash = 3,         ///< a host crashed: a = crash_kind
  restart = 4,       ///< a host restarted
  boot = 5,          ///< a host's boot function ran
  clock_set = 6,     ///< a host's clock changed: a = offset ns, b = drift ppb
  dropped = 7,       ///< work was dropped because its host is down: a = context id
  user = 8,          ///< world::note(): a = user value
  net_send = 9,      ///< a packet left a host: a = packet seq, b = destination host
  net_deliver = 10,  ///< a packet arrived: a = packet seq, b = bytes
  net_drop = 11,     ///< a packet was lost (loss, partition, power-off, no socket): a = packet seq, b = reason
  net_duplicate = 12,  ///< a datagram was duplicated: a = packet seq of the copy
  net_fault = 13,    ///< the topology changed: a = fault_kind, b = other host
  tcp_connect = 14,  ///< a TCP connection was established: a = connection id
  tcp_reset = 15,    ///< a TCP socket failed: a = connection id, b = error value
  tcp_close = 16,    ///< a TCP socket closed: a = connection id, b = 1 if abortive
  signal = 17,       ///< host::raise: a = signal number
};

/// Lower-case name of a kind ("handler", "time_advance", ...).
const char* to_string(event_kind) noexcept;
std::ostream& operator<<(std::ostream& os, event_kind k);

/// Host number used for events that belong to no host.
inline constexpr std::uint32_t no_host = 0xFFFFFFFFu;

/// One trace event. Fields are plain integers so that the hash is the same
/// on every compiler and optimisation level.
struct trace_event {
  std::uint64_t step = 0;
  std::int64_t time_ns = 0;
  std::uint32_t host = no_host;
  event_kind kind = event_kind::handler;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  friend bool operator==(const trace_event&, const trace_event&) = default;
};

/// The trace of one run: every event folds into a 64-bit hash; the last
/// ring_size events are kept for failure reports; all events are kept only
/// when full recording is on (replay of a failing seed).
class trace {
 public:
  static constexpr std::size_t ring_size = 64;

  /// Adds an event.
  void record(std::uint64_t step, std::int64_t time_ns, std::uint32_t host, event_kind k,
              std::uint64_t a, std::uint64_t b) {
    if (hash_enabled_) hash_ = fold(hash_, combine(k, host, a, b));
    ++count_;
    if (ring_enabled_) ring_[count_ & (ring_size - 1)] = trace_event{step, time_ns, host, k, a, b};
    if (full_) {
      events_.push_back(trace_event{step, time_ns, host, k, a, b});
      if (events_.size() >= 2 * keep_) drop_oldest();
    }
  }

  /// The rolling hash of all events so far.
  std::uint64_t hash() const noexcept { return hash_; }
  /// Number of events so far.
  std::uint64_t size() const noexcept { return count_; }

  /// Keep every event from now on (off by default); with @p keep_last,
  /// only about the last keep_last of them (memory stays bounded in a run
  /// that never ends).
  void record_all(bool on, std::size_t keep_last = static_cast<std::size_t>(-1) / 4) {
    full_ = on;
    keep_ = keep_last == 0 ? 1 : keep_last;
  }
  bool recording_all() const noexcept { return full_; }
  /// Fold events into the hash (on by default).
  void hash_events(bool on) noexcept { hash_enabled_ = on; }
  /// Keep the ring of recent events (on by default).
  void keep_recent(bool on) noexcept { ring_enabled_ = on; }

  /// All events (empty unless record_all was on), but those left out
  /// under record_all's keep_last.
  const std::vector<trace_event>& events() const noexcept { return events_; }
  /// How many of the oldest recorded events were left out (keep_last).
  std::uint64_t events_omitted() const noexcept { return omitted_; }
  /// The most recent events, oldest first (at most ring_size).
  std::vector<trace_event> recent() const;

  /// One event's fields as one word (odd multipliers keep every field's bits).
  static constexpr std::uint64_t combine(event_kind k, std::uint32_t host, std::uint64_t a,
                                         std::uint64_t b) noexcept {
    return ((static_cast<std::uint64_t>(k) | (static_cast<std::uint64_t>(host) << 8)) * 0x9E3779B97F4A7C15ULL) ^
           (a * 0xC2B2AE3D27D4EB4FULL) ^ b;
  }
  /// The hash mixing step: our own, never std::hash. Order-sensitive, so
  /// the same events in another order give another hash.
  static constexpr std::uint64_t fold(std::uint64_t h, std::uint64_t v) noexcept {
    h = ((h << 23) | (h >> 41)) ^ v;
    h *= 0xFF51AFD7ED558CCDULL;
    return h ^ (h >> 29);
  }

 private:
  std::uint64_t hash_ = 0xCBF29CE484222325ULL;
  std::uint64_t count_ = 0;
  bool hash_enabled_ = true;
  bool ring_enabled_ = true;
  bool full_ = false;
  void drop_oldest() {
    const std::size_t drop = events_.size() - keep_;
    events_.erase(events_.begin(), events_.begin() + static_cast<std::ptrdiff_t>(drop));
    omitted_ += drop;
  }

  std::array<trace_event, ring_size> ring_{};
  std::vector<trace_event> events_;
  std::size_t keep_ = static_cast<std::size_t>(-1) / 4;
  std::uint64_t omitted_ = 0;
};

/// One line describing an event, e.g. "step 12 t=0.001500000s host 2 handler ctx=3 op=17".
std::string describe(const trace_event&);

}  // namespace simasio

#endif  // SIMASIO_TRACE_TRACE_HPP
