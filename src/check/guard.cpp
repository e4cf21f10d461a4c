// guard.cpp — a seed that ends the test program still names itself: exit,
// quick_exit and fatal signals during a sweep, and SIGINT/SIGTERM (guard.hpp)
#include "guard.hpp"

#include "isolation.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

namespace simasio::check_impl::guard {

namespace {

constexpr int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
constexpr int stop_signals[] = {SIGINT, SIGTERM};
constexpr std::size_t slots = 256;       // seeds running at once in this program (threads)
constexpr std::size_t child_slots = 1024;  // seeds' processes at once

// One seed running in this program: which, and whether the slot is taken.
struct slot {
  std::atomic<bool> used{false};
  std::atomic<std::uint64_t> seed{0};
};

slot running[slots];
std::atomic<pid_t> children_pids[child_slots];
std::atomic<bool> active{false};       // a sweep owns the handlers
std::atomic<bool> reported{false};     // the report was written (once per sweep)
std::atomic<int> stop_signal{0};
std::atomic<int> depth{0};
std::atomic<std::uint64_t> finished{0};  // the sweep's seeds that finished
std::uint64_t total = 0;                 // and how many it has
thread_local int my_slot = -1;

// What the report says, made before any seed runs (a signal handler may
// only read it): "simasio: FAILED <name> seed=" and " SIMASIO_ISOLATION=1 <command>\n".
std::string failed_name;    // "simasio: FAILED <name>"
std::string failed_prefix;  // and " seed="
std::string replay_suffix;

struct sigaction previous_fatal[std::size(fatal_signals)];
struct sigaction previous_stop[std::size(stop_signals)];

// ---- async-signal-safe writing ----------------------------------------------

void put(const char* s, std::size_t n) noexcept {
  while (n > 0) {
    const ssize_t w = ::write(2, s, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}
void put(const char* s) noexcept { put(s, std::strlen(s)); }
void put(const std::string& s) noexcept { put(s.data(), s.size()); }
void put_number(std::uint64_t v) noexcept {
  char digits[24];
  std::size_t n = 0;
  do {
    digits[sizeof digits - 1 - n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  put(digits + sizeof digits - n, n);
}

const char* signal_text(int sig) noexcept {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (a bad memory access, or a stack overflow: a handler that recursed without end)";
    case SIGBUS: return "SIGBUS (a bad memory access: a truncated mapping or a misaligned access)";
    case SIGFPE: return "SIGFPE (an arithmetic fault: an integer division by zero)";
    case SIGILL: return "SIGILL (an illegal instruction: __builtin_trap, or a corrupted return address)";
    case SIGABRT: return "SIGABRT (abort(): a failed assert, std::terminate, or a library's fatal check)";
    case SIGTRAP: return "SIGTRAP (a breakpoint trap)";
    case SIGSYS: return "SIGSYS (a bad system call)";
    default: return "a fatal signal";
  }
}

// The seed the calling thread runs, or the first one running anywhere;
// false when no seed runs (the sweep was between seeds).
bool seed_in_flight(std::uint64_t& seed) noexcept {
  if (my_slot >= 0) {
    seed = running[my_slot].seed.load();
    return true;
  }
  for (const slot& s : running)
    if (s.used.load()) {
      seed = s.seed.load();
      return true;
    }
  return false;
}

// The report: the FAILED line (how the seed ended the program) and the line
// that replays it in a process of its own, where it is an ordinary failure.
void report(const char* how, const char* detail, std::uint64_t detail_number, bool with_number) noexcept {
  std::uint64_t seed = 0;
  const bool known = seed_in_flight(seed);
  put("\n");
  if (known) {
    put(failed_prefix);
    put_number(seed);
    put(": ");
  } else {
    put(failed_name);
    put(": between seeds, ");
  }
  put(how);
  if (with_number) put_number(detail_number);
  put(detail);
  put(" before the sweep reached its verdict (");
  put_number(finished.load());
  put(" of ");
  put_number(total);
  put(" seeds had finished)\n");
  if (known) {
    put("simasio: replay: SIMASIO_SEED=");
    put_number(seed);
    put(replay_suffix);
  }
}

// ---- exit() and quick_exit() --------------------------------------------------

void on_exit_during_sweep(int status, void*) {
  if (!active.load() || detail::isolation::in_child() || reported.exchange(true)) return;
  std::fflush(nullptr);
  report("the seed ended the test program with exit(", ")", static_cast<std::uint64_t>(status), true);
  ::_exit(status != 0 ? status : 1);
}

void on_quick_exit_during_sweep() {
  if (!active.load() || detail::isolation::in_child() || reported.exchange(true)) return;
  std::fflush(nullptr);
  report("the seed ended the test program with quick_exit()", "", 0, false);
  ::_exit(1);
}

// ---- signals -------------------------------------------------------------------

void restore_fatal() noexcept {
  for (std::size_t i = 0; i < std::size(fatal_signals); ++i) ::sigaction(fatal_signals[i], &previous_fatal[i], nullptr);
}

void restore_stop() noexcept {
  for (std::size_t i = 0; i < std::size(stop_signals); ++i) ::sigaction(stop_signals[i], &previous_stop[i], nullptr);
}

// The sweep's handlers and marks go: from its owner's destructor, or from a
// fatal signal (a test framework's handler may then jump past the sweep's
// destructors, as Boost.Test's siglongjmp does, and the next sweep starts
// afresh).
void teardown() noexcept {
  active.store(false);
  restore_fatal();
  if (stop_signal.load() == 0) restore_stop();
  for (slot& s : running) s.used.store(false);
  my_slot = -1;
  depth.store(0);
}

void on_fatal(int sig, siginfo_t*, void*) {
  const int saved = errno;
  if (active.load() && !detail::isolation::in_child() && !reported.exchange(true))
    report("the seed killed the test program with ", signal_text(sig), 0, false);
  // What was there before gets the signal: it is pending until this returns
  // (blocked while its handler runs); a fault would also come again.
  teardown();
  ::raise(sig);
  errno = saved;
}

void on_stop(int sig) {
  const int saved = errno;
  if (stop_signal.exchange(sig) != 0) {
    // A second one: stop now.
    restore_stop();
    ::raise(sig);
  }
  for (auto& pid : children_pids)
    if (const pid_t p = pid.load(); p > 0) ::kill(p, sig);
  errno = saved;
}

void install() {
  struct sigaction sa {};
  sa.sa_sigaction = &on_fatal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(fatal_signals); ++i) ::sigaction(fatal_signals[i], &sa, &previous_fatal[i]);
  struct sigaction st {};
  st.sa_handler = &on_stop;
  st.sa_flags = SA_RESTART;
  sigemptyset(&st.sa_mask);
  for (std::size_t i = 0; i < std::size(stop_signals); ++i) ::sigaction(stop_signals[i], &st, &previous_stop[i]);
}

// A stack for signal handlers on each thread that runs seeds and has none
// (a stack overflow leaves no room on the thread's own).
class alternate_stack {
 public:
  void ensure() noexcept {
    if (mine_ != nullptr) return;
    stack_t current{};
    if (::sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) == 0) return;  // one is there
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    stack_t st{};
    st.ss_sp = p;
    st.ss_size = size;
    if (::sigaltstack(&st, nullptr) != 0) {
      ::munmap(p, size);
      return;
    }
    mine_ = p;
  }
  ~alternate_stack() {
    if (mine_ == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
    ::munmap(mine_, size);
  }

 private:
  static constexpr std::size_t size = 128 * 1024;
  void* mine_ = nullptr;
};

thread_local alternate_stack thread_stack;

}  // namespace

sweep_guard::sweep_guard(const std::string& name, const std::string& command, std::uint64_t seeds) {
  if (depth.fetch_add(1) != 0 || detail::isolation::in_child()) return;
  owner_ = true;
  static std::once_flag registered;
  std::call_once(registered, [] {
    ::on_exit(&on_exit_during_sweep, nullptr);
    std::at_quick_exit(&on_quick_exit_during_sweep);
  });
  failed_name = "simasio: FAILED " + name;
  failed_prefix = failed_name + " seed=";
  replay_suffix = " SIMASIO_ISOLATION=1 " + command + "\n";
  reported.store(false);
  stop_signal.store(0);
  finished.store(0);
  total = seeds;
  install();
  active.store(true);
}

sweep_guard::~sweep_guard() {
  if (!owner_) {
    if (depth.load() > 0) depth.fetch_sub(1);
    return;
  }
  if (active.load()) teardown();  // (a fatal signal may have done it already)
}

seed_mark::seed_mark(std::uint64_t seed) noexcept : slot_(-1) {
  if (!active.load() || my_slot >= 0 || detail::isolation::in_child()) return;
  for (std::size_t i = 0; i < slots; ++i) {
    bool expected = false;
    if (running[i].used.compare_exchange_strong(expected, true)) {
      running[i].seed.store(seed);
      slot_ = static_cast<int>(i);
      my_slot = slot_;
      break;
    }
  }
  thread_stack.ensure();
}

seed_mark::~seed_mark() {
  if (slot_ < 0 || my_slot != slot_) return;  // (torn down by a fatal signal)
  my_slot = -1;
  running[slot_].used.store(false);
}

void seed_finished() noexcept { finished.fetch_add(1); }

int interrupted() noexcept { return stop_signal.load(); }

void end_interrupted(int sig) {
  std::fflush(nullptr);
  restore_stop();
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // the signal was ignored before the sweep: end as a shell would say it
}

void child_started(pid_t pid) noexcept {
  for (auto& p : children_pids) {
    pid_t expected = 0;
    if (p.compare_exchange_strong(expected, pid)) return;
  }
}

void child_ended(pid_t pid) noexcept {
  for (auto& p : children_pids) {
    pid_t expected = pid;
    if (p.compare_exchange_strong(expected, 0)) return;
  }
}

}  // namespace simasio::check_impl::guard
