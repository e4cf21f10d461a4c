// fuzz.cpp — 06_pool_race's planted bug under a fuzzer: libFuzzer's bytes choose the seed and the first draws
#include "scenario.hpp"

#include <simasio/check/fuzz.hpp>

SIMASIO_FUZZ_SCENARIO(pool_race) { sample_06::scenario(world, false); }
