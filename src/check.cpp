// check.cpp — seed sweeps, failure lines and replay
#include <simasio/check/check.hpp>

#include <simasio/detail/env.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <boost/core/demangle.hpp>

#include <cstdio>
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
                     bool fail_on_stall) {
  opts.seed = seed;
  run_outcome out;
  world w(opts);
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

check_result check(std::function<void(world&)> scenario, check_options options) {
  if (const auto seed = detail::env_u64("SIMASIO_SEED")) {
    options.first_seed = *seed;
    options.seeds = 1;
  } else if (const auto n = detail::env_u64("SIMASIO_SEEDS")) {
    options.seeds = *n;
  }
  check_result result;
  for (std::uint64_t i = 0; i < options.seeds; ++i) {
    const std::uint64_t seed = options.first_seed + i;
    run_outcome out = run_seed(scenario, options.world, seed, options.fail_on_stall);
    ++result.runs;
    if (!out.error) continue;
    failure f;
    f.seed = seed;
    f.what = std::move(out.what);
    f.type = std::move(out.type);
    f.time = out.time;
    f.step = out.step;
    f.replay = "SIMASIO_SEED=" + std::to_string(seed) + " " + command_line();
    if (options.print) {
      const std::string name = options.name.empty() ? "scenario" : options.name;
      std::fprintf(stderr, "simasio: FAILED %s seed=%llu t=%s step=%llu: %s\nsimasio: replay: %s\n", name.c_str(),
                   static_cast<unsigned long long>(seed), detail::format_time(f.time).c_str(),
                   static_cast<unsigned long long>(f.step), f.what.c_str(), f.replay.c_str());
      std::fflush(stderr);
    }
    result.failure = std::move(f);
    break;
  }
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
