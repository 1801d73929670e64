//! `consumer/consumer-<id>`: a streaming reader's table-side recovery position and a fence for
//! snapshot expiration (`paimon-format.md` §5.4, §6.1). JSON `{"nextSnapshot": N}`: everything
//! below N is consumed. Java pretty-prints, pypaimon writes compact JSON; unknown fields are
//! ignored. Writes are plain overwrites (not atomic), so an empty or truncated file is possible.

use serde::Deserialize;

use crate::error::{Error, Result};

/// The prefix of consumer file names.
pub const CONSUMER_PREFIX: &str = "consumer-";

/// A parsed consumer file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Consumer {
    /// The next snapshot id the consumer will read.
    pub next_snapshot: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawConsumer {
    next_snapshot: Option<serde_json::Value>,
}

impl Consumer {
    /// Parses a consumer file.
    pub fn parse(json: &[u8]) -> Result<Consumer> {
        if json.iter().all(u8::is_ascii_whitespace) {
            return Err(Error::format(
                "the consumer file is empty (Paimon overwrites it in place; a writer may have died mid-write)",
            ));
        }
        let raw: RawConsumer = serde_json::from_slice(json)
            .map_err(|e| Error::format(format!("not valid consumer JSON: {e}")))?;
        let next = match raw.next_snapshot {
            Some(serde_json::Value::Number(n)) => n
                .as_i64()
                .ok_or_else(|| Error::format(format!("nextSnapshot {n} is not a long")))?,
            Some(other) => {
                return Err(Error::format(format!(
                    "nextSnapshot must be a number, found {other}"
                )))
            }
            None => return Err(Error::format("the field nextSnapshot is missing")),
        };
        Ok(Consumer {
            next_snapshot: next,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_and_python_forms() {
        assert_eq!(
            Consumer::parse(b"{\n  \"nextSnapshot\" : 42\n}").unwrap(),
            Consumer { next_snapshot: 42 }
        );
        assert_eq!(
            Consumer::parse(br#"{"nextSnapshot": 5, "other": 1}"#).unwrap(),
            Consumer { next_snapshot: 5 }
        );
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(Consumer::parse(b"")
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(Consumer::parse(b"{}")
            .unwrap_err()
            .to_string()
            .contains("missing"));
        assert!(Consumer::parse(br#"{"nextSnapshot":"x"}"#)
            .unwrap_err()
            .to_string()
            .contains("number"));
        assert!(Consumer::parse(b"{\"nextSn").is_err());
        assert!(Consumer::parse(br#"{"nextSnapshot":1.5}"#).is_err());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            let _ = Consumer::parse(&bytes);
        }
    }
}
