// scale_rows.cpp — events per second of a gossip scenario over 10, 100 and
// 1000 hosts: the cost of one event should not grow with the world; and
// replaying the 1000-host world's tape against recording it.
#include "gossip.hpp"
#include "groups.hpp"

#include <memory>

namespace bench {

void scale_rows(const settings& s, std::vector<row>& rows) {
  // The same number of events at every size: fewer virtual seconds for more
  // hosts. Sizes alternate within each repetition, so that the machine's
  // changes of speed hit them alike; each keeps its best.
  const std::uint64_t host_seconds = s.quick ? 200 : 2000;
  const std::size_t sizes[] = {10, 100, 1000};
  double best[3] = {0, 0, 0};
  for (int rep = 0; rep < (s.quick ? 1 : 5); ++rep)
    for (int i = 0; i < 3; ++i) {
      const auto virtual_time = std::chrono::milliseconds(1000 * host_seconds / sizes[i]);
      best[i] = std::max(best[i], rate_of([&] {
                           simasio::world w(7);
                           return gossip::run(w, sizes[i], virtual_time);
                         }));
    }
  for (int i = 0; i < 3; ++i) {
    row r{"gossip over " + std::to_string(sizes[i]) + " hosts, 3 datagrams per host every 100 ms (trace events/s)",
          best[i], 0, "", "", true, "/s"};
    if (i > 0) {  // the ratio: cost per event here against 10 hosts
      r.reference = best[0];
      r.ratio = times(best[0] / best[i]) + " per event";
    }
    if (i == 2) {
      r.target = "<= 1.5x the cost per event of 10 hosts";
      r.met = best[0] / best[2] <= 1.5;
    }
    rows.push_back(r);
  }

  // Replaying a large world's tape (what shrinking a failure of it does,
  // run after run) against recording it: every stream finds its section by
  // key among the tape's 60,000.
  const std::size_t hosts = 1000;
  const auto virtual_time = std::chrono::milliseconds(1000 * host_seconds / hosts);
  std::shared_ptr<const simasio::saved_tape> tape;
  const auto record = [&] {
    simasio::world_options o;
    o.seed = 7;
    o.record_tape = true;
    simasio::world w(o);
    const std::uint64_t events = gossip::run(w, hosts, virtual_time);
    tape = std::make_shared<const simasio::saved_tape>(w.tape().recorded(7));
    return events;
  };
  record();
  const paired replay = paired_rates(
      s.quick ? 1 : 5,
      [&] {
        simasio::world_options o;
        o.seed = 7;
        o.replay_tape = tape;
        simasio::world w(o);
        return gossip::run(w, hosts, virtual_time);
      },
      record);
  rows.push_back({"gossip over 1000 hosts, replaying its recorded tape vs recording it, median of paired runs "
                  "(trace events/s)",
                  replay.a, replay.b, times(replay.ratio), "", true, "/s"});
}

}  // namespace bench
