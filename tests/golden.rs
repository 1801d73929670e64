//! Golden reports for every fixture: JSON, Markdown and text, committed under
//! `tests/golden/` and reviewed by eye. A change to any report shows up as a diff here.
//!
//! To accept intended changes: `INSTA_UPDATE=always cargo test --test golden`, then read the
//! diff (`git diff tests/golden`) before committing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::{all_fixture_zips, report};

#[test]
fn golden_reports() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("golden");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for path in all_fixture_zips() {
            let dir = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy();
            let stem = path.file_stem().unwrap().to_string_lossy();
            let name = format!("{dir}__{stem}");
            let r = report(&path);
            insta::assert_snapshot!(format!("{name}.json"), prv::report::json::render(&r));
            insta::assert_snapshot!(format!("{name}.md"), prv::report::markdown::render(&r));
            insta::assert_snapshot!(format!("{name}.txt"), prv::report::text::render(&r));
        }
    });
}
