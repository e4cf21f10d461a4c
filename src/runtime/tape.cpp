// tape.cpp — the streams of a choice tape, and the message of a tape that no longer fits
#include <simasio/random/tape.hpp>

#include <simasio/detail/int128.hpp>
#include <simasio/error.hpp>

#include <algorithm>
#include <bit>
#include <cassert>
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

void choice_tape::place(std::vector<std::uint64_t>& slots, std::uint64_t value) noexcept {
  const std::size_t mask = slots.size() - 1;
  std::size_t i = slot_of(value >> 32, mask);
  while (slots[i] != 0) i = (i + 1) & mask;
  slots[i] = value;
}

void choice_tape::grow(std::vector<std::uint64_t>& slots) {
  std::vector<std::uint64_t> old(std::max<std::size_t>(64, 2 * slots.size()), 0);
  old.swap(slots);
  for (const std::uint64_t v : old)
    if (v != 0) place(slots, v);
}

std::uint32_t choice_tape::open(std::string_view key, choice_purpose p) {
  const std::uint64_t h = detail::name_hash(key);
  if (2 * (lanes_.size() + 1) > index_.size()) grow(index_);
  const std::size_t mask = index_.size() - 1;
  const auto tag = static_cast<std::uint32_t>(h);
  std::size_t i = slot_of(h, mask);
  for (; index_[i] != 0; i = (i + 1) & mask) {
    if (static_cast<std::uint32_t>(index_[i] >> 32) != tag) continue;
    const auto s = static_cast<std::uint32_t>(index_[i]) - 1;
    const lane& l = lanes_[s];
    if (l.hash == h && key_of(l) == key) return s;
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
  index_[i] = slot_value(h, s);
  if (replay_) link(lanes_.back());
  return s;
}

std::uint32_t choice_tape::open_deferred(std::uint64_t hash, choice_purpose p, key_writer write,
                                         const void* context, std::uint64_t token) {
  if (recording_ || replay_ != nullptr) {
    std::string key;
    write(context, token, key);
    assert(detail::name_hash(key) == hash);  // the caller's hash is its key's
    return open(key, p);
  }
  if (deferred_.size() >= deferred_bit)
    throw usage_error("simasio: a world opened more than 2^31 streams of draws; split the scenario into smaller worlds");
  deferred_.push_back(deferred{hash, token, write, context, p, no_source});
  return deferred_bit | static_cast<std::uint32_t>(deferred_.size() - 1);
}

void choice_tape::make_lanes() {
  std::string key;
  for (; made_ < deferred_.size(); ++made_) {
    deferred& d = deferred_[made_];
    key.clear();
    d.write(d.context, d.token, key);
    d.lane = open(key, d.purpose);
  }
}

std::string choice_tape::key(std::uint32_t s) const {
  if ((s & deferred_bit) == 0) return std::string(key_of(lanes_.at(s)));
  const deferred& d = deferred_.at(s & ~deferred_bit);
  std::string out;
  d.write(d.context, d.token, out);
  return out;
}

void choice_tape::start_replay(std::shared_ptr<const saved_tape> tape, tape_mismatch on_mismatch) {
  if (tape == nullptr)
    throw usage_error("simasio: choice_tape::start_replay was given no tape (a null pointer): pass the saved_tape "
                      "to replay, e.g. from load_tape");
  // Everything that can throw comes first, into locals: a failure leaves
  // the tape as it was, its streams still linked to the old sections.
  std::vector<source> sources;
  sources.reserve(tape->streams.size());
  for (const tape_stream& s : tape->streams) sources.push_back(source{&s.choices, 0, false});
  std::vector<std::uint64_t> sections;
  if (!tape->positional && !tape->streams.empty()) {
    sections.assign(std::bit_ceil(std::max<std::size_t>(64, 2 * tape->streams.size())), 0);
    for (std::size_t k = 0; k < tape->streams.size(); ++k) {
      const std::string_view key = tape->streams[k].key;
      const std::uint64_t h = detail::name_hash(key);
      if (find_section(sections, tape->streams, key, h) == no_source)
        place(sections, slot_value(h, static_cast<std::uint32_t>(k)));
    }
  }
  make_lanes();  // before replay_: no lane links to the old sections
  replay_ = std::move(tape);
  mismatch_ = on_mismatch;
  sources_.swap(sources);
  sections_.swap(sections);
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
  l.source = find_section(sections_, replay_->streams, key_of(l), l.hash);
}

std::uint32_t choice_tape::find_section(const std::vector<std::uint64_t>& sections,
                                        const std::vector<tape_stream>& streams, std::string_view key,
                                        std::uint64_t hash) noexcept {
  if (sections.empty()) return no_source;
  const std::size_t mask = sections.size() - 1;
  const auto tag = static_cast<std::uint32_t>(hash);
  for (std::size_t i = slot_of(hash, mask); sections[i] != 0; i = (i + 1) & mask) {
    const auto k = static_cast<std::uint32_t>(sections[i]) - 1;
    if (static_cast<std::uint32_t>(sections[i] >> 32) == tag && streams[k].key == key) return k;
  }
  return no_source;
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
