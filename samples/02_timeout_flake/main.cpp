// 02_timeout_flake — a client deadline racing a reply: the flake, its seed, its fix.
//
// A client sends a request over TCP and waits for the reply with a 100 ms
// deadline (`co_await (read || timer)`). The link's one-way latency is
// uniform in [10, 60] ms, so the round trip (20..120 ms) straddles the
// deadline: the kind of test that fails once in a while in CI. The sweep
// finds a failing seed and prints its replay line; replaying it fails the
// same way, every time. The fixed client retries with a doubling deadline
// and passes the same seeds.
#include "scenario.hpp"

#include <cstdio>
#include <cstring>

using namespace sample_02;

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const bool retry = argc > 1 && std::strcmp(argv[1], "--retry") == 0;
  simasio::check_options opts;
  opts.seeds = 200;
  opts.name = "timeout_flake";
  if (!retry) {
    const auto flaky = simasio::check([](simasio::world& w) { scenario(w, false); }, opts);
    if (flaky.ok()) {
      std::printf("single attempt: passed %llu seeds (no flake found)\n", static_cast<unsigned long long>(flaky.runs));
      return 1;
    }
    const auto seed = flaky.failure->seed;
    std::printf("single attempt: times out at seed %llu (after %llu seeds)\n", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(flaky.runs));
    int reproduced = 0;
    for (int i = 0; i < 3; ++i) {
      try {
        simasio::replay([](simasio::world& w) { scenario(w, false); }, seed);
      } catch (const simasio::scenario_failure&) {
        ++reproduced;
      }
    }
    std::printf("replayed seed %llu three times: failed %d of 3\n", static_cast<unsigned long long>(seed), reproduced);
    if (reproduced != 3) return 1;
  }
  opts.name = "timeout_retry";
  const auto fixed = simasio::check([](simasio::world& w) { scenario(w, true); }, opts);
  std::printf("retry with a doubling deadline: %s over %llu seeds\n", fixed.ok() ? "passes" : "FAILS",
              static_cast<unsigned long long>(fixed.runs));
  return fixed.ok() ? 0 : 1;
}
