// progress.cpp — a sweep's live line and summary on stderr (progress.hpp)
#include "progress.hpp"

#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace simasio::check_impl {

namespace {

// Variables CI systems set: their logs are not terminals, whatever a
// runner's pseudo-terminal says.
bool under_ci() {
  for (const char* var : {"CI", "CONTINUOUS_INTEGRATION", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI",
                          "TRAVIS", "JENKINS_URL", "TF_BUILD", "TEAMCITY_VERSION"}) {
    const auto v = detail::env_string(var);
    if (v && !v->empty() && *v != "0" && *v != "false") return true;
  }
  return false;
}

bool terminal() {
  if (::isatty(STDERR_FILENO) != 1) return false;
  const auto term = detail::env_string("TERM");
  return !(term && *term == "dumb");
}

// The terminal's width, so the line never wraps (a wrapped line is not
// redrawn in place).
std::size_t columns() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 0;  // unknown: as it is
}

std::string seconds(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
  return buf;
}

std::string rate(double n, double s) {
  char buf[32];
  const double r = s > 0 ? n / s : 0;
  std::snprintf(buf, sizeof buf, r >= 100 ? "%.0f" : "%.1f", r);
  return buf;
}

}  // namespace

progress_line::progress_line(const check_options& options, std::size_t to_run, const shard_spec& shard)
    : name_(options.name.empty() ? "scenario" : options.name),
      to_run_(to_run),
      all_(options.seeds),
      shard_(shard),
      start_(clock::now()),
      last_draw_(start_) {
  const auto forced = detail::env_in_range("SIMASIO_PROGRESS", 0, 1, "0 (no progress lines) or 1 (a live line, "
                                                                     "even off a terminal)");
  if (forced && *forced == 0) return;
  if (!options.progress) return;
  live_ = forced ? true : terminal() && !under_ci();
  summary_ = live_ || options.print;
}

progress_line::~progress_line() { clear(); }

double progress_line::elapsed() const {
  return std::chrono::duration<double>(clock::now() - start_).count();
}

bool progress_line::due() {
  const auto now = clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(200)) return false;
  last_draw_ = now;
  return true;
}

void progress_line::draw(const std::string& text) {
  std::string line = "simasio: " + name_ + ": " + text;
  if (const std::size_t width = columns(); width != 0 && line.size() >= width) line.resize(width - 1);
  std::fprintf(stderr, "\r%s\033[K", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void progress_line::clear() {
  if (!drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

void progress_line::seed_done(bool failed) {
  ++done_;
  failures_ += failed ? 1 : 0;
  if (!live_ || to_run_ < 2 || !due()) return;
  const double s = elapsed();
  std::string text = std::to_string(done_) + "/" + std::to_string(to_run_) + " seeds";
  if (shard_.count > 1) text += " (shard " + std::to_string(shard_.index) + " of " + std::to_string(shard_.count) +
                                ", " + std::to_string(all_) + " in all)";
  text += ", " + rate(static_cast<double>(done_), s) + " seeds/s";
  if (done_ < to_run_ && done_ > 0)
    text += ", " + seconds(s / static_cast<double>(done_) * static_cast<double>(to_run_ - done_)) + " left";
  text += failures_ == 0 ? ", no failures" : ", " + std::to_string(failures_) + " failed";
  draw(text);
}

void progress_line::sweep_over() {
  clear();
  sweep_seconds_ = elapsed();
  start_ = clock::now();  // shrinking's own clock
}

void progress_line::summary(std::size_t ran, const std::optional<std::uint64_t>& failing_seed) {
  clear();
  if (!summary_) return;
  const double s = sweep_seconds_;
  std::string text = failing_seed ? "seed " + std::to_string(*failing_seed) + " failed; " + std::to_string(ran) +
                                        " of " + std::to_string(to_run_) + " seeds ran"
                                  : std::to_string(ran) + (ran == 1 ? " seed" : " seeds") + " passed";
  text += " in " + seconds(s) + " (" + rate(static_cast<double>(ran), s) + " seeds/s)";
  if (shard_.count > 1)
    text += "; shard " + std::to_string(shard_.index) + " of " + std::to_string(shard_.count) + " of a " +
            std::to_string(all_) + "-seed sweep";
  std::fprintf(stderr, "simasio: %s: %s\n", name_.c_str(), text.c_str());
  std::fflush(stderr);
}

void progress_line::shrinking(std::uint64_t seed, int replays, int budget, std::uint64_t deviations) {
  if (!live_) return;
  // Shrinking says so at once (the sweep's last redraw may be a moment old),
  // then redraws at the usual pace.
  if (shrink_drawn_ && !due()) return;
  shrink_drawn_ = true;
  last_draw_ = clock::now();
  draw("shrinking seed " + std::to_string(seed) + ": " + std::to_string(replays) + " of at most " +
       std::to_string(budget) + " replays, " + std::to_string(deviations) + " deviations left, " +
       seconds(elapsed()));
}

void progress_line::shrink_done() { clear(); }

}  // namespace simasio::check_impl
