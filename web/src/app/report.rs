//! The report: the verdict, exports, what could not be read, filters, then each table with its
//! timeline, its findings grouped by severity, and its consumers, tags and engine checkpoints.

use std::collections::BTreeMap;
use std::rc::Rc;

use prv::report::model::{
    ConsumerReport, Finding, RayCheckpointReport, Severity, SparkCheckpointReport, TableReport,
};
use serde_json::Value;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

use super::dom;
use crate::filters::{self, Filter, SEVERITIES};
use crate::permalink;
use crate::state::{format_bytes, format_utc, DetailState, Loaded};
use crate::timeline::{SnapshotDetailView, Timeline};

/// Properties of [`ReportView`].
#[derive(Properties)]
pub struct ReportProps {
    /// The report and its exports.
    pub loaded: Rc<Loaded>,
    /// The snapshot detail panel's state.
    pub detail: DetailState,
    /// A snapshot was chosen on a timeline: `(table path, branch, id)`.
    pub on_select: Callback<(String, String, i64)>,
    /// The detail panel was closed.
    pub on_close_detail: Callback<()>,
}

impl PartialEq for ReportProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.loaded, &other.loaded)
            && self.detail == other.detail
            && self.on_select == other.on_select
            && self.on_close_detail == other.on_close_detail
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn opt(n: Option<i64>) -> String {
    n.map(|n| n.to_string()).unwrap_or_else(|| "–".into())
}

/// Moves keyboard focus to (and scrolls to) the element with id `id`.
fn focus_element(id: &str) {
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<HtmlElement>().ok());
    if let Some(el) = el {
        el.scroll_into_view();
        let _ = el.focus();
    }
}

/// The tables of one path: `(path, one report per branch with main first, their indexes in the
/// report)`.
type TableGroup = (String, Vec<Rc<TableReport>>, Vec<usize>);

/// The whole report.
#[function_component(ReportView)]
pub fn report_view(props: &ReportProps) -> Html {
    let loaded = &props.loaded;
    let report = &loaded.report;
    let filter = use_state(Filter::default);
    let notice = use_state(String::new);
    let focus = use_state(|| None::<(String, i64, u64)>);
    // The snapshot last chosen on a timeline: (path, branch, id); its detail shows under it.
    let selected = use_state(|| None::<(String, String, i64)>);
    // The branch shown on each table's timeline: path → branch.
    let branches = use_state(BTreeMap::<String, String>::new);
    // How many items of each long list are drawn (list key → count); the rest wait behind a
    // "Show more" button, so a report with thousands of findings or consumers (hostile or not)
    // never blocks the tab while it renders.
    let shown = use_state(BTreeMap::<String, usize>::new);

    // Tables grouped by path (main first, as the report orders them), as shared Rcs so the
    // timeline keeps its zoom across renders.
    let groups: Rc<Vec<TableGroup>> = use_memo(ReportKey(loaded.clone()), |ReportKey(loaded)| {
        let mut groups: Vec<TableGroup> = Vec::new();
        for (i, t) in loaded.report.tables.iter().enumerate() {
            match groups.iter_mut().find(|(p, _, _)| *p == t.path) {
                Some((_, ts, idx)) => {
                    ts.push(Rc::new(t.clone()));
                    idx.push(i);
                }
                None => groups.push((t.path.clone(), vec![Rc::new(t.clone())], vec![i])),
            }
        }
        for (_, ts, idx) in groups.iter_mut() {
            // `main` first (the timeline's selector starts there).
            if let Some(m) = ts.iter().position(|t| t.branch == "main") {
                ts.swap(0, m);
                idx.swap(0, m);
            }
        }
        groups
    });

    let verdict = report.verdict.as_str();
    let headline = match verdict {
        "fail" => "FAIL: data was lost or a reader will misbehave",
        "warn" => "WARN: something needs a person's look",
        _ => "PASS: no problem found",
    };
    let s = &report.summary;
    let input_name = if report.input.name.is_empty() {
        loaded.input.clone()
    } else {
        report.input.name.clone()
    };

    let on_focus_finding = {
        let focus = focus.clone();
        Callback::from(move |(path, id): (String, i64)| {
            let serial = focus.as_ref().map_or(0, |f| f.2 + 1);
            focus_element(&timeline_anchor(&path));
            let again = focus
                .as_ref()
                .is_some_and(|(p, i, _)| *p == path && *i == id);
            if again {
                // The timeline acts on a change of its focus: clear it for one render, then
                // give the same snapshot again (the user may have panned away since).
                focus.set(None);
                let focus = focus.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    yew::platform::time::sleep(std::time::Duration::from_millis(30)).await;
                    focus.set(Some((path, id, serial)));
                });
            } else {
                focus.set(Some((path, id, serial)));
            }
        })
    };

    let unread = filters::unread_files(report);
    let f = (*filter).clone();
    let ctx = FindingCtx {
        filter: f.clone(),
        on_focus: on_focus_finding.clone(),
        shown: (*shown).clone(),
        on_more: {
            let shown = shown.clone();
            Callback::from(move |key: String| {
                let mut next = (*shown).clone();
                *next.entry(key).or_insert(LIST_STEP) += LIST_STEP;
                shown.set(next);
            })
        },
    };

    html! {
        <>
            <section
                class={classes!("verdict", format!("verdict-{verdict}"))}
                data-testid="verdict"
                data-verdict={verdict}
                tabindex="-1"
                id="verdict"
            >
                <h2>{ headline }</h2>
                <p class="summary">
                    { format!(
                        "{}, {}, {} in {}.",
                        plural(s.errors, "error", "errors"),
                        plural(s.warnings, "warning", "warnings"),
                        plural(s.infos, "note", "notes"),
                        plural(s.tables, "table", "tables"),
                    ) }
                </p>
                <p class="input-info">
                    { format!(
                        "{} · {} · {} · clock {} ({})",
                        input_name,
                        format_bytes(report.input.size),
                        plural(report.input.files, "file", "files"),
                        format_utc(report.clock.now_millis),
                        match report.clock.source {
                            prv::report::model::ClockSource::Given => "given",
                            prv::report::model::ClockSource::Capture => "capture time",
                        },
                    ) }
                </p>
                if loaded.from_link {
                    <p class="link-note" data-testid="from-link">
                        { "This report was opened from a link: it is shown as it was made, \
                           without the artifact (snapshot details need the artifact)." }
                    </p>
                }
            </section>
            <ExportBar loaded={ReportKey(loaded.clone())} notice={notice.clone()} />
            if report.tables.is_empty() {
                <section class="state no-table" data-testid="no-table" role="note">
                    <h2>{ "No Paimon table was found" }</h2>
                    <p>
                        { format!(
                            "{input_name} holds {} but no table (a directory with snapshot/ or \
                             schema/ files). What the artifact holds is listed below.",
                            plural(report.input.files, "file", "files"),
                        ) }
                    </p>
                </section>
            }
            if !unread.is_empty() {
                <section class="state partly-unreadable" data-testid="partly-unreadable" role="note">
                    <h2>{ "Part of the artifact could not be read" }</h2>
                    <p>
                        { format!(
                            "The report covers what could be read ({} of {} listed files were \
                             read). Not read:",
                            report.stats.files_read,
                            report.stats.files_listed,
                        ) }
                    </p>
                    <ul class="unread">
                        { for unread.iter().take(200).map(|p| html! { <li><code>{ p }</code></li> }) }
                    </ul>
                    if unread.len() > 200 {
                        <p>{ format!("… and {} more (see the JSON report).", unread.len() - 200) }</p>
                    }
                </section>
            }
            <FilterBar report={ReportKey(loaded.clone())} filter={filter.clone()} />
            if !report.findings.is_empty() {
                <section class="artifact-findings" data-testid="artifact-findings">
                    <h2>{ "About the artifact" }</h2>
                    { findings_list(None, &report.findings, "", "", &ctx) }
                </section>
            }
            { for groups.iter().map(|(path, tables, indexes)| {
                let chosen = branches.get(path).cloned().unwrap_or_else(|| {
                    tables.first().map(|t| t.branch.clone()).unwrap_or_default()
                });
                let focus_id = focus.as_ref().filter(|(p, _, _)| p == path).map(|(_, id, _)| *id);
                let on_select = {
                    let on_select = props.on_select.clone();
                    let selected = selected.clone();
                    let path = path.clone();
                    Callback::from(move |(branch, id): (String, i64)| {
                        selected.set(Some((path.clone(), branch.clone(), id)));
                        on_select.emit((path.clone(), branch, id));
                    })
                };
                let on_branch = {
                    let branches = branches.clone();
                    let path = path.clone();
                    Callback::from(move |branch: String| {
                        let mut next = (*branches).clone();
                        next.insert(path.clone(), branch);
                        branches.set(next);
                    })
                };
                let on_svg = {
                    let tables = tables.clone();
                    let chosen = chosen.clone();
                    let notice = notice.clone();
                    let input = input_name.clone();
                    Callback::from(move |_: MouseEvent| {
                        let Some(t) = tables.iter().find(|t| t.branch == chosen).or(tables.first()) else {
                            return;
                        };
                        let svg = crate::timeline::to_svg_string(t, None);
                        let name = filters::export_name(&format!("{input}-{}-{}", t.path.replace('/', "_"), t.branch), "svg");
                        notice.set(match dom::download(&svg, &name, "image/svg+xml") {
                            Ok(()) => format!("Timeline saved as {name}."),
                            Err(e) => format!("The timeline could not be saved: {e}"),
                        });
                    })
                };
                let picked = selected
                    .as_ref()
                    .filter(|(p, _, _)| p == path)
                    .map(|(_, b, id)| (b.clone(), *id));
                let detail_here = match (&props.detail, &picked) {
                    (DetailState::Closed, _) | (_, None) => None,
                    (d, Some(_)) => Some(d.clone()),
                };
                let first = tables.first().cloned();
                html! {
                    <section class="table-group" data-table-group={path.clone()}>
                        <h2 class="table-heading">
                            <code class="table-path">{ path }</code>
                            if let Some(t) = &first {
                                <span class="table-meta">{ table_meta(t) }</span>
                            }
                        </h2>
                        if tables.iter().any(|t| !t.snapshots.is_empty()) {
                            <div class="timeline-wrap" id={timeline_anchor(path)} tabindex="-1">
                                <Timeline
                                    branches={tables.clone()}
                                    focus={focus_id}
                                    {on_select}
                                    {on_branch}
                                />
                                <div class="timeline-actions">
                                    <button type="button" class="button small" data-testid="export-svg" onclick={on_svg}>
                                        { "Download timeline (SVG)" }
                                    </button>
                                </div>
                            </div>
                        }
                        if let Some(detail) = detail_here {
                            { detail_view(&detail, props.on_close_detail.clone()) }
                            if let Some((branch, id)) = &picked {
                                { back_links(tables, indexes, branch, *id) }
                            }
                        }
                        { for tables.iter().zip(indexes.iter()).map(|(t, &i)| table_view(t, i, &ctx)) }
                    </section>
                }
            }) }
        </>
    }
}

/// The id of a table's timeline container.
fn timeline_anchor(path: &str) -> String {
    let clean: String = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("timeline-{clean}")
}

fn table_meta(t: &TableReport) -> String {
    let range = match (t.earliest, t.latest) {
        (Some(e), Some(l)) => format!("snapshots {e}–{l}"),
        _ => "no snapshot".to_string(),
    };
    let producer = t
        .options
        .get("changelog-producer")
        .map(|p| format!(" · changelog-producer = {p}"))
        .unwrap_or_default();
    format!("{range}{producer}")
}

fn detail_view(detail: &DetailState, on_close: Callback<()>) -> Html {
    match detail {
        DetailState::Closed => html! {},
        DetailState::Loading { .. } => html! {
            <SnapshotDetailView detail={None} loading={true} {on_close} />
        },
        DetailState::Ready(d) => html! {
            <SnapshotDetailView detail={Some(d.clone())} loading={false} {on_close} />
        },
        DetailState::Unavailable { id, message } => {
            let onclick = Callback::from(move |_: MouseEvent| on_close.emit(()));
            html! {
                <section class="detail-unavailable" data-testid="snapshot-detail-unavailable" data-snapshot-id={id.to_string()}>
                    <p>{ message }</p>
                    <button type="button" class="button small" {onclick}>{ "Close" }</button>
                </section>
            }
        }
    }
}

/// From a snapshot chosen on the timeline back to the findings about it.
fn back_links(tables: &[Rc<TableReport>], indexes: &[usize], branch: &str, id: i64) -> Html {
    let Some((t, &ti)) = tables.iter().zip(indexes).find(|(t, _)| t.branch == branch) else {
        return html! {};
    };
    let about: Vec<(usize, &Finding)> = t
        .findings
        .iter()
        .enumerate()
        .filter(|(_, f)| filters::finding_snapshots(f).contains(&id))
        .collect();
    if about.is_empty() {
        return html! {
            <p class="back-links" data-testid="snapshot-findings">{ format!("No finding is about snapshot {id}.") }</p>
        };
    }
    html! {
        <div class="back-links" data-testid="snapshot-findings">
            <p>{ format!("Findings about snapshot {id}:") }</p>
            <ul>
                { for about.into_iter().map(|(fi, f)| {
                    let anchor = filters::finding_anchor(Some(ti), fi);
                    let onclick = {
                        let anchor = anchor.clone();
                        Callback::from(move |_: MouseEvent| focus_element(&anchor))
                    };
                    html! {
                        <li>
                            <button type="button" class="link" data-goto-finding={anchor} {onclick}>
                                { format!("{}: {}", f.code.as_str(), f.message) }
                            </button>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}

/// What a finding list needs besides the findings.
#[derive(Clone)]
struct FindingCtx {
    filter: Filter,
    on_focus: Callback<(String, i64)>,
    /// Items drawn per long list (absent: [`LIST_STEP`]).
    shown: BTreeMap<String, usize>,
    /// Draws [`LIST_STEP`] more items of a list.
    on_more: Callback<String>,
}

/// Items of a long list (a severity group's findings, a table's consumers) drawn at first and
/// added by each "Show more".
pub const LIST_STEP: usize = 200;

impl FindingCtx {
    fn limit(&self, key: &str) -> usize {
        self.shown.get(key).copied().unwrap_or(LIST_STEP)
    }

    /// The "Show more" button of list `key`, which holds `total` items of which `drawn` are drawn.
    fn more_button(&self, key: &str, total: usize, drawn: usize, noun: &str) -> Html {
        if drawn >= total {
            return html! {};
        }
        let on_more = self.on_more.clone();
        let key = key.to_string();
        html! {
            <button type="button" class="show-more" data-testid="show-more"
                onclick={Callback::from(move |_: MouseEvent| on_more.emit(key.clone()))}>
                { format!("Show {} more {noun} ({drawn} of {total} shown)", (total - drawn).min(LIST_STEP)) }
            </button>
        }
    }
}

fn table_view(table: &TableReport, index: usize, ctx: &FindingCtx) -> Html {
    html! {
        <article class="table-report" data-table-path={table.path.clone()} data-branch={table.branch.clone()}>
            <h3>
                <code class="table-path">{ &table.path }</code>
                <span class="branch">{ format!("branch {}", table.branch) }</span>
                <span class="table-meta">{ table_meta(table) }</span>
            </h3>
            if table.findings.is_empty() {
                <p class="no-findings">{ "No finding." }</p>
            } else {
                { findings_list(Some(index), &table.findings, &table.path, &table.branch, ctx) }
            }
            if !table.consumers.is_empty() {
                { consumers_table(&table.consumers, &format!("consumers:{index}"), ctx) }
            }
            if !table.tags.is_empty() {
                <table class="tags" data-testid="tags">
                    <caption>{ "Tags" }</caption>
                    <thead><tr><th>{ "Tag" }</th><th class="num">{ "Snapshot" }</th><th>{ "Snapshot file kept" }</th></tr></thead>
                    <tbody>
                        { for table.tags.iter().take(ctx.limit(&format!("tags:{index}"))).map(|t| html! {
                            <tr data-tag-row={t.name.clone()}>
                                <td><code>{ &t.name }</code></td>
                                <td class="num">{ opt(t.snapshot) }</td>
                                <td>{ if t.snapshot_retained { "yes" } else { "no" } }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                { ctx.more_button(&format!("tags:{index}"), table.tags.len(), ctx.limit(&format!("tags:{index}")).min(table.tags.len()), "tags") }
            }
            if !table.spark_checkpoints.is_empty() {
                { spark_table(&table.spark_checkpoints) }
            }
            if !table.ray_checkpoints.is_empty() {
                { ray_table(&table.ray_checkpoints) }
            }
        </article>
    }
}

fn consumers_table(consumers: &[ConsumerReport], key: &str, ctx: &FindingCtx) -> Html {
    let drawn = ctx.limit(key).min(consumers.len());
    html! {
        <>
        <table class="consumers" data-testid="consumers">
            <caption>{ "Consumers" }</caption>
            <thead>
                <tr>
                    <th>{ "Consumer" }</th>
                    <th class="num">{ "Next snapshot" }</th>
                    <th>{ "Verdict" }</th>
                    <th>{ "Written" }</th>
                </tr>
            </thead>
            <tbody>
                { for consumers.iter().take(drawn).map(|c| html! {
                    <tr data-consumer-row={c.id.clone()}>
                        <td><code>{ &c.id }</code></td>
                        <td class="num">{ opt(c.next_snapshot) }</td>
                        <td class={classes!("consumer-verdict", c.verdict.as_str())}>{ c.verdict.as_str() }</td>
                        <td>{ c.modified_millis.map(format_utc).unwrap_or_else(|| "–".into()) }</td>
                    </tr>
                }) }
            </tbody>
        </table>
        { ctx.more_button(key, consumers.len(), drawn, "consumers") }
        </>
    }
}

fn spark_table(checkpoints: &[SparkCheckpointReport]) -> Html {
    html! {
        <table class="spark" data-testid="spark-checkpoints">
            <caption>{ "Spark checkpoints" }</caption>
            <thead>
                <tr>
                    <th>{ "Checkpoint" }</th>
                    <th class="num">{ "Last batch (planned / committed)" }</th>
                    <th>{ "Committed offset" }</th>
                    <th class="num">{ "Resumes at snapshot" }</th>
                    <th>{ "Consumer" }</th>
                    <th>{ "Verdict" }</th>
                </tr>
            </thead>
            <tbody>
                { for checkpoints.iter().map(|c| html! {
                    <tr data-spark-row={c.path.clone()} data-resume-snapshot={c.resume_snapshot.map(|s| s.to_string())}>
                        <td><code>{ &c.path }</code></td>
                        <td class="num">{ format!("{} / {}", opt(c.last_planned_batch), opt(c.last_committed_batch)) }</td>
                        <td>{ c.offset.as_ref().map(|o| o.describe()).unwrap_or_else(|| "–".into()) }</td>
                        <td class="num">{ opt(c.resume_snapshot) }</td>
                        <td>
                            { c.consumer.clone().unwrap_or_else(|| "–".into()) }
                            if let Some(n) = c.consumer_next_snapshot {
                                { format!(" (next snapshot {n})") }
                            }
                        </td>
                        <td class="spark-verdict">{ c.verdict.as_str() }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

fn ray_table(checkpoints: &[RayCheckpointReport]) -> Html {
    html! {
        <table class="ray" data-testid="ray-checkpoints">
            <caption>{ "Ray Data checkpoints" }</caption>
            <thead>
                <tr>
                    <th>{ "Checkpoint" }</th>
                    <th>{ "Id column" }</th>
                    <th class="num">{ "Files" }</th>
                    <th class="num">{ "Ids" }</th>
                    <th class="num" title="not in the latest snapshot, nor removed by a later DELETE or OVERWRITE">{ "Missing (not removed later)" }</th>
                    <th>{ "Paired" }</th>
                </tr>
            </thead>
            <tbody>
                { for checkpoints.iter().map(|c| html! {
                    <tr data-ray-row={c.path.clone()}>
                        <td><code>{ &c.path }</code></td>
                        <td><code>{ &c.id_column }</code></td>
                        <td class="num">{ c.files }</td>
                        <td class="num">{ c.ids }</td>
                        <td class="num">{ match &c.missing_unknown_because {
                            Some(why) => format!("unknown ({} not in the readable files: {why})", c.missing),
                            None => c.missing.to_string(),
                        } }</td>
                        <td>{ &c.pairing }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

fn severity_heading(s: Severity) -> &'static str {
    match s {
        Severity::Error => "Errors",
        Severity::Warning => "Warnings",
        Severity::Info => "Notes",
    }
}

fn findings_list(
    table: Option<usize>,
    findings: &[Finding],
    path: &str,
    branch: &str,
    ctx: &FindingCtx,
) -> Html {
    let groups = filters::grouped(findings, &ctx.filter);
    if groups.is_empty() {
        return html! { <p class="no-findings">{ "No finding matches the filters." }</p> };
    }
    html! {
        <div class="finding-groups">
            { for groups.into_iter().map(|(severity, items)| {
                let key = format!("findings:{table:?}:{}", severity.as_str());
                let total = items.len();
                let drawn = ctx.limit(&key).min(total);
                html! {
                    <section class={classes!("finding-group", format!("severity-{}", severity.as_str()))} data-severity-group={severity.as_str()}>
                        <h4>{ format!("{} ({})", severity_heading(severity), total) }</h4>
                        <ul class="findings">
                            { for items.into_iter().take(drawn).filter_map(|i| findings.get(i).map(|f| finding_view(f, filters::finding_anchor(table, i), path, branch, ctx))) }
                        </ul>
                        { ctx.more_button(&key, total, drawn, "findings") }
                    </section>
                }
            }) }
        </div>
    }
}

fn finding_view(f: &Finding, anchor: String, path: &str, branch: &str, ctx: &FindingCtx) -> Html {
    let snapshots = filters::finding_snapshots(f);
    let mut ids: Vec<Html> = Vec::new();
    if let Some(c) = &f.consumer {
        ids.push(html! { <span class="id">{ "consumer " }<code>{ c }</code></span> });
    }
    if let Some(u) = &f.commit_user {
        ids.push(html! { <span class="id">{ "commit user " }<code>{ u }</code></span> });
    }
    if let Some(i) = f.commit_identifier {
        ids.push(html! { <span class="id">{ format!("identifier {i}") }</span> });
    }
    if !path.is_empty() && branch != "main" {
        ids.push(html! { <span class="id">{ format!("branch {branch}") }</span> });
    }
    html! {
        <li
            id={anchor}
            tabindex="-1"
            class={classes!("finding", format!("severity-{}", f.severity.as_str()))}
            data-finding-code={f.code.as_str()}
            data-severity={f.severity.as_str()}
            data-snapshot={f.snapshot.map(|s| s.to_string())}
            data-consumer={f.consumer.clone()}
        >
            <p class="finding-title">
                <span class="severity">{ f.severity.as_str() }</span>
                { f.code.title() }
                <code class="code">{ f.code.as_str() }</code>
            </p>
            <p class="message">{ &f.message }</p>
            if let Some(i) = &f.impact {
                <p
                    class="impact"
                    data-impact-changelog={i.changelog.as_str()}
                    data-impact-batch={i.batch.as_str()}
                >
                    <strong>{ "Impact: " }</strong>
                    { format!("changelog {} · batch view {}", i.changelog.as_str(), i.batch.as_str()) }
                </p>
            }
            if !snapshots.is_empty() || !ids.is_empty() {
                <p class="ids">
                    { for snapshots.iter().map(|&id| {
                        if path.is_empty() {
                            html! { <span class="id">{ format!("snapshot {id}") }</span> }
                        } else {
                            let on_focus = ctx.on_focus.clone();
                            let p = path.to_string();
                            let onclick = Callback::from(move |_: MouseEvent| on_focus.emit((p.clone(), id)));
                            html! {
                                <button
                                    type="button"
                                    class="link snapshot-link"
                                    data-goto-snapshot={id.to_string()}
                                    title="Show on the timeline"
                                    {onclick}
                                >
                                    { format!("snapshot {id}") }
                                </button>
                            }
                        }
                    }) }
                    { for ids }
                </p>
            }
            if !f.remedy.is_empty() {
                <p class="remedy"><strong>{ "What to do: " }</strong>{ &f.remedy }</p>
            }
            if !f.evidence.is_empty() {
                <details class="evidence" open={f.evidence.len() <= 6}>
                    <summary>{ format!("Evidence ({})", f.evidence.len()) }</summary>
                    <ul>{ for f.evidence.iter().map(|e| html! { <li>{ e }</li> }) }</ul>
                </details>
            }
            if !f.files.is_empty() {
                <details class="files" open={f.files.len() <= 3}>
                    <summary>{ plural(f.files.len() as u64, "file", "files") }</summary>
                    <ul>{ for f.files.iter().take(500).map(|p| html! { <li><code>{ p }</code></li> }) }</ul>
                    if f.files.len() > 500 {
                        <p>{ format!("… and {} more (see the JSON report).", f.files.len() - 500) }</p>
                    }
                </details>
            }
            if let Some(rows) = &f.rows {
                { rows_view(rows) }
            }
        </li>
    }
}

/// A JSON value in one line (`{"id": 4, "v": "r4"}` as `id=4, v=r4`).
fn compact(v: &Value) -> String {
    match v {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}={}", compact(v)))
            .collect::<Vec<_>>()
            .join(", "),
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

fn change(v: &Value) -> String {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let row = v.get("row").map(compact).unwrap_or_default();
    match v.get("snapshot").and_then(Value::as_i64) {
        Some(s) => format!("{kind} {row} (snapshot {s})"),
        None => format!("{kind} {row}"),
    }
}

fn cell_list(v: Option<&Value>) -> Html {
    match v.and_then(Value::as_array) {
        Some(items) if !items.is_empty() => html! {
            <ul class="cell-list">{ for items.iter().map(|i| html! { <li><code>{ change(i) }</code></li> }) }</ul>
        },
        _ => html! { { "–" } },
    }
}

/// `unknown: <file> could not be read (<problem>)` (or `is not in the artifact`, `was not
/// read`: the core's `reason_text`) for a `…UnknownBecause` list: never shown as absent or as
/// nothing.
fn unknown_cell(because: Option<&Value>) -> Html {
    let reasons = because
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    html! {
        <span class="unknown" data-testid="unknown-value">
            { "unknown: " }
            { for reasons.iter().map(|r| match r.get("more").and_then(Value::as_u64) {
                Some(n) => html! { <span>{ format!(" (+{n} more)") }</span> },
                None => html! { <span>{ format!("{} ", prv::report::rows::reason_text(r)) }</span> },
            }) }
        </span>
    }
}

/// A key's batch value: the row, absent, deleted, or unknown (and why).
fn batch_cell(k: &Value) -> Html {
    if k.get("batchState").and_then(Value::as_str) != Some("known") {
        return unknown_cell(k.get("batchUnknownBecause"));
    }
    match k.get("batch") {
        Some(Value::Null) | None
            if k.get("batchDeleted").and_then(Value::as_bool) == Some(true) =>
        {
            html! { { "(deleted)" } }
        }
        Some(Value::Null) | None => html! { { "(absent)" } },
        Some(b) => html! { <code>{ compact(b) }</code> },
    }
}

/// A key's delivered changelog: what was read, and whether more could not be.
fn delivered_cell(k: &Value) -> Html {
    if k.get("deliveredState").and_then(Value::as_str) == Some("known") {
        return cell_list(k.get("delivered"));
    }
    let read = k
        .get("delivered")
        .and_then(Value::as_array)
        .is_some_and(|d| !d.is_empty());
    html! {
        <>
            if read { { cell_list(k.get("delivered")) } }
            { unknown_cell(k.get("deliveredUnknownBecause")) }
        </>
    }
}

/// The heading of a lost-changelog rows section: never "0 keys" when the lost changelog could
/// not be read.
fn rows_heading(rows: &Value) -> String {
    let unreadable: Vec<String> = rows
        .get("lostUnreadable")
        .and_then(Value::as_array)
        .map(|u| {
            u.iter()
                .map(|u| {
                    format!(
                        "{}: {}",
                        u.get("file").and_then(Value::as_str).unwrap_or(""),
                        u.get("problem").and_then(Value::as_str).unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let keys = rows
        .get("keys")
        .and_then(Value::as_array)
        .map_or(0, Vec::len) as u64
        + rows.get("omitted").and_then(Value::as_u64).unwrap_or(0);
    let unknown = rows.get("unknownKeys").and_then(Value::as_u64).unwrap_or(0);
    let mut h = if keys == 0 && !unreadable.is_empty() {
        format!(
            "Rows: unknown keys, the lost changelog could not be read ({})",
            unreadable.join("; ")
        )
    } else if !unreadable.is_empty() {
        format!(
            "Rows: at least {keys} keys ({} more files could not be read: {})",
            unreadable.len(),
            unreadable.join("; ")
        )
    } else {
        format!("Rows: {keys} keys")
    };
    if unknown > 0 {
        h.push_str(&format!(", {unknown} not known in full"));
    }
    h
}

/// Row-level evidence: per key for lost changelog, counts and id ranges otherwise.
fn rows_view(rows: &Value) -> Html {
    let notes: Vec<String> = rows
        .get("notes")
        .and_then(Value::as_array)
        .map(|n| {
            n.iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let batch_snapshot = rows.get("batchSnapshot").and_then(Value::as_i64);
    let keys = rows.get("keys").and_then(Value::as_array);
    html! {
        <details class="rows" data-testid="finding-rows" open=true>
            <summary>{ if keys.is_some() { rows_heading(rows) } else { "Rows".to_string() } }</summary>
            if let Some(keys) = keys {
                <div class="table-scroll">
                    <table class="row-table" data-testid="lost-rows">
                        <thead>
                            <tr>
                                <th>{ "Key" }</th>
                                <th>{ "Lost (changelog never committed)" }</th>
                                <th>{ "Delivered later" }</th>
                                <th>{ batch_snapshot.map(|s| format!("Batch now (snapshot {s})")).unwrap_or_else(|| "Batch now".into()) }</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for keys.iter().map(|k| html! {
                                <tr data-key={k.get("key").map(compact).unwrap_or_default()}>
                                    <td><code>{ k.get("key").map(compact).unwrap_or_default() }</code></td>
                                    <td>{ cell_list(k.get("lost")) }</td>
                                    <td>{ delivered_cell(k) }</td>
                                    <td>{ batch_cell(k) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
                if let Some(n) = rows.get("omitted").and_then(Value::as_u64).filter(|n| *n > 0) {
                    <p>{ format!("{n} more keys (see the JSON report).") }</p>
                }
            }
            if let Some(count) = rows.get("count").and_then(Value::as_u64) {
                <p class="row-count">
                    { format!(
                        "{count} rows{}{}{}",
                        rows.get("column").and_then(Value::as_str).map(|c| format!(" by {c}")).unwrap_or_default(),
                        rows.get("ranges").and_then(Value::as_array).map(|r| {
                            let ranges: Vec<String> = r.iter().take(20).map(|p| match p.as_array().map(Vec::as_slice) {
                                Some([a, b]) if a == b => a.to_string(),
                                Some([a, b]) => format!("{a}..{b}"),
                                _ => p.to_string(),
                            }).collect();
                            format!(": {}{}", ranges.join(", "), if r.len() > 20 { ", …" } else { "" })
                        }).unwrap_or_default(),
                        if rows.get("known").and_then(Value::as_bool) == Some(false) {
                            " (unknown whether the latest snapshot holds them: a live file could not be read)"
                        } else {
                            ""
                        },
                    ) }
                </p>
            }
            if !notes.is_empty() {
                <ul class="row-notes">{ for notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
            }
        </details>
    }
}

/// A report compared by address (for memos and props).
#[derive(Clone)]
pub struct ReportKey(pub Rc<Loaded>);

impl PartialEq for ReportKey {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
struct FilterProps {
    report: ReportKey,
    filter: UseStateHandle<Filter>,
}

/// Filters by severity and by code (toggle buttons; pressed = shown).
#[function_component(FilterBar)]
fn filter_bar(props: &FilterProps) -> Html {
    let report = &props.report.0.report;
    let counts = filters::severity_counts(report);
    let codes = filters::code_counts(report);
    if codes.is_empty() {
        return html! {};
    }
    let f = &*props.filter;
    html! {
        <section class="filters" data-testid="filters" aria-label="Filter findings">
            <div class="filter-row" role="group" aria-label="Severity">
                <span class="filter-label">{ "Severity:" }</span>
                { for SEVERITIES.iter().zip(counts).filter(|(_, n)| *n > 0).map(|(&s, n)| {
                    let filter = props.filter.clone();
                    let onclick = Callback::from(move |_: MouseEvent| filter.set(filter.toggle_severity(s)));
                    html! {
                        <button
                            type="button"
                            class={classes!("chip", format!("severity-{}", s.as_str()))}
                            aria-pressed={f.shows_severity(s).to_string()}
                            data-filter-severity={s.as_str()}
                            {onclick}
                        >
                            { format!("{} {n}", s.as_str()) }
                        </button>
                    }
                }) }
            </div>
            <div class="filter-row" role="group" aria-label="Finding code">
                <span class="filter-label">{ "Code:" }</span>
                { for codes.iter().map(|(code, severity, n)| {
                    let filter = props.filter.clone();
                    let c = code.as_str();
                    let onclick = Callback::from(move |_: MouseEvent| filter.set(filter.toggle_code(c)));
                    html! {
                        <button
                            type="button"
                            class={classes!("chip", format!("severity-{}", severity.as_str()))}
                            aria-pressed={f.shows_code(c).to_string()}
                            data-filter-code={c}
                            {onclick}
                        >
                            { format!("{c} {n}") }
                        </button>
                    }
                }) }
                if f.is_active() {
                    <button type="button" class="chip reset" data-testid="filter-reset" onclick={
                        let filter = props.filter.clone();
                        Callback::from(move |_: MouseEvent| filter.set(Filter::default()))
                    }>{ "Show all" }</button>
                }
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct ExportProps {
    loaded: ReportKey,
    notice: UseStateHandle<String>,
}

/// Copy and download the report, and make a permalink.
#[function_component(ExportBar)]
fn export_bar(props: &ExportProps) -> Html {
    let loaded = &props.loaded.0;
    let input = if loaded.report.input.name.is_empty() {
        loaded.input.clone()
    } else {
        loaded.report.input.name.clone()
    };
    let on_copy = {
        let loaded = loaded.clone();
        let notice = props.notice.clone();
        Callback::from(move |_: MouseEvent| {
            let markdown = loaded.markdown();
            let notice = notice.clone();
            wasm_bindgen_futures::spawn_local(async move {
                notice.set(match dom::copy_text(&markdown).await {
                    Ok(()) => format!(
                        "Markdown copied ({} characters): paste it into the issue.",
                        markdown.chars().count()
                    ),
                    Err(e) => {
                        format!("The clipboard refused the copy ({e}); use Download Markdown.")
                    }
                });
            });
        })
    };
    let on_md = {
        let loaded = loaded.clone();
        let notice = props.notice.clone();
        let name = filters::export_name(&input, "md");
        Callback::from(move |_: MouseEvent| {
            let markdown = loaded.markdown();
            notice.set(
                match dom::download(&markdown, &name, "text/markdown;charset=utf-8") {
                    Ok(()) => format!("Markdown saved as {name}."),
                    Err(e) => format!("The Markdown could not be saved: {e}"),
                },
            );
        })
    };
    let on_json = {
        let json = loaded.json.clone();
        let notice = props.notice.clone();
        let name = filters::export_name(&input, "json");
        Callback::from(move |_: MouseEvent| {
            notice.set(match dom::download(&json, &name, "application/json") {
                Ok(()) => format!("JSON saved as {name}."),
                Err(e) => format!("The JSON could not be saved: {e}"),
            });
        })
    };
    let on_link = {
        let json = loaded.json.clone();
        let notice = props.notice.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(hash) = permalink::encode(&json) else {
                notice.set(
                    "This report is too large for a link; share the JSON download instead.".into(),
                );
                return;
            };
            let href = match dom::set_location_hash(&hash) {
                Ok(href) => href,
                Err(e) => {
                    notice.set(format!("The link could not be made: {e}"));
                    return;
                }
            };
            let notice = notice.clone();
            wasm_bindgen_futures::spawn_local(async move {
                notice.set(match dom::copy_text(&href).await {
                    Ok(()) => format!(
                        "Link copied ({} characters). It holds the report only, never your \
                         files; opening it shows this report again, offline.",
                        href.len()
                    ),
                    Err(_) => "The link is in the address bar (the clipboard refused it). It \
                               holds the report only, never your files."
                        .into(),
                });
            });
        })
    };
    html! {
        <section class="exports" aria-label="Export the report">
            <button type="button" class="button" data-testid="copy-markdown" onclick={on_copy}>
                { "Copy Markdown" }
            </button>
            <button type="button" class="button secondary" data-testid="export-markdown" onclick={on_md}>
                { "Download Markdown" }
            </button>
            <button type="button" class="button secondary" data-testid="export-json" onclick={on_json}>
                { "Download JSON" }
            </button>
            <button type="button" class="button secondary" data-testid="permalink" onclick={on_link}>
                { "Copy link to this report" }
            </button>
            <p class="notice" role="status" aria-live="polite" data-testid="export-notice">{ &*props.notice }</p>
        </section>
    }
}
