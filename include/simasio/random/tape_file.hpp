// simasio/random/tape_file.hpp — the choice tape on disk: a small, versioned text format
#ifndef SIMASIO_RANDOM_TAPE_FILE_HPP
#define SIMASIO_RANDOM_TAPE_FILE_HPP

#include <simasio/random/tape.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simasio {

/// Tapes on disk are text, one item a line, '#' starting a comment:
/// @code
/// simasio-tape 3
/// seed 4823
/// scenario raft_election <- the scenario that drew it (check_options::name), when known
/// stream scheduler       <- a stream's section: its key, then its draws
/// 6 5                    <- bound value, value < bound
/// stream network:a->b
/// 11 0
/// end 2                  <- the draws above, all streams together: a cut tape is refused
/// @endcode
/// Replaying it (SIMASIO_TAPE=file) answers each stream's draws from its
/// section in order; draws past a section's end, and draws of streams
/// without a section, are polite (0), which is how a shrunk tape ends.
/// Keys write bytes that a line cannot hold ('#', '%', spaces, control
/// bytes) as %XX. Format 2 (format 3 without `scenario` and `end`) still
/// loads, as does format 1 (one `<purpose> <bound> <value>` line per draw,
/// every stream together), as a positional tape; neither can tell a cut
/// tape from a whole one.

/// The text of @p tape in the format above (what save_tape writes).
std::string format_tape(const saved_tape& tape);

/// Parses a tape's text, e.g. one pasted into a test. @p source names
/// where the text came from, for the message.
/// @throws tape_error naming the source, the line and the problem (unknown
/// version, malformed line, value not below its bound, no or two seeds,
/// an unknown stream family or a stream's second section).
saved_tape parse_tape(std::string_view text, const std::string& source = "text");

/// Writes @p tape to @p path. @throws tape_error if the file cannot be written.
void save_tape(const std::string& path, const saved_tape& tape);

/// Reads a tape file: parse_tape of its contents, naming the file. Only a
/// regular file is read (a directory, FIFO or device is refused by name),
/// its first line is checked before the rest is read, and a file larger
/// than max_tape_bytes is refused unread.
/// @throws tape_error if it cannot be read or does not parse.
saved_tape load_tape(const std::string& path);

/// The largest tape file load_tape reads (512 MiB: about 50 million draws).
inline constexpr std::uint64_t max_tape_bytes = 512ULL << 20;

}  // namespace simasio

#endif  // SIMASIO_RANDOM_TAPE_FILE_HPP
