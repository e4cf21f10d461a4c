// 13_swarm_recovery — a bug that needs many crashes and no loss, found by swarm testing in fewer seeds than by one fixed fault mix.
//
// A key-value store (host "store") logs each put before acknowledging it;
// its log and snapshot stand for files that survive its crashes. After a
// crash, recovery folds the log into the snapshot, which takes 30 ms, and
// puts that arrive meanwhile are acknowledged. The planted bug: the flawed
// store keeps those puts in memory until recovery ends, so a second crash
// during recovery loses puts it acknowledged. The fixed store logs them.
//
// A client (host "client") puts keys 0..59 over TCP, one at a time. A
// connection reset by the store's crash is made again at once; a put with
// no answer in 30 ms (a lost segment waiting for its retransmission, a
// partition) makes it back off for 300 ms, the cautious reaction to a slow
// network. For the first 200 ms, a fault loop of 25 ms rounds crashes the
// store (chance world::faults().crashes per round; it is back 5 ms later)
// or partitions it from the client for 50 ms (faults().partitions); loss,
// duplication, clock drift and disk faults come from the same mix and are
// applied by the world.
//
// So the bug needs two crashes in a row while puts flow: many crashes and
// no loss (every loss sends the client into its back-off, and a client that
// waits sends nothing to lose). The fixed mix is the swarm's average (every
// family on at once at half the middle of its range); swarm testing draws
// a mix per seed, so some seeds have no loss and many crashes. The sample
// sweeps independent seed ranges under the fixed mix with the random-walk
// and PCT schedulers and under swarm testing, and prints the seeds each
// took to its first failure; then it shows one swarm failure as check()
// reports it (the seed's mix is in the report and in the replay line) and
// checks the fixed store under swarm testing.
#include "../common/command_line.hpp"
#include "scenario.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

using namespace sample_13;

namespace {

enum class mode { fixed, pct, swarm };

// Seeds from first_seed until the first failure (0 if none within cap).
std::uint64_t seeds_to_failure(mode m, std::uint64_t first_seed, std::uint64_t cap) {
  simasio::check_options opts;
  opts.first_seed = first_seed;
  opts.seeds = cap;
  opts.print = false;
  opts.shrink = false;
  opts.artifacts = false;
  opts.swarm = m == mode::swarm;
  opts.world.faults = fixed_mix();
  if (m == mode::pct) opts.world.strategy = simasio::strategy::pct;
  const auto r = simasio::check([](simasio::world& w) { scenario(w, true); }, opts);
  return r.ok() ? 0 : r.runs;
}

// The fixed store under swarm testing.
int check_fixed(std::uint64_t seeds) {
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.swarm = true;
  opts.name = "fixed_recovery";
  const auto fixed = simasio::check([](simasio::world& w) { scenario(w, false); }, opts);
  if (!fixed.ok()) return 1;  // check() printed the failure
  std::printf("fixed store (logs what comes in during recovery): no lost put over %llu swarm seeds\n",
              static_cast<unsigned long long>(fixed.runs));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::uint64_t sweeps = 20, cap = 3000;
  bool only_fixed = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--fixed") == 0) {
      only_fixed = true;
    } else if (std::strcmp(argv[i], "--sweeps") == 0 && i + 1 < argc) {
      sweeps = sample::positive_number(argv[0], "--sweeps", argv[++i]);
    } else if (std::strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
      cap = sample::positive_number(argv[0], "--seeds", argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--fixed] [--sweeps N] [--seeds MAX_PER_SWEEP]\n", argv[0]);
      return 2;
    }
  }
  std::printf("simasio: a store whose recovery holds back puts, crashes and partitions in 25 ms rounds\n\n");
  if (only_fixed) return check_fixed(cap);
  std::printf("seeds to the first lost put, %llu sweeps of up to %llu seeds each (sweep k starts at seed k x 1,000,000)\n\n",
              static_cast<unsigned long long>(sweeps), static_cast<unsigned long long>(cap));
  std::printf("| exploration | found in | mean seeds | median seeds | worst |\n|---|---|---|---|---|\n");
  for (const auto& [m, label] : {std::pair{mode::fixed, "fixed mix, random walk"}, std::pair{mode::pct, "fixed mix, PCT"},
                                 std::pair{mode::swarm, "swarm (a mix per seed)"}}) {
    std::vector<std::uint64_t> found;
    for (std::uint64_t k = 0; k < sweeps; ++k)
      if (const std::uint64_t n = seeds_to_failure(m, k * 1'000'000, cap); n != 0) found.push_back(n);
    std::sort(found.begin(), found.end());
    double mean = 0;
    for (std::uint64_t n : found) mean += static_cast<double>(n);
    if (!found.empty()) mean /= static_cast<double>(found.size());
    std::printf("| %s | %zu/%llu | %.1f | %llu | %llu |\n", label, found.size(), static_cast<unsigned long long>(sweeps),
                mean, static_cast<unsigned long long>(found.empty() ? 0 : found[found.size() / 2]),
                static_cast<unsigned long long>(found.empty() ? 0 : found.back()));
  }

  // One swarm failure as a user sees it: the seed's mix is printed, and
  // the replay line (SIMASIO_SWARM=1 with the seed) reproduces it.
  simasio::check_options opts;
  opts.seeds = cap;
  opts.print = false;
  opts.swarm = true;
  opts.name = "flawed_recovery";
  const auto flawed = simasio::check([](simasio::world& w) { scenario(w, true); }, opts);
  if (flawed.ok()) {
    std::printf("\nflawed recovery under swarm testing: no lost put in %llu seeds\n",
                static_cast<unsigned long long>(flawed.runs));
    return 1;
  }
  const simasio::failure& f = *flawed.failure;
  std::printf("\nflawed recovery, swarm: %s at seed %llu (after %llu seeds)\n  this seed's faults: %s\n  replay: %s\n",
              f.what.c_str(), static_cast<unsigned long long>(f.seed), static_cast<unsigned long long>(flawed.runs),
              f.faults.c_str(), f.replay.c_str());
  simasio::world_options swarm_world;
  swarm_world.swarm = true;
  try {
    simasio::replay([](simasio::world& w) { scenario(w, true); }, f.seed, swarm_world);
    std::printf("  replay did not fail\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  replay reproduces it\n");
  }
  if (!f.tape_path.empty())
    std::printf("  shrunk: %llu choices -> %llu deviations; tape: %s\n",
                static_cast<unsigned long long>(f.original_choices), static_cast<unsigned long long>(f.deviations),
                f.tape_path.c_str());

  return check_fixed(1000);
}
