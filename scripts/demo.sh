#!/usr/bin/env bash
# demo.sh — install what is missing, build, and run the flagship demo (Raft leader election).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
simasio_install_deps
cmake -S "$SIMASIO_ROOT" -B "$SIMASIO_ROOT/build" -G Ninja "${SIMASIO_OPTIMISED[@]}" >/dev/null
# The demo, and what `cmake --install build` installs (the library and the
# interposition library's objects), so an install after the demo works.
cmake --build "$SIMASIO_ROOT/build" -j2 --target sample_03_raft_election simasio simasio_interpose >/dev/null
cd "$SIMASIO_ROOT/build"
exec ./samples/03_raft_election/sample_03_raft_election
