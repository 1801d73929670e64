//! `snapshot/EARLIEST`, `snapshot/LATEST` (and the same in `changelog/`): hints holding a decimal
//! snapshot id, no newline (`paimon-format.md` §1.4). They are hints only: readers trust
//! `LATEST=n` only if `snapshot-(n+1)` does not exist and `EARLIEST=n` only if `snapshot-n` does.

use crate::error::{Error, Result};

/// Parses a hint file's content. Surrounding whitespace is tolerated (hand-written hints).
pub fn parse_hint(bytes: &[u8]) -> Result<i64> {
    let text = std::str::from_utf8(bytes).map_err(|_| {
        Error::format("a hint must be a decimal snapshot id; found non-UTF-8 bytes")
    })?;
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(Error::format(
            "the hint is empty (a writer may have died while overwriting it)",
        ));
    }
    trimmed.parse::<i64>().map_err(|_| {
        let shown: String = trimmed.chars().take(40).collect();
        Error::format(format!(
            "a hint must be a decimal snapshot id; found {shown:?}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints() {
        assert_eq!(parse_hint(b"2").unwrap(), 2);
        assert_eq!(parse_hint(b"17\n").unwrap(), 17);
        assert!(parse_hint(b"").unwrap_err().to_string().contains("empty"));
        assert!(parse_hint(b"x7").is_err());
        assert!(parse_hint(&[0xff, 0xfe]).is_err());
    }
}
