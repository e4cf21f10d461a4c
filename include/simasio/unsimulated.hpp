// simasio/unsimulated.hpp — Asio I/O objects a simulation cannot run, refused by name
//
// A serial port, a POSIX descriptor and a socket iostream read or write the
// real machine (a device, a file descriptor, a blocking real socket). In
// the drop-in namespace they keep Asio's names and members so code that
// merely contains them still compiles, but:
//
//   net::serial_port, net::posix::descriptor
//       constructing one throws simasio::escape_error naming the object,
//       before anything real is opened (net::posix::stream_descriptor is
//       simulated over a process's standard streams, and refuses any other
//       descriptor: posix/basic_stream_descriptor.hpp);
//   net::ip::tcp::iostream
//       any use (a variable, a member) fails to compile with a static_assert
//       naming simasio and what to use instead.
#ifndef SIMASIO_UNSIMULATED_HPP
#define SIMASIO_UNSIMULATED_HPP

#include <simasio/error.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/basic_serial_port.hpp>
#include <boost/asio/posix/basic_descriptor.hpp>

#include <string>
#include <utility>

namespace simasio::detail {

// The first base of an unsimulated object: its constructor throws, so the
// Asio base after it is never constructed (nothing real is opened).
class refuse_construction {
 protected:
  refuse_construction(const char* object, const char* instead) {
    throw escape_error(std::string("simasio: ") + object +
                       " cannot run in a simulation: it reads and writes the real machine, which no seed "
                       "replays. " + instead);
  }
};

// ip::tcp::iostream: a blocking std::iostream over a real socket.
template <typename Protocol>
class unsimulated_socket_iostream {
  static_assert(sizeof(Protocol) == 0,
                "simasio: net::ip::tcp::iostream (basic_socket_iostream) is not simulated: it blocks a "
                "std::iostream on a real socket. Use net::ip::tcp::socket with net::read/net::write (or "
                "net::streambuf with net::async_read_until) over the simulated network");
};

}  // namespace simasio::detail

namespace simasio {

#if defined(BOOST_ASIO_HAS_SERIAL_PORT)
/// boost::asio::basic_serial_port's members; constructing one throws
/// simasio::escape_error (a device of the real machine is never simulated).
template <typename Executor = boost::asio::any_io_executor>
class basic_serial_port : private detail::refuse_construction, public boost::asio::basic_serial_port<Executor> {
 public:
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_serial_port<Executor1>;
  };
  template <typename... Args>
  explicit basic_serial_port(Args&&... args)
      : refuse_construction("net::serial_port",
                            "Give the code under test a stream interface and a simulated peer instead "
                            "(a net::ip::tcp::socket to a host of the world), and keep serial_port out "
                            "of the simulated build"),
        boost::asio::basic_serial_port<Executor>(std::forward<Args>(args)...) {}
};
using serial_port = basic_serial_port<>;
#endif  // defined(BOOST_ASIO_HAS_SERIAL_PORT)

#if defined(BOOST_ASIO_HAS_POSIX_STREAM_DESCRIPTOR)
namespace posix {

inline constexpr const char* descriptor_instead =
    "Feed the code under test from a simulated peer instead (a net::ip::tcp::socket or "
    "net::ip::udp::socket to a host of the world), and keep real descriptors out of the simulated build";

/// boost::asio::posix::basic_descriptor's members; constructing one throws
/// simasio::escape_error (a real file descriptor is never simulated).
template <typename Executor = boost::asio::any_io_executor>
class basic_descriptor : private simasio::detail::refuse_construction,
                         public boost::asio::posix::basic_descriptor<Executor> {
 public:
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_descriptor<Executor1>;
  };
  template <typename... Args>
  explicit basic_descriptor(Args&&... args)
      : refuse_construction("net::posix::descriptor", descriptor_instead),
        boost::asio::posix::basic_descriptor<Executor>(std::forward<Args>(args)...) {}
};
using descriptor = basic_descriptor<>;

}  // namespace posix
#endif  // defined(BOOST_ASIO_HAS_POSIX_STREAM_DESCRIPTOR)

}  // namespace simasio

#endif  // SIMASIO_UNSIMULATED_HPP
