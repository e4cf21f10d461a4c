// real.cpp — the differential scenarios on Boost.Asio: over the kernel's
// loopback, and the same code in a simulated process (the system-call boundary).
#include "observe.hpp"
#include "program.hpp"
#include "sim_world.hpp"

#include <boost/asio.hpp>
#include <boost/asio/experimental/as_tuple.hpp>

#include <array>
#include <functional>
#include <memory>
#include <optional>

namespace simasio_diff::real {
namespace net = boost::asio;
#include "env.ipp"
#include "scenarios.ipp"
#include "interpret.ipp"
}  // namespace simasio_diff::real

namespace simasio_diff {

std::vector<std::string> scenario_names() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : real::registry()) out.emplace_back(name);
  return out;
}

// Each scenario on a fresh io_context, server and client on 127.0.0.1. The
// guard only stops a scenario that hangs; nothing depends on how long
// anything takes but settle(), which waits for loopback to deliver.
std::vector<scenario_run> run_real(const run_settings& s) {
  namespace net = boost::asio;
  std::vector<scenario_run> out;
  for (const auto& [name, start] : real::scenarios_to_run(s)) {
    observations obs;
    {
      net::io_context io;
      real::env e{io, io, net::ip::make_address("127.0.0.1"), std::chrono::milliseconds(50), s.mtu, obs};
      bool done = false;
      net::co_spawn(io, start(e), [&](std::exception_ptr p) {
        done = true;
        obs.note_exception(p);
      });
      io.run_for(std::chrono::seconds(20));
      if (!done) obs.note("did not finish");
    }
    out.push_back({name, std::move(obs.lines)});
  }
  return out;
}

// The same Boost.Asio code, unswitched, as the main() of a simulated
// process on one host: one io_context for both sides on 127.0.0.1, as on
// the kernel; its epoll reactor, eventfd, timerfd and sockets are the
// simulation's (simasio::interpose), its run_for counts virtual time.
std::vector<scenario_run> run_posix(const run_settings& s) {
  namespace net = boost::asio;
  std::vector<scenario_run> out;
  for (const auto& [name, start] : real::scenarios_to_run(s)) {
    observations obs;
    try {
      simasio::world w(world_options_for(s));
      set_kernel_buffers(w, s.profile);
      auto& host = w.add_host("h");
      const auto& run = start;
      const simasio::process p = host.spawn([&] {
        net::io_context io;
        real::env e{io, io, net::ip::make_address("127.0.0.1"), std::chrono::milliseconds(100), s.mtu, obs};
        bool done = false;
        net::co_spawn(io, run(e), [&](std::exception_ptr x) {
          done = true;
          obs.note_exception(x);
        });
        io.run_for(std::chrono::seconds(600));
        if (!done) obs.note("did not finish");
      });
      w.run_until([&] { return p.ended(); }, std::chrono::seconds(700));
      if (!p.ended()) obs.note("the process did not end");
    } catch (const std::exception& x) {
      obs.note(std::string("simulation failed: ") + x.what());
    }
    out.push_back({name, std::move(obs.lines)});
  }
  return out;
}

}  // namespace simasio_diff
