// simasio/world.hpp — one simulated universe: hosts, virtual time, the seeded scheduler
#ifndef SIMASIO_WORLD_HPP
#define SIMASIO_WORLD_HPP

#include <simasio/detail/world_core.hpp>
#include <simasio/host.hpp>
#include <simasio/net/network.hpp>
#include <simasio/random/rng.hpp>
#include <simasio/trace/trace.hpp>
#include <simasio/world_options.hpp>

#include <boost/asio/ip/address.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace simasio {

template <class State>
class model;  // check/model.hpp

namespace detail {
class socket_ops;
struct log_state;
struct access;
// std::type_identity_t, also in C++17: keeps a parameter out of deduction.
template <class T>
struct non_deduced {
  using type = T;
};
template <class T>
using non_deduced_t = typename non_deduced<T>::type;
}  // namespace detail

/// Everything of one simulated universe. One seed decides every scheduling
/// choice, latency and fault, so the same seed replays the same run.
///
/// While it lives, a world is the thread's "current" world (the most
/// recently constructed live one): default-constructed io_contexts join it
/// and simasio's clocks read its time. A thread uses one world at a time.
///
/// @par Determinism
/// Same seed, same binary => same trace_hash(). Draws come from independent
/// streams of the seed, one per scheduler, host, directed link, user name,
/// buggify site and disk family (see tape_stream).
class world {
 public:
  /// A world with default options but its seed; it becomes the thread's
  /// current world.
  /// @param seed the run's one seed (world_options::seed).
  explicit world(std::uint64_t seed = 0);
  /// A world built from @p options; it becomes the thread's current world.
  /// @param options every knob of the run, its seed among them.
  /// @throws config_error if @p options cannot be used: replay_tape and
  /// fuzz_input both set, a faults rate outside [0, 1] or a
  /// faults.drift_ppb outside [0, 1e9), a strategy value that names no
  /// strategy, or a pct_depth below 1 under strategy::pct.
  explicit world(world_options options);
  world(const world&) = delete;
  world& operator=(const world&) = delete;
  ~world();

  /// The seed the world was built with.
  std::uint64_t seed() const noexcept { return core_->options().seed; }
  /// The options the world was built from.
  const world_options& options() const noexcept { return core_->options(); }

  /// Adds a host at the next free address of 198.18.0.0/15 (RFC 2544's
  /// benchmarking range, never routed to a real machine): 198.18.0.1,
  /// 198.18.0.2, ... 198.18.0.255, 198.18.1.0, ... 198.18.255.255,
  /// 198.19.0.0, ... up to 198.19.255.253, in creation order, skipping
  /// addresses given to add_host(name, address) and to localhost().
  /// @throws usage_error if the name is taken, or the range is used up
  /// (131,069 hosts besides localhost, fewer if explicit addresses took some).
  host& add_host(std::string name);
  /// Adds a host at @p address (any unicast IPv4 or IPv6 address, also one
  /// of the default range).
  /// @throws usage_error if the name or the address is taken, or @p address
  /// is a loopback, wildcard or multicast address.
  host& add_host(std::string name, boost::asio::ip::address address);
  /// The host named @p name. @throws usage_error naming the known hosts.
  host& get_host(std::string_view name);
  /// The "localhost" host that default io_contexts join; created on first
  /// use. On itself it is 127.0.0.1, like any host; other hosts reach it at
  /// its address(), 198.19.255.254, the top of the default range (the next
  /// free one below if add_host(name, address) took it).
  host& localhost();
  /// All hosts in creation order.
  std::vector<host*> hosts() const;

  /// The network: link settings and fault injection.
  network& net() noexcept { return net_facade_; }

  /// Virtual time since the world began.
  duration now() const noexcept { return core_->now(); }
  /// Handlers run so far.
  std::uint64_t steps() const noexcept { return core_->steps(); }

  /// Runs until nothing is ready and no timed event is pending (or stalled).
  /// @returns the number of handlers run.
  std::size_t run();
  /// Runs for @p d of virtual time (the clock ends at now() + d).
  std::size_t run_for(duration d);
  /// Runs until @p done returns true (checked before and after every step).
  /// @returns false if @p timeout of virtual time passed or the world went
  /// quiescent or stalled first; pending_report() then says what was waiting.
  bool run_until(std::function<bool()> done, duration timeout);
  /// Makes the current (or next) run return after the running handler.
  void stop() noexcept { core_->stop(); }
  /// True if the last run ended with work outstanding and nothing that
  /// could ever make progress (a real io_context would hang).
  bool stalled() const noexcept { return core_->stalled(); }
  /// What is still waiting: contexts with outstanding work, pending
  /// operations and their hosts, timed events.
  std::string pending_report() const;

  /// Checks @p invariant after every step; a violation throws
  /// simasio::invariant_error naming it.
  void always(std::string name, std::function<bool()> invariant);

  /// Declares a condition that should hold at some point of some seed
  /// (reachability): checked now and after every step until it holds.
  /// check() fails a sweep in which a declared condition never held.
  void sometimes(std::string name, std::function<bool()> condition);
  /// Each declared sometimes-condition, and whether it held in this run.
  std::vector<std::pair<std::string, bool>> reachability() const { return core_->reachability(); }

  /// Holds this run to a design model (check/model.hpp, in
  /// simasio/simasio.hpp): @p abstraction maps the real state to a model
  /// state, now and after every step; each step must be one of the model's
  /// actions or a stutter, or the run fails with a refinement_error naming
  /// the first real step the model does not allow (see simasio::refines).
  template <class State>
  void refines(std::shared_ptr<const model<State>> m, detail::non_deduced_t<std::function<State()>> abstraction);
  /// The same, over a copy of @p m.
  template <class State>
  void refines(const model<State>& m, detail::non_deduced_t<std::function<State()>> abstraction);

  /// Seeded draws for scenarios: the "user" stream, its own seed and its
  /// own section of the choice tape.
  rng& random() { return core_->user_rng(); }
  /// This run's fault families: world_options::faults, or the mix drawn
  /// from the seed under swarm testing. A scenario's own fault loop reads
  /// partitions and crashes from it (chances per round).
  const fault_mix& faults() const noexcept;
  /// A named stream of draws for scenarios ("user:<name>"): independent of
  /// every other stream, so that (for example) each client's think times
  /// shrink without moving another client's. An empty name is random().
  rng& random(std::string_view name);
  /// The rolling hash of every trace event so far.
  std::uint64_t trace_hash() const noexcept { return core_->events().hash(); }
  /// The trace (hash, recent events; all events if record_trace).
  const simasio::trace& events() const noexcept { return core_->events(); }
  /// The choice tape (counts; every draw if record_tape).
  choice_tape& tape() noexcept { return core_->tape(); }

 private:
  friend struct detail::access;
  host& make_host(std::string name, boost::asio::ip::address address);

  std::unique_ptr<detail::world_core> core_;
  std::unique_ptr<detail::socket_ops> net_;  // destroyed after the hosts, before the core
  std::shared_ptr<detail::log_state> log_;
  network net_facade_;
  std::vector<std::unique_ptr<host>> hosts_;
  std::map<std::string, std::uint32_t, std::less<>> host_names_;  // name -> id, for unique names
  std::map<boost::asio::ip::address, std::uint32_t> host_addresses_;  // address -> id, for unique addresses
  host* localhost_ = nullptr;
  boost::asio::ip::address next_default_address(bool from_top, const std::string& name);
  std::uint32_t default_up_ = 0;          // the last default address add_host gave, as 198.18.0.0 + n
  std::uint32_t default_down_ = 0x1FFFF;  // the last one localhost() gave
};

}  // namespace simasio

#endif  // SIMASIO_WORLD_HPP
