// 03_raft_election — Raft leader election over simulated UDP, and the split brain it finds.
//
// Three nodes run Raft's election (terms, RequestVote, majority, heartbeats;
// no log replication), written in plain Asio style against
// `namespace net = simasio::asio;`. Parameters, so the run can be compared
// with published simulators: election timeout uniform in [150, 300] ms,
// redrawn each time a node starts waiting and reset by any received
// message; heartbeat every 50 ms (a new leader also broadcasts at once);
// datagram latency uniform in [1, 20] ms, no loss; 3 virtual seconds per
// seed; the invariant "at most one leader per term" is checked after every
// step; 200 seeds.
//
// `--flawed` plants the classic bug: a node grants its vote without
// checking that it has not voted for someone else in this term.
#include "election.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

using raft_election::election;
using raft_election::history;

namespace {

struct sweep_result {
  simasio::check_result result;
  double seeds_per_second = 0;
};

sweep_result sweep(bool flawed, const char* name) {
  simasio::check_options opts;
  opts.seeds = 200;
  opts.name = name;
  const auto start = std::chrono::steady_clock::now();
  sweep_result out;
  out.result = simasio::check(
      [flawed](simasio::world& w) {
        history hist;
        election(w, flawed, hist);
      },
      opts);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.seeds_per_second = static_cast<double>(out.result.runs) / secs;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // keep our lines in order with simasio's (stderr)
  const bool only_flawed = argc > 1 && std::strcmp(argv[1], "--flawed") == 0;
  std::printf("simasio: Raft leader election, 3 nodes over simulated UDP, 200 seeds of 3 virtual seconds\n\n");

  const sweep_result buggy = sweep(true, "raft_election_flawed");
  if (buggy.result.ok()) {
    std::printf("flawed election: no split brain found in %llu seeds\n",
                static_cast<unsigned long long>(buggy.result.runs));
    return 1;
  }
  const simasio::failure& f = *buggy.result.failure;
  std::printf("flawed election: split brain at seed %llu (after %llu seeds)\n", static_cast<unsigned long long>(f.seed),
              static_cast<unsigned long long>(buggy.result.runs));
  // simasio's own line (the program by its absolute path), for the flawed variant alone.
  std::printf("  replay: %s%s\n", f.replay.c_str(), only_flawed ? "" : " --flawed");

  // The replay reproduces it: same seed, same violation, same instant.
  history hist;
  try {
    simasio::replay([&](simasio::world& w) { election(w, true, hist); }, f.seed);
    std::printf("  replay: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure& e) {
    std::printf("  replay reproduces it: two leaders in term %llu, %s\n",
                static_cast<unsigned long long>(hist.split_term), e.what());
  }
  if (only_flawed) return 0;

  const sweep_result correct = sweep(false, "raft_election");
  if (!correct.result.ok()) {
    std::printf("correct election: VIOLATION at seed %llu\n", static_cast<unsigned long long>(correct.result.failure->seed));
    return 1;
  }
  std::printf("\ncorrect election: no violation over the same %llu seeds\n",
              static_cast<unsigned long long>(correct.result.runs));
  std::printf("\n| sweep | seeds | seeds/s |\n|---|---|---|\n");
  std::printf("| flawed election (to the first failure, then shrink and trace) | %llu | %.0f |\n",
              static_cast<unsigned long long>(buggy.result.runs), buggy.seeds_per_second);
  std::printf("| correct election | %llu | %.0f |\n", static_cast<unsigned long long>(correct.result.runs),
              correct.seeds_per_second);
  return 0;
}
