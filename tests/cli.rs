//! The CLI contract: formats, output file, exit codes, `--now`, limits, bad usage.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::process::Command;

use common::fixture;

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_paimon-recovery-validator"))
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = cli().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn fx(name: &str) -> String {
    fixture(&format!("warehouses/{name}.zip"))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn exit_codes_follow_fail_on() {
    let crash = fx("java09_d_crash_between_append_and_compact");
    let healthy = fx("java09_a_healthy_pk");
    assert_eq!(run(&["check", &crash]).0, 1);
    assert_eq!(run(&["check", &crash, "--fail-on", "never"]).0, 0);
    assert_eq!(run(&["check", &healthy]).0, 0);
    assert_eq!(run(&["check", &healthy, "--fail-on", "warning"]).0, 0);
    // d0 has a warning besides its error; b has only info.
    let consumer = fx("java09_b_consumer");
    assert_eq!(run(&["check", &consumer, "--fail-on", "warning"]).0, 0);
    let d0 = fx("java09_d0_state_right_after_crash");
    assert_eq!(run(&["check", &d0, "--fail-on", "warning"]).0, 1);
}

#[test]
fn json_on_stdout_is_the_contract_and_matches_the_library() {
    let crash = fx("java09_d_crash_between_append_and_compact");
    let (code, stdout, _) = run(&["check", &crash, "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["schema"], "paimon-recovery-report/1");
    assert_eq!(v["tool"]["name"], "paimon-recovery-validator");
    assert_eq!(
        v["input"]["name"],
        "java09_d_crash_between_append_and_compact.zip"
    );
    assert_eq!(v["verdict"], "fail");
    let t = &v["tables"][0];
    assert_eq!(t["branch"], "main");
    assert_eq!(t["options"]["changelog-producer"], "lookup");
    assert_eq!(t["earliest"], 1);
    assert_eq!(t["latest"], 11);
    assert_eq!(t["hints"]["earliest"], 1);
    assert_eq!(t["snapshots"][6]["kind"], "APPEND");
    assert_eq!(t["snapshots"][6]["commitUser"], "crash-writer");
    assert_eq!(t["snapshots"][6]["commitIdentifier"], 4);
    assert_eq!(t["consumers"][0]["id"], "cdc-reader");
    assert_eq!(t["consumers"][0]["nextSnapshot"], 8);
    assert_eq!(t["consumers"][0]["verdict"], "past-lost-changelog");
    let f = &t["findings"][0];
    assert_eq!(f["code"], "lost-changelog");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["snapshot"], 7);
    assert!(f["message"].as_str().unwrap().len() > 20);
    assert!(f["remedy"].as_str().unwrap().len() > 20);
    // Same bytes as the library renders.
    let lib = prv::report::json::render(&common::report(std::path::Path::new(&crash)));
    assert_eq!(stdout, lib);
}

#[test]
fn markdown_and_output_file() {
    let crash = fx("java09_d_crash_between_append_and_compact");
    let dir = std::env::temp_dir().join(format!("prv-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("report.md");
    let (code, stdout, _) = run(&[
        "check",
        &crash,
        "--format",
        "markdown",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.starts_with("## ❌ Paimon recovery check: **FAIL**"));
    assert!(md.contains("| 7 | APPEND ❌ lost changelog |"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn now_accepts_rfc3339_and_epoch_millis() {
    let f = fx("java09_b_consumer");
    let (_, a, _) = run(&[
        "check",
        &f,
        "--format",
        "json",
        "--now",
        "2026-12-01T00:00:00Z",
    ]);
    let (_, b, _) = run(&["check", &f, "--format", "json", "--now", "1796083200000"]);
    let va: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(va["clock"]["nowMillis"], 1_796_083_200_000i64);
    assert_eq!(va["clock"]["source"], "given");
    assert_eq!(a, b);
    let (code, _, err) = run(&["check", &f, "--now", "last tuesday"]);
    assert_eq!(code, 2);
    assert!(err.contains("RFC 3339"), "{err}");
}

#[test]
fn unreadable_input_and_bad_usage_exit_2() {
    let (code, _, err) = run(&["check", "/nonexistent/artifact.zip"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/artifact.zip"), "{err}");

    let dir = std::env::temp_dir().join(format!("prv-notzip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bogus = dir.join("bogus.zip");
    std::fs::write(&bogus, b"this is not a zip file at all, just text").unwrap();
    let (code, _, err) = run(&["check", bogus.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("not a zip"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();

    assert_eq!(run(&["check"]).0, 2);
    assert_eq!(run(&["frobnicate"]).0, 2);
    assert_eq!(run(&["check", "x.zip", "--format", "yaml"]).0, 2);
    let (code, _, err) = run(&[
        "check",
        &fx("java09_a_healthy_pk"),
        "--limit",
        "max-bogus=3",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("max-entries"), "{err}");
    assert_eq!(run(&["--help"]).0, 0);
}

#[test]
fn a_directory_gives_the_same_tables_as_its_zip() {
    let zip = fixture("warehouses/java09_c_split_commits.zip");
    let dir = std::env::temp_dir().join(format!("prv-dir-{}", std::process::id()));
    common::extract(&zip, &dir);
    let (code, from_dir, _) = run(&["check", dir.to_str().unwrap(), "--format", "json"]);
    let (_, from_zip, _) = run(&["check", zip.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0);
    let d: serde_json::Value = serde_json::from_str(&from_dir).unwrap();
    let z: serde_json::Value = serde_json::from_str(&from_zip).unwrap();
    assert_eq!(d["tables"].as_array().unwrap().len(), 2);
    for (a, b) in d["tables"]
        .as_array()
        .unwrap()
        .iter()
        .zip(z["tables"].as_array().unwrap())
    {
        assert_eq!(a["path"], b["path"]);
        assert_eq!(a["snapshots"], b["snapshots"]);
        assert_eq!(a["consumers"], b["consumers"]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
