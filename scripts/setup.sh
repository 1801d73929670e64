#!/usr/bin/env bash
# Installs what `make serve`, `make dist` and `make test` need, and nothing when it is all there
# (then it prints nothing and takes well under a second).
#
#   rustfmt, clippy  rustup components of the native toolchain
#   wasm toolchain   rustup's wasm32-unknown-unknown target, or else Debian's rustc-web,
#                    cargo-web, rust-web-src and lld-19 (see scripts/lib.sh)
#   chromium         Debian's chromium + chromium-driver (wasm-bindgen tests, Playwright)
#   ShellCheck       Debian's (the lint stage of `make test` checks every shell script)
#   Node.js >= 20    the machine's own, or else Node.js and npm from the npm registry into
#                    target/setup/node (Debian 12's Node.js is 18; Playwright needs 20)
#   wasm-bindgen-cli the exact version Cargo.lock resolves for wasm-bindgen (cargo install)
#   trunk            0.21.14 (cargo install --locked)
#   node packages    `npm ci` from package-lock.json: wasm-opt (binaryen) and @playwright/test
#
# Binaries go to cargo's bin directory ($CARGO_INSTALL_ROOT/bin, else $CARGO_HOME/bin, else
# ~/.cargo/bin) and node_modules/.bin. Debian's packages are installed as root: directly when the
# set-up runs as root, else through sudo (which asks for a password only on a terminal). Every
# step that may reach a registry has a time limit, so the set-up never hangs; each step says what
# it installs and how long it took, and a failing one names itself and its log.
#
# tests/setup/run.sh runs this script against stub package managers (`make test-setup`).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Seconds `rustup target add` may take: an ordinary machine downloads the target in seconds, a
# machine without the network hangs.
PRV_RUSTUP_TARGET_TIMEOUT="${PRV_RUSTUP_TARGET_TIMEOUT:-20}"

# Cargo must fail fast rather than wait on an unreachable network.
export CARGO_NET_RETRY="${CARGO_NET_RETRY:-3}"
export CARGO_HTTP_TIMEOUT="${CARGO_HTTP_TIMEOUT:-60}"
export DEBIAN_FRONTEND=noninteractive

log() { echo "setup: $*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

# step NAME SECONDS COMMAND...: runs COMMAND (a program, not a shell function: `timeout` execs
# it) under a time limit with its output in a log file; prints the time it took, or the log's
# tail and fails naming the step and the log.
step() {
  local name="$1" limit="$2"
  shift 2
  local base="${name// /-}" t0=$SECONDS rc=0
  local logf="$PRV_STATE_DIR/${base//[^A-Za-z0-9._=-]/_}.log"
  DID_SOMETHING=1
  log "$name ..."
  timeout --kill-after=10 "$limit" "$@" >"$logf" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    log "$name: done in $((SECONDS - t0))s"
    return
  fi
  tail -n 30 "$logf" >&2 || true
  [ "$rc" = 124 ] && die "$name: timed out after ${limit}s (log: $logf)"
  die "$name: failed with status $rc (log: $logf)"
}

# as_root_prefix WHAT COMMAND...: sets ROOT_PREFIX to what runs COMMAND as root (nothing as
# root, `sudo -n` otherwise), asking sudo for a password first when it needs one and there is a
# terminal to ask on; dies naming WHAT and the command to run by hand when that cannot be done.
ROOT_PREFIX=()
as_root_prefix() {
  local what="$1"
  shift
  if [ "$(id -u)" = 0 ]; then
    ROOT_PREFIX=()
    return
  fi
  command -v sudo >/dev/null 2>&1 ||
    die "installing $what needs root and there is no sudo; as root, run: $*"
  if ! sudo -n true 2>/dev/null; then
    [ -t 0 ] || die "installing $what needs root and sudo wants a password (no terminal to ask on); run: sudo $*"
    log "installing $what needs root: sudo asks for your password"
    sudo -v || die "sudo refused; as root, run: $*"
  fi
  ROOT_PREFIX=(sudo -n)
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

# --- rustfmt and clippy -----------------------------------------------------------------------
ensure_rust_components() {
  command -v cargo >/dev/null 2>&1 || die "no cargo on PATH: install Rust with rustup first"
  cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1 && return
  command -v rustup >/dev/null 2>&1 || die "cargo fmt / cargo clippy missing and no rustup"
  step "rustup component add rustfmt clippy" 120 rustup component add rustfmt clippy
}

# --- the wasm target from rustup, where it can be downloaded ----------------------------------
try_rustup_wasm_target() {
  [ "$(prv_wasm_flavour)" = none ] && command -v rustup >/dev/null 2>&1 || return 0
  DID_SOMETHING=1
  local t0=$SECONDS
  log "trying: rustup target add $PRV_WASM_TARGET (${PRV_RUSTUP_TARGET_TIMEOUT}s limit)"
  if timeout --kill-after=5 "$PRV_RUSTUP_TARGET_TIMEOUT" rustup target add "$PRV_WASM_TARGET" \
    >"$PRV_STATE_DIR/rustup-target.log" 2>&1; then
    log "rustup target add: done in $((SECONDS - t0))s"
  else
    log "rustup cannot add $PRV_WASM_TARGET here (after $((SECONDS - t0))s); using Debian's wasm toolchain instead"
  fi
}

# --- Debian's packages: the ones missing, in one go -------------------------------------------
missing_debian_packages() {
  local pkg wanted=(chromium chromium-driver shellcheck)
  if [ "$(prv_wasm_flavour)" = none ]; then
    wanted=(rustc-web cargo-web rust-web-src lld-19 "${wanted[@]}")
  fi
  for pkg in "${wanted[@]}"; do
    deb_installed "$pkg" || echo "$pkg"
  done
}

install_debian_packages() {
  local missing
  mapfile -t missing < <(missing_debian_packages)
  [ "${#missing[@]}" -gt 0 ] || return 0
  command -v apt-get >/dev/null 2>&1 ||
    die "missing Debian packages ${missing[*]} and there is no apt-get: install them by hand"
  as_root_prefix "${missing[*]}" apt-get install -y --no-install-recommends "${missing[@]}"
  step "apt-get update" 300 "${ROOT_PREFIX[@]}" apt-get update
  step "apt-get install ${missing[*]}" 1200 \
    "${ROOT_PREFIX[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
  [ "$(prv_wasm_flavour)" != none ] ||
    die "no wasm toolchain after installing ${missing[*]}: see $PRV_STATE_DIR/*.log"
}

# --- Node.js 20 or newer, with npm ------------------------------------------------------------
# fetch URL FILE INTEGRITY: downloads URL to FILE and checks it against the npm registry's
# integrity string (sha512-<base64>).
fetch() {
  local url="$1" out="$2" integrity="$3" want got
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 --connect-timeout 20 -o "$out" "$url"
  else
    python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
      "$url" "$out"
  fi
  want="$(printf '%s' "${integrity#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')"
  got="$(sha512sum "$out" | cut -d' ' -f1)"
  [ "$got" = "$want" ] || { echo "$url: sha512 $got, the registry states $want" >&2; return 1; }
}

# install_node DIR: Node.js and npm from the npm registry into DIR (bin/node, bin/npm).
install_node() {
  local dir="$1" arch integrity tmp
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 integrity="$PRV_NODE_INTEGRITY_X64" ;;
    aarch64 | arm64) arch=arm64 integrity="$PRV_NODE_INTEGRITY_ARM64" ;;
    *) echo "no Node.js build for $(uname -m) in the npm registry" >&2; return 1 ;;
  esac
  tmp="$dir.partial"
  rm -rf "$tmp" "$dir"
  mkdir -p "$tmp/lib/node_modules/npm"
  fetch "$PRV_NPM_REGISTRY/node-linux-$arch/-/node-linux-$arch-$PRV_NODE_VERSION.tgz" \
    "$tmp/node.tgz" "$integrity"
  fetch "$PRV_NPM_REGISTRY/npm/-/npm-$PRV_NPM_VERSION.tgz" "$tmp/npm.tgz" \
    "$PRV_NPM_INTEGRITY"
  tar -xzf "$tmp/node.tgz" -C "$tmp" --strip-components=1 package/bin/node
  tar -xzf "$tmp/npm.tgz" -C "$tmp/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tmp/bin/npm"
  rm "$tmp/node.tgz" "$tmp/npm.tgz"
  mv "$tmp" "$dir"
  "$dir/bin/node" --version
}

ensure_node() {
  if [ "$(prv_node_major)" -ge 20 ] && command -v npm >/dev/null 2>&1; then
    return
  fi
  local found
  found="$(node --version 2>/dev/null || echo none)"
  log "Node.js 20 or newer is needed (Playwright), found: $found"
  step "install Node.js $PRV_NODE_VERSION and npm $PRV_NPM_VERSION from the npm registry" 300 \
    "$PRV_ROOT/scripts/setup.sh" --install-node "$PRV_STATE_DIR/node"
  [ "$(prv_node_major)" -ge 20 ] || die "Node.js 20 or newer is needed (Playwright), found $(node --version 2>&1)"
}

# --- wasm-bindgen-cli at Cargo.lock's version, trunk ------------------------------------------
ensure_cargo_tools() {
  local wb_version
  wb_version="$(prv_wasm_bindgen_version)"
  [ -n "$wb_version" ] || die "Cargo.lock resolves no wasm-bindgen: is web/ a workspace member?"
  grep -q "^wasm_bindgen = \"$wb_version\"" Trunk.toml ||
    die "Trunk.toml [tools] wasm_bindgen must be \"$wb_version\" (the version in Cargo.lock)"
  if ! have_version wasm-bindgen "wasm-bindgen $wb_version" ||
    ! have_version wasm-bindgen-test-runner "$wb_version"; then
    # Not --locked: the registry mirror here lacks one of its locked dependencies.
    step "cargo install wasm-bindgen-cli $wb_version" 3600 \
      "$(native_cargo)" install wasm-bindgen-cli --version "=$wb_version" --force
  fi
  if ! have_version trunk "trunk $PRV_TRUNK_VERSION"; then
    step "cargo install trunk $PRV_TRUNK_VERSION" 3600 \
      "$(native_cargo)" install trunk --version "=$PRV_TRUNK_VERSION" --locked --force
  fi
}

# --- node packages ----------------------------------------------------------------------------
ensure_node_modules() {
  local lock_sum stamp=node_modules/.prv-lock-sha256
  lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
    # Playwright drives Debian's Chromium; it must not try to download its own browsers.
    step "npm ci (wasm-opt, Playwright)" 600 \
      env PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
    echo "$lock_sum" >"$stamp"
  fi
  # (Reading the package's version is instant; `wasm-opt --version` takes a second.)
  if ! grep -q '"version": "132\.' node_modules/binaryen/package.json 2>/dev/null ||
    [ ! -x node_modules/.bin/wasm-opt ]; then
    die "node_modules/.bin/wasm-opt is not binaryen 132: check package.json"
  fi
}

# --- crates for the wasm build ----------------------------------------------------------------
# Trunk runs cargo --offline; fetch what the wasm build needs (with Debian's toolchain that
# includes the standard library's own dependencies) whenever Cargo.lock changes.
ensure_wasm_crates() {
  local flavour="$1" fetch_sum fetch_stamp="$PRV_STATE_DIR/wasm-fetch.stamp"
  fetch_sum="$flavour $(sha256sum Cargo.lock | cut -d' ' -f1)"
  if [ ! -f "$fetch_stamp" ] || [ "$(cat "$fetch_stamp")" != "$fetch_sum" ]; then
    step "cargo fetch --target $PRV_WASM_TARGET" 600 \
      "$PRV_ROOT/scripts/wasm-env.sh" cargo fetch --target "$PRV_WASM_TARGET"
    echo "$fetch_sum" >"$fetch_stamp"
  fi
}

main() {
  cd "$PRV_ROOT"
  export PATH
  PATH="$(prv_path)"
  mkdir -p "$PRV_STATE_DIR"
  local t_start=$SECONDS flavour
  DID_SOMETHING=
  ensure_rust_components
  try_rustup_wasm_target
  install_debian_packages
  flavour="$(prv_wasm_flavour)"
  [ "$flavour" != none ] || die "no wasm toolchain: see $PRV_STATE_DIR/*.log"
  ensure_node
  ensure_cargo_tools
  ensure_node_modules
  ensure_wasm_crates "$flavour"
  echo "$flavour" >"$PRV_STATE_DIR/wasm-flavour"
  if [ -n "$DID_SOMETHING" ]; then
    log "ready in $((SECONDS - t_start))s (wasm toolchain: $flavour)"
  fi
}

case "${1:-}" in
  # One step of main (a program for `timeout` to run): scripts/setup.sh --install-node DIR
  --install-node) install_node "$2" ;;
  "") main ;;
  *) die "usage: scripts/setup.sh (no arguments)" ;;
esac
