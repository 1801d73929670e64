//! The renderers of a [`Report`](crate::findings::Report): JSON (the contract), Markdown (for
//! GitHub issues) and text (for terminals). They only render: the report's data types are the
//! findings vocabulary ([`crate::findings`]), assembled by the analysis.

pub mod json;
pub mod markdown;
pub mod model;
pub mod rows;
pub mod text;

/// Renders epoch ms as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn format_utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Parses RFC 3339 (`2026-11-30T08:00:00Z`, `…T09:00:00.250+01:00`) or a bare date
/// (`2026-11-30`, midnight UTC) to epoch ms.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let s = s.trim();
    let date = s.get(..10)?;
    let mut it = date.split('-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || date.len() != 10 {
        return None;
    }
    let days = crate::source::days_from_civil(y, m, d);
    let rest = s.get(10..)?;
    if rest.is_empty() {
        return days.checked_mul(86_400_000);
    }
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let (time, offset_ms) = if let Some(t) = rest.strip_suffix(['Z', 'z']) {
        (t, 0)
    } else {
        let pos = rest.rfind(['+', '-'])?;
        let (t, off) = rest.split_at(pos);
        let sign = if off.starts_with('-') { -1 } else { 1 };
        let mut parts = off.get(1..)?.split(':');
        let oh: i64 = parts.next()?.parse().ok()?;
        let om: i64 = parts.next().unwrap_or("0").parse().ok()?;
        (t, sign * (oh * 60 + om) * 60_000)
    };
    let mut tp = time.split(':');
    let h: i64 = tp.next()?.parse().ok()?;
    let mi: i64 = tp.next()?.parse().ok()?;
    let sec_str = tp.next().unwrap_or("0");
    let (sec, frac) = sec_str.split_once('.').unwrap_or((sec_str, ""));
    let sec: i64 = sec.parse().ok()?;
    let mut ms = 0i64;
    for (i, c) in frac.chars().take(3).enumerate() {
        ms += i64::from(c.to_digit(10)?) * [100, 10, 1].get(i).copied()?;
    }
    if h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    Some(days * 86_400_000 + ((h * 60 + mi) * 60 + sec) * 1000 + ms - offset_ms)
}

/// Proleptic Gregorian date of days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_rendering() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(format_utc(1_796_027_473_636), "2026-11-30 08:31:13 UTC");
        assert_eq!(format_utc(-1000), "1969-12-31 23:59:59 UTC");
    }

    #[test]
    fn rfc3339() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_rfc3339("2026-11-30T08:31:13.636Z"),
            Some(1_796_027_473_636)
        );
        assert_eq!(
            parse_rfc3339("2026-11-30T09:31:13.636+01:00"),
            Some(1_796_027_473_636)
        );
        assert_eq!(parse_rfc3339("1970-01-02"), Some(86_400_000));
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(parse_rfc3339("2026-13-01T00:00:00Z"), None);
    }
}
