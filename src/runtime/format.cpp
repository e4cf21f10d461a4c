// format.cpp — small formatting helpers for messages
#include <simasio/detail/format.hpp>

#include <cstring>

#include <cstdint>
#include <cstdio>
#include <string>

namespace simasio::detail {

std::string format_time(duration t) {
  const std::int64_t ns = t.count();
  const bool neg = ns < 0;
  const std::uint64_t mag = neg ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  char buf[48];
  if (mag % 1'000'000 == 0)
    std::snprintf(buf, sizeof buf, "%s%llu.%03llus", neg ? "-" : "", static_cast<unsigned long long>(mag / 1'000'000'000),
                  static_cast<unsigned long long>(mag / 1'000'000 % 1000));
  else
    std::snprintf(buf, sizeof buf, "%s%llu.%09llus", neg ? "-" : "", static_cast<unsigned long long>(mag / 1'000'000'000),
                  static_cast<unsigned long long>(mag % 1'000'000'000));
  return buf;
}

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  const char* text = ::strsignal(signal);
  std::string out = abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

}  // namespace simasio::detail
