// simasio/host.hpp — a simulated machine: name, address, clock, lifecycle, contexts
#ifndef SIMASIO_HOST_HPP
#define SIMASIO_HOST_HPP

#include <simasio/detail/host_state.hpp>
#include <simasio/process.hpp>
#include <simasio/world_options.hpp>

#include <boost/asio/ip/address.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace simasio {

class io_context;
class world;
class disk;
namespace detail {
struct access;
}

/// A named machine of a world: an address, a view of the clock, a
/// lifecycle (up or crashed) and io_contexts.
class host {
 public:
  host(const host&) = delete;
  host& operator=(const host&) = delete;
  ~host();

  /// The host's name, unique in its world.
  const std::string& name() const noexcept { return state_.name; }
  /// The address other hosts reach it at (on itself it is also 127.0.0.1).
  boost::asio::ip::address address() const noexcept { return address_; }
  /// Creation order in the world (0, 1, ...).
  std::uint32_t id() const noexcept { return state_.id; }
  /// The world the host belongs to.
  world& get_world() noexcept { return *world_; }

  /// The host's default context (one thread), created on first use.
  io_context& context();

  /// Sets the boot function: it runs now if the host is up, and again after
  /// every restart(). Clocks read this host's time while it runs; it is not
  /// a handler (like main(), a dispatch from it queues).
  void on_boot(std::function<void(host&)> boot);

  /// Takes the host down. process: every queued and pending handler of its
  /// contexts is destroyed without running (the process is gone); power:
  /// the same, and the network also goes silent for it.
  void crash(crash_kind kind = crash_kind::process);
  /// Brings the host back up and runs the boot function again. Restarting
  /// a host that is up crashes its process first (a reboot).
  void restart();
  /// True while the host runs: from its creation, and from each restart()
  /// until the next crash().
  bool up() const noexcept { return state_.up; }

  /// Runs @p main as a simulated process of this host, on a stack of its
  /// own (world_options::process_stack_size). It starts when the scheduler
  /// picks it, like a posted handler, and from then on runs until it
  /// blocks: io_context::run*() and poll*(), and every synchronous socket,
  /// acceptor, timer and resolver call suspend the process (not the world)
  /// until they can complete. A default-constructed io_context made inside
  /// it joins this host. It ends when @p main returns; an exception that
  /// escapes @p main leaves the world's run, as a handler's would. A crash
  /// of the host unwinds its stack (README, "Running a main() on a host");
  /// spawn again from on_boot, which restart() runs.
  /// @par Determinism
  /// Which runnable process or context goes next is one scheduler draw.
  /// @throws usage_error if the host is down.
  process spawn(std::function<void()> main);
  /// Runs an unmodified `int main(int argc, char** argv)` as a process of
  /// this host: argv holds @p args (args[0] is the program name) and a final
  /// null pointer, alive for as long as the process runs; main's return
  /// value is process::exit_code(). As spawn().
  process spawn_main(std::function<int(int, char**)> main, std::vector<std::string> args);
  /// How the host was last taken down (meaningful while !up()).
  crash_kind last_crash() const noexcept { return state_.power_crash ? crash_kind::power : crash_kind::process; }

  /// Raises signal @p sig on this host: every simasio signal_set of its
  /// contexts that contains it completes a wait (or keeps the signal for
  /// the next wait). No real signal is sent.
  void raise(int sig);

  /// Skews this host's view of time: its clocks read world time + offset,
  /// running fast (drift_ppm > 0) or slow by drift_ppm parts per million.
  /// @throws config_error if drift_ppm <= -1'000'000.
  void set_clock(duration offset, double drift_ppm = 0.0);

  /// The host's disk (simasio/disk.hpp), created on first use: where its
  /// random_access_file and stream_file objects live. It is the machine's:
  /// crash(process) keeps its page cache, crash(power) keeps only what was
  /// synced (and, drawn per sector and entry, some of what was not), and
  /// restart() finds it as the crash left it.
  simasio::disk& disk();

 private:
  friend class world;
  friend struct detail::access;
  host(world& w, std::uint32_t id, std::string name, boost::asio::ip::address addr);
  void boot();
  void crash_only(crash_kind kind);  // crash() without ending the calling process

  world* world_;
  detail::host_state state_;
  boost::asio::ip::address address_;
  std::unique_ptr<io_context> context_;
  std::function<void(host&)> boot_;
  std::unique_ptr<simasio::disk> disk_;
};

}  // namespace simasio

#endif  // SIMASIO_HOST_HPP
