//! `zip_source`: see [`paimon_recovery_validator_fuzz::harness::zip_source`].
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_recovery_validator_fuzz::harness;

fuzz_target!(|data: &[u8]| {
    harness::assert_clean(&harness::zip_source(data));
});
