#!/usr/bin/env bash
# test.sh — install what is missing, build, and run the whole test suite in
# two builds: g++ optimised, and clang with ASan+UBSan, which also fuzzes each
# libFuzzer target for SIMASIO_FUZZ_SECONDS (30 by default, sized for CI's
# time budget; set it higher for a longer local run). Where clang is
# missing, g++ builds the sanitizer suite and the fuzz targets only replay
# their corpus.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
simasio_install_deps
# Porcupine's public test histories, for the porcupine_histories test (it
# reports itself skipped without them).
timeout 120 "$SIMASIO_ROOT/scripts/porcupine-data.sh" ||
  echo "simasio: Porcupine's test histories could not be fetched: porcupine_histories will be skipped"

run_suite() {
  local name="$1" dir="$2"; shift 2
  echo "== simasio: $name"
  simasio_build "$dir" -DSIMASIO_REQUIRE_TEST_PACKAGES=ON "$@"
  # One test more than cores: the differential tests spend most of their
  # time waiting for the real loopback to settle.
  (cd "$dir" && ctest -j"$(($(nproc) + 1))" --output-on-failure)
}

run_suite "tests (g++, optimised)" "$SIMASIO_ROOT/build" "${SIMASIO_OPTIMISED[@]}"
compiler=g++ c_compiler=gcc lines=-g1
command -v clang++ >/dev/null 2>&1 && compiler=clang++ c_compiler=clang lines=-gline-tables-only
# Line tables only: the sanitizers' reports name file and line from them, and
# full debug information made this build and its links about a fifth slower.
run_suite "tests ($compiler, ASan+UBSan)" "$SIMASIO_ROOT/build-sanitize" -DCMAKE_CXX_COMPILER="$compiler" \
  -DCMAKE_C_COMPILER="$c_compiler" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="$lines" \
  -DCMAKE_C_FLAGS_DEBUG="$lines" -DSIMASIO_SANITIZE=address,undefined \
  -DSIMASIO_FUZZ_SECONDS="${SIMASIO_FUZZ_SECONDS:-30}"
