// fuzz.cpp — 04_raft_chaos's planted bug under a fuzzer: libFuzzer's bytes choose the seed and the first draws
#include "chaos.hpp"

#include <simasio/check/fuzz.hpp>

// The flawed election, which votes on the term alone: two leaders in a term.
SIMASIO_FUZZ_SCENARIO(raft_chaos_flawed) {
  raft_chaos::history h;
  raft_chaos::chaos_run(world, true, h);
}
