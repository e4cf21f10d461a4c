// tape.cpp — the streams of a choice tape, and the message of a tape that no longer fits
#include <simasio/random/tape.hpp>

#include <simasio/detail/int128.hpp>
#include <simasio/error.hpp>

#include <algorithm>
#include <string>

#include "name_hash.hpp"

namespace simasio {

const char* to_string(choice_purpose p) noexcept {
  switch (p) {
    case choice_purpose::scheduler: return "scheduler";
    case choice_purpose::network: return "network";
    case choice_purpose::user: return "user";
    case choice_purpose::buggify: return "buggify";
    case choice_purpose::disk: return "disk";
    case choice_purpose::swarm: return "swarm";
  }
  return "unknown";
}

bool purpose_of_stream(std::string_view key, choice_purpose& out) noexcept {
  const std::string_view family = key.substr(0, key.find(':'));
  for (std::size_t p = 0; p < choice_purpose_count; ++p) {
    if (family == to_string(static_cast<choice_purpose>(p))) {
      out = static_cast<choice_purpose>(p);
      return true;
    }
  }
  return false;
}

std::size_t saved_tape::size() const noexcept {
  std::size_t n = 0;
  for (const tape_stream& s : streams) n += s.choices.size();
  return n;
}

std::uint64_t saved_tape::deviations() const noexcept {
  std::uint64_t n = 0;
  for (const tape_stream& s : streams)
    for (const choice& c : s.choices) n += c.value != 0;
  return n;
}

const tape_stream* saved_tape::find(std::string_view key) const noexcept {
  for (const tape_stream& s : streams)
    if (s.key == key) return &s;
  return nullptr;
}

std::uint32_t choice_tape::open(std::string_view key, choice_purpose p) {
  const std::uint64_t h = detail::name_hash(key);
  if (2 * (lanes_.size() + 1) > index_.size()) {
    // Grow to keep at most half the slots full; place every stream again.
    index_.assign(std::max<std::size_t>(64, 2 * index_.size()), 0);
    const std::size_t mask = index_.size() - 1;
    for (std::size_t s = 0; s < lanes_.size(); ++s) {
      std::size_t i = lanes_[s].hash & mask;
      while (index_[i] != 0) i = (i + 1) & mask;
      index_[i] = static_cast<std::uint32_t>(s + 1);
    }
  }
  const std::size_t mask = index_.size() - 1;
  std::size_t i = h & mask;
  for (; index_[i] != 0; i = (i + 1) & mask) {
    const lane& l = lanes_[index_[i] - 1];
    if (l.hash == h && key_of(l) == key) return index_[i] - 1;
  }
  const auto s = static_cast<std::uint32_t>(lanes_.size());
  const std::size_t at = names_.size();
  names_.append(key);
  try {
    lanes_.push_back(lane{h, at, key.size(), p, no_source, {}});
  } catch (...) {
    names_.resize(at);  // no lane names bytes past the end
    throw;
  }
  index_[i] = s + 1;
  if (replay_) link(lanes_.back());
  return s;
}

void choice_tape::start_replay(std::shared_ptr<const saved_tape> tape, tape_mismatch on_mismatch) {
  replay_ = std::move(tape);
  mismatch_ = on_mismatch;
  sources_.clear();
  for (const tape_stream& s : replay_->streams) sources_.push_back(source{&s.choices, 0, false});
  for (lane& l : lanes_) link(l);
}

void choice_tape::start_fuzzing(std::shared_ptr<const std::vector<std::uint8_t>> bytes) {
  fuzz_ = std::move(bytes);
  fuzz_cursor_ = 0;
}

std::uint64_t choice_tape::fuzzed(std::uint32_t s, std::uint64_t bound, std::uint64_t drawn) {
  std::uint64_t v = drawn;
  const std::vector<std::uint8_t>& bytes = *fuzz_;
  if (fuzz_cursor_ < bytes.size()) {
    // The bytes as a fraction in [0, 1) of the bound: one byte resolves
    // 256 values, two resolve 65,536 (a chance() down to about 1.5e-5).
    const int width = bound <= 256 ? 1 : 2;
    std::uint64_t fraction = 0;
    for (int i = 0; i < width; ++i) {
      fraction <<= 8;
      if (fuzz_cursor_ < bytes.size()) fraction |= bytes[fuzz_cursor_++];
    }
    v = static_cast<std::uint64_t>((static_cast<detail::uint128>(fraction) * bound) >> (8 * width));
  }
  note(s, bound, v);
  return v;
}

// A positional tape's one section answers every stream; otherwise a stream
// follows the section of its own key, if the tape has one.
void choice_tape::link(lane& l) {
  l.source = no_source;
  if (replay_->positional) {
    if (!sources_.empty()) l.source = 0;
    return;
  }
  for (std::size_t i = 0; i < replay_->streams.size(); ++i) {
    if (replay_->streams[i].key == key_of(l)) {
      l.source = static_cast<std::uint32_t>(i);
      return;
    }
  }
}

saved_tape choice_tape::recorded(std::uint64_t seed) const {
  saved_tape out;
  out.seed = seed;
  for (const lane& l : lanes_)
    if (!l.drawn.empty()) out.streams.push_back(tape_stream{std::string(key_of(l)), l.drawn});
  return out;
}

void choice_tape::throw_mismatch(std::uint32_t s, std::uint64_t bound) const {
  const lane& l = lanes_[s];
  const source& from = sources_[l.source];
  const choice& c = (*from.choices)[from.cursor];
  std::string where, was, now;
  if (replay_->positional) {
    where = "choice #" + std::to_string(from.cursor);
    was = "a " + std::string(to_string(c.purpose)) + " draw below " + std::to_string(c.bound);
    now = "a " + std::string(to_string(l.purpose)) + " draw below " + std::to_string(bound) + " (stream '" +
          std::string(key_of(l)) + "')";
  } else {
    where = "draw #" + std::to_string(from.cursor) + " of stream '" + std::string(key_of(l)) + "'";
    was = "a draw below " + std::to_string(c.bound);
    now = "a draw below " + std::to_string(bound);
  }
  throw tape_error("simasio: the tape does not fit this program: " + where + " was recorded as " + was +
                   ", but the program now makes " + now +
                   ". The code changed since the tape was saved: record a new tape, or replay with "
                   "tape_mismatch::seeded (SIMASIO_TAPE_MISMATCH=seeded) to continue with the seed's own draws "
                   "from this point.");
}

}  // namespace simasio
