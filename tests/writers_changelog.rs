//! The changelog family of issue 20 (items 2, 3, 8, 9) on the real-writer warehouses of
//! `tests/fixtures/writers/` (rows D1-D4, A1-A3, P1, F1-F4 of its `TRIAGE.md`): per fixture,
//! the codes, severities, impact and message facts that must appear, and the false statements
//! that must not. The truth each assertion rests on is the fixture's `<name>.json` (read back by
//! independent readers and by Paimon's own batch and streaming reads).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::fixture;
use serde_json::Value;

/// The fixture's JSON report.
fn json_report(name: &str) -> Value {
    common::json_report(&format!("writers/{name}.zip"))
}

fn truth(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).expect("truth");
    serde_json::from_str(&text).expect("truth is JSON")
}

/// The report of table `db.db/<table>` on `branch`.
fn table<'a>(r: &'a Value, table: &str, branch: &str) -> &'a Value {
    r["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .find(|t| {
            t["path"]
                .as_str()
                .is_some_and(|p| p.ends_with(&format!("/db.db/{table}")))
                && t["branch"] == branch
        })
        .unwrap_or_else(|| panic!("no report for {table} [{branch}]"))
}

fn findings<'a>(t: &'a Value, code: &str) -> Vec<&'a Value> {
    t["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

fn texts(f: &Value) -> String {
    let mut s = format!("{} {}", f["message"], f["remedy"]);
    for e in f["evidence"].as_array().into_iter().flatten() {
        s.push(' ');
        s.push_str(e.as_str().unwrap_or(""));
    }
    s
}

fn ids(f: &Value) -> Vec<i64> {
    let mut out: Vec<i64> = f["snapshot"].as_i64().into_iter().collect();
    for v in f["relatedSnapshots"].as_array().into_iter().flatten() {
        out.push(v.as_i64().expect("id"));
    }
    out.sort_unstable();
    out.dedup();
    out
}

// ---- 20.2: deletion vectors change what was lost (D1-D4) ----

#[test]
fn a_lost_compact_under_deletion_vectors_leaves_the_batch_view_stale() {
    for name in ["j09_dv_crash", "j10_dv_crash"] {
        let r = json_report(name);
        let truth = truth(name);
        for kind in ["dv2", "dvpad"] {
            for fmt in ["parquet", "orc", "avro"] {
                let tname = format!("{kind}_{fmt}");
                let t = table(&r, &tname, "main");
                let lost = findings(t, "lost-changelog");
                assert_eq!(lost.len(), 1, "{name} {tname}");
                let f = lost[0];
                assert_eq!(f["snapshot"], 3, "{name} {tname}");
                // D2: the impact on both views, in the JSON contract
                assert_eq!(f["impact"]["changelog"], "lost", "{name} {tname}");
                assert_eq!(f["impact"]["batch"], "stale", "{name} {tname}: {f}");
                // D1: no remedy that rebuilds from the stale batch view
                let remedy = f["remedy"].as_str().unwrap();
                assert!(
                    !remedy.contains("holds the right values"),
                    "{name} {tname}: {remedy}"
                );
                assert!(
                    remedy.contains("compact") && remedy.contains("bucket"),
                    "{name} {tname}: {remedy}"
                );
                assert!(
                    f["message"].as_str().unwrap().contains("batch"),
                    "{name} {tname}: the message states the batch impact: {}",
                    f["message"]
                );
                // D3 / D4: every file the lost COMPACT left is its evidence, none an orphan
                let files: Vec<&str> = f["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                let tpath = format!("db.db/{tname}/");
                for u in truth["tables"][format!("db.db/{tname}")]["unreferenced_files"]
                    .as_array()
                    .unwrap()
                {
                    let rel = u.as_str().unwrap().strip_prefix(&tpath).unwrap();
                    assert!(
                        files.contains(&rel),
                        "{name} {tname}: {rel} is not in the lost-changelog files {files:?}"
                    );
                }
                assert!(
                    findings(t, "orphan-file").is_empty(),
                    "{name} {tname}: {:?}",
                    findings(t, "orphan-file")
                );
            }
        }
        for fmt in ["parquet", "orc", "avro"] {
            let t = table(&r, &format!("healthy_dv_{fmt}"), "main");
            assert!(findings(t, "lost-changelog").is_empty(), "{name}");
        }
    }
}

#[test]
fn a_lost_compact_without_deletion_vectors_leaves_the_batch_view_current() {
    for name in ["j09_crash_parquet", "j10_crash_avro"] {
        let r = json_report(name);
        let lost: Vec<&Value> = r["tables"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| findings(t, "lost-changelog"))
            .collect();
        assert!(!lost.is_empty(), "{name}");
        for f in lost {
            assert_eq!(f["impact"]["changelog"], "lost", "{name}");
            assert_eq!(f["impact"]["batch"], "current", "{name}: {f}");
        }
    }
}

// ---- 20.3: writers that never compact (A1-A3, F4) ----

#[test]
fn writers_that_never_compact_get_changelog_not_produced() {
    for name in [
        "pp132_append_only",
        "pp142_append_only",
        "pp200_append_only",
        "pp210_append_only",
    ] {
        let r = json_report(name);
        for tname in ["lookup_two_users", "fullcompact_two_users"] {
            let t = table(&r, tname, "main");
            assert!(
                findings(t, "pending-changelog").is_empty(),
                "{name} {tname}: {:?}",
                findings(t, "pending-changelog")
            );
            let not = findings(t, "changelog-not-produced");
            assert!(!not.is_empty(), "{name} {tname}");
            let covered: Vec<i64> = not.iter().flat_map(|f| ids(f)).collect();
            for id in 1..=6 {
                assert!(covered.contains(&id), "{name} {tname}: snapshot {id}");
            }
            for f in not {
                assert_eq!(f["severity"], "warning", "{name} {tname}");
                let all = texts(f);
                assert!(!all.contains("may still commit"), "{name} {tname}: {all}");
                assert!(all.contains("no COMPACT"), "{name} {tname}: {all}");
                assert!(all.contains("compaction job"), "{name} {tname}: {all}");
            }
        }
        // A2: one APPEND and nothing else: both possibilities
        let t = table(&r, "lookup_one_append", "main");
        assert!(findings(t, "changelog-not-produced").is_empty(), "{name}");
        let p = findings(t, "pending-changelog");
        assert_eq!(p.len(), 1, "{name}");
        let msg = p[0]["message"].as_str().unwrap();
        assert!(
            msg.contains("never compacts") && msg.contains("cannot tell"),
            "{name}: {msg}"
        );
    }
}

#[test]
fn one_append_per_user_with_no_compaction_by_anyone_is_not_produced() {
    let r = json_report("rs040_rollback_inflight");
    let t = table(&r, "rolled", "main");
    assert!(findings(t, "pending-changelog").is_empty());
    let not = findings(t, "changelog-not-produced");
    assert_eq!(not.len(), 1, "{not:?}");
    assert_eq!(ids(not[0]), vec![1, 2, 3, 4]);
    assert_eq!(not[0]["severity"], "warning");
}

// ---- 20.8: changelog-producer = input with no changelog (P1) ----

#[test]
fn an_input_producer_with_no_changelog_list_is_flagged() {
    for name in ["pp132_append_only", "pp142_append_only"] {
        let r = json_report(name);
        let t = table(&r, "input_t", "main");
        let not = findings(t, "changelog-not-produced");
        assert_eq!(not.len(), 1, "{name}");
        assert_eq!(not[0]["severity"], "warning");
        assert_eq!(ids(not[0]), vec![1, 2, 3, 4], "{name}");
        let all = texts(not[0]);
        assert!(all.contains("input"), "{name}: {all}");
        assert!(all.contains("changelog manifest list"), "{name}: {all}");
    }
    for name in ["pp132_formats", "pp142_formats"] {
        let r = json_report(name);
        for t in r["tables"].as_array().unwrap() {
            assert_eq!(
                findings(t, "changelog-not-produced").len(),
                1,
                "{name} {}",
                t["path"]
            );
        }
    }
    // pypaimon 2.0 and 2.1 write the input changelog: nothing to say
    for name in ["pp200_append_only", "pp210_append_only", "pp210_formats"] {
        let r = json_report(name);
        for t in r["tables"].as_array().unwrap() {
            let path = t["path"].as_str().unwrap();
            if path.ends_with("/input_t") || name.ends_with("formats") {
                assert!(
                    findings(t, "changelog-not-produced").is_empty(),
                    "{name} {path}"
                );
            }
        }
    }
}

// ---- 20.9: the rest of the family (F1-F4) ----

#[test]
fn a_changelog_producer_changed_between_schemas_is_said() {
    for name in ["j09_option_family", "j10_option_family"] {
        let r = json_report(name);
        let t = table(&r, "producer_changed", "main");
        let f = findings(t, "changelog-producer-changed");
        assert_eq!(f.len(), 1, "{name}");
        let all = texts(f[0]);
        assert!(
            all.contains("input") && all.contains("lookup"),
            "{name}: {all}"
        );
        assert!(all.contains("snapshots 1, 2"), "{name}: {all}");
        assert_eq!(f[0]["severity"], "warning");

        let t = table(&r, "producer_removed", "main");
        let f = findings(t, "changelog-producer-changed");
        assert_eq!(f.len(), 1, "{name}");
        let all = texts(f[0]);
        assert!(
            all.contains("lookup") && all.contains("none"),
            "{name}: {all}"
        );
        assert!(all.contains("snapshots 5, 6"), "{name}: {all}");

        // a table whose producer never changed says nothing of the kind
        let t = table(&r, "fullcompact_never", "main");
        assert!(findings(t, "changelog-producer-changed").is_empty());
    }
}

#[test]
fn full_compaction_with_no_full_compaction_names_every_uncompacted_snapshot() {
    // F3: j09's writer compacted once (snapshot 7, identifier 6) and left 4, 5 and 6 at level 0
    let r = json_report("j09_option_family");
    let t = table(&r, "fullcompact_never", "main");
    let all: Vec<&Value> = findings(t, "pending-changelog")
        .into_iter()
        .chain(findings(t, "changelog-not-produced"))
        .collect();
    assert_eq!(all.len(), 1, "{all:?}");
    let f = all[0];
    assert_eq!(ids(f), vec![4, 5, 6], "{f}");
    assert_eq!(f["severity"], "warning", "the writer stopped: {f}");
    assert!(texts(f).contains("full-compaction.delta-commits"), "{f}");
    assert!(
        texts(f).contains("snapshot 7 is the COMPACT of snapshot 6's commit"),
        "{f}"
    );

    // F4: j10's writer never compacted: not produced
    let r = json_report("j10_option_family");
    let t = table(&r, "fullcompact_never", "main");
    assert!(findings(t, "pending-changelog").is_empty());
    let f = findings(t, "changelog-not-produced");
    assert_eq!(f.len(), 1);
    assert_eq!(ids(f[0]), vec![1, 2, 3, 4, 5, 6]);
    let all = texts(f[0]);
    assert!(all.contains("full-compaction.delta-commits"), "{all}");
    assert!(!all.contains("may still commit"), "{all}");
}

/// A full-compaction table whose only COMPACT carries no changelog (no compaction reached the
/// highest level): j09's `fullcompact_never` with snapshot 7's changelog list removed in memory
/// (the rule's input; the unedited table, whose COMPACT carries changelog, says nothing of the
/// kind, see above).
#[test]
fn full_compaction_whose_compacts_carry_no_changelog_is_not_produced() {
    let entries = common::fixture_entries("writers/j09_option_family.zip", |path, bytes| {
        if !path.ends_with("db.db/fullcompact_never/snapshot/snapshot-7") {
            return Some(bytes);
        }
        let mut s: Value = serde_json::from_slice(&bytes).expect("snapshot JSON");
        let o = s.as_object_mut().expect("an object");
        o.remove("changelogManifestList");
        o.insert("changelogRecordCount".into(), Value::from(0));
        Some(serde_json::to_vec(&s).expect("JSON"))
    });
    let artifact = common::zip_artifact("edited.zip", &entries);
    let r = prv::analyze(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    let r: Value = serde_json::from_str(&prv::report::json::render(&r)).unwrap();
    let t = table(&r, "fullcompact_never", "main");
    let f: Vec<&Value> = findings(t, "changelog-not-produced")
        .into_iter()
        .filter(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .contains("none of the COMPACT")
        })
        .collect();
    assert_eq!(f.len(), 1, "{:?}", t["findings"]);
    assert_eq!(f[0]["severity"], "warning");
    assert_eq!(ids(f[0]), vec![1, 2, 3, 4, 5, 6, 7]);
    let all = texts(f[0]);
    assert!(all.contains("snapshots 1-6"), "{all}");
    assert!(all.contains("compact_strategy => 'full'"), "{all}");
}

/// One writer with several APPENDs and no compaction by anyone since its first, on a table where
/// another user compacted before: pypaimon 1.3.2's `lookup_two_users` with snapshot 1 (user a)
/// turned into a COMPACT in memory, so the history has a compaction, by a, before b's first
/// APPEND. b is `changelog-not-produced`; a, which compacted, stays `pending-changelog`.
#[test]
fn a_writer_with_several_appends_and_no_compaction_since_is_not_produced() {
    let entries = common::fixture_entries("writers/pp132_append_only.zip", |path, bytes| {
        if !path.ends_with("db.db/lookup_two_users/snapshot/snapshot-1") {
            return Some(bytes);
        }
        let mut s: Value = serde_json::from_slice(&bytes).expect("snapshot JSON");
        s["commitKind"] = Value::from("COMPACT");
        Some(serde_json::to_vec(&s).expect("JSON"))
    });
    let artifact = common::zip_artifact("edited.zip", &entries);
    let r = prv::analyze(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    let r: Value = serde_json::from_str(&prv::report::json::render(&r)).unwrap();
    let t = table(&r, "lookup_two_users", "main");
    let not = findings(t, "changelog-not-produced");
    assert_eq!(not.len(), 1, "{:?}", t["findings"]);
    assert_eq!(not[0]["commitUser"], "lookup_two_users-b");
    assert_eq!(ids(not[0]), vec![2, 4, 6]);
    assert!(
        not[0]["message"]
            .as_str()
            .unwrap()
            .contains("no snapshot from its first on is a COMPACT"),
        "{}",
        not[0]["message"]
    );
    let pending = findings(t, "pending-changelog");
    assert_eq!(pending.len(), 1, "{:?}", t["findings"]);
    assert_eq!(pending[0]["commitUser"], "lookup_two_users-a");
    assert_eq!(ids(pending[0]), vec![3, 5]);
}

// ---- golden: the changelog family's findings on every fixture of these rows ----

/// The codes of the changelog family (issue 20 items 2, 3, 8, 9), and the consumer verdicts
/// that rest on them.
const FAMILY: &[&str] = &[
    "lost-changelog",
    "pending-changelog",
    "changelog-not-produced",
    "changelog-producer-changed",
    "consumer-past-lost-changelog",
    "consumer-before-lost-changelog",
];

/// The family's findings of one report as text: per table, each finding's code, severity, ids,
/// impact, message, evidence, files and remedy (row evidence is left out: issue 21 owns it).
fn family_text(r: &Value) -> String {
    let mut out = String::new();
    for t in r["tables"].as_array().unwrap() {
        let fs: Vec<&Value> = t["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| FAMILY.contains(&f["code"].as_str().unwrap()))
            .collect();
        if fs.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "== {} [{}]\n",
            t["path"].as_str().unwrap(),
            t["branch"].as_str().unwrap()
        ));
        for f in fs {
            out.push_str(&format!(
                "{} {} snapshots {:?}",
                f["severity"].as_str().unwrap(),
                f["code"].as_str().unwrap(),
                ids(f)
            ));
            if let Some(u) = f["commitUser"].as_str() {
                out.push_str(&format!(" user {u}"));
            }
            if !f["impact"].is_null() {
                out.push_str(&format!(
                    " impact changelog={} batch={}",
                    f["impact"]["changelog"].as_str().unwrap(),
                    f["impact"]["batch"].as_str().unwrap()
                ));
            }
            out.push_str(&format!("\n  {}\n", f["message"].as_str().unwrap()));
            for e in f["evidence"].as_array().into_iter().flatten() {
                out.push_str(&format!("  - {}\n", e.as_str().unwrap()));
            }
            for file in f["files"].as_array().into_iter().flatten() {
                out.push_str(&format!("  file {}\n", file.as_str().unwrap()));
            }
            out.push_str(&format!("  remedy: {}\n", f["remedy"].as_str().unwrap()));
        }
    }
    out
}

#[test]
fn golden_changelog_family() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("golden");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for name in [
            "j09_dv_crash",
            "j10_dv_crash",
            "j09_crash_parquet",
            "j09_option_family",
            "j10_option_family",
            "pp132_append_only",
            "pp142_append_only",
            "pp200_append_only",
            "pp210_append_only",
            "pp132_formats",
            "rs040_rollback_inflight",
        ] {
            let text = family_text(&json_report(name));
            assert!(!text.is_empty(), "{name}");
            insta::assert_snapshot!(format!("writers__{name}.changelog.txt"), text);
        }
    });
}

/// The JSON report of j09's option family with `edit` applied to its entries in memory.
fn edited_option_family(edit: impl FnMut(&str, Vec<u8>) -> Option<Vec<u8>>) -> Value {
    let entries = common::fixture_entries("writers/j09_option_family.zip", edit);
    let artifact = common::zip_artifact("edited.zip", &entries);
    let r = prv::analyze(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
    serde_json::from_str(&prv::report::json::render(&r)).unwrap()
}

/// A capture that missed the newest schema (a hand edit by nature: j09's `producer_removed`,
/// lookup in schema 0, none in schema 1, without `schema/schema-1`). Snapshots 5 and 6 were
/// written under the missing schema, so the table's current options are unknown: the report
/// says so, and judges nothing by schema 0's options as if they were current (unedited, the
/// table's `none` producer makes no pending-changelog claim; read as lookup, 5 and 6 were
/// called uncompacted lookup commits).
#[test]
fn a_missing_newest_schema_leaves_the_options_unknown_not_the_older_ones_assumed() {
    let r = edited_option_family(|path, bytes| {
        (!path.ends_with("db.db/producer_removed/schema/schema-1")).then_some(bytes)
    });
    let t = table(&r, "producer_removed", "main");
    let f = findings(t, "artifact-incomplete");
    assert_eq!(f.len(), 1, "{:?}", t["findings"]);
    assert_eq!(f[0]["severity"], "warning");
    assert_eq!(ids(f[0]), vec![5, 6]);
    assert_eq!(f[0]["files"], serde_json::json!(["schema/schema-1"]));
    let m = f[0]["message"].as_str().unwrap();
    assert!(m.contains("schema/schema-1 is not in the artifact"), "{m}");
    assert!(m.contains("current options are unknown"), "{m}");
    for code in [
        "pending-changelog",
        "changelog-not-produced",
        "changelog-producer-changed",
        "risky-options",
        "lost-changelog",
    ] {
        assert!(findings(t, code).is_empty(), "{code}: {:?}", t["findings"]);
    }

    // A missing older schema: the current options are known (schema 1 is the newest and read),
    // so only the snapshots of schema 0 are said to lack theirs, and the producer change it
    // would show cannot be (schema 0's producer is unknown).
    let r = edited_option_family(|path, bytes| {
        (!path.ends_with("db.db/producer_removed/schema/schema-0")).then_some(bytes)
    });
    let t = table(&r, "producer_removed", "main");
    let f = findings(t, "artifact-incomplete");
    assert_eq!(f.len(), 1, "{:?}", t["findings"]);
    assert_eq!(ids(f[0]), vec![1, 2, 3, 4]);
    let m = f[0]["message"].as_str().unwrap();
    assert!(!m.contains("current options are unknown"), "{m}");
    assert!(findings(t, "changelog-producer-changed").is_empty());

    // A newest schema present but unreadable is said to be so, not absent.
    let r = edited_option_family(|path, bytes| {
        Some(
            if path.ends_with("db.db/producer_removed/schema/schema-1") {
                b"{ not json".to_vec()
            } else {
                bytes
            },
        )
    });
    let t = table(&r, "producer_removed", "main");
    let f = findings(t, "artifact-incomplete");
    assert_eq!(f.len(), 1, "{:?}", t["findings"]);
    let m = f[0]["message"].as_str().unwrap();
    assert!(
        m.contains("schema/schema-1 could not be read (see its unreadable-file finding)"),
        "{m}"
    );
}

// ---- rs040_writer_shapes: histories no Java writer leaves ----

/// The truth's snapshots of `db.db/<table>` (main).
fn truth_snapshots<'a>(truth: &'a Value, table: &str) -> &'a Vec<Value> {
    truth["tables"][format!("db.db/{table}")]["branches"]["main"]["snapshots"]
        .as_array()
        .expect("snapshots")
}

/// The changelog producer of schema `id` in the truth.
fn truth_producer(truth: &Value, table: &str, id: i64) -> String {
    truth["tables"][format!("db.db/{table}")]["schemas"]
        .as_array()
        .expect("schemas")
        .iter()
        .find(|s| s["id"] == id)
        .and_then(|s| s["options"]["changelog-producer"].as_str())
        .unwrap_or("none")
        .to_string()
}

/// A producer changed by ALTER TABLE: only the snapshots written under the compaction producer
/// can be owed a COMPACT's changelog. The ones written under `input` carry their own (the truth:
/// a changelog manifest list each), so nothing may say none was produced for them (before,
/// `changelog-not-produced` named snapshots 1-3 on every table whose current producer is lookup
/// or full-compaction).
#[test]
fn appends_written_before_a_producer_change_are_judged_by_their_own_schema() {
    let name = "rs040_writer_shapes";
    let (r, truth) = (json_report(name), truth(name));
    for table_name in ["in_to_lookup", "in_to_fc", "alter_rollback"] {
        let t = table(&r, table_name, "main");
        assert!(
            findings(t, "changelog-not-produced").is_empty(),
            "{table_name}: {:?}",
            t["findings"]
        );
        let under_compaction: Vec<i64> = truth_snapshots(&truth, table_name)
            .iter()
            .filter(|s| {
                let p = truth_producer(&truth, table_name, s["schemaId"].as_i64().unwrap());
                p == "lookup" || p == "full-compaction"
            })
            .map(|s| s["id"].as_i64().unwrap())
            .collect();
        let pending: Vec<i64> = findings(t, "pending-changelog")
            .iter()
            .flat_map(|f| ids(f))
            .collect();
        assert_eq!(pending, under_compaction, "{table_name}");
        for s in truth_snapshots(&truth, table_name) {
            if truth_producer(&truth, table_name, s["schemaId"].as_i64().unwrap()) == "input" {
                assert!(
                    !s["lists"]["changelogManifestList"].is_null(),
                    "{table_name}: {s}"
                );
            }
        }
        assert_eq!(
            findings(t, "changelog-producer-changed").len(),
            1,
            "{table_name}"
        );
    }
    // After the rollback every retained snapshot is an input one: nothing is pending.
    assert!(findings(table(&r, "alter_rollback", "main"), "pending-changelog").is_empty());
}

/// A stream writer that commits identifier 3 twice: both commits are APPENDs with rows (the
/// truth), and both are named.
#[test]
fn both_commits_of_a_reused_identifier_are_judged() {
    let name = "rs040_writer_shapes";
    let (r, truth) = (json_report(name), truth(name));
    let appends: Vec<i64> = truth_snapshots(&truth, "reused_ident")
        .iter()
        .filter(|s| s["commitKind"] == "APPEND" && s["deltaRecordCount"].as_i64() > Some(0))
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    let threes = truth_snapshots(&truth, "reused_ident")
        .iter()
        .filter(|s| s["commitIdentifier"] == 3)
        .count();
    assert_eq!(threes, 2, "the writer reused identifier 3");
    let f = findings(table(&r, "reused_ident", "main"), "changelog-not-produced");
    assert_eq!(f.len(), 1);
    assert_eq!(ids(f[0]), appends);
    assert!(
        texts(f[0]).contains("user job-lookup: 5 APPENDs with rows"),
        "{}",
        f[0]
    );
}

/// Postpone buckets: the rows are in bucket -2 with no changelog by design; the report says
/// where they are (an info naming the snapshots whose bucket -2 files the truth shows live) and
/// blames no writer.
#[test]
fn postpone_bucket_rows_wait_for_compaction_by_design() {
    let name = "rs040_writer_shapes";
    let (r, truth) = (json_report(name), truth(name));
    for table_name in ["postpone", "postpone_lookup"] {
        let t = table(&r, table_name, "main");
        assert!(
            findings(t, "changelog-not-produced").is_empty(),
            "{:?}",
            t["findings"]
        );
        let snaps = truth_snapshots(&truth, table_name);
        let live_in_postpone: Vec<String> = snaps.last().unwrap()["live_files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["bucket"] == -2)
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect();
        let waiting: Vec<i64> = snaps
            .iter()
            .filter(|s| {
                s["delta_files"].as_array().unwrap().iter().any(|d| {
                    d["path"]
                        .as_str()
                        .is_some_and(|p| live_in_postpone.iter().any(|l| l == p))
                })
            })
            .map(|s| s["id"].as_i64().unwrap())
            .collect();
        assert!(!waiting.is_empty());
        let f = findings(t, "pending-changelog");
        assert_eq!(f.len(), 1, "{:?}", t["findings"]);
        assert_eq!(f[0]["severity"], "info");
        assert_eq!(ids(f[0]), waiting, "{table_name}");
        assert!(f[0]["message"]
            .as_str()
            .unwrap()
            .contains("bucket-postpone/"));
    }
}

/// Uncompacted lookup APPENDs whose level-0 files an INSERT OVERWRITE or a TRUNCATE removed (the
/// truth: the OVERWRITE's delta deletes every file the APPENDs added, and no COMPACT exists):
/// their changelog was never produced, and the report says so, naming the OVERWRITE. Under
/// `input` the same history is fine (each APPEND carries its changelog).
#[test]
fn lookup_appends_an_overwrite_removed_before_compaction_never_had_changelog() {
    let name = "rs040_overwrite_lookup";
    let (r, truth) = (json_report(name), truth(name));
    for table_name in ["ow", "trunc"] {
        let snaps = truth_snapshots(&truth, table_name);
        assert!(snaps.iter().all(|s| s["commitKind"] != "COMPACT"));
        let overwrite = snaps
            .iter()
            .find(|s| s["commitKind"] == "OVERWRITE")
            .unwrap();
        let deleted: Vec<&str> = overwrite["delta_files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == 1 || f["kind"] == "DELETE")
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        let removed: Vec<i64> = snaps
            .iter()
            .filter(|s| s["commitKind"] == "APPEND")
            .filter(|s| {
                s["delta_files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|f| deleted.contains(&f["path"].as_str().unwrap()))
            })
            .map(|s| s["id"].as_i64().unwrap())
            .collect();
        assert_eq!(removed, [1, 2, 3], "{table_name}");
        let t = table(&r, table_name, "main");
        let f = findings(t, "changelog-not-produced");
        assert_eq!(f.len(), 1, "{table_name}: {:?}", t["findings"]);
        let mut want = removed.clone();
        want.push(overwrite["id"].as_i64().unwrap());
        assert_eq!(ids(f[0]), want, "{table_name}");
        assert!(
            f[0]["message"].as_str().unwrap().contains("never will be"),
            "{}",
            f[0]
        );
    }
    assert!(table(&r, "ow_input", "main")["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["severity"] == "info"));
}

/// A postpone-bucket table whose APPENDs' rows an INSERT OVERWRITE replaced (the truth: the
/// latest snapshot's live files in bucket -2 are the OVERWRITE's only): no APPEND's rows wait in
/// bucket-postpone/ any more, so nothing is said of their changelog.
#[test]
fn postpone_rows_an_overwrite_replaced_wait_for_nothing() {
    let name = "rs040_overwrite_lookup";
    let (r, truth) = (json_report(name), truth(name));
    let snaps = truth_snapshots(&truth, "postpone_ow");
    let live: Vec<&str> = snaps.last().unwrap()["live_files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["bucket"] == -2)
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(!live.is_empty());
    for s in snaps.iter().filter(|s| s["commitKind"] == "APPEND") {
        for f in s["delta_files"].as_array().unwrap() {
            assert!(!live.contains(&f["path"].as_str().unwrap()), "{s}");
        }
    }
    let t = table(&r, "postpone_ow", "main");
    for code in ["pending-changelog", "changelog-not-produced"] {
        assert!(findings(t, code).is_empty(), "{code}: {:?}", t["findings"]);
    }
}
