// raft_rows.cpp — seeds per second of an empty scenario (what a sweep pays
// per seed) and of the two Raft samples, exactly as the samples run them:
// the correct election through check() (what a user's sweep pays), the
// flawed one seed after seed without stopping at its failures; and the
// correct ones again with jobs = 2, with what that efficiency projects for
// 8 cores.
#include "../samples/03_raft_election/election.hpp"
#include "../samples/04_raft_chaos/chaos.hpp"
#include "groups.hpp"

#include <cstdio>

namespace bench {
namespace {

template <class Scenario>
std::size_t sweep(Scenario scenario, std::uint64_t seeds, unsigned jobs) {
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.jobs = jobs;
  opts.print = false;
  opts.artifacts = false;
  opts.name = "bench";
  const auto result = simasio::check(scenario, opts);
  if (!result.ok()) throw std::runtime_error("simasio_bench: a correct scenario failed at seed " +
                                             std::to_string(result.failure->seed));
  return result.runs;
}

// Every seed runs to its end or its failure: the rate at which seeds are explored.
template <class Scenario>
std::size_t explore(Scenario scenario, std::uint64_t seeds) {
  std::size_t failures = 0;
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    simasio::world w(seed);
    try {
      scenario(w);
    } catch (const std::exception&) {
      ++failures;
    }
  }
  if (failures == 0) throw std::runtime_error("simasio_bench: the flawed scenario never failed");
  return seeds;
}

// The three variants alternate within each repetition, so that the
// machine's changes of speed hit them alike; each keeps its best.
void seeds_rows(const settings& s, std::vector<row>& rows, const std::string& name, double goal,
                const std::string& target, std::uint64_t seeds, auto run) {
  auto correct = [run](simasio::world& w) { run(w, false); };
  auto flawed = [run](simasio::world& w) { run(w, true); };
  double one = 0, bad = 0, two = 0;
  for (int rep = 0; rep < (s.quick ? 1 : 3); ++rep) {
    one = std::max(one, rate_of([&] { return sweep(correct, seeds, 1); }));
    bad = std::max(bad, rate_of([&] { return explore(flawed, seeds); }));
    two = std::max(two, rate_of([&] { return sweep(correct, seeds, 2); }));
  }
  rows.push_back({name + ", correct, check() with 1 job (seeds/s)", one, 0, "", target, one >= goal, "/s"});
  rows.push_back({name + ", flawed, every seed to its end or failure (seeds/s)", bad, 0, "", target, bad >= goal, "/s"});
  rows.push_back({name + ", correct, check() with 2 jobs; vs 1 job (seeds/s)", two, one, times(two / one), "", true,
                  "/s"});
  // Seeds are independent (one world per job, nothing shared), so more
  // cores scale as two do: this machine's 2-job efficiency, projected.
  const double efficiency = two / (2 * one);
  char note[64];
  std::snprintf(note, sizeof note, "%.0f%% per core", 100 * efficiency);
  rows.push_back({name + ", correct, projected for 8 jobs on 8 cores from the 2-job efficiency (seeds/s)",
                  8 * one * efficiency, one, note, "", true, "/s"});
}

}  // namespace

void raft_rows(const settings& s, std::vector<row>& rows) {
  // What every seed of a sweep pays before the scenario does anything:
  // check()'s bookkeeping and a world's construction and teardown.
  const std::uint64_t empty = s.quick ? 20'000 : 500'000;
  double best = 0;
  for (int rep = 0; rep < (s.quick ? 1 : 3); ++rep)
    best = std::max(best, rate_of([&] { return sweep([](simasio::world&) {}, empty, 1); }));
  rows.push_back({"empty scenario, check() with 1 job (seeds/s)", best, 0, "", ">= 1,000,000 seeds/s", best >= 1e6,
                  "/s"});
  seeds_rows(s, rows, "03_raft_election (3 nodes, UDP, 3 s)", 50'000, ">= 50,000 seeds/s", s.quick ? 200 : 4000,
             [](simasio::world& w, bool flawed) {
               raft_election::history h;
               raft_election::election(w, flawed, h);
             });
  seeds_rows(s, rows, "04_raft_chaos (5 nodes, TCP RPCs, chaos, 8.5 s)", 1'000, ">= 1,000 seeds/s",
             s.quick ? 10 : 300, [](simasio::world& w, bool flawed) {
               raft_chaos::history h;
               raft_chaos::chaos_run(w, flawed, h);
             });
}

}  // namespace bench
