//! The whole analysis of one artifact, as a pipeline: discover the tables, load their timelines
//! and file graphs, load the engine checkpoints beside them, judge, gather row evidence (and
//! judge what rests on it), assemble the report.
//!
//! [`clock`] establishes the report's clock; `assemble` builds each table's report from what its
//! timeline shows and what the checks judged; `evidence` reads the rows findings quote.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod assemble;
pub(crate) mod clock;
mod evidence;

use crate::checks::{self, TableJudgement};
use crate::detail::{snapshot_detail, SnapshotDetail};
use crate::findings::{Clock, Code, Finding, Report};
use crate::limits::Limits;
use crate::rows::live::TableRef;
use crate::source::Artifact;
use crate::timeline::files::{resolve_root, ManifestStore, RootFiles};
use crate::timeline::groups::{commit_groups, CommitGroup};
use crate::timeline::prefetch::Prefetch;
use crate::timeline::Timeline;
use crate::warehouse::{discover, Discovery};
use crate::{ray, spark};

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
    /// are paired only where the artifact makes it unambiguous (see [`crate::spark::pair`]).
    pub spark_pairings: Vec<crate::spark::SparkPairing>,
    /// The user's pairings of Ray Data checkpoints with tables
    /// (`--ray-checkpoint <dir>=<table path>[#<id column>]`); checkpoints not named here are
    /// paired only where the artifact makes it unambiguous (see [`crate::ray::load`]).
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
    // Discover the tables; load their timelines and, per table root, their file graph.
    let discovery = discover(artifact);
    let timelines = load_timelines(artifact, &discovery, progress);
    let clock = clock::establish(artifact, &timelines, options.now_millis);
    let roots = load_file_graphs(artifact, &mut store, &timelines, progress);
    // Every table and branch, in report order.
    let tables: Vec<&Timeline> = roots
        .iter()
        .flat_map(|r| r.timelines.iter().copied())
        .collect();
    let total = tables.len() as u64;
    progress(&Progress {
        phase: Phase::Checks,
        done: 0,
        total,
    });

    // Load the engine checkpoints beside the warehouse, paired with their tables.
    let spark = spark::load(artifact, &tables, &options.spark_pairings);
    let ray = (!options.skip_rows).then(|| ray::load(artifact, &tables, &options.ray_pairings));

    let (mut judged, mut findings) = judge(
        artifact,
        &discovery,
        &roots,
        &tables,
        &spark,
        ray.as_ref(),
        &clock,
    );
    if !options.skip_rows {
        gather_evidence(artifact, &roots, ray.as_ref(), &mut judged, &clock);
    }
    unconfirm_salvaged(artifact, &roots, &mut judged, &mut findings);
    let manifests = (store.decoded, store.hits);
    let report = assemble::report(artifact, &roots, judged, findings, clock, manifests);
    progress(&Progress {
        phase: Phase::Checks,
        done: total,
        total,
    });
    let roots: BTreeMap<String, RootFiles> = roots
        .into_iter()
        .map(|r| (r.path.to_string(), r.files))
        .collect();
    Analysis {
        report,
        timelines,
        roots,
    }
}

/// Runs every check: the table checks per table (in report order), the artifact-level ones,
/// and the engine checkpoint checks that need no row evidence.
fn judge(
    artifact: &Artifact,
    discovery: &Discovery,
    roots: &[Root<'_>],
    tables: &[&Timeline],
    spark: &spark::load::SparkCheckpoints,
    ray: Option<&ray::load::RayCheckpoints>,
    clock: &Clock,
) -> (Vec<Judged>, Vec<Finding>) {
    let mut judged = judge_tables(roots, clock);
    let mut findings: Vec<Finding> = artifact
        .problems()
        .iter()
        .map(checks::integrity::unreadable_artifact_part)
        .collect();
    findings.extend(
        artifact
            .salvaged()
            .iter()
            .map(|s| checks::integrity::salvaged_zip(s, artifact.name())),
    );
    let spark = checks::spark::judge(spark, tables);
    findings.extend(spark.artifact);
    for (i, s) in spark.tables {
        if let Some(j) = judged.get_mut(i) {
            j.engines.spark_checkpoints = s.checkpoints;
            j.engines.findings.extend(s.findings);
        }
    }
    if let Some(ray) = ray {
        findings.extend(checks::ray::unpaired(ray, tables));
    }
    findings.extend(checks::integrity::no_table(discovery));
    (judged, findings)
}

/// Where a salvaged zip lacks entries it held, the findings of the tables in it (and the
/// artifact's own) say only what the artifact shows ([`checks::integrity::unconfirmed`]), and
/// so do their consumers' and Spark checkpoints' verdicts (`unknown`: [`checks::consumers::unconfirmed`],
/// [`checks::spark::unconfirmed`]).
fn unconfirm_salvaged(
    artifact: &Artifact,
    roots: &[Root<'_>],
    judged: &mut [Judged],
    findings: &mut Vec<Finding>,
) {
    let name = artifact.name();
    let cut: Vec<_> = artifact.salvaged().iter().filter(|s| !s.whole).collect();
    let Some(first) = cut.first() else {
        return;
    };
    let paths = roots
        .iter()
        .flat_map(|r| r.timelines.iter().map(move |_| r.path));
    for (j, path) in judged.iter_mut().zip(paths) {
        if let Some(s) = cut.iter().find(|s| s.covers(path)) {
            checks::integrity::unconfirmed(&mut j.core.findings, s, name);
            checks::integrity::unconfirmed(&mut j.engines.findings, s, name);
            checks::consumers::unconfirmed(&mut j.core.consumers);
            checks::spark::unconfirmed(&mut j.engines.spark_checkpoints);
        }
    }
    checks::integrity::unconfirmed(findings, first, name);
}

/// Reads the rows findings quote, and judges what rests on rows (the Ray Data checks).
fn gather_evidence(
    artifact: &Artifact,
    roots: &[Root<'_>],
    ray: Option<&ray::load::RayCheckpoints>,
    judged: &mut [Judged],
    clock: &Clock,
) {
    let refs: Vec<Option<TableRef<'_>>> = roots
        .iter()
        .flat_map(|r| r.timelines.iter().map(|t| table_ref(artifact, t, &r.files)))
        .collect();
    evidence::lost_changelog_rows(&refs, judged);
    if let Some(ray) = ray {
        evidence::ray_rows(ray, &refs, judged, clock);
    }
}

/// Loads the timeline of every table and branch discovered.
fn load_timelines(
    artifact: &Artifact,
    discovery: &Discovery,
    progress: &mut dyn FnMut(&Progress),
) -> Vec<Timeline> {
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
    timelines
}

/// One table root: its timelines (main and branches, which share data files and manifests)
/// and their file graph.
struct Root<'a> {
    path: &'a str,
    timelines: Vec<&'a Timeline>,
    files: RootFiles,
}

/// Resolves the manifests of every table root into its file graph, roots in path order.
fn load_file_graphs<'a>(
    artifact: &Artifact,
    store: &mut ManifestStore<'_>,
    timelines: &'a [Timeline],
    progress: &mut dyn FnMut(&Progress),
) -> Vec<Root<'a>> {
    let mut by_root: BTreeMap<&str, Vec<&Timeline>> = BTreeMap::new();
    for t in timelines {
        by_root.entry(t.location.root.as_str()).or_default().push(t);
    }
    let mut roots = Vec::with_capacity(by_root.len());
    let mut done = 0u64;
    let snapshot_total: u64 = timelines.iter().map(|t| t.snapshots.len() as u64).sum();
    for (path, tls) in by_root {
        let files = resolve_root(artifact, store, path, &tls, &mut || {
            done += 1;
            if done.is_multiple_of(64) {
                progress(&Progress {
                    phase: Phase::Manifests,
                    done,
                    total: snapshot_total,
                });
            }
        });
        roots.push(Root {
            path,
            timelines: tls,
            files,
        });
    }
    // Every root's rows index the descriptions the store interned: hand them over.
    let files = std::rc::Rc::new(store.take_files());
    for r in &mut roots {
        r.files.set_catalog(&files);
    }
    progress(&Progress {
        phase: Phase::Manifests,
        done: snapshot_total,
        total: snapshot_total,
    });
    roots
}

/// One table's part of the report before it is assembled: its commit groups, what the table
/// checks judged, and what the engine checkpoint checks added.
struct Judged {
    groups: Vec<CommitGroup>,
    core: TableJudgement,
    engines: assemble::Engines,
}

/// Runs the table checks over every table root; one entry per table, in report order.
fn judge_tables(roots: &[Root<'_>], clock: &Clock) -> Vec<Judged> {
    let mut judged = Vec::new();
    for r in roots {
        let groups: Vec<Vec<CommitGroup>> = r.timelines.iter().map(|t| commit_groups(t)).collect();
        let core = checks::judge_root(&r.timelines, &groups, &r.files, clock);
        judged.extend(groups.into_iter().zip(core).map(|(groups, core)| Judged {
            groups,
            core,
            engines: assemble::Engines::default(),
        }));
    }
    judged
}

/// What the row readers need of one table.
fn table_ref<'a>(
    artifact: &'a Artifact,
    t: &'a Timeline,
    root: &'a RootFiles,
) -> Option<TableRef<'a>> {
    Some(TableRef {
        artifact,
        timeline: t,
        root,
        branch: root.branches.get(&t.location.branch)?,
    })
}
