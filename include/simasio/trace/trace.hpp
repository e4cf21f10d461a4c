// simasio/trace/trace.hpp — trace events, the rolling hash and the recent-event ring
#ifndef SIMASIO_TRACE_TRACE_HPP
#define SIMASIO_TRACE_TRACE_HPP

#include <simasio/detail/config.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace simasio {

/// What happened at one point of a run. Each kind gives its two integers
/// a and b one meaning, everywhere; the exports write them as the named
/// fields listed here (see event_fields), never as raw a and b.
enum class event_kind : std::uint8_t {
  handler = 0,       ///< a handler ran: a = context id, b = operation sequence number ("context", "op")
  time_advance = 1,  ///< virtual time jumped: a = new time in ns ("time_ns")
  timer_fire = 2,    ///< a timed event fired: a = event sequence number, b = context id or no_host for
                     ///< network events ("event", "context")
  crash = 3,         ///< a host crashed: a = crash_kind ("crash": "process" or "power")
  restart = 4,       ///< a host restarted
  boot = 5,          ///< a host's boot function ran
  clock_set = 6,     ///< a host's clock changed: a = offset ns, b = drift ppb, both two's complement
                     ///< ("offset_ns", "drift_ppb")
  dropped = 7,       ///< work was dropped because its host is down: a = context id ("context")
  user = 8,          ///< world::note(): a = user value ("value")
  net_send = 9,      ///< a packet left a host: a = packet seq, b = destination host or no_host for an
                     ///< address nobody has ("packet", "to"). A packet parked by network::hold is
                     ///< sent again, same seq, on release; a TCP retransmission is a new packet
  net_deliver = 10,  ///< a packet arrived: a = packet seq, b = payload bytes ("packet", "bytes")
  net_drop = 11,     ///< a packet was lost: a = packet seq, always that of an earlier net_send,
                     ///< b = drop_reason ("packet", "reason"). TCP segments in flight behind a dropped
                     ///< one are dropped with it, for the same reason, and sent again in order
  net_duplicate = 12,  ///< a datagram was duplicated: a = packet seq (the copy keeps the original's),
                       ///< b = destination host ("packet", "to")
  net_fault = 13,    ///< the topology changed: a = fault_kind, b = other host; the event's host is the
                     ///< first, no_host for both when the change is world-wide ("fault", "from", "to")
  tcp_connect = 14,  ///< a TCP connection was established: a = connection id, b = 1 on the accepting side,
                     ///< 0 on the connecting side ("connection", "side": "server" or "client")
  tcp_reset = 15,    ///< a TCP socket failed: a = connection id or 0 before one existed, b = the
                     ///< boost::asio::error value ("connection", "error", e.g. "connection_reset")
  tcp_close = 16,    ///< a TCP socket closed: a = connection id, b = 1 if abortive ("connection", "abortive")
  signal = 17,       ///< host::raise: a = signal number ("signal")
  process_spawn = 18,  ///< host::spawn: a = process id ("process"). The process's steps are handler
                       ///< events whose context is process_context_base + its id
  process_end = 19,    ///< a process (or thread) ended: a = process id, b's low byte = 0 returned, 1 threw,
                       ///< 2 killed by a crash or the world's end, 3 exited (exit status in b's next bits),
                       ///< 4 signaled (the signal in b's next bits) ("process", "how": "returned", "threw",
                       ///< "killed", "exited" or "signaled"; "status" or "signal")
  disk_io = 20,        ///< a disk operation completed (or, for a blocking call, was made): a = disk_op,
                       ///< b = file id, 0 for a directory ("op", "file")
  disk_fault = 21,     ///< the disk injected a fault: a = disk_fault_kind, b = file id ("fault", "file")
  disk_resolve = 22,   ///< a power cut settled what one unsynced change left on the medium: a =
                       ///< disk_outcome, b = file id, 0 for a directory entry ("outcome", "file")
};

/// Which disk operation a disk_io event records: its a.
enum class disk_op : std::uint8_t {
  read = 1,
  write = 2,
  sync = 3,            ///< sync_all / sync_data
  resize = 4,
  open = 5,
  rename = 6,
  remove = 7,
  sync_directory = 8,
};

/// Which fault a disk_fault event records: its a.
enum class disk_fault_kind : std::uint8_t {
  read_error = 1,       ///< a read failed with EIO (disk_config::read_error)
  write_error = 2,      ///< a write failed with EIO, nothing written
  sync_error = 3,       ///< a sync failed with EIO: its dirty data will never reach the medium
  latent_sector = 4,    ///< a sector of a write will be unreadable on the medium until rewritten
  misdirected = 5,      ///< a write reaches the medium at another sector of the file
  corruption = 6,       ///< a bit of a write flips on its way to the medium
  no_space = 7,         ///< a write or resize past disk_config::capacity
  unreadable = 8,       ///< a read met a latent sector error (EIO)
};

/// What a power cut did to one unsynced change: disk_resolve's a.
enum class disk_outcome : std::uint8_t {
  kept = 1,           ///< the change reached the medium whole
  lost = 2,           ///< none of it did
  torn = 3,           ///< some of its sectors did
  entry_kept = 4,     ///< an unsynced directory entry (create, rename, remove) survived
  entry_lost = 5,     ///< it reverted to its state at the directory's last sync
  written_back = 6,   ///< older than disk_config::dirty_expire, or overwritten after it went back: on the medium
  overwritten = 7,    ///< overwritten in the page cache before it went back: only a later version can reach the medium
};

/// Why a packet was lost: net_drop's b.
enum class drop_reason : std::uint8_t {
  lost = 1,          ///< the link's loss probability (link_config::loss)
  partitioned = 2,   ///< a block or partition between the hosts, in either direction for TCP
  power_off = 3,     ///< the sender or the receiver is powered off (crash_kind::power)
  no_socket = 4,     ///< nothing listens at the destination port (or the connection is gone)
  buffer_full = 5,   ///< the receiving datagram socket's buffer is full
  unreachable = 6,   ///< no host has the destination address
  held = 7,          ///< a TCP segment met a held link: taken back, sent again on release
  rule = 8,          ///< a fault rule (network::add_rule) dropped it
};

/// Which topology change a net_fault event records: its a.
enum class fault_kind : std::uint8_t {
  block = 1,      ///< network::block, or one direction of network::partition
  heal = 2,       ///< network::heal (world-wide)
  hold = 3,       ///< network::hold
  release = 4,    ///< network::release
  configure = 5,  ///< network::configure (world-wide for the default link)
  reset = 6,      ///< network::reset
  rule_added = 7,    ///< network::add_rule (world-wide)
  rule_removed = 8,  ///< a rule_guard removed its rule (world-wide)
};

/// Lower-case names of the disk enums ("write", "latent_sector", "torn", ...).
const char* to_string(disk_op) noexcept;
const char* to_string(disk_fault_kind) noexcept;
const char* to_string(disk_outcome) noexcept;

/// Lower-case name of a kind ("handler", "time_advance", ...).
const char* to_string(event_kind) noexcept;
std::ostream& operator<<(std::ostream& os, event_kind k);
/// Lower-case name of a drop reason ("lost", "power_off", ...).
const char* to_string(drop_reason) noexcept;
/// Lower-case name of a topology change ("block", "heal", ...).
const char* to_string(fault_kind) noexcept;

/// Host number used for events that belong to no host.
inline constexpr std::uint32_t no_host = 0xFFFFFFFFu;

/// One trace event. Fields are plain integers so that the hash is the same
/// on every compiler and optimisation level.
struct trace_event {
  std::uint64_t step = 0;                 ///< world::steps() then; a handler event's own step number
  std::int64_t time_ns = 0;               ///< world time, in nanoseconds
  std::uint32_t host = no_host;           ///< the host it belongs to, or no_host
  event_kind kind = event_kind::handler;  ///< what happened
  std::uint64_t a = 0;                    ///< the kind's first integer (see event_kind)
  std::uint64_t b = 0;                    ///< the kind's second integer (see event_kind)
  /// Field-wise equality (and its negation).
  ///@{
  friend bool operator==(const trace_event& x, const trace_event& y) noexcept {
    return x.step == y.step && x.time_ns == y.time_ns && x.host == y.host && x.kind == y.kind && x.a == y.a &&
           x.b == y.b;
  }
  friend bool operator!=(const trace_event& x, const trace_event& y) noexcept { return !(x == y); }
  ///@}
};

/// What a full recording keeps beside its events for a reader: a label
/// per packet and the hosts' log lines. Never hashed, never part of a
/// decision; bounded like the events (record_all's keep_last).
struct trace_annotations {
  /// A packet's label: its kind, ports and bytes ("tcp_data 49152->7000
  /// 6 B"), and what a world::describe_packets decoder made of it.
  struct packet_label {
    std::uint64_t packet = 0;  ///< the packet's number (net_send's "packet")
    std::string text;          ///< the label
  };
  /// A log line, at the virtual time and step it was logged.
  struct log_line {
    std::uint64_t step = 0;         ///< world::steps() then
    std::int64_t time_ns = 0;       ///< world time (not the host's clock), in nanoseconds
    std::uint32_t host = no_host;   ///< the host whose code logged it, or no_host
    std::string level;              ///< spdlog's level name ("info", "warning", ...)
    std::string text;               ///< the message
  };
  std::vector<packet_label> packets;  ///< in the order the packets were sent
  std::vector<log_line> logs;         ///< in the order they were logged
};

/// The trace of one run: every event folds into a 64-bit hash; the last
/// ring_size events are kept for failure reports; all events are kept only
/// when full recording is on (replay of a failing seed).
class trace {
 public:
  /// How many recent events the ring keeps (a power of two).
  static constexpr std::size_t ring_size = 64;

  /// Adds an event. Every handler step records one, so the common case
  /// (hash and ring) stays small enough to inline; full recording, used
  /// when replaying a failure, is out of line.
  void record(std::uint64_t step, std::int64_t time_ns, std::uint32_t host, event_kind k,
              std::uint64_t a, std::uint64_t b) {
    if (hash_enabled_) hash_ = fold(hash_, combine(k, host, a, b));
    ++count_;
    if (ring_enabled_) ring_[count_ & (ring_size - 1)] = trace_event{step, time_ns, host, k, a, b};
    if (full_) SIMASIO_UNLIKELY keep(trace_event{step, time_ns, host, k, a, b});
  }

  /// Folds bytes that left a socket or reached a file (their hash, see
  /// hash_bytes) into the rolling hash: two runs whose events agree but
  /// whose bytes differ hash differently (SIMASIO_VERIFY compares them).
  void fold_bytes(std::uint64_t bytes_hash) noexcept {
    if (hash_enabled_) hash_ = fold(hash_, bytes_hash ^ 0xB7E151628AED2A6BULL);
  }
  /// A hash of n bytes at p, from seed (a connection or file and an offset):
  /// our own, the same on every compiler.
  static std::uint64_t hash_bytes(const void* p, std::size_t n, std::uint64_t seed) noexcept;

  /// The rolling hash of all events so far.
  std::uint64_t hash() const noexcept { return hash_; }
  /// Number of events so far.
  std::uint64_t size() const noexcept { return count_; }

  /// Keep every event from now on (off by default); with @p keep_last,
  /// only about the last keep_last of them (memory stays bounded in a run
  /// that never ends), or with @p keep_first the first keep_last of them.
  void record_all(bool on, std::size_t keep_last = static_cast<std::size_t>(-1) / 4, bool keep_first = false) {
    full_ = on;
    keep_first_ = keep_first;
    // 2 * keep_ must not wrap: no run keeps more events than this anyway.
    keep_ = std::clamp<std::size_t>(keep_last, 1, static_cast<std::size_t>(-1) / 4);
  }
  /// True while every event is kept (record_all).
  bool recording_all() const noexcept { return full_; }
  /// Fold events into the hash (on by default).
  void hash_events(bool on) noexcept { hash_enabled_ = on; }
  /// Keep the ring of recent events (on by default).
  void keep_recent(bool on) noexcept { ring_enabled_ = on; }

  /// All events (empty unless record_all was on), but those left out
  /// under record_all's keep_last.
  const std::vector<trace_event>& events() const noexcept { return events_; }
  /// With record_all: the rolling hash right after each event of events(),
  /// so the first place two runs part shows even where their events agree
  /// but their bytes did not.
  const std::vector<std::uint64_t>& hashes() const noexcept { return hashes_; }
  /// How many recorded events were left out: the oldest under keep_last,
  /// the newest under keep_first.
  std::uint64_t events_omitted() const noexcept { return omitted_; }
  /// The most recent events, oldest first (at most ring_size).
  std::vector<trace_event> recent() const;

  /// With record_all: the packets' labels and the log lines (empty otherwise).
  const trace_annotations& annotations() const noexcept { return notes_; }
  /// Labels packet @p packet, when recording all (else nothing).
  void label_packet(std::uint64_t packet, std::string text);
  /// Keeps a log line, when recording all (else nothing).
  void keep_log(trace_annotations::log_line line);

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
  // Full recording: keeps e within record_all's bounds.
  void keep(const trace_event& e);

  std::array<trace_event, ring_size> ring_{};
  std::vector<trace_event> events_;
  std::vector<std::uint64_t> hashes_;  // parallel to events_
  trace_annotations notes_;
  std::size_t keep_ = static_cast<std::size_t>(-1) / 4;
  std::uint64_t omitted_ = 0;
  bool keep_first_ = false;
};

/// One named field of an event, as the exports write it.
struct trace_field {
  const char* name = "";  ///< "packet", "reason", "from", ...
  std::string value;      ///< the value's text: 17, power_off, alice, true, null
  bool quoted = false;    ///< a string (names); otherwise a JSON literal (number, true, false, null)
};

/// An event's a and b as named fields (the list at event_kind): packet
/// numbers, reasons and errors by name, hosts by their names in
/// @p host_names ("#id" beyond it). A missing host is the literal null.
std::vector<trace_field> event_fields(const trace_event& e, const std::vector<std::string>& host_names = {});

/// One line describing an event with its named fields, e.g.
/// "step 12 t=0.001500000s host 2 net_drop packet=17 reason=lost"; hosts
/// are named when @p host_names has them, fields without a value left out.
std::string describe(const trace_event& e, const std::vector<std::string>& host_names = {});

}  // namespace simasio

#endif  // SIMASIO_TRACE_TRACE_HPP
