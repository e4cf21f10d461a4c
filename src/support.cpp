// support.cpp — error category, names of enums, formatting, the trace ring
#include <simasio/detail/format.hpp>
#include <simasio/error.hpp>
#include <simasio/random/tape.hpp>
#include <simasio/trace/trace.hpp>

#include <cstdio>
#include <ostream>
#include <string>

namespace simasio {
namespace error {
namespace {
class sim_category final : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "simasio"; }
  std::string message(int ev) const override {
    switch (static_cast<sim_errors>(ev)) {
      case would_block:
        return "blocking operation called inside a simulated handler: it could never complete "
               "(use the asynchronous operation)";
      case stalled:
        return "the simulated world stalled before the operation could complete";
      case host_down:
        return "the simulated host is down";
    }
    return "simasio error " + std::to_string(ev);
  }
};
}  // namespace

const boost::system::error_category& get_sim_category() noexcept {
  static const sim_category category;
  return category;
}
}  // namespace error

const char* to_string(choice_purpose p) noexcept {
  switch (p) {
    case choice_purpose::scheduler: return "scheduler";
    case choice_purpose::network: return "network";
    case choice_purpose::user: return "user";
    case choice_purpose::buggify: return "buggify";
  }
  return "unknown";
}

void choice_tape::throw_mismatch(choice_purpose p, std::uint64_t bound) const {
  const choice& c = replay_[cursor_];
  throw tape_error("simasio: the tape does not fit this program: choice #" + std::to_string(cursor_) +
                   " was recorded as a " + to_string(c.purpose) + " draw below " + std::to_string(c.bound) +
                   ", but the program now makes a " + to_string(p) + " draw below " + std::to_string(bound) +
                   ". The code changed since the tape was saved: record a new tape, or replay with "
                   "tape_mismatch::seeded to continue with the seed's own draws from this point.");
}

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
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, event_kind k) { return os << to_string(k); }

std::vector<trace_event> trace::recent() const {
  std::vector<trace_event> out;
  if (!ring_enabled_) return out;
  const std::uint64_t n = count_ < ring_size ? count_ : ring_size;
  out.reserve(n);
  for (std::uint64_t i = count_ + 1 - n; i <= count_; ++i) out.push_back(ring_[i & (ring_size - 1)]);
  return out;
}

std::string describe(const trace_event& e) {
  std::string s = "step " + std::to_string(e.step) + " t=" + detail::format_time(duration(e.time_ns));
  if (e.host != no_host) s += " host " + std::to_string(e.host);
  s += ' ';
  s += to_string(e.kind);
  s += " a=" + std::to_string(e.a) + " b=" + std::to_string(e.b);
  return s;
}

namespace detail {
std::string format_time(duration t) {
  const std::int64_t ns = t.count();
  const bool neg = ns < 0;
  const std::uint64_t mag = neg ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  char buf[48];
  if (mag % 1'000'000 == 0)
    std::snprintf(buf, sizeof buf, "%s%llu.%03llus", neg ? "-" : "", static_cast<unsigned long long>(mag / 1'000'000'000),
                  static_cast<unsigned long long>(mag / 1'000'000 % 1000));
  else
    std::snprintf(buf, sizeof buf, "%s%llu.%09llus", neg ? "-" : "", static_cast<unsigned long long>(mag / 1'000'000'000),
                  static_cast<unsigned long long>(mag % 1'000'000'000));
  return buf;
}
}  // namespace detail

}  // namespace simasio
