//! `avro_data`: see [`paimon_recovery_validator_fuzz::harness::avro_data`].
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_recovery_validator_fuzz::harness;

fuzz_target!(|data: &[u8]| {
    harness::assert_clean(&harness::avro_data(data));
});
