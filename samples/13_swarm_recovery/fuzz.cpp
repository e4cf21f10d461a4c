// fuzz.cpp — 13_swarm_recovery's planted bug under a fuzzer: libFuzzer's bytes choose the seed and the first draws
#include "scenario.hpp"

#include <simasio/check/fuzz.hpp>

namespace {

// Swarm testing, as main's "flawed_recovery" check: the input draws the fault mix too.
simasio::fuzz_options swarm_options() {
  simasio::fuzz_options o;
  o.swarm = true;
  return o;
}

}  // namespace

// The flawed store, which holds back the puts that arrive during recovery.
SIMASIO_FUZZ_SCENARIO_WITH(swarm_recovery, swarm_options()) { sample_13::scenario(world, true); }
