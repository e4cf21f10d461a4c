// tape_file.cpp — saving and loading choice tapes
#include <simasio/random/tape_file.hpp>

#include <simasio/detail/artifact_file.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>

#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace simasio {

namespace {
[[noreturn]] void fail(const std::string& source, std::size_t line, const std::string& why) {
  throw tape_error("simasio: tape " + source + (line ? " line " + std::to_string(line) : std::string()) + ": " + why);
}

std::string file_source(const std::string& path) { return "file '" + path + "'"; }

// A format-1 purpose: exactly a family's name ("network"), no key after it.
bool purpose_from(const std::string& name, choice_purpose& out) {
  return name.find(':') == std::string::npos && purpose_of_stream(name, out);
}

std::uint64_t number(const std::string& source, std::size_t line, const std::string& text, const char* what) {
  try {
    return detail::parse_u64(text, what);
  } catch (const config_error& e) {
    std::string why = e.what();
    constexpr std::string_view prefix = "simasio: ";
    if (why.compare(0, prefix.size(), prefix) == 0) why.erase(0, prefix.size());
    fail(source, line, why);
  }
}

// Stream keys hold host names and user names: bytes a line cannot carry
// as they are ('#', spaces, control bytes, '%') are written as %XX.
std::string escape_key(const std::string& key) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : key) {
    const auto u = static_cast<unsigned char>(ch);
    if (u <= 0x20 || u >= 0x7f || ch == '#' || ch == '%') {
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

std::string unescape_key(const std::string& source, std::size_t line, const std::string& text) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size() || digit(text[i + 1]) < 0 || digit(text[i + 2]) < 0)
      fail(source, line, "stream key '" + text + "' has a '%' not followed by two hex digits");
    out += static_cast<char>(digit(text[i + 1]) * 16 + digit(text[i + 2]));
    i += 2;
  }
  return out;
}
}  // namespace

std::string format_tape(const saved_tape& tape) {
  if (tape.positional && tape.streams.size() > 1)
    fail("in memory", 0, "a positional (format 1) tape has one section, this one has " +
                             std::to_string(tape.streams.size()));
  for (const tape_stream& s : tape.streams) {
    choice_purpose p{};
    if (!tape.positional && !purpose_of_stream(s.key, p))
      fail("in memory", 0, "stream '" + s.key + "' is of no known family (scheduler, network, user, buggify, disk or swarm)");
  }
  std::ostringstream out;
  out << "simasio-tape " << (tape.positional ? 1 : 3) << "\n# " << tape.size() << " choices";
  if (!tape.positional) out << " in " << tape.streams.size() << (tape.streams.size() == 1 ? " stream" : " streams");
  out << ", " << tape.deviations() << " deviations from the polite run\nseed " << tape.seed << "\n";
  if (!tape.positional && !tape.scenario.empty()) out << "scenario " << escape_key(tape.scenario) << "\n";
  for (const tape_stream& s : tape.streams) {
    if (tape.positional) {
      for (const choice& c : s.choices) out << to_string(c.purpose) << ' ' << c.bound << ' ' << c.value << '\n';
      continue;
    }
    out << "stream " << escape_key(s.key) << '\n';
    for (const choice& c : s.choices) out << c.bound << ' ' << c.value << '\n';
  }
  if (!tape.positional) out << "end " << tape.size() << "\n";
  return out.str();
}

saved_tape parse_tape(std::string_view text, const std::string& source) {
  saved_tape tape;
  std::size_t n = 0;
  int version = 0;
  bool seed = false;
  bool ended = false;
  std::uint64_t draws = 0;
  std::set<std::string> keys;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string line(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++n;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string first;
    if (!(words >> first)) continue;
    if (ended) fail(source, n, "'" + first + "' after the 'end' line (a tape ends there)");
    if (version == 0) {
      std::string v, extra;
      if (first != "simasio-tape" || !(words >> v))
        fail(source, n, "not a simasio tape (it must start with 'simasio-tape 3')");
      if (words >> extra) fail(source, n, "expected 'simasio-tape <version>', found more after the version");
      if (v != "1" && v != "2" && v != "3")
        fail(source, n, "tape format version " + v + " is not supported (this simasio reads 1, 2 and 3)");
      version = v[0] - '0';
      tape.positional = version == 1;
      if (tape.positional) tape.streams.push_back(tape_stream{});
      continue;
    }
    std::string a, b, extra;
    if (first == "seed") {
      if (!(words >> a) || (words >> extra)) fail(source, n, "expected 'seed <number>'");
      if (seed) fail(source, n, "a second 'seed' line (a tape belongs to one seed)");
      tape.seed = number(source, n, a, "seed");
      seed = true;
      continue;
    }
    if (version == 3 && first == "scenario") {
      if (!(words >> a) || (words >> extra)) fail(source, n, "expected 'scenario <name>'");
      if (!tape.scenario.empty()) fail(source, n, "a second 'scenario' line (a tape belongs to one scenario)");
      tape.scenario = unescape_key(source, n, a);
      continue;
    }
    if (version == 3 && first == "end") {
      if (!(words >> a) || (words >> extra)) fail(source, n, "expected 'end <draws>'");
      const std::uint64_t said = number(source, n, a, "end");
      if (said != draws)
        fail(source, n, "the 'end' line counts " + a + " draws, but the tape holds " + std::to_string(draws) +
                            ": it was changed by hand or pieced together");
      ended = true;
      continue;
    }
    choice c;
    if (version >= 2 && first == "stream") {
      if (!(words >> a) || (words >> extra)) fail(source, n, "expected 'stream <key>'");
      std::string key = unescape_key(source, n, a);
      if (!purpose_of_stream(key, c.purpose))
        fail(source, n, "stream '" + a + "' is of no known family (scheduler, network, user, buggify, disk or swarm)");
      if (!keys.insert(key).second) fail(source, n, "a second section for stream '" + a + "'");
      tape.streams.push_back(tape_stream{std::move(key), {}});
      continue;
    }
    if (version == 1) {
      if (!purpose_from(first, c.purpose))
        fail(source, n, "unknown purpose '" + first + "' (expected scheduler, network, user, buggify, disk or swarm)");
      if (!(words >> a >> b) || (words >> extra)) fail(source, n, "expected '<purpose> <bound> <value>'");
    } else {
      if (tape.streams.empty()) fail(source, n, "a draw before any 'stream <key>' line");
      purpose_of_stream(tape.streams.back().key, c.purpose);
      a = first;
      if (!(words >> b) || (words >> extra)) fail(source, n, "expected '<bound> <value>' or 'stream <key>'");
    }
    c.bound = number(source, n, a, "bound");
    c.value = number(source, n, b, "value");
    if (c.value >= c.bound) fail(source, n, "value " + b + " is not below its bound " + a);
    tape.streams.back().choices.push_back(c);
    ++draws;
  }
  if (version == 0) fail(source, 0, "is empty: a tape starts with 'simasio-tape 3'");
  if (!seed) fail(source, 0, "has no 'seed' line");
  if (version == 3 && !ended)
    fail(source, 0, "has no 'end' line after its " + std::to_string(draws) +
                        " draws: it was cut short (a full disk, a copy that stopped), so the draws that made the "
                        "failure may be missing; save it again (rerun the seed)");
  return tape;
}

void save_tape(const std::string& path, const saved_tape& tape) {
  try {
    detail::write_artifact(path, format_tape(tape) + "# replay with SIMASIO_TAPE=" + path + "\n");
  } catch (const artifact_error& e) {
    throw tape_error(e.what());
  }
}

namespace {

// What kind of file a stat says, for a message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Whether @p head (a file's first bytes) starts like a tape: blank and
// comment lines, then "simasio-tape".
bool looks_like_a_tape(std::string_view head) {
  while (!head.empty()) {
    const std::size_t start = head.find_first_not_of(" \t\n\v\f\r");  // isspace, as the parser skips
    if (start == std::string_view::npos) return true;  // all blank so far: let the parser say
    head.remove_prefix(start);
    if (head[0] != '#') {
      constexpr std::string_view magic = "simasio-tape";
      return head.substr(0, magic.size()) == magic.substr(0, std::min(head.size(), magic.size()));
    }
    const std::size_t end = head.find('\n');
    if (end == std::string_view::npos) return true;  // a long comment: let the parser say
    head.remove_prefix(end + 1);
  }
  return true;
}

}  // namespace

saved_tape load_tape(const std::string& path) {
  const std::string source = file_source(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail(source, 0, std::string("cannot be read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    fail(source, 0, std::string("is ") + kind_of(st.st_mode) + ", not a tape file: SIMASIO_TAPE names the file a "
                    "failure's 'shrunk:' line printed");
  if (static_cast<std::uint64_t>(st.st_size) > max_tape_bytes)
    fail(source, 0, "is " + std::to_string(st.st_size) + " bytes, more than any tape holds (at most " +
                        std::to_string(max_tape_bytes >> 20) + " MiB): not a simasio tape");
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(source, 0, std::string("cannot be read: ") + std::strerror(errno));
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[65536];
  bool checked = false;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      fail(source, 0, std::string("could not be read completely: ") + std::strerror(e));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_tape_bytes) {
      ::close(fd);
      fail(source, 0,
           "grew past " + std::to_string(max_tape_bytes >> 20) + " MiB while it was read: not a simasio tape");
    }
    if (!checked) {
      if (!looks_like_a_tape(text)) {
        ::close(fd);
        fail(source, 1, "not a simasio tape (it must start with 'simasio-tape 3')");
      }
      checked = text.size() >= 64;
    }
  }
  ::close(fd);
  return parse_tape(text, source);
}


}  // namespace simasio
