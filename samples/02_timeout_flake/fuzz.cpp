// fuzz.cpp — 02_timeout_flake's planted bug under a fuzzer: libFuzzer's bytes choose the seed and the first draws
#include "scenario.hpp"

#include <simasio/check/fuzz.hpp>

SIMASIO_FUZZ_SCENARIO(timeout_flake) { sample_02::scenario(world, false); }
