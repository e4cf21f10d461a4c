// misbehave.cpp — sweeps whose seeds end, kill or hang their process, as real test code does
//
// `simasio_misbehave <case>` runs one sweep of 20 seeds (the settings as
// the environment says) in which seed 5 misbehaves as the case names, and
// exits 0 when the sweep passed, 1 when it failed. trust_test.cpp runs it
// and reads what it printed and how it ended.
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

namespace net = simasio::asio;
using namespace std::chrono_literals;

namespace {

volatile int sink = 0;

int recurse(int n) {
  volatile char frame[512];
  frame[0] = static_cast<char>(n);
  sink = sink + frame[0];
  return recurse(n + 1) + frame[0];
}

// A file whose existence says the seed already ran once (for a kill that
// happens only the first time, as an OOM kill would).
bool first_time(const char* marker) {
  const char* dir = std::getenv("MISBEHAVE_DIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + marker;
  if (std::ifstream(path)) return false;
  std::ofstream(path) << "ran\n";
  return true;
}

// Writes this process's pid into MISBEHAVE_DIR/pid-<pid> (to find orphans).
void note_pid() {
  if (const char* dir = std::getenv("MISBEHAVE_DIR"))
    std::ofstream(std::string(dir) + "/pid-" + std::to_string(::getpid())) << ::getpid() << "\n";
}

// What seed 5 does in each case, in the scenario's body (or a handler).
const std::map<std::string, std::function<void(simasio::world&)>>& cases() {
  static const std::map<std::string, std::function<void(simasio::world&)>> all{
      {"pass", [](simasio::world&) {}},
      {"interrupt", [](simasio::world&) {}},
      {"exit0", [](simasio::world&) { std::exit(0); }},
      {"exit3", [](simasio::world&) { std::exit(3); }},
      {"exit_in_handler",
       [](simasio::world& w) {
         net::post(w.add_host("h").context(), [] { std::exit(0); });
         w.run();
       }},
      {"quick_exit", [](simasio::world&) { std::quick_exit(0); }},
      {"_exit", [](simasio::world&) { ::_exit(0); }},
      {"stack_overflow",
       [](simasio::world& w) {
         net::post(w.add_host("h").context(), [] { sink = recurse(0); });
         w.run();
       }},
      {"sigbus", [](simasio::world&) { std::raise(SIGBUS); }},
      {"sigfpe", [](simasio::world&) { std::raise(SIGFPE); }},
      {"sigill", [](simasio::world&) { __builtin_trap(); }},
      {"sigabrt", [](simasio::world&) { std::abort(); }},
      {"hang",
       [](simasio::world& w) {
         w.run_for(250ms);
         ::sleep(600);  // a real blocking call: the virtual clock stands still
       }},
      {"killed_once",
       [](simasio::world&) {
         if (first_time("killed_once")) ::kill(::getpid(), SIGKILL);
       }},
      {"killed_always", [](simasio::world&) { ::kill(::getpid(), SIGKILL); }},
      {"throw_int", [](simasio::world&) { throw 42; }},
      {"usage_error", [](simasio::world& w) { w.get_host("primray"); }},
  };
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || cases().count(argv[1]) == 0) {
    std::fprintf(stderr, "usage: simasio_misbehave <case>\n");
    return 64;
  }
  const std::string name = argv[1];
  if (const char* limit = std::getenv("MISBEHAVE_NOFILE")) {
    rlimit r{};
    ::getrlimit(RLIMIT_NOFILE, &r);
    r.rlim_cur = std::strtoul(limit, nullptr, 10);
    ::setrlimit(RLIMIT_NOFILE, &r);
  }
  // MISBEHAVE_INTERRUPT=parent (an isolated seed's sweep) or self: seed 7
  // sends SIGTERM to the sweep's process (self_int: SIGINT, as Ctrl-C does);
  // with MISBEHAVE_SLOW the later seeds' processes sleep (they must not
  // outlive the sweep).
  const char* interrupt = std::getenv("MISBEHAVE_INTERRUPT");
  const bool slow = std::getenv("MISBEHAVE_SLOW") != nullptr;
  const auto misbehave = cases().at(name);
  simasio::check_options opts;
  opts.seeds = 20;
  opts.name = "misbehave_" + name;
  const auto r = simasio::check(
      [&](simasio::world& w) {
        w.add_host("a");
        note_pid();
        if (interrupt != nullptr && w.seed() == 7)
          ::kill(std::strcmp(interrupt, "parent") == 0 ? ::getppid() : ::getpid(),
                 std::strcmp(interrupt, "self_int") == 0 ? SIGINT : SIGTERM);
        if (interrupt != nullptr && slow && w.seed() >= 7) ::sleep(30);
        if (w.seed() == 5) misbehave(w);
        w.run_for(10ms);
      },
      opts);
  return r.ok() ? 0 : 1;
}
