// simasio_asio_surface — every public member of the Asio classes and free
// functions simasio replaces, generated from Boost's own headers
// (gen_probes.py), checked to exist on simasio's with a compatible signature:
// each probe is a call (or a name) written with Asio's parameter types, and
// must compile on simasio's type wherever it compiles on Asio's.
//
//   simasio_asio_surface [--exceptions FILE] [--readme docs/reference/asio-audit.md] [--verbose]
//
// Fails when a member is missing and not in FILE (the deliberate
// exceptions, each with its reason: "refused:" for a member declared with a
// static_assert that fires when a program uses it, "absent:" for one not
// declared), when an exception listed there no longer is one, or when the
// README does not name every exception.
#include <simasio/asio.hpp>

#include <boost/asio/deadline_timer.hpp>
#include <boost/asio/io_context_strand.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

namespace simasio_surface {

struct probe {
  const char* key;
  int on_asio;  // 1: compiles on Asio's type, 0: not even there, -1: not probed
  int on_sim;
};

// Passed for every completion token and handler: callable with anything.
struct any_handler {
  template <class... Args>
  void operator()(Args&&...) const {}
};

struct connect_condition {
  template <class Endpoint>
  bool operator()(const boost::system::error_code&, const Endpoint&) const {
    return true;
  }
};

// What a probe passes for an execution context, an executor or a socket:
// Asio's for Asio's type, simasio's for simasio's.
struct asio_env {
  using context = boost::asio::io_context;
  using executor = boost::asio::any_io_executor;
  template <class Protocol>
  using socket = typename Protocol::socket;
};

struct sim_env {
  using context = simasio::asio::io_context;
  using executor = simasio::asio::any_io_executor;
  template <class Protocol>
  using socket = std::conditional_t<std::is_same_v<Protocol, boost::asio::ip::tcp>,
                                    simasio::asio::ip::tcp::socket, simasio::asio::ip::udp::socket>;
};

// The free functions, called as a program calls them through its namespace.
struct asio_free {
  template <class... Args>
  static auto connect(Args&&... a) -> decltype(boost::asio::connect(std::forward<Args>(a)...));
  template <class... Args>
  static auto async_connect(Args&&... a) -> decltype(boost::asio::async_connect(std::forward<Args>(a)...));
};

struct sim_free {
  template <class... Args>
  static auto connect(Args&&... a) -> decltype(simasio::asio::connect(std::forward<Args>(a)...));
  template <class... Args>
  static auto async_connect(Args&&... a) -> decltype(simasio::asio::async_connect(std::forward<Args>(a)...));
};

}  // namespace simasio_surface

#include "asio_surface_probes.hpp"

namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// FILE: "key | reason" lines; # comments and blank lines ignored.
std::map<std::string, std::string> read_exceptions(const char* path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "simasio_asio_surface: cannot read %s\n", path);
    std::exit(2);
  }
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const auto bar = line.find(" | ");
    if (bar == std::string::npos || trim(line.substr(bar + 3)).empty()) {
      std::fprintf(stderr, "simasio_asio_surface: %s: '%s' has no ' | reason'\n", path, line.c_str());
      std::exit(2);
    }
    out[trim(line.substr(0, bar))] = trim(line.substr(bar + 3));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const char* exceptions_path = nullptr;
  const char* readme_path = nullptr;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--exceptions" && i + 1 < argc) {
      exceptions_path = argv[++i];
    } else if (a == "--readme" && i + 1 < argc) {
      readme_path = argv[++i];
    } else if (a == "--verbose") {
      verbose = true;
    } else {
      std::fprintf(stderr, "usage: %s [--exceptions FILE] [--readme docs/reference/asio-audit.md] [--verbose]\n", argv[0]);
      return 2;
    }
  }
  const auto exceptions = exceptions_path ? read_exceptions(exceptions_path) : std::map<std::string, std::string>{};

  int present = 0, missing = 0, listed = 0, not_on_asio = 0, unprobed = 0;
  std::set<std::string> seen;
  for (const auto& p : simasio_surface::probes) {
    seen.insert(p.key);
    const bool excepted = exceptions.count(p.key) != 0;
    if (p.on_asio < 0) {
      ++unprobed;
      std::printf("not probed (a template parameter the generator cannot fill): %s\n", p.key);
    } else if (!p.on_asio) {
      ++not_on_asio;
      if (verbose) std::printf("not callable on Asio's own type either: %s\n", p.key);
    } else if (p.on_sim) {
      const bool refused = excepted && exceptions.at(p.key).rfind("refused:", 0) == 0;
      if (refused) {
        ++listed;
        if (verbose) std::printf("refused on purpose: %s — %s\n", p.key, exceptions.at(p.key).c_str());
      } else {
        ++present;
      }
      if (excepted && !refused) {
        std::printf("LISTED AS ABSENT BUT PRESENT (remove it from the exceptions): %s\n", p.key);
        ++missing;
      }
    } else if (excepted && exceptions.at(p.key).rfind("refused:", 0) == 0) {
      ++missing;
      std::printf("LISTED AS REFUSED BUT NOT DECLARED (declare it with its static_assert): %s\n", p.key);
    } else if (excepted) {
      ++listed;
      if (verbose) std::printf("missing on purpose: %s — %s\n", p.key, exceptions.at(p.key).c_str());
    } else {
      ++missing;
      std::printf("MISSING: %s\n", p.key);
    }
  }
  for (const auto& [key, why] : exceptions) {
    if (!seen.count(key)) {
      std::printf("LISTED BUT NOT A PROBE (Asio has no such member): %s\n", key.c_str());
      ++missing;
    }
  }
  if (readme_path) {
    std::ifstream in(readme_path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& [key, why] : exceptions) {
      if (text.find("`" + key + "`") == std::string::npos) {
        std::printf("NOT IN THE DOCS' exceptions table (docs/reference/asio-audit.md): `%s`\n", key.c_str());
        ++missing;
      }
    }
  }
  std::printf("Asio 1.81 members probed: %zu; on simasio's types: %d present, %d refused or absent on purpose, "
              "%d missing; %d not callable on Asio's own type either; %d not probed\n",
              std::size(simasio_surface::probes), present, listed, missing, not_on_asio, unprobed);
  return missing || unprobed ? 1 : 0;
}
