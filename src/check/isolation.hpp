// isolation.hpp — runs in forked children: a seed's run that starts from a fresh program and may die alone (not installed)
//
// check() runs a seed in a child forked from the test program, which runs
// no seed itself while it isolates: each child starts from the program as
// it was before any seed ran, whatever earlier seeds did to C globals,
// libraries' one-time state or the heap, and a child that dies (abort, a
// failed assert, SIGSEGV) takes only its seed with it. The child writes its
// outcome as bytes on a pipe and leaves with _exit (no atexit handlers, no
// second flush of the parent's buffers); the parent reads the bytes, or
// learns from waitpid which signal ended the child.
#ifndef SIMASIO_SRC_CHECK_ISOLATION_HPP
#define SIMASIO_SRC_CHECK_ISOLATION_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace simasio::detail::isolation {

// Bytes a child sends its parent: fixed-width integers and counted strings.
class writer {
 public:
  void u64(std::uint64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(std::string_view s) {
    u64(s.size());
    bytes_.append(s.data(), s.size());
  }
  void raw(const void* p, std::size_t n) {
    u64(n);
    bytes_.append(static_cast<const char*>(p), n);
  }
  const std::string& bytes() const noexcept { return bytes_; }

 private:
  std::string bytes_;
};

// Reads what a writer wrote; a short or malformed message reads as zeros
// and empty strings, and ok() turns false.
class reader {
 public:
  explicit reader(std::string_view bytes) noexcept : rest_(bytes) {}
  std::uint64_t u64() noexcept {
    std::uint64_t v = 0;
    if (rest_.size() < sizeof v) {
      ok_ = false;
      rest_ = {};
      return 0;
    }
    std::memcpy(&v, rest_.data(), sizeof v);
    rest_.remove_prefix(sizeof v);
    return v;
  }
  std::string str() {
    const std::uint64_t n = u64();
    if (n > rest_.size()) {
      ok_ = false;
      rest_ = {};
      return {};
    }
    std::string s(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return s;
  }
  bool ok() const noexcept { return ok_; }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

// What became of one child.
struct child_outcome {
  std::string message;      // what it sent (see child_body)
  bool complete = false;    // it sent its message and ended normally
  int signal = 0;           // the signal that ended it, 0 if none
  int exit_status = 0;      // its exit status when no signal ended it
  std::string output;       // its standard error (and output, with capture_output) when kept
  std::string output_tail;  // the last lines of its standard error
  bool hung = false;        // it outlived the wall-clock timeout and was killed (SIGXCPU, then SIGKILL)
  bool interrupted = false; // the sweep was interrupted (SIGINT/SIGTERM) before it ended: no outcome
  long peak_rss_kib = 0;    // its peak resident memory (getrusage's ru_maxrss)
};

// How long a child may run, in wall-clock time, before it is taken for hung
// (check_options::seed_timeout): 0 for no limit.
using timeout = std::chrono::milliseconds;

// The tag wait_any returns when the sweep was interrupted (SIGINT/SIGTERM).
constexpr std::uint64_t interrupted_tag = ~std::uint64_t{0};

// The child's work: returns the message for the parent. It runs in the
// forked child only.
using child_body = std::function<std::string()>;

// Called in a child that a fatal signal is ending, before it dies: returns
// what the child can still say (the failing run's tape and trace, say), or
// an empty string. Best effort: it runs inside a signal handler, with a
// deadline (a child whose heap is broken may never return from it).
using last_words = std::function<std::string(int signal)>;

// Sets (or clears, with nullptr) what a dying child says; in a child only.
void set_last_words(last_words words);

// Children running at once, each doing one body. A child's standard error
// goes to the parent's, line by line as it comes (or, with capture_output,
// its standard output and error are kept in child_outcome::output and
// shown by no one).
class children {
 public:
  explicit children(bool capture_output = false, isolation::timeout limit = isolation::timeout{0}) noexcept
      : capture_(capture_output), limit_(limit) {}
  ~children();
  children(const children&) = delete;
  children& operator=(const children&) = delete;

  // Forks a child doing @p body, known by @p tag. @throws config_error
  // naming the descriptor or process limit when pipe or fork fails for it.
  void start(std::uint64_t tag, child_body body);
  std::size_t running() const noexcept { return live_.size(); }
  // Waits until a child has ended; returns its tag and outcome. A child
  // that outlives the timeout gets SIGXCPU (its last words say where it
  // was), then SIGKILL, and ends hung. When the sweep is interrupted it
  // returns interrupted_tag at once (the children are reaped by the destructor).
  std::pair<std::uint64_t, child_outcome> wait_any();

 private:
  struct child;
  int watch();
  bool capture_;
  isolation::timeout limit_;
  std::vector<child*> live_;
};

// One body in one child, waited for.
child_outcome run_in_child(child_body body, bool capture_output = false,
                           isolation::timeout limit = isolation::timeout{0});

// True in a child forked by children::start (and its descendants).
bool in_child() noexcept;

}  // namespace simasio::detail::isolation

#endif  // SIMASIO_SRC_CHECK_ISOLATION_HPP
