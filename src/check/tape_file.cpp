// tape_file.cpp — saving and loading choice tapes
#include <simasio/random/tape_file.hpp>

#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>

#include <fstream>
#include <set>
#include <sstream>

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
  out << "simasio-tape " << (tape.positional ? 1 : 2) << "\n# " << tape.size() << " choices";
  if (!tape.positional) out << " in " << tape.streams.size() << (tape.streams.size() == 1 ? " stream" : " streams");
  out << ", " << tape.deviations() << " deviations from the polite run\nseed " << tape.seed << "\n";
  for (const tape_stream& s : tape.streams) {
    if (tape.positional) {
      for (const choice& c : s.choices) out << to_string(c.purpose) << ' ' << c.bound << ' ' << c.value << '\n';
      continue;
    }
    out << "stream " << escape_key(s.key) << '\n';
    for (const choice& c : s.choices) out << c.bound << ' ' << c.value << '\n';
  }
  return out.str();
}

saved_tape parse_tape(std::string_view text, const std::string& source) {
  saved_tape tape;
  std::size_t n = 0;
  int version = 0;
  bool seed = false;
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
    if (version == 0) {
      std::string v, extra;
      if (first != "simasio-tape" || !(words >> v))
        fail(source, n, "not a simasio tape (it must start with 'simasio-tape 2')");
      if (words >> extra) fail(source, n, "expected 'simasio-tape <version>', found more after the version");
      if (v != "1" && v != "2") fail(source, n, "tape format version " + v + " is not supported (this simasio reads 1 and 2)");
      version = v == "1" ? 1 : 2;
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
    choice c;
    if (version == 2 && first == "stream") {
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
  }
  if (version == 0) fail(source, 0, "is empty: a tape starts with 'simasio-tape 2'");
  if (!seed) fail(source, 0, "has no 'seed' line");
  return tape;
}

void save_tape(const std::string& path, const saved_tape& tape) {
  std::ofstream out(path);
  if (!out) fail(file_source(path), 0, "cannot be written (does its directory exist?)");
  out << format_tape(tape) << "# replay with SIMASIO_TAPE=" << path << '\n';
  if (!out) fail(file_source(path), 0, "could not be written completely");
}

saved_tape load_tape(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(file_source(path), 0, "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail(file_source(path), 0, "could not be read completely");
  return parse_tape(text.str(), file_source(path));
}


}  // namespace simasio
