// samples/common/command_line.hpp — the samples' command line: --seeds N, on/off flags, positive numbers
#ifndef SIMASIO_SAMPLES_COMMAND_LINE_HPP
#define SIMASIO_SAMPLES_COMMAND_LINE_HPP

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

namespace sample {

struct flag {
  const char* name;  // "--flawed"
  bool* set;         // becomes true when given
};

// The positive number @p text given to @p option; otherwise says so and
// exits with 2.
inline std::uint64_t positive_number(const char* program, const char* option, const char* text) {
  char* end = nullptr;
  const std::uint64_t n = std::strtoull(text, &end, 10);
  if (*end != '\0' || n == 0) {
    std::fprintf(stderr, "%s: %s '%s' is not a positive number\n", program, option, text);
    std::exit(2);
  }
  return n;
}

// Reads "--seeds N" (a positive number) into seeds and each flag; anything
// else prints the usage and exits with 2, as a bad --seeds does.
inline void read_command_line(int argc, char** argv, std::uint64_t& seeds, std::initializer_list<flag> flags = {}) {
  std::string usage = std::string("usage: ") + argv[0];
  for (const flag& f : flags) usage += std::string(" [") + f.name + "]";
  usage += " [--seeds N]";
  for (int i = 1; i < argc; ++i) {
    bool known = false;
    for (const flag& f : flags) {
      if (std::strcmp(argv[i], f.name) == 0) {
        *f.set = true;
        known = true;
      }
    }
    if (known) continue;
    if (std::strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
      char* end = nullptr;
      seeds = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0' || seeds == 0) {
        std::fprintf(stderr, "%s: --seeds '%s' is not a positive number of seeds\n", argv[0], argv[i]);
        std::exit(2);
      }
      continue;
    }
    std::fprintf(stderr, "%s\n", usage.c_str());
    std::exit(2);
  }
}

}  // namespace sample

#endif  // SIMASIO_SAMPLES_COMMAND_LINE_HPP
