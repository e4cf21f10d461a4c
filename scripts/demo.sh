#!/usr/bin/env bash
# demo.sh — install what is missing, build, and run the flagship demo.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
simasio_install_deps
simasio_build "$SIMASIO_ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
exec "$SIMASIO_ROOT/build/samples/00_virtual_time/sample_00_virtual_time"
