// echo_on_simasio.cpp — the header-cost row's program on simasio: the same
// echo as echo_on_asio.cpp, with the alias switched and a world around it.
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <array>
#include <memory>
#include <string>

namespace net = simasio::asio;
using net::ip::tcp;

#include "echo_program.ipp"

int main() {
  simasio::world world(1);
  run_echo(world.add_host("server").context(), world.add_host("client").context());
  world.run();
}
