// 12_replicated_register — a primary-backup register whose reads go to the backup: a stale read under a partition, found by the linearizability checker.
//
// The primary (host "primary") holds an integer register. A write goes to
// the primary, which applies it, answers "ok" and forwards it to the backup
// (host "backup") without waiting. Reads are the planted bug: to spread the
// load they are served by the backup, which lags behind whenever a
// forwarded write is late or lost. Two clients each run 20 operations,
// writing distinct values and reading, over UDP with a 30 ms timeout (an
// operation that times out may or may not have taken effect); each seed
// partitions the primary from the backup for a while. Every operation is
// recorded in a simasio::history and, at the end, require_linearizable
// checks it against a sequential register. check() finds a seed where a
// client reads a value older than one already acknowledged, prints the
// operations that show it and writes a lane diagram; the fixed store, which
// serves reads from the primary, passes the same seeds.
#include "../common/command_line.hpp"
#include "scenario.hpp"

#include <cstdint>
#include <cstdio>

using namespace sample_12;

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::uint64_t seeds = 300;
  sample::read_command_line(argc, argv, seeds);
  std::printf("simasio: a primary-backup register, 2 clients x 20 operations, a partition per seed\n\n");
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.print = false;
  opts.name = "reads_from_backup";
  const auto flawed = simasio::check(
      [](simasio::world& w) {
        reg_history h;
        scenario(w, true, h);
      },
      opts);
  if (flawed.ok()) {
    std::printf("reads from the backup: no stale read found in %llu seeds\n",
                static_cast<unsigned long long>(flawed.runs));
    return 1;
  }
  const simasio::failure& f = *flawed.failure;
  std::printf("reads from the backup: not linearizable at seed %llu (after %llu seeds)\n%s\n",
              static_cast<unsigned long long>(f.seed), static_cast<unsigned long long>(flawed.runs), f.what.c_str());
  std::printf("  replay: %s\n", f.replay.c_str());
  try {
    simasio::replay(
        [](simasio::world& w) {
          reg_history h;
          scenario(w, true, h);
        },
        f.seed);
    std::printf("  replay: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  replay reproduces it\n");
  }
  opts.name = "reads_from_primary";
  const auto fixed = simasio::check(
      [](simasio::world& w) {
        reg_history h;
        scenario(w, false, h);
      },
      opts);
  if (!fixed.ok()) {
    std::printf("reads from the primary: FAILED at seed %llu: %s\n",
                static_cast<unsigned long long>(fixed.failure->seed), fixed.failure->what.c_str());
    return 1;
  }
  std::printf("reads from the primary: linearizable over %llu seeds\n", static_cast<unsigned long long>(fixed.runs));
  return 0;
}
