// fuzz.cpp — 10_lost_wakeup's planted bug under a fuzzer: libFuzzer's bytes choose the seed and the first draws
#include "scenario.hpp"

#include <simasio/check/fuzz.hpp>

// The worker without a predicate loop; its threads are simulated only with simasio::interpose linked.
SIMASIO_FUZZ_SCENARIO(lost_wakeup) { sample_10::scenario(world, false, false); }
