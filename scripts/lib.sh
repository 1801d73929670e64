# Shared by scripts/setup.sh, scripts/wasm-env.sh and the Makefile. Source it; it defines
# functions and variables only.
#
# The wasm toolchain comes in one of two flavours:
#   rustup  - the rustup toolchain with the wasm32-unknown-unknown target (an ordinary machine);
#   debian  - Debian's rustc-web/cargo-web (/usr/bin/cargo) building std from rust-web-src and
#             linking with wasm-ld-19 (a machine whose rustup cannot download the target).
# Native builds always use the default toolchain on PATH.
# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are read by the scripts that source this file

PRV_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PRV_WASM_TARGET=wasm32-unknown-unknown
PRV_TRUNK_VERSION=0.21.14
PRV_CARGO_BIN="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin"
# rustup's proxies (cargo, rustc) live here.
PRV_RUSTUP_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
# Where this machine's state of the set-up is remembered (the flavour found, the logs, a Node.js
# fetched from the npm registry).
PRV_STATE_DIR="$PRV_ROOT/target/setup"
# Where Debian's packages put their programs (the set-up's own test points it elsewhere).
PRV_DEBIAN_USR="${PRV_DEBIAN_USR:-/usr}"

# Node.js for machines whose own is missing or older than 20 (Debian 12's is 18, and Playwright
# needs 20): the official build as the npm registry publishes it (packages node-linux-<arch>), and
# npm itself from the registry, each checked against the integrity the registry states for it.
PRV_NODE_VERSION=24.22.1
PRV_NPM_VERSION=11.6.2
# (The set-up's own test, tests/setup/run.sh, points these at its stub registry.)
: "${PRV_NODE_INTEGRITY_X64:=sha512-ogMoFZRQLCX7VpzQAtfs7q0DVFa7D79LKhmttHZNGJrz0Yp5/LtU0MISM7gvThSo6AbVelac9uVu9Jfm1464ow==}"
: "${PRV_NODE_INTEGRITY_ARM64:=sha512-1uD+Qvcu14ZJ6JVhsAiOeAiCQI0Nnu+y60VJnwhq8nGr+1l7XKFnNlZ42f619d+h5UzRQtO3pwpBEM2FYR/83Q==}"
: "${PRV_NPM_INTEGRITY:=sha512-7iKzNfy8lWYs3zq4oFPa8EXZz5xt9gQNKJZau3B1ErLBb6bF7sBJ00x09485DOvRT2l5Gerbl3VlZNT57MxJVA==}"
PRV_NPM_REGISTRY="${PRV_NPM_REGISTRY:-https://registry.npmjs.org}"

# Tools installed by the set-up come first: cargo-installed binaries, a Node.js the set-up
# fetched (when the machine's own is too old), then node_modules/.bin. rustup's own bin directory
# is not added: with CARGO_INSTALL_ROOT elsewhere it may hold other versions of the tools the
# set-up installs (cargo itself is found through PRV_RUSTUP_BIN).
prv_path() {
  echo "$PRV_CARGO_BIN:$PRV_STATE_DIR/node/bin:$PRV_ROOT/node_modules/.bin:$PATH"
}

# The wasm-bindgen version Cargo.lock resolves (the CLI must equal it).
prv_wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' \
    "$PRV_ROOT/Cargo.lock"
}

prv_rustup_has_wasm() {
  command -v rustup >/dev/null 2>&1 &&
    rustup target list --installed 2>/dev/null | grep -qx "$PRV_WASM_TARGET"
}

prv_debian_has_wasm() {
  local usr="$PRV_DEBIAN_USR"
  [ -x "$usr/bin/cargo" ] && [ -x "$usr/bin/rustc" ] && command -v wasm-ld-19 >/dev/null 2>&1 &&
    [ -d "$("$usr/bin/rustc" --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library/std" ]
}

# Prints rustup, debian or none. PRV_WASM_FLAVOUR=rustup|debian forces one (when it is there).
prv_wasm_flavour() {
  case "${PRV_WASM_FLAVOUR:-}" in
    rustup) if prv_rustup_has_wasm; then echo rustup; else echo none; fi; return ;;
    debian) if prv_debian_has_wasm; then echo debian; else echo none; fi; return ;;
  esac
  if prv_rustup_has_wasm; then
    echo rustup
  elif prv_debian_has_wasm; then
    echo debian
  else
    echo none
  fi
}

# The major version of the `node` on PATH, 0 when there is none.
prv_node_major() {
  local v
  v="$(node --version 2>/dev/null || echo v0)"
  v="${v#v}"
  v="${v%%.*}"
  case "$v" in '' | *[!0-9]*) echo 0 ;; *) echo "$v" ;; esac
}
