//! The whole analysis of one artifact: discovery, timelines, checks, report.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod assemble;

use crate::checks;
use crate::detail::{snapshot_detail, SnapshotDetail};
use crate::findings::{
    Code, InputInfo, ReadStats, Report, Summary, TableReport, Tool, Verdict, REPORT_SCHEMA,
};
use crate::limits::Limits;
use crate::source::Artifact;
use crate::timeline::files::{resolve_root, ManifestStore, RootFiles};
use crate::timeline::groups::{commit_groups, CommitGroup};
use crate::timeline::prefetch::Prefetch;
use crate::timeline::Timeline;
use crate::warehouse::discover;

/// How to analyse.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalysisOptions {
    /// The clock for age-based findings, epoch ms. `None` means the artifact's capture time:
    /// the newest time recorded in it (snapshot commit times, file modification times), because
    /// an artifact is usually examined long after it was captured.
    pub now_millis: Option<i64>,
    /// Resource limits.
    pub limits: Limits,
    /// The user's pairings of Spark checkpoints with tables and consumers
    /// (`--spark-checkpoint <dir>=<table path>[#<consumer id>]`); checkpoints not named here
    /// are paired only where the artifact makes it unambiguous (see [`checks::spark`]).
    pub spark_pairings: Vec<crate::spark::SparkPairing>,
    /// The user's pairings of Ray Data checkpoints with tables
    /// (`--ray-checkpoint <dir>=<table path>[#<id column>]`); checkpoints not named here are
    /// paired only where the artifact makes it unambiguous (see [`checks::ray`]).
    pub ray_pairings: Vec<crate::ray::RayPairing>,
    /// Skip row-level evidence (reading data and changelog files): no `rows` on findings, no
    /// Ray Data checkpoint checks. The page sets it and asks for rows on demand
    /// ([`Analysis::lost_changelog_rows`]).
    pub skip_rows: bool,
}

/// A phase of the analysis, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Reading the archive's directory (done by the host before [`analyze`]).
    Listing,
    /// Reading snapshots, schemas, hints, consumers, tags.
    Snapshots,
    /// Decoding manifest lists and manifests.
    Manifests,
    /// Running the checks.
    Checks,
}

/// Progress of a running analysis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The phase.
    pub phase: Phase,
    /// Units done in this phase (tables, manifests).
    pub done: u64,
    /// Units in this phase, if known (0 if not).
    pub total: u64,
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.phase {
            Phase::Listing => "reading the archive directory",
            Phase::Snapshots => "reading snapshots",
            Phase::Manifests => "decoding manifests",
            Phase::Checks => "running checks",
        };
        if self.total > 0 {
            write!(f, "{what} ({}/{})", self.done, self.total)
        } else {
            write!(f, "{what} ({})", self.done)
        }
    }
}

/// A finished analysis: the report, and what it was built from, for questions the report does
/// not answer in full (a snapshot's files, asked for by the page's detail panel).
pub struct Analysis {
    /// The report.
    pub report: Report,
    timelines: Vec<Timeline>,
    roots: BTreeMap<String, RootFiles>,
}

impl Analysis {
    /// The detail of one snapshot of the table at `path` (as in the report), branch `branch`.
    pub fn snapshot_detail(&self, path: &str, branch: &str, id: i64) -> Option<SnapshotDetail> {
        let t = self
            .timelines
            .iter()
            .find(|t| t.location.root == path && t.location.branch == branch)?;
        let files = self.roots.get(path).and_then(|r| r.branches.get(branch));
        snapshot_detail(t, files, id)
    }

    /// Every snapshot, tag and long-lived changelog of the table root `path` (all branches)
    /// that references the file `name`, resolving what the analysis did not keep from
    /// `artifact` (the artifact the analysis ran on). `None` if there is no such table.
    pub fn file_references(
        &self,
        artifact: &Artifact,
        path: &str,
        name: &str,
    ) -> Option<crate::references::FileReferences> {
        let root = self.roots.get(path)?;
        let timelines: Vec<&Timeline> = self
            .timelines
            .iter()
            .filter(|t| t.location.root == path)
            .collect();
        Some(crate::references::file_references(
            artifact, &timelines, root, path, name,
        ))
    }

    /// The row-level evidence of the lost-changelog finding about snapshot `snapshot` of the
    /// table at `path`, branch `branch` (the same value as the finding's `rows` in a report
    /// built without [`AnalysisOptions::skip_rows`]). Reads the Parquet files it needs from
    /// `artifact`, which must be the artifact the analysis ran on. `None` when there is no such
    /// finding or it names no changelog file.
    pub fn lost_changelog_rows(
        &self,
        artifact: &Artifact,
        path: &str,
        branch: &str,
        snapshot: i64,
    ) -> Option<serde_json::Value> {
        let table = self
            .report
            .tables
            .iter()
            .find(|t| t.path == path && t.branch == branch)?;
        let finding = table
            .findings
            .iter()
            .find(|f| f.code == Code::LostChangelog && f.snapshot == Some(snapshot))?;
        let t = self
            .timelines
            .iter()
            .find(|t| t.location.root == path && t.location.branch == branch)?;
        let root = self.roots.get(path)?;
        let files = root.branches.get(branch)?;
        let table_ref = crate::rows::live::TableRef {
            artifact,
            timeline: t,
            root,
            branch: files,
        };
        crate::rows::lost::lost_changelog_rows(&table_ref, snapshot, &finding.files)
    }
}

/// Fills `rows` on every lost-changelog finding (row-level evidence).
fn fill_lost_changelog_rows(
    artifact: &Artifact,
    timelines: &[Timeline],
    roots: &BTreeMap<String, RootFiles>,
    tables: &mut [TableReport],
) {
    for table in tables.iter_mut() {
        let Some(t) = timelines
            .iter()
            .find(|t| t.location.root == table.path && t.location.branch == table.branch)
        else {
            continue;
        };
        let Some(root) = roots.get(&table.path) else {
            continue;
        };
        let Some(branch) = root.branches.get(&table.branch) else {
            continue;
        };
        let table_ref = crate::rows::live::TableRef {
            artifact,
            timeline: t,
            root,
            branch,
        };
        for f in table.findings.iter_mut() {
            if f.code != Code::LostChangelog {
                continue;
            }
            if let Some(snapshot) = f.snapshot {
                f.rows = crate::rows::lost::lost_changelog_rows(&table_ref, snapshot, &f.files);
            }
        }
    }
}

/// Analyses an opened artifact. Never fails: unreadable parts become findings.
pub fn analyze(
    artifact: &Artifact,
    options: &AnalysisOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Report {
    run(artifact, options, progress).report
}

/// [`analyze`], taking manifest lists and manifests that `prefetch` decoded ahead on other
/// threads (the CLI's [`crate::timeline::prefetch::ThreadedPrefetch`]). The report is the same,
/// byte for byte, counters included.
pub fn analyze_prefetched(
    artifact: &Artifact,
    options: &AnalysisOptions,
    prefetch: &dyn Prefetch,
    progress: &mut dyn FnMut(&Progress),
) -> Report {
    run_with(
        artifact,
        options,
        ManifestStore::with_prefetch(prefetch),
        progress,
    )
    .report
}

/// Analyses an opened artifact and keeps what the report was built from.
pub fn run(
    artifact: &Artifact,
    options: &AnalysisOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Analysis {
    run_with(artifact, options, ManifestStore::new(), progress)
}

fn run_with(
    artifact: &Artifact,
    options: &AnalysisOptions,
    mut store: ManifestStore<'_>,
    progress: &mut dyn FnMut(&Progress),
) -> Analysis {
    let discovery = discover(artifact);
    let total = discovery.tables.len() as u64;
    let mut timelines = Vec::with_capacity(discovery.tables.len());
    for (i, location) in discovery.tables.iter().enumerate() {
        progress(&Progress {
            phase: Phase::Snapshots,
            done: i as u64,
            total,
        });
        timelines.push(Timeline::load(artifact, location));
    }
    progress(&Progress {
        phase: Phase::Snapshots,
        done: total,
        total,
    });

    let clock = checks::clock::establish(artifact, &timelines, options.now_millis);

    // Timelines sharing a table root (main and branches) share data files and manifests.
    let mut roots: BTreeMap<&str, Vec<&Timeline>> = BTreeMap::new();
    for t in &timelines {
        roots.entry(t.location.root.as_str()).or_default().push(t);
    }
    let mut resolved = Vec::with_capacity(roots.len());
    let mut done = 0u64;
    let snapshot_total: u64 = timelines.iter().map(|t| t.snapshots.len() as u64).sum();
    for (root, tls) in &roots {
        let files = resolve_root(artifact, &mut store, root, tls, &mut || {
            done += 1;
            if done.is_multiple_of(64) {
                progress(&Progress {
                    phase: Phase::Manifests,
                    done,
                    total: snapshot_total,
                });
            }
        });
        resolved.push((*root, tls, files));
    }
    progress(&Progress {
        phase: Phase::Manifests,
        done: snapshot_total,
        total: snapshot_total,
    });

    progress(&Progress {
        phase: Phase::Checks,
        done: 0,
        total,
    });
    let mut tables = Vec::with_capacity(timelines.len());
    for (_, tls, files) in &resolved {
        let groups: Vec<Vec<CommitGroup>> = tls.iter().map(|t| commit_groups(t)).collect();
        let judged = checks::judge_root(tls, &groups, files, &clock);
        for ((t, groups), judged) in tls.iter().zip(&groups).zip(judged) {
            let branch = files.branches.get(&t.location.branch);
            tables.push(assemble::table_report(t, groups, branch, judged));
        }
    }
    let roots: BTreeMap<String, RootFiles> = resolved
        .into_iter()
        .map(|(root, _, files)| (root.to_string(), files))
        .collect();

    if !options.skip_rows {
        fill_lost_changelog_rows(artifact, &timelines, &roots, &mut tables);
    }

    let mut findings = Vec::new();
    for problem in artifact.problems() {
        findings.push(checks::integrity::unreadable_artifact_part(problem));
    }
    checks::spark::apply(
        artifact,
        &timelines,
        &mut tables,
        &mut findings,
        &options.spark_pairings,
    );
    if !options.skip_rows {
        checks::ray::apply(
            artifact,
            &timelines,
            &roots,
            &mut tables,
            &mut findings,
            &options.ray_pairings,
            &clock,
        );
    }
    findings.extend(checks::integrity::no_table(&discovery));

    let source = artifact.stats();
    let mut report = Report {
        schema: REPORT_SCHEMA.to_string(),
        tool: Tool::default(),
        input: InputInfo {
            name: artifact.name().to_string(),
            size: artifact.size(),
            files: artifact.files().len() as u64,
            digest: checks::clock::artifact_digest(artifact),
        },
        clock,
        verdict: Verdict::Pass,
        summary: Summary::default(),
        tables,
        findings,
        stats: ReadStats {
            files_listed: source.files_listed,
            files_read: source.files_read,
            bytes_inflated: source.bytes_inflated,
            manifests_decoded: store.decoded,
            manifest_cache_hits: store.hits,
        },
    };
    report.finish();
    progress(&Progress {
        phase: Phase::Checks,
        done: total,
        total,
    });
    Analysis {
        report,
        timelines,
        roots,
    }
}
