#!/usr/bin/env bash
# scripts/conformance_corpus.sh — how much of Boost's own example corpus compiles with the alias switch
#
#   bash scripts/conformance_corpus.sh [work-dir]
#
# Takes every C++11-and-later example program Boost 1.81 ships (Debian's
# libboost1.81-doc: asio/example/cpp11..cpp20 and beast/example; 182
# files), applies the alias switch (cmake/alias_switch.cmake: boost::asio ->
# simasio::asio, boost::beast -> simasio::beast, include paths untouched),
# (and the example's own headers next to it), compiles each with g++
# -std=c++20 -fsyntax-only against simasio's headers, and prints each
# failure's first error and "compiled N / total M", next to how many of the
# unswitched originals compile against Boost alone (the baseline;
# SIMASIO_CORPUS_BASELINE=0 skips it, halving the time). A
# measurement for the README, not a test: the conformance suite (ctest -L
# conformance) runs the example pairs that matter in simulation.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
root=/usr/share/doc/libboost1.81-doc/examples/libs
work=${1:-${TMPDIR:-/tmp}/simasio-corpus}
mkdir -p "$work"
if [ ! -d "$root" ]; then
  echo "Boost's examples are missing: apt-get install libboost1.81-doc" >&2
  exit 1
fi
total=0
compiled=0
baseline=0
failures=()
while IFS= read -r f; do
  total=$((total + 1))
  rel=${f#"$root"/}
  key=$(echo "$rel" | tr '/' '_')
  out="$work/$key"
  # The example's local headers get the same switch, found before the originals.
  mkdir -p "$work/$key.d"
  for h in "$(dirname "$f")"/*.hpp; do
    [ -e "$h" ] && cmake -DIN="$h" -DOUT="$work/$key.d/$(basename "$h")" -P "$here/cmake/alias_switch.cmake"
  done
  cmake -DIN="$f" -DOUT="$out" -P "$here/cmake/alias_switch.cmake"
  if [ "${SIMASIO_CORPUS_BASELINE:-1}" != 0 ] &&
     g++ -std=c++20 -fsyntax-only -w -I "$(dirname "$f")" -I "$root/beast" "$f" 2> /dev/null; then
    baseline=$((baseline + 1))
  fi
  extra=()
  if grep -q "ssl" "$f" && [ -f "$here/include/simasio/ssl.hpp" ]; then extra=(-include simasio/ssl.hpp); fi
  if grep -q "boost/asio/spawn.hpp" "$f"; then extra+=(-include simasio/spawn.hpp); fi
  if g++ -std=c++20 -fsyntax-only -w -I "$here/include" -I "$work/$key.d" -I "$(dirname "$f")" -I "$root/beast" \
       -include simasio/asio.hpp -include simasio/beast.hpp "${extra[@]}" "$out" 2> "$out.err"; then
    compiled=$((compiled + 1))
  else
    failures+=("$rel: $(grep -m1 'error' "$out.err" | cut -c1-220)")
  fi
done < <(find "$root/asio/example/cpp11" "$root/asio/example/cpp14" "$root/asio/example/cpp17" \
              "$root/asio/example/cpp20" "$root/beast/example" -name '*.cpp' | sort)
for line in "${failures[@]}"; do echo "FAILED $line"; done
if [ "${SIMASIO_CORPUS_BASELINE:-1}" != 0 ]; then
  echo "compiled $compiled / total $total with the alias switch (the originals against Boost alone: $baseline / $total)"
else
  echo "compiled $compiled / total $total with the alias switch"
fi
