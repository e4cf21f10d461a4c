// gossip.hpp — a gossip scenario that scales with the number of hosts.
//
// Every host owns a version number and a UDP socket. Every 100 ms of its
// own time it bumps its version and sends its highest known version to 3
// peers drawn from the seed; a receiver keeps the maximum, and may log it.
#pragma once

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace bench::gossip {

namespace net = simasio::asio;
using net::ip::udp;

class peer : public std::enable_shared_from_this<peer> {
 public:
  peer(simasio::world& w, simasio::host& h, const std::vector<udp::endpoint>& peers, bool log)
      : world_(w), peers_(peers), socket_(h.context(), udp::endpoint(udp::v4(), 9000)), tick_(h.context()),
        logger_(log ? simasio::log::logger(h) : nullptr) {}

  void start() {
    receive();
    tick();
  }

 private:
  void receive() {
    socket_.async_receive_from(net::buffer(&in_, sizeof in_), from_,
                               [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                                 if (ec) return;
                                 if (self->in_ > self->known_) {
                                   self->known_ = self->in_;
                                   if (self->logger_) self->logger_->info("learned version {}", self->known_);
                                 }
                                 self->receive();
                               });
  }

  void tick() {
    ++known_;
    for (int k = 0; k < 3; ++k) {
      const auto& to = peers_[static_cast<std::size_t>(world_.random().below(peers_.size()))];
      socket_.async_send_to(net::buffer(&known_, sizeof known_), to, [](auto, auto) {});
    }
    tick_.expires_after(std::chrono::milliseconds(100));
    tick_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec) self->tick();
    });
  }

  simasio::world& world_;
  const std::vector<udp::endpoint>& peers_;
  udp::socket socket_;
  net::steady_timer tick_;
  std::shared_ptr<spdlog::logger> logger_;
  std::uint64_t in_ = 0;
  std::uint64_t known_ = 0;
  udp::endpoint from_;
};

/// Runs `hosts` peers for `virtual_time`; returns the number of trace events.
inline std::uint64_t run(simasio::world& w, std::size_t hosts, simasio::duration virtual_time, bool log = false) {
  std::vector<simasio::host*> hs;
  std::vector<udp::endpoint> endpoints;
  for (std::size_t i = 0; i < hosts; ++i) {
    hs.push_back(&w.add_host("g" + std::to_string(i)));
    endpoints.emplace_back(hs.back()->address(), 9000);
  }
  for (auto* h : hs) std::make_shared<peer>(w, *h, endpoints, log)->start();
  w.run_for(virtual_time);
  return w.events().size();
}

}  // namespace bench::gossip
