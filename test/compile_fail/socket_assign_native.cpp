// A simulated socket has no descriptor of the real OS: adopting one is
// refused at compile time, with simasio's message.
#include <simasio/asio.hpp>

namespace net = simasio::asio;

int main() {
  net::io_context ctx;
  net::ip::tcp::socket s(ctx);
  s.assign(net::ip::tcp::v4(), 3);
}
