//! The arrows of `docs/ARCHITECTURE.md`, enforced over the source: every `crate::…` path in
//! the code of each file under `src/` (comments and test modules left out) may only point at
//! its own layer or one below, and the few rules the layers alone do not express hold (checks
//! read nothing, renderers see only the findings vocabulary, the file system only in the
//! native source and the CLI). And every `paimon-format.md §N.M` the code cites is a section
//! of `docs/paimon-format.md`.
//!
//! A new top-level module (or one of the submodules listed in [`LAYERS`]) must be given a layer
//! here and in `docs/ARCHITECTURE.md`; the test says so when it meets one it does not know.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Modules (longest prefix wins) and their layer, bottom up.
const LAYERS: &[(&str, u8, &str)] = &[
    ("error", 0, "foundations"),
    ("arena", 0, "foundations"),
    ("limits", 0, "foundations"),
    ("time", 0, "foundations"),
    ("source", 1, "sources"),
    ("codec", 0, "foundations"),
    ("paimon", 2, "format objects and data-file readers"),
    ("parquet", 2, "format objects and data-file readers"),
    ("orc", 2, "format objects and data-file readers"),
    ("rows", 2, "format objects and data-file readers"),
    ("rows::read", 2, "format objects and data-file readers"),
    ("rows::key", 2, "format objects and data-file readers"),
    ("rows::merge", 2, "format objects and data-file readers"),
    ("rows::dv", 2, "format objects and data-file readers"),
    ("spark::commits", 2, "format objects and data-file readers"),
    ("spark::metadata", 2, "format objects and data-file readers"),
    ("spark::offsets", 2, "format objects and data-file readers"),
    (
        "spark::paimon_offset",
        2,
        "format objects and data-file readers",
    ),
    ("warehouse", 3, "warehouse discovery"),
    ("timeline", 4, "timeline (loading)"),
    ("rows::live", 5, "row evidence over a timeline (loading)"),
    ("rows::lost", 5, "row evidence over a timeline (loading)"),
    (
        "rows::identities",
        5,
        "row evidence over a timeline (loading)",
    ),
    ("pairing", 6, "engine checkpoints (loading)"),
    ("spark", 6, "engine checkpoints (loading)"),
    ("ray", 6, "engine checkpoints (loading)"),
    ("findings", 7, "findings vocabulary"),
    ("checks", 8, "checks (judging)"),
    ("analysis", 9, "analysis (assembling)"),
    ("detail", 9, "analysis (assembling)"),
    ("references", 9, "analysis (assembling)"),
    ("report", 10, "renderers"),
    // The crate root's re-exports.
    ("Error", 0, "foundations"),
    ("ErrorKind", 0, "foundations"),
    ("Result", 0, "foundations"),
    ("Limits", 0, "foundations"),
    ("Report", 7, "findings vocabulary"),
    ("Analysis", 9, "analysis (assembling)"),
    ("AnalysisOptions", 9, "analysis (assembling)"),
    ("Progress", 9, "analysis (assembling)"),
    ("analyze", 9, "analysis (assembling)"),
    ("analyze_prefetched", 9, "analysis (assembling)"),
    ("run", 9, "analysis (assembling)"),
];

/// Paths the checks may not name: checks judge what was loaded and read nothing themselves.
const CHECKS_READ_NOTHING: &[&str] = &[
    "source::Artifact",
    "parquet::ParquetFile",
    "parquet::ArtifactFile",
    "rows::read::read_artifact_file",
    "rows::live::read_view",
    "rows::lost",
    "rows::identities::checkpoint_rows",
    "rows::identities::orphan_rows",
    "timeline::files::resolve_root",
    "timeline::Timeline::load",
    "spark::discover",
    "spark::load::load",
    "ray::discover",
    "ray::read_ids",
    "ray::load::load",
];

/// What the renderers may name: the findings vocabulary, the time functions, themselves, and
/// the row-evidence caps (`rows::MAX_*`).
const RENDERERS_MAY_NAME: &[&str] = &["findings", "time", "report", "rows::MAX_"];

/// Files allowed to use `std::fs`: the native source and the CLI.
const FILE_SYSTEM_ALLOWED: &[&str] = &["src/source/native.rs", "src/main.rs"];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/rows/live.rs` → `rows::live`; `src/spark/mod.rs` → `spark`; `src/lib.rs` → ``.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.last_mut() {
        *last = last.trim_end_matches(".rs").to_string();
    }
    if parts
        .last()
        .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
    {
        parts.pop();
    }
    parts.join("::")
}

/// The layer of a module path (`rows::live::TableRef` → rows::live's), by longest prefix.
fn layer(path: &str) -> Option<(&'static str, u8, &'static str)> {
    LAYERS
        .iter()
        .filter(|(m, _, _)| path == *m || path.starts_with(&format!("{m}::")))
        .max_by_key(|(m, _, _)| m.len())
        .copied()
}

/// Files that only exist in tests: `#[cfg(test)] mod name;` in their parent.
fn test_only_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for w in lines.windows(2) {
            if w[0].trim() == "#[cfg(test)]" {
                let decl = w[1].trim().trim_start_matches("pub(crate) ");
                if let Some(name) = decl.strip_prefix("mod ").and_then(|d| d.strip_suffix(';')) {
                    let dir = if f
                        .file_name()
                        .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
                    {
                        f.parent().unwrap().to_path_buf()
                    } else {
                        f.with_extension("")
                    };
                    out.insert(dir.join(format!("{name}.rs")));
                    out.insert(dir.join(name).join("mod.rs"));
                }
            }
        }
    }
    out
}

/// The code of a file: comments and `#[cfg(test)]` items (test modules) dropped.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    let mut depth: i64 = 0;
    let mut entered = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        let code = match line.find("//") {
            // A `//` inside a string literal (a URL) is rare; cut only outside quotes.
            Some(pos) if line[..pos].matches('"').count() % 2 == 0 => &line[..pos],
            _ => line,
        };
        if !skipping && t == "#[cfg(test)]" {
            (skipping, depth, entered) = (true, 0, false);
            continue;
        }
        if skipping {
            // Skip the item after the attribute: one line ending in `;`, or a braced block.
            for c in code.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        entered = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if (entered && depth <= 0) || (!entered && code.trim_end().ends_with(';')) {
                skipping = false;
            }
            continue;
        }
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Expands a use tree that follows `crate::` (`a::b::{c, d::{e, f}}`) into full paths.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree.trim_end_matches("::").to_string()];
    };
    let prefix = tree[..open].trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|i| !i.is_empty())
        .flat_map(|i| {
            expand(i).into_iter().map(move |p| {
                if p == "self" {
                    prefix.to_string()
                } else if prefix.is_empty() {
                    p
                } else {
                    format!("{prefix}::{p}")
                }
            })
        })
        .collect()
}

/// Every `crate::…` path named in `code`, without the `crate::` prefix.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(pos) = rest.find("crate::") {
        let before = rest[..pos].chars().last();
        rest = &rest[pos + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `prv_crate::` or the like
        }
        let end = if rest.starts_with('{') {
            // A braced tree: up to its matching brace.
            let mut depth = 0;
            rest.char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(rest.len(), |(i, _)| i + 1)
        } else {
            // A path: identifiers and `::`, then possibly a braced tree.
            let mut end = 0;
            let bytes = rest.as_bytes();
            while end < bytes.len() {
                let c = bytes[end] as char;
                if c.is_alphanumeric() || c == '_' || c == ':' {
                    end += 1;
                } else if c == '{' && rest[..end].ends_with("::") {
                    let mut depth = 0;
                    for (i, c) in rest[end..].char_indices() {
                        match c {
                            '{' => depth += 1,
                            '}' => depth -= 1,
                            _ => {}
                        }
                        if depth == 0 {
                            end += i + 1;
                            break;
                        }
                    }
                    break;
                } else {
                    break;
                }
            }
            end
        };
        out.extend(expand(&rest[..end]));
    }
    out
}

/// The arrows each file of `src/` draws that the architecture forbids, one line each.
fn violations() -> Vec<String> {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let test_only = test_only_files(&files);
    let mut out = Vec::new();
    for file in &files {
        if test_only.contains(file) {
            continue;
        }
        let rel = file.strip_prefix(&src).unwrap();
        let shown = format!("src/{}", rel.display());
        let module = module_of(rel);
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        if code.contains("std::fs") && !FILE_SYSTEM_ALLOWED.contains(&shown.as_str()) {
            out.push(format!(
                "{shown} uses std::fs: only the native source and the CLI touch the file system"
            ));
        }
        if code.contains("prv_web") || code.contains("web_sys") || code.contains("wasm_bindgen") {
            out.push(format!(
                "{shown} names the web crate or the browser: the core knows neither"
            ));
        }
        if module.is_empty() {
            continue; // lib.rs and main.rs sit above everything
        }
        let Some((_, from_layer, from_name)) = layer(&module) else {
            out.push(format!(
                "{shown}: module {module} has no layer; give it one in tests/architecture.rs and docs/ARCHITECTURE.md"
            ));
            continue;
        };
        for path in crate_paths(&code) {
            let Some((to_module, to_layer, to_name)) = layer(&path) else {
                out.push(format!(
                    "{shown} names crate::{path}, whose module has no layer; give it one in tests/architecture.rs and docs/ARCHITECTURE.md"
                ));
                continue;
            };
            if to_layer > from_layer {
                out.push(format!(
                    "{shown} ({from_name}) names crate::{path} ({to_module}, {to_name}): an arrow upwards"
                ));
            }
            if from_layer == 8 {
                if let Some(bad) = CHECKS_READ_NOTHING
                    .iter()
                    .find(|b| path == **b || path.starts_with(&format!("{b}::")))
                {
                    out.push(format!(
                        "{shown} names crate::{path}: checks judge what was loaded and read nothing themselves (crate::{bad})"
                    ));
                }
            }
            if from_layer == 10 && !RENDERERS_MAY_NAME.iter().any(|ok| path.starts_with(ok)) {
                out.push(format!(
                    "{shown} names crate::{path}: renderers see only the findings vocabulary (and time, rows::MAX_*)"
                ));
            }
        }
    }
    out
}

#[test]
fn no_forbidden_arrow_exists() {
    let v = violations();
    assert!(v.is_empty(), "forbidden arrows:\n{}", v.join("\n"));
}

#[test]
fn the_path_reader_sees_grouped_and_nested_imports() {
    let code = "use crate::checks::{self, TableJudgement};\nuse crate::{ray, spark};\nuse crate::rows::{identities::{checkpoint_rows, Live}, Key};\nlet x = crate::time::format_utc(0);";
    let paths = crate_paths(code);
    for want in [
        "checks",
        "checks::TableJudgement",
        "ray",
        "spark",
        "rows::identities::checkpoint_rows",
        "rows::identities::Live",
        "rows::Key",
        "time::format_utc",
    ] {
        assert!(paths.iter().any(|p| p == want), "{want} not in {paths:?}");
    }
    // Comments and test modules are not code.
    let code = code_of("//! [`crate::checks`]\nuse crate::time; // crate::report\n#[cfg(test)]\nmod tests {\n    use crate::report;\n}\n");
    assert_eq!(crate_paths(&code), vec!["time".to_string()]);
}

/// Every `§N` / `§N.M` the core cites (its citations are all of `paimon-format.md`) is a
/// heading of `docs/paimon-format.md`.
#[test]
fn every_cited_section_of_the_format_notes_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/paimon-format.md")).unwrap();
    let sections: BTreeSet<String> = doc
        .lines()
        .filter(|l| l.starts_with('#'))
        .filter_map(|l| l.trim_start_matches('#').split_whitespace().next())
        .map(|n| n.trim_end_matches('.').to_string())
        .collect();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("tests"), &mut files);
    let mut missing = Vec::new();
    let mut cited = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.contains(concat!("paimon-format.md ", "Appendix")) {
                missing.push(format!("{}:{} cites an appendix", f.display(), n + 1));
            }
            for part in line.split('§').skip(1) {
                let num: String = part
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let num = num.trim_end_matches('.');
                if num.is_empty() {
                    continue;
                }
                cited += 1;
                if !sections.contains(num) {
                    missing.push(format!("{}:{} cites §{num}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        cited > 40,
        "only {cited} citations found: the scan is broken"
    );
    assert!(
        missing.is_empty(),
        "sections cited but not in docs/paimon-format.md:\n{}",
        missing.join("\n")
    );
}
