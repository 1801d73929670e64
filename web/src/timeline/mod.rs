//! # The snapshot timeline and the snapshot detail
//!
//! ## Public API (stable; the page renders these)
//!
//! ```text
//! use prv_web::timeline::{Timeline, SnapshotDetailView, to_svg_string};
//!
//! // One report per branch of the same table path (`main` first); a branch <select> shows
//! // when there are several.
//! html! {
//!     <Timeline
//!         branches={vec![Rc::new(table_main.clone()), Rc::new(table_b1.clone())]}
//!         focus={Some(7)}                                // from a finding click: zoom, focus, highlight
//!         on_select={Callback::from(|(branch, id): (String, i64)| { /* ask the worker for the detail */ })}
//!         on_branch={Callback::from(|branch: String| { /* optional */ })}
//!         branch={Some("b1".to_string())}             // optional: show this branch (a finding's)
//!     />
//!     <SnapshotDetailView
//!         detail={Option::<Rc<prv::detail::SnapshotDetail>>::None}
//!         loading={false}
//!         on_close={Callback::from(|()| { /* clear the detail */ })}
//!     />
//! };
//! // "Download SVG": a standalone document (xmlns, <title>/<desc>, embedded light/dark styles,
//! // legend). `None` draws the whole table (aggregated where dense, as on the page).
//! let svg: String = to_svg_string(&table, None);
//! ```
//!
//! * Props compare the reports by `Rc` address: give the same `Rc` while the report is
//!   unchanged (a new `Rc` resets zoom and selection).
//! * `focus` is a snapshot id of the shown branch; changing it zooms to that snapshot,
//!   highlights it (`class="tl-focus"`, a ring) and moves keyboard focus to its mark. For a
//!   finding of another branch, pass `branch` too: the timeline switches to it first.
//! * `on_select` fires on click, Enter or Space on a single mark. Clicking a grouped range
//!   zooms into it instead.
//! * The detail panel focuses its heading when a new detail arrives and calls `on_close` on its
//!   Close button and on Escape.
//!
//! ## Styles
//!
//! `web/styles/timeline.css`, compiled in as [`export::STYLE`]: embedded in the SVG export, and
//! rendered by both components in a `<style data-timeline-styles>` element (the page's CSP allows
//! inline styles), so nothing needs wiring. A page may also link the file with
//! `<link data-trunk rel="css" href="web/styles/timeline.css" />` (the rules are the same). Even
//! without any sheet the drawing keeps its light colours (presentation attributes); the sheet adds dark mode
//! (`prefers-color-scheme`, or `data-theme="dark"|"light"` on `<html>`), focus rings and the
//! layout of the toolbar, tooltip, legend and detail panel. Colours are custom properties
//! (`--tl-append`, `--tl-compact`, `--tl-lost`, `--tl-ok`, …) that a page may override.
//!
//! ## DOM (for tests)
//!
//! * `svg[data-testid=timeline]` (`role="group"`, `aria-roledescription="timeline"`, an
//!   `aria-label` summarising the table, `data-dense="true|false"`, `data-branch`, `data-table`).
//!   Marks are focusable inside it, so the svg is a group rather than `role="img"`; the export
//!   is `role="img"`.
//! * A snapshot mark: `[data-snapshot-id=N]` with `data-kind` (`APPEND`, `COMPACT`,
//!   `OVERWRITE`, `ANALYZE`, `OTHER`), `role="button"`, `aria-label` (its summary), and
//!   `data-finding-code="lost-changelog"` or `"pending-changelog"` where that applies.
//!   Drawn when at most one snapshot per [`layout::MIN_MARK_PX`] units is visible.
//! * When denser, per-lane bins instead: `[data-snapshot-range="a-b"]` with `data-count`,
//!   `data-kinds` and `data-finding-code` if any snapshot in it has lost or pending changelog.
//! * Commit pairs: `path.tl-pair[data-pair="a-b"][data-commit-identifier]`.
//! * Lanes: `rect[data-lane=<commit user>]`.
//! * Markers: `[data-marker=earliest|latest]`, hints `[data-hint=earliest|latest]` with
//!   `data-hint-value` and `data-mismatch="true|false"`, tags `[data-tag=<name>]` (more than
//!   40 in view: counted per bin, `[data-tag-count][data-tag-range="a-b"]`).
//! * Bands: `[data-band=expired]`, `[data-band=long-lived-changelog]` with `data-range`.
//! * Flags: consumers `[data-consumer=<id>][data-verdict][data-next-snapshot]`, Spark
//!   checkpoints `[data-spark-checkpoint=<path>][data-verdict][data-resume-snapshot]`, Ray
//!   checkpoints `[data-ray-checkpoint=<path>][data-missing]`; off-view ones sit at the edge
//!   with `data-offscreen`.
//! * The tooltip: `.tl-tooltip[role=tooltip]`, referenced by the active mark's
//!   `aria-describedby`. The status line: `[data-testid=timeline-status]`. Branch selector:
//!   `select[data-testid=timeline-branch]`. The detail: `[data-testid=snapshot-detail]` with
//!   `data-snapshot-id`, and `details[data-list=added|deleted|changelog][data-count]`.
//!
//! ## Keyboard and mouse
//!
//! Tab enters the timeline at one mark (roving tabindex); arrows move between snapshots
//! (up/down: the nearest snapshot of the neighbouring commit user), Home/End, Enter/Space
//! select (or zoom into a group), `+`/`-` zoom, Page Up/Down and Shift+arrows pan, Escape hides
//! the tooltip. Mouse: drag or Shift+wheel pans, Ctrl+wheel zooms, buttons zoom, pan and fit.
//! What these change, and how, is a reducer of plain functions ([`state`]), tested natively.
//!
//! ## Size
//!
//! The DOM is bounded whatever the table: at most [`layout::MAX_AGGREGATES`] bins (plus lanes,
//! ticks, markers and flags), or at most [`layout::PLOT_W`] / [`layout::MIN_MARK_PX`] single
//! marks with their pair arcs. The layout ([`layout`]) is plain Rust, tested natively.

pub mod component;
pub mod detail;
pub mod export;
pub mod layout;
pub mod node;
pub mod sample;
#[cfg(test)]
mod scene_golden;
pub mod state;

pub use component::{Timeline, TimelineProps};
pub use detail::{SnapshotDetailProps, SnapshotDetailView};
pub use export::{to_svg_string, STYLE};
pub use layout::{Model, View};
