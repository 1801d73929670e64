//! The terminal rendering: the verdict first, then per table a compact timeline and the
//! findings with their remedies. Plain text; colour is added by the CLI when stdout is a
//! terminal.

use std::fmt::Write as _;

use crate::findings::{Finding, Report, Severity, TableReport};
use crate::time::{format_duration, format_utc};

/// Renders the report for a terminal.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let s = &report.summary;
    let _ = writeln!(
        out,
        "{}: {}  ({} table{}, {} error{}, {} warning{}, {} info)",
        report.input.name,
        report.verdict.as_str().to_uppercase(),
        s.tables,
        if s.tables == 1 { "" } else { "s" },
        s.errors,
        if s.errors == 1 { "" } else { "s" },
        s.warnings,
        if s.warnings == 1 { "" } else { "s" },
        s.infos
    );
    let _ = writeln!(
        out,
        "clock: {} ({})",
        format_utc(report.clock.now_millis),
        match report.clock.source {
            crate::findings::ClockSource::Given => "--now",
            crate::findings::ClockSource::Capture => "capture time of the artifact",
        }
    );
    for f in &report.findings {
        out.push('\n');
        finding(&mut out, f);
    }
    for t in &report.tables {
        out.push('\n');
        table(&mut out, t);
    }
    // Names come from the artifact: never let them drive the terminal (escape sequences).
    out.chars()
        .filter(|&c| c == '\n' || !c.is_control())
        .collect()
}

fn table(out: &mut String, t: &TableReport) {
    let name = if t.path.is_empty() { "(root)" } else { &t.path };
    let _ = write!(out, "== {name}");
    if t.branch != "main" {
        let _ = write!(out, " (branch {})", t.branch);
    }
    let _ = writeln!(
        out,
        "  changelog-producer={}  snapshots {}  hints EARLIEST={} LATEST={}",
        super::changelog_producer(t),
        match (t.earliest, t.latest) {
            (Some(e), Some(l)) => format!("{e}..{l}"),
            _ => "none".into(),
        },
        t.hints.earliest.map_or("-".into(), |v| v.to_string()),
        t.hints.latest.map_or("-".into(), |v| v.to_string()),
    );
    let shown = if t.snapshots.len() > 40 {
        let _ = writeln!(
            out,
            "   ({} snapshots; the newest 40 are listed)",
            t.snapshots.len()
        );
        t.snapshots.get(t.snapshots.len() - 40..).unwrap_or(&[])
    } else {
        &t.snapshots[..]
    };
    for s in shown {
        let ident = if s.commit_identifier == i64::MAX {
            "MAX".to_string()
        } else {
            s.commit_identifier.to_string()
        };
        let _ = writeln!(
            out,
            "   {:>6} {:<9} {:<24} id={:<6} delta={:<6} changelog={}",
            s.id,
            s.kind,
            truncate(&s.commit_user, 24),
            ident,
            s.delta_record_count.map_or("-".into(), |v| v.to_string()),
            s.changelog_record_count
                .map_or("-".into(), |v| v.to_string()),
        );
    }
    for c in &t.consumers {
        let _ = writeln!(
            out,
            "   consumer {:<24} nextSnapshot={:<6} {}",
            c.id,
            c.next_snapshot.map_or("?".into(), |v| v.to_string()),
            c.verdict.as_str()
        );
    }
    for cp in &t.spark_checkpoints {
        let _ = writeln!(
            out,
            "   spark {}  committed batch {}{}  {}  resumes at {}  consumer {}  {}",
            cp.path,
            cp.last_committed_batch
                .map_or("-".into(), |b| b.to_string()),
            match (cp.last_planned_batch, cp.last_committed_batch) {
                (Some(p), Some(c)) if p > c => format!(" (planned {p})"),
                (Some(p), None) => format!(" (planned {p})"),
                _ => String::new(),
            },
            cp.offset
                .map_or("no committed offset".into(), |o| o.describe()),
            cp.resume_snapshot.map_or("-".into(), |r| r.to_string()),
            match (&cp.consumer, cp.consumer_next_snapshot) {
                (Some(c), Some(n)) => format!("{c}={n}"),
                (Some(c), None) => format!("{c}=absent"),
                (None, _) => "none".to_string(),
            },
            cp.verdict.as_str()
        );
    }
    for cp in &t.ray_checkpoints {
        let _ = writeln!(
            out,
            "   ray checkpoint {}  id column {}  {} files  {} ids  {}  paired by {}{}",
            cp.path,
            cp.id_column,
            cp.files,
            cp.ids,
            match &cp.missing_unknown_because {
                Some(_) => format!(
                    "{} not found in the readable files (unknown whether the latest snapshot holds them)",
                    cp.missing
                ),
                None => format!(
                    "{} missing (not in the latest snapshot, nor removed by a later DELETE or OVERWRITE)",
                    cp.missing
                ),
            },
            cp.pairing,
            cp.generation_marker
                .as_deref()
                .map(|m| format!("  marker {m}"))
                .unwrap_or_default()
        );
    }
    if let Some(fence) = t
        .expiration_fence
        .as_ref()
        .filter(|f| f.fences_snapshots && f.snapshots_held > 0)
    {
        let _ = writeln!(
            out,
            "   expiration pinned by consumer {} at snapshot {}: {} snapshot{} held beyond snapshot.num-retained.min{}",
            fence.consumer,
            fence.next_snapshot,
            fence.snapshots_held,
            if fence.snapshots_held == 1 { "" } else { "s" },
            fence
                .time_held_millis
                .map(|ms| format!(", {} of history", format_duration(ms)))
                .unwrap_or_default()
        );
    }
    for f in &t.findings {
        finding(out, f);
    }
}

fn finding(out: &mut String, f: &Finding) {
    let tag = match f.severity {
        Severity::Error => "ERROR",
        Severity::Warning => "WARN ",
        Severity::Info => "info ",
    };
    let _ = writeln!(out, " {tag} [{}] {}", f.code.as_str(), f.message);
    if let Some(i) = &f.impact {
        let _ = writeln!(
            out,
            "        impact: changelog {}, batch view {}",
            i.changelog.as_str(),
            i.batch.as_str()
        );
    }
    for line in f.evidence.iter().take(12) {
        let _ = writeln!(out, "        - {line}");
    }
    if f.evidence.len() > 12 {
        let _ = writeln!(out, "        - … {} more", f.evidence.len() - 12);
    }
    if let Some(rows) = &f.rows {
        rows_lines(out, rows);
    }
    if f.severity > Severity::Info {
        let _ = writeln!(out, "        remedy: {}", f.remedy);
    }
}

/// Row-level evidence: the keys of a lost-changelog finding, or a checkpoint finding's ids.
fn rows_lines(out: &mut String, rows: &serde_json::Value) {
    use super::rows::{ids_summary, lost_key_cells, lost_summary};
    const KEYS: usize = 12;
    if let Some(keys) = rows.get("keys").and_then(serde_json::Value::as_array) {
        let _ = writeln!(out, "        rows: {}", lost_summary(rows));
        for k in keys.iter().take(KEYS) {
            let c = lost_key_cells(k);
            let _ = writeln!(
                out,
                "          {}{} | batch {} | delivered {} | lost {}",
                if c.bucket.is_empty() || c.bucket == "bucket-0" {
                    String::new()
                } else {
                    format!("{} ", c.bucket)
                },
                c.key,
                c.batch,
                c.delivered,
                c.lost
            );
        }
        let omitted = rows
            .get("omitted")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0)
            + keys.len().saturating_sub(KEYS) as u64;
        if omitted > 0 {
            let _ = writeln!(out, "          … {omitted} more keys");
        }
        for n in rows
            .get("notes")
            .and_then(serde_json::Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .take(6)
        {
            let _ = writeln!(out, "          note: {}", super::rows::scalar(n));
        }
    } else if let Some(line) = ids_summary(rows) {
        let _ = writeln!(out, "        rows: {line}");
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
