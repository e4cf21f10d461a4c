// fuzz.cpp — 11_wal_store's planted bug under a fuzzer: libFuzzer's bytes choose the seed and the first draws
#include "scenario.hpp"

#include <simasio/check/fuzz.hpp>

// The store that acknowledges a put before wal.sync_data() (main also sweeps rename_without_sync).
SIMASIO_FUZZ_SCENARIO(wal_store) { sample_11::scenario(world, sample_11::ack_before_sync, false); }
