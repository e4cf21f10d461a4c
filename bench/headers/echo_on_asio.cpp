// echo_on_asio.cpp — the header-cost row's program on Boost.Asio: an echo
// server and client with callbacks, a timer and a strand. Compiled (not
// run) by simasio_bench's headers group beside echo_on_simasio.cpp, the
// same program on simasio.
#include <boost/asio.hpp>

#include <array>
#include <memory>
#include <string>

namespace net = boost::asio;
using net::ip::tcp;

#include "echo_program.ipp"

int main() {
  net::io_context io;
  run_echo(io, io);
  io.run();
}
