// log.cpp — spdlog sinks that stamp virtual time, and the per-world ring
#include <simasio/log/log.hpp>

#include <simasio/clock.hpp>
#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>
#include <simasio/host.hpp>
#include <simasio/world.hpp>

#include <spdlog/common.h>
#include <spdlog/details/log_msg_buffer.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace simasio::log {
namespace detail_log {

// Stamps each message with the virtual time of the host whose code logs
// it, and its name, when it is logged; then forwards it. (A formatter
// reading the clock would be wrong: the ring formats late.) It formats
// nothing itself: a pattern set on it (a logger's set_pattern reaches
// every sink of the logger) leaves the world's lines as they are.
class virtual_time_sink final : public spdlog::sinks::sink {
 public:
  virtual_time_sink(simasio::detail::world_core& core, std::shared_ptr<spdlog::sinks::sink> target)
      : core_(&core), target_(std::move(target)) {}

  void log(const spdlog::details::log_msg& msg) override {
    if (core_ == nullptr) {
      target_->log(msg);
      return;
    }
    spdlog::details::log_msg stamped = msg;
    const simasio::detail::host_state* h = core_->clock_host();
    stamped.time = std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
        system_clock::epoch + std::chrono::nanoseconds(simasio::detail::host_local_ns(*core_, h))));
    if (h != nullptr && stamped.logger_name.size() == 0) stamped.logger_name = h->name;
    // A failing seed's replay keeps its lines for the trace's timeline too.
    if (core_->events().recording_all()) SIMASIO_UNLIKELY {
      const auto level = spdlog::level::to_string_view(msg.level);
      core_->events().keep_log({core_->steps(), core_->now().count(), h != nullptr ? h->id : no_host,
                                std::string(level.data(), level.size()),
                                std::string(msg.payload.data(), msg.payload.size())});
    }
    target_->log(stamped);
  }
  void flush() override { target_->flush(); }
  void set_pattern(const std::string&) override {}
  void set_formatter(std::unique_ptr<spdlog::formatter>) override {}

  // The world is gone: lines still logged through a kept sink pass unstamped.
  void detach() noexcept { core_ = nullptr; }

 private:
  simasio::detail::world_core* core_;
  std::shared_ptr<spdlog::sinks::sink> target_;
};

// %* : the host's virtual time as total hours, minutes, seconds and
// microseconds ("49:02:03.000000"): %H would wrap at a day.
class virtual_time_flag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const auto since = std::chrono::duration_cast<std::chrono::microseconds>(
        msg.time.time_since_epoch() - std::chrono::duration_cast<std::chrono::system_clock::duration>(system_clock::epoch));
    std::int64_t us = since.count();
    const bool negative = us < 0;
    if (negative) us = -us;
    char text[48];
    const int n = std::snprintf(text, sizeof text, "%s%02lld:%02lld:%02lld.%06lld", negative ? "-" : "",
                                static_cast<long long>(us / 3'600'000'000), static_cast<long long>(us / 60'000'000 % 60),
                                static_cast<long long>(us / 1'000'000 % 60), static_cast<long long>(us % 1'000'000));
    dest.append(text, text + n);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<virtual_time_flag>(); }
};

// simasio's line format, or another pattern, with %* available in it.
std::unique_ptr<spdlog::formatter> formatter(const std::string& pattern = "[%*] [%n] [%l] %v") {
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<virtual_time_flag>('*').set_pattern(pattern);
  return f;
}

// The last ring_lines messages of a world, formatted only when read (a
// failing seed's report). It grows with what is logged, up to ring_lines:
// a seed that logs a few lines pays for those, not for the whole ring, and
// its pattern is compiled only if its lines are read.
class line_ring final : public spdlog::sinks::sink {
 public:
  void log(const spdlog::details::log_msg& msg) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lines_.size() < ring_lines) {
      if (lines_.empty()) lines_.reserve(16);
      lines_.emplace_back(msg);
    } else {
      lines_[oldest_] = spdlog::details::log_msg_buffer(msg);
      oldest_ = (oldest_ + 1) % ring_lines;
    }
  }
  void flush() override {}
  void set_pattern(const std::string& pattern) override {
    std::lock_guard<std::mutex> lock(mutex_);
    formatter_ = formatter(pattern);
  }
  void set_formatter(std::unique_ptr<spdlog::formatter> f) override {
    std::lock_guard<std::mutex> lock(mutex_);
    formatter_ = std::move(f);
  }

  // The lines, oldest first, each without its end of line.
  std::vector<std::string> formatted() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (formatter_ == nullptr) formatter_ = formatter();
    std::vector<std::string> out;
    out.reserve(lines_.size());
    for (std::size_t k = 0; k < lines_.size(); ++k) {
      spdlog::memory_buf_t text;
      formatter_->format(lines_[(oldest_ + k) % lines_.size()], text);
      std::string line(text.data(), text.size());
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
      out.push_back(std::move(line));
    }
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<spdlog::details::log_msg_buffer> lines_;
  std::size_t oldest_ = 0;  // where the oldest line is, once the ring is full
  std::unique_ptr<spdlog::formatter> formatter_;
};

}  // namespace detail_log
}  // namespace simasio::log

namespace simasio::detail {

// One world's logging: the stamping sink, where it writes, and the loggers.
struct log_state {
  std::shared_ptr<simasio::log::detail_log::line_ring> ring;  // null when streaming
  std::shared_ptr<spdlog::sinks::sink> stamping;
  std::vector<std::shared_ptr<spdlog::logger>> loggers;  // by host id
  spdlog::level::level_enum level = spdlog::level::trace;
};

namespace {
log_state& state_of(world& w) {
  auto& slot = access::log(w);
  if (slot) return *slot;
  auto st = std::make_shared<log_state>();
  std::shared_ptr<spdlog::sinks::sink> target;
  if (const auto level = env_log_level()) {
    st->level = static_cast<spdlog::level::level_enum>(*level);
    target = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    target->set_formatter(simasio::log::detail_log::formatter());
  } else {
    st->ring = std::make_shared<simasio::log::detail_log::line_ring>();
    target = st->ring;
  }
  target->set_level(st->level);
  st->stamping = std::make_shared<simasio::log::detail_log::virtual_time_sink>(access::core(w), target);
  slot = st;
  return *st;
}
}  // namespace

void detach_log(log_state& st) noexcept {
  static_cast<simasio::log::detail_log::virtual_time_sink&>(*st.stamping).detach();
}

}  // namespace simasio::detail

namespace simasio::log {

std::shared_ptr<spdlog::logger> logger(host& h) {
  detail::log_state& st = detail::state_of(h.get_world());
  if (st.loggers.size() <= h.id()) st.loggers.resize(h.id() + 1);
  auto& l = st.loggers[h.id()];
  if (!l) {
    l = std::make_shared<spdlog::logger>(h.name(), st.stamping);
    l->set_level(st.level);
  }
  return l;
}

std::shared_ptr<spdlog::sinks::sink> sink() {
  world* w = detail::current_world();
  if (w == nullptr)
    throw escape_error("simasio::log::sink() needs a simasio::world alive on this thread (it stamps its virtual time)");
  return detail::state_of(*w).stamping;
}

std::vector<std::string> recent_lines(world& w) {
  auto& slot = detail::access::log(w);
  if (!slot || !slot->ring) return {};
  return slot->ring->formatted();
}

}  // namespace simasio::log
