//! The report: the verdict, then each table with its findings, snapshots and consumers.

use std::rc::Rc;

use prv::report::model::{ConsumerReport, Finding, SnapshotSummary, TableReport};
use prv::Report;
use yew::prelude::*;

use crate::state::{format_bytes, format_utc};

/// Properties of [`ReportView`].
#[derive(Properties, PartialEq)]
pub struct ReportProps {
    /// The report.
    pub report: Rc<Report>,
    /// What was analysed, as the page named it.
    pub input: String,
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The whole report.
#[function_component(ReportView)]
pub fn report_view(props: &ReportProps) -> Html {
    let report = &props.report;
    let verdict = report.verdict.as_str();
    let headline = match verdict {
        "fail" => "FAIL: data was lost or a reader will misbehave",
        "warn" => "WARN: something needs a person's look",
        _ => "PASS: no problem found",
    };
    let s = &report.summary;
    html! {
        <>
            <section
                class={classes!("verdict", format!("verdict-{verdict}"))}
                data-testid="verdict"
                data-verdict={verdict}
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
                        if report.input.name.is_empty() { &props.input } else { &report.input.name },
                        format_bytes(report.input.size),
                        plural(report.input.files, "file", "files"),
                        format_utc(report.clock.now_millis),
                        match report.clock.source {
                            prv::report::model::ClockSource::Given => "given",
                            prv::report::model::ClockSource::Capture => "capture time",
                        },
                    ) }
                </p>
            </section>
            if !report.findings.is_empty() {
                <section class="artifact-findings">
                    <h2>{ "About the artifact" }</h2>
                    <ul class="findings">{ for report.findings.iter().map(finding_view) }</ul>
                </section>
            }
            { for report.tables.iter().map(table_view) }
        </>
    }
}

fn table_view(table: &TableReport) -> Html {
    let range = match (table.earliest, table.latest) {
        (Some(e), Some(l)) => format!("snapshots {e}–{l} ({} present)", table.snapshots.len()),
        _ => "no snapshot".to_string(),
    };
    let producer = table
        .options
        .get("changelog-producer")
        .map(|p| format!(" · changelog-producer = {p}"))
        .unwrap_or_default();
    html! {
        <article class="table-report" data-table-path={table.path.clone()} data-branch={table.branch.clone()}>
            <h2>
                <code class="table-path">{ &table.path }</code>
                <span class="branch">{ format!("branch {}", table.branch) }</span>
            </h2>
            <p class="table-meta">{ format!("{range}{producer}") }</p>
            if !table.findings.is_empty() {
                <ul class="findings">{ for table.findings.iter().map(finding_view) }</ul>
            }
            if !table.snapshots.is_empty() {
                <table class="snapshots" data-testid="snapshots">
                    <thead>
                        <tr>
                            <th>{ "Id" }</th>
                            <th>{ "Kind" }</th>
                            <th>{ "Commit user" }</th>
                            <th>{ "Identifier" }</th>
                            <th>{ "Committed" }</th>
                            <th class="num">{ "Delta rows" }</th>
                            <th class="num">{ "Changelog rows" }</th>
                        </tr>
                    </thead>
                    <tbody>{ for table.snapshots.iter().map(snapshot_row) }</tbody>
                </table>
            }
            if !table.consumers.is_empty() {
                <table class="consumers">
                    <thead>
                        <tr>
                            <th>{ "Consumer" }</th>
                            <th class="num">{ "Next snapshot" }</th>
                            <th>{ "Verdict" }</th>
                        </tr>
                    </thead>
                    <tbody>{ for table.consumers.iter().map(consumer_row) }</tbody>
                </table>
            }
        </article>
    }
}

fn opt(n: Option<i64>) -> String {
    n.map(|n| n.to_string()).unwrap_or_else(|| "–".into())
}

fn snapshot_row(s: &SnapshotSummary) -> Html {
    html! {
        <tr data-snapshot-row={s.id.to_string()} class={classes!(format!("kind-{}", s.kind.to_ascii_lowercase()))}>
            <td class="num">{ s.id }</td>
            <td>{ &s.kind }</td>
            <td><code>{ &s.commit_user }</code></td>
            <td class="num">{ s.commit_identifier }</td>
            <td>{ format_utc(s.time_millis) }</td>
            <td class="num">{ opt(s.delta_record_count) }</td>
            <td class="num">{ opt(s.changelog_record_count) }</td>
        </tr>
    }
}

fn consumer_row(c: &ConsumerReport) -> Html {
    html! {
        <tr data-consumer-row={c.id.clone()}>
            <td><code>{ &c.id }</code></td>
            <td class="num">{ opt(c.next_snapshot) }</td>
            <td class={classes!("consumer-verdict", c.verdict.as_str())}>{ c.verdict.as_str() }</td>
        </tr>
    }
}

fn finding_view(f: &Finding) -> Html {
    html! {
        <li
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
            if !f.remedy.is_empty() {
                <p class="remedy"><strong>{ "What to do: " }</strong>{ &f.remedy }</p>
            }
            if !f.evidence.is_empty() {
                <ul class="evidence">{ for f.evidence.iter().map(|e| html! { <li>{ e }</li> }) }</ul>
            }
            if !f.files.is_empty() {
                <details class="files">
                    <summary>{ plural(f.files.len() as u64, "file", "files") }</summary>
                    <ul>{ for f.files.iter().map(|p| html! { <li><code>{ p }</code></li> }) }</ul>
                </details>
            }
        </li>
    }
}
