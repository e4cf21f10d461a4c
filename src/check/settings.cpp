// settings.cpp — what a sweep reads from the environment (SIMASIO_*,
// shards of ctest, Bazel and GoogleTest) and the command line that reruns
// a seed
#include "sweep.hpp"

#include <simasio/detail/artifact_file.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>

// Defined when GoogleTest is linked into the program (weak references:
// null otherwise; Itanium C++ ABI names). GoogleTest shards its tests with
// GTEST_*; inside a running GoogleTest test simasio must then not split
// that test's sweep a second time.
extern void* simasio_googletest_instance() __asm__("_ZN7testing8UnitTest11GetInstanceEv") __attribute__((weak));
// testing::UnitTest::current_test_info() const: non-null while a test runs.
extern const void* simasio_googletest_current_test(const void* unit_test)
    __asm__("_ZNK7testing8UnitTest17current_test_infoEv") __attribute__((weak));

namespace simasio {
namespace detail {

bool googletest_running_a_test() noexcept {
  if (&::simasio_googletest_instance == nullptr || &::simasio_googletest_current_test == nullptr) return false;
  return ::simasio_googletest_current_test(::simasio_googletest_instance()) != nullptr;
}

std::optional<shard_spec> shard_pair(const char* index_var, const char* count_var) {
  const auto index_text = env_string(index_var);
  const auto count_text = env_string(count_var);
  if (!index_text && !count_text) return std::nullopt;
  if (!index_text || !count_text)
    throw config_error(std::string("simasio: ") + (count_text ? count_var : index_var) + " is set but " +
                       (count_text ? index_var : count_var) + " is not: set both (" + index_var +
                       " counts from 0 and is below " + count_var + ")");
  const std::uint64_t count = *env_in_range(count_var, 1, UINT64_MAX, "how many shards");
  const std::uint64_t index = *env_u64(index_var);
  if (index >= count)
    throw config_error(std::string("simasio: ") + index_var + "=" + std::to_string(index) + " does not fit " +
                       count_var + "=" + std::to_string(count) + ": the index counts from 0 and must be below the count");
  return shard_spec{index, count, std::string(index_var) + "/" + count_var};
}

}  // namespace detail

shard_spec shard_from_environment() {
  const auto own = detail::shard_pair("SIMASIO_SHARD_INDEX", "SIMASIO_SHARD_COUNT");
  const auto test = detail::shard_pair("TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS");
  const auto gtest = detail::shard_pair("GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS");
  // Bazel's protocol: touching the status file says sharding is supported.
  if (test)
    if (const auto status = detail::env_string("TEST_SHARD_STATUS_FILE")) std::ofstream(*status, std::ios::app);
  if (gtest && detail::googletest_running_a_test()) {
    if (own)
      throw config_error("simasio: SIMASIO_SHARD_INDEX/SIMASIO_SHARD_COUNT and GoogleTest's GTEST_SHARD_INDEX/"
                         "GTEST_TOTAL_SHARDS are both set: GoogleTest runs each test in one of its shards and "
                         "simasio would split that test's seeds again, so some seeds would run nowhere. Set one pair.");
    return shard_spec{};  // this test runs in one GoogleTest shard only: all its seeds here
  }
  std::optional<shard_spec> chosen;
  for (const auto* pair : {&own, &test, &gtest}) {
    if (!*pair) continue;
    if (!chosen) {
      chosen = **pair;
    } else if ((*pair)->index != chosen->index || (*pair)->count != chosen->count) {
      throw config_error("simasio: " + chosen->source + " say shard " + std::to_string(chosen->index) + " of " +
                         std::to_string(chosen->count) + " but " + (*pair)->source + " say " +
                         std::to_string((*pair)->index) + " of " + std::to_string((*pair)->count) +
                         ": set one pair (or give both the same values)");
    }
  }
  return chosen.value_or(shard_spec{});
}

}  // namespace simasio

namespace simasio::check_impl {

// @p path made absolute and normal (as it is when that fails), so a line
// that names it works from any directory.
std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

// One shell word: as it is when plain, else in single quotes.
std::string shell_quoted(const std::string& arg) {
  const bool plain = !arg.empty() && arg.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
                                         std::string::npos;
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string quoted_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (raw.empty()) return "<the same test command>";
  std::string out;
  std::size_t start = 0;
  while (start < raw.size()) {
    std::size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    std::string arg = raw.substr(start, end - start);
    // The program by an absolute path, so the line works from any directory
    // (a bare name was found through PATH and works as it is).
    if (start == 0 && arg.find('/') != std::string::npos) arg = absolute_path(arg);
    if (!out.empty()) out += ' ';
    out += shell_quoted(arg);
    start = end + 1;
  }
  return out;
}

// SIMASIO_SWARM=0 or 1, if set.
std::optional<bool> env_swarm() {
  const auto v = detail::env_in_range("SIMASIO_SWARM", 0, 1, "0 (the fixed fault mix) or 1 (swarm testing: a mix per seed)");
  if (!v) return std::nullopt;
  return *v == 1;
}

// SIMASIO_TAPE=file: the tape's seed, its draws from the file.
std::optional<saved_tape> env_tape(world_options& opts, std::string* absolute) {
  const auto path = detail::env_string("SIMASIO_TAPE");
  if (!path) return std::nullopt;
  saved_tape tape = load_tape(*path);
  if (absolute != nullptr) *absolute = absolute_path(*path);
  opts.replay_tape = std::make_shared<const saved_tape>(tape);
  opts.on_tape_mismatch = env_tape_mismatch().value_or(tape_mismatch::fail);
  // Its fault mix is on it: a tape with a swarm section was recorded under
  // swarm testing, and replays only under it.
  if (tape.find("swarm") != nullptr) opts.swarm = true;
  return tape;
}

std::optional<tape_mismatch> env_tape_mismatch() {
  const auto policy = detail::env_string("SIMASIO_TAPE_MISMATCH");
  if (!policy) return std::nullopt;
  if (*policy == "fail") return tape_mismatch::fail;
  if (*policy == "seeded") return tape_mismatch::seeded;
  if (*policy == "polite") return tape_mismatch::polite;
  if (*policy == "adapt") return tape_mismatch::adapt;
  throw config_error("simasio: SIMASIO_TAPE_MISMATCH='" + *policy +
                     "' is not a policy: use fail (stop with an error), seeded (continue with the seed's own "
                     "draws), polite (continue with polite draws) or adapt (keep following the tape, recorded values "
                     "clamped below the new bounds)");
}

settings read_settings(check_options& options) {
  settings out;
  detail::check_environment();  // misspelt SIMASIO_* names: a config_error, or a warning
  detail::env_log_level();  // a bad level is an error now, not in the first seed's world
  out.seed = detail::env_u64("SIMASIO_SEED");
  if (out.seed && detail::env_string("SIMASIO_TAPE"))
    throw config_error("simasio: SIMASIO_SEED and SIMASIO_TAPE are both set: a tape replays the seed it was recorded "
                       "from (its 'seed' line), so the two could disagree; unset one (SIMASIO_TAPE replays the tape, "
                       "SIMASIO_SEED runs the seed with its own draws)");
  env_tape_mismatch();  // checked whether or not a tape is given
  if (const auto first = detail::env_u64("SIMASIO_FIRST_SEED")) options.first_seed = *first;
  if (const auto t = detail::env_in_range("SIMASIO_SEED_TIMEOUT", 0, 365ULL * 24 * 3600,
                                          "seconds of wall-clock time a seed's own process may run (0: no limit)"))
    options.seed_timeout = std::chrono::seconds(*t);
  if (const auto dir = detail::env_string("SIMASIO_ARTIFACTS"); dir && dir->empty())
    throw config_error("simasio: SIMASIO_ARTIFACTS is set but empty: name the directory failure artifacts go to "
                       "(SIMASIO_ARTIFACTS=.simasio), or unset it for check_options::artifacts_dir");
  out.compare_seed = detail::env_u64("SIMASIO_COMPARE_SEED");
  if (out.compare_seed && !out.seed)
    throw config_error("simasio: SIMASIO_COMPARE_SEED is set but SIMASIO_SEED is not: it puts one seed's run beside "
                       "another's; set SIMASIO_SEED=n too (the seed to compare with)");
  if (const auto n = detail::env_in_range("SIMASIO_SEEDS", 1, UINT64_MAX, "how many seeds the sweep runs"))
    options.seeds = *n;
  if (const auto jobs = detail::env_in_range("SIMASIO_JOBS", 1, 1024, "worker threads")) {
    if (options.jobs_from_environment) options.jobs = static_cast<unsigned>(*jobs);
    out.isolated_jobs = static_cast<unsigned>(*jobs);
  }
  if (const auto iso = env_isolation()) options.isolation = *iso;
  if (const auto verify = detail::env_in_range("SIMASIO_VERIFY", 0, 1, "0 (off) or 1 (run every seed twice and compare)"))
    options.verify_determinism = *verify == 1;
  if (const auto swarm = env_swarm()) {
    options.swarm = *swarm;
    options.world.swarm = options.swarm;
  } else if (options.swarm) {
    options.world.swarm = true;
  }
  out.shard = options.shard ? *options.shard : shard_from_environment();
  out.tape = env_tape(options.world, &out.tape_path);
  if (options.jobs == 0) throw config_error("simasio: check_options::jobs must be at least 1");
  if (options.seeds == 0 && !out.seed && !out.tape)
    throw config_error("simasio: check_options::seeds is 0: the sweep would run nothing; give at least 1");
  if (options.verify_determinism && !options.world.hash_trace)
    throw config_error("simasio: verifying determinism compares trace hashes, but world_options::hash_trace is off: "
                       "turn it on (it is on by default)");
  return out;
}

// Which seeds this process runs: SIMASIO_SEED (exactly one), else the
// options' range, thinned to this process's shard.
std::vector<std::uint64_t> seeds_to_run(const check_options& options, const settings& set) {
  if (set.seed) return {*set.seed};
  const shard_spec shard = options.shard_seeds ? set.shard : shard_spec{};
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t i = shard.index; i < options.seeds; i += shard.count) {
    seeds.push_back(options.first_seed + i);
    if (options.seeds - i <= shard.count) break;  // the next step would pass the end (or wrap)
  }
  return seeds;
}

std::string artifacts_dir(const check_options& options) {
  return detail::env_string("SIMASIO_ARTIFACTS").value_or(options.artifacts_dir);
}

std::string artifact_stem(const check_options& options, const std::string& name) {
  const std::string dir = artifacts_dir(options);
  detail::make_artifact_dir(dir);
  return dir + "/" + file_stem(name);
}

std::string file_stem(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out.empty() ? "scenario" : out;
}

}  // namespace simasio::check_impl
