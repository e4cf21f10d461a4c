// isolation_rows.cpp — what seed isolation costs: samples 03, 04 and 11
// swept by check() with each seed in a forked process of its own
// (isolation::on) against all in this process (isolation::off), paired in
// the same run; and what automatic isolation chose for each (none of the
// three spawns a process, so it runs them unisolated). Then a scenario
// that spawns processes (a pthread program, as test/bugs/ runs them),
// where automatic isolation is on.
#include "../samples/03_raft_election/election.hpp"
#include "../samples/04_raft_chaos/chaos.hpp"
#include "../samples/11_wal_store/scenario.hpp"
#include "groups.hpp"

#include <mutex>
#include <stdexcept>
#include <thread>

namespace bench {
namespace {

std::size_t sweep(const std::function<void(simasio::world&)>& scenario, std::uint64_t seeds, simasio::isolation iso,
                  bool* isolated = nullptr) {
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.print = false;
  opts.artifacts = false;
  opts.shrink = false;
  opts.isolation = iso;
  const auto r = simasio::check(scenario, opts);
  if (!r.ok()) throw std::runtime_error("simasio_bench: a correct scenario failed at seed " + std::to_string(r.failure->seed));
  if (isolated != nullptr) *isolated = r.isolated;
  return r.runs;
}

// budget: the most isolation may cost per seed (0: no target), unless the
// automatic choice runs the scenario unisolated.
void isolation_row(const settings& s, std::vector<row>& rows, const std::string& name, std::uint64_t seeds,
                   const std::function<void(simasio::world&)>& scenario, double budget = 0) {
  const paired p = paired_rates(s.quick ? 1 : 3, [&] { return sweep(scenario, seeds, simasio::isolation::on); },
                                [&] { return sweep(scenario, seeds, simasio::isolation::off); });
  bool chose = false;
  sweep(scenario, s.quick ? 5 : 50, simasio::isolation::automatic, &chose);
  const double cost = 1.0 / p.ratio - 1.0;
  char note[96];
  std::snprintf(note, sizeof note, "%s (+%.0f%% per seed); automatic: %s", times(p.ratio).c_str(), 100 * cost,
                chose ? "isolated" : "not isolated");
  std::string target;
  if (budget > 0) {
    char t[96];
    std::snprintf(t, sizeof t, "<= +%.0f%%, or automatic: not isolated", 100 * budget);
    target = t;
  }
  rows.push_back({name + ": check() with each seed in a process of its own vs all in this one (seeds/s)", p.a, p.b, note,
                  target, budget == 0 || cost <= budget || !chose, "/s"});
}

// A program's threads racing on a counter under a mutex, as a process.
void threads_in_a_process(simasio::world& w) {
  auto& h = w.add_host("h");
  h.spawn([] {
    std::mutex m;
    int n = 0;
    auto work = [&] {
      for (int i = 0; i < 20; ++i) {
        std::lock_guard<std::mutex> lock(m);
        ++n;
      }
    };
    std::thread a(work), b(work);
    a.join();
    b.join();
    if (n != 40) throw std::runtime_error("lost updates");
  });
  w.run();
}

}  // namespace

void isolation_rows(const settings& s, std::vector<row>& rows) {
  isolation_row(s, rows, "03_raft_election", s.quick ? 200 : 4000, [](simasio::world& w) {
    raft_election::history h;
    raft_election::election(w, false, h);
  }, 0.25);
  isolation_row(s, rows, "04_raft_chaos", s.quick ? 10 : 300, [](simasio::world& w) {
    raft_chaos::history h;
    raft_chaos::chaos_run(w, false, h);
  }, 0.10);
  isolation_row(s, rows, "11_wal_store", s.quick ? 20 : 1000,
                [](simasio::world& w) { sample_11::scenario(w, sample_11::fixed_store, false); });
  isolation_row(s, rows, "two threads of a process under a mutex", s.quick ? 50 : 2000, threads_in_a_process);
}

}  // namespace bench
