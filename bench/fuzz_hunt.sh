#!/usr/bin/env bash
# fuzz_hunt.sh BUILD_DIR [RUNS] [MAX_EXECUTIONS] — executions to the first
# failure of each sample's planted bug under libFuzzer (the samples'
# <name>_fuzz targets of a clang build, SIMASIO_BUILD_SAMPLES on, and
# bench's deep_retry_fuzz with SIMASIO_BUILD_BENCH on). Run k of
# RUNS (libFuzzer -seed=k) starts from one input, the seed (k-1) x 1,000,000
# alone, where simasio_hunt's sweep k starts, and stops at the first
# failure: simasio prints which execution of the process it was. Prints a
# markdown table: mean / median executions, and how many runs found the bug.
set -euo pipefail
build="$(cd "${1:?usage: fuzz_hunt.sh BUILD_DIR [RUNS] [MAX_EXECUTIONS]}" && pwd)"
runs="${2:-20}"
max="${3:-20000}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The 8 bytes of $1, little-endian: an input that is that seed alone.
le64() {
  local out="" i
  for i in 0 1 2 3 4 5 6 7; do out+="$(printf '\\%03o' $(( ($1 >> (8 * i)) & 255 )))"; done
  printf "$out"
}
echo "executions to the first failure under libFuzzer: mean / median over $runs runs of up to $max executions"
echo
echo "| planted bug | fuzzer-guided |"
echo "|---|---|"
for target in $(find "$build/samples" "$build/bench" -maxdepth 2 -type f -name '*_fuzz' 2>/dev/null | sort); do
  found=()
  for seed in $(seq 1 "$runs"); do
    rm -rf "$scratch/corpus" && mkdir -p "$scratch/corpus"
    le64 $(( (seed - 1) * 1000000 )) > "$scratch/corpus/start"
    out="$(cd "$scratch" && SIMASIO_ARTIFACTS="$scratch/artifacts" "$target" -seed="$seed" -runs="$max" \
             -artifact_prefix="$scratch/" -print_final_stats=0 "$scratch/corpus" 2>&1 || true)"
    if ! grep -q "^INFO: Seed: $seed" <<<"$out"; then
      echo "fuzz_hunt.sh: $target is not a libFuzzer program (build with clang and libclang-rt-dev):" >&2
      echo "$out" | head -5 >&2
      exit 1
    fi
    n="$(sed -n 's/^simasio: fuzz: .* failed at execution \([0-9]*\) of this process.*/\1/p;T;q' <<<"$out")"
    [ -n "$n" ] && found+=("$n")
  done
  name="$(basename "$target" _fuzz)"
  if [ ${#found[@]} -eq 0 ]; then
    echo "| ${name#sample_} | not found (0/$runs) |"
    continue
  fi
  printf '%s\n' "${found[@]}" | sort -n | awk -v name="${name#sample_}" -v runs="$runs" '
    { v[NR] = $1; sum += $1 }
    END { printf "| %s | %.1f / %d%s |\n", name, sum / NR, v[int(NR / 2) + 1], NR == runs ? "" : " (" NR "/" runs ")" }'
done
