//! The recovery analysis on real warehouses: what each fixture must and must not report.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use prv::findings::{Code, ConsumerVerdict, Report, Severity, Verdict};

use common::{all_fixture_zips, fixture, report};

fn codes(r: &Report) -> Vec<(Code, Severity, Option<i64>)> {
    r.all_findings()
        .map(|(_, f)| (f.code, f.severity, f.snapshot))
        .collect()
}

fn crash(name: &str) -> Report {
    report(&fixture(&format!("warehouses/{name}.zip")))
}

#[test]
fn crash_fixtures_report_lost_changelog_at_snapshot_7_with_the_orphan_changelog() {
    for name in [
        "java09_d0_state_right_after_crash",
        "java09_d_crash_between_append_and_compact",
    ] {
        let r = crash(name);
        assert_eq!(r.verdict, Verdict::Fail, "{name}");
        let lost: Vec<_> = r
            .all_findings()
            .filter(|(_, f)| f.code == Code::LostChangelog)
            .map(|(_, f)| f)
            .collect();
        assert_eq!(lost.len(), 1, "{name}: {lost:#?}");
        let f = lost[0];
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(f.snapshot, Some(7));
        assert_eq!(f.commit_user.as_deref(), Some("crash-writer"));
        assert_eq!(f.commit_identifier, Some(4));
        assert!(
            f.files
                .iter()
                .any(|x| x == "bucket-0/changelog-af6d83bc-7cb7-4403-9e65-e1f162b23c84-0.parquet"),
            "{name}: {:?}",
            f.files
        );
        // The unpublished COMPACT's manifest lists are evidence too, not separate orphans.
        assert!(f.files.iter().any(|x| x.contains("manifest-list-c79efd78")));
        assert!(!r
            .all_findings()
            .any(|(_, f)| f.code == Code::OrphanFile
                && f.files.iter().any(|x| x.contains("af6d83bc"))));
    }
}

#[test]
fn partial_loss_is_told_apart_from_no_changelog_at_all() {
    let after = crash("java09_d_crash_between_append_and_compact");
    let f = after
        .all_findings()
        .find(|(_, f)| f.code == Code::LostChangelog)
        .unwrap()
        .1;
    assert_eq!(f.related_snapshots, vec![9]);
    assert!(f
        .evidence
        .iter()
        .any(|e| e.starts_with("partial loss: snapshot 9")));
    assert!(f
        .evidence
        .iter()
        .any(|e| e.contains("recovery skipped identifier 4")));

    let before = crash("java09_d0_state_right_after_crash");
    let f = before
        .all_findings()
        .find(|(_, f)| f.code == Code::LostChangelog)
        .unwrap()
        .1;
    assert!(f.related_snapshots.is_empty());
    assert!(f
        .evidence
        .iter()
        .any(|e| e.contains("no changelog was ever produced")));
    assert!(f
        .evidence
        .iter()
        .any(|e| e.contains("writer's last commit")));
}

#[test]
fn cdc_reader_is_past_the_lost_changelog_after_recovery() {
    let r = crash("java09_d_crash_between_append_and_compact");
    let c = &r.tables[0].consumers[0];
    assert_eq!(c.id, "cdc-reader");
    assert_eq!(c.next_snapshot, Some(8));
    assert_eq!(c.verdict, ConsumerVerdict::PastLostChangelog);
    assert!(codes(&r).contains(&(Code::ConsumerPastLostChangelog, Severity::Error, Some(7))));

    // Right after the crash the reader has not crossed snapshot 7 yet.
    let r = crash("java09_d0_state_right_after_crash");
    let c = &r.tables[0].consumers[0];
    assert_eq!(c.next_snapshot, Some(7));
    assert_ne!(c.verdict, ConsumerVerdict::PastLostChangelog);
    assert!(codes(&r).contains(&(
        Code::ConsumerBeforeLostChangelog,
        Severity::Warning,
        Some(7)
    )));
}

#[test]
fn the_stale_consumer_in_b2_is_judged_expired() {
    let r = crash("java09_b2_stale_consumer");
    let t = &r.tables[0];
    let stale = t.consumers.iter().find(|c| c.id == "stale-reader").unwrap();
    assert_eq!(stale.verdict, ConsumerVerdict::Expired);
    let healthy = t
        .consumers
        .iter()
        .find(|c| c.id == "healthy-reader")
        .unwrap();
    assert_eq!(healthy.verdict, ConsumerVerdict::CaughtUp);
    let f = t
        .findings
        .iter()
        .find(|f| f.code == Code::ConsumerExpired)
        .unwrap();
    assert_eq!(f.consumer.as_deref(), Some("stale-reader"));
    assert_eq!(f.snapshot, Some(2));
    assert!(f.message.contains("silently starts at 6"));
}

#[test]
fn healthy_fixtures_have_no_errors() {
    for name in [
        "java09_a_healthy_pk",
        "java09_b_consumer",
        "java09_c_split_commits",
        "java09_e_expire_changelog_tag_branch",
        "pypaimon21_a_healthy_pk",
        "pypaimon21_b_consumer",
    ] {
        let r = crash(name);
        let errors: Vec<_> = r
            .all_findings()
            .filter(|(_, f)| f.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        assert!(
            !r.all_findings().any(|(_, f)| f.code == Code::LostChangelog),
            "{name}"
        );
    }
}

#[test]
fn lagging_consumer_pins_expiration() {
    let r = crash("java09_b_consumer");
    let fence = r.tables[0].expiration_fence.as_ref().unwrap();
    assert_eq!(fence.consumer, "lagging-reader");
    assert_eq!(fence.next_snapshot, 4);
    assert!(fence.fences_snapshots);
}

#[test]
fn full_compaction_every_second_commit_is_healthy() {
    // fullcompact_t has APPENDs 1 and 4 without a COMPACT at their identifier: compacted later.
    let r = crash("java09_c_split_commits");
    let t = r
        .tables
        .iter()
        .find(|t| t.path.ends_with("fullcompact_t"))
        .unwrap();
    assert!(
        t.findings
            .iter()
            .all(|f| f.code != Code::PendingChangelog && f.code != Code::LostChangelog),
        "{:#?}",
        t.findings
    );
}

#[test]
fn every_fixture_is_analysed_without_panicking_and_deterministically() {
    for path in all_fixture_zips() {
        let a = prv::report::json::render(&report(&path));
        let b = prv::report::json::render(&report(&path));
        assert_eq!(a, b, "{}", path.display());
    }
}

#[test]
fn snapshot_detail_lists_the_files_of_a_compact() {
    let path = fixture("warehouses/java09_d_crash_between_append_and_compact.zip");
    let artifact = common::open(&path);
    let analysis = prv::run(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    let table = &analysis.report.tables[0].path;
    let d = analysis.snapshot_detail(table, "main", 9).unwrap();
    assert_eq!(d.added.len(), 1);
    assert_eq!(d.deleted.len(), 3);
    assert_eq!(d.changelog.len(), 1);
    assert!(d.complete);
    assert!(d.changelog[0].name.starts_with("changelog-"));
    assert!(d
        .fields
        .iter()
        .any(|(k, v)| k == "commitKind" && v == "COMPACT"));
    assert_eq!(d.deleted.iter().filter(|f| f.level == 0).count(), 2);
    assert!(analysis.snapshot_detail(table, "main", 99).is_none());
    assert!(analysis.snapshot_detail(table, "nope", 9).is_none());
}

/// Every generated scenario reports the codes it was made to show, and none it must not.
#[test]
fn scenarios_report_what_they_were_made_to_show() {
    let path = fixture("warehouses/scenarios.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        panic!("{} is missing", path.display());
    };
    let all: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut checked = 0;
    let mut shown = std::collections::BTreeSet::new();
    for (name, spec) in all.as_object().unwrap() {
        let Some(zip) = spec.get("zip").and_then(|z| z.as_str()) else {
            continue;
        };
        let r = report(&fixture(&format!("warehouses/{zip}")));
        let got: std::collections::BTreeSet<String> = r
            .all_findings()
            .map(|(_, f)| f.code.as_str().to_string())
            .collect();
        for want in spec["expect"].as_array().unwrap() {
            let want = want.as_str().unwrap();
            assert!(got.contains(want), "{name}: expected {want}, got {got:?}");
            shown.insert(want.to_string());
        }
        for not in spec["expect_not"].as_array().unwrap() {
            let not = not.as_str().unwrap();
            assert!(
                !got.contains(not),
                "{name}: must not report {not}, got {got:?}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
    // Together with the shared fixtures, every table-level finding code of the contract is shown
    // on a real warehouse.
    for code in [
        "lost-changelog",
        "pending-changelog",
        "changelog-not-produced",
        "consumer-ahead",
        "consumer-stale",
        "consumer-unreadable",
        "snapshot-gap",
        "hint-mismatch",
        "snapshot-temp-file",
        "dangling-reference",
        "artifact-incomplete",
        "orphan-file",
        "unreadable-file",
        "risky-options",
    ] {
        assert!(shown.contains(code), "no scenario shows {code}");
    }
}

#[test]
fn file_references_answer_who_holds_a_file() {
    let path = fixture("warehouses/java09_d_crash_between_append_and_compact.zip");
    let artifact = common::open(&path);
    let analysis = prv::run(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    let table = analysis.report.tables[0].path.clone();
    let roles = |name: &str| -> Vec<(String, Option<(i64, i64)>)> {
        analysis
            .file_references(&artifact, &table, name)
            .unwrap()
            .references
            .into_iter()
            .map(|r| (r.role, r.snapshots))
            .collect()
    };
    // The APPEND's level-0 file: added by 7, live 7..8, deleted by the compaction in 9.
    let data = roles("data-077642f7-b518-4896-a556-da7bd91a7462-0.parquet");
    assert!(data.contains(&("added".into(), Some((7, 7)))), "{data:?}");
    assert!(data.contains(&("live".into(), Some((7, 8)))), "{data:?}");
    assert!(data.contains(&("deleted".into(), Some((9, 9)))), "{data:?}");
    // The lost changelog file: nobody.
    let lost = analysis
        .file_references(
            &artifact,
            &table,
            "changelog-af6d83bc-7cb7-4403-9e65-e1f162b23c84-0.parquet",
        )
        .unwrap();
    assert!(lost.references.is_empty() && lost.orphan, "{lost:?}");
    // Snapshot 9's delta list.
    let list = roles("manifest-list-86ef48ed-26b5-4142-9e22-bf7d3fca3034-3");
    assert_eq!(list, vec![("delta list".to_string(), Some((9, 9)))]);
    // A changelog file committed by snapshot 9.
    let d9 = analysis.snapshot_detail(&table, "main", 9).unwrap();
    let cl = roles(&d9.changelog[0].name);
    assert_eq!(cl, vec![("changelog".to_string(), Some((9, 9)))]);
    assert!(analysis.file_references(&artifact, "nope", "x").is_none());
}

/// The healthy table with `n` unreferenced data files added to its bucket: the orphan finding's
/// evidence names at most 20 of them, then "… and N more" for the others, and only when there
/// are others (`checks::files::orphans`).
fn orphan_evidence(n: usize) -> Vec<String> {
    let dir = "java09_a_healthy_pk/db.db/orders/dt=2024-01-02/bucket-0";
    let mut entries = common::fixture_entries("warehouses/java09_a_healthy_pk.zip", |_, b| Some(b));
    for i in 0..n {
        let name = format!("{dir}/data-00000000-0000-0000-0000-{i:012}-0.parquet");
        entries.push(common::zipwriter::Entry::new(&name, b"PAR1".to_vec()));
    }
    let r = common::analyse(&common::zip_artifact("orphans.zip", &entries));
    let orphans: Vec<_> = r
        .all_findings()
        .filter(|(_, f)| f.code == Code::OrphanFile)
        .map(|(_, f)| f.evidence.clone())
        .collect();
    assert_eq!(orphans.len(), 1, "{orphans:?}");
    orphans.into_iter().next().unwrap()
}

#[test]
fn orphan_evidence_counts_the_files_past_the_twenty_it_names() {
    let twenty = orphan_evidence(20);
    let named = |e: &[String]| {
        e.iter()
            .filter(|l| l.contains("/bucket-0/data-00000000"))
            .count()
    };
    assert_eq!(named(&twenty), 20, "{twenty:?}");
    assert!(!twenty.iter().any(|l| l.contains("more")), "{twenty:?}");
    let more = orphan_evidence(23);
    assert_eq!(named(&more), 20, "{more:?}");
    assert!(more.iter().any(|l| l == "… and 3 more"), "{more:?}");
}

/// An unreadable delta manifest list whose manifests the next snapshot still names hides no
/// file: its `unreadable-file` finding says nothing of files it may name, where a count of
/// such files is said only when there are some (`checks::files::unreadable_references`).
#[test]
fn an_unreadable_list_that_hides_no_file_says_nothing_of_uncertain_orphans() {
    let list = "java09_a_healthy_pk/db.db/orders/manifest/manifest-list-a132835d-1b8a-46e2-8f7f-67965ad7666b-1";
    let entries = common::fixture_entries("warehouses/java09_a_healthy_pk.zip", |p, b| {
        Some(if p == list { b"not avro".to_vec() } else { b })
    });
    let r = common::analyse(&common::zip_artifact("unreadable-list.zip", &entries));
    let unreadable: Vec<_> = r
        .all_findings()
        .filter(|(_, f)| {
            f.code == Code::UnreadableFile
                && f.files
                    .iter()
                    .any(|x| x.contains("a132835d-1b8a-46e2-8f7f-67965ad7666b-1"))
        })
        .map(|(_, f)| f.evidence.clone())
        .collect();
    assert_eq!(unreadable.len(), 1, "{unreadable:?}");
    assert!(!r.all_findings().any(|(_, f)| f.code == Code::OrphanFile));
    assert!(
        !unreadable[0]
            .iter()
            .any(|l| l.contains("may be named by this one")),
        "{unreadable:?}"
    );
}

/// An INSERT OVERWRITE on a `changelog-producer = input` table leaves the changelog files its
/// writer produced unreferenced, by design (`FileStoreCommitImpl.overwrite`): Java Paimon 0.9 did
/// so twice in `java09_abandoned_rows`'s `db.rescaled`. They are told apart from a lost commit's
/// changelog by their writer UUID (shared with data files each OVERWRITE added): info, with what
/// the table's streaming readers do with an OVERWRITE, never "never delivered" as a warning. The
/// abandoned commit's changelog in `db.abandoned` stays a warning.
#[test]
fn changelog_an_overwrite_left_behind_is_paimons_design_not_a_failure() {
    let r = common::report(&common::fixture("warehouses/java09_abandoned_rows.zip"));
    let orphans = |table: &str| -> Vec<_> {
        common::table_findings(&r, table, Code::OrphanFile)
            .into_iter()
            .filter(|f| f.message.contains("changelog file"))
            .collect()
    };
    let (rescaled, failed): (Vec<_>, Vec<_>) = orphans("db.db/rescaled")
        .into_iter()
        .partition(|f| f.message.contains("OVERWRITE"));
    // the changelog of the writer that halted before its commit, between the two OVERWRITEs
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert_eq!(failed[0].severity, Severity::Warning);
    let mut by_overwrite: Vec<_> = rescaled
        .iter()
        .map(|f| {
            (
                f.severity,
                f.files.len(),
                f.message.contains("OVERWRITE snapshot 3"),
                f.message.contains("OVERWRITE snapshot 4"),
            )
        })
        .collect();
    by_overwrite.sort_by_key(|x| x.1);
    assert_eq!(
        by_overwrite,
        [
            (Severity::Info, 2, true, false),
            (Severity::Info, 4, false, true),
        ],
        "{rescaled:#?}"
    );
    for f in &rescaled {
        assert!(f.evidence.iter().any(|e| e
            == "the table does not set streaming-read-overwrite (default false): its streaming readers skip OVERWRITE snapshots"), "{f:#?}");
        assert!(f.remedy.starts_with("Nothing to recover"), "{f:#?}");
    }
    let abandoned = orphans("db.db/abandoned");
    assert_eq!(abandoned.len(), 1, "{abandoned:#?}");
    assert_eq!(abandoned[0].severity, Severity::Warning);
    assert!(
        abandoned[0]
            .message
            .contains("a commit that never became durable"),
        "{abandoned:#?}"
    );
}

/// A healthy lookup table with a daily INSERT OVERWRITE (`java09_overwrite_lookup`, Java Paimon
/// 0.9): the batch writer's compaction produced a lookup changelog file (a UUID of its own) that
/// the overwrite did not commit. Written in the bucket the OVERWRITE changed while it was being
/// written, with no unreferenced data file beside it: info, the report passes. (Before, "a
/// commit that never became durable", a warning on a table where nothing failed.)
#[test]
fn a_lookup_overwrites_uncommitted_changelog_is_no_warning() {
    let r = report(&fixture("warehouses/java09_overwrite_lookup.zip"));
    assert_eq!(r.verdict, Verdict::Pass, "{:#?}", codes(&r));
    let orphans: Vec<_> = r
        .all_findings()
        .filter(|(_, f)| f.code == Code::OrphanFile)
        .map(|(_, f)| f)
        .collect();
    assert_eq!(orphans.len(), 1, "{orphans:#?}");
    assert_eq!(orphans[0].severity, Severity::Info);
    assert!(
        orphans[0]
            .message
            .starts_with("1 unreferenced changelog file (1197 bytes): written while OVERWRITE snapshot 5 was being written"),
        "{}",
        orphans[0].message
    );
}

/// One artifact holding the same warehouse twice (`before/` and `after/`, as a CI job that
/// uploads two captures does): every file name is in both copies, and each copy's manifests
/// are resolved against its own files. Both copies are healthy, with the same findings.
#[test]
fn the_same_warehouse_twice_in_one_artifact_is_healthy_twice() {
    let mut entries = Vec::new();
    for copy in ["before", "after"] {
        entries.extend(common::fixture_entries(
            "warehouses/java09_a_healthy_pk.zip",
            |_, b| Some(b),
        ));
        for e in entries
            .iter_mut()
            .rev()
            .take_while(|e| !e.name.starts_with(b"before/") && !e.name.starts_with(b"after/"))
        {
            e.name = [copy.as_bytes(), b"/", &e.name].concat();
        }
    }
    let r = common::analyse(&common::zip_artifact("twice.zip", &entries));
    let single = report(&fixture("warehouses/java09_a_healthy_pk.zip"));
    assert_eq!(r.tables.len(), 2 * single.tables.len());
    assert_eq!(r.verdict, single.verdict, "{:#?}", codes(&r));
    let found = |r: &Report| -> Vec<(Code, Severity)> {
        let mut v: Vec<_> = r
            .all_findings()
            .map(|(_, f)| (f.code, f.severity))
            .collect();
        v.sort();
        v
    };
    let mut twice = found(&single);
    twice.extend(found(&single));
    twice.sort();
    assert_eq!(found(&r), twice);
}

/// `java09_inflight_orphans` (Java 0.9: six unreferenced data and changelog files, a warning
/// among them) with one metadata file added that cannot be parsed, a hand edit (an upload cut
/// it short): a tag, or a long-lived changelog, with the table at `prefix` in the zip. An
/// unreadable tag or long-lived changelog may reference any of those files, so none is an
/// orphan any more: one info says whose they may be, and the damaged file is an
/// `unreadable-file` finding of its own.
fn orphans_with_unreadable(extra: &str, prefix: &str) -> Report {
    let table = "java09_inflight_orphans/db.db/inflight/";
    let mut snapshot = Vec::new();
    let mut entries = common::fixture_entries("warehouses/java09_inflight_orphans.zip", |p, b| {
        if p.ends_with("snapshot/snapshot-8") {
            snapshot.clone_from(&b);
        }
        Some(b)
    });
    entries.push(common::zipwriter::Entry::new(
        &format!("{table}{extra}"),
        snapshot[..snapshot.len() / 2].to_vec(),
    ));
    for e in &mut entries {
        if let Some(rest) = e.name.strip_prefix(table.as_bytes()) {
            e.name = [prefix.as_bytes(), rest].concat();
        }
    }
    common::analyse(&common::zip_artifact("inflight.zip", &entries))
}

#[test]
fn unreferenced_files_an_unreadable_tag_or_long_lived_changelog_may_hold_are_not_orphans() {
    let intact = crash("java09_inflight_orphans");
    assert_eq!(intact.verdict, Verdict::Warn);
    for prefix in ["java09_inflight_orphans/db.db/inflight/", ""] {
        for extra in ["tag/tag-nightly", "changelog/changelog-3"] {
            let ctx = format!("{extra} under {prefix:?}");
            let r = orphans_with_unreadable(extra, prefix);
            let orphans: Vec<_> = r
                .all_findings()
                .filter(|(_, f)| f.code == Code::OrphanFile)
                .map(|(_, f)| f)
                .collect();
            assert_eq!(orphans.len(), 1, "{ctx}: {orphans:#?}");
            let f = orphans[0];
            assert_eq!(f.severity, Severity::Info, "{ctx}: {f:#?}");
            assert!(
                f.message
                    .starts_with("6 unreferenced files may belong to an unreadable"),
                "{ctx}: {f:#?}"
            );
            assert!(
                f.evidence
                    .iter()
                    .all(|e| e
                        .ends_with(": an unreadable tag or long-lived changelog may reference it")),
                "{ctx}: {f:#?}"
            );
            let unreadable: Vec<_> = r
                .all_findings()
                .filter(|(_, f)| f.code == Code::UnreadableFile)
                .flat_map(|(_, f)| f.files.clone())
                .collect();
            assert_eq!(unreadable, vec![extra.to_string()], "{ctx}");
        }
    }
}

/// The lost COMPACT of the crash fixture with its orphan changelog file removed (as a clean-up
/// would) and the two manifests of its unpublished lists cut short (a hand edit by nature:
/// damaged files). Nothing readable proves the loss and nothing shows the commit was whole:
/// the unreadable manifests may hold the COMPACT's changelog, so the report says whether it
/// was lost cannot be told, naming them, and claims neither loss nor "nothing shows it".
#[test]
fn an_unreadable_manifest_of_the_unpublished_half_leaves_the_loss_unknown() {
    let root = "java09_d_crash_between_append_and_compact/db.db/lk_crash/";
    let ghosts = [
        "manifest/manifest-d593b0f5-7b4d-4f4e-9f64-7eee5ed0fa59-1",
        "manifest/manifest-d593b0f5-7b4d-4f4e-9f64-7eee5ed0fa59-2",
    ];
    let entries = common::fixture_entries(
        "warehouses/java09_d_crash_between_append_and_compact.zip",
        |path, bytes| {
            let rel = path.strip_prefix(root).unwrap_or(path);
            if rel == "bucket-0/changelog-af6d83bc-7cb7-4403-9e65-e1f162b23c84-0.parquet" {
                None
            } else if ghosts.contains(&rel) {
                Some(bytes[..bytes.len() / 2].to_vec())
            } else {
                Some(bytes)
            }
        },
    );
    let r = common::analyse(&common::zip_artifact("cut.zip", &entries));
    let table = |code: Code| common::table_findings(&r, "lk_crash", code);
    assert!(table(Code::LostChangelog).is_empty());
    let f: Vec<_> = table(Code::ArtifactIncomplete)
        .into_iter()
        .filter(|f| f.snapshot == Some(7))
        .collect();
    assert_eq!(f.len(), 1, "{:#?}", r.all_findings().collect::<Vec<_>>());
    assert_eq!(f[0].severity, Severity::Warning);
    assert_eq!(f[0].files, ghosts);
    assert!(f[0].message.contains("cannot be told"), "{}", f[0].message);
    for p in table(Code::PendingChangelog) {
        assert!(
            !p.related_snapshots.contains(&7) && p.snapshot != Some(7),
            "{p:#?}"
        );
    }
}
