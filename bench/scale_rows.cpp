// scale_rows.cpp — events per second of a gossip scenario over 10, 100 and
// 1000 hosts: the cost of one event should not grow with the world.
#include "gossip.hpp"
#include "groups.hpp"

namespace bench {

void scale_rows(const settings& s, std::vector<row>& rows) {
  // The same number of events at every size: fewer virtual seconds for more hosts.
  const std::uint64_t host_seconds = s.quick ? 200 : 2000;
  double rate_at_10 = 0;
  for (std::size_t hosts : {10, 100, 1000}) {
    const auto virtual_time = std::chrono::milliseconds(1000 * host_seconds / hosts);
    const double rate = best_rate(s.quick ? 1 : 3, [&] {
      simasio::world w(7);
      return gossip::run(w, hosts, virtual_time);
    });
    row r{"gossip over " + std::to_string(hosts) + " hosts, 3 datagrams per host every 100 ms (trace events/s)", rate,
          0, "", "", true, "/s"};
    if (hosts == 10) {
      rate_at_10 = rate;
    } else {
      // Ratio: cost per event here against 10 hosts.
      r.reference = rate_at_10;
      r.ratio = times(rate_at_10 / rate) + " per event";
      if (hosts == 1000) {
        r.target = "<= 2x the cost per event of 10 hosts";
        r.met = rate_at_10 / rate <= 2.0;
      }
    }
    rows.push_back(r);
  }
}

}  // namespace bench
