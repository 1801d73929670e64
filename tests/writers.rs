//! The warehouses of `tests/fixtures/writers/` (every writer reachable here: Java Paimon 0.9 and
//! the 1.0-SNAPSHOT core, pypaimon 1.3.2 / 1.4.2 / 2.0.0 / 2.1.0, pypaimon-rust 0.4.0) open, are
//! analysed without a crash, render in every format, and show each table's snapshot timeline as
//! the fixture's truth (`<name>.json`, read back with fastavro / pyarrow) records it.
//!
//! What the tool said wrongly about them, and what it says now, is in
//! `tests/fixtures/writers/TRIAGE.md`; the findings are checked by `tests/writers_references.rs`,
//! `tests/writers_changelog.rs`, `tests/row_formats.rs`, `tests/row_unknown.rs` and `tests/orc.rs`,
//! and the whole reports by the golden files (`tests/golden/writers__*`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeMap;

use common::{fixture, report};
use serde_json::Value;

fn index() -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(fixture("writers/fixtures.json")).expect("fixtures.json");
    serde_json::from_str(&text).expect("fixtures.json is JSON")
}

fn truth(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).expect("truth");
    serde_json::from_str(&text).expect("truth is JSON")
}

#[test]
fn every_listed_fixture_is_on_disk_with_its_truth_and_log() {
    let idx = index();
    assert!(idx.len() >= 30, "{} fixtures", idx.len());
    for (name, entry) in &idx {
        for key in ["zip", "truth", "log"] {
            let file = entry[key].as_str().expect(key);
            assert!(
                fixture(&format!("writers/{file}")).is_file(),
                "{name}: {file}"
            );
        }
        assert!(
            entry["writer"].as_str().is_some_and(|w| !w.is_empty()),
            "{name}"
        );
        assert!(
            entry["issues"].as_array().is_some_and(|i| !i.is_empty()),
            "{name}"
        );
    }
}

/// The truth's snapshot ids per table and branch, keyed by the table path inside the warehouse.
fn truth_timelines(t: &Value) -> BTreeMap<(String, String), Vec<i64>> {
    let mut out = BTreeMap::new();
    for (path, table) in t["tables"].as_object().expect("tables") {
        for (branch, b) in table["branches"].as_object().expect("branches") {
            let ids: Vec<i64> = b["snapshots"]
                .as_array()
                .expect("snapshots")
                .iter()
                .map(|s| s["id"].as_i64().expect("id"))
                .collect();
            out.insert((path.clone(), branch.clone()), ids);
        }
    }
    out
}

#[test]
fn every_fixture_is_analysed_and_its_timelines_match_the_truth() {
    for name in index().keys() {
        let path = fixture(&format!("writers/{name}.zip"));
        let r = report(&path);
        // every rendering works on it
        let json = prv::report::json::render(&r);
        let back: Value = serde_json::from_str(&json).expect("the JSON report parses");
        assert_eq!(back["schema"], "paimon-recovery-report/1", "{name}");
        assert!(!prv::report::markdown::render(&r).is_empty(), "{name}");
        assert!(!prv::report::text::render(&r).is_empty(), "{name}");

        let expected = truth_timelines(&truth(name));
        for ((tpath, branch), ids) in &expected {
            if ids.is_empty() {
                continue;
            }
            // the report's path is <zip root>/[warehouse/]<db>.db/<table>
            let t = r
                .tables
                .iter()
                .find(|t| t.path.ends_with(&format!("/{tpath}")) && &t.branch == branch)
                .unwrap_or_else(|| panic!("{name}: no report for {tpath} [{branch}]"));
            let got: Vec<i64> = t.snapshots.iter().map(|s| s.id).collect();
            assert_eq!(&got, ids, "{name}: {tpath} [{branch}] snapshot ids");
            assert_eq!(t.latest, ids.last().copied(), "{name}: {tpath} [{branch}]");
        }
    }
}
