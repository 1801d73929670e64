#!/usr/bin/env bash
# Prints the size of each wasm file in dist/ and, where Trunk's wasm-bindgen output is still in
# the target directory, its size before wasm-opt.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$PRV_ROOT"
shopt -s nullglob
for f in dist/*.wasm; do
  name="$(basename "$f")"
  bin="${name%_bg.wasm}"
  bin="${bin%-*}"            # the page's file name carries a hash: prv-app-<hash>_bg.wasm
  [ "$bin" = prv ] && bin="${name%_bg.wasm}"
  before=""
  for dir in target/wasm/wasm-bindgen/release target/wasm-bindgen/release; do
    pre="$dir/${bin}_bg.wasm"
    [ -f "$pre" ] && before="$(stat -c %s "$pre")" && break
  done
  after="$(stat -c %s "$f")"
  gz="$(gzip -9c "$f" | wc -c)"
  if [ -n "$before" ]; then
    printf 'wasm %-32s %9d bytes before wasm-opt, %9d after (%d gzipped)\n' "$name" "$before" "$after" "$gz"
  else
    printf 'wasm %-32s %9d bytes (%d gzipped)\n' "$name" "$after" "$gz"
  fi
done
