// header_rows.cpp — what simasio's headers cost the compiler
//
// One echo program (bench/headers/echo_program.ipp: callbacks, a resolver,
// composed reads and writes, a timer, a strand) compiled as a user compiles
// it: on <boost/asio.hpp> (echo_on_asio.cpp), and with the alias switched
// to <simasio/asio.hpp> + <simasio/simasio.hpp> (echo_on_simasio.cpp), by
// the compiler that built this program, at -O2. Each figure is the best of
// the runs of a pair taken in turn: the compiler's CPU time (user + system)
// and its peak memory (getrusage of the child).
#include "groups.hpp"

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace bench {
namespace {

struct compile_cost {
  double cpu_ms = 0;
  double peak_mb = 0;
};

compile_cost compile(const std::string& source) {
  std::vector<std::string> args = {SIMASIO_BENCH_CXX,
                                   "-std=c++20",
                                   "-O2",
                                   "-DSPDLOG_COMPILED_LIB",
                                   "-DSPDLOG_SHARED_LIB",
                                   "-DSPDLOG_FMT_EXTERNAL",
                                   "-I" SIMASIO_BENCH_INCLUDE,
                                   "-c",
                                   std::string(SIMASIO_BENCH_HEADERS "/") + source,
                                   "-o",
                                   "/dev/null"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error(std::string("simasio_bench: cannot start the compiler ") + SIMASIO_BENCH_CXX);
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("simasio_bench: compiling bench/headers/" + source + " failed");
  compile_cost c;
  c.cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
             (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
  c.peak_mb = usage.ru_maxrss / 1024.0;  // KiB
  return c;
}

}  // namespace

void header_rows(const settings& s, std::vector<row>& rows) {
  compile_cost sim{1e30, 1e30};
  compile_cost asio{1e30, 1e30};
  for (int i = 0; i < (s.quick ? 1 : 3); ++i) {
    const compile_cost a = compile("echo_on_asio.cpp");
    const compile_cost b = compile("echo_on_simasio.cpp");
    asio = {std::min(asio.cpu_ms, a.cpu_ms), std::min(asio.peak_mb, a.peak_mb)};
    sim = {std::min(sim.cpu_ms, b.cpu_ms), std::min(sim.peak_mb, b.peak_mb)};
  }
  const double time_ratio = sim.cpu_ms / asio.cpu_ms;
  const double memory_ratio = sim.peak_mb / asio.peak_mb;
  rows.push_back({"headers: compiling an echo program (-O2), <simasio/asio.hpp> + <simasio/simasio.hpp> vs "
                  "<boost/asio.hpp>: compiler CPU time",
                  sim.cpu_ms, asio.cpu_ms, times(time_ratio), "<= 1.3x", time_ratio <= 1.3, "ms"});
  rows.push_back({"headers: the same, compiler peak memory", sim.peak_mb, asio.peak_mb, times(memory_ratio),
                  "<= 1.3x", memory_ratio <= 1.3, "MB"});
}

}  // namespace bench
