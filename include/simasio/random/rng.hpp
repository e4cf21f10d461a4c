// simasio/random/rng.hpp — seeded draws: our own PRNG, range reduction and choice tape
#ifndef SIMASIO_RANDOM_RNG_HPP
#define SIMASIO_RANDOM_RNG_HPP

#include <simasio/detail/int128.hpp>
#include <simasio/random/tape.hpp>

#include <chrono>
#include <cstdint>
#include <limits>

namespace simasio {

namespace detail {

/// splitmix64's finaliser: a bijection of 64-bit values that mixes every
/// input bit into every output bit (also how a stream's seed follows from
/// its name, world_core::stream).
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// splitmix64: expands one 64-bit seed into independent xoshiro states.
constexpr std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  return mix64(state += 0x9E3779B97F4A7C15ULL);
}

constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
  return (x << k) | (x >> (64 - k));
}

/// xoshiro256**: the one generator family simasio uses (DESIGN.md §4).
class xoshiro256 {
 public:
  constexpr xoshiro256() noexcept = default;
  constexpr explicit xoshiro256(std::uint64_t seed) noexcept {
    std::uint64_t sm = seed;
    for (auto& word : s_) word = splitmix64(sm);
  }
  constexpr std::uint64_t operator()() noexcept {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 private:
  std::uint64_t s_[4]{1, 2, 3, 4};
};

}  // namespace detail

/// A stream of seeded draws for one purpose (scheduler, network, user, ...).
///
/// Every draw is a choice with a bound: its value lies in [0, bound), and the
/// value 0 is always the *polite* choice (FIFO pick, minimum latency, no
/// fault). Draws are counted and, when the world records a tape, appended to
/// it; when the world replays a tape, values come from the tape instead.
/// Streams without a tape (standalone use) just draw.
///
/// @par Determinism
/// Range reduction and float generation are simasio's own (never
/// `std::uniform_*_distribution`), so a seed means the same thing on every
/// standard library and compiler.
class rng {
 public:
  /// Creates a stream for @p p derived from @p seed; @p t may be null. On a
  /// tape it is the stream named after its purpose ("user", "network", ...).
  rng(std::uint64_t seed, choice_purpose p, choice_tape* t = nullptr)
      : rng(seed, p, t, t != nullptr ? t->open(to_string(p), p) : 0) {}

  /// Creates stream number @p stream of tape @p t (choice_tape::open).
  rng(std::uint64_t seed, choice_purpose p, choice_tape* t, std::uint32_t stream) noexcept
      : gen_(seed ^ (0xA0761D6478BD642FULL * (static_cast<std::uint64_t>(p) + 1))),
        purpose_(p),
        stream_(stream),
        tape_(t) {}

  /// A value in [0, bound); bound 0 or 1 returns 0 without drawing.
  std::uint64_t below(std::uint64_t bound) {
    if (bound <= 1) return 0;
    if (tape_ == nullptr) return reduce(bound);
    if (tape_->replaying()) return tape_->replay(stream_, bound, [this, bound] { return reduce(bound); });
    const std::uint64_t v = reduce(bound);
    tape_->note(stream_, bound, v);
    return v;
  }

  /// A value in [lo, hi] (inclusive); lo is the polite value.
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) {
    if (hi <= lo) return lo;
    const std::uint64_t span = hi - lo;
    // The full 64-bit range cannot be a bound; it loses its top value.
    return lo + below(span == std::numeric_limits<std::uint64_t>::max() ? span : span + 1);
  }

  /// A duration in [lo, hi] (inclusive), in whole nanoseconds.
  std::chrono::nanoseconds between(std::chrono::nanoseconds lo, std::chrono::nanoseconds hi) {
    if (hi <= lo) return lo;
    return lo + std::chrono::nanoseconds(static_cast<std::int64_t>(
                    below(static_cast<std::uint64_t>((hi - lo).count()) + 1)));
  }

  /// True with probability @p p; p <= 0 and p >= 1 draw nothing. The polite
  /// value (0) is "no".
  bool chance(double p) {
    if (!(p > 0.0)) return false;
    if (p >= 1.0) return true;
    constexpr std::uint64_t scale = std::uint64_t{1} << 53;
    const auto threshold = static_cast<std::uint64_t>(p * static_cast<double>(scale));
    if (threshold == 0) return false;
    return below(scale) >= scale - threshold;
  }

  /// A double in [0, 1) with 53 random bits; the polite value is 0.0.
  double uniform01() {
    constexpr std::uint64_t scale = std::uint64_t{1} << 53;
    return static_cast<double>(below(scale)) * (1.0 / static_cast<double>(scale));
  }

  /// Which purpose this stream serves.
  choice_purpose purpose() const noexcept { return purpose_; }
  /// Its stream number on its tape.
  std::uint32_t stream() const noexcept { return stream_; }

 private:
  // Lemire's multiply-and-reject: unbiased, one multiplication in the common case.
  std::uint64_t reduce(std::uint64_t bound) {
    detail::uint128 m = static_cast<detail::uint128>(gen_()) * bound;
    auto low = static_cast<std::uint64_t>(m);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<detail::uint128>(gen_()) * bound;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  detail::xoshiro256 gen_;
  choice_purpose purpose_;
  std::uint32_t stream_;
  choice_tape* tape_;
};

}  // namespace simasio

#endif  // SIMASIO_RANDOM_RNG_HPP
