// tcp_iostream.cpp — must not compile: net::ip::tcp::iostream blocks on a real socket
#include <simasio/asio.hpp>

namespace net = simasio::asio;

int main() {
  net::ip::tcp::iostream s;
  return s ? 0 : 1;
}
