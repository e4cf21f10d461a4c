// check.cpp — seed sweeps, failure lines and replay
#include <simasio/check/check.hpp>

#include <simasio/detail/env.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/log/log.hpp>
#include <simasio/random/tape_file.hpp>
#include <simasio/trace/export.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <boost/core/demangle.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
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
  std::string signature;  // what makes two failures "the same" while shrinking
  std::vector<std::string> log;  // the ring of the run's log lines, kept when it failed
  std::vector<std::pair<std::string, bool>> reached;  // world::sometimes conditions
  duration time{0};
  std::uint64_t step = 0;
  std::uint64_t trace_hash = 0;
};

run_outcome run_seed(const std::function<void(world&)>& scenario, world_options opts, std::uint64_t seed,
                     bool fail_on_stall, std::vector<trace_event>* events = nullptr,
                     std::vector<choice>* tape = nullptr, std::vector<std::string>* host_names = nullptr) {
  opts.seed = seed;
  if (tape != nullptr) opts.record_tape = true;
  run_outcome out;
  world w(opts);
  struct keep_records {
    world& w;
    std::vector<trace_event>* events;
    std::vector<choice>* tape;
    std::vector<std::string>* names;
    ~keep_records() {
      if (events != nullptr) *events = w.events().events();
      if (tape != nullptr) *tape = w.tape().entries();
      if (names != nullptr)
        for (host* h : w.hosts()) names->push_back(h->name());
    }
  } keep{w, events, tape, host_names};
  try {
    scenario(w);
    if (fail_on_stall && w.stalled())
      throw std::runtime_error("deadlock: the world stalled with work outstanding; " + w.pending_report());
  } catch (const invariant_error& e) {
    out.error = std::current_exception();
    out.what = e.what();
    out.type = "simasio::invariant_error";
    out.signature = "invariant " + e.name();  // its message names the step, which shrinking changes
  } catch (const runaway_error& e) {
    out.error = std::current_exception();
    out.what = e.what();
    out.type = "simasio::runaway_error";
    out.signature = "runaway";
  } catch (const std::exception& e) {
    out.error = std::current_exception();
    out.what = e.what();
    out.type = boost::core::demangle(typeid(e).name());
    out.signature = out.type + ": " + out.what;
  } catch (...) {
    out.error = std::current_exception();
    out.what = "an exception not derived from std::exception";
    out.type = "unknown";
    out.signature = out.type;
  }
  if (out.error) out.log = log::recent_lines(w);
  out.reached = w.reachability();
  out.time = w.now();
  out.step = w.steps();
  out.trace_hash = w.trace_hash();
  return out;
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
  if (!options.shard_seeds) {
    std::vector<std::uint64_t> all;
    for (std::uint64_t i = 0; i < options.seeds; ++i) all.push_back(options.first_seed + i);
    return all;
  }
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
  if (options.verify_determinism && !options.world.hash_trace)
    throw config_error("simasio: verifying determinism compares trace hashes, but world_options::hash_trace is off: "
                       "turn it on (it is on by default)");
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

// Minimises a failing run's choice tape toward the polite run (every draw
// 0: FIFO picks, minimum latency, no faults) while the same failure
// persists, within a budget of replays: first the shortest failing
// prefix, then zeroing deviations in halving chunks (delta debugging).
// Replays answer draws beyond the tape, or past a divergence, politely.
struct shrunk {
  std::vector<choice> tape;
  std::uint64_t original_choices = 0;
  int replays = 0;
};

std::optional<shrunk> shrink_failure(const std::function<void(world&)>& scenario, const world_options& base,
                                     std::uint64_t seed, const std::string& signature, bool fail_on_stall,
                                     int budget) {
  std::vector<choice> recorded;
  if (run_seed(scenario, base, seed, fail_on_stall, nullptr, &recorded).signature != signature)
    return std::nullopt;  // not reproducible: nothing to shrink
  shrunk result;
  result.original_choices = recorded.size();
  std::vector<choice> best = recorded;
  auto still_fails = [&](const std::vector<choice>& candidate) {
    if (result.replays >= budget) return false;
    ++result.replays;
    world_options o = base;
    o.replay_tape = std::make_shared<const std::vector<choice>>(candidate);
    o.on_tape_mismatch = tape_mismatch::polite;
    std::vector<choice> got;
    if (run_seed(scenario, o, seed, fail_on_stall, nullptr, &got).signature != signature) return false;
    // Keep what the program actually drew: later draws may have changed.
    best = std::move(got);
    return true;
  };
  // 1. The shortest failing prefix (the rest of the run polite).
  std::size_t lo = 0, hi = best.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    const std::vector<choice> saved = best;
    if (still_fails(std::vector<choice>(saved.begin(), saved.begin() + static_cast<std::ptrdiff_t>(mid)))) {
      hi = std::min(mid, best.size());
    } else {
      best = saved;
      lo = mid + 1;
    }
    if (result.replays >= budget) break;
  }
  // 2. Zero deviations, in chunks that halve.
  auto deviation_positions = [&] {
    std::vector<std::size_t> pos;
    for (std::size_t i = 0; i < best.size(); ++i)
      if (best[i].value != 0) pos.push_back(i);
    return pos;
  };
  for (std::size_t chunk = std::max<std::size_t>(deviation_positions().size() / 2, 1); chunk >= 1;) {
    bool progressed = false;
    std::vector<std::size_t> pos = deviation_positions();
    for (std::size_t start = 0; start < pos.size() && result.replays < budget; start += chunk) {
      std::vector<choice> candidate = best;
      for (std::size_t k = start; k < std::min(pos.size(), start + chunk); ++k) candidate[pos[k]].value = 0;
      const std::vector<choice> saved = best;
      if (still_fails(candidate)) {
        progressed = true;
        break;  // positions changed: start this chunk size again
      }
      best = saved;
    }
    if (result.replays >= budget) break;
    if (!progressed) {
      if (chunk == 1) break;
      chunk /= 2;
    }
  }
  // Trailing polite draws carry no information: a replay draws them politely anyway.
  while (!best.empty() && best.back().value == 0) best.pop_back();
  result.tape = std::move(best);
  return result;
}

std::string artifacts_dir(const check_options& options) {
  return detail::env_string("SIMASIO_ARTIFACTS").value_or(options.artifacts_dir);
}

std::string file_stem(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out.empty() ? "scenario" : out;
}

// SIMASIO_TAPE=file: the tape's seed, its draws from the file.
std::optional<saved_tape> env_tape(world_options& opts) {
  const auto path = detail::env_string("SIMASIO_TAPE");
  if (!path) return std::nullopt;
  saved_tape tape = load_tape(*path);
  opts.replay_tape = std::make_shared<const std::vector<choice>>(tape.choices);
  opts.on_tape_mismatch = tape_mismatch::fail;
  if (const auto policy = detail::env_string("SIMASIO_TAPE_MISMATCH")) {
    if (*policy == "fail") opts.on_tape_mismatch = tape_mismatch::fail;
    else if (*policy == "seeded") opts.on_tape_mismatch = tape_mismatch::seeded;
    else if (*policy == "polite") opts.on_tape_mismatch = tape_mismatch::polite;
    else
      throw config_error("simasio: SIMASIO_TAPE_MISMATCH='" + *policy +
                         "' is not a policy: use fail (stop with an error), seeded (continue with the seed's own "
                         "draws) or polite (continue with polite draws)");
  }
  return tape;
}

}  // namespace

check_result check(std::function<void(world&)> scenario, check_options options) {
  apply_env(options);
  if (const auto tape = env_tape(options.world)) {
    // Replaying a saved tape: exactly its seed, no shrinking.
    options.first_seed = tape->seed;
    options.seeds = 1;
    options.shrink = false;
    options.jobs = 1;
  }
  const std::vector<std::uint64_t> seeds =
      options.world.replay_tape ? std::vector<std::uint64_t>{options.first_seed} : seeds_to_run(options);
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
  std::map<std::string, std::uint64_t> reached;
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= seeds.size() || i > first_failure.load()) return;
      run_outcome out = run_one(seeds[i]);
      std::lock_guard<std::mutex> lock(mutex);
      for (const auto& [name, hit] : out.reached) reached[name] += hit ? 1 : 0;
      if (!out.error) continue;
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
  result.reached = std::move(reached);
  if (!failed) {
    result.runs = seeds.size();
    // Reachability: a declared condition no run reached fails the sweep.
    for (const auto& [name, hits] : result.reached) {
      if (hits != 0) continue;
      failure f;
      f.seed = seeds.empty() ? options.first_seed : seeds.front();
      f.what = "sometimes '" + name + "' was never reached in " + std::to_string(seeds.size()) +
               " seed(s): the sweep never explored that case (more seeds, other faults, or a bug that prevents it)";
      f.type = "simasio::unreached";
      f.replay = "SIMASIO_SEEDS=" + std::to_string(options.seeds) + " " + quoted_command_line();
      if (options.print) {
        std::fprintf(stderr, "simasio: FAILED %s: %s\nsimasio: rerun: %s\n",
                     (options.name.empty() ? std::string("scenario") : options.name).c_str(), f.what.c_str(),
                     f.replay.c_str());
        std::fflush(stderr);
      }
      result.failure = std::move(f);
      break;
    }
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
  f.replay = "SIMASIO_SEED=" + std::to_string(f.seed) + " " + quoted_command_line();
  const std::string name = options.name.empty() ? "scenario" : options.name;
  if (options.shrink && failed->type != "simasio::nondeterminism") {
    if (auto s = shrink_failure(scenario, options.world, f.seed, failed->signature, options.fail_on_stall,
                                options.shrink_budget)) {
      const std::string dir = artifacts_dir(options);
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      f.tape_path = dir + "/" + file_stem(name) + "-seed" + std::to_string(f.seed) + ".tape";
      f.shrunk_choices = s->tape.size();
      f.deviations = deviations(s->tape);
      f.original_choices = s->original_choices;
      try {
        save_tape(f.tape_path, saved_tape{f.seed, s->tape});
      } catch (const tape_error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        f.tape_path.clear();
      }
    }
  }
  f.log = std::move(failed->log);
  if (options.artifacts && failed->type != "simasio::nondeterminism") {
    // The failing seed once more, with every event recorded (replay is exact).
    world_options traced = options.world;
    traced.record_trace = true;
    std::vector<trace_event> events;
    std::vector<std::string> names;
    run_seed(scenario, traced, f.seed, options.fail_on_stall, &events, nullptr, &names);
    const std::string dir = artifacts_dir(options);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string base = dir + "/" + file_stem(name) + "-seed" + std::to_string(f.seed);
    try {
      write_json_lines(base + ".jsonl", events, names);
      write_chrome_trace(base + ".json", events, names);
      write_html_diagram(base + ".html", name + " seed " + std::to_string(f.seed) + ": " + f.what, events, names);
      f.trace_path = base;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
    }
  }
  if (options.print) {
    std::fputs(failure_report(f, name).c_str(), stderr);
    std::fflush(stderr);
  }
  result.failure = std::move(f);
  return result;
}

std::string failure_report(const failure& f, const std::string& name) {
  std::string out = "simasio: FAILED " + name + " seed=" + std::to_string(f.seed) + " t=" + detail::format_time(f.time) +
                    " step=" + std::to_string(f.step) + ": " + f.what + "\nsimasio: replay: " + f.replay + "\n";
  if (!f.tape_path.empty())
    out += "simasio: shrunk: " + std::to_string(f.original_choices) + " choices -> " + std::to_string(f.deviations) +
           " deviations; tape: " + f.tape_path + "\n";
  if (!f.trace_path.empty())
    out += "simasio: trace: " + f.trace_path + ".json (Perfetto/Chrome) and " + f.trace_path + ".html (and .jsonl)\n";
  if (!f.log.empty()) {
    out += "simasio: log of seed " + std::to_string(f.seed) + " (last " + std::to_string(f.log.size()) + " lines):\n";
    for (const std::string& line : f.log) out += "  " + line;
  }
  return out;
}

std::string command_line() { return quoted_command_line(); }

void replay(std::function<void(world&)> scenario, std::uint64_t seed, world_options options) {
  if (const auto tape = env_tape(options)) seed = tape->seed;
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
