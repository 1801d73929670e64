#!/usr/bin/env bash
# Prints the size of each wasm file in dist/ and, where Trunk's wasm-bindgen output is still in
# the target directory, its size before wasm-opt.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$PRV_ROOT"
shopt -s nullglob
for f in dist/*.wasm; do
  name="$(basename "$f")"
  bin="${name%_bg.wasm}"
  bin="${bin%-*}"            # the page's file name carries a hash: prv-app-<hash>_bg.wasm
  [ "$bin" = prv ] && bin="${name%_bg.wasm}"
  # Trunk's wasm-bindgen output (before wasm-opt): target/wasm/ with Debian's toolchain,
  # target/ with rustup's. Both may exist; the newest is the one this dist/ came from.
  before=""
  pre="$(find target/wasm/wasm-bindgen/release target/wasm-bindgen/release -maxdepth 1 \
    -name "${bin}_bg.wasm" -printf '%T@ %p\n' 2>/dev/null | sort -rn | head -n 1 | cut -d' ' -f2- || true)"
  [ -n "$pre" ] && before="$(stat -c %s "$pre")"
  after="$(stat -c %s "$f")"
  gz="$(gzip -9c "$f" | wc -c)"
  if [ -n "$before" ]; then
    printf 'wasm %-32s %9d bytes before wasm-opt, %9d after (%d gzipped)\n' "$name" "$before" "$after" "$gz"
  else
    printf 'wasm %-32s %9d bytes (%d gzipped)\n' "$name" "$after" "$gz"
  fi
done
