//! Fuzzing support for the core: the harness shared with the regression tests, and the
//! structure-aware mutator of real fixture warehouses.

pub mod harness;
pub mod mutate;
pub mod zipwrite;
