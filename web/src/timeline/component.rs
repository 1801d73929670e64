//! The live timeline: the drawing of [`super::layout`] plus zoom, pan, hover, keyboard and the
//! branch selector.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

use prv::report::model::TableReport;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSelectElement, SvgElement};
use yew::prelude::*;

use super::export::{legend, STYLE};
use super::layout::{
    aggregates, describe, lane_y, scene, summary, Model, TabStop, Ui, View, MIN_SPAN, PLOT_W, WIDTH,
};

/// Props of [`Timeline`].
#[derive(Properties, Clone)]
pub struct TimelineProps {
    /// The same table, one report per branch (`main` first). A branch selector shows when there
    /// is more than one.
    pub branches: Vec<Rc<TableReport>>,
    /// A snapshot to zoom to, focus and highlight (a finding was clicked). Changing it moves
    /// the view; the same value twice does nothing.
    #[prop_or_default]
    pub focus: Option<i64>,
    /// A snapshot was chosen (click, or Enter on a mark): `(branch, snapshot id)`.
    #[prop_or_default]
    pub on_select: Callback<(String, i64)>,
    /// The branch selector changed: the branch name.
    #[prop_or_default]
    pub on_branch: Callback<String>,
    /// Shows this branch (e.g. the branch of a clicked finding, given with `focus`); `None`
    /// leaves the choice to the selector. Changing it selects the branch.
    #[prop_or_default]
    pub branch: Option<String>,
}

impl PartialEq for TimelineProps {
    fn eq(&self, other: &Self) -> bool {
        self.branches.len() == other.branches.len()
            && self
                .branches
                .iter()
                .zip(&other.branches)
                .all(|(a, b)| Rc::ptr_eq(a, b))
            && self.focus == other.focus
            && self.on_select == other.on_select
            && self.on_branch == other.on_branch
            && self.branch == other.branch
    }
}

/// An `Rc` compared by address (a report is never mutated in place).
#[derive(Clone)]
struct ByPtr(Rc<TableReport>);

impl PartialEq for ByPtr {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Drawing units above a mark needed to show its tooltip above it.
const TOOLTIP_ROOM: f64 = 120.0;

static NEXT_UID: AtomicU32 = AtomicU32::new(1);

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tip {
    Snapshot(i64),
    Range(i64, i64),
}

#[derive(Debug, Clone, Copy)]
struct Drag {
    pointer: i32,
    client_x: f64,
    start: f64,
    units_per_px: f64,
    moved: bool,
}

fn target_element(e: &Event) -> Option<Element> {
    e.target()?.dyn_into::<Element>().ok()
}

/// The snapshot or range an event's target element stands for.
fn target_of(e: &Event) -> Option<Tip> {
    let el = target_element(e)?;
    if let Some(id) = el.get_attribute("data-snapshot-id") {
        return id.parse().ok().map(Tip::Snapshot);
    }
    let range = el.get_attribute("data-snapshot-range")?;
    let (a, b) = range.split_once('-')?;
    Some(Tip::Range(a.parse().ok()?, b.parse().ok()?))
}

/// A view showing ids `a..=b` with some room around.
fn range_view(a: i64, b: i64, m: &Model) -> View {
    let span = ((b - a + 1) as f64 * 1.2).max(MIN_SPAN);
    View::around((a + b) as f64 / 2.0, span, m)
}

/// Keeps `id` inside `view` by panning only.
fn ensure_visible(view: View, id: i64, m: &Model) -> View {
    let x = id as f64;
    if x - 0.5 < view.start || x + 0.5 > view.start + view.span {
        View::around(x, view.span, m)
    } else {
        view
    }
}

fn focus_mark(svg: &NodeRef, stop: Option<TabStop>) {
    let Some(svg) = svg.cast::<Element>() else {
        return;
    };
    let selector = match stop {
        Some(TabStop::Snapshot(id)) => format!("[data-snapshot-id=\"{id}\"]"),
        Some(TabStop::Range(a, b)) => format!("[data-snapshot-range=\"{a}-{b}\"]"),
        None => return,
    };
    if let Ok(Some(el)) = svg.query_selector(&selector) {
        if let Ok(el) = el.dyn_into::<SvgElement>() {
            let _ = el.focus();
        }
    }
}

/// The snapshot timeline of one table (see the module docs for the DOM it renders).
#[function_component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let uid = use_state(|| NEXT_UID.fetch_add(1, Ordering::Relaxed));
    let branch_ix = use_state(|| 0usize);
    let view_state = use_state(|| None::<View>);
    let active = use_state(|| None::<i64>);
    let tip = use_state(|| None::<Tip>);
    let drag = use_mut_ref(|| None::<Drag>);
    let suppress_click = use_mut_ref(|| false);
    // Keyboard focus to move after the next renders: (target snapshot, renders left to try).
    let focus_pending: Rc<RefCell<Option<(i64, u8)>>> = use_mut_ref(|| None);
    let svg_ref = use_node_ref();

    // A branch asked for by the page.
    {
        let branch_ix = branch_ix.clone();
        let names: Vec<String> = props.branches.iter().map(|b| b.branch.clone()).collect();
        use_effect_with(props.branch.clone(), move |wanted| {
            if let Some(k) = wanted
                .as_ref()
                .and_then(|w| names.iter().position(|n| n == w))
            {
                branch_ix.set(k);
            }
        });
    }

    let ix = if *branch_ix < props.branches.len() {
        *branch_ix
    } else {
        0
    };
    let table: Option<Rc<TableReport>> = props.branches.get(ix).cloned();
    let key = table.clone().map(ByPtr);
    let model = use_memo(key.clone(), |k| k.as_ref().map(|t| Model::new(&t.0)));

    // A new table (or branch): start from the whole timeline.
    {
        let view_state = view_state.clone();
        let active = active.clone();
        let tip = tip.clone();
        use_effect_with(key, move |_| {
            view_state.set(None);
            active.set(None);
            tip.set(None);
        });
    }

    // Focus from a finding: zoom to it, highlight it, move keyboard focus to it.
    {
        let view_state = view_state.clone();
        let active = active.clone();
        let model = model.clone();
        let focus_pending = focus_pending.clone();
        let tip = tip.clone();
        let current = *view_state;
        use_effect_with((props.focus, ix), move |(focus, _)| {
            if let (Some(id), Some(m)) = (*focus, model.as_ref().as_ref()) {
                let v = current.unwrap_or_else(|| View::fit(m)).clamp(m);
                if m.index_of(id).is_some() {
                    view_state.set(Some(v.reveal(id, m)));
                    active.set(Some(id));
                    tip.set(Some(Tip::Snapshot(id)));
                    *focus_pending.borrow_mut() = Some((id, 3));
                } else if (m.domain.0..=m.domain.1).contains(&(id as f64)) {
                    // Not a snapshot (a gap's first missing id): show where it would be.
                    view_state.set(Some(v.reveal(id, m)));
                }
            }
        });
    }

    let stop_cell: Rc<RefCell<Option<TabStop>>> = use_mut_ref(|| None);
    // After each render: move keyboard focus where the cursor went (to the mark now holding
    // the tab stop, recorded by the render in `stop_cell`).
    {
        let focus_pending = focus_pending.clone();
        let svg_ref = svg_ref.clone();
        let stop_cell = stop_cell.clone();
        use_effect(move || {
            let stop = *stop_cell.borrow();
            let mut pending = focus_pending.borrow_mut();
            if let Some((target, tries)) = *pending {
                let here = match stop {
                    Some(TabStop::Snapshot(id)) => id == target,
                    Some(TabStop::Range(a, b)) => a <= target && target <= b,
                    None => false,
                };
                if here {
                    focus_mark(&svg_ref, stop);
                    *pending = None;
                } else {
                    *pending = tries
                        .checked_sub(1)
                        .map(|t| (target, t))
                        .filter(|p| p.1 > 0);
                }
            }
        });
    }

    let (Some(table), Some(m)) = (table, model.as_ref().as_ref()) else {
        *stop_cell.borrow_mut() = None;
        return html! {
            <div class="tl-root">
                <p class="tl-note">{ "No table to show." }</p>
                <svg class="tl-svg" data-testid="timeline" role="group" aria-label="Empty timeline"
                     viewBox="0 0 1000 40"></svg>
            </div>
        };
    };
    let view = view_state.unwrap_or_else(|| View::fit(m)).clamp(m);
    let tooltip_id = format!("tl-tip-{}", *uid);
    let help_id = format!("tl-help-{}", *uid);
    let ui = Ui {
        active: *active,
        focus: props.focus,
        tooltip_id: Some(tooltip_id.clone()),
        interactive: true,
    };
    let sc = scene(&table, m, &view, &ui);
    *stop_cell.borrow_mut() = sc.tab_stop;
    let branch_name = table.branch.clone();

    // --- events ---
    let set_view = {
        let view_state = view_state.clone();
        Callback::from(move |v: View| view_state.set(Some(v)))
    };
    let model_rc = model.clone();
    let with_model = move |f: &dyn Fn(&Model)| {
        if let Some(m) = model_rc.as_ref().as_ref() {
            f(m);
        }
    };

    let onclick = {
        let on_select = props.on_select.clone();
        let active = active.clone();
        let set_view = set_view.clone();
        let suppress_click = suppress_click.clone();
        let branch_name = branch_name.clone();
        let with_model = with_model.clone();
        Callback::from(move |e: MouseEvent| {
            if std::mem::take(&mut *suppress_click.borrow_mut()) {
                return;
            }
            match target_of(&e) {
                Some(Tip::Snapshot(id)) => {
                    active.set(Some(id));
                    on_select.emit((branch_name.clone(), id));
                }
                Some(Tip::Range(a, b)) => {
                    with_model(&|m| set_view.emit(range_view(a, b, m)));
                }
                None => {}
            }
        })
    };

    let onmouseover = {
        let tip = tip.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(t) = target_of(&e) {
                tip.set(Some(t));
            }
        })
    };
    let onmouseout = {
        let tip = tip.clone();
        Callback::from(move |e: MouseEvent| {
            if target_of(&e).is_some() {
                tip.set(None);
            }
        })
    };
    let onfocusin = {
        let tip = tip.clone();
        let active = active.clone();
        let with_model = with_model.clone();
        Callback::from(move |e: FocusEvent| match target_of(&e) {
            Some(Tip::Snapshot(id)) => {
                active.set(Some(id));
                tip.set(Some(Tip::Snapshot(id)));
            }
            Some(Tip::Range(a, b)) => {
                with_model(&|m| {
                    if !active.is_some_and(|id| a <= id && id <= b) && m.index_of(a).is_some() {
                        active.set(Some(a));
                    }
                });
                tip.set(Some(Tip::Range(a, b)));
            }
            None => {}
        })
    };
    let onfocusout = {
        let tip = tip.clone();
        Callback::from(move |_: FocusEvent| tip.set(None))
    };

    let onkeydown = {
        let active = active.clone();
        let tip = tip.clone();
        let set_view = set_view.clone();
        let focus_pending = focus_pending.clone();
        let on_select = props.on_select.clone();
        let branch_name = branch_name.clone();
        let with_model = with_model.clone();
        let dense = sc.dense;
        let stop = sc.tab_stop;
        Callback::from(move |e: KeyboardEvent| {
            let key = e.key();
            let handled = std::cell::Cell::new(true);
            with_model(&|m| {
                // The cursor: the active snapshot while it is in view, else the tab stop.
                let in_view = |id: &i64| {
                    let x = *id as f64;
                    x >= view.start - 0.5 && x <= view.start + view.span + 0.5
                };
                let cur = (*active).filter(in_view).or(match stop {
                    Some(TabStop::Snapshot(id)) => Some(id),
                    Some(TabStop::Range(a, _)) => Some(a),
                    None => None,
                });
                let move_to = |id: Option<i64>, v: View| {
                    if let Some(id) = id {
                        active.set(Some(id));
                        tip.set(Some(Tip::Snapshot(id)));
                        set_view.emit(ensure_visible(v, id, m));
                        *focus_pending.borrow_mut() = Some((id, 3));
                    }
                };
                let step = |delta: isize| -> Option<i64> {
                    if !dense {
                        return m.step(cur, delta);
                    }
                    // Dense: from aggregate to aggregate in the same lane.
                    let aggs = aggregates(m, &view);
                    let lane = cur
                        .and_then(|c| m.index_of(c))
                        .and_then(|i| m.lane.get(i).copied());
                    let here = cur.and_then(|c| {
                        aggs.iter()
                            .position(|a| Some(a.lane) == lane && a.first <= c && c <= a.last)
                    });
                    let next = match here {
                        Some(h) => h.checked_add_signed(delta).and_then(|k| aggs.get(k)),
                        None => aggs.first(),
                    };
                    match next {
                        Some(a) if Some(a.lane) == lane || here.is_none() => Some(a.first),
                        // Past this lane's last bin: the next snapshot outside the view.
                        _ => {
                            let edge = if delta > 0 {
                                view.start + view.span
                            } else {
                                view.start
                            };
                            let i = m.ids.partition_point(|&id| (id as f64) < edge);
                            let i = if delta > 0 { Some(i) } else { i.checked_sub(1) };
                            i.and_then(|i| m.ids.get(i).copied())
                        }
                    }
                };
                match key.as_str() {
                    "ArrowRight" | "ArrowLeft" if e.shift_key() => {
                        let dir = if key == "ArrowRight" { 1.0 } else { -1.0 };
                        set_view.emit(view.pan(dir * view.span * 0.25, m));
                    }
                    "ArrowRight" => move_to(step(1), view),
                    "ArrowLeft" => move_to(step(-1), view),
                    "ArrowUp" => move_to(cur.and_then(|c| m.lane_step(c, -1)), view),
                    "ArrowDown" => move_to(cur.and_then(|c| m.lane_step(c, 1)), view),
                    "Home" => move_to(m.ids.first().copied(), view),
                    "End" => move_to(m.ids.last().copied(), view),
                    "Escape" if tip.is_some() => tip.set(None),
                    "PageDown" => set_view.emit(view.pan(view.span * 0.8, m)),
                    "PageUp" => set_view.emit(view.pan(-view.span * 0.8, m)),
                    "+" | "=" => {
                        let c = cur.map_or(view.center(), |c| c as f64);
                        set_view.emit(view.zoom(1.0 / 1.6, c, m));
                        if let Some(c) = cur {
                            active.set(Some(c));
                            *focus_pending.borrow_mut() = Some((c, 3));
                        }
                    }
                    "-" | "_" => {
                        let c = cur.map_or(view.center(), |c| c as f64);
                        set_view.emit(view.zoom(1.6, c, m));
                        if let Some(c) = cur {
                            active.set(Some(c));
                            *focus_pending.borrow_mut() = Some((c, 3));
                        }
                    }
                    "Enter" | " " => match target_of(&e) {
                        Some(Tip::Range(a, b)) => {
                            set_view.emit(range_view(a, b, m));
                            let id = cur.filter(|c| a <= *c && *c <= b).unwrap_or(a);
                            active.set(Some(id));
                            *focus_pending.borrow_mut() = Some((id, 3));
                        }
                        Some(Tip::Snapshot(id)) => on_select.emit((branch_name.clone(), id)),
                        None => handled.set(false),
                    },
                    _ => handled.set(false),
                }
            });
            if handled.get() {
                e.prevent_default();
            }
        })
    };

    let onwheel = {
        let set_view = set_view.clone();
        let svg_ref = svg_ref.clone();
        let with_model = with_model.clone();
        Callback::from(move |e: WheelEvent| {
            let zoom = e.ctrl_key() || e.meta_key();
            let pan = e.shift_key() || e.delta_x().abs() > e.delta_y().abs();
            if !zoom && !pan {
                return;
            }
            e.prevent_default();
            let Some(svg) = svg_ref.cast::<Element>() else {
                return;
            };
            let rect = svg.get_bounding_client_rect();
            if rect.width() <= 0.0 {
                return;
            }
            let units = (e.client_x() as f64 - rect.left()) * WIDTH / rect.width();
            with_model(&|m| {
                if zoom {
                    let factor = (e.delta_y() * 0.002).exp().clamp(0.5, 2.0);
                    set_view.emit(view.zoom(factor, view.id_at(units), m));
                } else {
                    let d = if e.delta_x().abs() > e.delta_y().abs() {
                        e.delta_x()
                    } else {
                        e.delta_y()
                    };
                    let ids = d * WIDTH / rect.width() / view.px_per_id();
                    set_view.emit(view.pan(ids, m));
                }
            });
        })
    };

    let onpointerdown = {
        let drag = drag.clone();
        let svg_ref = svg_ref.clone();
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 || !e.is_primary() {
                return;
            }
            let Some(svg) = svg_ref.cast::<Element>() else {
                return;
            };
            let rect = svg.get_bounding_client_rect();
            if rect.width() <= 0.0 {
                return;
            }
            *drag.borrow_mut() = Some(Drag {
                pointer: e.pointer_id(),
                client_x: e.client_x() as f64,
                start: view.start,
                units_per_px: WIDTH / rect.width(),
                moved: false,
            });
        })
    };
    let onpointermove = {
        let drag = drag.clone();
        let set_view = set_view.clone();
        let svg_ref = svg_ref.clone();
        let with_model = with_model.clone();
        Callback::from(move |e: PointerEvent| {
            let mut d = drag.borrow_mut();
            let Some(state) = d.as_mut() else {
                return;
            };
            if state.pointer != e.pointer_id() {
                return;
            }
            let dx = e.client_x() as f64 - state.client_x;
            if !state.moved && dx.abs() > 4.0 {
                state.moved = true;
                if let Some(svg) = svg_ref.cast::<Element>() {
                    let _ = svg.set_pointer_capture(e.pointer_id());
                }
            }
            if state.moved {
                let ids = -dx * state.units_per_px / view.px_per_id();
                let v = View {
                    start: state.start + ids,
                    span: view.span,
                };
                with_model(&|m| set_view.emit(v.clamp(m)));
            }
        })
    };
    let onpointerup = {
        let drag = drag.clone();
        let suppress_click = suppress_click.clone();
        Callback::from(move |_: PointerEvent| {
            if let Some(state) = drag.borrow_mut().take() {
                if state.moved {
                    *suppress_click.borrow_mut() = true;
                }
            }
        })
    };
    let onpointercancel = {
        let drag = drag.clone();
        Callback::from(move |_: PointerEvent| {
            drag.borrow_mut().take();
        })
    };

    let zoom_by = |factor: f64| {
        let set_view = set_view.clone();
        let with_model = with_model.clone();
        let c = active.map_or(view.center(), |a| {
            let x = a as f64;
            if x >= view.start && x <= view.start + view.span {
                x
            } else {
                view.center()
            }
        });
        Callback::from(move |_: MouseEvent| with_model(&|m| set_view.emit(view.zoom(factor, c, m))))
    };
    let pan_by = |fraction: f64| {
        let set_view = set_view.clone();
        let with_model = with_model.clone();
        Callback::from(move |_: MouseEvent| {
            with_model(&|m| set_view.emit(view.pan(view.span * fraction, m)))
        })
    };
    let fit = {
        let set_view = set_view.clone();
        let with_model = with_model.clone();
        Callback::from(move |_: MouseEvent| with_model(&|m| set_view.emit(View::fit(m))))
    };
    let onbranch = {
        let branch_ix = branch_ix.clone();
        let on_branch = props.on_branch.clone();
        let names: Vec<String> = props.branches.iter().map(|b| b.branch.clone()).collect();
        Callback::from(move |e: Event| {
            let Some(select) = e.target_dyn_into::<HtmlSelectElement>() else {
                return;
            };
            let value = select.value();
            if let Some(k) = names.iter().position(|n| *n == value) {
                branch_ix.set(k);
                on_branch.emit(value);
            }
        })
    };

    // --- tooltip ---
    let tooltip = (*tip).and_then(|t| {
        let (x, y, lines) = match t {
            Tip::Snapshot(id) => {
                let i = m.index_of(id)?;
                let x = view.x(id as f64);
                if !(view.start - 0.5..=view.start + view.span + 0.5).contains(&(id as f64)) {
                    return None;
                }
                let y = lane_y(sc.lanes_y.0, *m.lane.get(i)?);
                (x, y, describe(&table, m, i))
            }
            Tip::Range(a, b) => {
                let i = m.index_of(a)?;
                let lane = *m.lane.get(i)?;
                let agg = aggregates(m, &view)
                    .into_iter()
                    .find(|g| g.lane == lane && g.first == a && g.last == b)?;
                let mut lines = agg.describe(m);
                lines.push("Click or Enter to zoom in".to_string());
                let x = view.x((a + b) as f64 / 2.0);
                let y = lane_y(sc.lanes_y.0, lane);
                (x, y, lines)
            }
        };
        Some((x, y, lines))
    });
    let height = sc.height;
    let tooltip_html = match &tooltip {
        Some((x, y, lines)) => {
            // Above the mark when there is room for about five lines, else below it (the
            // scrolling box clips what sticks out).
            let below = *y < TOOLTIP_ROOM;
            let top = if below { y + 10.0 } else { y - 8.0 };
            let style = format!(
                "left: {:.3}%; top: {:.3}%;",
                (x / WIDTH * 100.0).clamp(8.0, 92.0),
                (top / height * 100.0).max(0.0)
            );
            let class = if below {
                "tl-tooltip tl-below"
            } else {
                "tl-tooltip"
            };
            html! {
                <div id={tooltip_id.clone()} class={class} role="tooltip" style={style}>
                    { lines.join("\n") }
                </div>
            }
        }
        None => html! {
            <div id={tooltip_id.clone()} class="tl-tooltip" role="tooltip" hidden=true></div>
        },
    };

    let (lo, hi) = m.visible(&view);
    let first_visible = m.ids.get(lo).copied();
    let last_visible = hi.checked_sub(1).and_then(|i| m.ids.get(i)).copied();
    let status = match (first_visible, last_visible) {
        (Some(a), Some(b)) if hi > lo => format!(
            "Showing snapshots {a}–{b} ({} of {}){}",
            hi - lo,
            m.ids.len(),
            if sc.dense {
                " · grouped: zoom in to see single snapshots"
            } else {
                ""
            }
        ),
        _ => format!("No snapshot in view ({} in all)", m.ids.len()),
    };
    let unreadable: Vec<String> = table
        .consumers
        .iter()
        .filter(|c| c.next_snapshot.is_none())
        .map(|c| c.id.clone())
        .collect();
    let can_zoom_in = view.span > MIN_SPAN + 0.01;
    let full = m.domain.1 - m.domain.0;
    let can_zoom_out = view.span < full - 0.01;
    let _ = PLOT_W;

    html! {
        <div class="tl-root" data-branch={branch_name.clone()} data-dense={sc.dense.to_string()}>
            <style data-timeline-styles="">{ STYLE }</style>
            <div class="tl-toolbar">
                if props.branches.len() > 1 {
                    <label>
                        { "Branch " }
                        <select onchange={onbranch} data-testid="timeline-branch">
                            { for props.branches.iter().enumerate().map(|(k, b)| html! {
                                <option value={b.branch.clone()} selected={k == ix}>{ &b.branch }</option>
                            }) }
                        </select>
                    </label>
                }
                <span role="group" aria-label="Zoom and pan">
                    <button type="button" onclick={zoom_by(1.0 / 1.6)} disabled={!can_zoom_in}
                            aria-label="Zoom in" title="Zoom in (+)">{ "+" }</button>
                    <button type="button" onclick={zoom_by(1.6)} disabled={!can_zoom_out}
                            aria-label="Zoom out" title="Zoom out (−)">{ "−" }</button>
                    <button type="button" onclick={pan_by(-0.5)} disabled={!can_zoom_out}
                            aria-label="Pan left" title="Pan left (Page Up)">{ "◀" }</button>
                    <button type="button" onclick={pan_by(0.5)} disabled={!can_zoom_out}
                            aria-label="Pan right" title="Pan right (Page Down)">{ "▶" }</button>
                    <button type="button" onclick={fit} disabled={!can_zoom_out}
                            title="Show the whole timeline">{ "Fit" }</button>
                </span>
                <span class="tl-status" data-testid="timeline-status">{ status }</span>
            </div>
            <div class="tl-scroll">
                <div class="tl-canvas" style="position: relative; min-width: 40rem;">
                    <svg
                        ref={svg_ref}
                        class="tl-svg"
                        data-testid="timeline"
                        data-table={table.path.clone()}
                        data-branch={branch_name}
                        data-dense={sc.dense.to_string()}
                        data-view={format!("{:.1}-{:.1}", view.start, view.start + view.span)}
                        role="group"
                        aria-roledescription="timeline"
                        aria-label={summary(&table, m)}
                        aria-describedby={help_id.clone()}
                        viewBox={format!("0 0 {} {}", WIDTH, super::node::fmt_num(height))}
                        preserveAspectRatio="xMinYMin meet"
                        {onclick} {onmouseover} {onmouseout} {onfocusin} {onfocusout} {onkeydown}
                        {onwheel} {onpointerdown} {onpointermove} {onpointerup} {onpointercancel}
                    >
                        { for sc.nodes.iter().map(super::node::Node::to_vnode) }
                    </svg>
                    { tooltip_html }
                </div>
            </div>
            <ul class="tl-legend" aria-label="Legend">
                { for legend().into_iter().map(|e| html! {
                    <li>
                        <svg viewBox="0 0 14 14" aria-hidden="true" focusable="false">
                            { e.symbol.to_vnode() }
                        </svg>
                        { e.label }
                    </li>
                }) }
            </ul>
            if !unreadable.is_empty() {
                <p class="tl-note">{ format!("Consumers without a position (unreadable): {}", unreadable.join(", ")) }</p>
            }
            <p class="tl-help" id={help_id}>
                { "Tab into the timeline; arrow keys move between snapshots (up/down: other commit users), \
                   Enter opens a snapshot or zooms into a group, + and − zoom, Page Up/Down or Shift+arrows pan, \
                   Home/End jump to the first/last snapshot. With a mouse: drag or Shift+wheel to pan, \
                   Ctrl+wheel to zoom." }
            </p>
        </div>
    }
}
