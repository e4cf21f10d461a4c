// simasio/random/tape.hpp — the choice tape: every seeded decision, in order
#ifndef SIMASIO_RANDOM_TAPE_HPP
#define SIMASIO_RANDOM_TAPE_HPP

#include <simasio/error.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace simasio {

/// What a draw decides. Each purpose has its own PRNG sub-stream, so adding a
/// user draw never shifts the network's or the scheduler's draws.
enum class choice_purpose : std::uint8_t {
  scheduler = 0,  ///< which ready context runs next; equal-time event order
  network = 1,    ///< latency, loss, duplication, segment sizes
  user = 2,       ///< world::random() draws made by scenarios
  buggify = 3,    ///< simasio::buggify() site activation and firing
  disk = 4,       ///< simulated disks: latencies, faults, what a power cut keeps
};

/// Number of purposes (sub-streams).
inline constexpr std::size_t choice_purpose_count = 5;

/// Short lower-case name of a purpose ("scheduler", "network", ...).
const char* to_string(choice_purpose) noexcept;

/// One recorded draw: its purpose, its bound, and the value in [0, bound).
struct choice {
  choice_purpose purpose = choice_purpose::scheduler;
  std::uint64_t bound = 0;
  std::uint64_t value = 0;
  friend bool operator==(const choice&, const choice&) = default;
};

/// What replay does when the program asks for a draw the tape does not hold
/// at that position (the code changed since the tape was saved).
enum class tape_mismatch {
  fail,    ///< throw simasio::tape_error naming the position (default)
  seeded,  ///< stop following the tape; continue with the seed's own draws
  polite,  ///< answer 0 (the polite choice) from there on; used by shrinking
};

/// Records every draw of a world, or feeds recorded draws back.
///
/// Counting is always on (choices(), deviations()); keeping the entries is
/// on only while recording, so sweeps pay one increment per draw.
class choice_tape {
 public:
  /// Keep every draw from now on.
  void start_recording() { recording_ = true; }

  /// Answer draws from @p entries in order. When they run out, draws are
  /// polite (0), which is how a shrunk tape ends.
  void start_replay(std::vector<choice> entries, tape_mismatch on_mismatch = tape_mismatch::fail) {
    replay_ = std::move(entries);
    cursor_ = 0;
    mismatch_ = on_mismatch;
    replaying_ = true;
  }

  bool recording() const noexcept { return recording_; }
  bool replaying() const noexcept { return replaying_; }

  /// Notes a freshly drawn value.
  void note(choice_purpose p, std::uint64_t bound, std::uint64_t value) {
    ++choices_;
    if (value != 0) ++deviations_;
    if (recording_) entries_.push_back(choice{p, bound, value});
  }

  /// Returns the tape's next value for a draw (p, bound); @p fresh draws
  /// from the seed when the mismatch policy says so.
  template <class Fresh>
  std::uint64_t replay(choice_purpose p, std::uint64_t bound, Fresh&& fresh) {
    std::uint64_t v = 0;
    if (cursor_ < replay_.size()) {
      const choice& c = replay_[cursor_];
      if (c.purpose == p && c.bound == bound) {
        v = c.value;
        ++cursor_;
      } else {
        v = diverge(p, bound, fresh);
      }
    } else if (following_seed_) {
      v = fresh();
    }
    note(p, bound, v);
    return v;
  }

  /// Draws made so far (whatever the mode).
  std::uint64_t choices() const noexcept { return choices_; }
  /// Draws whose value was not the polite 0.
  std::uint64_t deviations() const noexcept { return deviations_; }
  /// Recorded draws (empty unless recording).
  const std::vector<choice>& entries() const noexcept { return entries_; }
  /// Position reached in the replayed tape.
  std::size_t replay_position() const noexcept { return cursor_; }
  /// True once replay left the tape because it no longer fitted.
  bool diverged() const noexcept { return diverged_; }

 private:
  template <class Fresh>
  std::uint64_t diverge(choice_purpose p, std::uint64_t bound, Fresh& fresh) {
    if (mismatch_ == tape_mismatch::fail) throw_mismatch(p, bound);
    diverged_ = true;
    cursor_ = replay_.size();  // leave the tape for good
    following_seed_ = mismatch_ == tape_mismatch::seeded;
    return following_seed_ ? fresh() : 0;
  }
  [[noreturn]] void throw_mismatch(choice_purpose p, std::uint64_t bound) const;

  std::vector<choice> entries_;
  std::vector<choice> replay_;
  std::size_t cursor_ = 0;
  std::uint64_t choices_ = 0;
  std::uint64_t deviations_ = 0;
  tape_mismatch mismatch_ = tape_mismatch::fail;
  bool recording_ = false;
  bool replaying_ = false;
  bool diverged_ = false;
  bool following_seed_ = false;
};

}  // namespace simasio

#endif  // SIMASIO_RANDOM_TAPE_HPP
