// scenario.hpp — a route push, its design as a model and its code (the sweep in main.cpp, the fuzz target in fuzz.cpp)
#ifndef SIMASIO_SAMPLE_14_SCENARIO_HPP
#define SIMASIO_SAMPLE_14_SCENARIO_HPP

#include <simasio/asio.hpp>
#include <simasio/check/model.hpp>
#include <simasio/simasio.hpp>

#include <algorithm>
#include <array>
#include <compare>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace sample_14 {

namespace net = simasio::asio;
using net::ip::udp;
using namespace std::chrono_literals;

// ---- the design -------------------------------------------------------------------------
struct push_state {
  int v = 1;         // the controller's version
  int r = 0;         // the replica's version
  int in_flight = 0; // bit x-1: a push of version x is on the way
  int sent = 0;      // bit x-1: version x was sent at least once
  auto operator<=>(const push_state&) const = default;
};

inline int bit(int version) { return 1 << (version - 1); }

inline std::string show(const push_state& s) {
  auto set = [](int bits) {
    std::string out = "{";
    for (int x = 1; x <= 2; ++x)
      if (bits & bit(x)) out += (out.size() > 1 ? "," : "") + std::to_string(x);
    return out + "}";
  };
  return "v=" + std::to_string(s.v) + " r=" + std::to_string(s.r) + " in flight " + set(s.in_flight) + " sent " +
         set(s.sent);
}

inline std::shared_ptr<const simasio::model<push_state>> design(bool repush) {
  auto m = std::make_shared<simasio::model<push_state>>(repush ? "re-push" : "fire-and-forget");
  using states = std::vector<push_state>;
  m->initial({});
  m->action("bump", [](const push_state& s) {
    if (s.v == 2) return states{};
    push_state n = s;
    n.v = 2;
    return states{n};
  });
  // Sending, and sending into a loss at once, are two actions: weak
  // fairness of "send" says the network does not lose every push at once.
  m->action("send", [repush](const push_state& s) {
    if (!repush && (s.sent & bit(s.v))) return states{};  // fire-and-forget: once per version
    push_state n = s;
    n.sent |= bit(s.v);
    n.in_flight |= bit(s.v);
    return states{n};
  });
  m->action("send, lost at once", [repush](const push_state& s) {
    if (!repush && (s.sent & bit(s.v))) return states{};
    push_state n = s;
    n.sent |= bit(s.v);
    return states{n};
  });
  for (int x = 1; x <= 2; ++x) {
    m->action(
        "deliver v" + std::to_string(x),
        [x](const push_state& s) {
          if (!(s.in_flight & bit(x))) return states{};
          push_state last = s, more = s;
          last.r = more.r = std::max(s.r, x);
          last.in_flight &= ~bit(x);
          return states{last, more};  // another copy may still be on the way
        },
        simasio::fairness::strong);
  }
  m->action("lose", [](const push_state& s) {
    states out;
    for (int x = 1; x <= 2; ++x) {
      if (!(s.in_flight & bit(x))) continue;
      push_state n = s;
      n.in_flight &= ~bit(x);
      out.push_back(n);
    }
    return out;
  });
  m->invariant("the replica never runs ahead", [](const push_state& s) { return s.r <= s.v; });
  m->eventually("the replica has version 2", [](const push_state& s) { return s.r == 2; });
  m->final_states([](const push_state& s) { return s.in_flight == 0; });  // idle: it may stop there
  m->describe(show);
  return m;
}

// ---- the code ---------------------------------------------------------------------------
struct counters {
  std::array<int, 3> sent{}, lost{}, delivered{};
  int r = 0;
};

class controller {
 public:
  controller(simasio::host& h, udp::endpoint replica, bool repush, counters& c)
      : socket_(h.context(), udp::endpoint(udp::v4(), 0)), bump_(h.context()), again_(h.context()), replica_(replica),
        repush_(repush), c_(c) {
    net::post(socket_.get_executor(), [this] { send(); });
    bump_.expires_after(100ms);
    bump_.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      version_ = 2;
      net::post(socket_.get_executor(), [this] { send(); });
    });
    receive();
    if (repush_) tick();
  }
  int version() const { return version_; }

 private:
  void send() {
    ++c_.sent[version_];
    const std::string msg = std::to_string(version_);
    socket_.send_to(net::buffer(msg), replica_);
  }
  void tick() {
    again_.expires_after(30ms);
    again_.async_wait([this](boost::system::error_code ec) {
      if (ec || acked_ >= 2) return;
      if (acked_ < version_) send();
      tick();
    });
  }
  void receive() {
    socket_.async_receive(net::buffer(buf_), [this](boost::system::error_code ec, std::size_t n) {
      if (ec) return;
      acked_ = std::max(acked_, std::atoi(std::string(buf_, n).c_str()));
      receive();
    });
  }
  udp::socket socket_;
  net::steady_timer bump_, again_;
  udp::endpoint replica_;
  bool repush_;
  counters& c_;
  int version_ = 1, acked_ = 0;
  char buf_[8];
};

class replica {
 public:
  replica(simasio::host& h, counters& c) : socket_(h.context(), udp::endpoint(udp::v4(), 7)), c_(c) { receive(); }

 private:
  void receive() {
    socket_.async_receive_from(net::buffer(buf_), from_, [this](boost::system::error_code ec, std::size_t n) {
      if (ec) return;
      const int x = std::atoi(std::string(buf_, n).c_str());
      ++c_.delivered[x];
      c_.r = std::max(c_.r, x);
      socket_.send_to(net::buffer(std::to_string(c_.r)), from_);
      receive();
    });
  }
  udp::socket socket_;
  counters& c_;
  char buf_[8];
  udp::endpoint from_;
};

// One seed: the code, held to `model`; fails unless the replica has
// version 2 within 2 s.
inline void scenario(simasio::world& w, bool repush, std::shared_ptr<const simasio::model<push_state>> model) {
  counters c;
  auto& ctl = w.add_host("controller");
  auto& rep = w.add_host("replica");
  simasio::rng& loss = w.random("loss");
  simasio::rule_guard lossy = w.net().add_rule([&](const simasio::packet_view& p) {
    if (!loss.chance(0.3)) return simasio::verdict::pass();
    if (p.to_port == 7) ++c.lost[std::atoi(std::string(p.payload.data(), p.payload.size()).c_str())];
    return simasio::verdict::drop();
  });
  replica r(rep, c);
  controller k(ctl, udp::endpoint(rep.address(), 7), repush, c);
  w.refines(model, [&] {
    push_state s;
    s.v = k.version();
    s.r = c.r;
    for (int x = 1; x <= 2; ++x) {
      if (c.sent[x] > 0) s.sent |= bit(x);
      if (c.sent[x] - c.lost[x] - c.delivered[x] > 0) s.in_flight |= bit(x);
    }
    return s;
  });
  if (!w.run_until([&] { return c.r == 2; }, 2s))
    throw std::runtime_error("the replica never got version 2 (it has " + std::to_string(c.r) + ")");
  w.run_for(200ms);  // and the design still holds a while after
}

}  // namespace sample_14

#endif  // SIMASIO_SAMPLE_14_SCENARIO_HPP
