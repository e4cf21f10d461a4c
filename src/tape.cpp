// tape.cpp — names of the draw purposes, and the message of a tape that no longer fits
#include <simasio/random/tape.hpp>

#include <simasio/error.hpp>

#include <string>

namespace simasio {

const char* to_string(choice_purpose p) noexcept {
  switch (p) {
    case choice_purpose::scheduler: return "scheduler";
    case choice_purpose::network: return "network";
    case choice_purpose::user: return "user";
    case choice_purpose::buggify: return "buggify";
    case choice_purpose::disk: return "disk";
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

}  // namespace simasio
