// guard.hpp — what a sweep says when its program ends in the middle of a seed (not installed)
//
// A sweep's verdict comes at its end; a seed that ends the test program
// first must not leave a silent exit status behind. While a sweep runs:
// - exit() and quick_exit() called by a seed that runs in this program
//   (its body or a handler) print that seed's FAILED line and a replay line,
//   and end the program with a non-zero status (the one exit() was given,
//   or 1 when it was given 0 or by quick_exit). _exit() runs no handler:
//   only a seed in a process of its own (isolation) reports it.
// - a fatal signal (SIGSEGV, a stack overflow among them, SIGBUS, SIGFPE,
//   SIGILL, SIGABRT, SIGTRAP, SIGSYS) in such a seed prints the same lines
//   with async-signal-safe writes, on an alternate stack, then goes on to
//   the handler that was there before (the default: the program dies of it).
// - SIGINT and SIGTERM are noted, forwarded to the seeds' processes, and
//   the sweep stops at its next seed with a partial summary, then ends the
//   program with the same signal.
// In a seed's own process (isolation) none of this applies: its parent
// reports what became of it.
#ifndef SIMASIO_SRC_CHECK_GUARD_HPP
#define SIMASIO_SRC_CHECK_GUARD_HPP

#include <cstdint>
#include <string>

#include <sys/types.h>

namespace simasio::check_impl::guard {

// Installed for a sweep's lifetime (sweeps may nest: the outermost owns the
// handlers). @p name is the FAILED line's name; @p command the replay
// line's tail (this program's quoted command line).
class sweep_guard {
 public:
  sweep_guard(const std::string& name, const std::string& command, std::uint64_t seeds);
  ~sweep_guard();
  sweep_guard(const sweep_guard&) = delete;
  sweep_guard& operator=(const sweep_guard&) = delete;

 private:
  bool owner_ = false;
};

// Marks @p seed as running in this program on the calling thread.
class seed_mark {
 public:
  explicit seed_mark(std::uint64_t seed) noexcept;
  ~seed_mark();
  seed_mark(const seed_mark&) = delete;
  seed_mark& operator=(const seed_mark&) = delete;

 private:
  int slot_;
};

// One more of the sweep's seeds finished (for the report's count).
void seed_finished() noexcept;

// The signal (SIGINT or SIGTERM) that asked the sweep to stop, or 0.
int interrupted() noexcept;

// After the sweep has printed its partial summary: restores the handlers
// that were there before and raises the signal again (the program ends as
// the signal asked).
[[noreturn]] void end_interrupted(int sig);

// A seed's process, known so SIGINT/SIGTERM reach it (forked children).
void child_started(pid_t pid) noexcept;
void child_ended(pid_t pid) noexcept;

}  // namespace simasio::check_impl::guard

#endif  // SIMASIO_SRC_CHECK_GUARD_HPP
