//! The reader over every real warehouse in `tests/fixtures/`: snapshot lists, hints, consumers,
//! tags and branches as recorded in `fixtures.json` (written by the fixture generator from the
//! warehouse directories), and the file graph (what each snapshot's delta adds and deletes,
//! which changelog files each snapshot references) as decoded independently with fastavro in
//! `expected_files.json` (`tests/fixtures/tools/expected_files.py`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::{BTreeMap, BTreeSet};

use prv::limits::Limits;
use prv::timeline::files::{resolve_root, ManifestStore};
use prv::timeline::Timeline;
use prv::warehouse::discover;
use serde_json::Value;

use common::{fixture, open, report};

/// (id, kind, identifier, user, deltaRecordCount, changelogRecordCount)
type SnapshotRow = (i64, String, i64, String, Option<i64>, Option<i64>);

fn fixtures_json(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("warehouses/{name}"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `db.orders` → the report table whose path ends with `db.db/orders`.
fn find_table<'a>(
    report: &'a prv::Report,
    name: &str,
    branch: &str,
) -> &'a prv::findings::TableReport {
    let (db, table) = name.split_once('.').unwrap();
    let suffix = format!("{db}.db/{table}");
    report
        .tables
        .iter()
        .find(|t| t.path.ends_with(&suffix) && t.branch == branch)
        .unwrap_or_else(|| panic!("table {name} branch {branch} not in report"))
}

fn check_fixture_set(file: &str) -> usize {
    let all = fixtures_json(file);
    let mut checked = 0;
    for (fixture_name, spec) in all.as_object().unwrap() {
        let Some(zip) = spec.get("zip").and_then(Value::as_str) else {
            continue;
        };
        let path = fixture(&format!("warehouses/{zip}"));
        let report = report(&path);
        for (table_name, expected) in spec["tables"].as_object().unwrap() {
            let t = find_table(&report, table_name, "main");
            let ctx = format!("{fixture_name} {table_name}");

            let want: Vec<SnapshotRow> = expected["snapshots"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    (
                        s["id"].as_i64().unwrap(),
                        s["commitKind"].as_str().unwrap().to_string(),
                        s["commitIdentifier"].as_i64().unwrap(),
                        s["commitUser"].as_str().unwrap().to_string(),
                        s["deltaRecordCount"].as_i64(),
                        s["changelogRecordCount"].as_i64(),
                    )
                })
                .collect();
            let got: Vec<_> = t
                .snapshots
                .iter()
                .map(|s| {
                    (
                        s.id,
                        s.kind.clone(),
                        s.commit_identifier,
                        s.commit_user.clone(),
                        s.delta_record_count,
                        s.changelog_record_count,
                    )
                })
                .collect();
            assert_eq!(got, want, "{ctx}: snapshots");
            assert_eq!(t.earliest, want.first().map(|s| s.0), "{ctx}: earliest");
            assert_eq!(t.latest, want.last().map(|s| s.0), "{ctx}: latest");

            let hints = &expected["hints"];
            let hint = |k: &str| {
                hints
                    .get(k)
                    .and_then(Value::as_str)
                    .map(|v| v.parse::<i64>().unwrap())
            };
            assert_eq!(t.hints.earliest, hint("EARLIEST"), "{ctx}: EARLIEST");
            assert_eq!(t.hints.latest, hint("LATEST"), "{ctx}: LATEST");

            // Unreadable consumers are recorded as {"unreadable": …}: no position.
            let want_consumers: BTreeMap<String, Option<i64>> = expected["consumers"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_i64()))
                .collect();
            let got_consumers: BTreeMap<String, Option<i64>> = t
                .consumers
                .iter()
                .map(|c| (c.id.clone(), c.next_snapshot))
                .collect();
            assert_eq!(got_consumers, want_consumers, "{ctx}: consumers");

            let want_tags: Vec<&str> = expected["tags"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            let got_tags: Vec<&str> = t.tags.iter().map(|x| x.name.as_str()).collect();
            assert_eq!(got_tags, want_tags, "{ctx}: tags");

            let want_branches: BTreeSet<&str> = expected["branches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            let got_branches: BTreeSet<&str> = report
                .tables
                .iter()
                .filter(|x| x.path == t.path && x.branch != "main")
                .map(|x| x.branch.as_str())
                .collect();
            assert_eq!(got_branches, want_branches, "{ctx}: branches");

            let want_changelogs = expected["decoupled_changelog_files"]
                .as_array()
                .unwrap()
                .len();
            let got_changelogs = t
                .long_lived_changelogs
                .map_or(0, |r| (r.last - r.first + 1) as usize);
            assert_eq!(
                got_changelogs, want_changelogs,
                "{ctx}: long-lived changelogs"
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn snapshots_hints_consumers_tags_and_branches_match_fixtures_json() {
    let n = check_fixture_set("fixtures.json");
    assert!(n >= 9, "only {n} tables checked");
}

#[test]
fn scenario_fixtures_match_scenarios_json() {
    if !fixture("warehouses/scenarios.json").exists() {
        return; // generated scenarios are checked once they are committed
    }
    let n = check_fixture_set("scenarios.json");
    assert!(n > 0);
}

/// Every table and branch of the artifact, loaded.
fn load_timelines(artifact: &prv::source::Artifact) -> Vec<Timeline> {
    discover(artifact)
        .tables
        .iter()
        .map(|l| Timeline::load(artifact, l))
        .collect()
}

/// The timelines by table root (main and its branches together).
fn by_root(timelines: &[Timeline]) -> BTreeMap<&str, Vec<&Timeline>> {
    let mut out: BTreeMap<&str, Vec<&Timeline>> = BTreeMap::new();
    for t in timelines {
        out.entry(t.location.root.as_str()).or_default().push(t);
    }
    out
}

/// Every snapshot's delta and changelog files, compared with fastavro's decoding.
#[test]
fn file_graph_matches_an_independent_decoder() {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("expected_files.json")).unwrap())
            .unwrap();
    let mut snapshots_checked = 0;
    let mut compacts_with_changelog = 0;
    for (zip, tables) in expected.as_object().unwrap() {
        let artifact = open(&fixture(zip));
        let mut store = ManifestStore::new();
        let timelines = load_timelines(&artifact);
        let by_root = by_root(&timelines);
        for (key, snaps) in tables.as_object().unwrap() {
            let (root, branch) = key.split_once('#').unwrap();
            let tls = &by_root[root];
            let files = resolve_root(&artifact, &mut store, root, tls, &mut || {});
            let bf = &files.branches[branch];
            for (id, want) in snaps.as_object().unwrap() {
                let id: i64 = id.parse().unwrap();
                let got = &bf.snapshots[&id];
                let names = |it: &mut dyn Iterator<
                    Item = prv::paimon::manifest::ManifestEntry<'_>,
                >| {
                    let mut v: Vec<String> = it.map(|e| e.file().file_name().to_string()).collect();
                    v.sort();
                    v
                };
                // Read through the store's descriptions (not yet handed to the graph).
                let catalog = store.files();
                let list = |k: &str| -> Vec<String> {
                    want[k]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_str().unwrap().to_string())
                        .collect()
                };
                let ctx = format!("{zip} {key} snapshot {id}");
                assert_eq!(
                    names(&mut got.added(catalog)),
                    list("added"),
                    "{ctx}: added"
                );
                assert_eq!(
                    names(&mut got.deleted(catalog)),
                    list("deleted"),
                    "{ctx}: deleted"
                );
                assert_eq!(
                    names(&mut got.changelog.iter(catalog)),
                    list("changelog"),
                    "{ctx}: changelog"
                );
                if want["kind"] == "COMPACT" && !list("changelog").is_empty() {
                    compacts_with_changelog += 1;
                }
                snapshots_checked += 1;
            }
        }
        // Each manifest decoded at most once, however many snapshots share it.
        assert!(store.decoded > 0, "{zip}: nothing decoded");
    }
    assert!(snapshots_checked > 60, "{snapshots_checked}");
    assert!(compacts_with_changelog >= 10, "{compacts_with_changelog}");
}

/// The committer UUID in a `manifest-list-<uuid>-<n>` name.
fn list_committer(name: &str) -> Option<&str> {
    let name = name.rsplit('/').next()?;
    name.strip_prefix("manifest-list-")?.get(..36)
}

/// A ghost commit (orphan manifest lists of one committer) names as its siblings exactly the
/// published snapshots whose manifest lists carry its committer's UUID: on Java 0.9 and 1.0
/// crashes (one committer for the table) and paimon-rust's rollback (a committer per commit,
/// so most ghosts have none). The expectation is taken from the snapshot files' list names.
#[test]
fn ghost_commits_name_the_snapshots_their_committer_published() {
    let mut with_siblings = 0;
    let mut without = 0;
    for zip in [
        "warehouses/java09_d_crash_between_append_and_compact.zip",
        "warehouses/java09_temp_snapshot_compact.zip",
        "writers/j10_crash_parquet.zip",
        "writers/rs040_rollback_inflight.zip",
    ] {
        let artifact = open(&fixture(zip));
        let timelines = load_timelines(&artifact);
        for (root, tls) in by_root(&timelines) {
            let mut store = ManifestStore::new();
            let files = resolve_root(&artifact, &mut store, root, &tls, &mut || {});
            for ghost in &files.ghosts {
                for list in &ghost.lists {
                    assert_eq!(
                        list_committer(list),
                        Some(ghost.committer.as_str()),
                        "{zip} {list}"
                    );
                }
                let mut expected: Vec<(String, i64)> = tls
                    .iter()
                    .flat_map(|t| t.snapshots.values().map(move |s| (t, &s.snapshot)))
                    .filter(|(_, s)| {
                        [
                            &s.base_manifest_list,
                            &s.delta_manifest_list,
                            &s.changelog_manifest_list,
                        ]
                        .into_iter()
                        .flatten()
                        .any(|l| list_committer(l) == Some(ghost.committer.as_str()))
                    })
                    .map(|(t, s)| (t.location.branch.clone(), s.id))
                    .collect();
                expected.sort();
                let mut got = ghost.sibling_snapshots.clone();
                got.sort();
                assert_eq!(got, expected, "{zip} {root}: ghost of {}", ghost.committer);
                if expected.is_empty() {
                    without += 1;
                } else {
                    with_siblings += 1;
                }
            }
        }
    }
    assert!(with_siblings >= 3, "{with_siblings} ghosts with siblings");
    assert!(without >= 1, "{without} ghosts without siblings");
}

/// Sharing is real: the base lists of consecutive snapshots repeat manifests, and each is
/// decoded once.
#[test]
fn each_manifest_is_decoded_once() {
    let path = fixture("warehouses/java09_d_crash_between_append_and_compact.zip");
    let r = report(&path);
    let manifest_files = open(&path)
        .files()
        .iter()
        .filter(|f| f.path().contains("/manifest/"))
        .count() as u64;
    assert!(r.stats.manifests_decoded <= manifest_files);
    assert!(r.stats.manifest_cache_hits > 0, "no manifest was shared?");
    let _ = Limits::default();
}

/// Ranged reads (Parquet footers, column chunks) return the same bytes as whole reads.
#[test]
fn ranged_reads_match_whole_reads() {
    let artifact = open(&fixture(
        "warehouses/java09_d_crash_between_append_and_compact.zip",
    ));
    let mut checked = 0;
    for f in artifact.files() {
        let whole = artifact.read(&f.path(), u64::MAX).unwrap();
        let n = whole.len() as u64;
        for (off, len) in [
            (0, n.min(7)),
            (n / 3, n / 3),
            (n.saturating_sub(8), n.min(8)),
        ] {
            let part = artifact.read_range(f, off, len).unwrap();
            assert_eq!(
                part,
                whole[off as usize..(off + len) as usize],
                "{}",
                f.path()
            );
            checked += 1;
        }
        assert!(artifact.read_range(f, n, 1).is_err());
    }
    assert!(checked > 100);
}
