// 04_raft_chaos — Raft's election on 5 nodes over TCP RPCs, under crashes,
// partitions and resets.
//
// Each node serves RequestVote and AppendEntries (the heartbeat) as
// request/response RPCs over simulated TCP: one connection per RPC, and a
// 250 ms deadline for the whole call (`co_await (rpc || timer)`). A node's
// term and vote live in a per-host store that survives crashes, and are
// written before any reply that depends on them. Election timeout uniform
// in [150, 447] ms, heartbeat every 50 ms, latency uniform in
// [0.5, 20] ms, 5% of segments lost.
//
// Each seed: 2 s of quiet, then 6 rounds of chaos, each lasting 0.3-0.8 s
// and doing one of: partition 1-2 nodes from the rest, heal, crash a node
// (its process, or its power), restart a crashed node, reset the
// connections between two nodes. Then heal, restart everyone and run 3 s.
// The invariant "at most one leader per term" is checked after every step.
//
// `--flawed` plants the bug: a vote is granted on the term alone, without
// checking whom the node already voted for in that term.
#include "../common/command_line.hpp"
#include "chaos.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using raft_chaos::chaos_run;
using raft_chaos::history;

namespace {

struct sweep_result {
  simasio::check_result result;
  double seeds_per_second = 0;
};

sweep_result sweep(bool flawed, std::uint64_t seeds, const char* name) {
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.name = name;
  const auto start = std::chrono::steady_clock::now();
  sweep_result out;
  out.result = simasio::check(
      [flawed](simasio::world& w) {
        history hist;
        chaos_run(w, flawed, hist);
      },
      opts);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.seeds_per_second = static_cast<double>(out.result.runs) / secs;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // keep our lines in order with simasio's (stderr)
  bool only_flawed = false;
  std::uint64_t seeds = 1000;
  sample::read_command_line(argc, argv, seeds, {{"--flawed", &only_flawed}});
  std::printf("simasio: Raft election on 5 nodes over TCP RPCs, 2 s quiet + 6 chaos rounds + 3 s healed per seed\n\n");

  const sweep_result buggy = sweep(true, seeds, "raft_chaos_flawed");
  if (buggy.result.ok()) {
    std::printf("flawed election: no split brain found in %llu seeds\n", static_cast<unsigned long long>(buggy.result.runs));
    return 1;
  }
  const simasio::failure& f = *buggy.result.failure;
  std::printf("flawed election (votes on term alone): split brain at seed %llu (after %llu seeds)\n",
              static_cast<unsigned long long>(f.seed), static_cast<unsigned long long>(buggy.result.runs));
  // simasio's own line (the program by its absolute path), for the flawed variant alone.
  std::printf("  replay: %s%s\n", f.replay.c_str(), f.replay.find(" --flawed") == std::string::npos ? " --flawed" : "");

  history hist;
  std::vector<std::string> chaos_log;
  try {
    simasio::replay([&](simasio::world& w) { chaos_run(w, true, hist, &chaos_log); }, f.seed);
    std::printf("  replay: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure& e) {
    std::printf("  replay reproduces it: two leaders in term %llu, %s\n", static_cast<unsigned long long>(hist.split_term),
                e.what());
  }
  std::printf("  chaos before the violation:%s\n", chaos_log.empty() ? " none (it happened in the quiet phase)" : "");
  for (const auto& line : chaos_log) std::printf("    %s\n", line.c_str());
  if (only_flawed) return 0;

  const sweep_result correct = sweep(false, seeds, "raft_chaos");
  if (!correct.result.ok()) {
    std::printf("correct election: VIOLATION at seed %llu\n", static_cast<unsigned long long>(correct.result.failure->seed));
    return 1;
  }
  std::printf("\ncorrect election: no violation over %llu seeds of chaos\n",
              static_cast<unsigned long long>(correct.result.runs));
  std::printf("\n| sweep | seeds | seeds/s |\n|---|---|---|\n");
  std::printf("| flawed election (to the first failure, then shrink and trace) | %llu | %.0f |\n",
              static_cast<unsigned long long>(buggy.result.runs), buggy.seeds_per_second);
  std::printf("| correct election | %llu | %.0f |\n", static_cast<unsigned long long>(correct.result.runs),
              correct.seeds_per_second);
  return 0;
}
