// unsimulated_test.cpp — what a simulation cannot run is refused by name, never run for real
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include "support.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace net = simasio::asio;

BOOST_AUTO_TEST_SUITE(unsimulated)

// A stream descriptor is simulated over a process's standard streams only
// (process/stdio_test.cpp): any other descriptor is refused by name.
BOOST_AUTO_TEST_CASE(posix_descriptors_throw_escape_error_naming_the_object) {
  simasio::world w(1);
  net::io_context& ioc = w.add_host("h").context();
  const int fd = ::open("/dev/null", O_RDONLY);
  BOOST_REQUIRE(fd >= 0);
  std::string what = simasio_test::what_of<simasio::escape_error>([&] { net::posix::stream_descriptor sd(ioc, fd); });
  BOOST_TEST(what.find("simasio: posix::stream_descriptor over descriptor " + std::to_string(fd)) != std::string::npos,
             what);
  BOOST_TEST(what.find("standard streams") != std::string::npos, what);
  what = simasio_test::what_of<simasio::escape_error>([&] { net::posix::descriptor d(ioc.get_executor()); });
  BOOST_TEST(what.find("net::posix::descriptor") != std::string::npos, what);
  // Nothing real was adopted: the descriptor is still ours to close.
  BOOST_TEST(::close(fd) == 0);
  // And the world runs on, with no real descriptor service to escape through.
  BOOST_TEST(!boost::asio::has_service<boost::asio::detail::reactive_descriptor_service>(ioc));
  w.run();
}

#if defined(BOOST_ASIO_HAS_SERIAL_PORT)
BOOST_AUTO_TEST_CASE(serial_port_throws_escape_error_before_opening_the_device) {
  simasio::world w(2);
  net::io_context& ioc = w.add_host("h").context();
  const std::string what =
      simasio_test::what_of<simasio::escape_error>([&] { net::serial_port port(ioc, "/dev/ttyS0"); });
  BOOST_TEST(what.find("simasio: net::serial_port cannot run in a simulation") != std::string::npos, what);
  BOOST_TEST(!boost::asio::has_service<boost::asio::detail::posix_serial_port_service>(ioc));
}
#endif

BOOST_AUTO_TEST_CASE(notify_fork_is_a_named_usage_error) {
  simasio::world w(3);
  net::io_context& ioc = w.add_host("h").context();
  const std::string what =
      simasio_test::what_of<simasio::usage_error>([&] { ioc.notify_fork(net::io_context::fork_prepare); });
  BOOST_TEST(what.find("io_context::notify_fork(fork_prepare)") != std::string::npos, what);
  BOOST_TEST(what.find("cannot fork inside a simulation") != std::string::npos, what);
}

BOOST_AUTO_TEST_SUITE_END()
