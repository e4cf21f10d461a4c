// check.cpp — seed sweeps, failure lines and replay
#include <simasio/check/check.hpp>

#include <simasio/detail/env.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <boost/core/demangle.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>
#include <exception>
#include <fstream>
#include <iterator>
#include <typeinfo>

namespace simasio {
namespace {

struct run_outcome {
  std::exception_ptr error;
  std::string what;
  std::string type;
  duration time{0};
  std::uint64_t step = 0;
  std::uint64_t trace_hash = 0;
};

run_outcome run_seed(const std::function<void(world&)>& scenario, world_options opts, std::uint64_t seed,
                     bool fail_on_stall, std::vector<trace_event>* events = nullptr) {
  opts.seed = seed;
  run_outcome out;
  world w(opts);
  struct keep_events {
    world& w;
    std::vector<trace_event>* out;
    ~keep_events() {
      if (out != nullptr) *out = w.events().events();
    }
  } keep{w, events};
  try {
    scenario(w);
    if (fail_on_stall && w.stalled())
      throw std::runtime_error("deadlock: the world stalled with work outstanding; " + w.pending_report());
  } catch (const std::exception& e) {
    out.error = std::current_exception();
    out.what = e.what();
    out.type = boost::core::demangle(typeid(e).name());
  } catch (...) {
    out.error = std::current_exception();
    out.what = "an exception not derived from std::exception";
    out.type = "unknown";
  }
  out.time = w.now();
  out.step = w.steps();
  out.trace_hash = w.trace_hash();
  return out;
}

// The command line of this process, shell-quoted, for the replay line.
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (raw.empty()) return "<the same test command>";
  std::string out;
  std::size_t start = 0;
  while (start < raw.size()) {
    std::size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    const std::string arg = raw.substr(start, end - start);
    if (!out.empty()) out += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
                                           std::string::npos;
    if (plain) {
      out += arg;
    } else {
      out += '\'';
      for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
    start = end + 1;
  }
  return out;
}

}  // namespace

namespace {

// Which seeds this process runs: SIMASIO_SEED (exactly one), else the
// options' range, thinned to this process's shard when a test runner
// shards (CTest/Bazel's TEST_* or GoogleTest's GTEST_* variables).
std::vector<std::uint64_t> seeds_to_run(check_options& options) {
  if (const auto seed = detail::env_u64("SIMASIO_SEED")) return {*seed};
  if (const auto n = detail::env_u64("SIMASIO_SEEDS")) options.seeds = *n;
  std::uint64_t index = 0, total = 1;
  const char* index_var = "TEST_SHARD_INDEX";
  const char* total_var = "TEST_TOTAL_SHARDS";
  if (!detail::env_string(total_var)) {
    index_var = "GTEST_SHARD_INDEX";
    total_var = "GTEST_TOTAL_SHARDS";
  }
  if (const auto t = detail::env_u64(total_var)) {
    total = *t;
    const auto i = detail::env_u64(index_var);
    if (!i)
      throw config_error(std::string("simasio: ") + total_var + " is set but " + index_var +
                         " is not: set both (the shard's index counts from 0)");
    index = *i;
    if (total == 0 || index >= total)
      throw config_error(std::string("simasio: ") + index_var + "=" + std::to_string(index) + " does not fit " +
                         total_var + "=" + std::to_string(total) + ": the index must be below the total");
    // Bazel's protocol: touching the status file says sharding is supported.
    if (const auto status = detail::env_string("TEST_SHARD_STATUS_FILE")) std::ofstream(*status, std::ios::app);
  }
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t i = index; i < options.seeds; i += total) seeds.push_back(options.first_seed + i);
  return seeds;
}

void apply_env(check_options& options) {
  if (const auto jobs = detail::env_u64("SIMASIO_JOBS")) {
    if (*jobs == 0 || *jobs > 1024)
      throw config_error("simasio: SIMASIO_JOBS=" + std::to_string(*jobs) + " is out of range: use 1 to 1024 worker threads");
    options.jobs = static_cast<unsigned>(*jobs);
  }
  if (const auto verify = detail::env_u64("SIMASIO_VERIFY")) {
    if (*verify > 1) throw config_error("simasio: SIMASIO_VERIFY must be 0 or 1 (run every seed twice and compare)");
    options.verify_determinism = *verify == 1;
  }
  if (options.jobs == 0) throw config_error("simasio: check_options::jobs must be at least 1");
}

// Runs a seed twice with full traces; a different trace is a failure that
// names the first event where the runs part.
run_outcome run_verified(const std::function<void(world&)>& scenario, world_options opts, std::uint64_t seed,
                         bool fail_on_stall) {
  opts.record_trace = true;
  std::vector<trace_event> first_events, second_events;
  std::uint64_t first_hash = 0;
  run_outcome first = run_seed(scenario, opts, seed, fail_on_stall, &first_events);
  first_hash = first.trace_hash;
  run_outcome second = run_seed(scenario, opts, seed, fail_on_stall, &second_events);
  if (first.error || second.trace_hash == first_hash) return first.error ? first : second;
  std::size_t i = 0;
  while (i < first_events.size() && i < second_events.size() && first_events[i] == second_events[i]) ++i;
  auto show = [](const std::vector<trace_event>& ev, std::size_t k) {
    return k < ev.size() ? describe(ev[k]) : std::string("(the run ended)");
  };
  run_outcome out = second;
  out.what = "nondeterminism: the same seed gave trace hash " + std::to_string(first_hash) + ", then " +
             std::to_string(second.trace_hash) + "; first difference at event #" + std::to_string(i) + ": " +
             show(first_events, i) + " vs " + show(second_events, i) +
             ". Something outside the seed decided: a wall clock, std::random_device, an unordered container, "
             "a pointer value, or state kept from an earlier run.";
  out.type = "simasio::nondeterminism";
  try {
    throw std::runtime_error(out.what);
  } catch (...) {
    out.error = std::current_exception();
  }
  return out;
}

}  // namespace

check_result check(std::function<void(world&)> scenario, check_options options) {
  apply_env(options);
  const std::vector<std::uint64_t> seeds = seeds_to_run(options);
  auto run_one = [&](std::uint64_t seed) {
    return options.verify_determinism ? run_verified(scenario, options.world, seed, options.fail_on_stall)
                                      : run_seed(scenario, options.world, seed, options.fail_on_stall);
  };

  // Seeds are handed out in order; a worker stops once its next seed lies
  // past the smallest failure found so far. Every seed before that failure
  // was handed out and finished, so the reported seed is the smallest
  // failing one whatever the thread timing.
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> first_failure{seeds.size()};
  std::mutex mutex;
  std::optional<run_outcome> failed;
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= seeds.size() || i > first_failure.load()) return;
      run_outcome out = run_one(seeds[i]);
      if (!out.error) continue;
      std::lock_guard<std::mutex> lock(mutex);
      if (i < first_failure.load()) {
        first_failure.store(i);
        failed = std::move(out);
      }
    }
  };
  const unsigned jobs = static_cast<unsigned>(std::min<std::size_t>(options.jobs, std::max<std::size_t>(seeds.size(), 1)));
  if (jobs <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    threads.reserve(jobs);
    for (unsigned j = 0; j < jobs; ++j) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }

  check_result result;
  if (!failed) {
    result.runs = seeds.size();
    return result;
  }
  const std::size_t index = first_failure.load();
  result.runs = index + 1;
  failure f;
  f.seed = seeds[index];
  f.what = std::move(failed->what);
  f.type = std::move(failed->type);
  f.time = failed->time;
  f.step = failed->step;
  f.replay = "SIMASIO_SEED=" + std::to_string(f.seed) + " " + command_line();
  if (options.print) {
    const std::string name = options.name.empty() ? "scenario" : options.name;
    std::fprintf(stderr, "simasio: FAILED %s seed=%llu t=%s step=%llu: %s\nsimasio: replay: %s\n", name.c_str(),
                 static_cast<unsigned long long>(f.seed), detail::format_time(f.time).c_str(),
                 static_cast<unsigned long long>(f.step), f.what.c_str(), f.replay.c_str());
    std::fflush(stderr);
  }
  result.failure = std::move(f);
  return result;
}

void replay(std::function<void(world&)> scenario, std::uint64_t seed, world_options options) {
  run_outcome out = run_seed(scenario, options, seed, false);
  if (!out.error) return;
  const std::string msg = "simasio: seed=" + std::to_string(seed) + " t=" + detail::format_time(out.time) +
                          " step=" + std::to_string(out.step) + ": " + out.what;
  try {
    std::rethrow_exception(out.error);
  } catch (...) {
    std::throw_with_nested(scenario_failure(msg, seed));
  }
}

}  // namespace simasio
