// simasio/process.hpp — a simulated process: a function (a main()) running on its own stack on a host
#ifndef SIMASIO_PROCESS_HPP
#define SIMASIO_PROCESS_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace simasio {

namespace detail {
struct process_stdio;
// What a process handle reads; written by the world (process.cpp).
struct process_status {
  std::uint32_t id = 0;
  bool ended = false;
  bool killed = false;  // ended by its host's crash, or the world's end
  bool threw = false;   // an exception escaped it (and failed the run)
  std::optional<int> exit_code;
  std::optional<int> signal;  // the signal that ended it (abort, a failed assert, std::terminate, raise, kill)
  std::string why;            // what ended it abnormally, for reports
  std::shared_ptr<process_stdio> stdio;  // its standard streams (stdio.cpp)
};
}  // namespace detail

/// A handle to a simulated process started by host::spawn or
/// host::spawn_main. Copyable; it outlives the process (and its world)
/// safely, and reads what became of it.
class process {
 public:
  /// A handle to no process.
  process() = default;
  /// A handle that reads @p s, the status the world keeps up to date as the
  /// process runs and ends (host::spawn and host::spawn_main make these).
  explicit process(std::shared_ptr<const detail::process_status> s) noexcept : status_(std::move(s)) {}

  /// The process id: spawn order in its world (0, 1, ...).
  std::uint32_t id() const noexcept { return status_ ? status_->id : 0; }
  /// True once its function returned, threw, or its host crashed.
  bool ended() const noexcept { return status_ && status_->ended; }
  /// True if a crash of its host (or the end of its world) ended it.
  bool killed() const noexcept { return status_ && status_->killed; }
  /// What its function returned (main()'s exit code for host::spawn_main, 0
  /// for host::spawn), or the status it passed to exit(), _exit() or
  /// quick_exit(); empty while it runs, or if a signal or a crash ended it.
  std::optional<int> exit_code() const noexcept { return status_ ? status_->exit_code : std::nullopt; }
  /// The signal that ended it, as a shell's $? would say 128 + signal:
  /// SIGABRT for abort(), a failed assert, std::terminate and an uncaught
  /// exception; the signal raise() or kill() sent. Empty otherwise.
  std::optional<int> signal() const noexcept { return status_ ? status_->signal : std::nullopt; }
  /// What ended it abnormally ("a failed assert: prog.c:12: main: Assertion
  /// `x' failed."), empty if nothing did.
  std::string why() const { return status_ ? status_->why : std::string(); }

  /// Its standard input, output and error are pipes between it and the
  /// scenario: descriptors 0, 1 and 2 of the process (read through
  /// posix::stream_descriptor, or read()/write() with simasio::interpose;
  /// with simasio::interpose, C stdio on stdin, stdout and stderr and so
  /// std::cin, std::cout and std::cerr reach them too).
  ///
  /// write_stdin appends @p data to its standard input, at this point of
  /// the run: a read waiting on it completes (as a step of the reader's
  /// context); callable before the process first runs, from the scenario
  /// or from any handler. @throws simasio::usage_error after close_stdin.
  void write_stdin(std::string_view data) const;
  /// Ends its standard input: reads get end of file (eof) once what was
  /// written is read.
  void close_stdin() const;
  /// What it wrote to its standard output (descriptor 1) so far.
  std::string stdout_text() const;
  /// What it wrote to its standard error (descriptor 2) so far.
  std::string stderr_text() const;

 private:
  std::shared_ptr<const detail::process_status> status_;
};

}  // namespace simasio

#endif  // SIMASIO_PROCESS_HPP
