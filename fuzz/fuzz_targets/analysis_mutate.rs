//! `analysis_mutate`: a real fixture warehouse with a few entries changed
//! ([`paimon_recovery_validator_fuzz::mutate`]), zipped again and analysed
//! ([`paimon_recovery_validator_fuzz::harness::analysis`]).
//!
//! `PRV_FUZZ_WRITE_ZIP=<file>` writes the zip that was analysed (to turn a crash into a
//! regression fixture: `cargo +nightly fuzz run analysis_mutate <crash-file>`).
//! `PRV_FUZZ_PLAIN_AVRO_DIR=<dir>` writes the fixtures' Avro files with decompressed blocks
//! there at start-up (seeds for `avro_manifests`; `fuzz/make_corpus.py` uses it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_recovery_validator_fuzz::{harness, mutate};

fuzz_target!(
    init: {
        if let Some(dir) = std::env::var_os("PRV_FUZZ_PLAIN_AVRO_DIR") {
            mutate::write_plain_avro(std::path::Path::new(&dir));
        }
    },
    |plan: mutate::Plan| {
    let zip = mutate::build(&plan);
    if let Some(path) = std::env::var_os("PRV_FUZZ_WRITE_ZIP") {
        let _ = std::fs::write(path, &zip);
    }
    harness::assert_clean(&harness::analysis(&zip));
    }
);
