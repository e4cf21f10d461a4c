// test_package: a world with two hosts, one datagram, one virtual second.
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <cstdio>

int main() {
  namespace net = simasio::asio;
  simasio::world w(1);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  net::ip::udp::socket rx(b.context(), {net::ip::udp::v4(), 9});
  net::ip::udp::socket tx(a.context(), net::ip::udp::v4());
  char buf[5] = {};
  std::size_t got = 0;
  rx.async_receive(net::buffer(buf), [&](boost::system::error_code ec, std::size_t n) { got = ec ? 0 : n; });
  tx.send_to(net::buffer("hello", 5), {b.address(), 9});
  w.run_for(std::chrono::seconds(1));
  std::printf("simasio %s test_package: %zu bytes delivered at t=%lldns\n", SIMASIO_VERSION_STRING, got,
              static_cast<long long>(w.now().count()));
  return got == 5 ? 0 : 1;
}
