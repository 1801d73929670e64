//! The whole [`Scene`] of a few tables and views, compared with fixtures written by the layout
//! before `scene` was split into one function per part of the picture: every element, attribute
//! and text, and the scene's height, density, visible count, tab stop and lane band.
//!
//! `PRV_SCENE_BLESS=1 cargo test -p paimon-recovery-validator-web scene_golden` rewrites the
//! fixtures (`web/tests/fixtures/scene/`) from the current code; without it the test compares.

use std::path::PathBuf;

use prv::report::model::{Code, Finding, RayCheckpointReport, Severity, TableReport, TagSummary};

use super::layout::{scene, Model, Scene, Ui, View};
use super::sample;

fn interactive(active: Option<i64>, focus: Option<i64>) -> Ui {
    Ui {
        active,
        focus,
        tooltip_id: Some("tip".to_string()),
        interactive: true,
    }
}

/// The scene as text: its fields, then one tag per line (text is escaped, so every `<` opens a
/// tag).
fn render(sc: &Scene) -> String {
    let mut xml = String::new();
    for n in &sc.nodes {
        n.write_xml(&mut xml);
        xml.push('\n');
    }
    format!(
        "height={:?} dense={} visible={} tab_stop={:?} lanes_y={:?}\n{}",
        sc.height,
        sc.dense,
        sc.visible,
        sc.tab_stop,
        sc.lanes_y,
        xml.replace('<', "\n<")
    )
}

fn ray(path: &str, marker: Option<&str>, missing: u64, unknown: bool) -> RayCheckpointReport {
    RayCheckpointReport {
        path: path.to_string(),
        id_column: "id".to_string(),
        files: 2,
        ids: 100,
        missing,
        missing_unknown_because: unknown.then(|| "a file could not be read".to_string()),
        pairing: "only-table".to_string(),
        generation_marker: marker.map(str::to_string),
        cut_short: None,
    }
}

/// Flags of every kind: crowded consumers, a planned Spark batch, Ray checkpoints (with and
/// without a marker, missing ids, unknown), a long lane name, an expired tag, a gap.
fn busy(n: usize) -> TableReport {
    let mut t = sample::table(n);
    let c = t.consumers.first().cloned();
    if let Some(c) = c {
        for k in 0..7 {
            let mut c = c.clone();
            c.id = format!("reader-{k}");
            c.next_snapshot = Some(5 + k * 3);
            t.consumers.push(c);
        }
    }
    if let Some(sp) = t.spark_checkpoints.first_mut() {
        sp.planned_offset = sp.offset.map(|mut o| {
            o.snapshot_id = 20;
            o
        });
    }
    t.ray_checkpoints = vec![
        ray("ray/ckpt-a/", Some("12: op-1"), 3, false),
        ray("ray/ckpt-b", None, 0, false),
        ray("ray/ckpt-c", Some("25: op-2"), 0, true),
        ray("ray/ckpt-d", Some("not a number"), 0, false),
    ];
    for s in t
        .snapshots
        .iter_mut()
        .filter(|s| s.commit_user == "compactor")
    {
        s.commit_user = "a-compactor-with-a-very-long-commit-user-name".to_string();
    }
    t.tags.push(TagSummary {
        name: "gone".to_string(),
        snapshot: Some(14),
        snapshot_retained: false,
    });
    t.snapshots.retain(|s| !(30..=33).contains(&s.id));
    t.findings.push(
        Finding::new(Code::SnapshotGap, Severity::Error, "gap", "remedy")
            .snapshot(30)
            .related([29, 34]),
    );
    t.findings.push(
        Finding::new(Code::SnapshotGap, Severity::Error, "gap", "remedy")
            .snapshot(40)
            .related([39, 41]),
    );
    t
}

fn many_tags(n: usize) -> TableReport {
    let mut t = sample::table(n);
    let tag = t.tags.first().cloned();
    if let Some(tag) = tag {
        t.tags = (0..200)
            .map(|k| {
                let mut g = tag.clone();
                g.name = format!("daily-{k}");
                g.snapshot = Some(3 + k * 10);
                g
            })
            .collect();
    }
    t
}

fn many_lanes(n: usize) -> TableReport {
    let mut t = sample::table(n);
    for (k, s) in t.snapshots.iter_mut().enumerate() {
        s.commit_user = format!("user-{}", (k * 7919) % 40);
    }
    t
}

fn view(start: f64, span: f64) -> Option<View> {
    Some(View { start, span })
}

/// `(name, table, view (None: fit), ui)`.
fn cases() -> Vec<(&'static str, TableReport, Option<View>, Ui)> {
    let small = sample::table(30);
    vec![
        (
            "small-active-focus",
            small.clone(),
            None,
            interactive(Some(12), Some(sample::LOST)),
        ),
        ("small-static", small.clone(), None, Ui::default()),
        (
            "small-zoomed",
            small,
            view(8.0, 10.0),
            interactive(None, None),
        ),
        (
            "dense-300",
            sample::table(300),
            None,
            interactive(None, None),
        ),
        ("dense-300-static", sample::table(300), None, Ui::default()),
        (
            "zoomed-300",
            sample::table(300),
            view(100.0, 100.0),
            interactive(Some(150), Some(151)),
        ),
        (
            "dense-2000-focus",
            sample::table(2_000),
            None,
            interactive(Some(sample::LOST), Some(sample::LOST)),
        ),
        (
            "many-lanes-500",
            many_lanes(500),
            None,
            interactive(Some(250), None),
        ),
        (
            "many-lanes-500-zoomed",
            many_lanes(500),
            view(200.0, 60.0),
            interactive(None, Some(220)),
        ),
        (
            "many-tags-2000",
            many_tags(2_000),
            None,
            interactive(None, None),
        ),
        (
            "many-tags-2000-zoomed",
            many_tags(2_000),
            view(100.0, 100.0),
            interactive(None, None),
        ),
        ("busy", busy(60), None, interactive(None, None)),
        ("busy-static", busy(60), None, Ui::default()),
        (
            "busy-offscreen",
            busy(60),
            view(15.0, 8.0),
            interactive(Some(18), None),
        ),
        (
            "busy-gap",
            busy(60),
            view(24.0, 16.0),
            interactive(None, None),
        ),
        ("busy-500", busy(500), None, Ui::default()),
        ("empty", sample::table(0), None, interactive(None, None)),
        ("one", sample::table(1), None, interactive(None, None)),
    ]
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scene")
}

#[test]
fn scenes_match_their_fixtures() {
    let bless = std::env::var_os("PRV_SCENE_BLESS").is_some();
    let mut differ = Vec::new();
    for (name, table, v, ui) in cases() {
        let m = Model::new(&table);
        let v = v.map_or_else(|| View::fit(&m), |v| v.clamp(&m));
        let got = render(&scene(&table, &m, &v, &ui));
        let path = dir().join(format!("{name}.txt"));
        if bless {
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (PRV_SCENE_BLESS=1 writes it)", path.display()));
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .map_or(got.lines().count().min(want.lines().count()), |k| k);
            differ.push(format!(
                "{name}: line {}: got {:?}, want {:?}",
                line + 1,
                got.lines().nth(line),
                want.lines().nth(line)
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn the_fixtures_cover_every_part_of_the_drawing() {
    // Guards against fixtures that stopped exercising a branch (e.g. a sample change).
    let all: String = cases()
        .into_iter()
        .map(|(_, table, v, ui)| {
            let m = Model::new(&table);
            let v = v.map_or_else(|| View::fit(&m), |v| v.clamp(&m));
            render(&scene(&table, &m, &v, &ui))
        })
        .collect();
    for needle in [
        "data-marker=\"earliest\"",
        "data-mismatch=\"true\"",
        "tl-tag-expired",
        "data-tag-count=",
        "data-band=\"expired\"",
        "data-band=\"gap\"",
        "tl-gap-label",
        "data-band=\"long-lived-changelog\"",
        "data-snapshot-range=",
        "tl-agg tl-append tl-lost tl-focus",
        "data-pair=",
        "tl-focus-ring",
        "aria-describedby=\"tip\"",
        "data-consumer=",
        "data-spark-checkpoint=",
        "data-spark-planned=",
        "data-ray-checkpoint=",
        "missing unknown",
        "data-offscreen=\"left\"",
        "data-offscreen=\"right\"",
        "data-full=",
        "text-anchor=\"end\"",
        "other commit users",
        "tl-tick",
    ] {
        assert!(all.contains(needle), "no fixture draws {needle}");
    }
}
