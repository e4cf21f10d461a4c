// simasio_instructions — the work of the two Raft samples and of their
// Asio ceilings, piece by piece, for callgrind: bench/instructions.py runs
// it under `valgrind --tool=callgrind --instr-atstart=no` and divides each
// piece's instructions by what it did (handler steps, handlers, RPCs).
// Each piece runs once outside the measurement first (caches, first-use
// allocations), then measured, then dumped under its own name. Outside
// valgrind it only prints the counts.
#include "../samples/03_raft_election/election.hpp"
#include "../samples/04_raft_chaos/chaos.hpp"
#include "handler_chain.hpp"
#include "rpc_skeleton.hpp"

#include <boost/asio/io_context.hpp>
#include <valgrind/callgrind.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// Runs f once unmeasured, then measured and dumped as `name`; prints the
// count f returns (the unit's number) as "piece <name> <count> <unit>".
template <class F>
void piece(const char* name, const char* unit, F f) {
  f();
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
  const std::uint64_t count = f();
  CALLGRIND_STOP_INSTRUMENTATION;
  CALLGRIND_DUMP_STATS_AT(name);
  std::printf("piece %s %llu %s\n", name, static_cast<unsigned long long>(count), unit);
  std::fflush(stdout);
}

// Handler steps of the next n seeds of a sample's correct scenario, from
// seed on (which moves past them: the measured run takes other seeds than
// the unmeasured one).
template <class Run>
std::uint64_t steps_of(std::uint64_t& seed, std::uint64_t n, Run run) {
  std::uint64_t steps = 0;
  for (std::uint64_t i = 0; i < n; ++i, ++seed) {
    simasio::world w(seed);
    run(w);
    steps += w.steps();
  }
  return steps;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t election_seeds = 200, chaos_seeds = 4;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--election-seeds") == 0 && i + 1 < argc) election_seeds = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--chaos-seeds") == 0 && i + 1 < argc) chaos_seeds = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: simasio_instructions [--election-seeds N] [--chaos-seeds N] (under bench/instructions.py)\n");
      return 2;
    }
  }
  std::uint64_t seed = 1000;
  piece("03_raft_election", "steps", [&] {
    return steps_of(seed, election_seeds, [](simasio::world& w) {
      raft_election::history h;
      raft_election::election(w, false, h);
    });
  });
  piece("04_raft_chaos", "steps", [&] {
    return steps_of(seed, chaos_seeds, [](simasio::world& w) {
      raft_chaos::history h;
      raft_chaos::chaos_run(w, false, h);
    });
  });
  constexpr std::size_t handlers = 200'000, rpcs = 20'000;
  piece("asio_handler_chain", "handlers", [] {
    boost::asio::io_context ctx(1);
    return bench::handler_chain(ctx, handlers);
  });
  piece("simasio_handler_chain", "handlers", [] {
    simasio::world w;
    simasio::io_context ctx;
    return bench::handler_chain(ctx, handlers);
  });
  piece("asio_rpc_skeleton", "rpcs", [] {
    boost::asio::io_context ctx(1);
    return bench::skeleton::rpcs_on(ctx, rpcs);
  });
  piece("simasio_rpc_skeleton", "rpcs", [] {
    simasio::world w(1);
    simasio::io_context ctx;
    return bench::skeleton::rpcs_on(ctx, rpcs);
  });
  return 0;
}
