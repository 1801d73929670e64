//! Spark checkpoints: can a Spark Structured Streaming query on Paimon recover safely?
//!
//! A query keeps two recovery positions: Spark's checkpoint (exact, per micro-batch: `offsets/N`
//! then `commits/N`) and Paimon's consumer (conservative, per snapshot). The behaviour these
//! checks rest on (`paimon-format.md` §5.5, §7.1; Paimon's Spark documentation, §8.1):
//!
//! * A batch covers `(start, end]` of `(snapshotId, index)` positions; on restart Spark resumes
//!   after the last committed batch's end offset and replays a planned, uncommitted batch with
//!   the same offsets.
//! * Paimon master updates the consumer only from Spark's source commit callback: past a
//!   snapshot (`snapshotId + 1`) once the batch holding its last split is committed
//!   (`index + 1 = totalSplits`), at the snapshot when a delta snapshot is partly read; it
//!   leaves the consumer unchanged for offsets without `totalSplits` (older checkpoints) and
//!   creates none during an unfinished initial full scan.
//! * Spark runs batch N's commit callback when it plans batch N+1 (the real Spark runs in
//!   `tests/fixtures/spark/*.log` show it), so a consumer one batch behind the last committed
//!   batch is normal and no finding.
//! * A checkpointed start offset below the earliest readable snapshot makes Paimon master fall
//!   back to the initial offset with a warning, and fail when that would switch a logged batch
//!   between a full and an incremental scan.
//!
//! The question each finding answers:
//!
//! * `spark-offset-expired` — does a restart need snapshots that are gone (the last committed
//!   batch resumes below the earliest readable snapshot or long-lived changelog)?
//! * `spark-batch-uncommitted` — did the query stop inside a batch (offsets/N without
//!   commits/N), so that a restart replays it?
//! * `consumer-ahead-of-checkpoint` — has the consumer moved past data this query never
//!   committed (it no longer fences it, and a restart without the checkpoint skips it)?
//! * `consumer-behind-checkpoint` — is the consumer more than one batch behind the committed
//!   progress (or missing), so Paimon does not record the query's progress?
//! * `spark-offset-legacy` — do the offsets lack completion metadata, so the consumer is left
//!   unchanged?
//! * `spark-initial-scan-unfenced` — is an initial full scan in progress with no consumer
//!   fencing its snapshot from expiration?
//! * `spark-consumer-shared` — do several checkpoints use one consumer (unsupported: the faster
//!   query moves the position past data the slower one needs)?
//! * `spark-checkpoint-unpaired` — could the checkpoint not be paired with a table or consumer
//!   without guessing?
//! * `spark-position-unknown` — is an `offsets/N` or `commits/N` file the judgement rests on
//!   (the last committed batch's, the one before it) unreadable, so that the position and the
//!   consumer comparison are unknown? Then the verdict says `unknown`, never `safe`, and a
//!   damaged offsets file is never taken for another source.
//!
//! The checkpoints were read and paired with their tables before ([`crate::spark::load`], the
//! pairing rules in [`crate::spark::pair`]); these checks only judge what was loaded. A
//! checkpoint that could not be paired gets an artifact-level `spark-checkpoint-unpaired`.
//! Files in these findings are artifact paths (a checkpoint lives outside the table).

use std::collections::BTreeMap;

use super::{snapshots, snapshots_are};
use crate::findings::{
    Code, Finding, IdRange, Severity, SparkCheckpointReport, SparkCheckpointVerdict,
};
use crate::pairing::table_path;
use crate::spark::load::{LoadedCheckpoint, PaimonSource, Positions, SparkCheckpoints};
use crate::spark::pair::{list, shown, Paired, SparkPairingKind};
use crate::spark::{Checkpoint, SparkPairing};
use crate::timeline::{ConsumerFile, Timeline};

/// What the Spark checks found about the tables: each paired checkpoint's report and
/// findings, by the index of its table.
#[derive(Debug, Default)]
pub struct TableSpark {
    /// The reports of the checkpoints paired with the table, in checkpoint path order.
    pub checkpoints: Vec<SparkCheckpointReport>,
    /// Their findings, checkpoint by checkpoint.
    pub findings: Vec<Finding>,
}

/// What the Spark checks found.
#[derive(Debug, Default)]
pub struct SparkJudgement {
    /// By table (the index into the tables the checkpoints were paired against).
    pub tables: BTreeMap<usize, TableSpark>,
    /// Findings about the artifact: unpaired checkpoints, unreadable checkpoint files,
    /// pairings that name nothing.
    pub artifact: Vec<Finding>,
}

/// Makes the verdicts of `reports`, judged on a listing that lacks entries (a zip cut short:
/// [`super::integrity::unconfirmed`]), say what the artifact shows: a checkpoint's position
/// against the table and its consumer rests on which snapshots and files exist, and they may lie
/// past the cut, so each verdict becomes `unknown` but `legacy` and `shared`, which rest on the
/// checkpoints' own bytes.
pub fn unconfirmed(reports: &mut [SparkCheckpointReport]) {
    use SparkCheckpointVerdict as V;
    for r in reports {
        r.verdicts
            .retain(|v| matches!(v, V::Legacy | V::Shared | V::Unknown));
        if !r.verdicts.contains(&V::Unknown) {
            r.verdicts.insert(0, V::Unknown);
        }
        r.verdicts.sort_by(|a, b| b.cmp(a));
        r.verdict = r.verdicts.first().copied().unwrap_or(V::Unknown);
    }
}

/// Judges every loaded Spark checkpoint; `tables` are the tables they were paired against.
pub fn judge(loaded: &SparkCheckpoints, tables: &[&Timeline]) -> SparkJudgement {
    let mut out = SparkJudgement::default();
    for (p, problem) in &loaded.bad_pairings {
        out.artifact
            .push(bad_pairing(p, problem, &loaded.checkpoints, tables));
    }
    // (table, consumer) → checkpoints using it, for spark-consumer-shared.
    let mut users: BTreeMap<(usize, String), Vec<String>> = BTreeMap::new();
    let mut reports: Vec<(usize, SparkCheckpointReport, Vec<Finding>)> = Vec::new();
    for lc in &loaded.checkpoints {
        let cp = &lc.checkpoint;
        out.artifact.extend(unreadable_files(cp));
        let (positions, pairing) = match &lc.source {
            PaimonSource::None => {
                out.artifact.extend(no_paimon_source(cp));
                continue;
            }
            PaimonSource::Unknown => {
                out.artifact.push(source_unknown(cp));
                continue;
            }
            PaimonSource::Several(n) => {
                out.artifact.push(several_paimon_sources(cp, *n));
                continue;
            }
            PaimonSource::One { positions, pairing } => (positions, pairing),
        };
        let paired = match pairing {
            Ok(p) => p,
            Err(reason) => {
                out.artifact.push(unpaired(cp, positions, reason));
                out.artifact.extend(uncommitted(cp, positions, None, None));
                continue;
            }
        };
        let Some(t) = tables.get(paired.table) else {
            continue;
        };
        if let Some(c) = &paired.consumer {
            users
                .entry((paired.table, c.clone()))
                .or_default()
                .push(cp.path.clone());
        }
        let (report, fs) = judge_checkpoint(cp, positions, paired, t);
        reports.push((paired.table, report, fs));
    }
    consumer_shared(&users, &mut reports);
    for (t, mut r, fs) in reports {
        r.verdicts.sort_by(|a, b| b.cmp(a));
        r.verdicts.dedup();
        if r.verdicts.is_empty() {
            r.verdicts.push(SparkCheckpointVerdict::Safe);
        }
        r.verdict = r
            .verdicts
            .first()
            .copied()
            .unwrap_or(SparkCheckpointVerdict::Safe);
        let table = out.tables.entry(t).or_default();
        table.checkpoints.push(r);
        table.findings.extend(fs);
    }
    for table in out.tables.values_mut() {
        table.checkpoints.sort_by(|a, b| a.path.cmp(&b.path));
    }
    out
}

/// `unreadable-file` for each checkpoint file that could not be read.
fn unreadable_files(cp: &Checkpoint) -> Vec<Finding> {
    cp.problems
        .iter()
        .map(|problem| {
            Finding::new(
                Code::UnreadableFile,
                Severity::Warning,
                format!(
                    "A file of Spark checkpoint {} cannot be read: {}",
                    shown(&cp.path),
                    problem.problem()
                ),
                "Check that the checkpoint directory was copied whole; the recovery position \
                     of this query is judged without the file.",
            )
            .files(problem.file().map(str::to_string))
            .evidence(problem.to_string())
        })
        .collect()
}

/// `spark-checkpoint-unpaired` (info) for a checkpoint whose offsets name no Paimon source.
fn no_paimon_source(cp: &Checkpoint) -> Option<Finding> {
    if cp.offsets.is_empty() {
        return None;
    }
    Some(
        Finding::new(
            Code::SparkCheckpointUnpaired,
            Severity::Info,
            format!(
                "Spark checkpoint {} has no Paimon source offset (the query reads \
                                 another source, e.g. it writes into Paimon): not checked.",
                shown(&cp.path)
            ),
            "Nothing to do for its reading side.",
        )
        .files([cp.path.clone()]),
    )
}

/// The unreadable checkpoint files, as `offsets/3 (problem); …`, those named in `wanted` only
/// when given.
fn unreadable_list(cp: &Checkpoint, wanted: Option<&[String]>) -> String {
    cp.unreadable
        .iter()
        .filter(|(rel, _)| wanted.is_none_or(|w| w.contains(rel)))
        .map(|(rel, problem)| format!("{} cannot be read: {problem}", cp.file(rel)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `spark-position-unknown` for a checkpoint whose readable offsets name no Paimon source while
/// some of its offsets files cannot be read: which source it reads is unknown.
fn source_unknown(cp: &Checkpoint) -> Finding {
    Finding::new(
        Code::SparkPositionUnknown,
        Severity::Warning,
        format!(
            "Whether Spark checkpoint {} reads a Paimon table, and where it would resume, is \
             unknown, because {}.",
            shown(&cp.path),
            unreadable_list(cp, None)
        ),
        "Copy the checkpoint directory again (whole) and rerun this check; until then its \
         recovery position and any consumer it uses are not checked.",
    )
    .files(cp.unreadable.keys().map(|rel| cp.file(rel)))
}

/// `spark-position-unknown` for a paired checkpoint when the files its judgement rests on (the
/// last committed batch's `offsets/` and `commits/` files, the previous batch's `offsets/`)
/// cannot be read.
fn position_unknown(cp: &Checkpoint, consumer: Option<&str>) -> Option<Finding> {
    let c = cp.last_committed()?;
    let mut wanted = vec![format!("offsets/{c}"), format!("commits/{c}")];
    if let Some(prev) = c.checked_sub(1) {
        wanted.push(format!("offsets/{prev}"));
    }
    let files: Vec<String> = cp
        .unreadable
        .keys()
        .filter(|rel| wanted.contains(rel))
        .map(|rel| cp.file(rel))
        .collect();
    if files.is_empty() {
        return None;
    }
    let what = match consumer {
        Some(c) => format!("its comparison with consumer {c} is"),
        None => "the position a restart resumes from is".to_string(),
    };
    let mut f = Finding::new(
        Code::SparkPositionUnknown,
        Severity::Warning,
        format!(
            "Spark checkpoint {}'s last committed batch is {c}, but {what} unknown, because {}.",
            shown(&cp.path),
            unreadable_list(cp, Some(&wanted))
        ),
        "Copy the checkpoint directory again (whole) and rerun this check. A restart from this \
         checkpoint reads the same files: Spark fails on a damaged offsets or commits file.",
    )
    .files(files);
    if let Some(c) = consumer {
        f = f.consumer(c);
    }
    Some(f)
}

/// `spark-checkpoint-unpaired` for a query with several Paimon sources (not checked).
fn several_paimon_sources(cp: &Checkpoint, n: usize) -> Finding {
    Finding::new(
        Code::SparkCheckpointUnpaired,
        Severity::Warning,
        format!(
            "Spark checkpoint {} reads {n} Paimon sources; this tool checks queries \
                             with one Paimon source, so its recovery positions were not checked.",
            shown(&cp.path)
        ),
        "Check each source's position by hand against the table it reads (the \
                         offsets/N lines name snapshotId and index per source).",
    )
    .files([cp.path.clone()])
}

/// `spark-checkpoint-unpaired` for a checkpoint that could not be paired without guessing.
fn unpaired(cp: &Checkpoint, positions: &Positions, reason: &str) -> Finding {
    let f = Finding::new(
        Code::SparkCheckpointUnpaired,
        Severity::Warning,
        format!(
            "Spark checkpoint {} reads a Paimon table, but {reason}: the tool does not \
                         guess, so this query's recovery position was not checked.",
            shown(&cp.path)
        ),
        format!(
            "Pair it: on the command line --spark-checkpoint {}=<table path>[#<consumer \
                         id>] (table paths as in this report), or choose the table on the page.",
            cp.path
        ),
    )
    .files([cp.path.clone()]);
    describe_positions(f, cp, positions)
}

/// `spark-consumer-shared`: do several checkpoints use one consumer (unsupported: the faster
/// query moves the position past data the slower one needs)? Marks each of their reports and
/// adds the finding to the first one's.
fn consumer_shared(
    users: &BTreeMap<(usize, String), Vec<String>>,
    reports: &mut [(usize, SparkCheckpointReport, Vec<Finding>)],
) {
    for ((table, consumer), paths) in users {
        if paths.len() < 2 {
            continue;
        }
        for (t, r, fs) in reports.iter_mut() {
            if *t == *table && r.consumer.as_deref() == Some(consumer.as_str()) {
                r.verdicts.push(SparkCheckpointVerdict::Shared);
                if paths.first() == Some(&r.path) {
                    fs.push(
                        Finding::new(
                            Code::SparkConsumerShared,
                            Severity::Warning,
                            format!(
                                "Consumer {consumer} is used by {} Spark checkpoints ({}): Paimon \
                                 supports one active query per table, branch and consumer-id; the \
                                 faster query moves the shared position past data the slower one \
                                 still needs.",
                                paths.len(),
                                paths.join(", ")
                            ),
                            format!(
                                "Give each query its own consumer-id (the Paimon source option \
                                 consumer-id), then clear the shared one once no query uses it: \
                                 CALL sys.clear_consumers(`table` => '<db>.<table>', \
                                 including_consumers => '{consumer}')."
                            ),
                        )
                        .consumer(consumer.clone())
                        .files(paths.iter().cloned()),
                    );
                }
            }
        }
    }
}

/// `spark-checkpoint-unpaired` (error) for a user pairing that names nothing in the artifact.
fn bad_pairing(
    p: &SparkPairing,
    problem: &str,
    checkpoints: &[LoadedCheckpoint],
    tables: &[&Timeline],
) -> Finding {
    Finding::new(
        Code::SparkCheckpointUnpaired,
        Severity::Error,
        format!("The pairing {p} cannot be applied: {problem}."),
        "Name a checkpoint directory and a table path as this report shows them.",
    )
    .evidence(format!(
        "checkpoints: {}",
        list(checkpoints.iter().map(|c| shown(&c.checkpoint.path)))
    ))
    .evidence(format!(
        "tables: {}",
        list(tables.iter().map(|t| shown(&table_path(t))))
    ))
}

/// Adds the checkpoint's positions to a finding's evidence.
fn describe_positions(mut f: Finding, cp: &Checkpoint, p: &Positions) -> Finding {
    if let Some(q) = &cp.query_id {
        f = f.evidence(format!("{}: query id {q}", cp.file("metadata")));
    }
    if let Some((b, o)) = p.previous {
        f = f.evidence(format!(
            "{}: {}",
            cp.file(&format!("offsets/{b}")),
            o.describe()
        ));
    }
    match (p.committed, cp.last_committed()) {
        (Some((b, o)), _) => {
            f = f.evidence(format!(
                "{}: {} (last committed batch; {} exists)",
                cp.file(&format!("offsets/{b}")),
                o.describe(),
                cp.file(&format!("commits/{b}"))
            ))
        }
        (None, Some(b)) => {
            f = f.evidence(format!(
                "{}: no Paimon offset read (last committed batch; {} exists)",
                cp.file(&format!("offsets/{b}")),
                cp.file(&format!("commits/{b}"))
            ))
        }
        (None, None) => f = f.evidence("no committed batch (commits/ is empty or absent)"),
    }
    for (b, o) in &p.uncommitted {
        f = f.evidence(format!(
            "{}: {} (no commits/{b})",
            cp.file(&format!("offsets/{b}")),
            o.map_or("offsets unreadable".to_string(), |o| o.describe())
        ));
    }
    f
}

/// `spark-batch-uncommitted`, if a planned batch has no commit.
fn uncommitted(
    cp: &Checkpoint,
    p: &Positions,
    earliest: Option<i64>,
    consumer: Option<&str>,
) -> Option<Finding> {
    let (&(first, _), &(last, last_offset)) = (p.uncommitted.first()?, p.uncommitted.last()?);
    let batches = if first == last {
        format!("batch {last}")
    } else {
        format!("batches {first}..{last}")
    };
    let from = match p.committed {
        Some((c, o)) => format!("the end of batch {c} ({})", o.describe()),
        None => "the query's initial offset (computed afresh on restart)".to_string(),
    };
    let upto = last_offset.map_or(String::new(), |o| format!(", up to {}", o.describe()));
    let resume = p.committed.map(|(_, o)| o.resume_snapshot());
    let needed = match (resume, last_offset) {
        (Some(r), Some(o)) => snapshots(r, o.snapshot_id),
        (None, Some(o)) => format!("the snapshots up to {}", o.snapshot_id),
        _ => "the snapshots it covers".to_string(),
    };
    let mut f = Finding::new(
        Code::SparkBatchUncommitted,
        Severity::Warning,
        format!(
            "Spark checkpoint {} planned {batches}{upto} but never committed it (offsets/{last} \
             without commits/{last}): the query stopped or crashed inside the batch, and a restart \
             replays it from {from}.",
            shown(&cp.path)
        ),
        format!(
            "Restart the query from this checkpoint: Spark replays {batches} with the same offsets. \
             Make sure the sink tolerates the replay (a foreachBatch writer must be idempotent per \
             batch id; a sink that committed part of the batch before the crash writes it again) \
             and that the table keeps {needed} until the replay has run."
        ),
    )
    .files(
        p.uncommitted
            .iter()
            .map(|(b, _)| cp.file(&format!("offsets/{b}"))),
    );
    if let Some(c) = consumer {
        f = f.consumer(c);
    }
    if let Some(o) = last_offset {
        f = f.snapshot(o.snapshot_id);
    }
    f = describe_positions(f, cp, p);
    if let (Some(e), Some(r)) = (earliest, resume) {
        f = f.evidence(if r >= e {
            format!("the replay's snapshots are readable (earliest readable {e})")
        } else {
            format!("the replay needs snapshot {r}, below the earliest readable {e}")
        });
    }
    Some(f)
}

/// The facts one paired checkpoint is judged on.
#[derive(Clone, Copy)]
struct Judging<'a> {
    cp: &'a Checkpoint,
    p: &'a Positions,
    t: &'a Timeline,
    /// The consumer the query uses, if known.
    consumer: Option<&'a str>,
    /// That consumer's file in the table, if there is one.
    consumer_file: Option<&'a ConsumerFile>,
    /// That consumer's `nextSnapshot`, if its file is readable.
    next: Option<i64>,
    earliest: Option<i64>,
    what_earliest: &'static str,
    /// The consumer positions the committed progress allows (see [`consumer_range`]).
    upper: Option<i64>,
    lower: Option<i64>,
    /// The last committed offset carries no completion metadata.
    legacy: bool,
}

impl Judging<'_> {
    /// A finding about this checkpoint, with its consumer.
    fn with_ids(&self, mut f: Finding) -> Finding {
        if let Some(c) = self.consumer {
            f = f.consumer(c);
        }
        f
    }
}

/// Verdicts and findings of one checkpoint, in the order the checks run.
#[derive(Default)]
struct Outcome {
    verdicts: Vec<SparkCheckpointVerdict>,
    findings: Vec<Finding>,
}

/// The consumer positions the committed progress allows: at most `upper` (the last committed
/// batch's callback), at least `lower` (the batch before it: Spark runs a batch's source commit
/// callback when it plans the next one, so one batch of lag is normal).
fn consumer_range(p: &Positions) -> (Option<i64>, Option<i64>) {
    let upper = p.committed.map(|(_, o)| {
        o.consumer_position()
            .unwrap_or(match o.completes_snapshot() {
                Some(false) => o.snapshot_id,
                _ => o.snapshot_id.saturating_add(1),
            })
    });
    let lower = p.previous.and_then(|(_, o)| o.consumer_position());
    (upper, lower)
}

/// Judges one paired checkpoint.
fn judge_checkpoint(
    cp: &Checkpoint,
    p: &Positions,
    paired: &Paired,
    t: &Timeline,
) -> (SparkCheckpointReport, Vec<Finding>) {
    let consumer = paired.consumer.as_deref();
    let consumer_file = consumer.and_then(|c| t.consumers.iter().find(|f| f.id == c));
    let (upper, lower) = consumer_range(p);
    let j = Judging {
        cp,
        p,
        t,
        consumer,
        consumer_file,
        next: consumer_file.and_then(ConsumerFile::next_snapshot),
        earliest: t.earliest_readable(),
        what_earliest: if t.long_lived_changelogs.is_empty() {
            "snapshot"
        } else {
            "snapshot or long-lived changelog"
        },
        upper,
        lower,
        legacy: p.committed.is_some_and(|(_, o)| o.total_splits.is_none()),
    };
    let mut out = Outcome::default();
    // spark-position-unknown
    if let Some(f) = position_unknown(cp, consumer) {
        out.verdicts.push(SparkCheckpointVerdict::Unknown);
        out.findings.push(f);
    }
    // spark-batch-uncommitted
    if let Some(f) = uncommitted(cp, p, j.earliest, consumer) {
        out.verdicts.push(SparkCheckpointVerdict::Uncommitted);
        out.findings.push(f);
    }
    offset_expired(&j, &mut out);
    if let Some(c) = consumer {
        offset_legacy(&j, c, &mut out);
        match (j.next, j.consumer_file) {
            (Some(n), _) => {
                consumer_ahead(&j, c, n, &mut out);
                consumer_behind(&j, c, n, &mut out);
            }
            (None, None) => consumer_missing(&j, c, &mut out),
            // The consumer file is unreadable: consumer-unreadable says so.
            (None, Some(_)) => {}
        }
    } else if paired.kind == SparkPairingKind::ConsumerUnknown {
        out.findings.push(consumer_unknown(&j));
    }
    initial_scan_unfenced(&j, &mut out);

    let expected = match (lower, p.committed.and_then(|(_, o)| o.consumer_position())) {
        (Some(first), Some(last)) => Some(IdRange { first, last }),
        _ => None,
    };
    let report = SparkCheckpointReport {
        path: cp.path.clone(),
        query_id: cp.query_id.clone(),
        last_planned_batch: cp.last_planned(),
        last_committed_batch: cp.last_committed(),
        offset: p.committed.map(|(_, o)| o),
        committed_time_millis: p.committed_time,
        planned_offset: p.uncommitted.last().and_then(|(_, o)| *o),
        resume_snapshot: p.committed.map(|(_, o)| o.resume_snapshot()),
        consumer: paired.consumer.clone(),
        consumer_next_snapshot: j.next,
        expected_consumer: expected,
        pairing: paired.kind,
        verdict: SparkCheckpointVerdict::Safe,
        verdicts: out.verdicts,
    };
    (report, out.findings)
}

/// `spark-offset-expired`: does a restart need snapshots that are gone (the last committed
/// batch resumes below the earliest readable snapshot or long-lived changelog)? An error when
/// a snapshot it certainly needs is gone; a warning when only the offset's own snapshot is, and
/// the offset (no `totalSplits`) cannot tell whether the batch ended it (`paimon-format.md`
/// §7.1, `StreamHelper.scala`).
fn offset_expired(j: &Judging<'_>, out: &mut Outcome) {
    let Judging {
        cp,
        p,
        earliest,
        what_earliest,
        ..
    } = *j;
    if let (Some((c, o)), Some(e)) = (p.committed, earliest) {
        let resume = o.resume_snapshot();
        // Without totalSplits the batch may have ended snapshot `resume` (a restart then needs
        // only the later ones) or stopped inside it: only the later ones are certainly unread.
        let unknown_end = o.completes_snapshot().is_none();
        let first_unread = if unknown_end {
            resume.saturating_add(1)
        } else {
            resume
        };
        let certain = first_unread < e;
        let possible = unknown_end && resume < e && !certain;
        let rest = if unknown_end {
            format!(", nor the rest of snapshot {resume} if the batch stopped inside it")
        } else {
            String::new()
        };
        if certain || possible {
            out.verdicts.push(SparkCheckpointVerdict::Expired);
            let (severity, message) = if certain {
                (
                    Severity::Error,
                    format!(
                        "Spark checkpoint {} resumes at snapshot {resume} (its last committed batch \
                         {c} ends at {}), but the earliest readable {what_earliest} is {e}: a \
                         restart from this checkpoint falls back to the query's initial offset or \
                         fails, and {} never read{rest}.",
                        shown(&cp.path),
                        o.describe(),
                        snapshots_are(first_unread, e.saturating_sub(1))
                    ),
                )
            } else {
                (
                    Severity::Warning,
                    format!(
                        "Spark checkpoint {}'s last committed batch {c} ends at {} without \
                         recording whether that was the snapshot's last split, and snapshot {} has \
                         expired (earliest readable {what_earliest} {e}): if the batch ended inside \
                         it, a restart cannot read the rest.",
                        shown(&cp.path),
                        o.describe(),
                        o.snapshot_id
                    ),
                )
            };
            out.findings.push(
                j.with_ids(Finding::new(
                    Code::SparkOffsetExpired,
                    severity,
                    message,
                    format!(
                        "Treat {} as lost for this query: rebuild its output from a \
                         full read (a new query with a new checkpoint location and scan.mode \
                         latest-full), or replay them from the source system. Then keep snapshots \
                         longer than the longest stop of the query (snapshot.time-retained, \
                         snapshot.num-retained.min, or a consumer-id with consumer.expiration-time).",
                        if certain {
                            format!("{}{}", snapshots(first_unread, e.saturating_sub(1)), if unknown_end {
                                format!(" (and the rest of snapshot {resume}, if the batch stopped inside it)")
                            } else {
                                String::new()
                            })
                        } else {
                            format!("the rest of snapshot {resume}, if the batch stopped inside it,")
                        }
                    ),
                ))
                .snapshot(resume)
                .related([e])
                .files([cp.file(&format!("offsets/{c}"))])
                .evidence(format!(
                    "{}: {}",
                    cp.file(&format!("offsets/{c}")),
                    o.describe()
                ))
                .evidence(format!("earliest readable {what_earliest} = {e}"))
                .evidence(
                    "Paimon master falls back to the initial offset (with a warning) when the \
                     checkpointed start is below the earliest snapshot, and fails the query when that \
                     would switch a logged batch between a full and an incremental scan",
                ),
            );
        }
    }
}

/// `spark-offset-legacy`: do the offsets lack completion metadata, so Paimon leaves the
/// consumer unchanged?
fn offset_legacy(j: &Judging<'_>, c: &str, out: &mut Outcome) {
    let Judging {
        cp,
        p,
        next,
        legacy,
        ..
    } = *j;
    if let (true, Some((b, o))) = (legacy, p.committed) {
        out.verdicts.push(SparkCheckpointVerdict::Legacy);
        out.findings.push(
                j.with_ids(Finding::new(
                    Code::SparkOffsetLegacy,
                    Severity::Warning,
                    format!(
                        "Spark checkpoint {}'s offsets carry no completion metadata (no totalSplits; \
                         the last committed batch {b} ends at {}): Paimon leaves consumer {c} \
                         unchanged for such offsets, so it stays {} while the query has committed \
                         up to snapshot {}.",
                        shown(&cp.path),
                        o.describe(),
                        next.map_or("absent".to_string(), |n| format!("at {n}")),
                        o.snapshot_id
                    ),
                    format!(
                        "Expected once after upgrading from Paimon <= 2.0: the consumer moves again \
                         with the first batch the new connector plans. If it persists, the query runs \
                         on an older connector or without consumer-id {c}; meanwhile the consumer \
                         neither records this query's progress nor fences expiration for it — set it \
                         with CALL sys.reset_consumer(`table` => '<db>.<table>', consumer_id => \
                         '{c}', next_snapshot_id => {}) if a restart without the checkpoint must \
                         resume here.",
                        o.snapshot_id
                    ),
                ))
                .snapshot(o.snapshot_id)
                .files([cp.file(&format!("offsets/{b}"))])
                .evidence(format!(
                    "{}: {}",
                    cp.file(&format!("offsets/{b}")),
                    o.describe()
                )),
            );
    }
}

/// `consumer-ahead-of-checkpoint`: has the consumer moved past data this query never committed
/// (it no longer fences it, and a restart without the checkpoint skips it)?
fn consumer_ahead(j: &Judging<'_>, c: &str, n: i64, out: &mut Outcome) {
    let Judging { cp, p, upper, .. } = *j;
    if let (Some(hi), Some((b, o))) = (upper, p.committed) {
        if n > hi {
            out.verdicts.push(SparkCheckpointVerdict::ConsumerAhead);
            out.findings.push(
                            j.with_ids(Finding::new(
                                Code::ConsumerAheadOfCheckpoint,
                                Severity::Error,
                                format!(
                                    "Consumer {c} is at snapshot {n}, past Spark checkpoint {}'s \
                                     committed progress (its last committed batch {b} ends at {}, so \
                                     the consumer may be at most {hi}): it no longer protects \
                                     {} that this query has not committed, and a restart without \
                                     the checkpoint would skip them.",
                                    shown(&cp.path),
                                    o.describe(),
                                    snapshots(hi, n.saturating_sub(1))
                                ),
                                format!(
                                    "Find what moved the consumer (another query with the same \
                                     consumer-id, a manual reset_consumer, an older checkpoint \
                                     restored). Stop the query, set the consumer back to the \
                                     checkpoint's position — CALL sys.reset_consumer(`table` => \
                                     '<db>.<table>', consumer_id => '{c}', next_snapshot_id => {hi}) \
                                     — and give every query its own consumer-id."
                                ),
                            ))
                            .snapshot(n)
                            .related([hi])
                            .files([cp.file(&format!("offsets/{b}"))])
                            .evidence(format!("consumer {c}: nextSnapshot = {n}"))
                            .evidence(format!(
                                "{}: {}",
                                cp.file(&format!("offsets/{b}")),
                                o.describe()
                            )),
                        );
        }
    }
}

/// `consumer-behind-checkpoint`: is the consumer more than one batch behind the committed
/// progress, so Paimon does not record the query's progress?
fn consumer_behind(j: &Judging<'_>, c: &str, n: i64, out: &mut Outcome) {
    let Judging {
        cp,
        p,
        lower,
        legacy,
        ..
    } = *j;
    if let (Some(lo), Some((pb, po))) = (lower, p.previous) {
        if n < lo && !legacy {
            out.verdicts.push(SparkCheckpointVerdict::ConsumerBehind);
            out.findings.push(
                            j.with_ids(Finding::new(
                                Code::ConsumerBehindCheckpoint,
                                Severity::Warning,
                                format!(
                                    "Consumer {c} is at snapshot {n}, more than one batch behind \
                                     Spark checkpoint {} (the commit callback of batch {pb}, which \
                                     ends at {}, moves it to at least {lo}): Paimon is not recording \
                                     this query's progress, so expiration is held back and a restart \
                                     without the checkpoint replays {}.",
                                    shown(&cp.path),
                                    po.describe(),
                                    snapshots(n, lo.saturating_sub(1))
                                ),
                                format!(
                                    "Check that the query runs with consumer-id {c} and its logs for \
                                     failed consumer updates (a failed update fails the query). If the \
                                     consumer was reset by hand, set it to the checkpoint's position: \
                                     CALL sys.reset_consumer(`table` => '<db>.<table>', consumer_id => \
                                     '{c}', next_snapshot_id => {lo})."
                                ),
                            ))
                            .snapshot(n)
                            .related([lo])
                            .files([cp.file(&format!("offsets/{pb}"))])
                            .evidence(format!("consumer {c}: nextSnapshot = {n}"))
                            .evidence(format!(
                                "{}: {}",
                                cp.file(&format!("offsets/{pb}")),
                                po.describe()
                            )),
                        );
        }
    }
}

/// `consumer-behind-checkpoint` when the consumer does not exist although committed batches'
/// callbacks create it.
fn consumer_missing(j: &Judging<'_>, c: &str, out: &mut Outcome) {
    let Judging { cp, p, lower, .. } = *j;
    if let (Some(lo), Some((pb, po))) = (lower, p.previous) {
        out.verdicts.push(SparkCheckpointVerdict::ConsumerBehind);
        out.findings.push(
                        j.with_ids(Finding::new(
                            Code::ConsumerBehindCheckpoint,
                            Severity::Warning,
                            format!(
                                "Consumer {c} does not exist, although Spark checkpoint {} committed \
                                 batches whose commit callback creates it (batch {pb} ends at {}: at \
                                 least {lo}): it was never created, was deleted, or expired \
                                 (consumer.expiration-time); nothing fences expiration for this \
                                 query.",
                                shown(&cp.path),
                                po.describe()
                            ),
                            format!(
                                "Check that the query runs with consumer-id {c} and that \
                                 consumer.expiration-time exceeds its longest idle and recovery time; \
                                 recreate the position with CALL sys.reset_consumer(`table` => \
                                 '<db>.<table>', consumer_id => '{c}', next_snapshot_id => {lo})."
                            ),
                        ))
                        .related([lo])
                        .files([cp.file(&format!("offsets/{pb}"))]),
                    );
    }
}

/// `spark-checkpoint-unpaired` when the table is known but its consumers leave the query's own
/// one unknown: the consumer checks are skipped.
fn consumer_unknown(j: &Judging<'_>) -> Finding {
    let Judging { cp, p, t, .. } = *j;
    let f = Finding::new(
            Code::SparkCheckpointUnpaired,
            Severity::Warning,
            format!(
                "Spark checkpoint {} reads this table, which has {} consumers and none named {}: the \
                 tool does not guess which one the query uses, so the consumer checks were skipped.",
                shown(&cp.path),
                t.consumers.len(),
                if cp.name.is_empty() { "like it" } else { &cp.name }
            ),
            format!(
                "Pair it: --spark-checkpoint {}={}#<consumer id> on the command line (consumers: {}), \
                 or choose the consumer on the page.",
                cp.path,
                table_path(t),
                list(t.consumers.iter().map(|c| c.id.clone()))
            ),
        )
        .files([cp.path.clone()]);
    describe_positions(f, cp, p)
}

/// `spark-initial-scan-unfenced`: is an initial full scan in progress with no consumer fencing
/// its snapshot from expiration?
fn initial_scan_unfenced(j: &Judging<'_>, out: &mut Outcome) {
    let Judging { cp, p, t, .. } = *j;
    if let Some((b, o)) = p.newest() {
        if o.scan_snapshot && o.completes_snapshot() != Some(true) {
            let s = o.snapshot_id;
            let fences = !t.options.consumer_changelog_only;
            let fencing: Vec<&str> = t
                .consumers
                .iter()
                .filter(|c| fences && c.next_snapshot().is_some_and(|n| n <= s))
                .map(|c| c.id.as_str())
                .collect();
            if fencing.is_empty() {
                out.verdicts
                    .push(SparkCheckpointVerdict::InitialScanUnfenced);
                let done = o.index.saturating_add(1).max(0);
                let progress = match o.total_splits {
                    Some(total) => format!("{done} of {total} splits"),
                    None => format!("{done} splits, total unknown,"),
                };
                let retain_min = t.options.snapshot_retained_min;
                let latest = t.latest().unwrap_or(s);
                // The newest `retain_min` snapshots are kept: s is among them while latest < s + retain_min.
                let left = s
                    .saturating_add(retain_min)
                    .saturating_sub(1)
                    .saturating_sub(latest);
                let mut f = j.with_ids(Finding::new(
                    Code::SparkInitialScanUnfenced,
                    Severity::Warning,
                    format!(
                        "Spark checkpoint {} is in the middle of an initial full scan of snapshot {s} \
                         ({progress} read up to batch {b}) and no consumer fences snapshot {s}: if \
                         retention expires it before the scan completes, a restart from this \
                         checkpoint fails (Paimon does not switch a logged batch from a full to an \
                         incremental scan) and one without it starts the full scan again.",
                        shown(&cp.path)
                    ),
                    format!(
                        "Keep snapshot {s} until the scan completes: raise snapshot.time-retained and \
                         snapshot.num-retained.min above the scan's expected duration (Paimon creates \
                         the query's consumer, and with it the fence, only when the full scan is \
                         committed)."
                    ),
                ))
                .snapshot(s)
                .files([cp.file(&format!("offsets/{b}"))])
                .evidence(format!(
                    "{}: {}",
                    cp.file(&format!("offsets/{b}")),
                    o.describe()
                ))
                .evidence(if fences {
                    format!(
                        "consumers of this branch: {}",
                        list(t.consumers.iter().map(|c| format!(
                            "{}={}",
                            c.id,
                            c.next_snapshot().map_or("?".to_string(), |n| n.to_string())
                        )))
                    )
                } else {
                    "consumer.changelog-only: consumers do not fence snapshot expiration".to_string()
                });
                f = f.evidence(format!(
                    "snapshot.num-retained.min = {retain_min}, latest snapshot {latest}: snapshot {s} \
                     stays among the newest {retain_min} for {} more commit{}, then only \
                     snapshot.time-retained keeps it",
                    left.max(0),
                    if left == 1 { "" } else { "s" }
                ));
                out.findings.push(f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::spark::paimon_offset::PaimonOffset;
    use crate::timeline::testkit::timeline;

    fn off(snapshot_id: i64, index: i64, scan_snapshot: bool, total: Option<i64>) -> PaimonOffset {
        PaimonOffset {
            snapshot_id,
            index,
            scan_snapshot,
            total_splits: total,
        }
    }

    /// The offset of a batch that read snapshot `s` whole (one split of one).
    fn whole(s: i64) -> PaimonOffset {
        off(s, 0, false, Some(1))
    }

    /// A table `db.db/t` with snapshots `ids` and `consumers` (id, nextSnapshot).
    fn table(
        options: &[(&str, &str)],
        ids: std::ops::RangeInclusive<i64>,
        consumers: &[(&str, i64)],
    ) -> Timeline {
        let snapshots: Vec<(i64, &str, &str, i64, i64)> =
            ids.map(|id| (id, "APPEND", "w", id, id * 1000)).collect();
        timeline(options, &snapshots, consumers)
    }

    /// A checkpoint at `path` whose batches `0..=committed` are committed and `planned` ones
    /// planned after them; its Paimon source at `positions`, paired with table 0 and
    /// `consumer` by the user.
    fn checkpoint(
        path: &str,
        committed: Option<i64>,
        planned: &[i64],
        positions: Positions,
        consumer: Option<&str>,
    ) -> LoadedCheckpoint {
        let committed: BTreeSet<i64> = committed.map_or(BTreeSet::new(), |c| (0..=c).collect());
        let mut all = committed.clone();
        all.extend(planned);
        LoadedCheckpoint {
            checkpoint: Checkpoint {
                path: path.to_string(),
                name: path.rsplit('/').next().unwrap_or_default().to_string(),
                query_id: None,
                planned: all,
                committed,
                offsets: BTreeMap::new(),
                last_commit: None,
                source_logs: Vec::new(),
                problems: Vec::new(),
                unreadable: BTreeMap::new(),
            },
            source: PaimonSource::One {
                positions,
                pairing: Ok(Paired {
                    table: 0,
                    consumer: consumer.map(str::to_string),
                    kind: SparkPairingKind::User,
                }),
            },
        }
    }

    /// Positions with the last committed batch `c` ending at `committed` and the one before it
    /// at `previous`, nothing planned after them.
    fn committed(c: i64, committed: PaimonOffset, previous: Option<PaimonOffset>) -> Positions {
        Positions {
            committed: Some((c, committed)),
            previous: previous.map(|o| (c - 1, o)),
            uncommitted: Vec::new(),
            committed_time: None,
        }
    }

    /// The checkpoints' reports and findings on table `t`.
    fn run(t: &Timeline, checkpoints: Vec<LoadedCheckpoint>) -> TableSpark {
        let loaded = SparkCheckpoints {
            checkpoints,
            bad_pairings: Vec::new(),
        };
        let mut j = judge(&loaded, &[t]);
        assert!(j.artifact.is_empty(), "{:#?}", j.artifact);
        j.tables.remove(&0).unwrap_or_default()
    }

    fn with_code(fs: &[Finding], code: Code) -> Vec<&Finding> {
        fs.iter().filter(|f| f.code == code).collect()
    }

    #[test]
    fn on_a_cut_artifact_only_what_the_checkpoints_own_bytes_show_stays() {
        use SparkCheckpointVerdict as V;
        let t = table(&[], 3..=6, &[("shared", 5)]);
        // q1 is safe, q2 expired (it read snapshot 1, below the earliest 3) and shares its
        // consumer with q3: the whole artifact's verdicts.
        let mut out = run(
            &t,
            vec![
                checkpoint(
                    "ckpt/q1",
                    Some(2),
                    &[],
                    committed(2, whole(4), Some(whole(3))),
                    None,
                ),
                checkpoint(
                    "ckpt/q2",
                    Some(2),
                    &[],
                    committed(2, whole(1), None),
                    Some("shared"),
                ),
                checkpoint(
                    "ckpt/q3",
                    Some(2),
                    &[],
                    committed(2, whole(4), Some(whole(3))),
                    Some("shared"),
                ),
            ],
        );
        let verdicts = |r: &[SparkCheckpointReport]| -> Vec<Vec<V>> {
            r.iter().map(|c| c.verdicts.clone()).collect()
        };
        let before = verdicts(&out.checkpoints);
        assert_eq!(before[0], vec![V::Safe]);
        assert!(
            before[1].contains(&V::Expired) && before[1].contains(&V::Shared),
            "{before:?}"
        );
        unconfirmed(&mut out.checkpoints);
        let after = verdicts(&out.checkpoints);
        assert_eq!(after[0], vec![V::Unknown]);
        assert_eq!(after[1], vec![V::Shared, V::Unknown]);
        assert_eq!(out.checkpoints[1].verdict, V::Shared);
        assert_eq!(out.checkpoints[0].verdict, V::Unknown);
    }

    #[test]
    fn a_shared_consumer_is_one_finding_and_marks_only_the_checkpoints_that_share_it() {
        let t = table(&[], 1..=6, &[("shared", 5), ("own", 5)]);
        // Each query committed snapshot 4 (consumer at most 5) after snapshot 3 (at least 4).
        let at_4 = || committed(2, whole(4), Some(whole(3)));
        let out = run(
            &t,
            vec![
                checkpoint("ckpt/q1", Some(2), &[], at_4(), Some("shared")),
                checkpoint("ckpt/q2", Some(2), &[], at_4(), Some("shared")),
                checkpoint("ckpt/q3", Some(2), &[], at_4(), Some("shared")),
                checkpoint("ckpt/q4", Some(2), &[], at_4(), Some("own")),
            ],
        );
        let shared = with_code(&out.findings, Code::SparkConsumerShared);
        assert_eq!(shared.len(), 1, "{shared:#?}");
        assert_eq!(shared[0].consumer.as_deref(), Some("shared"));
        assert_eq!(shared[0].files, ["ckpt/q1", "ckpt/q2", "ckpt/q3"]);
        assert!(shared[0].message.contains("used by 3 Spark checkpoints"));
        let verdicts: Vec<(&str, &[SparkCheckpointVerdict])> = out
            .checkpoints
            .iter()
            .map(|r| (r.path.as_str(), r.verdicts.as_slice()))
            .collect();
        use SparkCheckpointVerdict::{Safe, Shared};
        assert_eq!(
            verdicts,
            [
                ("ckpt/q1", &[Shared][..]),
                ("ckpt/q2", &[Shared][..]),
                ("ckpt/q3", &[Shared][..]),
                ("ckpt/q4", &[Safe][..]),
            ]
        );
    }

    #[test]
    fn an_uncommitted_first_batch_asks_to_keep_the_snapshots_up_to_its_end() {
        let t = table(&[], 1..=6, &[]);
        let positions = Positions {
            committed: None,
            previous: None,
            uncommitted: vec![(0, Some(off(5, 0, false, Some(2))))],
            committed_time: None,
        };
        let out = run(&t, vec![checkpoint("ckpt/q", None, &[0], positions, None)]);
        let f = with_code(&out.findings, Code::SparkBatchUncommitted);
        assert_eq!(f.len(), 1, "{:#?}", out.findings);
        assert_eq!(f[0].snapshot, Some(5));
        assert!(
            f[0].remedy
                .contains("the table keeps the snapshots up to 5 until the replay has run"),
            "{}",
            f[0].remedy
        );
    }

    #[test]
    fn a_consumer_past_a_committed_batch_inside_the_initial_full_scan_is_ahead() {
        let t = table(&[], 1..=9, &[("q", 9)]);
        // Batches 0 and 1 read splits 1 and 2 of 4 of snapshot 8's full scan: the callback
        // creates no consumer, and one that exists may not be past snapshot 8.
        let scan = committed(1, off(8, 1, true, Some(4)), Some(off(8, 0, true, Some(4))));
        let out = run(
            &t,
            vec![checkpoint("ckpt/q", Some(1), &[], scan, Some("q"))],
        );
        let f = with_code(&out.findings, Code::ConsumerAheadOfCheckpoint);
        assert_eq!(f.len(), 1, "{:#?}", out.findings);
        assert_eq!(
            (f[0].snapshot, f[0].related_snapshots.as_slice()),
            (Some(9), &[8][..])
        );
        assert!(out.checkpoints[0]
            .verdicts
            .contains(&SparkCheckpointVerdict::ConsumerAhead));

        // At snapshot 8 it is not ahead.
        let t = table(&[], 1..=9, &[("q", 8)]);
        let scan = committed(1, off(8, 1, true, Some(4)), Some(off(8, 0, true, Some(4))));
        let out = run(
            &t,
            vec![checkpoint("ckpt/q", Some(1), &[], scan, Some("q"))],
        );
        assert!(with_code(&out.findings, Code::ConsumerAheadOfCheckpoint).is_empty());
    }

    #[test]
    fn offsets_without_total_splits_at_the_earliest_snapshot_have_not_expired() {
        // Batch 3 ends inside or at the end of snapshot 5, which is still readable.
        let legacy = || committed(3, off(5, 0, false, None), Some(off(4, 0, false, None)));
        let t = table(&[], 5..=8, &[]);
        let out = run(&t, vec![checkpoint("ckpt/q", Some(3), &[], legacy(), None)]);
        assert!(
            with_code(&out.findings, Code::SparkOffsetExpired).is_empty(),
            "{:#?}",
            out.findings
        );
        assert_eq!(out.checkpoints[0].verdict, SparkCheckpointVerdict::Safe);

        // Snapshot 5 gone: the batch may have ended it, so nothing is certainly unread.
        let t = table(&[], 6..=8, &[]);
        let out = run(&t, vec![checkpoint("ckpt/q", Some(3), &[], legacy(), None)]);
        let f = with_code(&out.findings, Code::SparkOffsetExpired);
        assert_eq!(f.len(), 1, "{:#?}", out.findings);
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(
            f[0].message.contains("snapshot 5 has expired"),
            "{}",
            f[0].message
        );
        assert!(
            f[0].remedy.starts_with(
                "Treat the rest of snapshot 5, if the batch stopped inside it, as lost"
            ),
            "{}",
            f[0].remedy
        );

        // Snapshots 5 and 6 gone: a restart needs at least snapshot 6.
        let t = table(&[], 7..=8, &[]);
        let out = run(&t, vec![checkpoint("ckpt/q", Some(3), &[], legacy(), None)]);
        let f = with_code(&out.findings, Code::SparkOffsetExpired);
        assert_eq!(f.len(), 1, "{:#?}", out.findings);
        assert_eq!(f[0].severity, Severity::Error);
        assert!(
            f[0].message.contains(
                "snapshot 6 is never read, nor the rest of snapshot 5 if the batch stopped inside it."
            ),
            "{}",
            f[0].message
        );
        assert!(f[0].remedy.starts_with("Treat snapshot 6 (and the rest of snapshot 5, if the batch stopped inside it) as lost"), "{}", f[0].remedy);
    }

    #[test]
    fn a_missing_consumer_that_committed_batches_create_is_behind() {
        let t = table(&[], 1..=6, &[("other", 5)]);
        let out = run(
            &t,
            vec![checkpoint(
                "ckpt/q",
                Some(2),
                &[],
                committed(2, whole(4), Some(whole(3))),
                Some("q"),
            )],
        );
        let f = with_code(&out.findings, Code::ConsumerBehindCheckpoint);
        assert_eq!(f.len(), 1, "{:#?}", out.findings);
        assert_eq!(f[0].severity, Severity::Warning);
        assert_eq!(f[0].consumer.as_deref(), Some("q"));
        assert_eq!(f[0].related_snapshots, [4]);
        assert_eq!(f[0].files, ["ckpt/q/offsets/1"]);
        assert!(
            f[0].message.contains("Consumer q does not exist"),
            "{}",
            f[0].message
        );
        assert_eq!(
            out.checkpoints[0].verdicts,
            [SparkCheckpointVerdict::ConsumerBehind]
        );
    }

    #[test]
    fn only_a_full_scan_in_progress_is_an_initial_scan() {
        // A delta query without a consumer, inside snapshot 5 (split 1 of 2): no full scan.
        let t = table(&[], 1..=6, &[]);
        let delta = committed(2, off(5, 0, false, Some(2)), Some(whole(4)));
        let out = run(&t, vec![checkpoint("ckpt/q", Some(2), &[], delta, None)]);
        assert!(
            with_code(&out.findings, Code::SparkInitialScanUnfenced).is_empty(),
            "{:#?}",
            out.findings
        );
        assert_eq!(out.checkpoints[0].verdict, SparkCheckpointVerdict::Safe);
    }

    #[test]
    fn an_initial_scan_is_fenced_only_by_a_consumer_at_or_below_its_snapshot() {
        // Snapshot 8's full scan, 2 of 4 splits read; the query has no consumer of its own.
        let unfenced = |options: &[(&str, &str)], other: i64| {
            let t = table(options, 1..=9, &[("other", other)]);
            let scan = committed(1, off(8, 1, true, Some(4)), Some(off(8, 0, true, Some(4))));
            let out = run(&t, vec![checkpoint("ckpt/q", Some(1), &[], scan, None)]);
            let fs: Vec<Finding> = with_code(&out.findings, Code::SparkInitialScanUnfenced)
                .into_iter()
                .cloned()
                .collect();
            let verdict = out.checkpoints[0].verdict;
            assert_eq!(
                verdict == SparkCheckpointVerdict::InitialScanUnfenced,
                !fs.is_empty()
            );
            fs
        };
        assert!(unfenced(&[], 8).is_empty());
        assert!(unfenced(&[], 3).is_empty());
        let f = unfenced(&[], 9);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].snapshot, Some(8));
        assert!(
            f[0].evidence
                .contains(&"consumers of this branch: other=9".to_string()),
            "{:#?}",
            f[0].evidence
        );
        // With consumer.changelog-only no consumer fences snapshots.
        let f = unfenced(&[("consumer.changelog-only", "true")], 3);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].evidence.contains(
                &"consumer.changelog-only: consumers do not fence snapshot expiration".to_string()
            ),
            "{:#?}",
            f[0].evidence
        );
    }
}
