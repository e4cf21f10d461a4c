// fuzz_support.hpp — what the fuzz targets share: a small scenario to run
// settings and tapes against, and how a target reports a broken property
#ifndef SIMASIO_FUZZ_SUPPORT_HPP
#define SIMASIO_FUZZ_SUPPORT_HPP

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <unistd.h>

namespace simasio_fuzz {

// A tape file of this process (/tmp/simasio_<tag>_<pid>.tape), removed when it exits.
struct temp_file {
  explicit temp_file(const char* tag)
      : path("/tmp/simasio_" + std::string(tag) + "_" + std::to_string(::getpid()) + ".tape") {}
  ~temp_file() { std::remove(path.c_str()); }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  std::string path;
};

// A property the target checks does not hold: print it and abort, which
// the fuzzer reports as a crash and keeps the input that caused it.
[[noreturn]] inline void broken(const std::string& what) {
  std::fprintf(stderr, "simasio fuzz: property broken: %s\n", what.c_str());
  std::abort();
}

// Two hosts trade UDP pings under loss and duplication, on timers with
// seeded jitter, past a buggify site: a scenario that draws for every
// purpose a tape holds (scheduler, network, user, buggify) in a few
// hundred steps.
class pinger {
 public:
  pinger(simasio::world& w, simasio::host& h, simasio::host& peer)
      : world_(w), socket_(h.context(), udp_endpoint(7)), tick_(h.context()), to_(peer.address(), 7) {
    receive();
    ping();
  }

 private:
  using udp = simasio::asio::ip::udp;
  static udp::endpoint udp_endpoint(unsigned short port) { return {udp::v4(), port}; }
  void receive() {
    socket_.async_receive(simasio::asio::buffer(buf_), [this](boost::system::error_code ec, std::size_t) {
      if (!ec) receive();
    });
  }
  void ping() {
    if (left_-- == 0) {
      socket_.close();
      return;
    }
    if (!simasio::buggify("fuzz: skip a ping")) socket_.send_to(simasio::asio::buffer(buf_.data(), 8), to_);
    tick_.expires_after(std::chrono::milliseconds(1 + world_.random().below(20)));
    tick_.async_wait([this](boost::system::error_code ec) {
      if (!ec) ping();
    });
  }

  simasio::world& world_;
  udp::socket socket_;
  simasio::asio::steady_timer tick_;
  udp::endpoint to_;
  std::array<char, 32> buf_{};
  int left_ = 6;
};

inline void small_scenario(simasio::world& w) {
  simasio::link_config link;
  link.loss = 0.2;
  link.duplicate = 0.1;
  w.net().configure(link);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  pinger from_a(w, a, b), from_b(w, b, a);
  w.run_for(std::chrono::milliseconds(400));
}

}  // namespace simasio_fuzz

#endif  // SIMASIO_FUZZ_SUPPORT_HPP
