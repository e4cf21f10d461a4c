// artifact_scenario.cpp — a failing network scenario whose trace artifacts the tests inspect
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <cstdio>
#include <string>

namespace net = simasio::asio;
using net::ip::udp;
using namespace std::chrono_literals;

// Three hosts gossip over lossy, duplicating UDP; a partition comes and
// goes; "carol" crashes and restarts. Then the scenario fails, so check()
// writes the artifacts of its seed.
int main(int argc, char** argv) {
  simasio::check_options opts;
  opts.name = "gossip";
  opts.seeds = 1;
  if (argc > 1) opts.artifacts_dir = argv[1];
  const auto r = simasio::check(
      [](simasio::world& w) {
        simasio::link_config link;
        link.loss = 0.3;
        link.duplicate = 0.2;
        w.net().configure(link);
        std::vector<simasio::host*> hosts{&w.add_host("alice"), &w.add_host("bob"), &w.add_host("carol")};
        std::vector<std::unique_ptr<udp::socket>> sockets;
        for (auto* h : hosts) sockets.push_back(std::make_unique<udp::socket>(h->context(), udp::endpoint(udp::v4(), 9)));
        auto gossip = [&](int rounds) {
          for (int r = 0; r < rounds; ++r)
            for (std::size_t i = 0; i < hosts.size(); ++i)
              if (hosts[i]->up())
                sockets[i]->send_to(net::buffer("hi", 2), udp::endpoint(hosts[(i + 1) % hosts.size()]->address(), 9));
          w.run_for(50ms);
        };
        gossip(3);
        w.net().partition({{hosts[0]}, {hosts[1], hosts[2]}});
        gossip(2);
        w.net().heal();
        hosts[2]->crash();
        gossip(1);
        hosts[2]->restart();
        // The crash closed carol's socket with its process: a new one for the new process.
        sockets[2] = std::make_unique<udp::socket>(hosts[2]->context(), udp::endpoint(udp::v4(), 9));
        gossip(1);
        throw std::runtime_error("the gossip scenario fails on purpose");
      },
      opts);
  if (!r.ok()) std::printf("artifacts: %s\n", r.failure->trace_path.c_str());
  return r.ok() ? 1 : 0;
}
