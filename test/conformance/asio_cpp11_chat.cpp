// asio_cpp11_chat.cpp — Asio's cpp11/chat chat_server and chat_client, alias-switched
//
// chat_client's main() runs its io_context on a std::thread and reads
// stdin; the harness uses its chat_client class as main() does, on two
// client hosts, and writes what main() would read.
#include <simasio/asio.hpp>
#include <simasio/boost_test.hpp>

#include "conformance.hpp"

#include "asio_cpp11_chat_server.ipp"
#include "asio_cpp11_chat_client.ipp"

#include <cstring>

namespace {
namespace net = simasio::asio;
using net::ip::tcp;

chat_message message(const std::string& text) {
  chat_message msg;
  msg.body_length(text.size());
  std::memcpy(msg.body(), text.data(), msg.body_length());
  msg.encode_header();
  return msg;
}
}  // namespace

SIMASIO_TEST_CASE(cpp11_chat, conformance::seeds) {
  auto& server = world.add_host("server");
  auto& alice = world.add_host("alice");
  auto& bob = world.add_host("bob");
  conformance::faults(world, alice, server);
  asio_cpp11_chat_server::chat_server room(server.context(), tcp::endpoint(tcp::v4(), 9000));
  conformance::capture out;
  tcp::resolver ra(alice.context()), rb(bob.context());
  asio_cpp11_chat_client::chat_client a(alice.context(), ra.resolve("server", "9000"));
  asio_cpp11_chat_client::chat_client b(bob.context(), rb.resolve("server", "9000"));
  a.write(message("alice: hi"));
  b.write(message("bob: hello"));
  world.run_for(std::chrono::minutes(2));
  a.close();
  b.close();
  world.run_for(std::chrono::seconds(1));
  // Every member prints every message of the room (its own included): each
  // line twice, once per member.
  const std::string text = out.out();
  for (const char* line : {"alice: hi\n", "bob: hello\n"}) {
    std::size_t n = 0;
    for (std::size_t at = text.find(line); at != std::string::npos; at = text.find(line, at + 1)) ++n;
    if (n != 2)
      throw std::runtime_error(std::string("\"") + line + "\" was printed " + std::to_string(n) + " times, not 2:\n" +
                               text);
  }
}
