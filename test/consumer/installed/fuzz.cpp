// fuzz.cpp — a fuzz target through the installed package: <simasio/check/fuzz.hpp> on its own, built by
// simasio_add_fuzz_scenario (a libFuzzer program with clang, a program that runs its inputs otherwise)
#include <simasio/check/fuzz.hpp>

#include <chrono>
#include <stdexcept>

namespace {
// The macro's own names must not capture a user's.
const simasio::fuzz_options options{};
}  // namespace

SIMASIO_FUZZ_SCENARIO_WITH(consumer_two_hosts, options) {
  auto& a = world.add_host("a");
  world.add_host("b");
  world.run_for(std::chrono::milliseconds(10));
  if (a.name() != "a") throw std::runtime_error("host a lost its name");
}
