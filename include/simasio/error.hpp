// simasio/error.hpp — simulation-only error codes and simasio's exceptions
#ifndef SIMASIO_ERROR_HPP
#define SIMASIO_ERROR_HPP

#include <boost/system/error_code.hpp>
#include <boost/system/system_error.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace simasio {
namespace error {

/// Outcomes that exist only in simulation. Network outcomes reuse
/// boost::asio::error values (connection_refused, eof, timed_out, ...).
enum sim_errors {
  /// A synchronous (blocking) operation was called inside a handler: the
  /// only thread that could complete it is the one that would block.
  would_block = 1,
  /// A synchronous operation was called from the test body, but the world
  /// stalled (nothing left that could ever complete it).
  stalled = 2,
  /// The operation's host is crashed.
  host_down = 3,
};

/// The "simasio" error category.
const boost::system::error_category& get_sim_category() noexcept;

/// The error_code of @p e, in the "simasio" category: what a sim_errors
/// value converts to (is_error_code_enum is specialised for it below).
inline boost::system::error_code make_error_code(sim_errors e) noexcept {
  return {static_cast<int>(e), get_sim_category()};
}

}  // namespace error

/// A real Asio I/O object (timer, socket, resolver, signal_set, descriptor)
/// was bound to a simulated context, or a simulated object to a real one.
class escape_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// A world::always invariant did not hold after a step.
class invariant_error : public std::runtime_error {
 public:
  /// The failure of the invariant named @p name.
  /// @param name the invariant's name, as given to world::always.
  /// @param what the message what() returns.
  invariant_error(std::string name, const std::string& what)
      : std::runtime_error(what), name_(std::move(name)) {}
  /// The invariant's name, as given to world::always.
  const std::string& name() const noexcept { return name_; }

 private:
  std::string name_;
};

/// A scenario ran more steps than world_options::max_steps allows.
class runaway_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A simulated process ended abnormally: abort(), a failed assert,
/// std::terminate, or a fatal signal it raised (world_options::abnormal_exits_fail).
class abnormal_exit : public std::runtime_error {
 public:
  /// The abnormal end of process @p process of host @p host.
  /// @param what the message what() returns (what ended the process).
  /// @param host the name of the host the process ran on.
  /// @param process its process id (simasio::process::id()).
  /// @param signal the signal that ended it.
  abnormal_exit(const std::string& what, std::string host, std::uint32_t process, int signal)
      : std::runtime_error(what), host_(std::move(host)), process_(process), signal_(signal) {}
  /// The host the process ran on.
  const std::string& host() const noexcept { return host_; }
  /// Its process id (simasio::process::id()).
  std::uint32_t process() const noexcept { return process_; }
  /// The signal that ended it (SIGABRT for abort, assert and std::terminate).
  int signal() const noexcept { return signal_; }

 private:
  std::string host_;
  std::uint32_t process_;
  int signal_;
};

/// simasio was used in a way that can never work (nested run inside a
/// handler, an I/O object on a context of another world, ...).
class usage_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// A malformed setting: an environment variable (SIMASIO_SEED, ...), a
/// command-line argument or an option value.
class config_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A choice tape that is malformed or does not fit the program.
class tape_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failure artifact (a trace, a page, a tape) that could not be written
/// whole; what() names the file, the directory and the system's reason
/// (errno). What was written of it is removed.
class artifact_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace simasio

namespace boost::system {
template <>
struct is_error_code_enum<simasio::error::sim_errors> : std::true_type {};
}  // namespace boost::system

#endif  // SIMASIO_ERROR_HPP
