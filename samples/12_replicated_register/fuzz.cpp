// fuzz.cpp — 12_replicated_register's planted bug under a fuzzer: libFuzzer's bytes choose the seed and the first draws
#include "scenario.hpp"

#include <simasio/check/fuzz.hpp>

// Reads served by the backup; each run records its own history.
SIMASIO_FUZZ_SCENARIO(replicated_register) {
  sample_12::reg_history h;
  sample_12::scenario(world, true, h);
}
