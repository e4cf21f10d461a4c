// profile.cpp — the kernel's socket buffer settings, read from /proc/sys/net.
#include "observe.hpp"

#include <fstream>
#include <sstream>

namespace simasio_diff {

namespace {
long read_long(const char* path, long fallback) {
  std::ifstream f(path);
  long v = fallback;
  f >> v;
  return v;
}
void read_triple(const char* path, long (&out)[3]) {
  std::ifstream f(path);
  f >> out[0] >> out[1] >> out[2];
}
}  // namespace

kernel_profile read_profile() {
  kernel_profile p;
  p.rmem_max = read_long("/proc/sys/net/core/rmem_max", p.rmem_max);
  p.wmem_max = read_long("/proc/sys/net/core/wmem_max", p.wmem_max);
  p.rmem_default = read_long("/proc/sys/net/core/rmem_default", p.rmem_default);
  p.wmem_default = read_long("/proc/sys/net/core/wmem_default", p.wmem_default);
  read_triple("/proc/sys/net/ipv4/tcp_rmem", p.tcp_rmem);
  read_triple("/proc/sys/net/ipv4/tcp_wmem", p.tcp_wmem);
  std::ifstream cc("/proc/sys/net/ipv4/tcp_congestion_control");
  cc >> p.congestion;
  return p;
}

std::string kernel_profile::describe() const {
  std::ostringstream o;
  o << "rmem_max=" << rmem_max << " wmem_max=" << wmem_max << " rmem_default=" << rmem_default
    << " wmem_default=" << wmem_default << " tcp_rmem=" << tcp_rmem[0] << "," << tcp_rmem[1] << "," << tcp_rmem[2]
    << " tcp_wmem=" << tcp_wmem[0] << "," << tcp_wmem[1] << "," << tcp_wmem[2] << " congestion=" << congestion;
  return o.str();
}

kernel_profile kernel_profile::parse(const std::string& line) {
  kernel_profile p;
  std::istringstream in(line);
  std::string field;
  while (in >> field) {
    const auto eq = field.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = field.substr(0, eq), v = field.substr(eq + 1);
    auto triple = [&](long (&out)[3]) { std::sscanf(v.c_str(), "%ld,%ld,%ld", &out[0], &out[1], &out[2]); };
    if (k == "rmem_max") p.rmem_max = std::stol(v);
    else if (k == "wmem_max") p.wmem_max = std::stol(v);
    else if (k == "rmem_default") p.rmem_default = std::stol(v);
    else if (k == "wmem_default") p.wmem_default = std::stol(v);
    else if (k == "tcp_rmem") triple(p.tcp_rmem);
    else if (k == "tcp_wmem") triple(p.tcp_wmem);
    else if (k == "congestion") p.congestion = v;
  }
  return p;
}

}  // namespace simasio_diff
