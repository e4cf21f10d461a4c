// observe.hpp — what a differential scenario records: normalised lines that
// read the same on real Linux and in simulation when both behave alike.
#ifndef SIMASIO_TEST_DIFF_OBSERVE_HPP
#define SIMASIO_TEST_DIFF_OBSERVE_HPP

#include <boost/asio/error.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/system_error.hpp>

#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace simasio_diff {

// An error as a name that both sides spell alike: errno's symbolic name
// (ECONNRESET), Asio's misc names (eof), or "ok".
inline std::string ec_name(const boost::system::error_code& ec) {
  if (!ec) return "ok";
  if (ec.category() == boost::system::system_category() || ec.category() == boost::system::generic_category()) {
    if (const char* n = strerrorname_np(ec.value())) return n;
  }
  if (ec == boost::asio::error::eof) return "eof";
  if (ec == boost::asio::error::already_open) return "already_open";
  if (ec == boost::asio::error::not_found) return "not_found";
  return std::string(ec.category().name()) + ":" + std::to_string(ec.value());
}

// One scenario's observations.
struct observations {
  std::vector<std::string> lines;
  void note(std::string line) { lines.push_back(std::move(line)); }
  // How a scenario ended when it threw: the error's name, as both sides spell it.
  void note_exception(const std::exception_ptr& p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const boost::system::system_error& x) {
      note("throws " + ec_name(x.code()));
    } catch (const std::exception& x) {
      note(std::string("throws ") + x.what());
    }
  }
};

// How a build runs its scenarios: name, then the function filling observations.
struct scenario_run {
  std::string name;
  std::vector<std::string> lines;
};

// The kernel's socket buffer settings, as the real side found them in its
// namespace; the simulation is given the same.
struct kernel_profile {
  long rmem_max = 212992, wmem_max = 212992, rmem_default = 212992, wmem_default = 212992;
  long tcp_rmem[3] = {4096, 131072, 6291456}, tcp_wmem[3] = {4096, 16384, 4194304};
  std::string congestion = "cubic";
  std::string describe() const;
  static kernel_profile parse(const std::string& line);
};
kernel_profile read_profile();

// Settings of one comparison run.
struct run_settings {
  kernel_profile profile;
  std::size_t mtu = 65536;
  std::uint64_t seed = 0;  // simulation only
  std::string only;        // run only the scenario of that name ("" = all)
  // Generated programs (program.hpp) run as scenarios after the written
  // ones: name, then the program's text.
  std::vector<std::pair<std::string, std::string>> programs;
  bool programs_only = false;  // skip the written scenarios
};

// Each build's entry point: every scenario in order, with its observations.
std::vector<scenario_run> run_real(const run_settings& s);
std::vector<scenario_run> run_simulated(const run_settings& s);
// The real side's scenarios (Boost.Asio, not switched) as the code of a
// simulated process: its io_context and sockets reach the simulated
// network through the system-call boundary (simasio::interpose).
std::vector<scenario_run> run_posix(const run_settings& s);
std::vector<std::string> scenario_names();

}  // namespace simasio_diff

#endif  // SIMASIO_TEST_DIFF_OBSERVE_HPP
