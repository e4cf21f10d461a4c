// spawn_without_header.cpp — must not compile: net::spawn without <simasio/spawn.hpp> names the header
#include <simasio/asio.hpp>

namespace net = simasio::asio;

int main() {
  net::io_context ioc;
  net::spawn(ioc, [](auto) {});
  ioc.run();
}
