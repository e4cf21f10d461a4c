// simasio/detail/world_core.hpp — the scheduler, clock, draws and trace of one world
#ifndef SIMASIO_DETAIL_WORLD_CORE_HPP
#define SIMASIO_DETAIL_WORLD_CORE_HPP

#include <simasio/detail/config.hpp>

#include <simasio/detail/current.hpp>
#include <simasio/detail/host_state.hpp>
#include <simasio/detail/operation.hpp>
#include <simasio/detail/recycler.hpp>
#include <simasio/random/rng.hpp>
#include <simasio/sched/strategy.hpp>
#include <simasio/sched/timed_event.hpp>
#include <simasio/trace/trace.hpp>
#include <simasio/world_options.hpp>

#include <boost/core/span.hpp>

#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <iosfwd>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace boost::asio {
class execution_context;
}
namespace simasio {
class host;
}

namespace simasio::detail {

class world_core;
class timer_service;
struct process_state;
struct process_resume_op;
struct process_status;
struct process_stdio;
class thread_sync;
class process_images;

// An owner of pending (not yet ready) operations on a context: a timer
// service, a socket service. Crashes and shutdown abandon them; stall
// reports list them.
class pending_source {
 public:
  virtual void abandon() noexcept = 0;
  virtual void describe(std::vector<std::string>& out) const = 0;

 protected:
  ~pending_source() = default;
};

// The scheduling state of one io_context. Every queued or pending
// operation counts one unit of work; tracked executors count one each.
struct context_state {
  // Both null once the io_context outlived its world (orphaned): a null
  // core is the one test every use makes (checked_core).
  world_core* core = nullptr;
  host_state* host = nullptr;
  boost::asio::execution_context* exec = nullptr;
  std::uint32_t id = 0;
  int concurrency = 1;
  op_queue ready;
  std::int64_t work = 0;
  bool stopped = false;
  bool runnable = false;
  std::uint64_t priority = 0;  // the strategy's to use (pct: this context's priority)
  std::vector<pending_source*> sources;
  timer_service* timers = nullptr;  // this context's timer service, once created
  // Real Asio I/O objects (the timers inside Beast's websocket::stream and
  // Asio's ssl::stream): every one asks its executor for the context when
  // built from an executor, which sets context_queried, and the step that
  // built it then looks for Asio's reactor (so do the escape checks, for
  // objects built from the context); once there, Asio's scheduler is
  // polled after each step of this context that left a completion there (escape.hpp).
  bool context_queried = false;
  void* real_scheduler = nullptr;
  std::uint64_t handlers_run = 0;  // steps taken; a process in run_one()/run() counts them
  // A blocking call in one of its handlers (a file's sync_data()) holds the
  // thread until busy_end fires: no handler of it runs before.
  bool busy = false;
  std::unique_ptr<timed_event> busy_end;
  // Processes (threads) blocked in run*() on it: two or more make it a pool,
  // as concurrency > 1 does (any ready handler may run next).
  mutable int runners = 0;
  // The process that made it (an io_context built on a process's stack):
  // its group + 1, 0 for none. When that process ends without unwinding
  // (exit, abort), the context dies with it: its work is dropped, and so is
  // whatever is posted to it later.
  std::uint32_t owner = 0;
  bool dead = false;
};

// The context ids of simulated processes (process.cpp) in the trace: a
// process is scheduled like a context, under an id of its own above every
// io_context's.
inline constexpr std::uint32_t process_context_base = 0x8000'0000u;

// A wake-up for a process's pending blocking call: which process, and which
// of its waits (a stale one, from a wait that already ended, does nothing).
struct process_wakeup {
  world_core* core = nullptr;
  std::uint32_t pid = 0;
  std::uint64_t generation = 0;
  void operator()() const;
};

// Thrown at a process's suspension point when its host crashed (or the
// world ended): it unwinds the process's stack. Deliberately not a
// std::exception. A process that swallows it (a catch (...) that does not
// rethrow, as websocketpp's examples have around their run loop) never runs
// again: the end of that catch block, where the exception is destroyed,
// leaves the process for good, as a crashed machine's program never
// resumes (its stack is kept, never freed).
struct process_exit {
  explicit process_exit(const void* process) noexcept : owner(process) {}
  process_exit(const process_exit&) noexcept {}  // a copy (catch by value) is not the one thrown
  process_exit& operator=(const process_exit&) = delete;
  ~process_exit();
  const void* owner = nullptr;  // the process_state it unwinds; null once the process's entry caught it
};

// Thrown by world_core::spawn while spawn_restarts_isolated is set (check()
// running a seed in the test program under automatic isolation): the seed
// is about to start a simulated process, whose code may keep state in C
// globals, so check() runs it again in a process of its own, and every
// later seed too. Not a std::exception: code catching those lets it pass.
struct isolation_needed {};
// Set by check() around a run in the test program under automatic isolation.
#if defined(__cpp_constinit)
extern constinit thread_local bool spawn_restarts_isolated;
#else  // C++17 consumers never touch it; the library's definition is constinit
extern thread_local bool spawn_restarts_isolated;
#endif

// The usage_error for an object (a `kind`: "steady_timer", "TCP socket",
// ...) of an io_context that outlived its world; it names the host and the
// seed. Defined with io_context, which keeps them.
[[noreturn]] void throw_orphaned(const context_state& ctx, const char* kind);

// now + d, saturating at duration::max() (which means "no deadline").
inline duration deadline_after(duration now, duration d) noexcept {
  if (d <= duration::zero()) return now;
  if (d >= duration::max() - now) return duration::max();
  return now + d;
}

// Any chrono duration as nanoseconds, negative as zero, too large as max().
template <class Rep, class Period>
duration saturating_ns(const std::chrono::duration<Rep, Period>& d) noexcept {
  using D = std::chrono::duration<Rep, Period>;
  if (d <= D::zero()) return duration::zero();
  if (d >= std::chrono::duration_cast<D>(duration::max())) return duration::max();
  return std::chrono::duration_cast<duration>(d);
}

// What ends a run besides running out of things to do.
struct run_limits {
  duration deadline = duration::max();                   // virtual time limit
  context_state* target = nullptr;                       // io_context::run*: stop when it has no work
  std::size_t target_max = std::numeric_limits<std::size_t>::max();  // io_context::run_one
  const std::function<bool()>* until = nullptr;          // world::run_until predicate
};

enum class run_end { quiescent, stalled, deadline, done, stopped, target_idle, target_count };

// Why a run driving `limits.target` (io_context::run*) ends after
// `target_handlers` of its handlers, or nothing: it was stopped, ran out of
// work, or ran as many as asked. (world_core::run_loop, process runs.)
inline bool target_run_ends(const run_limits& limits, std::size_t target_handlers, run_end& end) {
  const context_state& t = *limits.target;
  if (t.stopped) {
    end = run_end::stopped;
  } else if (t.work <= 0) {
    end = run_end::target_idle;
  } else if (target_handlers >= limits.target_max) {
    end = run_end::target_count;
  } else {
    return false;
  }
  return true;
}

struct run_result {
  std::size_t handlers = 0;         // all handlers run
  std::size_t target_handlers = 0;  // handlers of run_limits::target
  run_end end = run_end::quiescent;
};

class world_core {
 public:
  explicit world_core(const world_options& opts);
  ~world_core();
  world_core(const world_core&) = delete;
  world_core& operator=(const world_core&) = delete;

  const world_options& options() const noexcept { return opts_; }
  duration now() const noexcept { return now_; }
  std::uint64_t steps() const noexcept { return steps_; }
  // The strategy explores (not fifo): equivalent choices are drawn from the seed.
  bool explores() const noexcept { return explores_; }

  // ---- contexts -------------------------------------------------------
  void attach(context_state& ctx, host_state& host, boost::asio::execution_context& exec,
              int concurrency);
  void detach(context_state& ctx) noexcept;
  const std::vector<context_state*>& contexts() const noexcept { return contexts_; }

  // Objects of a world are used only by the thread running it, and only
  // while no other world runs on this thread: anything else is a
  // usage_error naming the host, before any operation is allocated.
  void check_thread(const context_state& ctx) const {
    const world_core* here = running_core_tls;
    if (here != this && (here != nullptr || running_.load(std::memory_order_relaxed))) SIMASIO_UNLIKELY
      wrong_thread(ctx, here);
  }

  // An object (socket, acceptor, timer) created before its host's latest
  // crash belongs to the process that died: using it once the host is up
  // again is a usage_error naming the crash. While the host is down, its
  // operations are dropped like any other.
  void check_alive(const context_state& ctx, std::uint32_t incarnation, const char* what) const {
    if (incarnation != ctx.host->incarnation && ctx.host->up) SIMASIO_UNLIKELY
      from_dead_process(ctx, what);
  }

  // A new operation: counts one unit of work and queues it.
  void post_new(context_state& ctx, operation* op) {
    ++ctx.work;
    enqueue(ctx, op);
  }
  // A pending operation that became ready: already counted as work.
  void post_ready(context_state& ctx, operation* op) { enqueue(ctx, op); }
  // A pending operation begins (a timer wait): one unit of work.
  void work_started(context_state& ctx) noexcept { ++ctx.work; }
  void work_finished(context_state& ctx) noexcept { --ctx.work; }
  // Destroys an operation that can never run (its host is down).
  void drop(context_state& ctx, operation* op) noexcept;

  void stop_context(context_state& ctx) noexcept;
  void restart_context(context_state& ctx);

  // A blocking call made by a handler of ctx lasts until world time
  // `until`: ctx runs nothing before then (its thread is in the call).
  void occupy(context_state& ctx, duration until);

  // A process crash: ready and pending operations of the host's contexts
  // are destroyed without running.
  void drop_host_work(host_state& host) noexcept;

  // ---- timed events -----------------------------------------------------
  void schedule(timed_event& ev, duration when);
  void cancel(timed_event& ev) noexcept;

  // ---- running ------------------------------------------------------------
  run_result run(const run_limits& limits);
  std::size_t poll(context_state& ctx, std::size_t max);
  void stop() noexcept { stop_requested_ = true; }
  bool stalled() const noexcept { return stalled_; }
  bool running() const noexcept { return running_.load(std::memory_order_relaxed); }
  bool in_handler() const noexcept { return current_ != nullptr; }
  context_state* current() const noexcept { return current_; }
  bool running_in(const context_state& ctx) const noexcept { return current_ == &ctx; }
  // An exception escaped an inline (dispatch) call: rethrown after the step.
  void capture_exception() noexcept {
    if (!pending_exception_) pending_exception_ = std::current_exception();
  }
  // A simulated process started its second thread: the program is
  // multi-threaded from here on, as glibc's pthread_create makes it
  // (__libc_single_threaded cleared: libstdc++'s static-init guards,
  // shared_ptr counts and locale setup take their thread-safe paths), and
  // that thread is the simulation's own, not one the run must refuse.
  static void simulated_thread_started() noexcept;
  // Runs f with clocks reading host's time (boot functions). It is not a
  // handler: dispatch from f queues, as it would from main().
  void run_as(host_state& host, const std::function<void()>& f);
  // The host whose clock simasio's clocks read now, or nullptr (world time).
  const host_state* clock_host() const noexcept { return current_ != nullptr ? current_->host : booting_; }

  // ---- simulated processes (process.cpp) -----------------------------------
  // Starts `main` as a process of `host` (its own stack, a fiber): it first
  // runs when the scheduler picks it, like a posted handler.
  std::shared_ptr<const process_status> spawn(simasio::host& host, host_state& state, std::function<int()> main);
  // Code running on a process's stack (a blocking call may suspend it).
  bool in_process() const noexcept { return current_process_ != nullptr; }
  // The host of the running process (in_process() only).
  simasio::host& process_host() const noexcept;
  // A wake-up for the running process's next suspension.
  process_wakeup prepare_wait() noexcept;
  // Suspends the running process until a wake-up of its current wait
  // arrives; other processes and handlers run meanwhile. False (at once)
  // when the process is dying and must not block: return an error. Throws
  // process_exit when its host crashed while it was suspended.
  bool suspend();
  // Called first by every blocking call in a process: false when it is
  // dying and must return an error instead (a destructor during its
  // unwinding); throws process_exit when its host crashed.
  bool may_block();
  // The running process's blocking call is about to suspend on `what`
  // (named in stall reports).
  void waiting_for(const char* what) noexcept;
  // A blocking wait until world time `when` (a timer's wait()).
  bool sleep_until(duration when);
  // A blocking call's wait (simasio::interpose's sockets, pipes, poll,
  // epoll_wait): suspends the running process until a wake-up of the wait
  // prepare_wait() began, or world time `deadline` (duration::max(): none).
  // `what` names it in stall reports. False at once when the process is
  // dying; throws process_exit when its host crashed meanwhile.
  bool block_until(duration deadline, const char* what);
  // io_context::run*() inside a process: waits until limits.target is out
  // of work, stopped, ran target_max handlers or the deadline passed.
  run_result process_run(const run_limits& limits);
  // io_context::poll*() inside a process: lets the world take one turn (a
  // scheduling point; virtual time does not move while a process is runnable).
  std::size_t process_poll(context_state& ctx, std::size_t max);
  // A crash of `host`: unwinds its processes' stacks (process_exit at each
  // suspension point); a process of the host that called crash() itself is
  // marked and must throw process_exit once the crash is done.
  void kill_processes(host_state& host);
  // After a crash: throws process_exit if the running process was killed by
  // it (it crashed its own host), or the usage_error of a killed process
  // that swallowed its process_exit.
  void exit_if_killed();
  // The world ends: unwinds every process still alive.
  void kill_all_processes() noexcept;
  // The process whose code calls (a process's fiber, or a handler of an
  // io_context a process made): its group + 1, or 0 for none.
  std::uint32_t calling_owner() const noexcept;
  // The scheduling context of process group owner - 1's first process
  // (calling_owner()'s): where its POSIX sockets live (src/posix/).
  context_state& owner_context(std::uint32_t owner) const noexcept;
  // The standard streams of process group owner - 1 (calling_owner()'s).
  std::shared_ptr<process_stdio> stdio_of(std::uint32_t owner) const;
  // Ends the running process (the one on whose stack this is called) as
  // the kernel ends a process: its threads stop where they are, its stacks
  // are discarded without unwinding (no destructor runs), the OS closes its
  // sockets and files, and its io_contexts die with it. `how` is
  // end_how::exited (`value` the exit status) or end_how::signaled (`value`
  // the signal); `why` names the cause in reports ("a failed assert: ...").
  // Never returns. in_process() only.
  [[noreturn]] void end_running_process(int how, int value, std::string why);
  // pthread_exit in a process: the calling thread (or main()) unwinds and
  // ends; the process lives on while another of its threads does.
  [[noreturn]] void exit_running_thread(void* retval);
  // Discards the rest of killed process p's stack (its unwinding called
  // std::terminate); runs on p's stack and switches away for good.
  [[noreturn]] void abandon(process_state& p) noexcept;
  void wake(std::uint32_t pid, std::uint64_t generation);
  // Suspends like suspend(), but never throws: false when the process is
  // dying or killed (then or while suspended). For the interposed C
  // functions that may not throw (pthread_mutex_lock, syscall).
  bool suspend_quietly();
  // A scheduling point in a process (a mutex's lock, a notify, a new
  // thread, sched_yield): it stays runnable and the world takes a turn,
  // which the strategy may give to another process. Never throws.
  void yield_point(const char* what = "a scheduling point");
  // The running process's mutexes, condition variables, futexes and
  // threads (threads.cpp, for simasio::interpose); created at first use.
  thread_sync& sync();
  // A process group ended without unwinding: its fibers' mutexes and waits
  // leave the tables (threads.cpp).
  void forget_group_sync(std::uint32_t group) noexcept;
  // The key the sync tables use for a mutex, condition variable or futex
  // at addr: addr itself, or, inside a library whose globals are per
  // process (process_image.hpp), addr tagged with the process whose bytes
  // are live there (each process's mutex at that address is its own).
  const void* sync_key(const void* addr) const noexcept;
  // This run spawned a simulated process, whose code may keep state in C
  // globals that outlive the world: automatic isolation (check()) runs such
  // a scenario's seeds in processes of their own.
  void note_os_state() noexcept { os_state_ = true; }
  bool os_state_used() const noexcept { return os_state_; }

  void always(std::string name, std::function<bool()> invariant);
  void sometimes(std::string name, std::function<bool()> condition);
  // Names of declared sometimes-conditions, and whether each was reached.
  std::vector<std::pair<std::string, bool>> reachability() const;
  bool buggify(std::string_view site);

  // ---- draws, trace, memory ------------------------------------------------
  // The stream named key (see tape_stream for the names): its own seed,
  // derived from the world's seed and the key, and its own section of the
  // tape; opened on first use, alive as long as the world. Callers keep the
  // reference instead of asking again.
  rng& stream(std::string_view key, choice_purpose p);
  // The same for a stream known by its key's FNV-1a, its key written only
  // when the tape needs it (choice_tape::open_deferred); a new generator
  // per call: the caller keeps it, one per key.
  rng& deferred_stream(std::uint64_t hash, choice_purpose p, choice_tape::key_writer write, const void* context,
                       std::uint64_t token);
  // Which context runs next, and the order of events due at one instant.
  rng& sched_rng() noexcept { return *sched_; }
  // Picks inside one host (its pool contexts' handlers, notify_one): the
  // host's own scheduler stream; the world's for code on no host.
  rng& sched_rng(host_state* h);
  // The run's fault families: world_options::faults, or drawn (swarm).
  const fault_mix& faults() const noexcept { return faults_; }
  // A rate of the scenario's (a link's loss, a disk's error rate) with the
  // fault mix's on top: two independent chances.
  static double with_mix(double own, double mix) noexcept { return mix > 0.0 ? own + mix - own * mix : own; }
  // world::random(): the scenario's stream.
  rng& user_rng() { return user_ != nullptr ? *user_ : *(user_ = &stream("user", choice_purpose::user)); }
  choice_tape& tape() noexcept { return tape_; }
  const choice_tape& tape() const noexcept { return tape_; }
  simasio::trace& events() noexcept { return trace_; }
  const simasio::trace& events() const noexcept { return trace_; }
  void record(event_kind k, std::uint32_t host, std::uint64_t a = 0, std::uint64_t b = 0) {
    trace_.record(steps_, now_.count(), host, k, a, b);
  }
  recycler& memory() noexcept { return memory_; }
  // Bytes for code that asks the system for randomness: getrandom,
  // std::random_device (simasio::interpose) and OpenSSL's RAND
  // (simasio::ssl) while this world runs. Their own stream of the seed,
  // off the choice tape: key material has no polite value to shrink
  // towards, and kilobytes of it per handshake would swamp the tape; a
  // replayed or shrunk tape still gets the seed's bytes, in the same order.
  void fill_entropy(void* out, std::size_t n) noexcept;

  // ---- the interposition library (detail/interpose.hpp) --------------------
  // Records a refused call; the run throws it as an escape_error after the step.
  void refuse(const char* message) noexcept;
  // Asio's reactor armed its timerfd for world time `deadline`
  // (duration::max(): disarmed). At that instant the world makes the fd
  // readable and polls Asio's schedulers, so Asio's own timers on simulated
  // contexts expire on virtual time. False when fd is not a timerfd.
  // `simulated`: fd is a process's simulated timerfd (src/posix/): no
  // kernel timer behind it, its expiry is already virtual.
  bool set_real_timerfd(int fd, duration deadline, bool simulated = false) noexcept;

  // Human-readable list of what is still waiting (stall and liveness reports).
  std::string diagnostics() const;
  // Name shown for a host id in messages.
  std::function<std::string(std::uint32_t)> host_namer;
  // The OS's part when a process ends without unwinding: close the sockets
  // and files of owner (group + 1). Set by world (socket_ops, the disk).
  std::function<void(std::uint32_t owner)> close_owned;
  // The OS's part when a process ends by any means: close the POSIX
  // descriptors (sockets, pipes, epoll) it left open. Set by world.
  std::function<void(std::uint32_t owner)> close_descriptors;

 private:
  // The generator of stream number s (of stream() or deferred_stream()),
  // made on first use (a deferred stream: a new one, its caller keeps it).
  rng& generator(std::uint32_t s, choice_purpose p);
  void enqueue(context_state& ctx, operation* op) {
    if (!ctx.host->up || ctx.dead) SIMASIO_UNLIKELY {
      drop(ctx, op);
      return;
    }
    op->seq_ = ++op_seq_;
    const bool was_empty = ctx.ready.empty();
    ctx.ready.push(op);
    if (was_empty && !ctx.stopped && !ctx.busy) {
      // Its head is the newest operation: the end keeps runnable_ ordered.
      ctx.runnable = true;
      runnable_.push_back(&ctx);
    }
  }
  void make_runnable(context_state& ctx);
  void make_unrunnable(context_state& ctx) noexcept;
  std::size_t pick_context() {
    return runnable_.size() == 1 ? 0 : pick_among_many();
  }
  std::size_t pick_among_many() { return strategy_->pick(boost::span<context_state* const>(runnable_)); }
  void reposition(std::size_t index) noexcept;
  // Defined inline in world_core.cpp, their only user: the loop's hot path.
  inline operation* take_operation(context_state& ctx, std::size_t index);
  inline void run_step(std::size_t index);
  void run_loop(const run_limits& limits, run_result& r);
  bool advance(duration deadline);
  bool any_live_work() const noexcept;
  [[noreturn]] void wrong_thread(const context_state& ctx, const world_core* here) const;
  [[noreturn]] void from_dead_process(const context_state& ctx, const char* what) const;
  void check_escapes();
  void check_escapes_slice();
  void check_escape(context_state& ctx);
  void drive_real_objects(context_state& ctx);
  void poll_real_scheduler(context_state& ctx);
  static void on_real_timerfd(timed_event* ev);
  static void on_busy_end(timed_event* ev);
  void sync_real_timerfds();
  void check_invariants();
  [[noreturn]] void throw_runaway();
  std::string host_name(std::uint32_t id) const;
  // processes (process.cpp)
  friend struct process_state;
  friend struct process_resume_op;
  void resume_process(process_state& p);
  void switch_to(process_state& p);
  void end_process(process_state& p, int how) noexcept;
  void end_group_threads(const process_state& main);
  void kill(process_state& p);
  void check_run_waiters();
  bool any_live_process() const noexcept;
  void describe_processes(std::ostream& os) const;
  void detach_waits(process_state& p) noexcept;
  [[noreturn]] void throw_parked(process_state& p);
  void finish_group_end();
  void unqueue(process_state& p) noexcept;
  void end_group_fibers(std::uint32_t group, int how, int value) noexcept;

  world_options opts_;
  duration now_{0};
  std::uint64_t steps_ = 0;
  std::uint64_t op_seq_ = 0;
  std::uint64_t event_seq_ = 0;
  std::uint64_t advances_ = 0;
  std::size_t escape_cursor_ = 0;  // next context check_escapes_slice looks at
  std::vector<context_state*> contexts_;  // by id; null once detached
  std::vector<context_state*> runnable_;  // ordered by the sequence number of each head op
  event_heap heap_;
  std::vector<timed_event*> batch_;  // events released together at one instant
  context_state* current_ = nullptr;
  const host_state* booting_ = nullptr;
  std::exception_ptr pending_exception_;
  std::atomic<bool> running_{false};  // atomic: another thread may look (check_thread)
  bool stop_requested_ = false;
  bool stalled_ = false;
  duration stalled_at_{0};        // when the stall began
  std::uint64_t stalled_step_ = 0;
  bool ever_stalled_ = false;
  choice_tape tape_;
  std::deque<rng> rngs_;                 // every stream's generator, in opening order (stable addresses)
  std::vector<rng*> streams_;            // by stream number (choice_tape::open); null: opened on the tape only
  rng* sched_ = nullptr;
  rng* user_ = nullptr;
  fault_mix faults_;
  xoshiro256 entropy_;
  std::unique_ptr<sched::strategy> strategy_;  // picks among runnable contexts (sched/)
  bool explores_ = true;                       // strategy_->explores(), read on every step
  bool watches_steps_ = false;                 // strategy_->watches_steps()
  struct invariant {
    std::string name;
    std::function<bool()> check;
  };
  std::vector<invariant> invariants_;
  struct reachable {
    std::string name;
    std::function<bool()> check;
    bool hit = false;
  };
  std::vector<reachable> sometimes_;
  std::size_t sometimes_open_ = 0;  // declared and not yet reached
  void check_sometimes();
  struct buggify_site {
    bool enabled = false;  // for this seed
    rng* draws = nullptr;  // its own stream
  };
  std::map<std::string, buggify_site, std::less<>> buggify_sites_;
  simasio::trace trace_;
  recycler memory_;
  // The interposition library's state; untouched by worlds that never call it.
  std::exception_ptr refused_;  // the first call refused during this run
  struct real_timerfd {
    real_timerfd(world_core* c, int f) noexcept : core(c), fd(f), ev(&on_real_timerfd, this) {}
    world_core* core;
    int fd;
    bool simulated = false;
    duration deadline = duration::max();  // world time; max(): disarmed
    timed_event ev;
  };
  std::vector<std::unique_ptr<real_timerfd>> real_timerfds_;
  // The owner of the context whose real Asio scheduler is being polled
  // (poll_real_scheduler): calling_owner() outside any handler then.
  std::uint32_t polling_owner_ = 0;
  bool real_timerfds_dirty_ = false;
  // Simulated processes; none in a world that never spawns.
  struct process_deleter {
    void operator()(process_state* p) const noexcept;  // process.cpp, where process_state is complete
  };
  std::vector<std::unique_ptr<process_state, process_deleter>> processes_;  // by pid
  std::vector<process_state*> run_waiters_;  // processes in io_context::run*(), in order of waiting
  process_state* current_process_ = nullptr;
  bool os_state_ = false;  // note_os_state()
  // A process group ending by exit()/abort() on its own stack: finished on
  // the scheduler's side, once its fiber has switched away for good.
  struct group_end {
    bool pending = false;
    std::uint32_t group = 0;
    int how = 0;
    int value = 0;
    std::string why;
  } group_end_;
  std::exception_ptr abnormal_;  // an abnormal end that fails the run (world_options::abnormal_exits_fail)
  std::exception_ptr process_misuse_;  // a killed process that swallowed its process_exit
  friend class thread_sync;
  struct thread_sync_deleter {
    void operator()(thread_sync* s) const noexcept;  // threads.cpp
  };
  std::unique_ptr<thread_sync, thread_sync_deleter> sync_;  // simulated threads' primitives
  struct images_deleter {
    void operator()(process_images* i) const noexcept;  // process.cpp
  };
  // Each process's copy of the process_libraries' globals; null until a
  // spawn finds such a library loaded (process_image.hpp).
  std::unique_ptr<process_images, images_deleter> images_;
  void switch_images(std::uint32_t owner);
  void forget_images(std::uint32_t owner) noexcept;
};

// The checks every use of an I/O object makes before it touches the world,
// in this order: the world still exists (a null core marks an io_context
// that outlived it), this thread runs it, and the object (a `kind` made at
// `incarnation`) belongs to its host's current process. A pointer test and
// two compares when all is well.
inline world_core& checked_core(const context_state& ctx, std::uint32_t incarnation, const char* kind) {
  world_core* core = ctx.core;
  if (core == nullptr) SIMASIO_UNLIKELY
    throw_orphaned(ctx, kind);
  core->check_thread(ctx);
  core->check_alive(ctx, incarnation, kind);
  return *core;
}

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_WORLD_CORE_HPP
