//! Tests of the page in a real browser (headless Chromium, the main thread): the whole app,
//! rendered from a permalink (`#report=…`), so no worker and no file are involved.
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: &str = include_str!(
    "../../tests/golden/warehouses__java09_d_crash_between_append_and_compact.json.snap"
);

/// The report of the golden file (an insta snapshot: the report after its `---` header).
fn report_json() -> String {
    let body = GOLDEN.splitn(3, "---").nth(2).unwrap();
    body.trim_start_matches('\n').to_string()
}

async fn wait_for(selector: &str) -> web_sys::Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    for _ in 0..100 {
        if let Some(el) = doc.query_selector(selector).unwrap() {
            return el;
        }
        yew::platform::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{selector} never appeared");
}

fn count(selector: &str) -> u32 {
    let doc = web_sys::window().unwrap().document().unwrap();
    doc.query_selector_all(selector).unwrap().length()
}

#[wasm_bindgen_test]
async fn a_permalink_renders_its_report_with_findings_filters_and_timeline() {
    let json = report_json();
    let report = prv::report::json::parse(&json).unwrap();
    let hash = prv_web::permalink::encode(&json).unwrap();
    let window = web_sys::window().unwrap();
    window.location().set_hash(&hash).unwrap();
    let doc = window.document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<prv_web::app::App>::with_root(root).render();

    let verdict = wait_for("[data-testid=verdict][data-verdict]").await;
    assert_eq!(
        verdict.get_attribute("data-verdict").as_deref(),
        Some(report.verdict.as_str())
    );
    assert_eq!(count("[data-testid=from-link]"), 1);
    let findings: usize = report
        .tables
        .iter()
        .map(|t| t.findings.len())
        .sum::<usize>()
        + report.findings.len();
    assert_eq!(count("li.finding[data-finding-code]") as usize, findings);
    assert!(count("li.finding[data-finding-code=lost-changelog][data-snapshot]") > 0);
    // Lost rows are a table of keys.
    assert!(count("[data-testid=lost-rows] tbody tr") > 0);
    // The timeline replaced the snapshot table: one mark per snapshot.
    let table = report
        .tables
        .iter()
        .find(|t| t.path.ends_with("lk_crash"))
        .unwrap();
    wait_for("svg[data-testid=timeline]").await;
    assert_eq!(
        count("svg[data-testid=timeline] [data-snapshot-id]") as usize,
        table.snapshots.len()
    );
    assert_eq!(count("[data-snapshot-row]"), 0);

    // A code filter hides that code's findings.
    let chip: web_sys::HtmlElement =
        wasm_bindgen::JsCast::unchecked_into(wait_for("[data-filter-code=lost-changelog]").await);
    chip.click();
    yew::platform::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(count("li.finding[data-finding-code=lost-changelog]"), 0);
    assert_eq!(chip.get_attribute("aria-pressed").as_deref(), Some("false"));
    chip.click();
    yew::platform::time::sleep(Duration::from_millis(100)).await;
    assert!(count("li.finding[data-finding-code=lost-changelog]") > 0);
}
