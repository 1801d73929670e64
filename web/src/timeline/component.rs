//! The live timeline: the drawing of [`super::layout`] plus zoom, pan, hover, keyboard and the
//! branch selector. Its state and how events change it are in [`super::state`] (a reducer);
//! this module turns DOM events into its actions and renders it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

use prv::report::model::TableReport;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSelectElement, SvgElement};
use yew::prelude::*;

use super::export::{legend, STYLE};
use super::layout::{
    aggregates, describe, lane_y, scene, summary, Model, Scene, TabStop, Ui, View, MIN_SPAN, WIDTH,
};
use super::node::{fmt_num, Node};
use super::state::{
    key_input, Action, FocusRequest, FocusTries, KeyInput, Msg, TimelineState, Tip,
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

/// A pointer drag under way: which pointer, where it went down, the view's start then, and
/// the drawing units per CSS pixel.
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

/// Moves keyboard focus to the mark or aggregate holding the tab stop `stop`.
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

/// The svg's box on screen, when it has a width.
fn svg_rect(svg: &NodeRef) -> Option<web_sys::DomRect> {
    let rect = svg.cast::<Element>()?.get_bounding_client_rect();
    (rect.width() > 0.0).then_some(rect)
}

/// Sends actions to the reducer with the shown table's model (dropped when there is none).
#[derive(Clone)]
struct Dispatch {
    to: UseReducerDispatcher<TimelineState>,
    model: Option<Rc<Model>>,
}

impl Dispatch {
    fn send(&self, action: Action) {
        if let Some(m) = &self.model {
            self.to.dispatch(Msg(m.clone(), action));
        }
    }
}

/// What the event handlers of one render read.
#[derive(Clone)]
struct Handlers {
    dispatch: Dispatch,
    /// The render's view (where a drag starts from).
    view: View,
    /// The render's tab stop (the keyboard cursor when the active snapshot is out of view).
    stop: Option<TabStop>,
    /// Whether the tooltip shows (Escape hides it, else Escape is left alone).
    tip_shown: bool,
    /// The shown branch (told with a selection).
    branch: String,
    on_select: Callback<(String, i64)>,
    svg: NodeRef,
    /// The drag under way, if any.
    drag: Rc<RefCell<Option<Drag>>>,
    /// Set when a drag ends, so that its click selects nothing.
    suppress_click: Rc<RefCell<bool>>,
}

/// The snapshot timeline of one table (see the module docs for the DOM it renders).
#[function_component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let uid = use_state(|| NEXT_UID.fetch_add(1, Ordering::Relaxed));
    let state = use_reducer(TimelineState::default);
    let drag = use_mut_ref(|| None::<Drag>);
    let suppress_click = use_mut_ref(|| false);
    let svg_ref = use_node_ref();

    let ix = if state.branch < props.branches.len() {
        state.branch
    } else {
        0
    };
    let table: Option<Rc<TableReport>> = props.branches.get(ix).cloned();
    let key = table.clone().map(ByPtr);
    let model = use_memo(key.clone(), |k| {
        k.as_ref().map(|t| Rc::new(Model::new(&t.0)))
    });
    let dispatch = Dispatch {
        to: state.dispatcher(),
        model: (*model).clone(),
    };
    use_prop_effects(props, key, ix, state.view, &dispatch);

    let drawn = match (&table, model.as_ref()) {
        (Some(t), Some(m)) => {
            let view = state.view(m);
            let ui = Ui {
                active: state.active,
                focus: props.focus,
                tooltip_id: Some(format!("tl-tip-{}", *uid)),
                interactive: true,
            };
            Some((view, scene(t, m, &view, &ui)))
        }
        _ => None,
    };
    let stop = drawn.as_ref().and_then(|(_, sc)| sc.tab_stop);
    use_focus_after_render(state.focus, stop, &svg_ref);
    let (Some(table), Some(m), Some((view, sc))) = (table, model.as_ref(), drawn) else {
        return empty();
    };
    let h = Handlers {
        dispatch,
        view,
        stop: sc.tab_stop,
        tip_shown: state.tip.is_some(),
        branch: table.branch.clone(),
        on_select: props.on_select.clone(),
        svg: svg_ref,
        drag,
        suppress_click,
    };
    let tip = state
        .tip
        .and_then(|t| tooltip(&table, m, &view, sc.lanes_y.0, t));
    html! {
        <div class="tl-root" data-branch={table.branch.clone()} data-dense={sc.dense.to_string()}>
            <style data-timeline-styles="">{ STYLE }</style>
            { toolbar(props, ix, m, &view, sc.dense, &h) }
            <div class="tl-scroll">
                <div class="tl-canvas" style="position: relative; min-width: 40rem;">
                    { svg(&table, m, &view, &sc, *uid, &h) }
                    { tooltip_html(&format!("tl-tip-{}", *uid), tip, sc.height) }
                </div>
            </div>
            { legend_html() }
            { unreadable_note(&table) }
            { help(*uid) }
        </div>
    }
}

/// What shows without a table.
fn empty() -> Html {
    html! {
        <div class="tl-root">
            <p class="tl-note">{ "No table to show." }</p>
            <svg class="tl-svg" data-testid="timeline" role="group" aria-label="Empty timeline"
                 viewBox="0 0 1000 40"></svg>
        </div>
    }
}

/// After each render: keyboard focus moves where the cursor went (to the mark now holding the
/// tab stop `stop`), for the state's latest focus `request` (see [`FocusTries`]).
#[hook]
fn use_focus_after_render(request: Option<FocusRequest>, stop: Option<TabStop>, svg: &NodeRef) {
    let tries = use_mut_ref(FocusTries::default);
    let svg = svg.clone();
    use_effect(move || {
        if tries.borrow_mut().after_render(request, stop) {
            focus_mark(&svg, stop);
        }
    });
}

/// The effects of the props: a branch asked for by the page is shown; a new table (or
/// branch) starts from the whole timeline; focus from a finding zooms to it.
#[hook]
fn use_prop_effects(
    props: &TimelineProps,
    key: Option<ByPtr>,
    ix: usize,
    view: Option<View>,
    dispatch: &Dispatch,
) {
    {
        let dispatch = dispatch.clone();
        let names: Vec<String> = props.branches.iter().map(|b| b.branch.clone()).collect();
        use_effect_with(props.branch.clone(), move |wanted| {
            if let Some(k) = wanted
                .as_ref()
                .and_then(|w| names.iter().position(|n| n == w))
            {
                dispatch.send(Action::Branch(k));
            }
        });
    }
    {
        let dispatch = dispatch.clone();
        use_effect_with(key, move |_| dispatch.send(Action::Reset));
    }
    {
        // From the view of this render (a new branch's reset does not change where it starts).
        let dispatch = dispatch.clone();
        use_effect_with((props.focus, ix), move |(focus, _)| {
            if let Some(id) = *focus {
                dispatch.send(Action::Reveal { id, from: view });
            }
        });
    }
}

/// The svg element: the drawing of `sc` and every pointer, focus and key handler.
fn svg(table: &TableReport, m: &Model, view: &View, sc: &Scene, uid: u32, h: &Handlers) -> Html {
    html! {
        <svg
            ref={h.svg.clone()}
            class="tl-svg"
            data-testid="timeline"
            data-table={table.path.clone()}
            data-branch={table.branch.clone()}
            data-dense={sc.dense.to_string()}
            data-view={format!("{:.1}-{:.1}", view.start, view.start + view.span)}
            role="group"
            aria-roledescription="timeline"
            aria-label={summary(table, m)}
            aria-describedby={format!("tl-help-{uid}")}
            viewBox={format!("0 0 {} {}", WIDTH, fmt_num(sc.height))}
            preserveAspectRatio="xMinYMin meet"
            onclick={on_click(h)} onmouseover={on_mouseover(h)} onmouseout={on_mouseout(h)}
            onfocusin={on_focusin(h)} onfocusout={on_focusout(h)} onkeydown={on_keydown(h)}
            onwheel={on_wheel(h)} onpointerdown={on_pointerdown(h)}
            onpointermove={on_pointermove(h)} onpointerup={on_pointerup(h)}
            onpointercancel={on_pointercancel(h)}
        >
            { for sc.nodes.iter().map(Node::to_vnode) }
        </svg>
    }
}

/// A click on a mark selects it (the page is told); on an aggregate, zooms into it. Not after
/// a drag.
fn on_click(h: &Handlers) -> Callback<MouseEvent> {
    let h = h.clone();
    Callback::from(move |e: MouseEvent| {
        if std::mem::take(&mut *h.suppress_click.borrow_mut()) {
            return;
        }
        if let Some(t) = target_of(&e) {
            h.dispatch.send(Action::Click(t));
            if let Tip::Snapshot(id) = t {
                h.on_select.emit((h.branch.clone(), id));
            }
        }
    })
}

/// The tooltip of the mark or aggregate under the pointer.
fn on_mouseover(h: &Handlers) -> Callback<MouseEvent> {
    let d = h.dispatch.clone();
    Callback::from(move |e: MouseEvent| {
        if let Some(t) = target_of(&e) {
            d.send(Action::Hover(t));
        }
    })
}

/// No tooltip once the pointer leaves a mark or an aggregate.
fn on_mouseout(h: &Handlers) -> Callback<MouseEvent> {
    let d = h.dispatch.clone();
    Callback::from(move |e: MouseEvent| {
        if target_of(&e).is_some() {
            d.send(Action::Unhover);
        }
    })
}

/// The cursor and the tooltip follow keyboard focus.
fn on_focusin(h: &Handlers) -> Callback<FocusEvent> {
    let d = h.dispatch.clone();
    Callback::from(move |e: FocusEvent| {
        if let Some(t) = target_of(&e) {
            d.send(Action::FocusIn(t));
        }
    })
}

/// No tooltip once keyboard focus leaves.
fn on_focusout(h: &Handlers) -> Callback<FocusEvent> {
    let d = h.dispatch.clone();
    Callback::from(move |_: FocusEvent| d.send(Action::Unhover))
}

/// The keys of [`key_input`]; those it handles do nothing else (no scrolling).
fn on_keydown(h: &Handlers) -> Callback<KeyboardEvent> {
    let h = h.clone();
    Callback::from(move |e: KeyboardEvent| {
        let Some(input) = key_input(&e.key(), e.shift_key(), target_of(&e), h.tip_shown) else {
            return;
        };
        match input {
            KeyInput::Act(key) => h.dispatch.send(Action::Key(key, h.stop)),
            KeyInput::Select(id) => h.on_select.emit((h.branch.clone(), id)),
        }
        e.prevent_default();
    })
}

/// Ctrl (or Cmd) + wheel zooms around the pointer; Shift + wheel or a horizontal wheel pans.
fn on_wheel(h: &Handlers) -> Callback<WheelEvent> {
    let h = h.clone();
    Callback::from(move |e: WheelEvent| {
        let zoom = e.ctrl_key() || e.meta_key();
        let pan = e.shift_key() || e.delta_x().abs() > e.delta_y().abs();
        if !zoom && !pan {
            return;
        }
        e.prevent_default();
        let Some(rect) = svg_rect(&h.svg) else {
            return;
        };
        if zoom {
            let factor = (e.delta_y() * 0.002).exp().clamp(0.5, 2.0);
            let x = (e.client_x() as f64 - rect.left()) * WIDTH / rect.width();
            h.dispatch.send(Action::WheelZoom { factor, x });
        } else {
            let d = if e.delta_x().abs() > e.delta_y().abs() {
                e.delta_x()
            } else {
                e.delta_y()
            };
            h.dispatch.send(Action::WheelPan(d * WIDTH / rect.width()));
        }
    })
}

/// The primary button down: a drag may begin.
fn on_pointerdown(h: &Handlers) -> Callback<PointerEvent> {
    let h = h.clone();
    Callback::from(move |e: PointerEvent| {
        if e.button() != 0 || !e.is_primary() {
            return;
        }
        let Some(rect) = svg_rect(&h.svg) else {
            return;
        };
        *h.drag.borrow_mut() = Some(Drag {
            pointer: e.pointer_id(),
            client_x: e.client_x() as f64,
            start: h.view.start,
            units_per_px: WIDTH / rect.width(),
            moved: false,
        });
    })
}

/// Past 4 pixels a drag captures the pointer and pans the view with it.
fn on_pointermove(h: &Handlers) -> Callback<PointerEvent> {
    let h = h.clone();
    Callback::from(move |e: PointerEvent| {
        let mut d = h.drag.borrow_mut();
        let Some(state) = d.as_mut() else {
            return;
        };
        if state.pointer != e.pointer_id() {
            return;
        }
        let dx = e.client_x() as f64 - state.client_x;
        if !state.moved && dx.abs() > 4.0 {
            state.moved = true;
            if let Some(svg) = h.svg.cast::<Element>() {
                let _ = svg.set_pointer_capture(e.pointer_id());
            }
        }
        if state.moved {
            h.dispatch.send(Action::Drag {
                start: state.start,
                units: -dx * state.units_per_px,
            });
        }
    })
}

/// The end of a drag; one that moved swallows the click that follows.
fn on_pointerup(h: &Handlers) -> Callback<PointerEvent> {
    let h = h.clone();
    Callback::from(move |_: PointerEvent| {
        if let Some(state) = h.drag.borrow_mut().take() {
            if state.moved {
                *h.suppress_click.borrow_mut() = true;
            }
        }
    })
}

/// A cancelled pointer ends the drag.
fn on_pointercancel(h: &Handlers) -> Callback<PointerEvent> {
    let drag = h.drag.clone();
    Callback::from(move |_: PointerEvent| {
        drag.borrow_mut().take();
    })
}

/// The toolbar: the branch selector (with several branches), the zoom, pan and fit buttons
/// (disabled at the limits) and the status line.
fn toolbar(
    props: &TimelineProps,
    ix: usize,
    m: &Model,
    view: &View,
    dense: bool,
    h: &Handlers,
) -> Html {
    let button = |action: Action| {
        let d = h.dispatch.clone();
        Callback::from(move |_: MouseEvent| d.send(action))
    };
    let can_zoom_in = view.span > MIN_SPAN + 0.01;
    let can_zoom_out = view.span < m.domain.1 - m.domain.0 - 0.01;
    html! {
        <div class="tl-toolbar">
            if props.branches.len() > 1 {
                <label>
                    { "Branch " }
                    <select onchange={on_branch(props, &h.dispatch)} data-testid="timeline-branch">
                        { for props.branches.iter().enumerate().map(|(k, b)| html! {
                            <option value={b.branch.clone()} selected={k == ix}>{ &b.branch }</option>
                        }) }
                    </select>
                </label>
            }
            <span role="group" aria-label="Zoom and pan">
                <button type="button" onclick={button(Action::ZoomBy(1.0 / 1.6))} disabled={!can_zoom_in}
                        aria-label="Zoom in" title="Zoom in (+)">{ "+" }</button>
                <button type="button" onclick={button(Action::ZoomBy(1.6))} disabled={!can_zoom_out}
                        aria-label="Zoom out" title="Zoom out (−)">{ "−" }</button>
                <button type="button" onclick={button(Action::PanBy(-0.5))} disabled={!can_zoom_out}
                        aria-label="Pan left" title="Pan left (Page Up)">{ "◀" }</button>
                <button type="button" onclick={button(Action::PanBy(0.5))} disabled={!can_zoom_out}
                        aria-label="Pan right" title="Pan right (Page Down)">{ "▶" }</button>
                <button type="button" onclick={button(Action::Fit)} disabled={!can_zoom_out}
                        title="Show the whole timeline">{ "Fit" }</button>
            </span>
            <span class="tl-status" data-testid="timeline-status">{ status(m, view, dense) }</span>
        </div>
    }
}

/// The branch selector shows the chosen branch and tells the page.
fn on_branch(props: &TimelineProps, dispatch: &Dispatch) -> Callback<Event> {
    let dispatch = dispatch.clone();
    let on_branch = props.on_branch.clone();
    let names: Vec<String> = props.branches.iter().map(|b| b.branch.clone()).collect();
    Callback::from(move |e: Event| {
        let Some(select) = e.target_dyn_into::<HtmlSelectElement>() else {
            return;
        };
        let value = select.value();
        if let Some(k) = names.iter().position(|n| *n == value) {
            dispatch.send(Action::Branch(k));
            on_branch.emit(value);
        }
    })
}

/// The status line: which snapshots the view shows, and whether they are grouped.
fn status(m: &Model, view: &View, dense: bool) -> String {
    let (lo, hi) = m.visible(view);
    let first_visible = m.ids.get(lo).copied();
    let last_visible = hi.checked_sub(1).and_then(|i| m.ids.get(i)).copied();
    match (first_visible, last_visible) {
        (Some(a), Some(b)) if hi > lo => format!(
            "Showing snapshots {a}–{b} ({} of {}){}",
            hi - lo,
            m.ids.len(),
            if dense {
                " · grouped: zoom in to see single snapshots"
            } else {
                ""
            }
        ),
        _ => format!("No snapshot in view ({} in all)", m.ids.len()),
    }
}

/// Where the tooltip of `tip` points (drawing units) and its lines; `None` when the snapshot
/// is out of view or the aggregate is not drawn.
fn tooltip(
    table: &TableReport,
    m: &Model,
    view: &View,
    lanes_top: f64,
    tip: Tip,
) -> Option<(f64, f64, Vec<String>)> {
    match tip {
        Tip::Snapshot(id) => {
            let i = m.index_of(id)?;
            let x = view.x(id as f64);
            if !(view.start - 0.5..=view.start + view.span + 0.5).contains(&(id as f64)) {
                return None;
            }
            let y = lane_y(lanes_top, *m.lane.get(i)?);
            Some((x, y, describe(table, m, i)))
        }
        Tip::Range(a, b) => {
            let i = m.index_of(a)?;
            let lane = *m.lane.get(i)?;
            let agg = aggregates(m, view)
                .into_iter()
                .find(|g| g.lane == lane && g.first == a && g.last == b)?;
            let mut lines = agg.describe(m);
            lines.push("Click or Enter to zoom in".to_string());
            let x = view.x((a + b) as f64 / 2.0);
            Some((x, lane_y(lanes_top, lane), lines))
        }
    }
}

/// The tooltip element `id` (hidden when there is no tooltip): above the mark when there is
/// room for about five lines, else below it (the scrolling box clips what sticks out).
fn tooltip_html(id: &str, tip: Option<(f64, f64, Vec<String>)>, height: f64) -> Html {
    let Some((x, y, lines)) = tip else {
        return html! {
            <div id={id.to_string()} class="tl-tooltip" role="tooltip" hidden=true></div>
        };
    };
    let below = y < TOOLTIP_ROOM;
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
        <div id={id.to_string()} class={class} role="tooltip" style={style}>
            { lines.join("\n") }
        </div>
    }
}

/// The legend, as a list of small svg symbols and their labels.
fn legend_html() -> Html {
    html! {
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
    }
}

/// A note naming the consumers without a position, if any.
fn unreadable_note(table: &TableReport) -> Html {
    let unreadable: Vec<String> = table
        .consumers
        .iter()
        .filter(|c| c.next_snapshot.is_none())
        .map(|c| c.id.clone())
        .collect();
    if unreadable.is_empty() {
        return html! {};
    }
    html! {
        <p class="tl-note">{ format!("Consumers without a position (unreadable): {}", unreadable.join(", ")) }</p>
    }
}

/// The keyboard and mouse help the svg is described by.
fn help(uid: u32) -> Html {
    html! {
        <p class="tl-help" id={format!("tl-help-{uid}")}>
            { "Tab into the timeline; arrow keys move between snapshots (up/down: other commit users), \
               Enter opens a snapshot or zooms into a group, + and − zoom, Page Up/Down or Shift+arrows pan, \
               Home/End jump to the first/last snapshot. With a mouse: drag or Shift+wheel to pan, \
               Ctrl+wheel to zoom." }
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    #[test]
    fn the_status_line_says_what_is_in_view() {
        let m = Model::new(&sample::table(1_000));
        let fit = View::fit(&m);
        assert_eq!(
            status(&m, &fit, true),
            "Showing snapshots 3–1002 (1000 of 1000) · grouped: zoom in to see single snapshots"
        );
        let v = View {
            start: 100.0,
            span: 10.0,
        };
        assert_eq!(
            status(&m, &v, false),
            "Showing snapshots 100–110 (11 of 1000)"
        );
        let empty = Model::new(&sample::table(0));
        assert_eq!(
            status(&empty, &View::fit(&empty), false),
            "No snapshot in view (0 in all)"
        );
    }

    #[test]
    fn the_tooltip_describes_a_visible_mark_or_a_drawn_aggregate() {
        let t = sample::table(1_000);
        let m = Model::new(&t);
        let v = View {
            start: 100.0,
            span: 10.0,
        };
        let (x, _, lines) = tooltip(&t, &m, &v, 50.0, Tip::Snapshot(105)).unwrap();
        assert!((x - v.x(105.0)).abs() < 1e-9);
        assert_eq!(lines, describe(&t, &m, m.index_of(105).unwrap()));
        assert!(tooltip(&t, &m, &v, 50.0, Tip::Snapshot(500)).is_none());
        let fit = View::fit(&m);
        let a = aggregates(&m, &fit).into_iter().next().unwrap();
        let (_, _, lines) = tooltip(&t, &m, &fit, 50.0, Tip::Range(a.first, a.last)).unwrap();
        assert_eq!(
            lines.last().map(String::as_str),
            Some("Click or Enter to zoom in")
        );
        assert!(tooltip(&t, &m, &fit, 50.0, Tip::Range(a.first, a.last + 1)).is_none());
    }
}
