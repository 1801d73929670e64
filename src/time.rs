//! Calendar arithmetic and time rendering, one home for the whole core: the proleptic
//! Gregorian date of a day count and its inverse (Howard Hinnant's algorithms, exact for every
//! `i64` day count), epoch milliseconds as UTC text and back, and short durations.
//!
//! Used by the zip reader (MS-DOS times), the Paimon and Parquet value renderers (`DATE`,
//! `TIMESTAMP`), the report renderers and the page.

/// Milliseconds in a day.
const DAY_MS: i64 = 86_400_000;

/// The proleptic Gregorian `(year, month 1..=12, day 1..=31)` of a count of days since
/// 1970-01-01. Computed in `i128`, so no day count overflows.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = i128::from(days) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // 1..=31 and 1..=12 by construction; |y| < |days| / 365 + 1 fits in an i64.
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = if m <= 2 { y + 1 } else { y };
    (
        i64::try_from(y).unwrap_or(if y < 0 { i64::MIN } else { i64::MAX }),
        m,
        d,
    )
}

/// Days since 1970-01-01 of a proleptic Gregorian date (the inverse of [`civil_from_days`] for
/// valid dates).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `(year, month, day, hour, minute, second, millisecond)` of epoch ms, in UTC.
fn utc_parts(ms: i64) -> (i64, u32, u32, i64, i64, i64, i64) {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    (
        y,
        m,
        d,
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        ms.rem_euclid(1000),
    )
}

/// Epoch ms as `YYYY-MM-DD HH:MM:SS UTC` (the reports).
pub fn format_utc(ms: i64) -> String {
    let (y, m, d, h, mi, s, _) = utc_parts(ms);
    format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02} UTC")
}

/// Epoch ms as `YYYY-MM-DD HH:MM:SS.mmm UTC` (the page, where commits a few ms apart are
/// told apart).
pub fn format_utc_millis(ms: i64) -> String {
    let (y, m, d, h, mi, s, milli) = utc_parts(ms);
    format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02}.{milli:03} UTC")
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
    let days = days_from_civil(y, m, d);
    let rest = s.get(10..)?;
    if rest.is_empty() {
        return days.checked_mul(DAY_MS);
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
    Some(days * DAY_MS + ((h * 60 + mi) * 60 + sec) * 1000 + ms - offset_ms)
}

/// How far apart a file's time and a commit's may be and still be the same moment: zip entries
/// keep modification times to 2 seconds (`paimon-format.md` §4.1), so a file written at a commit
/// may carry a time up to this much before or after the commit's.
pub const FILE_TIME_TOLERANCE_MS: i64 = 2_000;

/// Whether `earlier` (epoch ms) is before `later` by more than [`FILE_TIME_TOLERANCE_MS`]: the
/// two cannot be the same moment, nor `earlier` the later one.
pub fn clearly_before(earlier: i64, later: i64) -> bool {
    earlier.saturating_add(FILE_TIME_TOLERANCE_MS) < later
}

/// Whether a file time `m` (epoch ms) can lie in the window from `lo` to `hi` (either end open
/// when `None`), within [`FILE_TIME_TOLERANCE_MS`] of either end.
pub fn in_window(m: i64, lo: Option<i64>, hi: Option<i64>) -> bool {
    lo.is_none_or(|lo| !clearly_before(m, lo)) && hi.is_none_or(|hi| !clearly_before(hi, m))
}

/// `ms` (a signed difference) as "`<duration>` before `what`", or "after" when negative.
pub fn before_or_after(ms: i64, what: &str) -> String {
    if ms >= 0 {
        format!("{} before {what}", format_duration(ms))
    } else {
        format!("{} after {what}", format_duration(ms.saturating_neg()))
    }
}

/// Renders ms as a short human duration (`1 d 2 h`, `35 min`, `4 s`, `250 ms`).
pub fn format_duration(ms: i64) -> String {
    let neg = ms < 0;
    let ms = ms.unsigned_abs();
    let parts = [
        (86_400_000u64, "d"),
        (3_600_000, "h"),
        (60_000, "min"),
        (1_000, "s"),
    ];
    let mut out = Vec::new();
    let mut rest = ms;
    for (unit, name) in parts {
        if rest >= unit {
            out.push(format!("{} {name}", rest / unit));
            rest %= unit;
        }
        if out.len() == 2 {
            break;
        }
    }
    if out.is_empty() {
        out.push(format!("{ms} ms"));
    }
    let s = out.join(" ");
    if neg {
        format!("-{s}")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Times within 2 s of each other (either order) are the same moment; only more than 2 s
    /// earlier is before. Zip times near the end of time do not overflow.
    #[test]
    fn clearly_before_allows_the_two_seconds_of_zip_times() {
        let t = 1_700_000_000_000;
        assert!(clearly_before(t - 2_001, t));
        assert!(!clearly_before(t - 2_000, t));
        assert!(!clearly_before(t, t));
        assert!(!clearly_before(t + 2_000, t));
        assert!(!clearly_before(i64::MAX, i64::MIN));
        assert!(clearly_before(i64::MIN, i64::MAX));
    }

    /// A window takes file times up to 2 s past either end, and none further; an open end
    /// takes any.
    #[test]
    fn a_window_allows_two_seconds_past_either_end() {
        let (lo, hi) = (10_000, 20_000);
        assert!(in_window(8_000, Some(lo), Some(hi)));
        assert!(!in_window(7_999, Some(lo), Some(hi)));
        assert!(in_window(22_000, Some(lo), Some(hi)));
        assert!(!in_window(22_001, Some(lo), Some(hi)));
        assert!(in_window(i64::MIN, None, Some(hi)));
        assert!(in_window(i64::MAX, Some(lo), None));
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
        // Extreme day counts do not overflow.
        let _ = civil_from_days(i64::MAX);
        let _ = civil_from_days(i64::MIN);
    }

    #[test]
    fn utc_rendering() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(format_utc(1_796_027_473_636), "2026-11-30 08:31:13 UTC");
        assert_eq!(format_utc(-1000), "1969-12-31 23:59:59 UTC");
        assert_eq!(format_utc_millis(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(
            format_utc_millis(1_796_027_473_636),
            "2026-11-30 08:31:13.636 UTC"
        );
        assert_eq!(
            format_utc_millis(951_782_400_000),
            "2000-02-29 00:00:00.000 UTC"
        );
        assert_eq!(format_utc_millis(-1), "1969-12-31 23:59:59.999 UTC");
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

    #[test]
    fn durations() {
        assert_eq!(format_duration(90_061_000), "1 d 1 h");
        assert_eq!(format_duration(1_500), "1 s");
        assert_eq!(format_duration(20), "20 ms");
        assert_eq!(format_duration(-60_000), "-1 min");
    }

    proptest! {
        /// The two conversions are inverse over every date a timestamp can name.
        #[test]
        fn days_round_trip(days in -100_000_000i64..100_000_000) {
            let (y, m, d) = civil_from_days(days);
            prop_assert_eq!(days_from_civil(y, i64::from(m), i64::from(d)), days);
        }
    }
}
