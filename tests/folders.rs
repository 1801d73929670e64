//! A folder the CLI walks (`Input::Tree`: its files opened by their path when read) is the same
//! artifact as the same files handed over one by one (`Input::Folder`, as the page hands over a
//! dropped folder): the same listing, sizes and times, the same problems in the same order, the
//! same bytes, alone or beside another input.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::Path;
use std::rc::Rc;

use prv::source::{native, Artifact, HostFile, Input};
use prv::Limits;

/// A folder holding a warehouse, a nested zip, a directory whose files come before and after
/// a subdirectory, a name that normalises onto another file's path (a duplicate), a non-ASCII
/// name, a name with a control character (refused), and an empty file.
fn make_folder(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("mix/m")).unwrap();
    common::extract(
        &common::fixture("warehouses/java09_lookup_nowait.zip"),
        &dir.join("wh"),
    );
    std::fs::copy(
        common::fixture("warehouses/java09_pending_changelog.zip"),
        dir.join("mix/inner.zip"),
    )
    .unwrap();
    for (name, bytes) in [
        ("mix/a", &b"a"[..]),
        ("mix/m/x", b"mx"),
        ("mix/z", b"zz"),
        ("mix/m\\x", b"backslash"),
        ("mix/caf\u{e9}", b"cafe"),
        ("mix/bad\u{7}name", b"bell"),
        ("mix/empty", b""),
    ] {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

/// The walked folder's files, read from disk and handed over one by one in the walk's order.
fn handed_over(tree: &Input, root: &Path) -> Input {
    let Input::Tree {
        name,
        dirs,
        skipped,
        ..
    } = tree
    else {
        panic!("a folder is walked as a tree");
    };
    let mut files = Vec::new();
    for dir in dirs {
        for (file, facts) in dir.iter() {
            let path = dir.file_path(file);
            let bytes = std::fs::read(root.join(&path)).unwrap();
            assert_eq!(bytes.len() as u64, facts.size, "{path}");
            files.push(HostFile {
                path,
                modified_millis: facts.modified_millis,
                data: Rc::new(bytes),
            });
        }
    }
    Input::Folder {
        name: name.clone(),
        files,
        skipped: *skipped,
    }
}

/// Everything an artifact shows: its files (path, size, time, bytes, the middle of each read
/// by range) and its problems.
fn shown(a: &Artifact) -> (Vec<String>, Vec<String>) {
    let mut files = Vec::new();
    for f in a.files() {
        let bytes = a.read(&f.path(), u64::MAX).map_err(|e| e.to_string());
        let middle = a
            .read_range(f, f.size() / 3, f.size() / 3)
            .map_err(|e| e.to_string());
        files.push(format!(
            "{} {} {:?} {:?} {:?}",
            f.path(),
            f.size(),
            f.modified(),
            bytes,
            middle
        ));
    }
    let problems = a.problems().iter().map(|e| e.to_string()).collect();
    (files, problems)
}

#[test]
fn a_walked_folder_is_the_artifact_of_its_files_handed_over() {
    let root = std::env::temp_dir().join(format!("prv-folders-{}", std::process::id()));
    make_folder(&root);
    let limits = Limits::default();
    let walked = || native::open_input(&root, &limits).unwrap();

    // The walk: a directory's files before and after its subdirectory, in name order.
    let Input::Tree { dirs, .. } = walked() else {
        panic!("a folder is walked as a tree");
    };
    let mix: Vec<(String, Vec<String>)> = dirs
        .iter()
        .filter(|d| d.path.starts_with("mix"))
        .map(|d| {
            (
                d.path.clone(),
                d.iter().map(|(n, _)| n.to_string()).collect(),
            )
        })
        .collect();
    let names = |ns: &[&str]| ns.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    assert_eq!(
        mix,
        [
            (
                "mix".to_string(),
                names(&["a", "bad\u{7}name", "caf\u{e9}", "empty", "inner.zip"])
            ),
            ("mix/m".to_string(), names(&["x"])),
            ("mix".to_string(), names(&["m\\x", "z"])),
        ]
    );

    let alone = (
        Artifact::open(vec![walked()], &limits).unwrap(),
        Artifact::open(vec![handed_over(&walked(), &root)], &limits).unwrap(),
    );
    let (files, problems) = shown(&alone.0);
    assert_eq!(
        (&files, &problems),
        (&shown(&alone.1).0, &shown(&alone.1).1)
    );
    assert!(files.len() > 100, "{} files", files.len());
    // The nested zip is opened as a folder, the duplicate and the control character are
    // problems, the non-ASCII name is listed.
    assert!(files.iter().any(|f| f.starts_with("mix/inner.zip!/")));
    assert!(files.iter().any(|f| f.starts_with("mix/caf\u{e9} 4 ")));
    assert!(files.iter().any(|f| f.starts_with("mix/empty 0 ")));
    let joined = problems.join("\n");
    assert!(joined.contains("more than once"), "{joined}");
    assert!(joined.contains("control characters"), "{joined}");

    // Beside another input, each under its name.
    let zip = common::fixture("warehouses/java09_a_healthy_pk.zip");
    let other = || native::open_input(&zip, &limits).unwrap();
    let beside = (
        Artifact::open(vec![other(), walked()], &limits).unwrap(),
        Artifact::open(vec![other(), handed_over(&walked(), &root)], &limits).unwrap(),
    );
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    let (files, problems) = shown(&beside.0);
    assert_eq!(
        (&files, &problems),
        (&shown(&beside.1).0, &shown(&beside.1).1)
    );
    assert!(files
        .iter()
        .any(|f| f.starts_with(&format!("{name}/mix/z 2 "))));

    // A view of a few files lists what the whole artifact's view lists.
    let keep: fn(&str) -> bool = |p| p.contains("/manifest/");
    let view = |input| Artifact::open_only(vec![input], &limits, keep).unwrap();
    assert_eq!(
        shown(&view(walked())),
        shown(&view(handed_over(&walked(), &root)))
    );
    std::fs::remove_dir_all(&root).unwrap();
}
