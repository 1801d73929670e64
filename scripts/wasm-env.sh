#!/usr/bin/env bash
# Runs a command (cargo, trunk, …) in the wasm toolchain's environment:
#   scripts/wasm-env.sh cargo build --target wasm32-unknown-unknown -p …
#   scripts/wasm-env.sh trunk build --release
# With Debian's toolchain it puts /usr/bin/cargo ($PRV_DEBIAN_USR/bin/cargo) first, builds std from source
# (RUSTC_BOOTSTRAP + CARGO_UNSTABLE_BUILD_STD), links with wasm-ld-19 and uses target/wasm
# (its artifacts differ from the rustup toolchain's). With rustup it shares target/.
# The wasm-bindgen test runner drives Debian's headless Chromium through chromedriver.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

flavour="$(prv_wasm_flavour)"
export PATH
PATH="$(prv_path)"
case "$flavour" in
  rustup)
    export CARGO_TARGET_DIR="${PRV_WASM_TARGET_DIR:-$PRV_ROOT/target}"
    ;;
  debian)
    # Debian's cargo and rustc first, through a directory holding only them (all of /usr/bin
    # first would also put Debian's older tools, such as binaryen's wasm-opt, first).
    shim="$PRV_STATE_DIR/debian-rust-bin"
    if [ ! -x "$shim/cargo" ]; then
      mkdir -p "$shim"
      for tool in cargo rustc rustdoc; do ln -sf "$PRV_DEBIAN_USR/bin/$tool" "$shim/$tool"; done
    fi
    PATH="$shim:$PATH"
    export RUSTC_BOOTSTRAP=1
    export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
    export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-19
    export CARGO_TARGET_DIR="${PRV_WASM_TARGET_DIR:-$PRV_ROOT/target/wasm}"
    # The rustup proxies must not pick the toolchain.
    unset RUSTUP_TOOLCHAIN RUSTC RUSTDOC CARGO
    ;;
  *)
    echo "wasm-env: no wasm toolchain; run scripts/setup.sh first" >&2
    exit 1
    ;;
esac
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# wasm-bindgen-test-runner: Chromium only, and wait for slow CI machines.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"
# Trunk: use the installed tools (never download), at the versions the project pins.
export TRUNK_TOOLS_WASM_BINDGEN
TRUNK_TOOLS_WASM_BINDGEN="$(prv_wasm_bindgen_version)"
export TRUNK_OFFLINE=true
export TRUNK_SKIP_VERSION_CHECK=true
exec "$@"
