// raft_rows.cpp — seeds per second of an empty scenario (what a sweep pays
// per seed) and of the two Raft samples, exactly as the samples run them:
// the correct election through check() (what a user's sweep pays), the
// flawed one seed after seed without stopping at its failures; and the
// correct ones again with jobs = 2, with what that efficiency projects for
// 8 cores. Then the ceilings Boost.Asio's own io_context sets on the two:
// the work of their handler steps and of their RPCs' coroutines alone, with
// no network, no timers and no simulation, measured in the same run.
#include "../samples/03_raft_election/election.hpp"
#include "../samples/04_raft_chaos/chaos.hpp"
#include "groups.hpp"
#include "handler_chain.hpp"
#include "rpc_skeleton.hpp"

#include <boost/asio/io_context.hpp>

#include <cstdio>
#include <stdexcept>

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
// Returns the correct scenario's rate with one job.
// (The absolute rates have no target: issue 19 measured the scenarios' own
// code on Asio's io_context; the ceiling rows compare against that.)
double seeds_rows(const settings& s, std::vector<row>& rows, const std::string& name, std::uint64_t seeds, auto run) {
  auto correct = [run](simasio::world& w) { run(w, false); };
  auto flawed = [run](simasio::world& w) { run(w, true); };
  double one = 0, bad = 0, two = 0;
  for (int rep = 0; rep < (s.quick ? 1 : 3); ++rep) {
    one = std::max(one, rate_of([&] { return sweep(correct, seeds, 1); }));
    bad = std::max(bad, rate_of([&] { return explore(flawed, seeds); }));
    two = std::max(two, rate_of([&] { return sweep(correct, seeds, 2); }));
  }
  rows.push_back({name + ", correct, check() with 1 job (seeds/s)", one, 0, "", "", true, "/s"});
  rows.push_back({name + ", flawed, every seed to its end or failure (seeds/s)", bad, 0, "", "", true, "/s"});
  rows.push_back({name + ", correct, check() with 2 jobs; vs 1 job (seeds/s)", two, one, times(two / one), ">= 1.8x",
                  two / one >= 1.8, "/s"});
  // Seeds are independent (one world per job, nothing shared), so more
  // cores scale as two do: this machine's 2-job efficiency, projected.
  const double efficiency = two / (2 * one);
  char note[64];
  std::snprintf(note, sizeof note, "%.0f%% per core", 100 * efficiency);
  rows.push_back({name + ", correct, projected for 8 jobs on 8 cores from the 2-job efficiency (seeds/s)",
                  8 * one * efficiency, one, note, "", true, "/s"});
  return one;
}

// ---- what Boost.Asio alone needs ----------------------------------------------
namespace asio = boost::asio;

// The least a handler step costs on Asio's own io_context.
std::size_t asio_handlers(std::size_t n) {
  asio::io_context ctx(1);
  return handler_chain(ctx, n);
}

// 04's RPC shape as coroutines with no I/O (rpc_skeleton.hpp), on Asio's
// io_context, and on a simulated one: what simasio adds to them.
std::size_t asio_rpcs(std::size_t n) {
  asio::io_context ctx(1);
  return skeleton::rpcs_on(ctx, n);
}
std::size_t simasio_rpcs(std::size_t n) {
  simasio::world w(1);
  simasio::io_context ctx;
  return skeleton::rpcs_on(ctx, n);
}

// 03's handler steps per seed and 04's RPCs per seed that connect (their
// client side's established connections), over the first seeds. An RPC
// that connects goes through the skeleton's whole shape whether or not it
// is answered in time: the losing side of its || completes as cancelled.
double steps_per_seed(std::uint64_t seeds) {
  double steps = 0;
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    simasio::world w(seed);
    raft_election::history h;
    raft_election::election(w, false, h);
    steps += static_cast<double>(w.steps());
  }
  return steps / static_cast<double>(seeds);
}
double rpcs_per_seed(std::uint64_t seeds) {
  double rpcs = 0;
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    simasio::world_options o;
    o.seed = seed;
    o.record_trace = true;
    simasio::world w(o);
    raft_chaos::history h;
    raft_chaos::chaos_run(w, false, h);
    for (const simasio::trace_event& e : w.events().events())
      if (e.kind == simasio::event_kind::tcp_connect && e.b == 0) ++rpcs;
  }
  return rpcs / static_cast<double>(seeds);
}

void ceiling_rows(const settings& s, std::vector<row>& rows, double election, double chaos) {
  const double steps = steps_per_seed(s.quick ? 20 : 200);
  const double rpcs = rpcs_per_seed(s.quick ? 3 : 20);
  const int reps = s.quick ? 1 : 5;
  const double handlers = best_rate(reps, [&] { return asio_handlers(s.quick ? 200'000 : 5'000'000); });
  const std::size_t skeletons = s.quick ? 20'000 : 200'000;
  const paired calls = paired_rates(reps, [&] { return simasio_rpcs(skeletons); },
                                    [&] { return asio_rpcs(skeletons); });
  char name[320];
  std::snprintf(name, sizeof name,
                "03_raft_election: its %.0f handler steps per seed as bare handlers on boost::asio::io_context, "
                "no I/O, the most seeds/s Asio's dispatch allows; vs the correct sweep with 1 job (seeds/s)",
                steps);
  rows.push_back({name, election, handlers / steps, times(election / (handlers / steps)), ">= 0.35x",
                  election / (handlers / steps) >= 0.35, "/s"});
  std::snprintf(name, sizeof name,
                "04_raft_chaos: its %.0f connecting RPCs per seed as coroutines on boost::asio::io_context, no I/O "
                "(co_spawn, an awaitable \"or\" with a cancelled wait, 5 posted completions), the most seeds/s Asio's coroutines "
                "allow; vs the correct sweep with 1 job (seeds/s)",
                rpcs);
  rows.push_back({name, chaos, calls.b / rpcs, times(chaos / (calls.b / rpcs)), ">= 0.6x",
                  chaos / (calls.b / rpcs) >= 0.6, "/s"});
  rows.push_back({"04_raft_chaos's RPC coroutine shape alone (as above), simasio::io_context vs "
                  "boost::asio::io_context, median of paired runs (RPCs/s)",
                  calls.a, calls.b, times(calls.ratio), "", true, "/s"});
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
  const double election = seeds_rows(s, rows, "03_raft_election (3 nodes, UDP, 3 s)", s.quick ? 200 : 4000,
             [](simasio::world& w, bool flawed) {
               raft_election::history h;
               raft_election::election(w, flawed, h);
             });
  const double chaos = seeds_rows(s, rows, "04_raft_chaos (5 nodes, TCP RPCs, chaos, 8.5 s)", s.quick ? 10 : 300, [](simasio::world& w, bool flawed) {
               raft_chaos::history h;
               raft_chaos::chaos_run(w, flawed, h);
             });
  ceiling_rows(s, rows, election, chaos);
}

}  // namespace bench
