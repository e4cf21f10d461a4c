#!/usr/bin/env bash
# docs.sh [OUT] — builds the documentation site into OUT (build/docs by
# default): Doxygen reads the public headers into XML; a copy of docs/ gets
# one reference page per header from it (docs/tools/reference.py); Sphinx
# (MyST for the pages, Breathe for the reference) writes static HTML into
# OUT/html. Warnings are errors in Doxygen and Sphinx, and every local link
# of the site and of the README must lead somewhere. Open OUT/html/index.html.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[ "${SIMASIO_DOCS_NO_INSTALL:-0}" = 1 ] || simasio_install_missing
out="$(realpath -m "${1:-$SIMASIO_ROOT/build/docs}")"
rm -rf "$out/xml" "$out/src" "$out/html" "$out/doctrees"
mkdir -p "$out/xml"
for config in Doxyfile Doxyfile.asio; do
  (cd "$SIMASIO_ROOT/docs" && SIMASIO_DOCS_XML="$out/xml" SIMASIO_ROOT="$SIMASIO_ROOT" doxygen "$config")
done
# The pages as written, the README beside them (a page includes its table
# of modelled differences), and the generated reference pages.
cp -r "$SIMASIO_ROOT/docs" "$out/src"
cp "$SIMASIO_ROOT/README.md" "$out/README.md"
python3 "$SIMASIO_ROOT/docs/tools/reference.py" "$out/xml/simasio" simasio "$out/src/reference/api"
python3 "$SIMASIO_ROOT/docs/tools/reference.py" "$out/xml/simasio_asio" simasio_asio "$out/src/reference/asio"
SIMASIO_DOXYGEN_XML="$out/xml" sphinx-build -W --keep-going -q -b html -d "$out/doctrees" "$out/src" "$out/html"
python3 "$SIMASIO_ROOT/docs/tools/check_links.py" "$out/html" "$SIMASIO_ROOT/README.md"
echo "simasio: documentation in $out/html/index.html"
