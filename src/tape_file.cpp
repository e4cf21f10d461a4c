// tape_file.cpp — saving and loading choice tapes
#include <simasio/random/tape_file.hpp>

#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>

#include <fstream>
#include <sstream>

namespace simasio {

namespace {
[[noreturn]] void fail(const std::string& source, std::size_t line, const std::string& why) {
  throw tape_error("simasio: tape " + source + (line ? " line " + std::to_string(line) : std::string()) + ": " + why);
}

std::string file_source(const std::string& path) { return "file '" + path + "'"; }

bool purpose_from(const std::string& name, choice_purpose& out) {
  for (std::size_t p = 0; p < choice_purpose_count; ++p) {
    if (name == to_string(static_cast<choice_purpose>(p))) {
      out = static_cast<choice_purpose>(p);
      return true;
    }
  }
  return false;
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
}  // namespace

std::string format_tape(const saved_tape& tape) {
  std::ostringstream out;
  out << "simasio-tape 1\n# " << tape.choices.size() << " choices, " << deviations(tape.choices)
      << " deviations from the polite run\nseed " << tape.seed << "\n";
  for (const choice& c : tape.choices) out << to_string(c.purpose) << ' ' << c.bound << ' ' << c.value << '\n';
  return out.str();
}

saved_tape parse_tape(std::string_view text, const std::string& source) {
  saved_tape tape;
  std::size_t n = 0;
  bool header = false, seed = false;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string line(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++n;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string first;
    if (!(words >> first)) continue;
    if (!header) {
      std::string version, extra;
      if (first != "simasio-tape" || !(words >> version))
        fail(source, n, "not a simasio tape (it must start with 'simasio-tape 1')");
      if (words >> extra) fail(source, n, "expected 'simasio-tape <version>', found more after the version");
      if (version != "1") fail(source, n, "tape format version " + version + " is not supported (this simasio reads 1)");
      header = true;
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
    if (!purpose_from(first, c.purpose))
      fail(source, n, "unknown purpose '" + first + "' (expected scheduler, network, user or buggify)");
    if (!(words >> a >> b) || (words >> extra)) fail(source, n, "expected '<purpose> <bound> <value>'");
    c.bound = number(source, n, a, "bound");
    c.value = number(source, n, b, "value");
    if (c.value >= c.bound) fail(source, n, "value " + b + " is not below its bound " + a);
    tape.choices.push_back(c);
  }
  if (!header) fail(source, 0, "is empty: a tape starts with 'simasio-tape 1'");
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

std::uint64_t deviations(const std::vector<choice>& choices) noexcept {
  std::uint64_t n = 0;
  for (const choice& c : choices) n += c.value != 0;
  return n;
}

}  // namespace simasio
