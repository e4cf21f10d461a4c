// progress.hpp — how a sweep shows itself on stderr (not installed)
//
// On a terminal a sweep keeps one live line, redrawn a few times a second:
// seeds done of this process's total, its shard's share of the sweep,
// seeds per second, the time left, failures so far; shrinking a failure
// redraws it with the replays spent. The line is cleared when the sweep
// ends and a one-line summary stays. Off a terminal, under a CI system's
// variables, or with TERM=dumb, only the summary is printed; with
// check_options::print off (the test frameworks' glue, which reports by
// itself) not even that. SIMASIO_PROGRESS=1 draws the live line anywhere,
// SIMASIO_PROGRESS=0 prints nothing. Wall-clock time is read here for the
// display only: it decides nothing a seed does (DESIGN.md §4).
#ifndef SIMASIO_SRC_CHECK_PROGRESS_HPP
#define SIMASIO_SRC_CHECK_PROGRESS_HPP

#include <simasio/check/check.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace simasio::check_impl {

class progress_line {
 public:
  // A sweep of `to_run` seeds in this process, out of options.seeds in all
  // (shard: this process's share of them).
  progress_line(const check_options& options, std::size_t to_run, const shard_spec& shard);
  ~progress_line();
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

  // One seed finished (callers serialise the calls).
  void seed_done(bool failed);
  // The sweep's seeds are done: the live line goes (shrinking may draw its own).
  void sweep_over();
  // The summary line: `ran` seeds ran; failing_seed when one failed. A
  // failing sweep's summary comes after its report, whose FAILED line stays
  // the first thing a failure prints (DESIGN.md §6).
  void summary(std::size_t ran, const std::optional<std::uint64_t>& failing_seed);
  // Shrinking seed's failure: `replays` spent of at most `budget`, the tape
  // now `deviations` away from the polite run.
  void shrinking(std::uint64_t seed, int replays, int budget, std::uint64_t deviations);
  // Shrinking is over: the live line goes.
  void shrink_done();

  bool live() const noexcept { return live_; }

 private:
  using clock = std::chrono::steady_clock;
  void draw(const std::string& text);
  void clear();
  bool due();
  double elapsed() const;

  std::string name_;
  bool live_ = false;     // a live line on stderr
  bool summary_ = false;  // the closing summary
  std::size_t to_run_ = 0;
  std::uint64_t all_ = 0;  // the whole sweep's seeds, over every shard
  shard_spec shard_;
  std::size_t done_ = 0;
  std::size_t failures_ = 0;
  clock::time_point start_;
  double sweep_seconds_ = 0;
  clock::time_point last_draw_;
  bool drawn_ = false;  // the live line is on the screen
  bool shrink_drawn_ = false;  // shrinking has drawn its first line
};

}  // namespace simasio::check_impl

#endif  // SIMASIO_SRC_CHECK_PROGRESS_HPP
