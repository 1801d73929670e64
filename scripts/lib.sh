# Shared by scripts/setup.sh and scripts/wasm-env.sh. Source it; it defines functions and
# variables only.
#
# The wasm toolchain comes in one of two flavours:
#   rustup  - the rustup toolchain with the wasm32-unknown-unknown target (an ordinary machine);
#   debian  - Debian's rustc-web/cargo-web (/usr/bin/cargo) building std from rust-web-src and
#             linking with wasm-ld-19 (a machine whose rustup cannot download the target).
# Native builds always use the default toolchain on PATH.

PRV_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PRV_WASM_TARGET=wasm32-unknown-unknown
PRV_TRUNK_VERSION=0.21.14
PRV_CARGO_BIN="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin"
# rustup's proxies (cargo, rustc) live here.
PRV_RUSTUP_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
# Where this machine's state of the set-up is remembered (the flavour found).
PRV_STATE_DIR="$PRV_ROOT/target/setup"

# Tools installed by the set-up come first: cargo-installed binaries, then node_modules/.bin.
# rustup's own bin directory is not added: with CARGO_INSTALL_ROOT elsewhere it may hold other
# versions of the tools the set-up installs (cargo itself is found through PRV_RUSTUP_BIN).
prv_path() {
  echo "$PRV_CARGO_BIN:$PRV_ROOT/node_modules/.bin:$PATH"
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
  [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] && command -v wasm-ld-19 >/dev/null 2>&1 &&
    [ -d "$(/usr/bin/rustc --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library/std" ]
}

# Prints rustup, debian or none. PRV_WASM_FLAVOUR=rustup|debian forces one (when it is there).
prv_wasm_flavour() {
  case "${PRV_WASM_FLAVOUR:-}" in
    rustup) prv_rustup_has_wasm && echo rustup || echo none; return ;;
    debian) prv_debian_has_wasm && echo debian || echo none; return ;;
  esac
  if prv_rustup_has_wasm; then
    echo rustup
  elif prv_debian_has_wasm; then
    echo debian
  else
    echo none
  fi
}
