//! Permalinks: the report's JSON, deflated (raw DEFLATE, pure Rust) and base64url-encoded, in the
//! URL's hash (`#report=…`). The hash never reaches a server; opening such a link re-renders the
//! report offline, without the artifact. Only the report travels, never the data files.
//!
//! Plain logic, tested natively.

/// The key of the hash parameter.
pub const HASH_KEY: &str = "report=";

/// Longest permalink hash made, in characters. Chromium accepts URLs of up to 2 MiB; beyond
/// this the page offers the JSON download instead.
pub const MAX_HASH_CHARS: usize = 1_500_000;

/// Largest JSON accepted when decoding a permalink (a guard against a hostile link's deflate
/// bomb).
pub const MAX_JSON_BYTES: usize = 256 << 20;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding (RFC 4648 §5).
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            let index = (n >> (18 - 6 * i)) & 63;
            out.push(char::from(ALPHABET[index as usize]));
        }
    }
    out
}

fn sextet(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        // Also the standard alphabet, in case a link was re-encoded by hand.
        b'-' | b'+' => 62,
        b'_' | b'/' => 63,
        _ => return None,
    } as u32)
}

/// Decodes base64url (padding and whitespace tolerated).
pub fn base64url_decode(text: &str) -> Result<Vec<u8>, String> {
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    if clean.len() % 4 == 1 {
        return Err("the link's data is cut short".into());
    }
    let mut out = Vec::with_capacity(clean.len() / 4 * 3 + 2);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = sextet(c)
                .ok_or_else(|| format!("the link holds a stray character {:?}", char::from(c)))?;
            n |= v << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    Ok(out)
}

/// The hash (without `#`) that carries `json`, or `None` when it would be longer than
/// [`MAX_HASH_CHARS`].
pub fn encode(json: &str) -> Option<String> {
    let deflated = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
    let hash = format!("{HASH_KEY}{}", base64url_encode(&deflated));
    (hash.len() <= MAX_HASH_CHARS).then_some(hash)
}

/// Whether a location hash (with or without `#`) carries a report.
pub fn is_permalink(hash: &str) -> bool {
    hash.trim_start_matches('#').starts_with(HASH_KEY)
}

/// The report JSON a location hash carries. `Ok(None)` when the hash carries no report.
pub fn decode(hash: &str) -> Result<Option<String>, String> {
    let hash = hash.trim_start_matches('#');
    let Some(data) = hash.strip_prefix(HASH_KEY) else {
        return Ok(None);
    };
    // Everything up to the next parameter, if any.
    let data = data.split('&').next().unwrap_or_default();
    let deflated = base64url_decode(data)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, MAX_JSON_BYTES)
        .map_err(|e| format!("the link's report cannot be decompressed ({:?})", e.status))?;
    String::from_utf8(json)
        .map(Some)
        .map_err(|_| "the link's report is not text".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_matches_rfc4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url_encode(plain.as_bytes()), encoded);
            assert_eq!(base64url_decode(encoded).unwrap(), plain.as_bytes());
        }
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url_decode("-_8").unwrap(), vec![0xfb, 0xff]);
        assert_eq!(base64url_decode("+/8=").unwrap(), vec![0xfb, 0xff]);
        assert!(base64url_decode("Zm9vY").is_err());
        assert!(base64url_decode("Zm9v!").is_err());
    }

    #[test]
    fn every_byte_round_trips() {
        let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for len in 0..bytes.len() {
            let s = base64url_encode(&bytes[..len]);
            assert!(s
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
            assert_eq!(base64url_decode(&s).unwrap(), &bytes[..len]);
        }
    }

    #[test]
    fn a_report_round_trips_through_the_hash() {
        let json =
            "{\n  \"schema\": \"paimon-recovery-report/1\",\n  \"tables\": []\n}\n".repeat(50);
        let hash = encode(&json).unwrap();
        assert!(hash.starts_with("report="));
        assert!(hash.len() < json.len() / 4, "compressed: {}", hash.len());
        assert!(is_permalink(&format!("#{hash}")));
        assert_eq!(
            decode(&format!("#{hash}")).unwrap().as_deref(),
            Some(json.as_str())
        );
        assert_eq!(
            decode(&format!("{hash}&x=1")).unwrap().as_deref(),
            Some(json.as_str())
        );
    }

    #[test]
    fn other_hashes_are_not_reports_and_damage_is_an_error() {
        assert_eq!(decode("").unwrap(), None);
        assert_eq!(decode("#finding-3").unwrap(), None);
        assert!(!is_permalink("#finding-3"));
        assert!(decode("#report=AAAA").is_err());
        assert!(decode("#report=%%%").is_err());
        let hash = encode("{}").unwrap();
        assert!(
            decode(&hash[..hash.len() - 2]).is_err()
                || decode(&hash[..hash.len() - 2]).unwrap().as_deref() != Some("{}")
        );
    }

    #[test]
    fn a_too_long_report_has_no_link() {
        // Incompressible: pseudo-random text.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let json: String = (0..MAX_HASH_CHARS)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'!' + (x % 90) as u8)
            })
            .collect();
        assert!(encode(&json).is_none());
    }
}
