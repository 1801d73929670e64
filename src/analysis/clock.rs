//! The report's clock and the artifact's identity.
//!
//! Question: *what time is it, for this artifact?* Age-based findings (a stale consumer, an
//! orphan file young enough to be an in-flight commit) are judged against a clock. An artifact is
//! usually examined long after it was captured, so by default the clock is the **capture time**:
//! the newest time the artifact records (snapshot commit times and file modification times).
//! `--now` overrides it.
//!
//! Zips record modification times as MS-DOS local time without a zone. Snapshot files are
//! written right after their `timeMillis` is taken (`paimon-format.md` §4.1), so the difference
//! between a snapshot file's zip time and its `timeMillis`, rounded to 15 minutes, is the zone
//! offset of the machine that zipped the artifact.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::findings::{Clock, ClockSource};
use crate::source::{Artifact, FileTime};
use crate::timeline::Timeline;

const QUARTER_HOUR_MS: i64 = 15 * 60_000;

/// Establishes the clock: `given` if set, else the capture time.
pub fn establish(artifact: &Artifact, timelines: &[Timeline], given: Option<i64>) -> Clock {
    let offset = zip_time_offset_minutes(timelines);
    match given {
        Some(now_millis) => Clock {
            now_millis,
            source: ClockSource::Given,
            zip_time_offset_minutes: offset,
        },
        None => {
            let newest_commit = timelines
                .iter()
                .flat_map(|t| t.snapshots.values().map(|s| s.snapshot.time_millis))
                .max();
            let newest_file = artifact
                .files()
                .iter()
                .filter_map(|f| f.modified())
                .map(|m| m.to_utc_millis(offset))
                .max();
            let now_millis = newest_commit.max(newest_file).unwrap_or(0);
            Clock {
                now_millis,
                source: ClockSource::Capture,
                zip_time_offset_minutes: offset,
            }
        }
    }
}

/// The zone offset (minutes, local − UTC) of the zip's DOS times, estimated from snapshot files;
/// `None` when no snapshot file carries a zip local time.
pub fn zip_time_offset_minutes(timelines: &[Timeline]) -> Option<i64> {
    let mut votes: BTreeMap<i64, u64> = BTreeMap::new();
    for t in timelines {
        for s in t.snapshots.values() {
            if let Some(FileTime::ZipLocal(local)) = s.modified {
                let diff = local.saturating_sub(s.snapshot.time_millis);
                // DOS times truncate to 2 s; a snapshot file is written just after timeMillis.
                let quarters = (diff + QUARTER_HOUR_MS / 2).div_euclid(QUARTER_HOUR_MS);
                // Real zone offsets lie within ±14 h.
                if quarters.abs() <= 14 * 4 {
                    *votes.entry(quarters * 15).or_default() += 1;
                }
            }
        }
    }
    votes
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.abs().cmp(&a.0.abs())))
        .map(|(minutes, _)| minutes)
}

/// A digest identifying the artifact's content as its directory declares it: SHA-256 over the
/// sorted paths, sizes and CRCs. Reading no data, it is stable for the same artifact and cheap
/// for a 2 GB one.
pub fn artifact_digest(artifact: &Artifact) -> String {
    let mut h = Sha256::new();
    for f in artifact.files() {
        for part in f.path_bytes() {
            h.update(part);
        }
        h.update([0]);
        h.update(f.size().to_le_bytes());
        h.update(f.crc32().unwrap_or(0).to_le_bytes());
    }
    let digest = h.finalize();
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
