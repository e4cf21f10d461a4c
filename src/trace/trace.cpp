// trace.cpp — names of trace events, their fields and one-line descriptions; the recent-event ring
#include <simasio/trace/trace.hpp>

#include <simasio/detail/format.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/world_options.hpp>

#include <boost/asio/error.hpp>

#include <bit>
#include <cstring>
#include <ostream>
#include <string>

namespace simasio {

const char* to_string(event_kind k) noexcept {
  switch (k) {
    case event_kind::handler: return "handler";
    case event_kind::time_advance: return "time_advance";
    case event_kind::timer_fire: return "timer_fire";
    case event_kind::crash: return "crash";
    case event_kind::restart: return "restart";
    case event_kind::boot: return "boot";
    case event_kind::clock_set: return "clock_set";
    case event_kind::dropped: return "dropped";
    case event_kind::user: return "user";
    case event_kind::net_send: return "net_send";
    case event_kind::net_deliver: return "net_deliver";
    case event_kind::net_drop: return "net_drop";
    case event_kind::net_duplicate: return "net_duplicate";
    case event_kind::net_fault: return "net_fault";
    case event_kind::tcp_connect: return "tcp_connect";
    case event_kind::tcp_reset: return "tcp_reset";
    case event_kind::tcp_close: return "tcp_close";
    case event_kind::signal: return "signal";
    case event_kind::process_spawn: return "process_spawn";
    case event_kind::process_end: return "process_end";
    case event_kind::disk_io: return "disk_io";
    case event_kind::disk_fault: return "disk_fault";
    case event_kind::disk_resolve: return "disk_resolve";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, event_kind k) { return os << to_string(k); }

const char* to_string(drop_reason r) noexcept {
  switch (r) {
    case drop_reason::lost: return "lost";
    case drop_reason::partitioned: return "partitioned";
    case drop_reason::power_off: return "power_off";
    case drop_reason::no_socket: return "no_socket";
    case drop_reason::buffer_full: return "buffer_full";
    case drop_reason::unreachable: return "unreachable";
    case drop_reason::held: return "held";
    case drop_reason::rule: return "rule";
  }
  return "unknown";
}

const char* to_string(disk_op o) noexcept {
  switch (o) {
    case disk_op::read: return "read";
    case disk_op::write: return "write";
    case disk_op::sync: return "sync";
    case disk_op::resize: return "resize";
    case disk_op::open: return "open";
    case disk_op::rename: return "rename";
    case disk_op::remove: return "remove";
    case disk_op::sync_directory: return "sync_directory";
  }
  return "unknown";
}

const char* to_string(disk_fault_kind f) noexcept {
  switch (f) {
    case disk_fault_kind::read_error: return "read_error";
    case disk_fault_kind::write_error: return "write_error";
    case disk_fault_kind::sync_error: return "sync_error";
    case disk_fault_kind::latent_sector: return "latent_sector";
    case disk_fault_kind::misdirected: return "misdirected";
    case disk_fault_kind::corruption: return "corruption";
    case disk_fault_kind::no_space: return "no_space";
    case disk_fault_kind::unreadable: return "unreadable";
  }
  return "unknown";
}

const char* to_string(disk_outcome o) noexcept {
  switch (o) {
    case disk_outcome::kept: return "kept";
    case disk_outcome::lost: return "lost";
    case disk_outcome::torn: return "torn";
    case disk_outcome::entry_kept: return "entry_kept";
    case disk_outcome::entry_lost: return "entry_lost";
    case disk_outcome::written_back: return "written_back";
    case disk_outcome::overwritten: return "overwritten";
  }
  return "unknown";
}

const char* to_string(fault_kind f) noexcept {
  switch (f) {
    case fault_kind::block: return "block";
    case fault_kind::heal: return "heal";
    case fault_kind::hold: return "hold";
    case fault_kind::release: return "release";
    case fault_kind::configure: return "configure";
    case fault_kind::reset: return "reset";
    case fault_kind::rule_added: return "rule_added";
    case fault_kind::rule_removed: return "rule_removed";
  }
  return "unknown";
}

void trace::keep(const trace_event& e) {
  if (!keep_first_) {
    events_.push_back(e);
    hashes_.push_back(hash_);
    if (events_.size() >= 2 * keep_) {
      // Drop the oldest, down to keep_: amortised, about one erase per keep_ events.
      const std::size_t drop = events_.size() - keep_;
      events_.erase(events_.begin(), events_.begin() + static_cast<std::ptrdiff_t>(drop));
      hashes_.erase(hashes_.begin(), hashes_.begin() + static_cast<std::ptrdiff_t>(drop));
      omitted_ += drop;
    }
  } else if (events_.size() < keep_) {
    events_.push_back(e);
    hashes_.push_back(hash_);
  } else {
    ++omitted_;
  }
}

namespace {
// Keeps a list of notes within keep_last as the events are (the oldest go;
// under keep_first the newest are not taken).
template <class T>
void bounded_push(std::vector<T>& v, T item, std::size_t keep, bool keep_first) {
  if (keep_first) {
    if (v.size() < keep) v.push_back(std::move(item));
    return;
  }
  v.push_back(std::move(item));
  if (v.size() >= 2 * keep) v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() - keep));
}
}  // namespace

void trace::label_packet(std::uint64_t packet, std::string text) {
  if (full_) bounded_push(notes_.packets, trace_annotations::packet_label{packet, std::move(text)}, keep_, keep_first_);
}

void trace::keep_log(trace_annotations::log_line line) {
  if (full_) bounded_push(notes_.logs, std::move(line), keep_, keep_first_);
}

namespace {
// Eight bytes at p as a little-endian word, on every machine.
std::uint64_t load_le(const unsigned char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}
// The 128-bit product of a and b, its halves folded: one multiply mixes
// sixteen bytes.
std::uint64_t mum(std::uint64_t a, std::uint64_t b) noexcept {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}
}  // namespace

// Four independent lanes of sixteen bytes each, so a 4 KiB page costs
// about 256 multiplies that overlap (a page written to a file or a
// segment sent is hashed once): the serial chain before it cost one
// dependent multiply per eight bytes, more than the write it traced.
std::uint64_t trace::hash_bytes(const void* p, std::size_t n, std::uint64_t seed) noexcept {
  const auto* b = static_cast<const unsigned char*>(p);
  std::uint64_t h = fold(seed, n);
  std::size_t i = 0;
  if (n >= 64) {
    std::uint64_t l0 = h ^ 0x243F6A8885A308D3ULL, l1 = h ^ 0x13198A2E03707344ULL, l2 = h ^ 0xA4093822299F31D0ULL,
                  l3 = h ^ 0x082EFA98EC4E6C89ULL;
    for (; i + 64 <= n; i += 64) {
      const unsigned char* q = b + i;
      l0 = mum(load_le(q) ^ l0, load_le(q + 8) ^ 0x452821E638D01377ULL);
      l1 = mum(load_le(q + 16) ^ l1, load_le(q + 24) ^ 0xBE5466CF34E90C6CULL);
      l2 = mum(load_le(q + 32) ^ l2, load_le(q + 40) ^ 0xC0AC29B7C97C50DDULL);
      l3 = mum(load_le(q + 48) ^ l3, load_le(q + 56) ^ 0x3F84D5B5B5470917ULL);
    }
    h = fold(fold(fold(fold(h, l0), l1), l2), l3);
  }
  for (; i + 8 <= n; i += 8) {
    h = (h ^ load_le(b + i)) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 32;
  }
  std::uint64_t w = 0;
  for (int k = 0; i < n; ++i, ++k) w |= static_cast<std::uint64_t>(b[i]) << (8 * k);
  return fold(h, w);
}

std::vector<trace_event> trace::recent() const {
  std::vector<trace_event> out;
  if (!ring_enabled_) return out;
  const std::uint64_t n = count_ < ring_size ? count_ : ring_size;
  out.reserve(n);
  for (std::uint64_t i = count_ + 1 - n; i <= count_; ++i) out.push_back(ring_[i & (ring_size - 1)]);
  return out;
}

namespace {

// The errors a simulated TCP socket fails with (tcp_reset's b), by the
// boost::asio::error name a reader would grep for.
std::string error_name(std::uint64_t value) {
  namespace aerr = boost::asio::error;
  const auto is = [value](aerr::basic_errors e) { return value == static_cast<std::uint64_t>(e); };
  if (is(aerr::connection_reset)) return "connection_reset";
  if (is(aerr::connection_refused)) return "connection_refused";
  if (is(aerr::timed_out)) return "timed_out";
  if (is(aerr::connection_aborted)) return "connection_aborted";
  if (is(aerr::host_unreachable)) return "host_unreachable";
  if (is(aerr::network_unreachable)) return "network_unreachable";
  if (is(aerr::operation_aborted)) return "operation_aborted";
  return "error " + std::to_string(value);
}

trace_field number(const char* name, std::uint64_t v) { return {name, std::to_string(v), false}; }
trace_field signed_number(const char* name, std::uint64_t v) {
  return {name, std::to_string(static_cast<std::int64_t>(v)), false};
}
trace_field text(const char* name, std::string v) { return {name, std::move(v), true}; }
trace_field null(const char* name) { return {name, "null", false}; }

trace_field host_field(const char* name, std::uint64_t id, const std::vector<std::string>& names) {
  if (id == no_host) return null(name);
  return text(name, id < names.size() ? names[id] : "#" + std::to_string(id));
}

}  // namespace

std::vector<trace_field> event_fields(const trace_event& e, const std::vector<std::string>& host_names) {
  switch (e.kind) {
    case event_kind::handler:
      if (e.a >= detail::process_context_base) return {number("process", e.a - detail::process_context_base), number("op", e.b)};
      return {number("context", e.a), number("op", e.b)};
    case event_kind::time_advance: return {number("time_ns", e.a)};
    case event_kind::timer_fire:
      return {number("event", e.a), e.b == no_host ? null("context") : number("context", e.b)};
    case event_kind::crash:
      return {text("crash", static_cast<crash_kind>(e.a) == crash_kind::power ? "power" : "process")};
    case event_kind::restart:
    case event_kind::boot: return {};
    case event_kind::clock_set: return {signed_number("offset_ns", e.a), signed_number("drift_ppb", e.b)};
    case event_kind::dropped: return {number("context", e.a)};
    case event_kind::user: return {number("value", e.a)};
    case event_kind::net_send:
    case event_kind::net_duplicate: return {number("packet", e.a), host_field("to", e.b, host_names)};
    case event_kind::net_deliver: return {number("packet", e.a), number("bytes", e.b)};
    case event_kind::net_drop:
      return {number("packet", e.a), text("reason", to_string(static_cast<drop_reason>(e.b)))};
    case event_kind::net_fault:
      return {text("fault", to_string(static_cast<fault_kind>(e.a))), host_field("from", e.host, host_names),
              host_field("to", e.b, host_names)};
    case event_kind::tcp_connect: return {number("connection", e.a), text("side", e.b != 0 ? "server" : "client")};
    case event_kind::tcp_reset:
      return {e.a == 0 ? null("connection") : number("connection", e.a), text("error", error_name(e.b))};
    case event_kind::tcp_close: return {number("connection", e.a), {"abortive", e.b != 0 ? "true" : "false", false}};
    case event_kind::signal: return {number("signal", e.a)};
    case event_kind::process_spawn: return {number("process", e.a)};
    case event_kind::process_end: {
      static constexpr const char* hows[] = {"returned", "threw", "killed", "exited", "signaled"};
      const std::uint64_t how = e.b & 0xff;
      std::vector<trace_field> out{number("process", e.a), text("how", how < 5 ? hows[how] : "?")};
      if (how == 3) out.push_back(number("status", e.b >> 8));
      if (how == 4) out.push_back(number("signal", e.b >> 8));
      return out;
    }
    case event_kind::disk_io: return {text("op", to_string(static_cast<disk_op>(e.a))), number("file", e.b)};
    case event_kind::disk_fault:
      return {text("fault", to_string(static_cast<disk_fault_kind>(e.a))), number("file", e.b)};
    case event_kind::disk_resolve:
      return {text("outcome", to_string(static_cast<disk_outcome>(e.a))), number("file", e.b)};
  }
  return {number("a", e.a), number("b", e.b)};  // a kind newer than this list
}

std::string describe(const trace_event& e, const std::vector<std::string>& host_names) {
  std::string s = "step " + std::to_string(e.step) + " t=" + detail::format_time(duration(e.time_ns));
  if (e.host != no_host) {
    if (e.host < host_names.size()) s += " host " + host_names[e.host];
    else s += " host " + std::to_string(e.host);
  }
  s += ' ';
  s += to_string(e.kind);
  for (const trace_field& f : event_fields(e, host_names)) {
    if (!f.quoted && f.value == "null") continue;
    s += ' ';
    s += f.name;
    s += '=';
    s += f.value;
  }
  return s;
}

}  // namespace simasio
