// scenario.hpp — what the consumer projects build and run: a request over
// simulated UDP with loss and a retry, swept over 50 seeds.
#pragma once

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>
#include <simasio/version.hpp>

#include <array>
#include <cstdio>
#include <memory>

namespace consumer {

namespace net = simasio::asio;
using net::ip::udp;

inline int run() {
  simasio::check_options opts;
  opts.seeds = 50;
  opts.name = "consumer";
  opts.artifacts = false;
  const auto result = simasio::check(
      [](simasio::world& w) {
        simasio::link_config link;
        link.loss = 0.2;
        w.net().configure(link);
        auto& server = w.add_host("server");
        auto& client = w.add_host("client");
        // The server answers every ping, for as long as the world runs.
        struct echo_server {
          explicit echo_server(udp::socket s) : socket(std::move(s)) {}
          udp::socket socket;
          std::array<char, 4> in{};
          udp::endpoint from;
          void serve(std::shared_ptr<echo_server> self) {
            socket.async_receive_from(net::buffer(in), from, [self](boost::system::error_code ec, std::size_t n) {
              if (ec) return;
              self->socket.send_to(net::buffer(self->in.data(), n), self->from);
              self->serve(self);
            });
          }
        };
        auto echo = std::make_shared<echo_server>(udp::socket(server.context(), udp::endpoint(udp::v4(), 7)));
        echo->serve(echo);
        udp::socket s(client.context(), udp::endpoint(udp::v4(), 0));
        bool answered = false;
        for (int attempt = 0; attempt < 20 && !answered; ++attempt) {
          s.send_to(net::buffer("ping", 4), udp::endpoint(server.address(), 7));
          std::array<char, 4> reply{};
          s.async_receive(net::buffer(reply), [&](boost::system::error_code ec, std::size_t) { answered = !ec; });
          w.run_for(std::chrono::milliseconds(100));
          s.cancel();
          w.run();
          if (answered) break;
        }
        if (!answered) throw std::runtime_error("no answer after 20 attempts");
      },
      opts);
  std::printf("simasio %s: %llu seeds, %s\n", SIMASIO_VERSION_STRING, static_cast<unsigned long long>(result.runs),
              result.ok() ? "ok" : "FAILED");
  return result.ok() ? 0 : 1;
}

}  // namespace consumer
