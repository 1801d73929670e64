//! Plain-text cells of row-level evidence, shared by the Markdown and text reports (which
//! escape them for their medium).

use serde_json::Value as J;

/// One key of a lost-changelog `rows` section, as text cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostKeyCells {
    /// The bucket directory.
    pub bucket: String,
    /// `id=5`.
    pub key: String,
    /// `v=r5`, or `absent` / `deleted`.
    pub batch: String,
    /// `snapshot 9: -U v=r3, +U v=r5`, or `nothing`.
    pub delivered: String,
    /// `-U v=r3, +U v=r4`.
    pub lost: String,
}

/// A JSON scalar as text (strings without quotes).
pub fn scalar(v: &J) -> String {
    match v {
        J::String(s) => s.clone(),
        J::Null => "null".to_string(),
        other => other.to_string(),
    }
}

/// `a=1, b=x` of an object, leaving out the fields in `skip` (unless nothing would be left).
fn fields(row: &J, skip: &[&str]) -> String {
    let Some(obj) = row.as_object() else {
        return scalar(row);
    };
    let shown: Vec<String> = obj
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={}", scalar(v)))
        .collect();
    if shown.is_empty() {
        obj.iter()
            .map(|(k, v)| format!("{k}={}", scalar(v)))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        shown.join(", ")
    }
}

/// The cells of one entry of `rows.keys`.
pub fn lost_key_cells(entry: &J) -> LostKeyCells {
    let key = entry.get("key").cloned().unwrap_or(J::Null);
    let key_fields: Vec<&str> = key
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let batch = match (
        entry.get("batchState").and_then(J::as_str),
        entry.get("batch"),
    ) {
        (Some("unknown"), _) | (_, None) => unknown(entry.get("batchUnknownBecause")),
        (_, Some(J::Null)) => {
            if entry.get("batchDeleted").and_then(J::as_bool) == Some(true) {
                "deleted".to_string()
            } else {
                "absent".to_string()
            }
        }
        (_, Some(row)) => fields(row, &key_fields),
    };
    let tie = if entry.get("tie").and_then(J::as_bool) == Some(true) {
        " (sequence-number tie)"
    } else {
        ""
    };
    let mut delivered: Vec<String> = Vec::new();
    let mut last_snapshot = None;
    for d in entry
        .get("delivered")
        .and_then(J::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        let s = d.get("snapshot").and_then(J::as_i64);
        let kind = d.get("kind").map(scalar).unwrap_or_default();
        let row = d
            .get("row")
            .map(|r| fields(r, &key_fields))
            .unwrap_or_default();
        if s != last_snapshot {
            delivered.push(format!(
                "snapshot {}: {kind} {row}",
                s.map_or("?".to_string(), |s| s.to_string())
            ));
            last_snapshot = s;
        } else if let Some(last) = delivered.last_mut() {
            last.push_str(&format!(", {kind} {row}"));
        }
    }
    if let Some(n) = entry.get("deliveredOmitted").and_then(J::as_u64) {
        delivered.push(format!("… {n} more"));
    }
    let mut lost: Vec<String> = entry
        .get("lost")
        .and_then(J::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                l.get("kind").map(scalar).unwrap_or_default(),
                l.get("row")
                    .map(|r| fields(r, &key_fields))
                    .unwrap_or_default()
            )
        })
        .collect();
    if let Some(n) = entry.get("lostOmitted").and_then(J::as_u64) {
        lost.push(format!("… {n} more"));
    }
    let delivered_unknown = entry.get("deliveredState").and_then(J::as_str) != Some("known");
    let delivered = match (delivered.is_empty(), delivered_unknown) {
        (true, false) => "nothing".to_string(),
        (false, false) => delivered.join("; "),
        (true, true) => unknown(entry.get("deliveredUnknownBecause")),
        (false, true) => format!(
            "{}; more {}",
            delivered.join("; "),
            unknown(entry.get("deliveredUnknownBecause"))
        ),
    };
    LostKeyCells {
        bucket: entry.get("bucket").map(scalar).unwrap_or_default(),
        key: fields(&key, &[]),
        batch: format!("{batch}{tie}"),
        delivered,
        lost: lost.join(", "),
    }
}

/// What happened to a file a value rests on, said after its name, from a `…UnknownBecause`
/// item's `reason` (`rows::NotRead`; a report without one: "could not be read").
fn not_read(item: &J) -> &'static str {
    match item.get("reason").and_then(J::as_str) {
        Some("missing") => "is not in the artifact",
        Some("capped") => "was not read",
        _ => "could not be read",
    }
}

/// One `…UnknownBecause` item in words, its problem after what happened to the file:
/// `bucket-0/data-1.orc could not be read (expected …)`, `bucket-0/changelog-9.parquet was not
/// read (more than 64 later changelog files)`, `bucket-1/data-2.parquet is not in the artifact`.
pub fn reason_text(item: &J) -> String {
    let file = item.get("file").and_then(J::as_str).unwrap_or("a file");
    let problem = item.get("problem").and_then(J::as_str).unwrap_or("");
    // what `not_read` already says is not said twice
    let rest = problem
        .strip_prefix("not in the artifact")
        .or_else(|| problem.strip_prefix("not read:"))
        .unwrap_or(problem)
        .trim();
    let rest = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(rest);
    match rest {
        "" => format!("{file} {}", not_read(item)),
        _ => format!("{file} {} ({rest})", not_read(item)),
    }
}

/// `unknown: data-….orc could not be read (+2 more)` from a `…UnknownBecause` list (the
/// problems are in the section's notes and the JSON).
fn unknown(because: Option<&J>) -> String {
    let reasons = because
        .and_then(J::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let files: Vec<(String, &'static str)> = reasons
        .iter()
        .filter_map(|r| Some((r.get("file").and_then(J::as_str)?, not_read(r))))
        .map(|(f, what)| match f.rsplit_once('/') {
            Some((_, name)) if !name.is_empty() => (name.to_string(), what),
            _ => (f.to_string(), what),
        })
        .collect();
    let more = reasons
        .iter()
        .filter_map(|r| r.get("more").and_then(J::as_u64))
        .sum::<u64>()
        + files.len().saturating_sub(1) as u64;
    match files.first() {
        Some((f, what)) if more > 0 => format!("unknown: {f} {what} (+{more} more)"),
        Some((f, what)) => format!("unknown: {f} {what}"),
        None => "unknown: the files could not be read".to_string(),
    }
}

/// The summary line of a lost-changelog `rows` section: how many keys lost their changelog,
/// how many of them have a value that could not be read, and never "0 keys" when the lost
/// changelog itself could not be read.
pub fn lost_summary(rows: &J) -> String {
    let shown = rows.get("keys").and_then(J::as_array).map_or(0, Vec::len);
    let omitted = rows.get("omitted").and_then(J::as_u64).unwrap_or(0);
    let total = shown as u64 + omitted;
    let unreadable: Vec<String> = rows
        .get("lostUnreadable")
        .and_then(J::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .map(|u| {
            format!(
                "{}: {}",
                u.get("file").map(scalar).unwrap_or_default(),
                u.get("problem").map(scalar).unwrap_or_default()
            )
        })
        .collect();
    let unknown = rows.get("unknownKeys").and_then(J::as_u64).unwrap_or(0);
    let snapshot = rows
        .get("batchSnapshot")
        .and_then(J::as_i64)
        .map_or(String::new(), |s| format!(" of snapshot {s}"));
    // `batchExact` is the whole section's: the batch view, the lost and the later changelog
    let exact = if rows.get("batchExact").and_then(J::as_bool) == Some(false) {
        " (approximate: see the notes)"
    } else {
        ""
    };
    let columns = format!(
        "batch value now (batch view{snapshot}), changelog delivered later, changelog lost{exact}"
    );
    let unknown = if unknown > 0 {
        format!(" ({unknown} not known in full: files they rest on were not read)")
    } else {
        String::new()
    };
    let s = if total == 1 { "" } else { "s" };
    match (unreadable.len(), total) {
        (0, _) => format!("{total} key{s} whose changelog was lost{unknown}: {columns}"),
        (n, 0) => format!(
            "unknown keys: the lost changelog could not be read ({}{})",
            if n == 1 { String::new() } else { format!("{n} files: ") },
            unreadable.join("; ")
        ),
        (n, _) => format!(
            "at least {total} key{s} whose changelog was lost{unknown} ({n} more lost changelog file{} could not be read: {}): {columns}",
            if n == 1 { "" } else { "s" },
            unreadable.join("; ")
        ),
    }
}

/// The line of a `{"count", "ranges"}` rows section (`75 id values: 0..74`).
pub fn ids_summary(rows: &J) -> Option<String> {
    let count = rows.get("count")?.as_u64()?;
    let column = rows.get("column").map(scalar).unwrap_or_default();
    let ranges: Vec<String> = rows
        .get("ranges")?
        .as_array()?
        .iter()
        .filter_map(|r| {
            let a = scalar(r.get(0)?);
            let b = scalar(r.get(1)?);
            Some(if a == b { a } else { format!("{a}..{b}") })
        })
        .collect();
    let listed = ranges.len();
    let mut shown: Vec<String> = ranges.into_iter().take(20).collect();
    if listed > 20 {
        shown.push(format!("… {} more ranges", listed - 20));
    }
    // A Ray comparison whose batch view could not be read whole: the ids' state is unknown.
    let unknown = if rows.get("known").and_then(J::as_bool) == Some(false) {
        " (unknown whether the latest snapshot holds them: a live file could not be read)"
    } else {
        ""
    };
    Some(format!(
        "{count} {column} value{}: {}{unknown}",
        if count == 1 { "" } else { "s" },
        shown.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_of_a_key() {
        let e = json!({"bucket": "bucket-0", "key": {"id": 5}, "batch": {"id": 5, "v": "r5"},
            "batchState": "known", "deliveredState": "known",
            "delivered": [{"snapshot": 9, "kind": "-U", "row": {"id": 5, "v": "r3"}},
                          {"snapshot": 9, "kind": "+U", "row": {"id": 5, "v": "r5"}}],
            "lost": [{"kind": "+U", "row": {"id": 5, "v": "r4"}, "file": "f"}]});
        let c = lost_key_cells(&e);
        assert_eq!(c.key, "id=5");
        assert_eq!(c.batch, "v=r5");
        assert_eq!(c.delivered, "snapshot 9: -U v=r3, +U v=r5");
        assert_eq!(c.lost, "+U v=r4");
        let e = json!({"key": {"id": 1}, "batch": null, "batchDeleted": true, "batchState": "known",
            "delivered": [], "deliveredState": "known", "lost": []});
        let c = lost_key_cells(&e);
        assert_eq!(
            (c.batch.as_str(), c.delivered.as_str()),
            ("deleted", "nothing")
        );
        // Unknown is never absent or nothing.
        let e = json!({"key": {"id": 4}, "batchState": "unknown",
            "batchUnknownBecause": [{"file": "bucket-0/data-1.orc", "problem": "p"},
                                    {"file": "bucket-0/data-2.orc", "problem": "p"}],
            "delivered": [], "deliveredState": "unknown",
            "deliveredUnknownBecause": [{"snapshot": 9, "file": "bucket-0/changelog-1.orc", "problem": "p"}],
            "lost": [{"kind": "+I", "row": {"id": 4, "v": "r4"}}]});
        let c = lost_key_cells(&e);
        assert_eq!(c.batch, "unknown: data-1.orc could not be read (+1 more)");
        assert_eq!(c.delivered, "unknown: changelog-1.orc could not be read");
        // A file absent from the artifact, or left unread past a cap, is said so, not
        // "could not be read".
        let e = json!({"key": {"id": 4}, "batchState": "unknown",
            "batchUnknownBecause": [{"file": "bucket-0/data-1.orc", "problem": "not in the artifact",
                                     "reason": "missing"}],
            "delivered": [], "deliveredState": "unknown",
            "deliveredUnknownBecause": [
                {"snapshot": 135, "file": "bucket-0/changelog-129.parquet", "reason": "capped",
                 "problem": "not read: more than 64 later changelog files"},
                {"more": 4}],
            "lost": []});
        let c = lost_key_cells(&e);
        assert_eq!(c.batch, "unknown: data-1.orc is not in the artifact");
        assert_eq!(
            c.delivered,
            "unknown: changelog-129.parquet was not read (+4 more)"
        );
        // A report without the states (older JSON) is not read as absent either.
        let c = lost_key_cells(&json!({"key": {"id": 4}, "delivered": [], "lost": []}));
        assert!(
            c.batch.starts_with("unknown") && c.delivered.starts_with("unknown"),
            "{c:?}"
        );
        let s = lost_summary(&json!({"keys": [], "omitted": 0, "keysComplete": false,
            "lostUnreadable": [{"file": "bucket-0/changelog-1.orc", "problem": "an ORC file"}]}));
        assert!(
            !s.contains("0 keys")
                && s.contains("unknown")
                && s.contains("changelog-1.orc: an ORC file"),
            "{s}"
        );
        let s = lost_summary(&json!({"keys": [{}, {}], "omitted": 1, "unknownKeys": 2}));
        assert!(
            s.starts_with("3 keys whose changelog was lost (2 not known in full"),
            "{s}"
        );
        assert_eq!(
            ids_summary(&json!({"count": 75, "column": "id", "ranges": [[0, 74], [80, 80]]}))
                .as_deref(),
            Some("75 id values: 0..74, 80")
        );
    }

    /// Each reason in words with its problem, what the reason says not repeated.
    #[test]
    fn reasons_in_words() {
        let said = |item: J| reason_text(&item);
        assert_eq!(
            said(
                json!({"file": "bucket-0/data-1.orc", "problem": "expected the ORC magic",
                        "reason": "unreadable"})
            ),
            "bucket-0/data-1.orc could not be read (expected the ORC magic)"
        );
        assert_eq!(
            said(
                json!({"file": "bucket-0/changelog-9.parquet", "reason": "capped",
                        "problem": "not read: more than 64 later changelog files"})
            ),
            "bucket-0/changelog-9.parquet was not read (more than 64 later changelog files)"
        );
        assert_eq!(
            said(
                json!({"file": "bucket-1/data-2.parquet", "problem": "not in the artifact",
                        "reason": "missing"})
            ),
            "bucket-1/data-2.parquet is not in the artifact"
        );
        assert_eq!(
            said(json!({"file": "index/dv-1", "reason": "missing",
                        "problem": "not in the artifact (rows it deletes are shown)"})),
            "index/dv-1 is not in the artifact (rows it deletes are shown)"
        );
        assert_eq!(
            said(json!({"file": "bucket-0/data-1.orc", "problem": "p"})),
            "bucket-0/data-1.orc could not be read (p)"
        );
    }
}
