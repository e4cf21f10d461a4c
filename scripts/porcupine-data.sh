#!/usr/bin/env bash
# porcupine-data.sh — puts Porcupine's public test histories where the
# porcupine_histories test reads them: build-deps/porcupine/test_data
# (Jepsen's etcd logs, and key-value logs of 1, 10 and 50 clients, with
# the verdicts Porcupine's own tests expect).
#
#   scripts/porcupine-data.sh [SOURCE]
#
# SOURCE is a git repository of Porcupine (a URL, or a local clone or
# mirror); by default its GitHub address. The histories are taken at one
# pinned commit. Without them the test reports itself skipped.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SOURCE="${1:-https://github.com/anishathalye/porcupine}"
COMMIT=55508eb201b314c218d7e8412c3ea4b9499a5f53
DEST="$ROOT/build-deps/porcupine"

[ "$(cat "$DEST/.commit" 2>/dev/null)" = "$COMMIT" ] && exit 0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -d "$SOURCE" ] && git -C "$SOURCE" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
  git -C "$SOURCE" archive "$COMMIT" test_data | tar -x -C "$work"
else
  git init -q "$work/repo"
  git -C "$work/repo" fetch -q --depth 1 "$SOURCE" "$COMMIT"
  git -C "$work/repo" archive "$COMMIT" test_data | tar -x -C "$work"
fi
rm -rf "$DEST"
mkdir -p "$DEST"
mv "$work/test_data" "$DEST/test_data"
echo "$COMMIT" >"$DEST/.commit"
echo "simasio: Porcupine's test histories (commit ${COMMIT:0:7}) are in build-deps/porcupine/test_data"
