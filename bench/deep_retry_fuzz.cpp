// deep_retry_fuzz.cpp — deep_retry.hpp's planted bug under a fuzzer (see bench/fuzz_hunt.sh)
#include "deep_retry.hpp"

#include <simasio/check/fuzz.hpp>

SIMASIO_FUZZ_SCENARIO(deep_retry) { deep_retry::scenario(world); }
