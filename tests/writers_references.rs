//! References and orphans on the real-writer warehouses of `tests/fixtures/writers/` (issue 20,
//! items 1, 4, 5, 6, 7; rows T*, M*, R*, E*, I*, C1 of `TRIAGE.md`): what must and must not be
//! said about references Paimon leaves dangling on purpose, truly missing files, orphans by
//! cause, external data paths and index files in bucket directories.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::{fixture, report};
use prv::findings::{Code, Finding, Report, Severity};

fn writers(name: &str) -> Report {
    report(&fixture(&format!("writers/{name}.zip")))
}

/// Every finding of the tables whose path ends in `/<table>`, with the table's branch.
fn of_table<'r>(r: &'r Report, table: &str) -> Vec<(&'r str, &'r Finding)> {
    r.tables
        .iter()
        .filter(|t| t.path.ends_with(&format!("/{table}")))
        .flat_map(|t| t.findings.iter().map(move |f| (t.branch.as_str(), f)))
        .collect()
}

fn all(r: &Report) -> Vec<(&str, &Finding)> {
    r.tables
        .iter()
        .flat_map(|t| t.findings.iter().map(move |f| (t.branch.as_str(), f)))
        .chain(r.findings.iter().map(|f| ("", f)))
        .collect()
}

fn text(f: &Finding) -> String {
    format!("{} {} {}", f.message, f.remedy, f.evidence.join(" "))
}

// ---- 20.1: references Paimon leaves dangling on purpose ----

#[test]
fn tags_and_tag_born_snapshots_without_changelog_are_infos_not_errors() {
    for name in ["j09_tags_by_design", "j10_tags_by_design"] {
        let r = writers(name);
        for (branch, f) in all(&r) {
            assert_ne!(
                f.severity,
                Severity::Error,
                "{name} [{branch}]: {}",
                f.message
            );
            assert!(
                !text(f).contains("interrupted expiration"),
                "{name} [{branch}]: {}",
                f.message
            );
            assert!(
                !f.message
                    .contains("reading or time-travelling to them fails"),
                "{name} [{branch}]: {}",
                f.message
            );
        }
        // tag t2 (main and early), snapshot 4 of early: one info that says what a reader gets
        let tagged = of_table(&r, "tagged");
        let infos: Vec<_> = tagged
            .iter()
            .filter(|(_, f)| f.code == Code::DanglingReference)
            .collect();
        assert!(!infos.is_empty(), "{name}: no info on db.tagged");
        for (branch, f) in &infos {
            assert_eq!(f.severity, Severity::Info, "{name} [{branch}]");
            let t = text(f);
            assert!(t.contains("streaming"), "{name}: {t}");
            assert!(t.contains("batch"), "{name}: {t}");
            assert!(t.contains("expir"), "{name}: {t}");
        }
        let named: String = infos.iter().map(|(_, f)| f.message.clone()).collect();
        assert!(named.contains("tag t2"), "{name}: {named}");
        assert!(
            named.contains("snapshot 4 of branch early"),
            "{name}: {named}"
        );
        // the rollback to a tag: snapshot 2 and tag t1, named as a rollback candidate
        let rolled = of_table(&r, "rolled_to_tag");
        let f = rolled
            .iter()
            .find(|(_, f)| f.code == Code::DanglingReference && f.message.contains("snapshot 2"))
            .unwrap_or_else(|| panic!("{name}: nothing about snapshot 2 of rolled_to_tag"));
        assert_eq!(f.1.severity, Severity::Info);
        assert!(text(f.1).contains("rollback"), "{}", text(f.1));
        // T5: the half-created branch late is named
        assert!(
            tagged
                .iter()
                .any(|(_, f)| f.message.contains("branch late") && f.severity == Severity::Info),
            "{name}: nothing about the half-created branch late"
        );
        assert_ne!(r.verdict.as_str(), "fail", "{name}");
    }
}

#[test]
fn a_truly_missing_file_beside_by_design_references_keeps_one_error_counted_once() {
    let r = writers("j09_tags_truly_missing");
    let errors: Vec<_> = all(&r)
        .into_iter()
        .filter(|(_, f)| f.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{:#?}", errors);
    let f = errors[0].1;
    assert_eq!(f.code, Code::DanglingReference);
    assert!(f.message.contains("1 missing file"), "{}", f.message);
    assert!(!f.message.contains("manifest list"), "{}", f.message);
    assert!(
        f.files.iter().all(|p| !p.contains("manifest-list")),
        "{:?}",
        f.files
    );
    assert!(
        f.files.iter().any(|p| p.ends_with("-1.parquet")),
        "{:?}",
        f.files
    );
    // named roots: tag t2, early's tag t2 and snapshots 4-5, late's tag t2
    for who in [
        "tag t2",
        "tag t2 of branch early",
        "snapshots 4, 5 of branch early",
        "tag t2 of branch late",
    ] {
        assert!(f.message.contains(who), "{who}: {}", f.message);
    }
    assert!(!text(f).contains("interrupted expiration"), "{}", text(f));
    assert!(!f.remedy.contains("Finish the expiration"), "{}", f.remedy);
}

// ---- 20.7: counting ----

#[test]
fn one_missing_file_referenced_by_two_snapshots_is_counted_once() {
    let r = writers("j09_missing_file_two_snapshots");
    let f = all(&r)
        .into_iter()
        .find(|(_, f)| f.code == Code::DanglingReference)
        .expect("a dangling reference")
        .1;
    assert_eq!(f.severity, Severity::Error);
    assert!(f.message.contains("1 missing file"), "{}", f.message);
    assert!(!f.message.contains("2 missing files"), "{}", f.message);
    assert!(f.message.contains("snapshots 1, 2"), "{}", f.message);
    assert_eq!(f.files.len(), 1, "{:?}", f.files);
}

// ---- 20.4: orphans by cause ----

#[test]
fn orphans_are_attributed_to_rollback_in_flight_or_expiration() {
    let r = writers("rs040_rollback_inflight");
    let orphans = |table: &str| -> Vec<String> {
        of_table(&r, table)
            .into_iter()
            .filter(|(_, f)| f.code == Code::OrphanFile)
            .map(|(_, f)| text(f))
            .collect()
    };
    let rolled = orphans("rolled");
    assert_eq!(rolled.len(), 3, "{rolled:#?}");
    for t in &rolled {
        assert!(t.contains("rollback") || t.contains("rolled back"), "{t}");
        assert!(!t.contains("in flight"), "{t}");
        assert!(!t.contains("a commit that was not published"), "{t}");
    }
    let expired = orphans("expired_not_cleaned");
    assert_eq!(expired.len(), 3, "{expired:#?}");
    for t in &expired {
        assert!(t.contains("expired"), "{t}");
        assert!(!t.contains("in flight"), "{t}");
        assert!(!t.contains("a commit that was not published"), "{t}");
    }
    let inflight = orphans("inflight");
    assert_eq!(inflight.len(), 2, "{inflight:#?}");
    for t in &inflight {
        assert!(t.contains("in flight"), "{t}");
    }
}

// ---- 20.5: external data paths ----

#[test]
fn external_files_held_beside_the_warehouse_are_resolved() {
    for name in ["pp200_external_complete", "pp210_external_complete"] {
        let r = writers(name);
        for (branch, f) in of_table(&r, "ext_t") {
            assert_ne!(
                f.code,
                Code::ArtifactIncomplete,
                "{name} [{branch}]: {}",
                f.message
            );
            assert_ne!(
                f.code,
                Code::DanglingReference,
                "{name} [{branch}]: {}",
                f.message
            );
            assert!(!f.message.contains("no bucket directories"), "{name}");
        }
    }
}

#[test]
fn a_missing_live_external_file_is_a_dangling_reference() {
    let r = writers("pp210_external_missing_file");
    let ext = of_table(&r, "ext_t");
    let f = ext
        .iter()
        .find(|(_, f)| f.code == Code::DanglingReference)
        .unwrap_or_else(|| panic!("no dangling reference: {ext:#?}"))
        .1;
    assert_eq!(f.severity, Severity::Error);
    assert!(f.message.contains("1 missing file"), "{}", f.message);
    assert!(
        f.files.iter().any(|p| p
            .ends_with("external/bucket-0/data-5e52e212-62fa-4724-a173-bda80d22ac7a-0.parquet")),
        "{:?}",
        f.files
    );
    assert!(ext
        .iter()
        .all(|(_, f)| !f.message.contains("no bucket directories")));
}

#[test]
fn external_roots_the_artifact_does_not_hold_are_said_to_be_outside_it() {
    let r = writers("pp210_external_warehouse_only");
    let ext = of_table(&r, "ext_t");
    assert!(
        ext.iter().all(|(_, f)| f.severity != Severity::Error),
        "{ext:#?}"
    );
    assert!(ext
        .iter()
        .all(|(_, f)| !f.message.contains("no bucket directories")));
    let f = ext
        .iter()
        .find(|(_, f)| f.code == Code::ArtifactIncomplete)
        .unwrap_or_else(|| panic!("nothing said: {ext:#?}"))
        .1;
    assert!(f.message.contains("outside the artifact"), "{}", f.message);
    assert!(
        text(f).contains("pp210_external_complete/external"),
        "{}",
        text(f)
    );
}

// ---- 20.6: index files in bucket directories ----

#[test]
fn index_files_in_bucket_directories_are_referenced_not_orphans() {
    let r = writers("pp210_dv_index_in_bucket");
    for (_, f) in of_table(&r, "dv_t") {
        assert_ne!(f.code, Code::OrphanFile, "{}", f.message);
        assert_ne!(f.code, Code::DanglingReference, "{}", f.message);
    }
}

#[test]
fn a_missing_index_file_is_named_where_the_option_puts_it() {
    let r = writers("pp210_dv_index_in_bucket_missing");
    let dv = of_table(&r, "dv_t");
    assert!(
        dv.iter().all(|(_, f)| f.code != Code::OrphanFile),
        "{dv:#?}"
    );
    let f = dv
        .iter()
        .find(|(_, f)| f.code == Code::DanglingReference)
        .expect("a dangling reference")
        .1;
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(
        f.files,
        vec!["bucket-0/index-a1df8e33-963c-4313-8198-1131e260f8f1-1".to_string()]
    );
}

/// The by-design rule rests on the tag: without a tag naming the list, the same missing
/// changelog list of a branch's first snapshot is an error again (nothing shows Paimon deleted
/// it on purpose).
#[test]
fn without_the_tag_the_missing_changelog_list_is_an_error() {
    let entries = common::fixture_entries("writers/j09_tags_by_design.zip", |path, bytes| {
        (!(path.contains("/tagged/") && path.contains("/tag/tag-t2"))).then_some(bytes)
    });
    let artifact = common::zip_artifact("no_tags.zip", &entries);
    let r = prv::analyze(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    let tagged = of_table(&r, "tagged");
    let f = tagged
        .iter()
        .find(|(b, f)| *b == "early" && f.code == Code::DanglingReference)
        .unwrap_or_else(|| panic!("nothing on branch early: {tagged:#?}"))
        .1;
    assert_eq!(f.severity, Severity::Error, "{}", f.message);
    assert!(f.message.contains("snapshot 4"), "{}", f.message);
    // the rollback table keeps its tag, and its info
    let rolled = of_table(&r, "rolled_to_tag");
    assert!(rolled
        .iter()
        .all(|(_, f)| f.code != Code::DanglingReference || f.severity == Severity::Info));
}

/// The page's file detail names who references an index file in a bucket directory: the
/// snapshots and tags whose index manifest lists it.
#[test]
fn file_references_name_the_holders_of_an_index_file_in_a_bucket_directory() {
    let path = fixture("writers/pp210_dv_index_in_bucket.zip");
    let artifact = common::open(&path);
    let analysis = prv::run(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    let table = analysis.report.tables[0].path.clone();
    let refs = analysis
        .file_references(
            &artifact,
            &table,
            "index-430082db-3785-4c5b-b895-c0b67d7755f5-1",
        )
        .unwrap();
    assert!(!refs.orphan, "{refs:?}");
    assert!(
        refs.references
            .iter()
            .any(|r| r.role == "index file" && r.snapshots == Some((2, 2))),
        "{refs:?}"
    );
}

/// A folder merely named like the external root (holding none of the table's files) is not
/// taken for it: its files are outside the artifact, not missing.
#[test]
fn a_folder_only_named_like_the_external_root_does_not_make_files_missing() {
    let mut entries =
        common::fixture_entries("writers/pp210_external_warehouse_only.zip", |_, b| Some(b));
    entries.push(common::zipwriter::Entry::new(
        "pp210_external_warehouse_only/external/bucket-0/unrelated.txt",
        b"not a Paimon file".to_vec(),
    ));
    let artifact = common::zip_artifact("named_alike.zip", &entries);
    let r = prv::analyze(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    let ext = of_table(&r, "ext_t");
    assert!(
        ext.iter().all(|(_, f)| f.severity != Severity::Error),
        "{ext:#?}"
    );
    assert!(
        ext.iter().any(|(_, f)| f.code == Code::ArtifactIncomplete
            && f.message.contains("outside the artifact")),
        "{ext:#?}"
    );
}

/// Without a modification time, an orphan's age cannot be compared with the snapshots: its cause
/// is said to be unknown, not "older than the newest snapshot".
#[test]
fn orphans_without_a_modification_time_have_an_unknown_cause() {
    let entries: Vec<_> =
        common::fixture_entries("writers/rs040_rollback_inflight.zip", |_, b| Some(b))
            .into_iter()
            .map(|mut e| {
                let name = String::from_utf8_lossy(&e.name).into_owned();
                if name.contains("/inflight/bucket-0/") {
                    e.dos_time = (0, 0); // month 0: no valid time
                }
                e
            })
            .collect();
    let artifact = common::zip_artifact("no_times.zip", &entries);
    let r = prv::analyze(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    let orphans: Vec<_> = of_table(&r, "inflight")
        .into_iter()
        .filter(|(_, f)| f.code == Code::OrphanFile)
        .collect();
    assert_eq!(orphans.len(), 2, "{orphans:#?}");
    for (_, f) in orphans {
        assert!(f.message.contains("unknown"), "{}", f.message);
        assert!(
            !f.message.contains("older than the newest snapshot"),
            "{}",
            f.message
        );
    }
}

/// A lookup table whose data files all live under a held external root has data directories:
/// its uncompacted APPENDs are judged as any table's (here: never compacted), not called
/// unprovable because "the artifact holds no data directories". The fixture is pypaimon 2.1.0's
/// external-path table with its schema's `changelog-producer` changed from `input` to `lookup`
/// in memory (a hand edit: pypaimon writes no lookup table with external paths that differs
/// from this one in anything but that option).
#[test]
fn a_lookup_table_with_held_external_files_has_data_directories() {
    let entries = common::fixture_entries("writers/pp210_external_complete.zip", |path, b| {
        if path.ends_with("/schema/schema-0") {
            let text = String::from_utf8(b).unwrap();
            return Some(
                text.replace(
                    r#""changelog-producer": "input""#,
                    r#""changelog-producer": "lookup""#,
                )
                .into_bytes(),
            );
        }
        Some(b)
    });
    let artifact = common::zip_artifact("external_lookup.zip", &entries);
    let r = prv::analyze(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    let ext = of_table(&r, "ext_t");
    assert!(
        ext.iter()
            .all(|(_, f)| !f.message.contains("no data directories")),
        "{ext:#?}"
    );
    assert!(
        ext.iter()
            .any(|(_, f)| matches!(f.code, Code::ChangelogNotProduced | Code::PendingChangelog)),
        "{ext:#?}"
    );
}

/// `java09_e_expire_changelog_tag_branch` (Java 0.9, `changelog.num-retained.max` past the
/// snapshots'): `changelog/changelog-2` outlived snapshot 2 and keeps only its changelog
/// manifest list (its base and delta lists were deleted with the snapshot, by design), which
/// names one changelog file. With `drop` (a path suffix) removed from the zip, a hand edit: an
/// upload that lost the file.
fn long_lived_changelog_without(drop: &str) -> Report {
    let entries = common::fixture_entries(
        "warehouses/java09_e_expire_changelog_tag_branch.zip",
        |p, b| (!p.ends_with(drop)).then_some(b),
    );
    common::analyse(&common::zip_artifact("e.zip", &entries))
}

/// A long-lived changelog needs its changelog manifest list and the files it names (its base
/// and delta lists are gone by design for a lookup table, and said nothing of): either missing
/// is an error naming the long-lived changelog.
#[test]
fn a_long_lived_changelogs_missing_list_or_file_is_an_error_its_gone_data_lists_are_not() {
    let intact = report(&fixture(
        "warehouses/java09_e_expire_changelog_tag_branch.zip",
    ));
    assert!(all(&intact)
        .iter()
        .all(|(_, f)| f.code != Code::DanglingReference));
    for (drop, what) in [
        (
            "manifest/manifest-list-069280a4-68bd-4bbd-a5fc-817f71e082f3-4",
            "manifest list manifest/manifest-list-069280a4-68bd-4bbd-a5fc-817f71e082f3-4 (missing), needed by long-lived changelog 2",
        ),
        (
            "bucket-0/changelog-74e1668b-cefb-4845-9c34-6e09b30f2d81-0.parquet",
            "bucket-0/changelog-74e1668b-cefb-4845-9c34-6e09b30f2d81-0.parquet",
        ),
    ] {
        let r = long_lived_changelog_without(drop);
        let dangling: Vec<_> = all(&r)
            .into_iter()
            .filter(|(_, f)| f.code == Code::DanglingReference)
            .collect();
        assert_eq!(dangling.len(), 1, "{drop}: {dangling:#?}");
        let f = dangling[0].1;
        assert_eq!(f.severity, Severity::Error, "{f:#?}");
        assert!(f.message.starts_with("long-lived changelog 2 references 1 missing file"), "{f:#?}");
        assert!(text(f).contains(what), "{drop}: {f:#?}");
    }
}

/// `java09_b_consumer` (Java 0.9, an append-only `input` table; snapshots 1–3 expired) with the
/// data file snapshot 1 or 2 wrote, still live, dropped from the zip (a hand edit: an upload that
/// lost it). No retained delta adds the file, yet every retained snapshot reads it: each of them
/// needs it, not only the two ends whose live sets are checked.
#[test]
fn a_data_file_written_before_the_earliest_snapshot_is_needed_by_every_snapshot_it_is_live_in() {
    let lost = "bucket-0/data-a79739e4-3011-420c-b116-c4e228974476-1.parquet";
    let entries = common::fixture_entries("warehouses/java09_b_consumer.zip", |p, b| {
        (!p.ends_with(lost)).then_some(b)
    });
    let r = common::analyse(&common::zip_artifact("b.zip", &entries));
    let dangling: Vec<_> = all(&r)
        .into_iter()
        .filter(|(_, f)| f.code == Code::DanglingReference)
        .collect();
    assert_eq!(dangling.len(), 1, "{dangling:#?}");
    let f = dangling[0].1;
    assert_eq!(f.severity, Severity::Error, "{f:#?}");
    assert!(
        f.message
            .starts_with("snapshots 4..6 (3 snapshots) reference 1 missing file"),
        "{f:#?}"
    );
    assert!(
        text(f).contains(&format!(
            "data file {lost} (missing), needed by snapshots 4..6"
        )),
        "{f:#?}"
    );
}

/// `rel` (a fixture under `tests/fixtures/`) with `extra` files added under its table
/// directory `table` (hand edits: leftovers of commits that failed), analysed.
fn with_leftovers(rel: &str, table: &str, extra: &[&str]) -> Report {
    let mut entries = common::fixture_entries(rel, |_, b| Some(b));
    for name in extra {
        entries.push(common::zipwriter::Entry::new(
            &format!("{table}/{name}"),
            b"leftover".to_vec(),
        ));
    }
    common::analyse(&common::zip_artifact("leftovers.zip", &entries))
}

/// The orphan findings as (message up to the colon, files).
fn orphan_kinds(r: &Report) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<_> = all(r)
        .into_iter()
        .filter(|(_, f)| f.code == Code::OrphanFile)
        .map(|(_, f)| {
            let head = f.message.split(" (").next().unwrap_or_default().to_string();
            (head, f.files.clone())
        })
        .collect();
    out.sort();
    out
}

const LEFTOVER: &str = "00000000-0000-0000-0000-000000000000";

/// With `index-file-in-data-file-dir` (pypaimon 2.1, `pp210_dv_index_in_bucket`) an
/// unreferenced `index-*` file in a bucket directory is an index file, and any other
/// unreferenced file there a data file.
#[test]
fn leftovers_in_a_bucket_directory_holding_index_files_are_told_by_name() {
    let index = format!("bucket-0/index-{LEFTOVER}-9");
    let data = format!("bucket-0/data-{LEFTOVER}-0.parquet");
    let r = with_leftovers(
        "writers/pp210_dv_index_in_bucket.zip",
        "pp210_dv_index_in_bucket/db.db/dv_t",
        &[&index, &data],
    );
    assert_eq!(
        orphan_kinds(&r),
        [
            ("1 unreferenced data file".to_string(), vec![data]),
            ("1 unreferenced index file".to_string(), vec![index]),
        ]
    );
}

/// An unreferenced file in `statistics/` (an ANALYZE whose commit failed) is an orphan
/// statistics file; a file in a folder below `manifest/` is no file Paimon references, so no
/// orphan.
#[test]
fn leftover_statistics_are_orphans_and_files_below_manifest_subfolders_are_not() {
    let stats = format!("statistics/stat-{LEFTOVER}-0");
    let r = with_leftovers(
        "warehouses/java09_a_healthy_pk.zip",
        "java09_a_healthy_pk/db.db/orders",
        &[&stats, &format!("manifest/tmp/manifest-{LEFTOVER}-0")],
    );
    assert_eq!(
        orphan_kinds(&r),
        [("1 unreferenced statistics file".to_string(), vec![stats])]
    );
}

/// pypaimon 2.1's `manifest.compression` accepts every Avro codec, bzip2 and xz among them
/// (fastavro writes them, and Java's Avro reads them): every manifest list and manifest is
/// read, and each snapshot's file counts equal the truth's (fastavro's read-back).
#[test]
fn manifests_in_every_avro_codec_pypaimon_writes_are_read() {
    let name = "pp210_codecs_postpone";
    let r = report(&fixture(&format!("writers/{name}.zip")));
    let r: serde_json::Value = serde_json::from_str(&prv::report::json::render(&r)).unwrap();
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).unwrap(),
    )
    .unwrap();
    for codec in ["bzip2", "xz", "zstd", "snappy", "deflate", "null"] {
        let table = format!("db.db/manifest_{codec}");
        let t = r["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["path"].as_str().unwrap().ends_with(&table))
            .unwrap();
        assert!(
            t["findings"].as_array().unwrap().is_empty(),
            "{codec}: {}",
            t["findings"]
        );
        let truth_snaps = truth["tables"][&table]["branches"]["main"]["snapshots"]
            .as_array()
            .unwrap();
        let shown = t["snapshots"].as_array().unwrap();
        assert_eq!(shown.len(), truth_snaps.len(), "{codec}");
        for (s, want) in shown.iter().zip(truth_snaps) {
            let added = want["delta_files"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["kind"] == 0 || f["kind"] == "ADD")
                .count();
            let changelog = want["changelog_files"].as_array().unwrap().len();
            assert_eq!(s["files"]["added"], added, "{codec} {}", s["id"]);
            assert_eq!(s["files"]["changelog"], changelog, "{codec} {}", s["id"]);
        }
    }
}

/// A pypaimon writer killed between writing its snapshot's temp file and renaming it: each
/// version names the temp file its own way (1.3 `snapshot-3.tmp`, 1.4 and 2.0
/// `snapshot-3.<uuid>.tmp`, 2.1 `.snapshot-3.<uuid>.tmp`), and each is the one
/// `snapshot-temp-file` finding the truth's temp file makes; the files its commit wrote are
/// explained by it (pypaimon 2.x's `manifest-list-<uuid>-changelog` included), no orphan.
#[test]
fn every_pypaimon_names_its_snapshot_temp_file_and_each_is_found() {
    for version in ["pp132", "pp142", "pp200", "pp210"] {
        let name = format!("{version}_tmp_snapshot");
        let r = report(&fixture(&format!("writers/{name}.zip")));
        let truth: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).unwrap(),
        )
        .unwrap();
        let temps = truth["tables"]["db.db/tmp_t"]["branches"]["main"]["temp_snapshot_files"]
            .as_array()
            .unwrap();
        assert_eq!(temps.len(), 1, "{name}");
        let file = temps[0]["file"]
            .as_str()
            .unwrap()
            .trim_start_matches("db.db/tmp_t/");
        let found: Vec<&Finding> = r
            .all_findings()
            .filter(|(_, f)| f.code == Code::SnapshotTempFile)
            .map(|(_, f)| f)
            .collect();
        assert_eq!(found.len(), 1, "{name}: {found:#?}");
        assert_eq!(found[0].files, [file], "{name}");
        assert_eq!(found[0].snapshot, temps[0]["id"].as_i64(), "{name}");
        assert_eq!(found[0].severity, Severity::Warning, "{name}");
        let orphans: Vec<&Finding> = r
            .all_findings()
            .filter(|(_, f)| f.code == Code::OrphanFile)
            .map(|(_, f)| f)
            .collect();
        assert!(orphans.is_empty(), "{name}: {orphans:#?}");
    }
}

/// A pypaimon commit that lost the snapshot id to another writer, retried and published: the
/// failed attempt's manifest lists and manifests (the truth's unreferenced files) are said to
/// be a retried commit's, as infos, and nothing else is unreferenced.
#[test]
fn a_retried_commits_first_attempt_is_said_to_be_one() {
    let name = "pp210_lost_race";
    let r = report(&fixture(&format!("writers/{name}.zip")));
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).unwrap(),
    )
    .unwrap();
    let mut want: Vec<String> = truth["tables"]["db.db/race_t"]["unreferenced_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            f.as_str()
                .unwrap()
                .trim_start_matches("db.db/race_t/")
                .to_string()
        })
        .collect();
    want.sort();
    assert!(!want.is_empty());
    let orphans: Vec<&Finding> = r
        .all_findings()
        .filter(|(_, f)| f.code == Code::OrphanFile)
        .map(|(_, f)| f)
        .collect();
    let mut got: Vec<String> = orphans.iter().flat_map(|f| f.files.clone()).collect();
    got.sort();
    assert_eq!(got, want);
    for f in orphans {
        assert_eq!(f.severity, Severity::Info, "{f:#?}");
        assert!(
            f.message.contains("the commit was retried and published"),
            "{}",
            f.message
        );
    }
}
