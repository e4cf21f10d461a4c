// beast_unswitched_tcp_stream.cpp — must not compile: boost::beast::tcp_stream (only the
// `net` alias switched) holds Asio's real socket and cannot take a simulated one
#include <simasio/asio.hpp>

#include <boost/beast/core/tcp_stream.hpp>

namespace net = simasio::asio;
namespace beast = boost::beast;  // not switched to simasio::beast

int main() {
  net::io_context ioc;
  beast::tcp_stream stream{net::ip::tcp::socket(ioc)};
  return stream.socket().is_open() ? 0 : 1;
}
