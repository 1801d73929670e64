//! Spark checkpoints: can a Spark Structured Streaming query on Paimon recover safely?
//!
//! A query keeps two recovery positions: Spark's checkpoint (exact, per micro-batch: `offsets/N`
//! then `commits/N`) and Paimon's consumer (conservative, per snapshot). The behaviour these
//! checks rest on (seed 000, `paimon-format.md` §5.5, §7.1):
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
//!
//! Pairing. A checkpoint records neither the table nor the consumer id. In order: the user's
//! pairing (`--spark-checkpoint <dir>=<table path>[#<consumer id>]`, or the page); a consumer
//! named like the checkpoint directory, if exactly one table in the artifact has one; when the
//! artifact holds one table: its only consumer, or no consumer when it has none. A table with
//! several consumers, none named like the directory, is paired without a consumer (the
//! consumer checks are skipped and say so). Nothing else is paired: the checkpoint gets an
//! artifact-level `spark-checkpoint-unpaired`. Files in these findings are artifact paths (a
//! checkpoint lives outside the table).

use std::collections::BTreeMap;

use crate::findings::{
    Code, Finding, IdRange, Severity, SparkCheckpointReport, SparkCheckpointVerdict, SparkOffset,
    SparkPairingKind, TableReport,
};
use crate::source::Artifact;
use crate::spark::paimon_offset::PaimonOffset;
use crate::spark::{discover, Checkpoint, SparkPairing};
use crate::timeline::Timeline;
use crate::warehouse::MAIN_BRANCH;

/// What a checkpoint was paired with.
struct Paired {
    table: usize,
    consumer: Option<String>,
    kind: SparkPairingKind,
}

/// The Paimon positions of one checkpoint.
struct Positions {
    /// The last committed batch and its offset.
    committed: Option<(i64, PaimonOffset)>,
    /// The batch before it and its offset.
    previous: Option<(i64, PaimonOffset)>,
    /// Planned batches after the last committed one, with their offsets where read.
    uncommitted: Vec<(i64, Option<PaimonOffset>)>,
    /// `batchTimestampMs` of the last committed batch.
    committed_time: Option<i64>,
}

impl Positions {
    /// The newest known position (planned or committed).
    fn newest(&self) -> Option<(i64, PaimonOffset)> {
        self.uncommitted
            .iter()
            .rev()
            .find_map(|(b, o)| o.map(|o| (*b, o)))
            .or(self.committed)
    }
}

/// Checks every Spark checkpoint of the artifact: adds the paired ones and their findings to
/// their table's report, and artifact-level findings (unpaired checkpoints, unreadable files,
/// pairings that name nothing) to `findings`.
pub fn apply(
    artifact: &Artifact,
    timelines: &[Timeline],
    tables: &mut [TableReport],
    findings: &mut Vec<Finding>,
    pairings: &[SparkPairing],
) {
    let checkpoints = discover(artifact);
    for p in pairings {
        if !checkpoints.iter().any(|c| c.path == p.checkpoint) {
            findings.push(bad_pairing(
                p,
                format!(
                    "{} is not a Spark checkpoint directory in the artifact",
                    p.checkpoint
                ),
                &checkpoints,
                tables,
            ));
        } else if table_index(tables, &p.table).is_none() {
            findings.push(bad_pairing(
                p,
                format!("{} is not a table in the artifact", p.table),
                &checkpoints,
                tables,
            ));
        }
    }
    // (table, consumer) → checkpoints using it, for spark-consumer-shared.
    let mut users: BTreeMap<(usize, String), Vec<String>> = BTreeMap::new();
    let mut reports: Vec<(usize, SparkCheckpointReport, Vec<Finding>)> = Vec::new();
    for cp in &checkpoints {
        for problem in &cp.problems {
            findings.push(
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
                .evidence(problem.to_string()),
            );
        }
        let slot = match paimon_slot(cp) {
            Slot::One(slot) => slot,
            Slot::None => {
                if !cp.offsets.is_empty() {
                    findings.push(
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
                    );
                }
                continue;
            }
            Slot::Several(n) => {
                findings.push(
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
                    .files([cp.path.clone()]),
                );
                continue;
            }
        };
        let positions = positions(cp, &slot);
        let paired = match pair(cp, tables, pairings) {
            Ok(p) => p,
            Err(reason) => {
                let mut f = Finding::new(
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
                f = describe_positions(f, cp, &positions);
                findings.push(f);
                if let Some(u) = uncommitted(cp, &positions, None, None) {
                    findings.push(u);
                }
                continue;
            }
        };
        let Some(table) = tables.get(paired.table) else {
            continue;
        };
        let Some(timeline) = timelines
            .iter()
            .find(|t| t.location.root == table.path && t.location.branch == table.branch)
        else {
            continue;
        };
        if let Some(c) = &paired.consumer {
            users
                .entry((paired.table, c.clone()))
                .or_default()
                .push(cp.path.clone());
        }
        let (report, fs) = judge(cp, &positions, &paired, table, timeline);
        reports.push((paired.table, report, fs));
    }

    for ((table, consumer), paths) in &users {
        if paths.len() < 2 {
            continue;
        }
        for (t, r, fs) in &mut reports {
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
        if let Some(table) = tables.get_mut(t) {
            table.spark_checkpoints.push(r);
            table.findings.extend(fs);
        }
    }
    for table in tables.iter_mut() {
        table.spark_checkpoints.sort_by(|a, b| a.path.cmp(&b.path));
    }
}

/// The problems of user pairings that can be known from the listing alone (the CLI refuses
/// them before analysing): a checkpoint or table that is not in the artifact.
pub fn pairing_problems(artifact: &Artifact, pairings: &[SparkPairing]) -> Vec<String> {
    if pairings.is_empty() {
        return Vec::new();
    }
    let dirs = crate::spark::checkpoint_dirs(artifact);
    let tables: Vec<String> = crate::warehouse::discover(artifact)
        .tables
        .into_iter()
        .map(|t| t.meta_root)
        .collect();
    let mut out = Vec::new();
    for p in pairings {
        if !dirs.contains_key(&p.checkpoint) {
            out.push(format!(
                "--spark-checkpoint {p}: {} is not a Spark checkpoint directory in the artifact \
                 (found: {})",
                p.checkpoint,
                list(dirs.keys().map(|d| shown(d)))
            ));
        }
        if !tables.contains(&p.table) {
            out.push(format!(
                "--spark-checkpoint {p}: {} is not a table in the artifact (found: {})",
                p.table,
                list(tables.iter().map(|t| shown(t)))
            ));
        }
    }
    out
}

fn list(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// `snapshot 4` or `snapshots 4..6`.
fn snapshots(first: i64, last: i64) -> String {
    if first >= last {
        format!("snapshot {first}")
    } else {
        format!("snapshots {first}..{last}")
    }
}

/// `snapshot 4 is` or `snapshots 4..6 are`.
fn snapshots_are(first: i64, last: i64) -> String {
    if first >= last {
        format!("snapshot {first} is")
    } else {
        format!("snapshots {first}..{last} are")
    }
}

fn shown(path: &str) -> String {
    if path.is_empty() {
        "(root)".to_string()
    } else {
        path.to_string()
    }
}

fn bad_pairing(
    p: &SparkPairing,
    problem: String,
    checkpoints: &[Checkpoint],
    tables: &[TableReport],
) -> Finding {
    Finding::new(
        Code::SparkCheckpointUnpaired,
        Severity::Error,
        format!("The pairing {p} cannot be applied: {problem}."),
        "Name a checkpoint directory and a table path as this report shows them.",
    )
    .evidence(format!(
        "checkpoints: {}",
        list(checkpoints.iter().map(|c| shown(&c.path)))
    ))
    .evidence(format!(
        "tables: {}",
        list(tables.iter().map(|t| shown(&pairing_path(t))))
    ))
}

/// The path a pairing names a table by: the table path for `main`, the branch's directory for a
/// branch.
fn pairing_path(t: &TableReport) -> String {
    if t.branch == MAIN_BRANCH {
        t.path.clone()
    } else {
        crate::warehouse::join(&t.path, &format!("branch/branch-{}", t.branch))
    }
}

fn table_index(tables: &[TableReport], path: &str) -> Option<usize> {
    tables.iter().position(|t| pairing_path(t) == path)
}

/// Where the Paimon source sits in the offset lines: its `v2` key or its `v1` position.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum SlotKey {
    Key(String),
    Position(usize),
}

enum Slot {
    None,
    One(SlotKey),
    Several(usize),
}

fn paimon_slot(cp: &Checkpoint) -> Slot {
    let mut slots: Vec<SlotKey> = cp
        .offsets
        .values()
        .flat_map(|e| {
            e.paimon_sources().map(|(i, s, _)| match &s.key {
                Some(k) => SlotKey::Key(k.clone()),
                None => SlotKey::Position(i),
            })
        })
        .collect();
    slots.sort();
    slots.dedup();
    match slots.len() {
        0 => Slot::None,
        1 => slots.pop().map_or(Slot::None, Slot::One),
        n => Slot::Several(n),
    }
}

fn paimon_at(cp: &Checkpoint, batch: i64, slot: &SlotKey) -> Option<PaimonOffset> {
    let entry = cp.offsets.get(&batch)?;
    let source = match slot {
        SlotKey::Key(k) => entry.sources.iter().find(|s| s.key.as_deref() == Some(k)),
        SlotKey::Position(i) => entry.sources.get(*i),
    }?;
    source.paimon
}

fn positions(cp: &Checkpoint, slot: &SlotKey) -> Positions {
    let committed = cp
        .last_committed()
        .and_then(|c| paimon_at(cp, c, slot).map(|o| (c, o)));
    let previous = cp
        .last_committed()
        .and_then(|c| c.checked_sub(1))
        .and_then(|b| paimon_at(cp, b, slot).map(|o| (b, o)));
    let uncommitted = cp
        .uncommitted()
        .into_iter()
        .map(|b| (b, paimon_at(cp, b, slot)))
        .collect();
    let committed_time = cp
        .last_committed()
        .and_then(|c| cp.offsets.get(&c))
        .and_then(|e| e.batch_timestamp_millis);
    Positions {
        committed,
        previous,
        uncommitted,
        committed_time,
    }
}

/// Pairs a checkpoint with a table and consumer, or says why it cannot.
fn pair(
    cp: &Checkpoint,
    tables: &[TableReport],
    pairings: &[SparkPairing],
) -> Result<Paired, String> {
    if let Some(p) = pairings.iter().find(|p| p.checkpoint == cp.path) {
        return match table_index(tables, &p.table) {
            Some(table) => Ok(Paired {
                table,
                consumer: p.consumer.clone(),
                kind: SparkPairingKind::User,
            }),
            None => Err(format!(
                "the pairing names {}, which is not a table here",
                p.table
            )),
        };
    }
    let named: Vec<usize> = tables
        .iter()
        .enumerate()
        .filter(|(_, t)| t.consumers.iter().any(|c| c.id == cp.name))
        .map(|(i, _)| i)
        .collect();
    match named.as_slice() {
        [table] => {
            return Ok(Paired {
                table: *table,
                consumer: Some(cp.name.clone()),
                kind: SparkPairingKind::ConsumerName,
            })
        }
        [] => {}
        several => {
            return Err(format!(
                "{} tables have a consumer named {}",
                several.len(),
                cp.name
            ))
        }
    }
    match tables {
        [only] => Ok(match only.consumers.as_slice() {
            [] => Paired {
                table: 0,
                consumer: None,
                kind: SparkPairingKind::NoConsumer,
            },
            [c] => Paired {
                table: 0,
                consumer: Some(c.id.clone()),
                kind: SparkPairingKind::OnlyConsumer,
            },
            _ => Paired {
                table: 0,
                consumer: None,
                kind: SparkPairingKind::ConsumerUnknown,
            },
        }),
        [] => Err("the artifact holds no table".to_string()),
        several => Err(format!(
            "the artifact holds {} tables and branches and no consumer is named {}",
            several.len(),
            if cp.name.is_empty() {
                "like it"
            } else {
                &cp.name
            }
        )),
    }
}

fn summary(o: PaimonOffset) -> SparkOffset {
    SparkOffset {
        snapshot_id: o.snapshot_id,
        index: o.index,
        scan_snapshot: o.scan_snapshot,
        total_splits: o.total_splits,
    }
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
    match p.committed {
        Some((b, o)) => {
            f = f.evidence(format!(
                "{}: {} (last committed batch; {} exists)",
                cp.file(&format!("offsets/{b}")),
                o.describe(),
                cp.file(&format!("commits/{b}"))
            ))
        }
        None => f = f.evidence("no committed batch (commits/ is empty or absent)"),
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

/// Judges one paired checkpoint.
fn judge(
    cp: &Checkpoint,
    p: &Positions,
    paired: &Paired,
    table: &TableReport,
    t: &Timeline,
) -> (SparkCheckpointReport, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut verdicts = Vec::new();
    let consumer = paired.consumer.as_deref();
    let consumer_report = consumer.and_then(|c| table.consumers.iter().find(|r| r.id == c));
    let next = consumer_report.and_then(|r| r.next_snapshot);
    let earliest = t.earliest_readable();
    let what_earliest = if t.long_lived_changelogs.is_empty() {
        "snapshot"
    } else {
        "snapshot or long-lived changelog"
    };
    let with_ids = |mut f: Finding| {
        if let Some(c) = consumer {
            f = f.consumer(c);
        }
        f
    };

    // spark-batch-uncommitted
    if let Some(f) = uncommitted(cp, p, earliest, consumer) {
        verdicts.push(SparkCheckpointVerdict::Uncommitted);
        findings.push(f);
    }

    // spark-offset-expired
    if let (Some((c, o)), Some(e)) = (p.committed, earliest) {
        let resume = o.resume_snapshot();
        let certain = resume < e;
        // Without totalSplits, the batch may have ended inside snapshot s: s itself is needed.
        let possible = o.completes_snapshot().is_none() && o.snapshot_id < e;
        if certain || possible {
            verdicts.push(SparkCheckpointVerdict::Expired);
            let (severity, message) = if certain {
                (
                    Severity::Error,
                    format!(
                        "Spark checkpoint {} resumes at snapshot {resume} (its last committed batch \
                         {c} ends at {}), but the earliest readable {what_earliest} is {e}: a \
                         restart from this checkpoint falls back to the query's initial offset or \
                         fails, and {} never read.",
                        shown(&cp.path),
                        o.describe(),
                        snapshots_are(resume, e.saturating_sub(1))
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
            findings.push(
                with_ids(Finding::new(
                    Code::SparkOffsetExpired,
                    severity,
                    message,
                    format!(
                        "Treat {} as lost for this query: rebuild its output from a \
                         full read (a new query with a new checkpoint location and scan.mode \
                         latest-full), or replay them from the source system. Then keep snapshots \
                         longer than the longest stop of the query (snapshot.time-retained, \
                         snapshot.num-retained.min, or a consumer-id with consumer.expiration-time).",
                        snapshots(resume, e.saturating_sub(1))
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

    // The consumer positions the committed progress allows (seed 000).
    let upper = p.committed.map(|(_, o)| {
        o.consumer_position()
            .unwrap_or(match o.completes_snapshot() {
                Some(false) => o.snapshot_id,
                _ => o.snapshot_id.saturating_add(1),
            })
    });
    let lower = p.previous.and_then(|(_, o)| o.consumer_position());
    let expected = match (lower, p.committed.and_then(|(_, o)| o.consumer_position())) {
        (Some(first), Some(last)) => Some(IdRange { first, last }),
        _ => None,
    };
    let legacy = p.committed.is_some_and(|(_, o)| o.total_splits.is_none());

    if let Some(c) = consumer {
        // spark-offset-legacy
        if let (true, Some((b, o))) = (legacy, p.committed) {
            verdicts.push(SparkCheckpointVerdict::Legacy);
            findings.push(
                with_ids(Finding::new(
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

        match (next, consumer_report) {
            (Some(n), _) => {
                // consumer-ahead-of-checkpoint
                if let (Some(hi), Some((b, o))) = (upper, p.committed) {
                    if n > hi {
                        verdicts.push(SparkCheckpointVerdict::ConsumerAhead);
                        findings.push(
                            with_ids(Finding::new(
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
                // consumer-behind-checkpoint
                if let (Some(lo), Some((pb, po))) = (lower, p.previous) {
                    if n < lo && !legacy {
                        verdicts.push(SparkCheckpointVerdict::ConsumerBehind);
                        findings.push(
                            with_ids(Finding::new(
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
            (None, None) => {
                if let (Some(lo), Some((pb, po))) = (lower, p.previous) {
                    verdicts.push(SparkCheckpointVerdict::ConsumerBehind);
                    findings.push(
                        with_ids(Finding::new(
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
            // The consumer file is unreadable: consumer-unreadable says so.
            (None, Some(_)) => {}
        }
    } else if paired.kind == SparkPairingKind::ConsumerUnknown {
        let mut f = Finding::new(
            Code::SparkCheckpointUnpaired,
            Severity::Warning,
            format!(
                "Spark checkpoint {} reads this table, which has {} consumers and none named {}: the \
                 tool does not guess which one the query uses, so the consumer checks were skipped.",
                shown(&cp.path),
                table.consumers.len(),
                if cp.name.is_empty() { "like it" } else { &cp.name }
            ),
            format!(
                "Pair it: --spark-checkpoint {}={}#<consumer id> on the command line (consumers: {}), \
                 or choose the consumer on the page.",
                cp.path,
                pairing_path(table),
                list(table.consumers.iter().map(|c| c.id.clone()))
            ),
        )
        .files([cp.path.clone()]);
        f = describe_positions(f, cp, p);
        findings.push(f);
    }

    // spark-initial-scan-unfenced
    if let Some((b, o)) = p.newest() {
        if o.scan_snapshot && o.completes_snapshot() != Some(true) {
            let s = o.snapshot_id;
            let fences = !t.options.consumer_changelog_only;
            let fencing: Vec<&str> = table
                .consumers
                .iter()
                .filter(|c| fences && c.next_snapshot.is_some_and(|n| n <= s))
                .map(|c| c.id.as_str())
                .collect();
            if fencing.is_empty() {
                verdicts.push(SparkCheckpointVerdict::InitialScanUnfenced);
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
                let mut f = with_ids(Finding::new(
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
                        list(table.consumers.iter().map(|c| format!(
                            "{}={}",
                            c.id,
                            c.next_snapshot.map_or("?".to_string(), |n| n.to_string())
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
                findings.push(f);
            }
        }
    }

    let report = SparkCheckpointReport {
        path: cp.path.clone(),
        query_id: cp.query_id.clone(),
        last_planned_batch: cp.last_planned(),
        last_committed_batch: cp.last_committed(),
        offset: p.committed.map(|(_, o)| summary(o)),
        committed_time_millis: p.committed_time,
        planned_offset: p.uncommitted.last().and_then(|(_, o)| o.map(summary)),
        resume_snapshot: p.committed.map(|(_, o)| o.resume_snapshot()),
        consumer: paired.consumer.clone(),
        consumer_next_snapshot: next,
        expected_consumer: expected,
        pairing: paired.kind,
        verdict: SparkCheckpointVerdict::Safe,
        verdicts,
    };
    (report, findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn off(s: i64, i: i64, scan: bool, total: Option<i64>) -> PaimonOffset {
        PaimonOffset {
            snapshot_id: s,
            index: i,
            scan_snapshot: scan,
            total_splits: total,
        }
    }

    #[test]
    fn positions_prefer_the_newest_planned_offset() {
        let p = Positions {
            committed: Some((3, off(4, 0, false, Some(1)))),
            previous: Some((2, off(3, 0, false, Some(1)))),
            uncommitted: vec![(4, Some(off(5, 0, false, Some(1)))), (5, None)],
            committed_time: None,
        };
        assert_eq!(p.newest(), Some((4, off(5, 0, false, Some(1)))));
    }
}
