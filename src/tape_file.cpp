// tape_file.cpp — saving and loading choice tapes
#include <simasio/random/tape_file.hpp>

#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>

#include <fstream>
#include <sstream>

namespace simasio {

namespace {
[[noreturn]] void fail(const std::string& path, std::size_t line, const std::string& why) {
  throw tape_error("simasio: tape file '" + path + "'" + (line ? " line " + std::to_string(line) : std::string()) +
                   ": " + why);
}

bool purpose_from(const std::string& name, choice_purpose& out) {
  for (std::size_t p = 0; p < choice_purpose_count; ++p) {
    if (name == to_string(static_cast<choice_purpose>(p))) {
      out = static_cast<choice_purpose>(p);
      return true;
    }
  }
  return false;
}
}  // namespace

void save_tape(const std::string& path, const saved_tape& tape) {
  std::ofstream out(path);
  if (!out) fail(path, 0, "cannot be written (does its directory exist?)");
  out << "simasio-tape 1\n# " << tape.choices.size() << " choices, " << deviations(tape.choices)
      << " deviations from the polite run; replay with SIMASIO_TAPE=" << path << "\nseed " << tape.seed << "\n";
  for (const choice& c : tape.choices) out << to_string(c.purpose) << ' ' << c.bound << ' ' << c.value << '\n';
  if (!out) fail(path, 0, "could not be written completely");
}

saved_tape load_tape(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, 0, "cannot be read");
  saved_tape tape;
  std::string line;
  std::size_t n = 0;
  bool header = false, seed = false;
  while (std::getline(in, line)) {
    ++n;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string first;
    if (!(words >> first)) continue;
    if (!header) {
      std::string version;
      if (first != "simasio-tape" || !(words >> version))
        fail(path, n, "not a simasio tape (it must start with 'simasio-tape 1')");
      if (version != "1") fail(path, n, "tape format version " + version + " is not supported (this simasio reads 1)");
      header = true;
      continue;
    }
    std::string a, b, extra;
    if (first == "seed") {
      if (!(words >> a) || (words >> extra)) fail(path, n, "expected 'seed <number>'");
      try {
        tape.seed = detail::parse_u64(a, "seed");
      } catch (const config_error& e) {
        fail(path, n, e.what());
      }
      seed = true;
      continue;
    }
    choice c;
    if (!purpose_from(first, c.purpose))
      fail(path, n, "unknown purpose '" + first + "' (expected scheduler, network, user or buggify)");
    if (!(words >> a >> b) || (words >> extra)) fail(path, n, "expected '<purpose> <bound> <value>'");
    try {
      c.bound = detail::parse_u64(a, "bound");
      c.value = detail::parse_u64(b, "value");
    } catch (const config_error& e) {
      fail(path, n, e.what());
    }
    if (c.value >= c.bound) fail(path, n, "value " + b + " is not below its bound " + a);
    tape.choices.push_back(c);
  }
  if (!header) fail(path, 0, "is empty: a tape starts with 'simasio-tape 1'");
  if (!seed) fail(path, 0, "has no 'seed' line");
  return tape;
}

std::uint64_t deviations(const std::vector<choice>& choices) noexcept {
  std::uint64_t n = 0;
  for (const choice& c : choices) n += c.value != 0;
  return n;
}

}  // namespace simasio
