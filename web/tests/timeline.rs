//! The timeline and snapshot detail components mounted in a real browser (headless Chromium,
//! through wasm-bindgen-test-runner; `make test-wasm`). The tables are the synthetic ones of
//! `prv_web::timeline::sample`.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use prv::detail::{FileDetail, SnapshotDetail};
use prv_web::timeline::{sample, SnapshotDetailProps, SnapshotDetailView, Timeline, TimelineProps};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, Event};
use yew::platform::time::sleep;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

fn container() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let div = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&div).unwrap();
    div
}

async fn settle() {
    sleep(Duration::from_millis(30)).await;
}

fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector).unwrap().length()
}

fn one(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"))
}

fn event(js: &str) -> Event {
    js_sys::eval(js).unwrap().dyn_into::<Event>().unwrap()
}

fn key(target: &Element, key: &str) {
    target
        .dispatch_event(&event(&format!(
            "new KeyboardEvent('keydown', {{key: '{key}', bubbles: true, cancelable: true}})"
        )))
        .unwrap();
}

fn click(target: &Element) {
    target
        .dispatch_event(&event(
            "new MouseEvent('click', {bubbles: true, cancelable: true, button: 0})",
        ))
        .unwrap();
}

/// Waits (up to 3 s, for a loaded machine) until snapshot `id` holds the keyboard focus, then
/// one render more.
async fn until_active(id: &str) {
    for _ in 0..150 {
        if active_snapshot().as_deref() == Some(id) {
            // And let the render that follows the focus (the tooltip) happen.
            settle().await;
            return;
        }
        sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(active_snapshot().as_deref(), Some(id));
}

fn active_snapshot() -> Option<String> {
    web_sys::window()?
        .document()?
        .active_element()?
        .get_attribute("data-snapshot-id")
}

type Selected = Rc<RefCell<Vec<(String, i64)>>>;

fn mount(n: usize, focus: Option<i64>) -> (Element, Selected) {
    let root = container();
    let selected: Selected = Rc::default();
    let sink = selected.clone();
    yew::Renderer::<Timeline>::with_root_and_props(
        root.clone(),
        TimelineProps {
            branches: vec![Rc::new(sample::table(n))],
            focus,
            on_select: Callback::from(move |v| sink.borrow_mut().push(v)),
            on_branch: Callback::noop(),
            branch: None,
        },
    )
    .render();
    (root, selected)
}

#[wasm_bindgen_test]
async fn marks_carry_ids_kinds_and_findings() {
    let (root, _) = mount(30, None);
    settle().await;
    let svg = one(&root, "svg[data-testid=timeline]");
    assert_eq!(svg.get_attribute("data-dense").as_deref(), Some("false"));
    assert!(svg
        .get_attribute("aria-label")
        .unwrap()
        .contains("lost changelog at 7"));
    assert_eq!(count(&svg, "[data-snapshot-id]"), 30);
    let lost = one(&svg, "[data-snapshot-id='7']");
    assert_eq!(
        lost.get_attribute("data-finding-code").as_deref(),
        Some("lost-changelog")
    );
    assert_eq!(count(&svg, "[data-finding-code=pending-changelog]"), 1);
    assert_eq!(
        one(&svg, "[data-snapshot-id='4']")
            .get_attribute("data-kind")
            .as_deref(),
        Some("COMPACT")
    );
    assert_eq!(count(&svg, "[tabindex='0']"), 1);
    assert_eq!(count(&svg, "[data-consumer]"), 2);
    assert_eq!(
        one(&svg, "[data-consumer=cdc-reader]")
            .get_attribute("data-verdict")
            .as_deref(),
        Some("past-lost-changelog")
    );
    assert_eq!(count(&svg, "[data-spark-checkpoint]"), 1);
    assert_eq!(
        one(&svg, "[data-hint=earliest]")
            .get_attribute("data-mismatch")
            .as_deref(),
        Some("true")
    );
    assert_eq!(count(&svg, "[data-band=expired]"), 1);
    assert_eq!(count(&svg, "[data-band=long-lived-changelog]"), 1);
    assert_eq!(count(&svg, "[data-tag]"), 1);
    assert!(count(&svg, "path.tl-pair") > 5);
    // No branch selector for one branch; a legend.
    assert_eq!(count(&root, "[data-testid=timeline-branch]"), 0);
    assert!(count(&root, ".tl-legend li") >= 5);
}

#[wasm_bindgen_test]
async fn ten_thousand_snapshots_are_aggregated_within_the_node_budget() {
    let (root, _) = mount(10_000, None);
    settle().await;
    let svg = one(&root, "svg[data-testid=timeline]");
    assert_eq!(svg.get_attribute("data-dense").as_deref(), Some("true"));
    assert_eq!(count(&svg, "[data-snapshot-id]"), 0);
    let nodes = count(&svg, "*");
    assert!(nodes <= 2_000, "{nodes} elements in the timeline");
    assert!(count(&svg, "[data-snapshot-range]") > 50);
    assert!(
        count(
            &svg,
            "[data-snapshot-range][data-finding-code=lost-changelog]"
        ) >= 1
    );
    // Clicking a bin zooms into it.
    let bin = one(&svg, "rect[data-snapshot-range]");
    click(&bin);
    settle().await;
    let svg = one(&root, "svg[data-testid=timeline]");
    assert_eq!(svg.get_attribute("data-dense").as_deref(), Some("false"));
    assert!(count(&svg, "[data-snapshot-id]") > 0);
}

#[wasm_bindgen_test]
async fn keyboard_moves_the_cursor_and_enter_selects() {
    let (root, selected) = mount(30, None);
    settle().await;
    let first = one(&root, "svg [tabindex='0']");
    assert_eq!(
        first.get_attribute("data-snapshot-id").as_deref(),
        Some("3")
    );
    first
        .dyn_ref::<web_sys::SvgElement>()
        .unwrap()
        .focus()
        .unwrap();
    until_active("3").await;
    // The focused mark is described by the tooltip.
    let tip_id = one(&root, "svg [tabindex='0']")
        .get_attribute("aria-describedby")
        .unwrap();
    let tip = one(&root, &format!("#{tip_id}"));
    assert!(tip.text_content().unwrap().contains("Snapshot 3"));
    assert!(!tip.has_attribute("hidden"));

    key(&one(&root, "svg [tabindex='0']"), "ArrowRight");
    until_active("4").await;
    assert_eq!(
        one(&root, "svg [tabindex='0']")
            .get_attribute("data-snapshot-id")
            .as_deref(),
        Some("4")
    );
    key(&one(&root, "svg [tabindex='0']"), "End");
    until_active("32").await;
    key(&one(&root, "svg [tabindex='0']"), "Home");
    until_active("3").await;
    key(&one(&root, "svg [tabindex='0']"), "Enter");
    settle().await;
    assert_eq!(selected.borrow().as_slice(), &[("main".to_string(), 3)]);
    // Clicking a mark selects it too.
    click(&one(&root, "svg [data-snapshot-id='7']"));
    settle().await;
    assert_eq!(selected.borrow().last(), Some(&("main".to_string(), 7)));
    // Zoom in with +: fewer snapshots in view.
    let before = count(&root, "svg [data-snapshot-id]");
    key(&one(&root, "svg [tabindex='0']"), "+");
    settle().await;
    assert!(count(&root, "svg [data-snapshot-id]") < before);
    // Leave the document (and its focus) to the next test.
    root.remove();
}

#[wasm_bindgen_test]
async fn focus_zooms_to_the_snapshot_and_highlights_it() {
    let (root, _) = mount(10_000, Some(5_000));
    until_active("5000").await;
    let svg = one(&root, "svg[data-testid=timeline]");
    assert_eq!(svg.get_attribute("data-dense").as_deref(), Some("false"));
    let mark = one(&svg, "[data-snapshot-id='5000']");
    assert!(mark.get_attribute("class").unwrap().contains("tl-focus"));
    assert_eq!(count(&svg, ".tl-focus-ring"), 1);
    root.remove();
}

#[wasm_bindgen_test]
async fn branches_get_a_selector() {
    let root = container();
    let main = Rc::new(sample::table(20));
    let mut other = sample::table(40);
    other.branch = "b1".to_string();
    let chosen: Rc<RefCell<Vec<String>>> = Rc::default();
    let sink = chosen.clone();
    yew::Renderer::<Timeline>::with_root_and_props(
        root.clone(),
        TimelineProps {
            branches: vec![main, Rc::new(other)],
            focus: None,
            on_select: Callback::noop(),
            on_branch: Callback::from(move |b| sink.borrow_mut().push(b)),
            branch: None,
        },
    )
    .render();
    settle().await;
    let select = one(&root, "select[data-testid=timeline-branch]")
        .dyn_into::<web_sys::HtmlSelectElement>()
        .unwrap();
    assert_eq!(select.length(), 2);
    assert_eq!(count(&root, "svg [data-snapshot-id]"), 20);
    select.set_value("b1");
    select
        .dispatch_event(&event("new Event('change', {bubbles: true})"))
        .unwrap();
    settle().await;
    assert_eq!(chosen.borrow().as_slice(), &["b1".to_string()]);
    assert_eq!(count(&root, "svg [data-snapshot-id]"), 40);
    assert_eq!(
        one(&root, "svg[data-testid=timeline]")
            .get_attribute("data-branch")
            .as_deref(),
        Some("b1")
    );

    // The page can choose the branch (a finding of b1 was clicked) along with the focus.
    let root = container();
    let mut other = sample::table(40);
    other.branch = "b1".to_string();
    yew::Renderer::<Timeline>::with_root_and_props(
        root.clone(),
        TimelineProps {
            branches: vec![Rc::new(sample::table(20)), Rc::new(other)],
            focus: Some(35),
            on_select: Callback::noop(),
            on_branch: Callback::noop(),
            branch: Some("b1".to_string()),
        },
    )
    .render();
    settle().await;
    settle().await;
    assert_eq!(
        one(&root, "svg[data-testid=timeline]")
            .get_attribute("data-branch")
            .as_deref(),
        Some("b1")
    );
    assert!(one(&root, "svg [data-snapshot-id='35']")
        .get_attribute("class")
        .unwrap()
        .contains("tl-focus"));
}

fn file(name: &str) -> FileDetail {
    FileDetail {
        name: name.to_string(),
        partition: String::new(),
        bucket: 0,
        level: 0,
        rows: 3,
        size: 2048,
        source: Some("APPEND".to_string()),
        sequence: (0, 2),
    }
}

#[wasm_bindgen_test]
async fn the_detail_shows_fields_lists_and_closes() {
    let root = container();
    let detail = SnapshotDetail {
        path: "warehouse/db.db/orders".to_string(),
        branch: "main".to_string(),
        id: 7,
        fields: vec![
            ("id".to_string(), "7".to_string()),
            ("commitKind".to_string(), "APPEND".to_string()),
            (
                "baseManifestList".to_string(),
                "manifest-list-a".to_string(),
            ),
            (
                "deltaManifestList".to_string(),
                "manifest-list-b".to_string(),
            ),
        ],
        file: "warehouse/db.db/orders/snapshot/snapshot-7".to_string(),
        added: (0..250)
            .map(|i| file(&format!("data-{i}.parquet")))
            .collect(),
        deleted: Vec::new(),
        changelog: vec![file("changelog-0.parquet")],
        omitted: 0,
        complete: true,
    };
    let closed = Rc::new(RefCell::new(0));
    let sink = closed.clone();
    yew::Renderer::<SnapshotDetailView>::with_root_and_props(
        root.clone(),
        SnapshotDetailProps {
            detail: Some(Rc::new(detail)),
            loading: false,
            on_close: Callback::from(move |()| *sink.borrow_mut() += 1),
        },
    )
    .render();
    settle().await;
    let panel = one(&root, "[data-testid=snapshot-detail]");
    assert_eq!(
        panel.get_attribute("data-snapshot-id").as_deref(),
        Some("7")
    );
    assert!(panel.text_content().unwrap().contains("commitKind"));
    assert!(panel.text_content().unwrap().contains("manifest-list-b"));
    let added = one(&panel, "details[data-list=added]");
    assert_eq!(added.get_attribute("data-count").as_deref(), Some("250"));
    // Long lists start closed and show the first rows, then all on request.
    assert!(!added.has_attribute("open"));
    assert_eq!(count(&added, "tbody tr"), 100);
    click(&one(&added, "button"));
    settle().await;
    assert_eq!(count(&root, "details[data-list=added] tbody tr"), 250);
    assert!(one(&root, "details[data-list=changelog]").has_attribute("open"));
    click(&one(&root, "[aria-label='Close the snapshot detail']"));
    assert_eq!(*closed.borrow(), 1);
    key(&one(&root, "[data-testid=snapshot-detail]"), "Escape");
    assert_eq!(*closed.borrow(), 2);
}
