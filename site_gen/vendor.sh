#!/usr/bin/env bash
# Refresh the vendored chart libraries in docs/assets/vendor/ from npm (no CDN at run time).
# Exact versions are pinned here; bump them together. The browser gets no vega-lite: the specs are
# compiled to Vega at build time (site_gen/charts/vega_compile.py), whose output's Vega major version must equal
# vega's here (tests/site/test_vendor.py checks it). Needs npm; downloads two tarballs.
# Usage: bash site_gen/vendor.sh            (run from the repository root)
set -euo pipefail

VEGA=6.4.0
VEGA_EMBED=7.3.0

dest="$(cd "$(dirname "$0")/.." && pwd)/docs/assets/vendor"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest/LICENSES"

fetch() {  # fetch NAME VERSION FILE: unpack the npm tarball, copy the plain-script build and the licence
  local name=$1 version=$2 file=$3
  (cd "$work" && npm pack --silent "$name@$version" >/dev/null && mkdir "$name" && tar -xzf "$name-$version.tgz" -C "$name")
  cp "$work/$name/package/build/$file" "$dest/$file.tmp" && mv "$dest/$file.tmp" "$dest/$file"
  cp "$work/$name/package/LICENSE" "$dest/LICENSES/$name.LICENSE"
  echo "$name $version build/$file $(sha256sum "$dest/$file" | cut -d' ' -f1)"
}

{
  echo "# Vendored from npm by site_gen/vendor.sh: package version file sha256"
  fetch vega "$VEGA" vega.min.js
  fetch vega-embed "$VEGA_EMBED" vega-embed.min.js
} > "$dest/VERSIONS.tmp"
mv "$dest/VERSIONS.tmp" "$dest/VERSIONS"
cat "$dest/VERSIONS"
