#!/usr/bin/env bash
# test.sh — install what is missing, build, and run the whole test suite:
# the optimised build, an ASan+UBSan build, and a clang build (which also
# fuzzes each libFuzzer target for SIMASIO_FUZZ_SECONDS, 60 by default).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
simasio_install_deps

run_suite() {
  local name="$1" dir="$2"; shift 2
  echo "== simasio: $name"
  simasio_build "$dir" "$@"
  (cd "$dir" && ctest -j2 --output-on-failure)
}

run_suite "tests (g++, optimised)" "$SIMASIO_ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
run_suite "tests (g++, ASan+UBSan)" "$SIMASIO_ROOT/build-sanitize" -DCMAKE_BUILD_TYPE=Debug \
  -DSIMASIO_SANITIZE=address,undefined
if command -v clang++ >/dev/null 2>&1; then
  run_suite "tests (clang++)" "$SIMASIO_ROOT/build-clang" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++
fi
