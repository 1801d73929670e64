#!/usr/bin/env bash
# The set-up's own test (`make test-setup`, part of `make test`).
#
# Runs scripts/setup.sh, copied with the files it reads into a temporary project, on a PATH that
# holds only stubs and a few real programs (bash, coreutils, grep, awk, sed, tar): stub
# apt-get, dpkg-query, rustup, cargo, npm, node, curl, sudo and id. Each stub appends what it was
# asked to $CALLS and creates what a real install would (a package's programs, a cargo-installed
# binary, node_modules), so the set-up's own checks see the result. Every scenario starts from a
# new HOME / CARGO_HOME and asserts which install commands ran, that a machine with everything
# present gets a silent set-up, and that a failing install stops naming the step and its log.
#
#   tests/setup/run.sh            every scenario
#   tests/setup/run.sh NAME...    only these (see `scenarios` at the bottom)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/prv-setup-test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

WB_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' \
  "$ROOT/Cargo.lock")"
FAILED=()
CURRENT=

fail() {
  echo "  FAIL: $*" >&2
  FAILED+=("$CURRENT: $*")
}

# --- the fake machine -------------------------------------------------------------------------

# The real programs setup.sh and the stubs use; nothing else of the host is on PATH.
REAL_TOOLS=(bash sh env timeout mkdir rm cp mv ln cat tail head cut tr od base64 sha256sum
  sha512sum grep awk sed tar gzip chmod dirname basename mktemp sleep touch ls uname sort wc
  readlink)

# new_machine: a fresh machine in $M with nothing installed; sets HOME, CARGO_HOME, PATH.
new_machine() {
  M="$WORK/$CURRENT"
  rm -rf "$M"
  mkdir -p "$M/sys" "$M/stubs" "$M/usr/bin" "$M/home" "$M/state" "$M/project"
  local tool
  for tool in "${REAL_TOOLS[@]}"; do
    ln -s "$(type -P "$tool")" "$M/sys/$tool"
  done
  # The project: the set-up and the files it reads.
  cp -r "$ROOT/scripts" "$M/project/scripts"
  cp "$ROOT/Cargo.lock" "$ROOT/Trunk.toml" "$ROOT/package.json" "$ROOT/package-lock.json" \
    "$M/project/"
  CALLS="$M/calls"
  : >"$CALLS"
  : >"$M/state/debs"
  write_stubs
  export HOME="$M/home" CARGO_HOME="$M/home/.cargo" RUSTUP_HOME="$M/home/.rustup"
  mkdir -p "$CARGO_HOME/bin"
  unset CARGO_INSTALL_ROOT PRV_WASM_FLAVOUR
  export PRV_DEBIAN_USR="$M/usr" STUB_STATE="$M/state" CALLS
  export PRV_RUSTUP_TARGET_TIMEOUT=2
  # rustup's proxies live in CARGO_HOME/bin, as on a real machine; Debian's programs in usr/bin.
  export PATH="$M/stubs:$CARGO_HOME/bin:$M/usr/bin:$M/sys"
  # The machine's defaults, changed by each scenario.
  export STUB_UID=0 STUB_RUSTUP_ADD=hang STUB_FAIL='' STUB_NODE=20.11.0
  # The stub registry serves a tiny tarball; its integrity is what the set-up checks.
  make_registry
}

integrity_of() { # the npm registry's integrity string of FILE: sha512-<base64 of the digest>
  printf 'sha512-'
  printf '%b' "$(sha512sum "$1" | cut -d' ' -f1 | sed 's/../\\x&/g')" | base64 -w0
}

make_registry() {
  local pkg="$M/registry/pkg"
  mkdir -p "$pkg/package/bin" "$M/registry/npm/package/bin"
  # shellcheck disable=SC2016 # the stub's own code: it expands when the stub runs
  printf '#!/usr/bin/env bash\necho "node $*" >>"$CALLS"\n[ "${1:-}" = --version ] && echo v24.22.1\nexit 0\n' \
    >"$pkg/package/bin/node"
  # npm-cli.js behaves as the npm stub does (the real one is a node script).
  cp "$M/stubs/npm" "$M/registry/npm/package/bin/npm-cli.js"
  chmod +x "$pkg/package/bin/node" "$M/registry/npm/package/bin/npm-cli.js"
  tar -czf "$M/registry/node.tgz" -C "$pkg" package
  tar -czf "$M/registry/npm.tgz" -C "$M/registry/npm" package
  PRV_NODE_INTEGRITY_X64="$(integrity_of "$M/registry/node.tgz")"
  PRV_NODE_INTEGRITY_ARM64="$PRV_NODE_INTEGRITY_X64"
  PRV_NPM_INTEGRITY="$(integrity_of "$M/registry/npm.tgz")"
  export PRV_NODE_INTEGRITY_X64 PRV_NODE_INTEGRITY_ARM64 PRV_NPM_INTEGRITY
  export STUB_REGISTRY="$M/registry" PRV_NPM_REGISTRY="https://registry.example"
}

# stub NAME BODY: a stub program that records its arguments, then runs BODY (bash).
stub() {
  # shellcheck disable=SC2016 # the stub's own code: it expands when the stub runs
  {
    printf '#!/usr/bin/env bash\nset -u\necho "%s $*" >>"$CALLS"\n' "$1"
    printf 'fails() { case " ${STUB_FAIL:-} " in *" $1 "*) echo "stub: $1 failed as told" >&2; exit 3;; esac; }\n'
    printf '%s\n' "$2"
  } >"$M/stubs/$1"
  chmod +x "$M/stubs/$1"
}

# install_bin PATH SCRIPT: writes an executable program (what an install leaves behind).
# shellcheck disable=SC2016 # code for the stubs: it expands when a stub runs
install_bin_fn='install_bin() { mkdir -p "$(dirname "$1")"; printf "#!/usr/bin/env bash\n%s\n" "$2" >"$1"; chmod +x "$1"; }'

# shellcheck disable=SC2016 # each stub's body is its own code: it expands when the stub runs
write_stubs() {
  stub id '[ "${1:-}" = -u ] && echo "$STUB_UID"; exit 0'
  stub sudo '
[ "${STUB_SUDO:-ok}" = ok ] || exit 1
[ "${1:-}" = -n ] && shift
[ "${1:-}" = true ] && exit 0
[ "${1:-}" = -v ] && exit 0
STUB_UID=0 exec "$@"'
  stub dpkg-query '
pkg="${!#}"
grep -qx "$pkg" "$STUB_STATE/debs" && { printf "install ok installed"; exit 0; }
echo "dpkg-query: no packages found matching $pkg" >&2; exit 1'
  stub apt-get "$install_bin_fn"'
[ "$STUB_UID" = 0 ] || { echo "E: permission denied (are you root?)" >&2; exit 100; }
case "$1" in
  update) fails apt-get-update; echo "Reading package lists... Done" ;;
  install)
    fails apt-get-install
    for pkg in "$@"; do
      case "$pkg" in -*|install) continue ;; esac
      echo "$pkg" >>"$STUB_STATE/debs"
      case "$pkg" in
        rustc-web) install_bin "$PRV_DEBIAN_USR/bin/rustc" "[ \"\$1\" = --print ] && echo \"$PRV_DEBIAN_USR/lib/rust-web\"" ;;
        cargo-web) install_bin "$PRV_DEBIAN_USR/bin/cargo" "echo \"cargo \$*\" >>\"\$CALLS\"" ;;
        rust-web-src) mkdir -p "$PRV_DEBIAN_USR/lib/rust-web/lib/rustlib/src/rust/library/std" ;;
        lld-19) install_bin "$PRV_DEBIAN_USR/bin/wasm-ld-19" "exit 0" ;;
        chromium) install_bin "$PRV_DEBIAN_USR/bin/chromium" "exit 0" ;;
        chromium-driver) install_bin "$PRV_DEBIAN_USR/bin/chromedriver" "exit 0" ;;
        shellcheck) install_bin "$PRV_DEBIAN_USR/bin/shellcheck" "exit 0" ;;
        *) echo "E: Unable to locate package $pkg" >&2; exit 100 ;;
      esac
    done ;;
  *) exit 0 ;;
esac'
  stub rustup '
case "$*" in
  "target list --installed") echo x86_64-unknown-linux-gnu; cat "$STUB_STATE/rustup-targets" 2>/dev/null ;;
  "target add wasm32-unknown-unknown")
    [ "$STUB_RUSTUP_ADD" = ok ] || { echo "info: downloading component rust-std" >&2; sleep 30; exit 1; }
    echo wasm32-unknown-unknown >>"$STUB_STATE/rustup-targets" ;;
  "component add rustfmt clippy") touch "$STUB_STATE/components" ;;
esac
exit 0'
  # The rustup proxy: cargo fmt/clippy answer once the components are there; cargo install
  # leaves a binary in CARGO_HOME/bin that answers --version as the real one does.
  stub cargo "$install_bin_fn"'
case "$1" in
  fmt|clippy) [ -f "$STUB_STATE/components" ] || exit 1; echo "$1 1.0"; exit 0 ;;
  fetch) fails cargo-fetch; exit 0 ;;
  install)
    crate="$2" version=""
    while [ $# -gt 0 ]; do [ "$1" = --version ] && version="${2#=}"; shift; done
    fails "cargo-install-$crate"
    case "$crate" in
      wasm-bindgen-cli)
        install_bin "$CARGO_HOME/bin/wasm-bindgen" "echo wasm-bindgen $version"
        install_bin "$CARGO_HOME/bin/wasm-bindgen-test-runner" "echo wasm-bindgen-test-runner $version" ;;
      trunk) install_bin "$CARGO_HOME/bin/trunk" "echo trunk $version" ;;
    esac ;;
esac
exit 0'
  stub npm "$install_bin_fn"'
[ "${1:-}" = --version ] && { echo 10.0.0; exit 0; }
[ "${1:-}" = ci ] || exit 0
fails npm-ci
mkdir -p node_modules/binaryen
printf "{\n  \"name\": \"binaryen\",\n  \"version\": \"132.0.0\"\n}\n" >node_modules/binaryen/package.json
install_bin node_modules/.bin/wasm-opt "echo wasm-opt version 132"
install_bin node_modules/.bin/playwright "exit 0"'
  stub curl '
out= url=
while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift ;; http*) url="$1" ;; esac; shift; done
fails curl
case "$url" in
  */node-linux-*) cp "$STUB_REGISTRY/node.tgz" "$out" ;;
  */npm/-/npm-*) cp "$STUB_REGISTRY/npm.tgz" "$out" ;;
  *) exit 22 ;;
esac'
  stub node '
[ "$STUB_NODE" = none ] && { echo "node: not installed (stub)" >&2; exit 127; }
[ "${1:-}" = --version ] && echo "v$STUB_NODE"; exit 0'
}

# --- what a machine has ------------------------------------------------------------------------

has_debs() { # has_debs PKG...: these Debian packages are installed (as apt-get would leave them)
  local pkg saved="$STUB_UID" calls="$CALLS"
  CALLS=/dev/null STUB_UID=0 "$M/stubs/apt-get" install -y "$@" >/dev/null
  STUB_UID="$saved" CALLS="$calls"
}
has_rustup_wasm() { echo wasm32-unknown-unknown >>"$M/state/rustup-targets"; }
has_components() { touch "$M/state/components"; }
has_cargo_tools() {
  local calls="$CALLS"
  CALLS=/dev/null "$M/stubs/cargo" install wasm-bindgen-cli --version "=$WB_VERSION"
  CALLS=/dev/null "$M/stubs/cargo" install trunk --version "=0.21.14"
  CALLS="$calls"
}
has_node_modules() {
  (cd "$M/project" && CALLS=/dev/null "$M/stubs/npm" ci)
  sha256sum "$M/project/package-lock.json" | cut -d' ' -f1 >"$M/project/node_modules/.prv-lock-sha256"
}
no_node() { STUB_NODE=none; rm "$M/stubs/npm"; }
no_sudo() { rm "$M/stubs/sudo"; }
no_apt() { rm "$M/stubs/apt-get"; }
everything() {
  has_components
  has_rustup_wasm
  has_debs chromium chromium-driver shellcheck
  has_cargo_tools
  has_node_modules
  # The crates of the wasm build were fetched on an earlier run.
  run_setup >/dev/null 2>&1 || true
  : >"$CALLS"
}

# --- running it and asserting ------------------------------------------------------------------

# run_setup: runs the set-up; its status in $RC, stdout+stderr in $OUT.
run_setup() {
  RC=0
  OUT="$(cd "$M/project" && timeout 120 scripts/setup.sh 2>&1)" || RC=$?
}

installs() { # the calls that install something (not the stubs' queries)
  grep -E '^(apt-get (update|install)|rustup (target add|component add)|cargo (install|fetch)|npm ci|curl)' \
    "$CALLS" || true
}
assert_status() { [ "$RC" = "$1" ] || fail "exit status $RC, expected $1; output:"$'\n'"$OUT"; }
assert_called() { # assert_called REGEX: some recorded call matches (grep -E, whole line)
  grep -qxE "$1" "$CALLS" || fail "no call matching '$1'; calls:"$'\n'"$(cat "$CALLS")"
}
assert_not_called() {
  ! grep -qxE "$1" "$CALLS" || fail "unexpected call matching '$1': $(grep -xE "$1" "$CALLS" | head -3)"
}
assert_no_installs() {
  local got
  got="$(installs)"
  [ -z "$got" ] || fail "install commands ran on a machine that has everything:"$'\n'"$got"
}
assert_silent() { [ -z "$OUT" ] || fail "set-up printed on a machine that has everything:"$'\n'"$OUT"; }
assert_output() { # assert_output REGEX
  grep -qE "$1" <<<"$OUT" || fail "output lacks '$1':"$'\n'"$OUT"
}
assert_file() { [ -e "$1" ] || fail "missing $1"; }

# --- scenarios -----------------------------------------------------------------------------------

# A fresh machine as root: rustup cannot download the wasm target (it hangs), no Debian
# package, Node.js too old, an empty cargo bin directory. Everything is installed, in order;
# the second run installs nothing and prints nothing.
fresh_machine_as_root() {
  STUB_NODE=18.19.0
  run_setup
  assert_status 0
  assert_called "rustup component add rustfmt clippy"
  assert_called "rustup target add wasm32-unknown-unknown"
  assert_output "rustup cannot add wasm32-unknown-unknown here \(after [0-9]+s\); using Debian's wasm toolchain"
  assert_called "apt-get update"
  assert_called "apt-get install -y --no-install-recommends rustc-web cargo-web rust-web-src lld-19 chromium chromium-driver shellcheck"
  assert_not_called "sudo .*"
  assert_called "curl .*https://registry.example/node-linux-(x64|arm64)/-/node-linux-(x64|arm64)-[0-9.]+\.tgz"
  assert_called "curl .*https://registry.example/npm/-/npm-[0-9.]+\.tgz"
  assert_file "$M/project/target/setup/node/bin/node"
  assert_file "$M/project/target/setup/node/bin/npm"
  assert_called "cargo install wasm-bindgen-cli --version =$WB_VERSION --force"
  assert_called "cargo install trunk --version =0.21.14 --locked --force"
  assert_called "npm ci --no-audit --no-fund"
  assert_called "cargo fetch --target wasm32-unknown-unknown"
  assert_output "apt-get install .*: done in [0-9]+s"
  assert_output "ready in [0-9]+s \(wasm toolchain: debian\)"
  [ "$(cat "$M/project/target/setup/wasm-flavour" 2>/dev/null)" = debian ] ||
    fail "wasm-flavour is not debian"
  : >"$CALLS"
  run_setup
  assert_status 0
  assert_silent
  assert_no_installs
}

# Everything present (rustup's wasm target, every package, tools, node_modules): silent.
everything_present_is_silent() {
  everything
  run_setup
  assert_status 0
  assert_silent
  assert_no_installs
}

# rustup can add the wasm target: Debian's wasm toolchain is not installed, the rest is.
rustup_target_downloadable() {
  STUB_RUSTUP_ADD=ok
  has_components
  run_setup
  assert_status 0
  assert_called "rustup target add wasm32-unknown-unknown"
  assert_called "apt-get install -y --no-install-recommends chromium chromium-driver shellcheck"
  assert_not_called "apt-get install .*(rustc-web|lld-19).*"
  assert_output "wasm toolchain: rustup"
}

# Some Debian packages present: only the missing ones are installed.
some_packages_present() {
  everything
  rm "$M/state/rustup-targets"
  has_debs rustc-web cargo-web chromium
  run_setup
  assert_status 0
  assert_called "apt-get install -y --no-install-recommends rust-web-src lld-19"
  assert_not_called "cargo install .*"
  assert_not_called "npm ci.*"
}

# Not root, with sudo: apt-get runs through sudo, the rest as the user.
user_with_sudo() {
  STUB_UID=1000
  has_components
  has_rustup_wasm
  run_setup
  assert_status 0
  assert_called "sudo -n apt-get update"
  assert_called "sudo -n apt-get install -y --no-install-recommends chromium chromium-driver shellcheck"
  assert_not_called "sudo .*cargo.*"
}

# Not root, sudo wants a password and there is no terminal: stops before installing, saying what
# to run.
user_sudo_needs_password_no_terminal() {
  STUB_UID=1000
  export STUB_SUDO=password
  has_components
  has_rustup_wasm
  run_setup </dev/null
  unset STUB_SUDO
  assert_status 1
  assert_output "installing chromium chromium-driver shellcheck needs root and sudo wants a password .*run: sudo apt-get install -y --no-install-recommends chromium chromium-driver shellcheck"
  assert_not_called "apt-get .*"
}

# Not root and no sudo: stops, naming the packages and the command to run as root.
user_without_sudo() {
  STUB_UID=1000
  no_sudo
  has_components
  has_rustup_wasm
  run_setup
  assert_status 1
  assert_output "ERROR: installing chromium chromium-driver shellcheck needs root and there is no sudo; as root, run: apt-get install"
  assert_not_called "apt-get .*"
}

# No apt-get at all (not Debian): stops naming what to install by hand.
no_package_manager() {
  no_apt
  has_components
  run_setup
  assert_status 1
  assert_output "missing Debian packages .*rustc-web.*chromium.* and there is no apt-get"
}

# Node.js missing (and so npm): fetched from the registry; Node.js 20 present: not fetched.
node_missing() {
  everything
  no_node
  run_setup
  assert_status 0
  assert_output "Node.js 20 or newer is needed \(Playwright\), found: none"
  assert_called "curl .*node-linux-.*"
  assert_not_called "apt-get .*"
}
node_present() {
  everything
  STUB_NODE=20.11.0
  run_setup
  assert_not_called "curl .*"
}

# A download that does not match the registry's integrity is refused.
node_download_corrupt() {
  everything
  STUB_NODE=18.0.0
  export PRV_NODE_INTEGRITY_X64="sha512-AAAA" PRV_NODE_INTEGRITY_ARM64="sha512-AAAA"
  run_setup
  assert_status 1
  assert_output "sha512 [0-9a-f]+, the registry states"
  assert_output "ERROR: install Node.js .* from the npm registry: failed with status 1 \(log: .*target/setup/install-Node.js.*\.log\)"
  [ ! -e "$M/project/target/setup/node" ] || fail "a half-installed Node.js was left in place"
}

# A failing install stops at once, naming the step and its log (which holds the tool's output);
# later steps do not run.
failing_apt_install() {
  has_components
  export STUB_FAIL=apt-get-install
  run_setup
  unset STUB_FAIL
  assert_status 1
  assert_output "ERROR: apt-get install rustc-web cargo-web rust-web-src lld-19 chromium chromium-driver shellcheck: failed with status 3 \(log: .*/target/setup/apt-get-install-rustc-web-cargo-web-rust-web-src-lld-19-chromium-chromium-driver-shellcheck\.log\)"
  assert_output "stub: apt-get-install failed as told"
  grep -q "apt-get-install failed as told" \
    "$M/project/target/setup/apt-get-install-rustc-web-cargo-web-rust-web-src-lld-19-chromium-chromium-driver-shellcheck.log" ||
    fail "the step's log does not hold the tool's output"
  assert_not_called "cargo install .*"
}
failing_cargo_install() {
  everything
  rm "$CARGO_HOME/bin/trunk"
  export STUB_FAIL=cargo-install-trunk
  run_setup
  unset STUB_FAIL
  assert_status 1
  assert_output "ERROR: cargo install trunk 0.21.14: failed with status 3 \(log: .*/target/setup/cargo-install-trunk-0.21.14\.log\)"
  assert_not_called "npm ci.*"
}
failing_npm_ci() {
  everything
  rm "$M/project/node_modules/.prv-lock-sha256"
  export STUB_FAIL=npm-ci
  run_setup
  unset STUB_FAIL
  assert_status 1
  assert_output "ERROR: npm ci \(wasm-opt, Playwright\): failed with status 3 \(log: .*/target/setup/npm-ci-_wasm-opt_-Playwright_\.log\)"
}

# A changed Cargo.lock fetches the wasm build's crates again; a changed package-lock.json runs
# npm ci again.
lock_files_changed() {
  everything
  echo "# changed" >>"$M/project/Cargo.lock"
  echo " " >>"$M/project/package-lock.json"
  run_setup
  assert_status 0
  assert_called "cargo fetch --target wasm32-unknown-unknown"
  assert_called "npm ci --no-audit --no-fund"
  assert_not_called "cargo install .*"
}

scenarios=(fresh_machine_as_root everything_present_is_silent rustup_target_downloadable
  some_packages_present user_with_sudo user_sudo_needs_password_no_terminal user_without_sudo
  no_package_manager node_missing node_present node_download_corrupt failing_apt_install
  failing_cargo_install failing_npm_ci lock_files_changed)
[ $# -gt 0 ] && scenarios=("$@")
for CURRENT in "${scenarios[@]}"; do
  before=${#FAILED[@]}
  new_machine
  "$CURRENT"
  if [ ${#FAILED[@]} = "$before" ]; then echo "ok   $CURRENT"; else echo "FAIL $CURRENT"; fi
done
if [ ${#FAILED[@]} -gt 0 ]; then
  echo "tests/setup/run.sh: ${#FAILED[@]} failed assertion(s)" >&2
  exit 1
fi
echo "tests/setup/run.sh: ${#scenarios[@]} scenarios passed"
