// fuzz.cpp — fuzzer-guided exploration: a fuzzer's input as a seed and a
// tape of draws, its failure recorded, shrunk and reported as check()'s
#include <simasio/check/fuzz.hpp>

#include "sweep.hpp"

#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>

#include "../runtime/name_hash.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace simasio {

using check_impl::absolute_path;
using check_impl::artifact_stem;
using check_impl::check_with;
using check_impl::env_isolation;
using check_impl::env_swarm;
using check_impl::quoted_command_line;
using check_impl::read_settings;
using check_impl::run_outcome;
using check_impl::run_request;
using check_impl::seed_runner;
using check_impl::settings;
using check_impl::shell_quoted;

std::uint64_t fuzz_seed(const std::uint8_t* data, std::size_t size) noexcept {
  std::uint64_t seed = 0;
  for (std::size_t i = 0; i < 8 && i < size; ++i) seed |= std::uint64_t{data[i]} << (8 * i);
  return seed;
}

namespace {

check_options check_options_of(const fuzz_options& f, const world_options& world) {
  check_options c;
  c.name = f.name.empty() ? "scenario" : f.name;
  c.world = world;
  c.swarm = world.swarm;
  c.fail_on_stall = f.fail_on_stall;
  c.shrink = f.shrink;
  c.shrink_budget = f.shrink_budget;
  c.artifacts_dir = f.artifacts_dir;
  c.print = f.print;
  c.progress = false;  // one input at a time: the fuzzer reports its own progress
  c.jobs = 1;
  c.jobs_from_environment = false;
  c.shard_seeds = false;
  c.isolation = f.isolation;
  return c;
}

world_options fuzz_world(const fuzz_options& f) {
  world_options o = f.world;
  o.swarm = env_swarm().value_or(f.swarm || f.world.swarm);
  o.replay_tape.reset();
  o.fuzz_input.reset();
  return o;
}

}  // namespace

std::optional<failure> fuzz_run(const std::uint8_t* data, std::size_t size,
                                const std::function<void(world&)>& scenario, const fuzz_options& options) {
  world_options o = fuzz_world(options);
  const std::uint64_t seed = fuzz_seed(data, size);
  if (size > 8) o.fuzz_input = std::make_shared<const std::vector<std::uint8_t>>(data + 8, data + size);
  // The input's run is in this process, where the fuzzer sees its coverage,
  // unless isolation is on; what follows a failure is isolated as check()'s runs are.
  seed_runner input_runner(scenario, options.isolation == isolation::on ? isolation::on : isolation::off);
  const run_outcome out = input_runner.run(run_request{o, seed, options.fail_on_stall});
  if (!out.error) return std::nullopt;
  // The run once more, recorded: its draws are a tape that replays it
  // without the input (and without the fuzzer).
  seed_runner runner(scenario, env_isolation().value_or(options.isolation));
  run_request recorded{o, seed, options.fail_on_stall};
  recorded.tape = true;
  run_outcome again = runner.run(recorded);
  saved_tape tape = std::move(again.tape);
  check_options c = check_options_of(options, o);
  // The failures fuzz_run words itself (check_with prints the ones it finds).
  auto reported = [&c](failure f) {
    if (c.print) {
      std::fputs(failure_report(f, c.name).c_str(), stderr);
      std::fflush(stderr);
    }
    return std::optional<failure>(std::move(f));
  };
  if (again.signature != out.signature) {
    failure f;
    f.seed = seed;
    f.type = "simasio::nondeterminism";
    f.what = "nondeterminism: this input failed (" + out.what + ") and then " +
             (again.error ? "failed otherwise (" + again.what + ")" : std::string("passed")) +
             " when it ran again: something outside the input decided (a wall clock, std::random_device, an "
             "unordered container, or state kept from an earlier run: a fuzzer runs every input in one process)";
    f.replay = "(none: the run does not repeat) " + quoted_command_line();
    f.time = out.time;
    f.step = out.step;
    return reported(std::move(f));
  }
  std::uint64_t h = detail::name_hash(std::string_view(reinterpret_cast<const char*>(data), size));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  settings set;
  set.reachability = false;  // one run: a condition it did not reach says nothing
  try {
    set.tape_path = absolute_path(artifact_stem(c, c.name) + "-fuzz-" + hex + ".tape");
    save_tape(set.tape_path, tape);
  } catch (const std::exception& e) {
    // No tape to replay: report the input's failure as it is.
    failure f;
    f.seed = seed;
    f.what = out.what;
    f.type = out.type;
    f.signature = out.signature;
    f.time = out.time;
    f.step = out.step;
    f.log = out.log;
    f.faults = out.faults;
    f.replay = "(rerun the input) " + quoted_command_line();
    f.not_shrunk = e.what();
    return reported(std::move(f));
  }
  c.world.replay_tape = std::make_shared<const saved_tape>(tape);
  c.world.on_tape_mismatch = tape_mismatch::fail;
  c.world.fuzz_input.reset();
  set.tape = std::move(tape);
  set.shrink_tape = true;
  check_result r = check_with(scenario, c, set);
  if (r.failure) return std::move(r.failure);
  // The tape holds every draw the input's run made: its replay must fail too.
  failure f;
  f.seed = seed;
  f.type = "simasio::nondeterminism";
  f.what = "nondeterminism: this input failed (" + out.what + ") but the tape of its draws (" + set.tape_path +
           ") passes: something outside the draws decided";
  f.replay = "SIMASIO_TAPE=" + shell_quoted(set.tape_path) + " " + quoted_command_line();
  return reported(std::move(f));
}

int fuzz_one_input(const std::uint8_t* data, std::size_t size, const std::function<void(world&)>& scenario,
                   const fuzz_options& options) {
  // libFuzzer probes every target with an empty input first, whatever the
  // corpus: running it would make seed 0 every fuzzing run's first.
  if (size == 0) return 0;
  static std::atomic<std::uint64_t> executions{0};
  const std::uint64_t n = ++executions;
  const std::optional<failure> f = fuzz_run(data, size, scenario, options);
  if (!f) return 0;
  std::fprintf(stderr,
               "simasio: fuzz: %s failed at execution %llu of this process; replay the run with the line above "
               "(libFuzzer keeps the input as a crash file)\n",
               options.name.empty() ? "scenario" : options.name.c_str(), static_cast<unsigned long long>(n));
  std::fflush(stderr);
  std::abort();
}

int fuzz_initialize(const std::function<void(world&)>& scenario, const fuzz_options& options) {
  if (!detail::env_string("SIMASIO_TAPE")) return 0;
  check_options c = check_options_of(options, fuzz_world(options));
  settings set = read_settings(c);
  set.reachability = false;  // one run: a condition it did not reach says nothing
  const check_result r = check_with(scenario, c, set);
  if (r.ok()) std::fprintf(stderr, "simasio: the tape's run passes\n");
  std::fflush(stderr);
  std::exit(r.ok() ? 0 : 1);
}

}  // namespace simasio
