#!/usr/bin/env bash
# `make fuzz`: runs every cargo-fuzz target of fuzz/ for FUZZ_SECONDS each and prints, per
# target, the executions and executions per second, the coverage (libFuzzer's final `cov:` edges
# and `ft:` features), the corpus size and the crashes, timeouts and out-of-memory inputs found.
# Not part of `make test`. On a shared machine: `nice -n 10 make fuzz`.
#
#   FUZZ_SECONDS=60          time per target
#   FUZZ_TARGETS="a b"       targets to run (default: all of fuzz/fuzz_targets/)
#   FUZZ_RSS_MB=2048         -rss_limit_mb: more memory than this is a crash (oom-*)
#   FUZZ_TIMEOUT=10          -timeout: one input running longer than this is a crash (timeout-*)
#   FUZZ_SANITIZER=none      cargo fuzz -s (the core forbids unsafe code; `address` is ~2x slower)
#
# Installs the nightly toolchain and cargo-fuzz if missing, builds the targets once, builds the
# seed corpora from tests/fixtures (fuzz/make_corpus.py into fuzz/corpus/<target>/), then runs
# each target binary on its corpus. Inputs that fail are saved as fuzz/artifacts/<target>/
# crash-*|timeout-*|oom-*; the log of each run is fuzz/artifacts/<target>.log.
# Exit status: 0 when no target found anything, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-2048}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
FUZZ_SANITIZER=${FUZZ_SANITIZER:-none}
ALL_TARGETS=$(find fuzz/fuzz_targets -maxdepth 1 -name '*.rs' -printf '%f\n' | sed 's/\.rs$//' | sort | tr '\n' ' ')
FUZZ_TARGETS=${FUZZ_TARGETS:-$ALL_TARGETS}

if ! rustup toolchain list | grep -q '^nightly'; then
    echo "== installing the nightly toolchain (cargo-fuzz needs it)"
    rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

echo "== cargo +nightly fuzz build -s $FUZZ_SANITIZER"
cargo +nightly fuzz build -s "$FUZZ_SANITIZER"
HOST=$(rustc +nightly -vV | sed -n 's/^host: //p')
BIN="fuzz/target/$HOST/release"

echo "== seed corpora (fuzz/corpus/<target>/)"
PLAIN=fuzz/corpus/.plain-avro
rm -rf "$PLAIN"
PRV_FUZZ_PLAIN_AVRO_DIR="$PLAIN" "$BIN/analysis_mutate" -runs=0 >/dev/null 2>&1 || true
python3 fuzz/make_corpus.py --plain-avro "$PLAIN"

rows=()
found=0
for t in $FUZZ_TARGETS; do
    art="fuzz/artifacts/$t"
    log="fuzz/artifacts/$t.log"
    mkdir -p "$art" "fuzz/corpus/$t"
    before=$(find "$art" -maxdepth 1 -type f -printf '%f\n' | sort)
    echo "== $t: ${FUZZ_SECONDS}s (-rss_limit_mb=$FUZZ_RSS_MB -timeout=$FUZZ_TIMEOUT)"
    set +e
    "$BIN/$t" "fuzz/corpus/$t" -artifact_prefix="$art/" -max_total_time="$FUZZ_SECONDS" \
        -rss_limit_mb="$FUZZ_RSS_MB" -timeout="$FUZZ_TIMEOUT" -print_final_stats=1 \
        >"$log" 2>&1
    rc=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [[ -z "$execs" ]]; then
        execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    fi
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
    ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | awk '{print $2}')
    corp=$(grep -oE 'corp: [0-9]+' "$log" | tail -1 | awk '{print $2}')
    new_files=$(comm -13 <(printf '%s\n' "$before") <(find "$art" -maxdepth 1 -type f -printf '%f\n' | sort))
    crashes=$(printf '%s\n' "$new_files" | grep -c '^crash-' || true)
    timeouts=$(printf '%s\n' "$new_files" | grep -c '^timeout-' || true)
    ooms=$(printf '%s\n' "$new_files" | grep -c '^oom-' || true)
    status="ok"
    if (( rc != 0 || crashes + timeouts + ooms > 0 )); then
        status="FOUND (exit $rc): see $log"
        found=1
    fi
    rows+=("$(printf '%-16s %12s %8s %7s %8s %7s %7s %8s %5s  %s' "$t" "${execs:-?}" "${rate:-?}" \
        "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes" "$timeouts" "$ooms" "$status")")
done

echo
echo "== make fuzz: ${FUZZ_SECONDS}s per target, -rss_limit_mb=$FUZZ_RSS_MB -timeout=$FUZZ_TIMEOUT, sanitizer $FUZZ_SANITIZER"
printf '%-16s %12s %8s %7s %8s %7s %7s %8s %5s  %s\n' target executions exec/s cov ft corpus crashes \
    timeouts ooms status
for r in "${rows[@]}"; do
    echo "$r"
done
exit "$found"
