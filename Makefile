# Paimon Recovery Validator: build and test.
#
#   make serve   build the page (release) and serve dist/ on http://127.0.0.1:8080/
#   make dist    build the static site into dist/ (relative URLs: works from any sub-path)
#   make test    everything: fmt, clippy, shellcheck, the set-up's own test, native tests, wasm
#                builds, wasm tests in headless Chromium, Playwright tests of dist/ from a sub-path
#   make fuzz    run every cargo-fuzz target for FUZZ_SECONDS each (default 60; not in make test)
#   make clean   remove build outputs
#
# Every target first runs scripts/setup.sh, which installs whatever is missing (wasm toolchain,
# wasm-bindgen-cli, trunk, wasm-opt, Chromium, Playwright) and is silent when nothing is.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# The tools the set-up installs come first (cargo's bin directory, a Node.js it fetched, node_modules/.bin).
export PATH := $(shell bash -c '. scripts/lib.sh && prv_path')

WASM := scripts/wasm-env.sh
WASM_TARGET := wasm32-unknown-unknown
CORE := paimon-recovery-validator
WEB := paimon-recovery-validator-web
HOST ?= 127.0.0.1
PORT ?= 8080

.PHONY: help setup dist serve test fmt-check lint shellcheck test-setup test-native wasm-build \
        test-wasm test-e2e wasm-size clean fuzz

help:
	@sed -n '3,8p' Makefile | sed 's/^# \{0,1\}//'

setup:
	@scripts/setup.sh

dist: setup
	@echo "== trunk build --release (dist/)"
	@$(WASM) trunk build --release --public-url ./
	@scripts/wasm-size.sh

serve: dist
	@echo "== serving dist/ at http://$(HOST):$(PORT)/ (Ctrl-C stops)"
	@node scripts/serve.mjs --root dist --host $(HOST) --port $(PORT)

fmt-check: setup
	@echo "== cargo fmt --check"
	@cargo fmt --all --check

lint: setup shellcheck
	@echo "== cargo clippy (native, all targets, -D warnings)"
	@cargo clippy --workspace --all-targets -- -D warnings

# Every shell script of the repository: scripts/, .ci/run, tests/ (found by their #! line).
shellcheck: setup
	@echo "== shellcheck"
	@shellcheck --external-sources $$( { git ls-files --cached --others --exclude-standard -z | \
		xargs -0 grep -lIE '^#!.*\b(ba)?sh\b' ; echo scripts/lib.sh; } | sort -u)

# The set-up itself, against stub package managers on a fresh temporary HOME (tests/setup/run.sh).
test-setup:
	@echo "== the set-up's own test (tests/setup/run.sh)"
	@tests/setup/run.sh

test-native: setup
	@echo "== cargo test --workspace (core, CLI, web logic)"
	@cargo test --workspace

# The wasm builds use the release profile, like `make dist`: the standard library (when built
# from source) and every dependency are compiled once for all three.
wasm-build: setup
	@echo "== wasm build of the core (no default features)"
	@$(WASM) cargo build --release --target $(WASM_TARGET) -p $(CORE) --no-default-features --lib

test-wasm: wasm-build
	@echo "== wasm-bindgen tests of the web crate in headless Chromium"
	@$(WASM) cargo test --release --target $(WASM_TARGET) -p $(WEB) --test '*'

# The CLI the tests compare the page with is built first, outside any test's time limit (on a
# fresh, busy machine its build took longer than the first test's 90 s).
test-e2e: dist
	@echo "== cargo build --bin paimon-recovery-validator (the CLI the page is compared with)"
	@cargo build --quiet --bin paimon-recovery-validator
	@echo "== Playwright: dist/ served under a sub-path"
	@PRV_CLI="$(CURDIR)/target/debug/paimon-recovery-validator" \
		PATH="$(CURDIR)/node_modules/.bin:$$PATH" playwright test --config tests/e2e/playwright.config.mjs

test: fmt-check lint test-setup test-native test-wasm test-e2e
	@echo "== make test: all passed"

wasm-size:
	@scripts/wasm-size.sh

fuzz:
	@scripts/fuzz.sh

clean:
	cargo clean
	rm -rf dist test-results playwright-report

# Benchmarks (not part of `make test`): makes the benchmark warehouses once (bench/out/), then runs
# the CLI, Java Paimon 0.9, pypaimon 2.1 and the page side by side and prints one table; see
# BENCHMARKS.md. Options: make bench BENCH_ARGS="--rounds 9 --only java09_lookup_3000".
.PHONY: bench
bench: setup
	@$(MAKE) --no-print-directory dist || echo "== make dist failed: the page is not measured"
	@python3 bench/run.py $(BENCH_ARGS)
