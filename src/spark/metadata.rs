//! `<checkpoint>/metadata`: `{"id":"<query uuid>"}`, written once when the query first starts
//! (`paimon-format.md` §7.1; Spark `StreamMetadata`). The id stays the same across restarts
//! from the same checkpoint.

use serde::Deserialize;

use crate::error::{Error, Result};

#[derive(Deserialize)]
struct RawMetadata {
    id: Option<String>,
}

/// Parses a checkpoint's `metadata` file into the query id.
pub fn parse_query_id(bytes: &[u8]) -> Result<String> {
    let raw: RawMetadata = serde_json::from_slice(bytes)
        .map_err(|e| Error::format(format!("not valid checkpoint metadata JSON: {e}")))?;
    raw.id
        .ok_or_else(|| Error::format("the checkpoint metadata has no query id"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_id() {
        assert_eq!(
            parse_query_id(br#"{"id":"454e5706-4c26-4f3b-9a2e-bba95be300c8"}"#).unwrap(),
            "454e5706-4c26-4f3b-9a2e-bba95be300c8"
        );
        assert!(parse_query_id(b"{}").is_err());
        assert!(parse_query_id(b"").is_err());
    }
}
