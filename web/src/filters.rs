//! Which findings the report view shows, and how it groups them (plain logic, tested natively).

use std::collections::{BTreeMap, BTreeSet};

use prv::report::model::{Code, Finding, Report, Severity};

/// The severities, most serious first.
pub const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

/// The user's filter: the severities and codes to hide (empty = show everything).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Severities hidden.
    pub hidden_severities: BTreeSet<&'static str>,
    /// Codes hidden.
    pub hidden_codes: BTreeSet<String>,
}

impl Filter {
    /// Whether `finding` is shown.
    pub fn shows(&self, finding: &Finding) -> bool {
        !self.hidden_severities.contains(finding.severity.as_str())
            && !self.hidden_codes.contains(finding.code.as_str())
    }

    /// Whether severity `s` is shown.
    pub fn shows_severity(&self, s: Severity) -> bool {
        !self.hidden_severities.contains(s.as_str())
    }

    /// Whether code `c` is shown.
    pub fn shows_code(&self, c: &str) -> bool {
        !self.hidden_codes.contains(c)
    }

    /// The filter with severity `s` shown or hidden.
    pub fn toggle_severity(&self, s: Severity) -> Filter {
        let mut f = self.clone();
        if !f.hidden_severities.remove(s.as_str()) {
            f.hidden_severities.insert(s.as_str());
        }
        f
    }

    /// The filter with code `c` shown or hidden.
    pub fn toggle_code(&self, c: &str) -> Filter {
        let mut f = self.clone();
        if !f.hidden_codes.remove(c) {
            f.hidden_codes.insert(c.to_string());
        }
        f
    }

    /// Whether anything is hidden.
    pub fn is_active(&self) -> bool {
        !self.hidden_severities.is_empty() || !self.hidden_codes.is_empty()
    }
}

/// Every code in the report with its count and most serious severity, most serious first, then
/// by code.
pub fn code_counts(report: &Report) -> Vec<(Code, Severity, usize)> {
    let mut counts: BTreeMap<&'static str, (Code, Severity, usize)> = BTreeMap::new();
    for (_, f) in report.all_findings() {
        let e = counts
            .entry(f.code.as_str())
            .or_insert((f.code, f.severity, 0));
        e.2 += 1;
        if f.severity > e.1 {
            e.1 = f.severity;
        }
    }
    let mut out: Vec<_> = counts.into_values().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.as_str().cmp(b.0.as_str())));
    out
}

/// Counts of findings per severity in the whole report: `(error, warning, info)`.
pub fn severity_counts(report: &Report) -> [usize; 3] {
    let mut out = [0; 3];
    for (_, f) in report.all_findings() {
        if let Some(i) = SEVERITIES.iter().position(|s| *s == f.severity) {
            out[i] += 1;
        }
    }
    out
}

/// The findings `filter` shows, grouped by severity (most serious first; empty groups left out),
/// each group in the report's order. Items are indexes into `findings`.
pub fn grouped(findings: &[Finding], filter: &Filter) -> Vec<(Severity, Vec<usize>)> {
    SEVERITIES
        .iter()
        .filter_map(|&s| {
            let items: Vec<usize> = findings
                .iter()
                .enumerate()
                .filter(|(_, f)| f.severity == s && filter.shows(f))
                .map(|(i, _)| i)
                .collect();
            (!items.is_empty()).then_some((s, items))
        })
        .collect()
}

/// The artifact paths that could not be read, from the report's `unreadable-file` and
/// `artifact-incomplete` findings (artifact-level files as given, table files under their
/// table's path), sorted and deduplicated.
pub fn unread_files(report: &Report) -> Vec<String> {
    let mut out = BTreeSet::new();
    for (table, f) in report.all_findings() {
        if !matches!(f.code, Code::UnreadableFile | Code::ArtifactIncomplete) {
            continue;
        }
        for file in &f.files {
            out.insert(match table {
                Some(t) if !t.path.is_empty() => format!("{}/{file}", t.path),
                _ => file.clone(),
            });
        }
    }
    out.into_iter().collect()
}

/// The id of the element of a finding, for links to it: `finding-<table index or a>-<index>`.
pub fn finding_anchor(table: Option<usize>, index: usize) -> String {
    match table {
        Some(t) => format!("finding-{t}-{index}"),
        None => format!("finding-a-{index}"),
    }
}

/// The snapshots a finding is about: its snapshot, then its related snapshots.
pub fn finding_snapshots(f: &Finding) -> Vec<i64> {
    let mut out: Vec<i64> = f.snapshot.into_iter().collect();
    for s in &f.related_snapshots {
        if !out.contains(s) {
            out.push(*s);
        }
    }
    out
}

/// A file name for an export of the report on `input`: `<input without .zip>.prv.<ext>`.
pub fn export_name(input: &str, ext: &str) -> String {
    let base = input
        .rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or("report");
    let base = base.strip_suffix(".zip").unwrap_or(base);
    let base: String = base
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = if base.is_empty() {
        "report".to_string()
    } else {
        base
    };
    format!("{base}.prv.{ext}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(code: Code, severity: Severity) -> Finding {
        Finding::new(code, severity, "m", "r")
    }

    #[test]
    fn filters_hide_by_severity_and_code() {
        let f = Filter::default();
        let lost = finding(Code::LostChangelog, Severity::Error);
        let risky = finding(Code::RiskyOptions, Severity::Warning);
        assert!(f.shows(&lost) && f.shows(&risky) && !f.is_active());
        let f = f.toggle_severity(Severity::Warning);
        assert!(f.shows(&lost) && !f.shows(&risky) && f.is_active());
        let f = f.toggle_code("lost-changelog");
        assert!(!f.shows(&lost));
        let f = f
            .toggle_code("lost-changelog")
            .toggle_severity(Severity::Warning);
        assert_eq!(f, Filter::default());
    }

    #[test]
    fn groups_by_severity_in_order() {
        let findings = vec![
            finding(Code::RiskyOptions, Severity::Warning),
            finding(Code::LostChangelog, Severity::Error),
            finding(Code::OrphanFile, Severity::Info),
            finding(Code::ConsumerStale, Severity::Warning),
        ];
        let g = grouped(&findings, &Filter::default());
        assert_eq!(
            g,
            vec![
                (Severity::Error, vec![1]),
                (Severity::Warning, vec![0, 3]),
                (Severity::Info, vec![2])
            ]
        );
        let g = grouped(&findings, &Filter::default().toggle_code("risky-options"));
        assert_eq!(g[1], (Severity::Warning, vec![3]));
        let g = grouped(
            &findings,
            &Filter::default().toggle_severity(Severity::Error),
        );
        assert_eq!(g.len(), 2);
    }

    #[test]
    fn export_names_follow_the_input() {
        assert_eq!(export_name("java09_d.zip", "json"), "java09_d.prv.json");
        assert_eq!(export_name("wh/", "md"), "wh.prv.md");
        assert_eq!(export_name("a.zip + b.zip", "md"), "a.zip___b.prv.md");
        assert_eq!(export_name("", "json"), "report.prv.json");
    }

    #[test]
    fn finding_snapshots_start_with_the_main_one() {
        let mut f = finding(Code::LostChangelog, Severity::Error).snapshot(7);
        f.related_snapshots = vec![7, 9];
        assert_eq!(finding_snapshots(&f), vec![7, 9]);
        assert_eq!(finding_anchor(Some(2), 3), "finding-2-3");
        assert_eq!(finding_anchor(None, 0), "finding-a-0");
    }
}
