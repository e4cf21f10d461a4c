// cost_rows.cpp — what the determinism features cost: trace hashing and
// tape recording on the Raft election sweep, the log ring on a gossip
// scenario that logs every update it learns. Each row: seeds/s (or events/s)
// with the feature on, with it off, and the overhead.
#include "../samples/03_raft_election/election.hpp"
#include "gossip.hpp"
#include "groups.hpp"

#include <algorithm>
#include <cstdlib>

namespace bench {
namespace {

std::size_t election_sweep(std::uint64_t seeds, simasio::world_options base) {
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    base.seed = seed;
    simasio::world w(base);
    raft_election::history hist;
    raft_election::election(w, false, hist);
  }
  return seeds;
}

// The overhead of a feature, from pairs of runs taken back to back (on,
// then off): each pair gives a ratio, and the row reports the median ratio,
// which a change of the machine's speed between pairs does not move. The
// figures shown are the best rates.
template <class On, class Off>
row overhead(std::string scenario, int pairs, On&& on, Off&& off, const char* unit) {
  const paired p = paired_rates(pairs, on, off);
  const double cost = 1.0 / p.ratio - 1.0;  // extra time per item with the feature on
  return {std::move(scenario) + ", median of " + std::to_string(pairs) + " pairs", p.a, p.b, percent(cost), "<= 15%",
          cost <= 0.15, unit};
}

}  // namespace

void cost_rows(const settings& s, std::vector<row>& rows) {
  const std::uint64_t seeds = s.quick ? 50 : 1000;
  const int reps = s.quick ? 1 : 11;

  simasio::world_options hashed, unhashed;
  unhashed.hash_trace = false;
  rows.push_back(overhead("trace hashing, 03 election sweep, on vs off (seeds/s)", reps,
                          [&] { return election_sweep(seeds, hashed); }, [&] { return election_sweep(seeds, unhashed); },
                          "/s"));

  simasio::world_options taped, untaped;
  taped.record_tape = true;
  rows.push_back(overhead("choice tape recording, 03 election sweep, on vs off (seeds/s)", reps,
                          [&] { return election_sweep(seeds, taped); }, [&] { return election_sweep(seeds, untaped); },
                          "/s"));

  // The ring formats and keeps every line; SIMASIO_LOG=off filters lines
  // at the logger, before any formatting.
  const auto gossip_time = std::chrono::seconds(s.quick ? 2 : 10);
  auto logged = [&](bool ring) {
    if (ring) unsetenv("SIMASIO_LOG");
    else setenv("SIMASIO_LOG", "off", 1);
    simasio::world w(11);
    return gossip::run(w, 10, gossip_time, true);
  };
  const char* saved = std::getenv("SIMASIO_LOG");
  const std::string saved_value = saved ? saved : "";
  rows.push_back(overhead("log ring, gossip over 10 hosts logging each update, on vs off (trace events/s)", reps,
                          [&] { return logged(true); }, [&] { return logged(false); }, "/s"));
  if (saved) setenv("SIMASIO_LOG", saved_value.c_str(), 1);
  else unsetenv("SIMASIO_LOG");
}

}  // namespace bench
