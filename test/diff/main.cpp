// main.cpp — the differential socket suite: every scenario on real loopback
// (Boost.Asio, in a private network namespace, three times) and in
// simulation (several seeds), compared line by line.
//
//   simasio_socket_diff [--mtu N] [--seeds K] [--runs R] [--only NAME]
//                       [--differences FILE] [--readme FILE] [--show]
//   simasio_socket_diff --real [--mtu N] [--only NAME]   (inside the namespace)
//   simasio_socket_diff --sim  [--mtu N] [--seed S] [--only NAME]
//
// Exit 0: every scenario identical or listed in FILE (and named in the
// README); 1: a difference nobody listed, a listed one that went away, or a
// scenario whose real observations are not stable; 77: no network namespace.
#include "observe.hpp"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using simasio_diff::scenario_run;

void print(const std::vector<scenario_run>& runs, std::ostream& out) {
  for (const auto& r : runs) {
    out << "## " << r.name << '\n';
    for (const auto& l : r.lines) out << "  " << l << '\n';
  }
}

std::vector<scenario_run> parse(const std::string& text) {
  std::vector<scenario_run> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) out.push_back({line.substr(3), {}});
    else if (line.rfind("  ", 0) == 0 && !out.empty()) out.back().lines.push_back(line.substr(2));
  }
  return out;
}

std::string self_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<std::size_t>(n));
}

// Runs the real side in a fresh network namespace with loopback up at the
// MTU asked for; false when no namespace can be made.
bool run_real_in_namespace(std::size_t mtu, const std::string& only, std::string& out) {
  // Debian 12's TCP buffer defaults where a namespace may set them
  // (net.core.rmem_max and wmem_max are the machine's: read, not set), and
  // a congestion control that sizes send buffers as Debian's CUBIC does
  // (BBR triples them); then loopback up at the MTU asked for.
  const std::string sys = "/proc/sys/net/ipv4/";
  std::string cmd = "unshare -n sh -c 'echo \"4096 131072 6291456\" > " + sys + "tcp_rmem && echo \"4096 16384 4194304\" > " +
                    sys + "tcp_wmem && (echo cubic > " + sys + "tcp_congestion_control 2>/dev/null || echo reno > " + sys +
                    "tcp_congestion_control) && ip link set lo up && ip link set lo mtu " + std::to_string(mtu) +
                    " && exec \"$0\" --real --mtu " + std::to_string(mtu) + (only.empty() ? "" : " --only " + only) +
                    "' '" + self_path() + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return false;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct listed {
  std::string mtu;  // "*" or a number
  std::string reason;
};

// name | mtu | reason, one per line; '#' starts a comment.
std::map<std::string, listed> read_differences(const std::string& path, bool& ok) {
  std::map<std::string, listed> out;
  ok = true;
  if (path.empty()) return out;
  std::ifstream in(path);
  if (!in) {
    std::cerr << "simasio_socket_diff: cannot read " << path << '\n';
    ok = false;
    return out;
  }
  std::string line;
  auto trim = [](std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    return s.substr(i);
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto a = line.find('|'), b = line.find('|', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) {
      std::cerr << "simasio_socket_diff: " << path << ": expected 'name | mtu | reason', got: " << line << '\n';
      ok = false;
      continue;
    }
    out[trim(line.substr(0, a))] = {trim(line.substr(a + 1, b - a - 1)), trim(line.substr(b + 1))};
  }
  return out;
}

std::string kernel() {
  utsname u{};
  uname(&u);
  return u.release;
}

}  // namespace

int main(int argc, char** argv) {
  simasio_diff::run_settings s;
  std::string mode = "compare", differences, readme;
  std::uint64_t seeds = 8;
  int runs = 3;
  bool show = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "simasio_socket_diff: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--real") mode = "real";
    else if (a == "--sim") mode = "sim";
    else if (a == "--mtu") s.mtu = std::stoul(value());
    else if (a == "--seed") s.seed = std::stoull(value());
    else if (a == "--seeds") seeds = std::stoull(value());
    else if (a == "--runs") runs = std::stoi(value());
    else if (a == "--only") s.only = value();
    else if (a == "--differences") differences = value();
    else if (a == "--readme") readme = value();
    else if (a == "--show") show = true;
    else {
      std::cerr << "simasio_socket_diff: unknown argument " << a << '\n';
      return 2;
    }
  }
  if (mode == "real") {
    std::cout << "# profile " << simasio_diff::read_profile().describe() << '\n';
    print(simasio_diff::run_real(s), std::cout);
    return 0;
  }
  if (mode == "sim") {
    print(simasio_diff::run_simulated(s), std::cout);
    return 0;
  }

  bool ok = true;
  const auto table = read_differences(differences, ok);
  std::string readme_text;
  if (!readme.empty()) {
    std::ifstream in(readme);
    std::stringstream ss;
    ss << in.rdbuf();
    readme_text = ss.str();
  }

  std::vector<std::vector<scenario_run>> real;
  std::string profile_line = "(unknown)";
  for (int r = 0; r < runs; ++r) {
    std::string text;
    if (!run_real_in_namespace(s.mtu, s.only, text)) {
      std::cerr << "simasio_socket_diff: the real side could not run in a private network namespace "
                   "(unshare -n and ip link, as root):\n"
                << text;
      return 77;
    }
    real.push_back(parse(text));
    if (const auto at = text.find("# profile "); at != std::string::npos && r == 0) {
      profile_line = text.substr(at + 10, text.find('\n', at) - at - 10);
      s.profile = simasio_diff::kernel_profile::parse(profile_line);
    }
  }
  std::vector<std::vector<scenario_run>> sim;
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    s.seed = seed;
    sim.push_back(simasio_diff::run_simulated(s));
  }

  const std::string m = std::to_string(s.mtu);
  int same = 0, in_table = 0, differ = 0, total = 0;
  std::map<std::string, bool> seen;
  for (std::size_t i = 0; i < sim[0].size(); ++i) {
    const auto& name = sim[0][i].name;
    ++total;
    seen[name] = true;
    const scenario_run* r0 = nullptr;
    bool stable = true;
    for (const auto& run : real) {
      const scenario_run* r = nullptr;
      for (const auto& x : run)
        if (x.name == name) r = &x;
      if (r == nullptr) stable = false;
      else if (r0 == nullptr) r0 = r;
      else if (r->lines != r0->lines) stable = false;
    }
    bool seed_stable = true;
    for (const auto& run : sim)
      if (run[i].lines != sim[0][i].lines) seed_stable = false;
    const bool identical = stable && seed_stable && r0 != nullptr && r0->lines == sim[0][i].lines;
    const auto it = table.find(name);
    const bool is_listed = it != table.end() && (it->second.mtu == "*" || it->second.mtu == m);
    std::string verdict;
    if (!stable) {
      verdict = "UNSTABLE on Linux (fix the scenario)";
      ok = false;
    } else if (identical && is_listed) {
      verdict = "LISTED but identical now: remove it from the table";
      ok = false;
    } else if (identical) {
      verdict = "same";
      ++same;
    } else if (is_listed) {
      verdict = "in the table: " + it->second.reason;
      ++in_table;
      if (!readme_text.empty() && readme_text.find("`" + name + "`") == std::string::npos) {
        verdict += " (NOT in the README's table)";
        ok = false;
      }
    } else {
      verdict = seed_stable ? "DIFFERS" : "DIFFERS (and varies by seed)";
      ++differ;
      ok = false;
    }
    std::cout << (verdict == "same" ? "  same    " : identical ? "  ??      " : is_listed ? "  listed  " : "  DIFF    ")
              << name << (verdict == "same" ? "" : "  — " + verdict) << '\n';
    if ((!identical && (show || !is_listed)) && r0 != nullptr) {
      std::size_t n = std::max(r0->lines.size(), sim[0][i].lines.size());
      for (std::size_t k = 0; k < n; ++k) {
        const std::string a = k < r0->lines.size() ? r0->lines[k] : "";
        const std::string b = k < sim[0][i].lines.size() ? sim[0][i].lines[k] : "";
        std::cout << "      " << (a == b ? "  " : "≠ ") << "linux: " << a << "   |   simasio: " << b << '\n';
      }
      if (!seed_stable)
        for (std::size_t k = 1; k < sim.size(); ++k)
          if (sim[k][i].lines != sim[0][i].lines) {
            std::cout << "      seed " << k << " observed otherwise:";
            for (const auto& l : sim[k][i].lines) std::cout << " [" << l << "]";
            std::cout << '\n';
            break;
          }
    }
  }
  for (const auto& [name, l] : table)
    if (!seen.count(name) && s.only.empty()) {
      std::cout << "  table names `" << name << "`, which is no scenario\n";
      ok = false;
    }
  std::cout << "simasio_socket_diff: " << total << " scenarios at MTU " << m << " against Linux " << kernel() << " ("
            << runs << " real runs, " << seeds << " seeds): " << same << " identical, " << in_table << " in the table, "
            << differ << " differ\n"
            << "simasio_socket_diff: the kernel's profile in the namespace: " << profile_line << '\n';
  return ok ? 0 : 1;
}
