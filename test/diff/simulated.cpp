// simulated.cpp — the differential scenarios on simasio: two hosts, no faults.
#include "observe.hpp"
#include "program.hpp"
#include "sim_world.hpp"

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <array>
#include <functional>
#include <memory>
#include <optional>

namespace simasio_diff::sim {
namespace net = simasio::asio;
#include "env.ipp"
#include "scenarios.ipp"
#include "interpret.ipp"
}  // namespace simasio_diff::sim

namespace simasio_diff {

simasio::world_options world_options_for(const run_settings& s) {
  simasio::world_options o;
  o.seed = s.seed;
  o.link.mtu = s.mtu;
  // Linux writes short only when the buffer is full, and on loopback a
  // write that fits a segment arrives whole (README: modelled differences).
  o.link.partial_writes = 0;
  o.link.split_segments = 0;
  return o;
}

void set_kernel_buffers(simasio::world& w, const kernel_profile& k) {
  simasio::tcp_buffers b;  // the profile of the kernel compared with
  b.send_initial = static_cast<std::size_t>(k.tcp_wmem[1]);
  b.send_max = static_cast<std::size_t>(k.tcp_wmem[2]);
  b.receive_initial = static_cast<std::size_t>(k.tcp_rmem[1]);
  b.receive_max = static_cast<std::size_t>(k.tcp_rmem[2]);
  b.option_max = static_cast<std::size_t>(k.rmem_max);
  b.socket_default = static_cast<std::size_t>(k.rmem_default);
  w.net().set_tcp_buffers(b);
}

// Each scenario in a world of its own: the server's objects on host
// "server", the scenario (the client) on host "client".
std::vector<scenario_run> run_simulated(const run_settings& s) {
  namespace net = simasio::asio;
  std::vector<scenario_run> out;
  for (const auto& [name, start] : sim::scenarios_to_run(s)) {
    observations obs;
    try {
      simasio::world w(world_options_for(s));
      set_kernel_buffers(w, s.profile);
      auto& server = w.add_host("server");
      auto& client = w.add_host("client");
      sim::env e{server.context(), client.context(), server.address(), std::chrono::milliseconds(100), s.mtu, obs};
      bool done = false;
      net::co_spawn(client.context(), start(e), [&](std::exception_ptr p) {
        done = true;
        obs.note_exception(p);
      });
      w.run_until([&] { return done; }, std::chrono::seconds(600));
      if (!done) obs.note("did not finish");
    } catch (const std::exception& x) {
      obs.note(std::string("simulation failed: ") + x.what());
    }
    out.push_back({name, std::move(obs.lines)});
  }
  return out;
}

}  // namespace simasio_diff
