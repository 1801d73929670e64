#!/usr/bin/env bash
# Installs what `make serve`, `make dist` and `make test` need, and nothing when it is all there
# (then it prints nothing and takes well under a second).
#
#   wasm toolchain   rustup's wasm32-unknown-unknown target, or else Debian's rustc-web,
#                    cargo-web, rust-web-src and lld-19 (see scripts/lib.sh)
#   wasm-bindgen-cli the exact version Cargo.lock resolves for wasm-bindgen (cargo install)
#   trunk            0.21.14 (cargo install --locked)
#   chromium         Debian's chromium + chromium-driver (wasm-bindgen tests, Playwright)
#   node packages    `npm ci` from package-lock.json: wasm-opt (binaryen) and @playwright/test
#
# Binaries go to cargo's bin directory ($CARGO_INSTALL_ROOT/bin, else $CARGO_HOME/bin, else
# ~/.cargo/bin) and node_modules/.bin. Every step that may reach a registry has a time limit, so
# the set-up never hangs; each step says what it installs and how long it took.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$PRV_ROOT"
export PATH
PATH="$(prv_path)"
mkdir -p "$PRV_STATE_DIR"

# Cargo must fail fast rather than wait on an unreachable network.
export CARGO_NET_RETRY="${CARGO_NET_RETRY:-3}"
export CARGO_HTTP_TIMEOUT="${CARGO_HTTP_TIMEOUT:-60}"
export DEBIAN_FRONTEND=noninteractive

log() { echo "setup: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# step NAME SECONDS COMMAND...: runs COMMAND under a time limit, output to a log file; prints
# the time it took, or the log's tail and fails.
step() {
  local name="$1" limit="$2"; shift 2
  local logf="$PRV_STATE_DIR/${name// /-}.log" t0=$SECONDS
  log "$name ..."
  if timeout --kill-after=10 "$limit" "$@" >"$logf" 2>&1; then
    log "$name: done in $((SECONDS - t0))s"
  else
    local rc=$?
    tail -n 30 "$logf" >&2 || true
    [ "$rc" = 124 ] && die "$name: timed out after ${limit}s (log: $logf)"
    die "$name: failed with status $rc (log: $logf)"
  fi
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    die "need root (or sudo) to run: $*"
  fi
}

deb_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

have_version() { # have_version COMMAND EXPECTED: whether `COMMAND --version` mentions EXPECTED
  command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -qF "$2"
}

native_cargo() {
  if [ -x "$PRV_RUSTUP_BIN/cargo" ]; then echo "$PRV_RUSTUP_BIN/cargo"; else command -v cargo; fi
}

t_start=$SECONDS
did_something=

# --- 1. native Rust: rustfmt and clippy ------------------------------------------------------
command -v cargo >/dev/null 2>&1 || die "no cargo on PATH: install Rust with rustup first"
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
  command -v rustup >/dev/null 2>&1 || die "cargo fmt / cargo clippy missing and no rustup"
  did_something=1
  step "rustup component add rustfmt clippy" 120 rustup component add rustfmt clippy
fi

# --- 2. decide what Debian must provide -------------------------------------------------------
apt_packages=()
flavour="$(prv_wasm_flavour)"
if [ "$flavour" = none ] && command -v rustup >/dev/null 2>&1; then
  # An ordinary machine downloads the target in seconds; a machine without the network hangs,
  # so give it a short time.
  did_something=1
  log "trying: rustup target add $PRV_WASM_TARGET (20s limit)"
  if timeout --kill-after=5 20 rustup target add "$PRV_WASM_TARGET" >"$PRV_STATE_DIR/rustup-target.log" 2>&1; then
    log "rustup target add: done"
  else
    log "rustup cannot add $PRV_WASM_TARGET here; using Debian's wasm toolchain instead"
  fi
  flavour="$(prv_wasm_flavour)"
fi
if [ "$flavour" = none ]; then
  apt_packages+=(rustc-web cargo-web rust-web-src lld-19)
fi
for pkg in chromium chromium-driver; do
  deb_installed "$pkg" || apt_packages+=("$pkg")
done
node_major() { # the major version of node, 0 if none
  local v
  v="$(node --version 2>/dev/null || echo v0)"
  v="${v#v}"
  echo "${v%%.*}"
}
if ! command -v npm >/dev/null 2>&1 || [ "$(node_major)" -lt 20 ]; then
  apt_packages+=(nodejs npm)
fi

# --- 3. Debian packages, in one go ------------------------------------------------------------
if [ "${#apt_packages[@]}" -gt 0 ]; then
  did_something=1
  command -v apt-get >/dev/null 2>&1 ||
    die "missing ${apt_packages[*]} and no apt-get: install them by hand"
  step "apt-get update" 300 as_root apt-get update
  step "apt-get install ${apt_packages[*]}" 1200 \
    as_root apt-get install -y --no-install-recommends "${apt_packages[@]}"
  flavour="$(prv_wasm_flavour)"
fi
[ "$flavour" != none ] || die "no wasm toolchain after installing: see $PRV_STATE_DIR/*.log"
[ "$(node_major)" -ge 20 ] || die "Node.js 20 or newer is needed (Playwright), found $(node --version)"

# --- 4. wasm-bindgen-cli at Cargo.lock's version ----------------------------------------------
wb_version="$(prv_wasm_bindgen_version)"
[ -n "$wb_version" ] || die "Cargo.lock resolves no wasm-bindgen: is web/ a workspace member?"
if ! have_version wasm-bindgen "wasm-bindgen $wb_version" ||
  ! have_version wasm-bindgen-test-runner "$wb_version"; then
  did_something=1
  # Not --locked: the registry mirror here lacks one of its locked dependencies.
  step "cargo install wasm-bindgen-cli $wb_version" 3600 \
    "$(native_cargo)" install wasm-bindgen-cli --version "=$wb_version" --force
fi
grep -q "^wasm_bindgen = \"$wb_version\"" Trunk.toml ||
  die "Trunk.toml [tools] wasm_bindgen must be \"$wb_version\" (the version in Cargo.lock)"

# --- 5. trunk ----------------------------------------------------------------------------------
if ! have_version trunk "trunk $PRV_TRUNK_VERSION"; then
  did_something=1
  step "cargo install trunk $PRV_TRUNK_VERSION" 3600 \
    "$(native_cargo)" install trunk --version "=$PRV_TRUNK_VERSION" --locked --force
fi

# --- 6. node packages --------------------------------------------------------------------------
lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)"
stamp=node_modules/.prv-lock-sha256
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  did_something=1
  # Playwright drives Debian's Chromium; it must not try to download its own browsers.
  step "npm ci (wasm-opt, Playwright)" 600 \
    env PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
  echo "$lock_sum" >"$stamp"
fi
# (Reading the package's version is instant; `wasm-opt --version` takes a second.)
grep -q '"version": "132\.' node_modules/binaryen/package.json 2>/dev/null && [ -x node_modules/.bin/wasm-opt ] ||
  die "node_modules/.bin/wasm-opt is not binaryen 132: check package.json"

# --- 7. crates for the wasm build ----------------------------------------------------------------
# Trunk runs cargo --offline; fetch what the wasm build needs (with Debian's toolchain that
# includes the standard library's own dependencies) whenever Cargo.lock changes.
fetch_sum="$flavour $(sha256sum Cargo.lock | cut -d' ' -f1)"
fetch_stamp="$PRV_STATE_DIR/wasm-fetch.stamp"
if [ ! -f "$fetch_stamp" ] || [ "$(cat "$fetch_stamp")" != "$fetch_sum" ]; then
  did_something=1
  step "cargo fetch --target $PRV_WASM_TARGET" 600 \
    "$PRV_ROOT/scripts/wasm-env.sh" cargo fetch --target "$PRV_WASM_TARGET"
  echo "$fetch_sum" >"$fetch_stamp"
fi

echo "$flavour" >"$PRV_STATE_DIR/wasm-flavour"
if [ -n "$did_something" ]; then
  log "ready in $((SECONDS - t_start))s (wasm toolchain: $flavour)"
fi
