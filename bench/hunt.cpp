// hunt.cpp — how many seeds each planted bug of the samples takes to show,
// under the random walk, swarm testing and PCT.
//
//   simasio_hunt [--sweeps N] [--seeds MAX_PER_SWEEP] [--only 02,04,...,deep]
//
// For each bug (and deep_retry.hpp's, four unlucky attempts deep) and
// exploration, N sweeps over independent seed ranges (sweep k starts at seed
// k x 1,000,000) each run up to MAX seeds (100,000) and stop at the first
// failure; the table gives the mean and median seeds to it over the
// sweeps that found it. Fuzzer-guided exploration is measured by
// bench/fuzz_hunt.sh on the samples' libFuzzer targets (a clang build):
// libFuzzer stops at the first failure, so each of its runs is a process.
#include "../samples/common/command_line.hpp"
#include "../samples/02_timeout_flake/scenario.hpp"
#include "../samples/04_raft_chaos/chaos.hpp"
#include "../samples/06_pool_race/scenario.hpp"
#include "../samples/10_lost_wakeup/scenario.hpp"
#include "../samples/11_wal_store/scenario.hpp"
#include "../samples/12_replicated_register/scenario.hpp"
#include "../samples/13_swarm_recovery/scenario.hpp"
#include "../samples/14_route_push/scenario.hpp"
#include "deep_retry.hpp"

#include <simasio/simasio.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace {

struct planted {
  const char* sample;  // its folder's number, for --only
  const char* bug;
  std::function<void(simasio::world&)> run;
  simasio::fault_mix mix{};  // the fixed mix the random walk and PCT run under
};

std::vector<planted> planted_bugs() {
  std::vector<planted> out;
  out.push_back({"02", "02 timeout_flake: one attempt against a 100 ms deadline",
                 [](simasio::world& w) { sample_02::scenario(w, false); }});
  out.push_back({"04", "04 raft_chaos: votes on term alone (split brain)", [](simasio::world& w) {
                   raft_chaos::history h;
                   raft_chaos::chaos_run(w, true, h);
                 }});
  out.push_back({"06", "06 pool_race: no strand", [](simasio::world& w) { sample_06::scenario(w, false); }});
  out.push_back({"10", "10 lost_wakeup: wait without a predicate",
                 [](simasio::world& w) { sample_10::scenario(w, false, false); }});
  out.push_back({"11", "11 wal_store: ack before fsync",
                 [](simasio::world& w) { sample_11::scenario(w, sample_11::ack_before_sync, false); }});
  out.push_back({"11", "11 wal_store: rename without fsync of the directory",
                 [](simasio::world& w) { sample_11::scenario(w, sample_11::rename_without_sync, false); }});
  out.push_back({"12", "12 replicated_register: reads from the backup", [](simasio::world& w) {
                   sample_12::reg_history h;
                   sample_12::scenario(w, true, h);
                 }});
  out.push_back({"13", "13 swarm_recovery: recovery holds back puts",
                 [](simasio::world& w) { sample_13::scenario(w, true); }, sample_13::fixed_mix()});
  out.push_back({"14", "14 route_push: fire and forget", [d = sample_14::design(false)](simasio::world& w) {
                   sample_14::scenario(w, false, d);
                 }});
  out.push_back({"deep", "deep_retry (bench): four timeouts in a row serve a stale cache", &deep_retry::scenario});
  return out;
}

enum class mode { random_walk, swarm, pct };

// Seeds from first_seed to the first failure (0: none within cap).
std::uint64_t seeds_to_failure(const planted& p, mode m, std::uint64_t first_seed, std::uint64_t cap) {
  simasio::check_options opts;
  opts.first_seed = first_seed;
  opts.seeds = cap;
  opts.print = false;
  opts.shrink = false;
  opts.artifacts = false;
  opts.shard_seeds = false;
  opts.jobs_from_environment = false;
  opts.world.faults = p.mix;
  opts.swarm = m == mode::swarm;
  if (m == mode::pct) opts.world.strategy = simasio::strategy::pct;
  const auto r = simasio::check(p.run, opts);
  return r.ok() ? 0 : r.runs;
}

std::string cell(std::vector<std::uint64_t> found, std::uint64_t sweeps) {
  if (found.empty()) return "not found (0/" + std::to_string(sweeps) + ")";
  std::sort(found.begin(), found.end());
  double mean = 0;
  for (std::uint64_t n : found) mean += static_cast<double>(n);
  mean /= static_cast<double>(found.size());
  const std::string share =
      found.size() == sweeps ? "" : " (" + std::to_string(found.size()) + "/" + std::to_string(sweeps) + ")";
  char text[96];
  std::snprintf(text, sizeof text, "%.1f / %llu%s", mean, static_cast<unsigned long long>(found[found.size() / 2]),
                share.c_str());
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::uint64_t sweeps = 20, cap = 100000;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--sweeps") == 0 && i + 1 < argc) {
      sweeps = sample::positive_number(argv[0], "--sweeps", argv[++i]);
    } else if (std::strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
      cap = sample::positive_number(argv[0], "--seeds", argv[++i]);
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--sweeps N] [--seeds MAX_PER_SWEEP] [--only 02,04,...,deep]\n", argv[0]);
      return 2;
    }
  }
  // Sample 12 writes each refused history's diagram under SIMASIO_ARTIFACTS.
  const auto scratch = std::filesystem::temp_directory_path() / "simasio_hunt";
  ::setenv("SIMASIO_ARTIFACTS", scratch.c_str(), 1);
  std::printf("seeds to the first failure: mean / median over %llu sweeps of up to %llu seeds "
              "(sweep k starts at seed k x 1,000,000)\n\n",
              static_cast<unsigned long long>(sweeps), static_cast<unsigned long long>(cap));
  std::printf("| planted bug | random walk | swarm | PCT |\n|---|---|---|---|\n");
  for (const planted& p : planted_bugs()) {
    if (!only.empty() && only.find(p.sample) == std::string::npos) continue;
    std::string cells;
    for (const mode m : {mode::random_walk, mode::swarm, mode::pct}) {
      std::vector<std::uint64_t> found;
      for (std::uint64_t k = 0; k < sweeps; ++k)
        if (const std::uint64_t n = seeds_to_failure(p, m, k * 1'000'000, cap); n != 0) found.push_back(n);
      cells += " | " + cell(std::move(found), sweeps);
    }
    std::printf("| %s%s |\n", p.bug, cells.c_str());
  }
  std::filesystem::remove_all(scratch);
  return 0;
}
