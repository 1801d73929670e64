//! The report's data types, which live in [`crate::findings`] (below the checks); re-exported
//! here under their former path for the web crate's existing imports.

pub use crate::findings::*;
