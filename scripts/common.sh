#!/usr/bin/env bash
# common.sh — shared by demo.sh and test.sh: install what is missing, configure, build.
set -euo pipefail

SIMASIO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIMASIO_PACKAGES=(cmake ninja-build g++ clang libclang-rt-dev libboost1.81-dev libboost-test1.81-dev libboost-context1.81-dev libboost-coroutine1.81-dev libboost1.81-doc libwebsocketpp-dev libwebsocketpp-doc libboost-thread1.81-dev libboost-program-options1.81-dev libssl-dev libsqlite3-dev libcurl4-openssl-dev libcpp-httplib-dev libcpprest2.10 libspdlog-dev libgtest-dev ccache strace chromium python3 valgrind doxygen python3-sphinx python3-myst-parser python3-breathe furo)

# Debian packages the conformance suite reads but cannot install: their
# dependencies pull in Boost 1.74's dev packages, which conflict with 1.81's
# (autobahn-cpp, a WAMP client on Asio, with its examples, msgpack's C++
# headers, and the C++ REST SDK's headers: its runtime, libcpprest2.10, is
# installed). Downloaded and unpacked into build-deps/root, once per list.
SIMASIO_UNPACKED=(autobahn-cpp-dev autobahn-cpp-doc libmsgpack-cxx-dev libcpprest-dev)
SIMASIO_UNPACKED_ROOT="$SIMASIO_ROOT/build-deps/root"

simasio_unpack_deps() {
  [ "$(cat "$SIMASIO_UNPACKED_ROOT/.unpacked" 2>/dev/null)" = "${SIMASIO_UNPACKED[*]}" ] && return 0
  local debs="$SIMASIO_ROOT/build-deps/debs"
  rm -rf "$debs" "$SIMASIO_UNPACKED_ROOT"
  mkdir -p "$debs" "$SIMASIO_UNPACKED_ROOT"
  echo "simasio: unpacking ${SIMASIO_UNPACKED[*]} into build-deps/root (not installed: they conflict with Boost 1.81's packages)"
  if ! (cd "$debs" && apt-get download -qq "${SIMASIO_UNPACKED[@]}" 2>/dev/null); then
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    (cd "$debs" && apt-get download -qq "${SIMASIO_UNPACKED[@]}" 2>/dev/null)
  fi
  local deb
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$SIMASIO_UNPACKED_ROOT"; done
  gunzip -kf "$SIMASIO_UNPACKED_ROOT"/usr/share/doc/autobahn-cpp-doc/examples/*.gz
  echo "${SIMASIO_UNPACKED[*]}" >"$SIMASIO_UNPACKED_ROOT/.unpacked"
}

# Installs the Debian packages simasio needs, only those missing.
simasio_install_deps() {
  simasio_install_missing
  simasio_unpack_deps
}

simasio_install_missing() {
  local missing=()
  for pkg in "${SIMASIO_PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "simasio: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "simasio: run as root (or install sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The optimised build that demo.sh and test.sh share: -O1 with line tables
# only (backtraces keep file:line). Against -O2 with full debug info it
# compiles the suite in a fraction less time; CI builds it from scratch.
SIMASIO_OPTIMISED=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")

# simasio_build DIR [cmake args...] — configures (once) and builds DIR with two jobs.
simasio_build() {
  local dir="$1"; shift
  cmake -S "$SIMASIO_ROOT" -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j2
}
