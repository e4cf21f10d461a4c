// fuzz.cpp — 14_route_push's planted bug under a fuzzer: libFuzzer's bytes choose the seed and the first draws
#include "scenario.hpp"

#include <simasio/check/fuzz.hpp>

// Fire-and-forget code held to its own design, as main's "fire_and_forget" check. The design is built
// once: a model is immutable, so every input shares it.
SIMASIO_FUZZ_SCENARIO(route_push) {
  static const auto fire_and_forget = sample_14::design(false);
  sample_14::scenario(world, false, fire_and_forget);
}
