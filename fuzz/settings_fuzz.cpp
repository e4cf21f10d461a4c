// settings_fuzz.cpp — SIMASIO_* variables, sharding variables and the
// --simasio-seed argument, read by check()
//
// Each input line sets one setting: its first byte modulo 22 picks which
// (the variables below in order, then a command-line argument, then the
// text of a SIMASIO_TAPE file with '\' for line breaks), the rest is the
// value. Properties:
//  - parse_u64 agrees with std::from_chars (decimal, or hex after 0x);
//  - check() either sweeps, or throws a config_error/tape_error whose
//    message names a setting that was given;
//  - the scenario cannot fail, so a sweep fails only for a replayed tape
//    that does not fit;
//  - SIMASIO_SEED=N, when it parses, runs seed N and no other;
//  - a sweep that returns ran at least one seed, unless a shard pair gave
//    this process no share (SIMASIO_SEEDS=0 is an error, never a pass);
//  - an error about SIMASIO_JOBS or SIMASIO_VERIFY ends with their own
//    range, not the 64-bit one.
#include "fuzz_support.hpp"

#include <simasio/detail/env.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

using simasio_fuzz::broken;

constexpr const char* variables[] = {
    "SIMASIO_SEED",      "SIMASIO_SEEDS",    "SIMASIO_JOBS",       "SIMASIO_VERIFY",    "SIMASIO_LOG",
    "SIMASIO_TAPE_MISMATCH", "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX",
    "SIMASIO_SHARD_INDEX", "SIMASIO_SHARD_COUNT", "SIMASIO_SWARM", "SIMASIO_ISOLATION", "SIMASIO_ARTIFACTS",
    "SIMASIO_PCT_HORIZON", "SIMASIO_COMPARE_SEED", "SIMASIO_PROGRESS", "SIMASIO_FIRST_SEED", "SIMASIO_SEED_TIMEOUT",
};
// Values checked against parse_u64's reference (the numeric ones above).
bool numeric(std::string_view v) {
  for (std::string_view n : {"SIMASIO_SEED", "SIMASIO_SEEDS", "SIMASIO_JOBS", "SIMASIO_VERIFY", "TEST_TOTAL_SHARDS",
                             "TEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "SIMASIO_SHARD_INDEX",
                             "SIMASIO_SHARD_COUNT", "SIMASIO_SWARM", "SIMASIO_COMPARE_SEED", "SIMASIO_FIRST_SEED",
                             "SIMASIO_SEED_TIMEOUT", "SIMASIO_PCT_HORIZON"})
    if (v == n) return true;
  return false;
}
constexpr std::size_t variable_count = std::size(variables);
// Two more choices: a command-line argument, and the text of a tape file
// for SIMASIO_TAPE (with '\' standing for a line break).
constexpr std::size_t argument_choice = variable_count;
constexpr std::size_t tape_choice = variable_count + 1;

// What parse_u64 must accept: whole decimal, or hexadecimal after a 0x/0X
// prefix that leaves at least one digit.
std::optional<std::uint64_t> reference_u64(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty() || s[0] == '-' || s[0] == '+') return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

void agree(const std::string& text) {
  const auto want = reference_u64(text);
  try {
    const std::uint64_t got = simasio::detail::parse_u64(text, "X");
    if (!want || *want != got) broken("parse_u64 accepted '" + text + "' as " + std::to_string(got));
  } catch (const simasio::config_error& e) {
    if (want) broken("parse_u64 refused '" + text + "': " + e.what());
    if (std::string_view(e.what()).find("X='") == std::string_view::npos) broken("message: " + std::string(e.what()));
  }
}

// Where SIMASIO_ARTIFACTS points when an input sets it to something (a
// fuzzer's text never names a real directory): under this process's own.
std::string artifacts_under(const std::string& value) {
  if (value.empty()) return value;  // empty: check() must refuse it
  std::string name;
  for (char c : value) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return "/tmp/simasio_settings_fuzz_" + std::to_string(::getpid()) + "_artifacts/" + name.substr(0, 32);
}

// The SIMASIO_TAPE file of this process, removed when it exits.
const std::string& tape_path() {
  static const simasio_fuzz::temp_file f("settings_fuzz");
  return f.path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const char* v : variables) ::unsetenv(v);
  ::setenv("SIMASIO_SEED_TIMEOUT", "60", 1);  // unless the input says otherwise: an isolated seed may not hang it
  ::setenv("SIMASIO_ARTIFACTS", artifacts_under("default").c_str(), 1);  // a compare page goes there
  ::unsetenv("SIMASIO_TAPE");
  ::unsetenv("TEST_SHARD_STATUS_FILE");
  std::vector<std::string> given;  // names that may appear in a message
  std::vector<std::string> arguments;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  while (!in.empty()) {
    const std::size_t end = in.find('\n');
    std::string_view line = in.substr(0, end);
    in.remove_prefix(end == std::string_view::npos ? in.size() : end + 1);
    if (line.empty()) continue;
    const std::size_t which = static_cast<unsigned char>(line[0]) % (variable_count + 2);
    // An environment value ends at its first NUL.
    std::string value(line.substr(1));
    value = value.substr(0, value.find('\0'));
    if (which == argument_choice) {
      arguments.push_back(value);
    } else if (which == tape_choice) {
      for (char& c : value)
        if (c == '\\') c = '\n';
      std::ofstream(tape_path(), std::ios::binary | std::ios::trunc) << value;
      ::setenv("SIMASIO_TAPE", tape_path().c_str(), 1);
      given.push_back("SIMASIO_TAPE");
    } else {
      const std::string_view name = variables[which];
      if (name == "SIMASIO_ARTIFACTS") value = artifacts_under(value);
      ::setenv(variables[which], value.c_str(), 1);
      given.push_back(variables[which]);
      if (numeric(name)) agree(value);
    }
  }
  // Keep a run short: a sweep of thousands of seeds or threads is valid
  // but only costs time here.
  for (const auto& [v, most] : {std::pair{"SIMASIO_SEEDS", 64u}, std::pair{"SIMASIO_JOBS", 3u},
                                std::pair{"SIMASIO_PCT_HORIZON", 100000u}}) {
    const char* text = std::getenv(v);
    const auto n = text != nullptr ? reference_u64(text) : std::nullopt;
    if (n && *n > most) return 0;
  }

  std::optional<std::uint64_t> seed_arg;
  try {
    for (const std::string& a : arguments)
      if (const auto s = simasio::detail::seed_argument(a, "the fuzz target understands --simasio-seed=N")) seed_arg = s;
  } catch (const simasio::config_error& e) {
    if (std::string_view(e.what()).find("--simasio-") == std::string_view::npos)
      broken("argument message: " + std::string(e.what()));
  }

  simasio::check_options opts;
  opts.seeds = 3;
  opts.print = false;
  opts.shrink = false;
  opts.artifacts = false;
  if (seed_arg) {
    opts.first_seed = *seed_arg;
    opts.seeds = 1;
  }
  std::mutex seen_mutex;
  std::vector<std::uint64_t> seen;  // the seeds that ran
  auto scenario = [&](simasio::world& w) {
    {
      std::lock_guard lock(seen_mutex);
      seen.push_back(w.seed());
    }
    simasio_fuzz::small_scenario(w);
  };
  try {
    const simasio::check_result r = simasio::check(scenario, opts);
    // The scenario cannot fail: only a replayed tape that does not fit may.
    if (r.failure && r.failure->what.find("does not fit this program") == std::string::npos)
      broken("the sweep failed: " + r.failure->what);
    const char* seed = std::getenv("SIMASIO_SEED");
    const auto n = seed != nullptr ? reference_u64(seed) : std::nullopt;
    if (n && std::getenv("SIMASIO_TAPE") == nullptr &&
        std::any_of(seen.begin(), seen.end(), [&](std::uint64_t s) { return s != *n; }))
      broken("SIMASIO_SEED=" + std::string(seed) + " ran another seed");
    const bool sharded = std::any_of(given.begin(), given.end(), [](const std::string& g) {
      return g.find("SHARD") != std::string::npos;
    });
    if (seen.empty() && !sharded) broken("the sweep passed without running a seed");
  } catch (const simasio::config_error& e) {
    const std::string_view what = e.what();
    // (The quoted value may hold any text: the message's end says the range.)
    auto ends_with = [&](std::string_view tail) {
      return what.size() >= tail.size() && what.substr(what.size() - tail.size()) == tail;
    };
    if ((what.rfind("simasio: SIMASIO_JOBS=", 0) == 0 && !ends_with("a whole number from 1 to 1024")) ||
        (what.rfind("simasio: SIMASIO_VERIFY=", 0) == 0 && !ends_with("a whole number from 0 to 1")))
      broken("a JOBS/VERIFY error does not end with its own range: " + std::string(what));
    // The message names a given setting: its name, then not more of a name.
    bool named = false;
    for (const std::string& g : given)
      for (auto at = what.find(g); at != std::string_view::npos && !named; at = what.find(g, at + 1)) {
        const char next = at + g.size() < what.size() ? what[at + g.size()] : ' ';
        named = !(std::isupper(static_cast<unsigned char>(next)) || next == '_');
      }
    if (!named) broken("config_error names no given setting: " + std::string(e.what()));
  } catch (const simasio::tape_error& e) {
    if (std::string_view(e.what()).find(tape_path()) == std::string_view::npos &&
        std::string_view(e.what()).find("does not fit") == std::string_view::npos)
      broken("tape_error names neither the file nor the mismatch: " + std::string(e.what()));
  }
  return 0;
}
