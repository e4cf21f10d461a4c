// main.cpp — the differential socket suite: every scenario on real loopback
// (Boost.Asio, in a private network namespace, three times) and in
// simulation (several seeds), compared line by line.
//
//   simasio_socket_diff [--mtu N] [--seeds K] [--runs R] [--only NAME]
//                       [--differences FILE] [--readme FILE] [--programs FILE] [--show]
//   simasio_socket_diff --generate N [--gen-seed S] [--length L] [--large-writes] [--mtu N]
//   simasio_socket_diff --real [--mtu N] [--only NAME] [--programs FILE [--programs-only]]
//   simasio_socket_diff --sim  [--mtu N] [--seed S] [--only NAME] [--programs FILE [--programs-only]]
//   simasio_socket_diff --posix [--mtu N] [--seed S] [--only NAME] [--programs FILE [--programs-only]]
//
// Each scenario also runs a third way: the real side's Boost.Asio code,
// not switched, as a simulated process's main() (--posix): its io_context
// and sockets reach simasio's network through the system calls. What it
// observes must equal what simasio's own sockets observe, line for line
// (or, for a listed difference, what Linux observes).
//
// --programs FILE adds kept generated programs (`name | program`, see
// program.hpp) to the written scenarios. --generate N draws N random
// programs (N "auto": SIMASIO_DIFF_PROGRAMS, else 40), runs each on both
// sides, and shrinks each divergence to a short program to keep.
//
// Exit 0: every scenario identical or listed in FILE (and named in the
// README), every generated program identical; 1: a difference nobody
// listed, a listed one that went away, a scenario whose real observations
// are not stable, a generated program that diverges, a scenario whose POSIX
// path observes otherwise than simasio's sockets; 77: no network namespace.
#include "observe.hpp"
#include "program.hpp"

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
bool run_real_in_namespace(std::size_t mtu, const std::string& args, std::string& out) {
  // Debian 12's TCP buffer defaults where a namespace may set them
  // (net.core.rmem_max and wmem_max are the machine's: read, not set), and
  // a congestion control that sizes send buffers as Debian's CUBIC does
  // (BBR triples them); then loopback up at the MTU asked for.
  const std::string sys = "/proc/sys/net/ipv4/";
  std::string cmd = "unshare -n sh -c 'echo \"4096 131072 6291456\" > " + sys + "tcp_rmem && echo \"4096 16384 4194304\" > " +
                    sys + "tcp_wmem && (echo cubic > " + sys + "tcp_congestion_control 2>/dev/null || echo reno > " + sys +
                    "tcp_congestion_control) && ip link set lo up && ip link set lo mtu " + std::to_string(mtu) +
                    " && exec \"$0\" --real --mtu " + std::to_string(mtu) + args +
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

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

// The lines of a table file: n fields separated by '|' (the last takes the
// rest of the line); blank lines and '#' comments skipped.
std::vector<std::vector<std::string>> read_table(const std::string& path, std::size_t n, const char* shape, bool& ok) {
  std::vector<std::vector<std::string>> out;
  if (path.empty()) return out;
  std::ifstream in(path);
  if (!in) {
    std::cerr << "simasio_socket_diff: cannot read " << path << '\n';
    ok = false;
    return out;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::size_t at = 0;
    for (std::size_t f = 0; f + 1 < n; ++f) {
      const auto bar = line.find('|', at);
      if (bar == std::string::npos) break;
      fields.push_back(trim(line.substr(at, bar - at)));
      at = bar + 1;
    }
    if (fields.size() + 1 != n) {
      std::cerr << "simasio_socket_diff: " << path << ": expected '" << shape << "', got: " << line << '\n';
      ok = false;
      continue;
    }
    fields.push_back(trim(line.substr(at)));
    out.push_back(std::move(fields));
  }
  return out;
}

// name | mtu | reason
std::map<std::string, listed> read_differences(const std::string& path, bool& ok) {
  std::map<std::string, listed> out;
  for (auto& f : read_table(path, 3, "name | mtu | reason", ok)) out[f[0]] = {f[1], f[2]};
  return out;
}

// name | program
std::vector<std::pair<std::string, std::string>> read_programs(const std::string& path, bool& ok) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& f : read_table(path, 2, "name | program", ok)) out.emplace_back(f[0], f[1]);
  return out;
}

// Programs written where the namespace's child reads them.
struct program_file {
  std::string path;
  explicit program_file(const std::vector<std::pair<std::string, std::string>>& programs) {
    char name[] = "/tmp/simasio-diff-programs-XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) throw std::runtime_error("simasio_socket_diff: cannot create a file in /tmp");
    close(fd);
    path = name;
    std::ofstream out(path);
    for (const auto& [n, text] : programs) out << n << " | " << text << '\n';
  }
  ~program_file() { std::remove(path.c_str()); }
  program_file(const program_file&) = delete;
  program_file& operator=(const program_file&) = delete;
};

// The "# profile" line the real side printed: parsed into p, and returned
// as text ("(unknown)" when absent, p left as it was).
std::string profile_line(const std::string& out, simasio_diff::kernel_profile& p) {
  const auto at = out.find("# profile ");
  if (at == std::string::npos) return "(unknown)";
  std::string line = out.substr(at + 10, out.find('\n', at) - at - 10);
  p = simasio_diff::kernel_profile::parse(line);
  return line;
}

const scenario_run* find_run(const std::vector<scenario_run>& runs, const std::string& name) {
  for (const auto& r : runs)
    if (r.name == name) return &r;
  return nullptr;
}

void show_lines(const std::vector<std::string>& linux_lines, const std::vector<std::string>& sim_lines) {
  const std::size_t n = std::max(linux_lines.size(), sim_lines.size());
  for (std::size_t k = 0; k < n; ++k) {
    const std::string a = k < linux_lines.size() ? linux_lines[k] : "";
    const std::string b = k < sim_lines.size() ? sim_lines[k] : "";
    std::cout << "      " << (a == b ? "  " : "≠ ") << "linux: " << a << "   |   simasio: " << b << '\n';
  }
}

std::string kernel() {
  utsname u{};
  uname(&u);
  return u.release;
}

// The verdict on one generated program: run twice on Linux (in one
// namespace) and on two seeds in simulation.
enum class verdict { same, differs, unstable };
struct judged {
  verdict v = verdict::same;
  std::vector<std::string> linux_lines, sim_lines;
};

judged judge_program(const simasio_diff::run_settings& base, const std::string& text) {
  simasio_diff::run_settings s = base;
  s.programs = {{"a", text}, {"b", text}};
  s.programs_only = true;
  s.only.clear();
  judged j;
  std::string out;
  const program_file file(s.programs);
  if (!run_real_in_namespace(s.mtu, " --programs " + file.path + " --programs-only", out)) {
    j.v = verdict::unstable;
    return j;
  }
  const auto real = parse(out);
  const scenario_run* a = find_run(real, "a");
  const scenario_run* b = find_run(real, "b");
  if (a == nullptr || b == nullptr || a->lines != b->lines) {
    j.v = verdict::unstable;
    return j;
  }
  j.linux_lines = a->lines;
  s.programs = {{"a", text}};
  for (std::uint64_t seed = 0; seed < 2; ++seed) {
    s.seed = seed;
    const auto sim = simasio_diff::run_simulated(s);
    if (sim.empty() || sim[0].lines != a->lines) {
      j.v = verdict::differs;
      j.sim_lines = sim.empty() ? std::vector<std::string>{} : sim[0].lines;
      return j;
    }
  }
  return j;
}

// --generate: count random programs on both sides; each divergence shrunk.
// known: kept programs the table lists (shrunk text -> name): a divergence
// that shrinks to one of them is a listed difference, not a new one.
int generate(simasio_diff::run_settings s, std::size_t count, std::uint64_t gen_seed, std::size_t length,
             bool large_writes, const std::map<std::string, std::string>& known) {
  std::vector<std::pair<std::string, std::string>> programs;
  for (std::uint64_t k = 0; k < count; ++k)
    programs.emplace_back("gen" + std::to_string(gen_seed + k),
                          simasio_diff::to_text(simasio_diff::generate_program(gen_seed + k, length, large_writes)));
  const program_file file(programs);
  std::vector<std::vector<scenario_run>> real;
  for (int r = 0; r < 2; ++r) {
    std::string out;
    if (!run_real_in_namespace(s.mtu, " --programs " + file.path + " --programs-only", out)) {
      std::cerr << "simasio_socket_diff: the real side could not run in a private network namespace:\n" << out;
      return 77;
    }
    if (r == 0) profile_line(out, s.profile);
    real.push_back(parse(out));
  }
  s.programs = programs;
  s.programs_only = true;
  std::vector<std::vector<scenario_run>> sim;
  for (std::uint64_t seed = 0; seed < 2; ++seed) {
    s.seed = seed;
    sim.push_back(simasio_diff::run_simulated(s));
  }
  std::size_t same = 0, unstable = 0, shrunk = 0, listed = 0;
  std::vector<std::string> keep;
  for (const auto& [name, text] : programs) {
    const scenario_run* a = find_run(real[0], name);
    const scenario_run* b = find_run(real[1], name);
    if (a == nullptr || b == nullptr || a->lines != b->lines) {
      ++unstable;
      continue;
    }
    bool differs = false;
    for (const auto& run : sim) {
      const scenario_run* x = find_run(run, name);
      if (x == nullptr || x->lines != a->lines) differs = true;
    }
    if (!differs) {
      ++same;
      continue;
    }
    std::cout << "  DIFF    " << name << ": " << text << '\n';
    if (shrunk++ >= 5) {
      std::cout << "      (not shrunk: five already were)\n";
      keep.push_back(name + " | " + text);
      continue;
    }
    const auto small = simasio_diff::shrink_program(
        simasio_diff::parse_program(text),
        [&](const simasio_diff::program& q) {
          return judge_program(s, simasio_diff::to_text(q)).v == verdict::differs;
        },
        60);
    const std::string small_text = simasio_diff::to_text(small);
    const judged j = judge_program(s, small_text);
    std::cout << "      shrunk to: " << small_text << '\n';
    if (const auto it = known.find(small_text); it != known.end()) {
      std::cout << "      listed: it is kept as " << it->second << ", in the table\n";
      ++listed;
      continue;
    }
    show_lines(j.linux_lines, j.sim_lines);
    keep.push_back(name + " | " + small_text);
  }
  std::cout << "simasio_socket_diff: " << count << " generated programs of " << length << " operations (from seed "
            << gen_seed << ") at MTU " << s.mtu << " against Linux " << kernel() << ": " << same << " identical, "
            << listed << " shrink to a listed difference, " << keep.size() << " diverge, " << unstable
            << " not stable on Linux (skipped)\n";
  if (!keep.empty()) {
    std::cout << "Keep each as a scenario (test/diff/programs.txt) and fix or list it:\n";
    for (const auto& k : keep) std::cout << "  " << k << '\n';
  }
  return keep.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  simasio_diff::run_settings s;
  std::string mode = "compare", differences, readme;
  std::uint64_t seeds = 8;
  int runs = 3;
  bool show = false, programs_only = false;
  std::string programs_path, generate_count;
  std::uint64_t gen_seed = 1;
  std::size_t length = 12;
  bool large_writes = false;
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
    else if (a == "--posix") mode = "posix";
    else if (a == "--mtu") s.mtu = std::stoul(value());
    else if (a == "--seed") s.seed = std::stoull(value());
    else if (a == "--seeds") seeds = std::stoull(value());
    else if (a == "--runs") runs = std::stoi(value());
    else if (a == "--only") s.only = value();
    else if (a == "--differences") differences = value();
    else if (a == "--readme") readme = value();
    else if (a == "--show") show = true;
    else if (a == "--programs") programs_path = value();
    else if (a == "--programs-only") programs_only = true;
    else if (a == "--generate") generate_count = value();
    else if (a == "--gen-seed") gen_seed = std::stoull(value());
    else if (a == "--length") length = std::stoul(value());
    else if (a == "--large-writes") large_writes = true;
    else {
      std::cerr << "simasio_socket_diff: unknown argument " << a << '\n';
      return 2;
    }
  }
  {
    bool read_ok = true;
    s.programs = read_programs(programs_path, read_ok);
    s.programs_only = programs_only;
    if (!read_ok) return 2;
  }
  if (!generate_count.empty()) {
    std::size_t count = 40;
    if (generate_count != "auto") count = std::stoul(generate_count);
    else if (const char* env = std::getenv("SIMASIO_DIFF_PROGRAMS"); env != nullptr && *env != '\0')
      count = std::stoul(env);
    if (const char* env = std::getenv("SIMASIO_DIFF_GEN_SEED"); env != nullptr && *env != '\0')
      gen_seed = std::stoull(env);
    bool table_ok = true;
    const auto table = read_differences(differences, table_ok);
    std::map<std::string, std::string> known;
    for (const auto& [name, text] : s.programs)
      if (table.count(name) != 0) known[simasio_diff::to_text(simasio_diff::parse_program(text))] = name;
    if (!table_ok) return 2;
    s.programs.clear();
    return generate(s, count, gen_seed, length, large_writes, known);
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
  if (mode == "posix") {
    print(simasio_diff::run_posix(s), std::cout);
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
  std::string profile_text = "(unknown)";
  for (int r = 0; r < runs; ++r) {
    std::string text;
    std::string args = s.only.empty() ? "" : " --only " + s.only;
    if (!programs_path.empty()) args += " --programs " + programs_path;
    if (!run_real_in_namespace(s.mtu, args, text)) {
      std::cerr << "simasio_socket_diff: the real side could not run in a private network namespace "
                   "(unshare -n and ip link, as root):\n"
                << text;
      return 77;
    }
    real.push_back(parse(text));
    if (r == 0) profile_text = profile_line(text, s.profile);
  }
  std::vector<std::vector<scenario_run>> sim;
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    s.seed = seed;
    sim.push_back(simasio_diff::run_simulated(s));
  }
  s.seed = 0;
  const std::vector<scenario_run> posix = simasio_diff::run_posix(s);

  const std::string m = std::to_string(s.mtu);
  int same = 0, in_table = 0, differ = 0, total = 0, posix_same = 0;
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
    // One network: the same code through POSIX calls observes what
    // simasio's sockets do; where a listed difference is the alias path's
    // (a handler that cannot block on the world's stack), it may observe
    // what Linux does instead.
    const scenario_run* px = find_run(posix, name);
    if (px != nullptr && (px->lines == sim[0][i].lines || (is_listed && r0 != nullptr && px->lines == r0->lines))) {
      ++posix_same;
    } else {
      ok = false;
      std::cout << "  POSIX   " << name
                << "  — Boost.Asio's own io_context in a simulated process observed otherwise than simasio's sockets:\n";
      if (px != nullptr)
        for (std::size_t k = 0; k < std::max(px->lines.size(), sim[0][i].lines.size()); ++k) {
          const std::string a = k < sim[0][i].lines.size() ? sim[0][i].lines[k] : "";
          const std::string b = k < px->lines.size() ? px->lines[k] : "";
          std::cout << "      " << (a == b ? "  " : "≠ ") << "simasio: " << a << "   |   posix: " << b << '\n';
        }
    }
    if ((!identical && (show || !is_listed)) && r0 != nullptr) {
      show_lines(r0->lines, sim[0][i].lines);
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
            << differ << " differ; through POSIX calls in a process " << posix_same << " of " << total
            << " observe what simasio's sockets do\n"
            << "simasio_socket_diff: the kernel's profile in the namespace: " << profile_text << '\n';
  return ok ? 0 : 1;
}
