// porcupine_histories.cpp — check_linearizable on Porcupine's public test histories
//
// Porcupine (the linearizability checker in Go) ships Jepsen's logs of etcd
// (102 single-register histories with reads, writes and compare-and-set,
// from 5 clients, with timeouts and crashed operations) and key-value logs
// of 1, 10 and 50 clients (get, put and append on 10 keys), each with the
// verdict its own tests expect. scripts/porcupine-data.sh puts them in
// build-deps/porcupine/test_data (or point SIMASIO_PORCUPINE_DATA at a
// test_data folder); without them this program exits 77 (skipped).
//
// Every history must get its expected verdict, decided, with the default
// budget; each failure's window must fail by itself. The table printed
// shows steps and time (measured, never asserted).
#include <simasio/check/history.hpp>
#include <simasio/check/linearizability.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

// Calls on_line(match, time) for each line of the file at path that
// matches re, the time being its number among the matching lines.
template <class F>
void each_event(const std::string& path, const std::regex& re, F on_line) {
  std::ifstream in(path);
  std::string line;
  std::int64_t t = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, re)) on_line(m, ++t);
  }
}

// ---- etcd: one register, read / write / cas ------------------------------------------------
struct etcd_input {
  int op = 0;  // 0 read, 1 write, 2 cas
  int a = 0, b = 0;
};
struct etcd_output {
  bool ok = false;      // cas
  bool exists = false;  // read
  int value = 0;        // read
  friend bool operator==(const etcd_output&, const etcd_output&) = default;
};
constexpr int nil = -1000000;
struct etcd_model {
  using state = int;
  using input = etcd_input;
  using output = etcd_output;
  static state init() { return nil; }
  // Judges the recorded output (null: unknown), as Porcupine's etcd model does.
  static std::pair<bool, state> step(const state& s, const input& in, const output* out) {
    if (in.op == 0) return {out == nullptr || (out->exists ? s != nil && s == out->value : s == nil), s};
    if (in.op == 1) return {true, in.a};
    const bool swapped = s == in.a;
    return {out == nullptr || out->ok == swapped, swapped ? in.b : s};
  }
  static std::string describe(const input& in, const output* out) {
    if (in.op == 0)
      return "read() -> " + (out == nullptr ? std::string("unknown") : out->exists ? std::to_string(out->value) : "nil");
    if (in.op == 1) return "write(" + std::to_string(in.a) + ")";
    return "cas(" + std::to_string(in.a) + ", " + std::to_string(in.b) + ") -> " +
           (out == nullptr ? std::string("unknown") : out->ok ? "ok" : "fail");
  }
};
using etcd_history = simasio::history<etcd_input, etcd_output>;

// A Jepsen log: one event a line, in the order they happened (the line
// number is the time). A timed-out read returned, its output unknown (as
// Porcupine's parser records it); an operation never answered (:info)
// stays pending, so indeterminate.
etcd_history parse_etcd(const std::string& path) {
  static const std::regex line_re(R"(^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:(invoke|ok|fail|info)\s+:(read|write|cas)\s+(.*)$)");
  static const std::regex pair_re(R"(^\[(\d+)\s+(\d+)\]$)");
  etcd_history h;
  std::map<std::uint32_t, std::size_t> open;
  each_event(path, line_re, [&](const std::smatch& m, std::int64_t t) {
    const auto client = static_cast<std::uint32_t>(std::stoul(m[1]));
    const std::string type = m[2], f = m[3], value = m[4];
    if (type == "invoke") {
      etcd_input op;
      if (f == "write") op = {1, std::stoi(value), 0};
      else if (f == "cas") {
        std::smatch p;
        std::regex_match(value, p, pair_re);
        op = {2, std::stoi(p[1]), std::stoi(p[2])};
      }
      open[client] = h.invoke(client, op, t);
      return;
    }
    const auto it = open.find(client);
    if (it == open.end() || type == "info") return;
    const std::size_t id = it->second;
    open.erase(it);
    if (f == "read" && type == "fail") h.complete_unknown(id, t);  // :timed-out
    else if (f == "read") h.complete(id, {false, value != "nil", value == "nil" ? 0 : std::stoi(value)}, t);
    else if (f == "write") h.complete(id, {}, t);
    else h.complete(id, {type == "ok", false, 0}, t);
  });
  return h;
}

// ---- key-value: get / put / append, partitioned by key --------------------------------------
struct kv_input {
  int op = 0;  // 0 get, 1 put, 2 append
  std::string key, value;
};
struct kv_model {
  using state = std::string;
  using input = kv_input;
  using output = std::string;
  static state init() { return {}; }
  static std::string key(const input& in) { return in.key; }
  static std::tuple<bool, output, state> step(const state& s, const input& in) {
    if (in.op == 0) return {true, s, s};
    if (in.op == 1) return {true, {}, in.value};
    return {true, {}, s + in.value};
  }
  static std::string describe(const input& in, const output* out) {
    if (in.op == 0) return "get(" + in.key + ") -> \"" + (out ? *out : std::string("?")) + "\"";
    return (in.op == 1 ? "put(" : "append(") + in.key + ", \"" + in.value + "\")";
  }
};
using kv_history = simasio::history<kv_input, std::string>;

kv_history parse_kv(const std::string& path) {
  static const std::regex line_re(R"re(^\{:process (\d+), :type :(invoke|ok), :f :(get|put|append), :key "(.*)", :value (nil|"(.*)")\}$)re");
  kv_history h;
  std::map<std::uint32_t, std::size_t> open;
  each_event(path, line_re, [&](const std::smatch& m, std::int64_t t) {
    const auto client = static_cast<std::uint32_t>(std::stoul(m[1]));
    const std::string type = m[2], f = m[3];
    if (type == "invoke") {
      const int op = f == "get" ? 0 : f == "put" ? 1 : 2;
      open[client] = h.invoke(client, {op, m[4], op == 0 ? std::string() : std::string(m[6])}, t);
      return;
    }
    const auto it = open.find(client);
    if (it == open.end()) return;
    h.complete(it->second, f == "get" ? std::string(m[6]) : std::string(), t);
    open.erase(it);
  });
  return h;
}

// ---- checking -----------------------------------------------------------------------------

struct outcome {
  bool right = false;
  std::string line;
  double seconds = 0;  // checking alone
};

template <class M, class H>
outcome check(const std::string& name, const H& h, bool expected) {
  const auto t0 = std::chrono::steady_clock::now();
  const simasio::linearizability_result r = simasio::check_linearizable(h, M{});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bool right = r.decided && r.ok == expected;
  std::string why;
  if (!r.decided) why = " UNDECIDED";
  else if (r.ok != expected) why = " WRONG VERDICT";
  if (right && !r.ok) {
    H alone;
    for (std::size_t i : r.window) {
      const auto& o = h.operations()[i];
      const auto id = alone.invoke(o.client, o.input, o.call_ns);
      if (o.indeterminate || o.return_ns == H::operation::never_returned) alone.timeout(id);
      else if (o.output) alone.complete(id, *o.output, o.return_ns);
      else alone.complete_unknown(id, o.return_ns);
    }
    if (simasio::check_linearizable(alone, M{}).ok) {
      right = false;
      why = " WINDOW HAS AN ORDER BY ITSELF";
    }
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-14s %5zu ops  expected %-5s got %-9s %10llu steps (window %llu)  %7.3f s  window %zu ops%s",
                name.c_str(), h.size(), expected ? "ok" : "bad",
                !r.decided ? "undecided" : r.ok ? "ok" : "bad", static_cast<unsigned long long>(r.steps),
                static_cast<unsigned long long>(r.window_steps), seconds, r.window.size(), why.c_str());
  return {right, buf, seconds};
}

}  // namespace

int main() {
  namespace fs = std::filesystem;
  fs::path data;
  if (const char* env = std::getenv("SIMASIO_PORCUPINE_DATA"); env != nullptr && *env != '\0') data = env;
  else data = fs::path(SIMASIO_SOURCE_DIR) / "build-deps" / "porcupine" / "test_data";
  if (!fs::exists(data / "jepsen" / "etcd_000.log") || !fs::exists(data / "kv" / "c50-bad.txt")) {
    std::cout << "porcupine_histories: Porcupine's test histories are not in " << data
              << ": run scripts/porcupine-data.sh (with a clone of github.com/anishathalye/porcupine when GitHub "
                 "is out of reach), or set SIMASIO_PORCUPINE_DATA; skipped\n";
    return 77;
  }
  // The verdicts Porcupine's tests expect (porcupine_test.go): these etcd
  // logs are linearizable, every other is not.
  const std::vector<int> etcd_ok = {2, 5, 7, 18, 25, 31, 38, 45, 48, 49, 51, 53, 56, 67, 75, 76, 80, 87, 92, 98, 100, 101, 102};
  int wrong = 0, total = 0;
  double etcd_seconds = 0, etcd_check = 0, worst = 0;
  std::string worst_name;
  const auto t0 = std::chrono::steady_clock::now();
  std::cout << "porcupine_histories: Jepsen's etcd logs\n";
  for (int n = 0; n <= 102; ++n) {
    if (n == 95) continue;  // an empty file, which Porcupine's tests leave out too
    char name[32];
    std::snprintf(name, sizeof name, "etcd_%03d", n);
    const bool expected = std::find(etcd_ok.begin(), etcd_ok.end(), n) != etcd_ok.end();
    const outcome o = check<etcd_model>(name, parse_etcd((data / "jepsen" / (std::string(name) + ".log")).string()), expected);
    std::cout << o.line << '\n';
    ++total;
    if (!o.right) ++wrong;
    etcd_check += o.seconds;
    if (o.seconds > worst) {
      worst = o.seconds;
      worst_name = name;
    }
  }
  etcd_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "porcupine_histories: key-value logs, partitioned by key\n";
  for (const auto& [name, expected] : std::vector<std::pair<std::string, bool>>{
           {"c01-ok", true}, {"c01-bad", false}, {"c10-ok", true}, {"c10-bad", false}, {"c50-ok", true}, {"c50-bad", false}}) {
    const outcome o = check<kv_model>(name, parse_kv((data / "kv" / (name + ".txt")).string()), expected);
    std::cout << o.line << '\n';
    ++total;
    if (!o.right) ++wrong;
  }
  std::printf("porcupine_histories: %d of %d histories got Porcupine's verdict, decided (etcd logs in %.2f s: checking "
              "%.3f s, the slowest %s %.3f s)\n",
              total - wrong, total, etcd_seconds, etcd_check, worst_name.c_str(), worst);
  return wrong == 0 ? 0 : 1;
}
