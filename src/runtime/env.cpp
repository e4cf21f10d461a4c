// env.cpp — strict parsing of SIMASIO_* settings: malformed is an error, never a default
#include <simasio/detail/env.hpp>

#include <simasio/error.hpp>

#include <spdlog/common.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

extern char** environ;

namespace simasio::detail {

namespace {

// The number @p text spells (decimal, or hexadecimal after 0x), or why it
// is none: "is empty", "is not a number", "is too large".
struct parsed_u64 {
  std::uint64_t value = 0;
  const char* why = nullptr;
};

parsed_u64 read_u64(std::string_view text) {
  if (text.empty()) return {0, "is empty"};
  unsigned base = 10;
  std::string_view digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  std::uint64_t value = 0;
  for (char c : digits) {
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    else return {0, "is not a number"};
    if (value > (UINT64_MAX - d) / base) return {0, "is too large"};
    value = value * base + d;
  }
  return {value, nullptr};
}

}  // namespace

std::uint64_t parse_u64(std::string_view text, std::string_view what) {
  const parsed_u64 n = read_u64(text);
  if (n.why != nullptr)
    throw config_error("simasio: " + std::string(what) + "='" + std::string(text) + "' " + n.why +
                       ": expected a whole number from 0 to 18446744073709551615, in decimal (4823) or "
                       "hexadecimal (0x12d7)");
  return n.value;
}

std::optional<std::uint64_t> seed_argument(std::string_view arg, std::string_view usage) {
  constexpr std::string_view prefix = "--simasio-seed=";
  if (arg.substr(0, prefix.size()) == prefix) return parse_u64(arg.substr(prefix.size()), "--simasio-seed");
  if (arg.substr(0, 10) == "--simasio-")
    throw config_error("simasio: unknown option '" + std::string(arg) + "': " + std::string(usage));
  return std::nullopt;
}

std::optional<std::string> env_string(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::optional<std::uint64_t> env_u64(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return parse_u64(v, name);
}

std::optional<std::uint64_t> env_in_range(const char* name, std::uint64_t lo, std::uint64_t hi,
                                          std::string_view meaning) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  const parsed_u64 n = read_u64(v);
  const char* why = n.why != nullptr ? n.why : n.value < lo || n.value > hi ? "is out of range" : nullptr;
  if (why != nullptr)
    throw config_error("simasio: " + std::string(name) + "='" + std::string(v) + "' " + why + ": expected " +
                       std::string(meaning) + ", a whole number from " + std::to_string(lo) + " to " +
                       std::to_string(hi));
  return n.value;
}

const std::string_view known_settings[] = {
    "SIMASIO_ARTIFACTS",   "SIMASIO_COMPARE_SEED", "SIMASIO_FIRST_SEED",     "SIMASIO_FUZZ_SHOW",
    "SIMASIO_IMPLICIT_WORLD", "SIMASIO_ISOLATION", "SIMASIO_JOBS",           "SIMASIO_LOG",
    "SIMASIO_PCT_HORIZON", "SIMASIO_PROGRESS",     "SIMASIO_SEED",           "SIMASIO_SEEDS",
    "SIMASIO_SEED_TIMEOUT", "SIMASIO_SHARD_COUNT", "SIMASIO_SHARD_INDEX",    "SIMASIO_SWARM",
    "SIMASIO_TAPE",        "SIMASIO_TAPE_MISMATCH", "SIMASIO_VERIFY",
};
const std::size_t known_settings_count = std::size(known_settings);

namespace {

// Edits (insertions, deletions, substitutions, swaps of neighbours) from a to b.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::pair<std::string_view, std::size_t> closest_setting(std::string_view name) {
  std::pair<std::string_view, std::size_t> best{"", SIZE_MAX};
  for (const std::string_view known : known_settings) {
    const std::size_t d = edit_distance(name, known);
    if (d < best.second) best = {known, d};
  }
  return best;
}

void check_environment() {
  std::vector<std::string> unknown;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.substr(0, 8) != "SIMASIO_") continue;
    const std::string_view name = entry.substr(0, entry.find('='));
    const auto [closest, distance] = closest_setting(name);
    if (distance == 0) continue;
    if (distance == 1)
      throw config_error("simasio: " + std::string(name) + " is not a simasio setting: did you mean " +
                         std::string(closest) + "? (the sweep would run without it; rename it, or unset it)");
    unknown.emplace_back(name);
  }
  static std::once_flag warned;
  if (unknown.empty()) return;
  std::call_once(warned, [&] {
    for (const std::string& name : unknown) {
      const auto [closest, distance] = closest_setting(name);
      std::fprintf(stderr,
                   "simasio: warning: %s is not a simasio setting%s%s%s; it is ignored "
                   "(docs/reference/environment.md lists the settings)\n",
                   name.c_str(), distance <= 3 ? " (the closest is " : "",
                   distance <= 3 ? std::string(closest).c_str() : "", distance <= 3 ? ")" : "");
    }
    std::fflush(stderr);
  });
}

std::optional<int> env_log_level() {
  const auto name = env_string("SIMASIO_LOG");
  if (!name) return std::nullopt;
  const auto level = spdlog::level::from_str(*name);
  if (level == spdlog::level::off && *name != "off")
    throw config_error("simasio: SIMASIO_LOG='" + *name +
                       "' is not a level: use trace, debug, info, warn, error, critical or off");
  return static_cast<int>(level);
}

}  // namespace simasio::detail
