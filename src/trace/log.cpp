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
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <chrono>
#include <cstdio>
#include <mutex>

namespace simasio::log {
namespace detail_log {

// Stamps each message with the virtual time of the host whose code logs
// it, and its name, when it is logged; then forwards it. (A formatter
// reading the clock would be wrong: the ring formats late.)
class virtual_time_sink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  virtual_time_sink(simasio::detail::world_core& core, std::shared_ptr<spdlog::sinks::sink> target)
      : core_(&core), target_(std::move(target)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
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
  void flush_() override { target_->flush(); }

 public:
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

}  // namespace detail_log
}  // namespace simasio::log

namespace simasio::detail {

// One world's logging: the stamping sink, where it writes, and the loggers.
struct log_state {
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> ring;  // null when streaming
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
  } else {
    st->ring = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(simasio::log::ring_lines);
    target = st->ring;
  }
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<simasio::log::detail_log::virtual_time_flag>('*').set_pattern("[%*] [%n] [%l] %v");
  target->set_formatter(std::move(formatter));
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
  std::vector<std::string> lines = slot->ring->last_formatted();
  for (std::string& line : lines)  // the formatter ends each with an end of line
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return lines;
}

}  // namespace simasio::log
