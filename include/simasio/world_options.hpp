// simasio/world_options.hpp — the knobs of one simulated universe
#ifndef SIMASIO_WORLD_OPTIONS_HPP
#define SIMASIO_WORLD_OPTIONS_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace simasio {

/// Virtual time: an integer count of nanoseconds, never floating point.
using duration = std::chrono::nanoseconds;

class rng;
struct saved_tape;
enum class tape_mismatch;

/// How one direction of a link behaves (defaults for every pair of hosts).
struct link_config {
  duration min_latency{std::chrono::milliseconds(1)};   ///< fastest delivery
  duration max_latency{std::chrono::milliseconds(10)};  ///< slowest delivery (uniform between)
  double loss = 0.0;       ///< probability a datagram is lost (TCP: retransmission delay)
  double duplicate = 0.0;  ///< probability a datagram is delivered twice (UDP only)
  std::uint64_t bandwidth = 0;  ///< bytes per second on the link, 0 = unlimited (serialisation delay)
  std::size_t mtu = 1500;       ///< bytes per IP packet: TCP segments carry mtu - 40, UDP fragments beyond it
  /// Probability that a TCP write is accepted only in part although the
  /// send buffer has room. Linux writes short only when the buffer fills;
  /// a seeded short write surfaces the framing bug (a write_some taken for
  /// a whole write) without the load that fills a buffer. 0: as Linux.
  double partial_writes = 0.25;
  /// Probability that a TCP segment is cut shorter than the MSS, so that a
  /// reader sees a write arrive in pieces (as across a real network's
  /// retransmissions and middleboxes; on one Linux host's loopback a write
  /// that fits a segment arrives whole). 0: whole segments.
  double split_segments = 0.25;
  /// Optional latency distribution replacing the uniform [min, max]; draw
  /// only from the rng it is given (the link's own stream).
  std::function<duration(rng&)> latency;
};

/// TCP socket buffer sizes, as Linux's net.ipv4.tcp_wmem / tcp_rmem and
/// net.core.wmem_max / rmem_max (Debian 12's defaults). A socket starts at
/// the initial sizes and, unless SO_SNDBUF / SO_RCVBUF pinned them,
/// autotunes toward the maxima: the send buffer grows with the congestion
/// window as segments are delivered, the receive buffer as the program
/// reads. A writer may queue its send buffer plus the peer's receive
/// window (half the peer's receive buffer). Shrink the maxima to hunt
/// deadlocks that large buffers hide (a client that writes a whole request
/// before reading any reply).
struct tcp_buffers {
  std::size_t send_initial = 16384;      ///< tcp_wmem[1]: SO_SNDBUF of a new socket
  std::size_t send_max = 4194304;        ///< tcp_wmem[2]: the send buffer's autotuning ceiling
  std::size_t receive_initial = 131072;  ///< tcp_rmem[1]: SO_RCVBUF of a new socket
  std::size_t receive_max = 6291456;     ///< tcp_rmem[2]: the receive buffer's autotuning ceiling
  /// net.core.wmem_max and rmem_max: an SO_SNDBUF / SO_RCVBUF request is
  /// capped here, then doubled (Linux keeps room for its bookkeeping), and
  /// pins the size.
  std::size_t option_max = 212992;
  /// net.core.wmem_default and rmem_default: a UDP socket's send and
  /// receive buffers until SO_SNDBUF / SO_RCVBUF set them.
  std::size_t socket_default = 212992;
};

/// How the scheduler picks the next handler among runnable contexts.
enum class strategy {
  fifo,         ///< no exploration: the oldest ready handler runs (the polite schedule)
  random_walk,  ///< uniform choice among runnable contexts at every step (default)
  pct,          ///< probabilistic concurrency testing with depth world_options::pct_depth
};

/// How a host goes down.
enum class crash_kind {
  process,  ///< the process dies; its OS closes its sockets (FIN/RST)
  power,    ///< the machine goes silent; peers notice only through timeouts
};

/// Which fault families a run has, and how much of each. The world applies
/// the families it owns on top of what the scenario configures: loss and
/// duplication combine with every link's own (two independent chances),
/// each new host's clock drifts by a seeded amount within ±drift_ppb, and
/// disk_faults combines with every disk's read, write and sync error
/// rates. Partitions and crashes are the scenario's to inject (only it
/// knows which hosts can restart): its fault loop reads world::faults()
/// and uses them as chances per round.
///
/// Swarm testing (check_options::swarm, SIMASIO_SWARM=1) draws a mix per
/// seed from the seed's "swarm" stream: each family is on with chance 1/2
/// and, when on, its rate is uniform in its range below. Some seeds then
/// have no loss and many crashes, others the reverse: a bug that one
/// family hides and another provokes is found in fewer seeds than under
/// one fixed mix of everything. The seed alone reproduces its mix.
struct fault_mix {
  double loss = 0.0;           ///< each link's loss chance; swarm range [0.001, 0.2]
  double duplicate = 0.0;      ///< each link's UDP duplication chance; swarm range [0.001, 0.1]
  double partitions = 0.0;     ///< chance per round of the scenario's fault loop; swarm range [0.05, 0.5]
  double crashes = 0.0;        ///< chance per round of the scenario's fault loop; swarm range [0.05, 0.5]
  std::int64_t drift_ppb = 0;  ///< clock drift bound (parts per billion); swarm range [1'000, 1'000'000]
  double disk_faults = 0.0;    ///< each disk's read, write and sync error chance; swarm range [0.0001, 0.01]

  /// One line naming each family and its rate, or "off".
  std::string describe() const;
  /// A swarm mix drawn from @p r (each family: on with chance 1/2, then its
  /// rate). Every draw is polite when off, so shrinking turns families off.
  static fault_mix draw(rng& r);
  /// Field-wise equality (and its negation).
  ///@{
  friend bool operator==(const fault_mix& a, const fault_mix& b) noexcept {
    return a.loss == b.loss && a.duplicate == b.duplicate && a.partitions == b.partitions &&
           a.crashes == b.crashes && a.drift_ppb == b.drift_ppb && a.disk_faults == b.disk_faults;
  }
  friend bool operator!=(const fault_mix& a, const fault_mix& b) noexcept { return !(a == b); }
  ///@}
};

/// Everything a world is built from. One seed decides every choice.
struct world_options {
  std::uint64_t seed = 0;                               ///< the run's one seed
  simasio::strategy strategy = strategy::random_walk;   ///< scheduling strategy
  int pct_depth = 3;                                    ///< pct: number of priority change points + 1
  /// pct: steps over which change points are spread. 0 (the default):
  /// derived from the scenario's run length: check() and replay() run the
  /// scenario's seed 0 once under random_walk and take its step count (the
  /// same for every seed, alone or in a sweep); a world built directly with
  /// 0 spreads them over 1,000 steps. SIMASIO_PCT_HORIZON=N sets it.
  std::uint64_t pct_horizon = 0;
  link_config link{};                                   ///< default for every link
  std::uint64_t max_steps = 50'000'000;                 ///< runaway guard -> simasio::runaway_error
  /// Stack of each simulated process (host::spawn): mapped on demand, with a
  /// guard page below it, so only the pages a process touches cost memory.
  std::size_t process_stack_size = std::size_t{1} << 20;
  /// A simulated process that ends abnormally (abort(), a failed assert,
  /// std::terminate, an uncaught exception, a fatal signal it raised) fails
  /// the run with a simasio::abnormal_exit naming its host and process. Off:
  /// such an end is a crash the scenario expects; the process reports it
  /// (process::signal()) and the world goes on.
  bool abnormal_exits_fail = true;
  /// Shared libraries whose globals each simulated process gets afresh, as
  /// an exec would: parts of their file names, separated by ':'. A process
  /// starts from the library's data as it was before any process ran, and a
  /// crashed incarnation's (SQLite's open files and their locks) is gone
  /// with it. Found once per test program, when a world first spawns.
  const char* process_libraries = "libsqlite3.so";
  bool record_trace = false;                            ///< keep every trace event (not just hash and ring)
  std::size_t record_trace_limit = static_cast<std::size_t>(-1) / 4;  ///< record_trace keeps about the last this many
  bool record_trace_first = false;  ///< record_trace_limit keeps the first events instead of the last
  bool record_tape = false;                             ///< keep every draw on the choice tape
  /// Fold every trace event into trace_hash(). Off only to measure what
  /// hashing costs: trace_hash() then stays at its initial value, and
  /// check() refuses to verify determinism (config_error).
  bool hash_trace = true;
  bool buggify = true;                                  ///< simasio::buggify() sites may fire
  double buggify_sites = 0.25;                          ///< chance a site is enabled for a seed
  double buggify_fires = 0.25;                          ///< chance an enabled site fires at a call
  /// The fault families of this world (see fault_mix); ignored when swarm
  /// is on.
  fault_mix faults{};
  /// Draw the fault mix from the seed (swarm testing) instead of using faults.
  bool swarm = false;
  /// Answer draws from this tape instead of the seed (replay, shrinking):
  /// each stream from its section (see tape_stream).
  std::shared_ptr<const saved_tape> replay_tape{};
  /// What replay does when the program asks for a draw the tape does not hold.
  tape_mismatch on_tape_mismatch{};
  /// Fuzzer-guided exploration (check/fuzz.hpp): draws, in the order the
  /// program makes them, take their values from these bytes while they
  /// last (choice_tape::start_fuzzing), the seed's own draws after. Not
  /// together with replay_tape.
  std::shared_ptr<const std::vector<std::uint8_t>> fuzz_input{};
};

}  // namespace simasio

#endif  // SIMASIO_WORLD_OPTIONS_HPP
