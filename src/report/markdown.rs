//! The Markdown rendering: ready to paste into a GitHub issue.
//!
//! Layout: the verdict; a findings table; per table a timeline table in the style of Paimon bug
//! reports (snapshot, kind, commit user, identifier, records, changelog records), consumers, and
//! the evidence of each finding in `<details>`; the tool version, the clock and a digest of the
//! input. Everything taken from the artifact (names, paths, users) is escaped so it renders
//! inert. The output stays under GitHub's comment limit: long timelines show the snapshots around
//! the findings and collapse the rest, and per-table lists are capped with a count of what was
//! left out.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::findings::{Finding, Report, Severity, TableReport, Verdict};
use crate::time::{format_duration, format_utc};

/// GitHub's comment limit is 65,536 characters; leave room for a human's words around it.
pub const GITHUB_COMMENT_LIMIT: usize = 60_000;

/// Snapshots shown around each finding when a timeline is long.
const CONTEXT: i64 = 2;
/// Timelines up to this many snapshots are shown whole.
const FULL_TIMELINE: usize = 30;
/// Rows of the evidence `<details>` kept per finding.
const EVIDENCE_LINES: usize = 40;
/// Keys of a row-level table shown per finding (fewer when the report must shrink).
const ROW_KEYS: usize = 20;

/// Renders the report as Markdown, within [`GITHUB_COMMENT_LIMIT`] characters.
pub fn render(report: &Report) -> String {
    for budget in [usize::MAX, 400, 120, 40, 10] {
        let out = render_with(report, budget);
        if out.chars().count() <= GITHUB_COMMENT_LIMIT || budget == 10 {
            return out;
        }
    }
    String::new()
}

fn render_with(report: &Report, rows_per_list: usize) -> String {
    let mut out = String::new();
    let icon = match report.verdict {
        Verdict::Pass => "✅",
        Verdict::Warn => "⚠️",
        Verdict::Fail => "❌",
    };
    let _ = writeln!(
        out,
        "## {icon} Paimon recovery check: **{}**\n",
        report.verdict.as_str().to_uppercase()
    );
    let s = &report.summary;
    let _ = writeln!(
        out,
        "{} · {} table{} · {} error{}, {} warning{}, {} info\n",
        code_span(&report.input.name),
        s.tables,
        plural(s.tables),
        s.errors,
        plural(s.errors),
        s.warnings,
        plural(s.warnings),
        s.infos
    );

    let all: Vec<(Option<&TableReport>, &Finding)> = report
        .all_findings()
        .filter(|(_, f)| f.severity > Severity::Info)
        .collect();
    if all.is_empty() {
        out.push_str("No errors or warnings.\n\n");
    } else {
        out.push_str(
            "| | Finding | Table | Snapshot | Consumer | Message |\n|---|---|---|---|---|---|\n",
        );
        for (i, (table, f)) in all.iter().enumerate() {
            if i >= rows_per_list {
                let _ = writeln!(
                    out,
                    "| | … | | | | {} more findings (see the JSON report) |",
                    all.len() - i
                );
                break;
            }
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} | {} | {} |",
                severity_icon(f.severity),
                f.code.as_str(),
                table.map(table_name).unwrap_or_default(),
                f.snapshot.map(|s| s.to_string()).unwrap_or_default(),
                f.consumer.as_deref().map(cell).unwrap_or_default(),
                cell(&f.message)
            );
        }
        out.push('\n');
    }

    for f in &report.findings {
        finding_details(&mut out, f, rows_per_list);
    }
    for t in &report.tables {
        table_section(&mut out, t, rows_per_list);
    }

    let _ = writeln!(
        out,
        "<sub>{} {} · clock {} ({}) · input {} ({} bytes, {} files) · {} manifests decoded</sub>",
        report.tool.name,
        report.tool.version,
        format_utc(report.clock.now_millis),
        match report.clock.source {
            crate::findings::ClockSource::Given => "given",
            crate::findings::ClockSource::Capture => "capture time",
        },
        code_span(&report.input.digest),
        report.input.size,
        report.input.files,
        report.stats.manifests_decoded,
    );
    out
}

fn table_section(out: &mut String, t: &TableReport, rows_per_list: usize) {
    table_header(out, t);
    if !t.snapshots.is_empty() {
        timeline_table(out, t, rows_per_list);
    }
    if !t.consumers.is_empty() {
        consumers_table(out, t, rows_per_list);
    }
    if !t.spark_checkpoints.is_empty() {
        spark_table(out, t, rows_per_list);
    }
    if !t.ray_checkpoints.is_empty() {
        ray_table(out, t, rows_per_list);
    }
    expiration_fence(out, t);
    for (i, f) in t.findings.iter().enumerate() {
        if i >= rows_per_list {
            let _ = writeln!(
                out,
                "_{} more findings in the JSON report._\n",
                t.findings.len() - i
            );
            break;
        }
        finding_details(out, f, rows_per_list);
    }
}

/// The table's heading and its one-line summary (producer, snapshot range, hints).
fn table_header(out: &mut String, t: &TableReport) {
    let _ = writeln!(out, "### {}\n", table_name(t));
    let producer = super::changelog_producer(t);
    let _ = writeln!(
        out,
        "changelog-producer {} · snapshots {} · hints EARLIEST {} / LATEST {}{}\n",
        code_span(producer),
        match (t.earliest, t.latest) {
            (Some(e), Some(l)) => format!("{e}..{l}"),
            _ => "none".to_string(),
        },
        t.hints
            .earliest
            .map_or("absent".to_string(), |v| v.to_string()),
        t.hints
            .latest
            .map_or("absent".to_string(), |v| v.to_string()),
        t.long_lived_changelogs
            .map(|r| format!(" · long-lived changelog {}..{}", r.first, r.last))
            .unwrap_or_default()
    );
}

/// The snapshot timeline: kinds, identifiers and changelog counts side by side, as the upstream
/// lost-changelog report tabulates them (`paimon-format.md` §8.2). Long timelines show the
/// snapshots around what the findings, consumers and checkpoints point at.
fn timeline_table(out: &mut String, t: &TableReport, rows_per_list: usize) {
    let focus: BTreeSet<i64> = t
        .findings
        .iter()
        .filter(|f| f.severity > Severity::Info)
        .flat_map(|f| {
            f.snapshot
                .into_iter()
                .chain(f.related_snapshots.iter().copied())
        })
        .chain(t.consumers.iter().filter_map(|c| c.next_snapshot))
        .chain(t.spark_checkpoints.iter().filter_map(|c| c.resume_snapshot))
        .collect();
    let show = |id: i64| {
        t.snapshots.len() <= FULL_TIMELINE
            || focus
                .iter()
                .any(|f| id.abs_diff(*f) <= CONTEXT.unsigned_abs())
            || Some(id) == t.latest
            || Some(id) == t.earliest
    };
    let lost: BTreeSet<i64> = t
        .findings
        .iter()
        .filter(|f| f.code == crate::findings::Code::LostChangelog)
        .filter_map(|f| f.snapshot)
        .collect();
    out.push_str(
        "| Snapshot | Kind | Commit user | Identifier | Records (delta) | Changelog records | Time (UTC) |\n\
         |---:|---|---|---:|---:|---:|---|\n",
    );
    let mut skipped = 0u64;
    let mut shown = 0usize;
    for s in &t.snapshots {
        if !show(s.id) || shown >= rows_per_list.max(FULL_TIMELINE) {
            skipped += 1;
            continue;
        }
        if skipped > 0 {
            let _ = writeln!(out, "| … | {skipped} snapshots | | | | | |");
            skipped = 0;
        }
        shown += 1;
        let mark = if lost.contains(&s.id) {
            " ❌ lost changelog"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| {} | {}{} | {} | {} | {} | {} | {} |",
            s.id,
            s.kind,
            mark,
            cell(&s.commit_user),
            identifier(s.commit_identifier),
            opt(s.delta_record_count),
            opt(s.changelog_record_count),
            format_utc(s.time_millis).trim_end_matches(" UTC")
        );
    }
    if skipped > 0 {
        let _ = writeln!(out, "| … | {skipped} snapshots | | | | | |");
    }
    out.push('\n');
}

/// Each consumer's `nextSnapshot` and verdict.
fn consumers_table(out: &mut String, t: &TableReport, rows_per_list: usize) {
    out.push_str("| Consumer | nextSnapshot | Verdict |\n|---|---:|---|\n");
    for (i, c) in t.consumers.iter().enumerate() {
        if i >= rows_per_list {
            let _ = writeln!(out, "| … {} more | | |", t.consumers.len() - i);
            break;
        }
        let _ = writeln!(
            out,
            "| {} | {} | `{}` |",
            cell(&c.id),
            opt(c.next_snapshot),
            c.verdict.as_str()
        );
    }
    out.push('\n');
}

/// Each Spark checkpoint's committed batch, offset, resume point and consumer.
fn spark_table(out: &mut String, t: &TableReport, rows_per_list: usize) {
    out.push_str(
        "| Spark checkpoint | Committed batch | Offset | Resumes at | Consumer | Verdict |\n\
         |---|---:|---|---:|---|---|\n",
    );
    for (i, cp) in t.spark_checkpoints.iter().enumerate() {
        if i >= rows_per_list {
            let _ = writeln!(
                out,
                "| … {} more | | | | | |",
                t.spark_checkpoints.len() - i
            );
            break;
        }
        let planned = match (cp.last_planned_batch, cp.last_committed_batch) {
            (Some(p), Some(c)) if p > c => format!(" (planned {p})"),
            (Some(p), None) => format!(" (planned {p})"),
            _ => String::new(),
        };
        let consumer = match (&cp.consumer, cp.consumer_next_snapshot) {
            (Some(c), Some(n)) => format!("{} = {n}", code_span(c)),
            (Some(c), None) => format!("{} absent", code_span(c)),
            (None, _) => "–".to_string(),
        };
        let expected = cp
            .expected_consumer
            .map(|r| format!(" (may be {}..{})", r.first, r.last))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "| {} | {}{planned} | {} | {} | {consumer}{expected} | `{}` |",
            code_span(&cp.path),
            opt(cp.last_committed_batch),
            cp.offset.map_or("–".to_string(), |o| o.describe()),
            opt(cp.resume_snapshot),
            cp.verdict.as_str()
        );
    }
    out.push('\n');
}

/// Each Ray Data checkpoint's ids and those missing: not in the latest snapshot, nor removed by
/// a later DELETE or OVERWRITE.
fn ray_table(out: &mut String, t: &TableReport, rows_per_list: usize) {
    out.push_str(
        "| Ray Data checkpoint | Id column | Files | Ids | Missing (not removed later) | Paired by |\n\
         |---|---|---:|---:|---:|---|\n",
    );
    for (i, cp) in t.ray_checkpoints.iter().enumerate() {
        if i >= rows_per_list {
            let _ = writeln!(out, "| … {} more | | | | | |", t.ray_checkpoints.len() - i);
            break;
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {}{} |",
            code_span(&cp.path),
            code_span(&cp.id_column),
            cp.files,
            cp.ids,
            match &cp.missing_unknown_because {
                Some(_) => format!("unknown ({} not in the readable files)", cp.missing),
                None => cp.missing.to_string(),
            },
            cp.pairing,
            cp.generation_marker
                .as_deref()
                .map(|m| format!(" · marker {}", code_span(m)))
                .unwrap_or_default()
        );
    }
    out.push('\n');
}

/// The consumer that pins snapshot expiration, when it holds snapshots beyond the minimum.
fn expiration_fence(out: &mut String, t: &TableReport) {
    if let Some(fence) = &t.expiration_fence {
        if fence.fences_snapshots && fence.snapshots_held > 0 {
            let _ = writeln!(
                out,
                "Consumer {} pins snapshot expiration at {}: {} snapshot{} held beyond `snapshot.num-retained.min`{}.\n",
                code_span(&fence.consumer),
                fence.next_snapshot,
                fence.snapshots_held,
                plural(fence.snapshots_held as u64),
                fence
                    .time_held_millis
                    .map(|ms| format!(", {} of history", format_duration(ms)))
                    .unwrap_or_default()
            );
        }
    }
}

fn finding_details(out: &mut String, f: &Finding, rows_per_list: usize) {
    let _ = writeln!(
        out,
        "<details><summary>{} <code>{}</code> {}</summary>\n",
        severity_icon(f.severity),
        f.code.as_str(),
        html(&f.message)
    );
    let mut ids = Vec::new();
    if let Some(s) = f.snapshot {
        ids.push(format!("snapshot {s}"));
    }
    if let Some(c) = &f.consumer {
        ids.push(format!("consumer {}", code_span(c)));
    }
    if let (Some(u), Some(i)) = (&f.commit_user, f.commit_identifier) {
        ids.push(format!("commit {} / {}", code_span(u), identifier(i)));
    }
    if !ids.is_empty() {
        let _ = writeln!(out, "{}\n", ids.join(" · "));
    }
    if let Some(i) = &f.impact {
        let _ = writeln!(
            out,
            "**Impact:** changelog {} · batch view {}\n",
            i.changelog.as_str(),
            i.batch.as_str()
        );
    }
    if !f.evidence.is_empty() {
        out.push_str("Evidence:\n");
        for (i, line) in f.evidence.iter().enumerate() {
            if i >= EVIDENCE_LINES {
                let _ = writeln!(out, "- … {} more lines", f.evidence.len() - i);
                break;
            }
            let _ = writeln!(out, "- {}", inline(line));
        }
        out.push('\n');
    }
    if !f.files.is_empty() {
        out.push_str("Files:\n");
        for (i, file) in f.files.iter().enumerate() {
            if i >= EVIDENCE_LINES {
                let _ = writeln!(out, "- … {} more files", f.files.len() - i);
                break;
            }
            let _ = writeln!(out, "- {}", code_span(file));
        }
        out.push('\n');
    }
    if let Some(rows) = &f.rows {
        rows_section(out, rows, rows_per_list.min(ROW_KEYS));
    }
    let _ = writeln!(out, "**Remedy:** {}\n\n</details>\n", inline(&f.remedy));
}

/// Row-level evidence: the per-key table of a lost-changelog finding (batch value, changelog
/// delivered, changelog lost: the comparison of `paimon-format.md` §8.2) in its own
/// `<details>`, capped with a count of what was left out; the ids of a checkpoint finding.
fn rows_section(out: &mut String, rows: &serde_json::Value, cap: usize) {
    use super::rows::{ids_summary, lost_key_cells, lost_summary};
    if let Some(keys) = rows.get("keys").and_then(serde_json::Value::as_array) {
        let _ = writeln!(
            out,
            "<details><summary>Rows: {}</summary>\n",
            html(&lost_summary(rows))
        );
        let cells: Vec<_> = keys.iter().map(lost_key_cells).collect();
        let buckets = cells
            .iter()
            .any(|c| cells.first().is_some_and(|f| f.bucket != c.bucket));
        if cells.is_empty() {
            // No table: the summary says why there are no keys.
        } else if buckets {
            out.push_str("| Bucket | Key | Batch value now | Changelog delivered | Changelog lost |\n|---|---|---|---|---|\n");
        } else {
            out.push_str("| Key | Batch value now | Changelog delivered | Changelog lost |\n|---|---|---|---|\n");
        }
        for c in cells.iter().take(cap) {
            if buckets {
                let _ = write!(out, "| {} ", cell(&c.bucket));
            }
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                cell(&c.key),
                cell(&c.batch),
                cell(&c.delivered),
                cell(&c.lost)
            );
        }
        let omitted = rows
            .get("omitted")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0)
            + cells.len().saturating_sub(cap) as u64;
        if omitted > 0 {
            let _ = writeln!(
                out,
                "\n_{omitted} more key{} left out (the JSON report lists up to {})._",
                plural(omitted),
                crate::rows::MAX_KEYS
            );
        }
        out.push('\n');
        if let Some(notes) = rows.get("notes").and_then(serde_json::Value::as_array) {
            for n in notes.iter().take(EVIDENCE_LINES) {
                let _ = writeln!(out, "- {}", inline(&super::rows::scalar(n)));
            }
            if !notes.is_empty() {
                out.push('\n');
            }
        }
        out.push_str("</details>\n\n");
    } else if let Some(line) = ids_summary(rows) {
        let _ = writeln!(out, "**Rows:** {}\n", inline(&line));
    }
}

fn table_name(t: &TableReport) -> String {
    let path = if t.path.is_empty() { "(root)" } else { &t.path };
    if t.branch == "main" {
        code_span(path)
    } else {
        format!("{} branch {}", code_span(path), code_span(&t.branch))
    }
}

fn severity_icon(s: Severity) -> &'static str {
    match s {
        Severity::Error => "❌",
        Severity::Warning => "⚠️",
        Severity::Info => "ℹ️",
    }
}

fn identifier(i: i64) -> String {
    if i == i64::MAX {
        "MAX (batch/end of input)".to_string()
    } else {
        i.to_string()
    }
}

fn opt(v: Option<i64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "–".to_string())
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Escapes text for HTML contexts (inside `<details>`/`<summary>`).
fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for a Markdown line: HTML escaped and Markdown punctuation neutralised.
fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in html(s).chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for a table cell.
fn cell(s: &str) -> String {
    inline(s)
}

/// Wraps text in a code span that its own backticks cannot close. Inside a code span Markdown
/// and HTML are literal, so the text renders inert; `|` is escaped for table cells.
fn code_span(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .replace('|', "\\|");
    let longest_run = cleaned.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    let pad = if cleaned.starts_with('`') || cleaned.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{cleaned}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_are_inert() {
        assert_eq!(html("<script>x</script>"), "&lt;script&gt;x&lt;/script&gt;");
        assert_eq!(inline("a|b*c_[x](y)"), "a\\|b\\*c\\_\\[x\\](y)");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("x|y"), "`x\\|y`");
        assert_eq!(code_span("<img src=x>"), "`<img src=x>`");
    }
}
