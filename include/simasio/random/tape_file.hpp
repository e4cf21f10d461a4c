// simasio/random/tape_file.hpp — the choice tape on disk: a small, versioned text format
#ifndef SIMASIO_RANDOM_TAPE_FILE_HPP
#define SIMASIO_RANDOM_TAPE_FILE_HPP

#include <simasio/random/tape.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simasio {

/// A tape as saved: the seed it belongs to and its draws.
///
/// Format (text, one item a line, '#' starts a comment):
/// @code
/// simasio-tape 1
/// seed 4823
/// scheduler 3 1        <- purpose bound value, value < bound
/// network 11 0
/// @endcode
/// Replaying it (SIMASIO_TAPE=file) answers each draw from the file in
/// order; draws past its end are polite (0), which is how a shrunk tape ends.
struct saved_tape {
  std::uint64_t seed = 0;
  std::vector<choice> choices;
};

/// The text of @p tape in the format above (what save_tape writes).
std::string format_tape(const saved_tape& tape);

/// Parses a tape's text, e.g. one pasted into a test. @p source names
/// where the text came from, for the message.
/// @throws tape_error naming the source, the line and the problem (unknown
/// version, malformed line, value not below its bound, no or two seeds).
saved_tape parse_tape(std::string_view text, const std::string& source = "text");

/// Writes @p tape to @p path. @throws tape_error if the file cannot be written.
void save_tape(const std::string& path, const saved_tape& tape);

/// Reads a tape file: parse_tape of its contents, naming the file.
/// @throws tape_error if it cannot be read or does not parse.
saved_tape load_tape(const std::string& path);

/// Draws that deviate from the polite choice (value != 0).
std::uint64_t deviations(const std::vector<choice>& choices) noexcept;

}  // namespace simasio

#endif  // SIMASIO_RANDOM_TAPE_FILE_HPP
