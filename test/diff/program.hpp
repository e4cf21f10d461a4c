// program.hpp — the generative mode's grammar: a socket program is a short
// sequence of operations on a few named sockets, drawn at random, written
// as one line of text ("connect c0; accept; write s0 100; read c0 4096")
// so that a divergence, once shrunk, is kept as a scenario by pasting it
// into programs.txt.
//
// Sockets: l (the server's listener), c0 and c1 (client TCP sockets), s0
// and s1 (what the server accepted, in order), us (the server's UDP
// socket) and uc (the client's). Every operation is followed by a settle,
// so what it put on the wire has arrived before the next one begins.
#ifndef SIMASIO_TEST_DIFF_PROGRAM_HPP
#define SIMASIO_TEST_DIFF_PROGRAM_HPP

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace simasio_diff {

struct op {
  std::string verb;    // connect accept write read aread cancel shutdown close linger0 nodelay available
                       // udp_send udp_recv udp_connect udp_crecv close_listener
  std::string target;  // c0 c1 s0 s1 us uc l, or "" for verbs that name none
  std::string arg;     // a size, or send|receive|both for shutdown
  std::string text() const {
    std::string t = verb;
    if (!target.empty()) t += " " + target;
    if (!arg.empty()) t += " " + arg;
    return t;
  }
};

using program = std::vector<op>;

inline std::string to_text(const program& p) {
  std::string out;
  for (const auto& o : p) out += (out.empty() ? "" : "; ") + o.text();
  return out;
}

inline program parse_program(const std::string& text) {
  program p;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, ';')) {
    std::istringstream words(part);
    op o;
    if (!(words >> o.verb)) continue;
    words >> o.target >> o.arg;
    p.push_back(o);
  }
  return p;
}

// The grammar, weighted toward what meets another operation: a connection
// first, then data both ways, half-closes, resets and cancellations.
// Writes go up to 64 KiB unless large_writes: a 200,000-byte write meets
// the receive window and send-buffer sizing, where simasio's model and
// Linux 6.x differ (README: bytes_queued_behind_a_silent_peer).
inline program generate_program(std::uint64_t seed, std::size_t length, bool large_writes = false) {
  std::mt19937_64 r(seed);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(r() % n); };
  static const char* const tcp_ends[] = {"c0", "c1", "s0", "s1"};
  static const char* const sizes[] = {"1", "7", "100", "1000", "4096", "65536", "200000"};
  static const char* const halves[] = {"send", "receive", "both"};
  struct weighted {
    const char* verb;
    int weight;
  };
  static const weighted verbs[] = {
      {"connect", 8}, {"accept", 8},     {"write", 14},   {"read", 12},     {"aread", 8},
      {"cancel", 3},  {"shutdown", 6},   {"close", 4},    {"linger0", 3},   {"nodelay", 2},
      {"available", 4}, {"udp_send", 4}, {"udp_recv", 3}, {"udp_connect", 2}, {"udp_crecv", 2},
      {"close_listener", 1}, {"udp_close_server", 1}};
  int total = 0;
  for (const auto& v : verbs) total += v.weight;
  program p;
  // Most programs begin with a connection, or nothing meets anything.
  if (pick(4) != 0) {
    p.push_back({"connect", "c0", ""});
    p.push_back({"accept", "", ""});
  }
  while (p.size() < length) {
    int w = static_cast<int>(pick(static_cast<std::size_t>(total)));
    const weighted* v = verbs;
    while (w >= v->weight) w -= (v++)->weight;
    op o{v->verb, "", ""};
    const std::string verb = o.verb;
    if (verb == "connect") o.target = pick(3) == 0 ? "c1" : "c0";
    else if (verb == "write" || verb == "read" || verb == "aread") {
      o.target = tcp_ends[pick(4)];
      o.arg = sizes[pick(verb == "write" && large_writes ? 7 : 6)];
    } else if (verb == "shutdown") {
      o.target = tcp_ends[pick(4)];
      o.arg = halves[pick(3)];
    } else if (verb == "cancel" || verb == "close" || verb == "linger0" || verb == "nodelay" || verb == "available") {
      o.target = tcp_ends[pick(4)];
    } else if (verb == "udp_send" || verb == "udp_recv" || verb == "udp_crecv") {
      o.arg = sizes[pick(5)];
    }
    p.push_back(o);
  }
  return p;
}

// Shrinks p while still_fails holds: drops one operation at a time, from
// the end, until no single drop keeps it failing (or the budget is spent).
template <class Fails>
program shrink_program(program p, Fails&& still_fails, int budget) {
  bool progress = true;
  while (progress && budget > 0) {
    progress = false;
    for (std::size_t i = p.size(); i-- > 0 && budget > 0;) {
      program q = p;
      q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
      --budget;
      if (!q.empty() && still_fails(q)) {
        p = std::move(q);
        progress = true;
      }
    }
  }
  return p;
}

}  // namespace simasio_diff

#endif  // SIMASIO_TEST_DIFF_PROGRAM_HPP
