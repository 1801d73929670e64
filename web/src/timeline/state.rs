//! The live timeline's state and how its events change it, as plain functions of the table's
//! [`Model`] (unit-tested natively). The component ([`super::component`]) turns DOM events into
//! [`Action`]s, keeps the state in a reducer and renders it.

use std::rc::Rc;

use yew::Reducible;

use super::layout::{aggregates, Model, TabStop, View, MIN_SPAN};

/// A snapshot or an aggregate `first..=last`: what an event's target stands for, and what the
/// tooltip describes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tip {
    /// A snapshot mark.
    Snapshot(i64),
    /// An aggregate of the snapshots `first..=last` of one lane.
    Range(i64, i64),
}

/// Keyboard focus to move to snapshot `id`'s mark once a render shows it; `serial` tells a new
/// request from one the component has already taken up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FocusRequest {
    /// The snapshot.
    pub id: i64,
    /// Counts the requests.
    pub serial: u32,
}

/// What the live timeline shows besides its props.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimelineState {
    /// The shown branch: an index into the props' `branches` (out of range shows the first).
    pub branch: usize,
    /// The visible window; `None` shows the whole timeline.
    pub view: Option<View>,
    /// The snapshot holding the keyboard cursor (the roving tab stop).
    pub active: Option<i64>,
    /// What the tooltip describes.
    pub tip: Option<Tip>,
    /// The latest request to move keyboard focus.
    pub focus: Option<FocusRequest>,
}

/// A key the timeline acts on (see [`key_input`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Key {
    /// Arrow right/left: the next (`1`) or previous (`-1`) snapshot, or aggregate when dense.
    Step(isize),
    /// Arrow up (`-1`) or down (`1`): the nearest snapshot of the neighbouring lane.
    Lane(isize),
    /// Home: the first snapshot.
    First,
    /// End: the last snapshot.
    Last,
    /// Page Up/Down, Shift+arrows: pan by this fraction of the view.
    Pan(f64),
    /// `+` and `-`: zoom by this factor around the cursor.
    Zoom(f64),
    /// Escape: hide the tooltip.
    Hide,
    /// Enter or Space on an aggregate: zoom into it.
    Open(i64, i64),
}

/// What a key press does: change the state, or select a snapshot (the page is told).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyInput {
    /// Apply [`Action::Key`].
    Act(Key),
    /// Enter or Space on a snapshot mark: select it.
    Select(i64),
}

/// The key `key` (a `KeyboardEvent.key`) with Shift held or not, on `target`, while the
/// tooltip shows or not; `None` when the timeline leaves the key alone.
pub fn key_input(key: &str, shift: bool, target: Option<Tip>, tip_shown: bool) -> Option<KeyInput> {
    let act = |k| Some(KeyInput::Act(k));
    match key {
        "ArrowRight" if shift => act(Key::Pan(0.25)),
        "ArrowLeft" if shift => act(Key::Pan(-0.25)),
        "ArrowRight" => act(Key::Step(1)),
        "ArrowLeft" => act(Key::Step(-1)),
        "ArrowUp" => act(Key::Lane(-1)),
        "ArrowDown" => act(Key::Lane(1)),
        "Home" => act(Key::First),
        "End" => act(Key::Last),
        "Escape" if tip_shown => act(Key::Hide),
        "PageDown" => act(Key::Pan(0.8)),
        "PageUp" => act(Key::Pan(-0.8)),
        "+" | "=" => act(Key::Zoom(1.0 / 1.6)),
        "-" | "_" => act(Key::Zoom(1.6)),
        "Enter" | " " => match target? {
            Tip::Range(a, b) => act(Key::Open(a, b)),
            Tip::Snapshot(id) => Some(KeyInput::Select(id)),
        },
        _ => None,
    }
}

/// How the state changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// A new table or branch: the whole timeline, no cursor, no tooltip.
    Reset,
    /// Show branch `k` (the selector, or the page's `branch` prop).
    Branch(usize),
    /// Focus from a finding: zoom to snapshot `id` from view `from` (the view when the page
    /// asked), put the cursor and the tooltip on it and move keyboard focus to it. An id
    /// inside the domain that is no snapshot (a gap's) is only revealed.
    Reveal {
        /// The snapshot.
        id: i64,
        /// The view to start from (`None`: the whole timeline).
        from: Option<View>,
    },
    /// A click on a mark (the cursor goes to it) or an aggregate (zooms into it).
    Click(Tip),
    /// The pointer is over a mark or an aggregate: its tooltip.
    Hover(Tip),
    /// Keyboard focus entered a mark (the cursor goes to it) or an aggregate (the cursor goes
    /// to its first snapshot unless already inside): its tooltip.
    FocusIn(Tip),
    /// The pointer left a mark, or keyboard focus left one: no tooltip.
    Unhover,
    /// A key, with the tab stop of the render it was pressed in.
    Key(Key, Option<TabStop>),
    /// The zoom buttons: zoom by `factor` around the cursor when it is in view, else the centre.
    ZoomBy(f64),
    /// The pan buttons: pan by this fraction of the view.
    PanBy(f64),
    /// The Fit button: the whole timeline.
    Fit,
    /// Ctrl+wheel: zoom by `factor` around the id at `x` drawing units.
    WheelZoom {
        /// The zoom factor.
        factor: f64,
        /// The pointer, in drawing units.
        x: f64,
    },
    /// Shift+wheel or a horizontal wheel: pan by this many drawing units.
    WheelPan(f64),
    /// A drag that began with the view at `start`, now moved by `units` drawing units (the
    /// view moves the other way).
    Drag {
        /// The view's start when the drag began.
        start: f64,
        /// How far the view moves, in drawing units.
        units: f64,
    },
}

/// A view showing ids `a..=b` with some room around.
pub fn range_view(a: i64, b: i64, m: &Model) -> View {
    let span = ((b - a + 1) as f64 * 1.2).max(MIN_SPAN);
    View::around((a + b) as f64 / 2.0, span, m)
}

/// Keeps `id` inside `view` by panning only.
pub fn ensure_visible(view: View, id: i64, m: &Model) -> View {
    let x = id as f64;
    if x - 0.5 < view.start || x + 0.5 > view.start + view.span {
        View::around(x, view.span, m)
    } else {
        view
    }
}

/// What the component remembers of keyboard focus requests between renders (outside the
/// state: it changes on each render without causing one).
#[derive(Debug, Default)]
pub struct FocusTries {
    /// The serial of the request last taken up.
    taken: Option<u32>,
    /// The snapshot to focus and the renders left to try.
    pending: Option<(i64, u8)>,
}

impl FocusTries {
    /// After a render whose tab stop is `stop`, with the state's latest `request`: whether to
    /// move keyboard focus to the tab stop now. A new request waits three renders at most for
    /// its snapshot to hold the tab stop (its aggregate's, when dense).
    pub fn after_render(&mut self, request: Option<FocusRequest>, stop: Option<TabStop>) -> bool {
        if let Some(r) = request.filter(|r| self.taken != Some(r.serial)) {
            self.taken = Some(r.serial);
            self.pending = Some((r.id, 3));
        }
        let Some((target, tries)) = self.pending else {
            return false;
        };
        let here = match stop {
            Some(TabStop::Snapshot(id)) => id == target,
            Some(TabStop::Range(a, b)) => a <= target && target <= b,
            None => false,
        };
        self.pending = if here {
            None
        } else {
            tries
                .checked_sub(1)
                .map(|t| (target, t))
                .filter(|p| p.1 > 0)
        };
        here
    }
}

impl TimelineState {
    /// The visible window (the whole timeline when none is set), inside the domain.
    pub fn view(&self, m: &Model) -> View {
        self.view.unwrap_or_else(|| View::fit(m)).clamp(m)
    }

    /// The state after `action` on a table whose model is `m`.
    pub fn apply(&self, m: &Model, action: Action) -> TimelineState {
        let mut s = self.clone();
        let view = self.view(m);
        match action {
            Action::Reset => {
                s.view = None;
                s.active = None;
                s.tip = None;
            }
            Action::Branch(k) => s.branch = k,
            Action::Reveal { id, from } => return self.reveal(m, id, from),
            Action::Click(Tip::Snapshot(id)) => s.active = Some(id),
            Action::Click(Tip::Range(a, b)) => s.view = Some(range_view(a, b, m)),
            Action::Hover(t) => s.tip = Some(t),
            Action::FocusIn(Tip::Snapshot(id)) => {
                s.active = Some(id);
                s.tip = Some(Tip::Snapshot(id));
            }
            Action::FocusIn(Tip::Range(a, b)) => {
                if !s.active.is_some_and(|id| a <= id && id <= b) && m.index_of(a).is_some() {
                    s.active = Some(a);
                }
                s.tip = Some(Tip::Range(a, b));
            }
            Action::Unhover => s.tip = None,
            Action::Key(key, stop) => return self.key(m, key, stop),
            Action::ZoomBy(factor) => {
                let c = self.active.map_or(view.center(), |a| {
                    let x = a as f64;
                    if x >= view.start && x <= view.start + view.span {
                        x
                    } else {
                        view.center()
                    }
                });
                s.view = Some(view.zoom(factor, c, m));
            }
            Action::PanBy(fraction) => s.view = Some(view.pan(view.span * fraction, m)),
            Action::Fit => s.view = Some(View::fit(m)),
            Action::WheelZoom { factor, x } => {
                s.view = Some(view.zoom(factor, view.id_at(x), m));
            }
            Action::WheelPan(units) => s.view = Some(view.pan(units / view.px_per_id(), m)),
            Action::Drag { start, units } => {
                let v = View {
                    start: start + units / view.px_per_id(),
                    span: view.span,
                };
                s.view = Some(v.clamp(m));
            }
        }
        s
    }

    /// A new keyboard focus request for `id`.
    fn focus_on(&self, id: i64) -> Option<FocusRequest> {
        let serial = self.focus.map_or(0, |f| f.serial.wrapping_add(1));
        Some(FocusRequest { id, serial })
    }

    /// [`Action::Reveal`].
    fn reveal(&self, m: &Model, id: i64, from: Option<View>) -> TimelineState {
        let mut s = self.clone();
        let v = from.unwrap_or_else(|| View::fit(m)).clamp(m);
        if m.index_of(id).is_some() {
            s.view = Some(v.reveal(id, m));
            s.active = Some(id);
            s.tip = Some(Tip::Snapshot(id));
            s.focus = self.focus_on(id);
        } else if (m.domain.0..=m.domain.1).contains(&(id as f64)) {
            s.view = Some(v.reveal(id, m));
        }
        s
    }

    /// [`Action::Key`]: `stop` is the tab stop of the render the key was pressed in.
    fn key(&self, m: &Model, key: Key, stop: Option<TabStop>) -> TimelineState {
        let mut s = self.clone();
        let view = self.view(m);
        let cur = self.cursor(&view, stop);
        let target = match key {
            Key::Step(delta) => step(m, &view, cur, delta),
            Key::Lane(dir) => cur.and_then(|c| m.lane_step(c, dir)),
            Key::First => m.ids.first().copied(),
            Key::Last => m.ids.last().copied(),
            Key::Pan(fraction) => {
                s.view = Some(view.pan(view.span * fraction, m));
                return s;
            }
            Key::Zoom(factor) => {
                let c = cur.map_or(view.center(), |c| c as f64);
                s.view = Some(view.zoom(factor, c, m));
                if let Some(c) = cur {
                    s.active = Some(c);
                    s.focus = self.focus_on(c);
                }
                return s;
            }
            Key::Hide => {
                s.tip = None;
                return s;
            }
            Key::Open(a, b) => {
                s.view = Some(range_view(a, b, m));
                let id = cur.filter(|c| a <= *c && *c <= b).unwrap_or(a);
                s.active = Some(id);
                s.focus = self.focus_on(id);
                return s;
            }
        };
        // A move: the cursor, the tooltip and keyboard focus go to the target, kept in view.
        if let Some(id) = target {
            s.active = Some(id);
            s.tip = Some(Tip::Snapshot(id));
            s.view = Some(ensure_visible(view, id, m));
            s.focus = self.focus_on(id);
        }
        s
    }

    /// The keyboard cursor: the active snapshot while it is in `view`, else the tab stop.
    fn cursor(&self, view: &View, stop: Option<TabStop>) -> Option<i64> {
        let in_view = |id: &i64| {
            let x = *id as f64;
            x >= view.start - 0.5 && x <= view.start + view.span + 0.5
        };
        self.active.filter(in_view).or(match stop {
            Some(TabStop::Snapshot(id)) => Some(id),
            Some(TabStop::Range(a, _)) => Some(a),
            None => None,
        })
    }
}

/// The snapshot `delta` steps from the cursor `cur`: by id, or when `view` is dense from
/// aggregate to aggregate of the cursor's lane (past its last one: the next snapshot outside
/// the view).
pub fn step(m: &Model, view: &View, cur: Option<i64>, delta: isize) -> Option<i64> {
    if !m.dense(view) {
        return m.step(cur, delta);
    }
    let aggs = aggregates(m, view);
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
}

/// An [`Action`] on the table whose model is `model` (the reducer's message).
pub struct Msg(pub Rc<Model>, pub Action);

impl Reducible for TimelineState {
    type Action = Msg;

    /// The state after the action; the same `Rc` (no render) when nothing changed.
    fn reduce(self: Rc<Self>, Msg(m, action): Msg) -> Rc<Self> {
        let next = self.apply(&m, action);
        if next == *self {
            self
        } else {
            Rc::new(next)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::{aggregates, Model, TabStop, View, MIN_SPAN};
    use super::super::sample;
    use super::*;

    fn model(n: usize) -> Model {
        Model::new(&sample::table(n))
    }

    /// The state showing `view` with the cursor on `active`.
    fn at(view: View, active: Option<i64>) -> TimelineState {
        TimelineState {
            view: Some(view),
            active,
            ..TimelineState::default()
        }
    }

    fn close(a: View, b: View) -> bool {
        (a.start - b.start).abs() < 1e-9 && (a.span - b.span).abs() < 1e-9
    }

    #[test]
    fn the_default_shows_the_whole_timeline() {
        let m = model(300);
        let s = TimelineState::default();
        assert_eq!(s.view(&m), View::fit(&m));
        assert_eq!((s.branch, s.active, s.tip, s.focus), (0, None, None, None));
    }

    #[test]
    fn reset_forgets_view_cursor_and_tooltip_but_not_the_branch() {
        let m = model(300);
        let mut s = at(View::around(100.0, 20.0, &m), Some(100));
        s.tip = Some(Tip::Snapshot(100));
        s.branch = 1;
        let r = s.apply(&m, Action::Reset);
        assert_eq!((r.view, r.active, r.tip, r.branch), (None, None, None, 1));
        assert_eq!(s.apply(&m, Action::Branch(2)).branch, 2);
    }

    #[test]
    fn reveal_zooms_to_a_snapshot_and_asks_for_focus() {
        let m = model(10_000);
        let s = TimelineState::default().apply(
            &m,
            Action::Reveal {
                id: 5_000,
                from: None,
            },
        );
        let v = s.view(&m);
        assert_eq!(s.view, Some(View::fit(&m).reveal(5_000, &m)));
        assert!(!m.dense(&v) && v.start < 5_000.0 && 5_000.0 < v.start + v.span);
        assert_eq!(s.active, Some(5_000));
        assert_eq!(s.tip, Some(Tip::Snapshot(5_000)));
        assert_eq!(
            s.focus,
            Some(FocusRequest {
                id: 5_000,
                serial: 0
            })
        );
        // Again: a new request.
        let again = s.apply(
            &m,
            Action::Reveal {
                id: 5_000,
                from: s.view,
            },
        );
        assert_eq!(again.focus.map(|f| f.serial), Some(1));
        // From a view that already shows it: unchanged.
        let shown = View::around(5_000.0, 40.0, &m);
        let s = TimelineState::default().apply(
            &m,
            Action::Reveal {
                id: 5_000,
                from: Some(shown),
            },
        );
        assert_eq!(s.view, Some(shown));
    }

    #[test]
    fn reveal_of_a_missing_id_only_moves_the_view() {
        let mut t = sample::table(10_000);
        t.snapshots.retain(|s| s.id != 6_000);
        let m = Model::new(&t);
        let s = TimelineState::default().apply(
            &m,
            Action::Reveal {
                id: 6_000,
                from: None,
            },
        );
        assert_eq!(s.view, Some(View::fit(&m).reveal(6_000, &m)));
        assert_eq!((s.active, s.tip, s.focus), (None, None, None));
        // Outside the domain: nothing.
        let s = TimelineState::default().apply(
            &m,
            Action::Reveal {
                id: 99_999,
                from: None,
            },
        );
        assert_eq!(s, TimelineState::default());
    }

    #[test]
    fn clicks_select_marks_and_zoom_into_aggregates() {
        let m = model(1_000);
        let s = TimelineState::default().apply(&m, Action::Click(Tip::Snapshot(40)));
        assert_eq!((s.active, s.view), (Some(40), None));
        let s = s.apply(&m, Action::Click(Tip::Range(100, 130)));
        assert_eq!(s.view, Some(range_view(100, 130, &m)));
        assert!(close(s.view(&m), View::around(115.0, 31.0 * 1.2, &m)));
        assert_eq!(s.active, Some(40));
        // A small range still shows MIN_SPAN ids.
        assert!((range_view(7, 7, &m).span - MIN_SPAN).abs() < 1e-9);
    }

    #[test]
    fn hover_and_focus_set_the_tooltip_and_the_cursor() {
        let m = model(1_000);
        let s = TimelineState::default().apply(&m, Action::Hover(Tip::Range(3, 9)));
        assert_eq!((s.tip, s.active), (Some(Tip::Range(3, 9)), None));
        assert_eq!(s.apply(&m, Action::Unhover).tip, None);
        let s = s.apply(&m, Action::FocusIn(Tip::Snapshot(12)));
        assert_eq!((s.tip, s.active), (Some(Tip::Snapshot(12)), Some(12)));
        // Into an aggregate: the cursor stays when inside it, else goes to its first snapshot.
        let inside = s.apply(&m, Action::FocusIn(Tip::Range(10, 20)));
        assert_eq!(
            (inside.tip, inside.active),
            (Some(Tip::Range(10, 20)), Some(12))
        );
        let outside = s.apply(&m, Action::FocusIn(Tip::Range(30, 40)));
        assert_eq!(outside.active, Some(30));
        // An aggregate whose first id is no snapshot: the cursor stays.
        let none = s.apply(&m, Action::FocusIn(Tip::Range(5_000, 5_010)));
        assert_eq!(none.active, Some(12));
    }

    #[test]
    fn arrows_step_by_id_and_keep_the_target_in_view() {
        let m = model(1_000);
        let v = View {
            start: 100.0,
            span: 50.0,
        };
        assert!(!m.dense(&v));
        // No cursor: from the tab stop.
        let s = at(v, None).apply(&m, Action::Key(Key::Step(1), Some(TabStop::Snapshot(100))));
        assert_eq!((s.active, s.tip), (Some(101), Some(Tip::Snapshot(101))));
        assert_eq!(s.view, Some(v));
        assert_eq!(s.focus.map(|f| f.id), Some(101));
        // At the edge: the view pans to keep it in.
        let s = at(v, Some(150)).apply(&m, Action::Key(Key::Step(1), None));
        assert_eq!(s.active, Some(151));
        assert_eq!(s.view, Some(View::around(151.0, 50.0, &m)));
        // A cursor out of view is ignored for the tab stop.
        let s =
            at(v, Some(900)).apply(&m, Action::Key(Key::Step(-1), Some(TabStop::Snapshot(120))));
        assert_eq!(s.active, Some(119));
    }

    #[test]
    fn arrows_step_by_aggregate_when_dense() {
        let m = model(10_000);
        let v = View::fit(&m);
        assert!(m.dense(&v));
        let aggs = aggregates(&m, &v);
        let lane = m.lane[m.index_of(3).unwrap()];
        let of_lane: Vec<_> = aggs.iter().filter(|a| a.lane == lane).collect();
        let s = at(v, Some(3)).apply(&m, Action::Key(Key::Step(1), None));
        assert_eq!(s.active, Some(of_lane[1].first));
        assert_eq!(step(&m, &v, Some(3), 1), Some(of_lane[1].first));
        // No cursor: the first aggregate.
        assert_eq!(step(&m, &v, None, 1), Some(aggs[0].first));
        // Past the lane's last aggregate of a zoomed view: the next snapshot outside it.
        let z = View {
            start: 2_000.0,
            span: 1_000.0,
        };
        assert!(m.dense(&z));
        let last = aggregates(&m, &z)
            .into_iter()
            .rfind(|a| a.lane == lane)
            .unwrap();
        let next = m.ids[m.ids.partition_point(|&id| (id as f64) < 3_000.0)];
        assert_eq!(step(&m, &z, Some(last.first), 1), Some(next));
    }

    #[test]
    fn other_moves_lane_home_and_end() {
        let m = model(40);
        let v = View::fit(&m);
        let s = at(v, Some(9));
        assert_eq!(
            s.apply(&m, Action::Key(Key::Lane(1), None)).active,
            Some(10)
        );
        assert_eq!(
            s.apply(&m, Action::Key(Key::Lane(-1), None)).active,
            Some(9)
        );
        assert_eq!(s.apply(&m, Action::Key(Key::First, None)).active, Some(3));
        assert_eq!(s.apply(&m, Action::Key(Key::Last, None)).active, Some(42));
        // Up from the top lane: nowhere to go, nothing changes.
        assert_eq!(s.apply(&m, Action::Key(Key::Lane(-1), None)).focus, None);
    }

    #[test]
    fn keys_pan_zoom_hide_and_open() {
        let m = model(1_000);
        let v = View {
            start: 400.0,
            span: 100.0,
        };
        let s = at(v, Some(420));
        let p = s.apply(&m, Action::Key(Key::Pan(0.8), None));
        assert_eq!(p.view, Some(v.pan(80.0, &m)));
        assert_eq!(p.active, Some(420));
        let p = s.apply(&m, Action::Key(Key::Pan(-0.25), None));
        assert_eq!(p.view, Some(v.pan(-25.0, &m)));
        // Zoom around the cursor, which keeps focus.
        let z = s.apply(&m, Action::Key(Key::Zoom(1.0 / 1.6), None));
        assert_eq!(z.view, Some(v.zoom(1.0 / 1.6, 420.0, &m)));
        assert_eq!((z.active, z.focus.map(|f| f.id)), (Some(420), Some(420)));
        // No cursor: around the centre.
        let z = at(v, None).apply(&m, Action::Key(Key::Zoom(1.6), None));
        assert_eq!(z.view, Some(v.zoom(1.6, 450.0, &m)));
        assert_eq!((z.active, z.focus), (None, None));
        // Escape hides the tooltip.
        let mut t = s.clone();
        t.tip = Some(Tip::Snapshot(420));
        assert_eq!(t.apply(&m, Action::Key(Key::Hide, None)).tip, None);
        // Enter on an aggregate zooms into it, the cursor inside it or on its first snapshot.
        let o = s.apply(&m, Action::Key(Key::Open(410, 430), None));
        assert_eq!(o.view, Some(range_view(410, 430, &m)));
        assert_eq!((o.active, o.focus.map(|f| f.id)), (Some(420), Some(420)));
        let o = s.apply(&m, Action::Key(Key::Open(440, 460), None));
        assert_eq!(o.active, Some(440));
    }

    #[test]
    fn buttons_zoom_around_the_cursor_pan_and_fit() {
        let m = model(1_000);
        let v = View {
            start: 400.0,
            span: 100.0,
        };
        let z = at(v, Some(420)).apply(&m, Action::ZoomBy(0.5));
        assert_eq!(z.view, Some(v.zoom(0.5, 420.0, &m)));
        // A cursor out of view: around the centre.
        let z = at(v, Some(900)).apply(&m, Action::ZoomBy(0.5));
        assert_eq!(z.view, Some(v.zoom(0.5, 450.0, &m)));
        let p = at(v, None).apply(&m, Action::PanBy(-0.5));
        assert_eq!(p.view, Some(v.pan(-50.0, &m)));
        assert_eq!(at(v, None).apply(&m, Action::Fit).view, Some(View::fit(&m)));
    }

    #[test]
    fn wheel_and_drag_move_the_view() {
        let m = model(1_000);
        let v = View {
            start: 400.0,
            span: 100.0,
        };
        // Zooming keeps the id under the pointer where it is.
        let x = v.x(430.0);
        let z = at(v, None).apply(&m, Action::WheelZoom { factor: 0.5, x });
        assert!((z.view(&m).x(430.0) - x).abs() < 1e-6);
        assert!((z.view(&m).span - 50.0).abs() < 1e-9);
        // Panning by drawing units: px_per_id units are one id.
        let p = at(v, None).apply(&m, Action::WheelPan(v.px_per_id() * 10.0));
        assert!(close(p.view(&m), v.pan(10.0, &m)));
        // A drag moves from the view where it began.
        let d = at(v.pan(30.0, &m), None).apply(
            &m,
            Action::Drag {
                start: 400.0,
                units: -v.px_per_id() * 5.0,
            },
        );
        assert!(close(d.view(&m), v.pan(-5.0, &m)));
    }

    #[test]
    fn keys_map_to_actions() {
        let act = |k| Some(KeyInput::Act(k));
        assert_eq!(
            key_input("ArrowRight", false, None, false),
            act(Key::Step(1))
        );
        assert_eq!(
            key_input("ArrowLeft", false, None, false),
            act(Key::Step(-1))
        );
        assert_eq!(
            key_input("ArrowRight", true, None, false),
            act(Key::Pan(0.25))
        );
        assert_eq!(
            key_input("ArrowLeft", true, None, false),
            act(Key::Pan(-0.25))
        );
        assert_eq!(key_input("ArrowUp", true, None, false), act(Key::Lane(-1)));
        assert_eq!(
            key_input("ArrowDown", false, None, false),
            act(Key::Lane(1))
        );
        assert_eq!(key_input("Home", false, None, false), act(Key::First));
        assert_eq!(key_input("End", false, None, false), act(Key::Last));
        assert_eq!(
            key_input("PageDown", false, None, false),
            act(Key::Pan(0.8))
        );
        assert_eq!(key_input("PageUp", false, None, false), act(Key::Pan(-0.8)));
        for k in ["+", "="] {
            assert_eq!(key_input(k, false, None, false), act(Key::Zoom(1.0 / 1.6)));
        }
        for k in ["-", "_"] {
            assert_eq!(key_input(k, false, None, false), act(Key::Zoom(1.6)));
        }
        // Escape only while the tooltip shows.
        assert_eq!(key_input("Escape", false, None, true), act(Key::Hide));
        assert_eq!(key_input("Escape", false, None, false), None);
        // Enter and Space: on a mark, select; on an aggregate, open; elsewhere nothing.
        for k in ["Enter", " "] {
            let mark = Some(Tip::Snapshot(7));
            assert_eq!(key_input(k, false, mark, false), Some(KeyInput::Select(7)));
            let agg = Some(Tip::Range(3, 9));
            assert_eq!(key_input(k, false, agg, false), act(Key::Open(3, 9)));
            assert_eq!(key_input(k, false, None, false), None);
        }
        assert_eq!(key_input("a", false, None, false), None);
        assert_eq!(key_input("Tab", false, None, false), None);
    }

    #[test]
    fn focus_moves_once_the_tab_stop_is_there_within_three_renders() {
        let req = |id, serial| Some(FocusRequest { id, serial });
        let mut f = FocusTries::default();
        assert!(!f.after_render(None, Some(TabStop::Snapshot(7))));
        // Found at once.
        assert!(f.after_render(req(7, 0), Some(TabStop::Snapshot(7))));
        // The same request is not taken up again.
        assert!(!f.after_render(req(7, 0), Some(TabStop::Snapshot(7))));
        // A new one, found in an aggregate on the third render.
        assert!(!f.after_render(req(50, 1), Some(TabStop::Snapshot(7))));
        assert!(!f.after_render(req(50, 1), None));
        assert!(f.after_render(req(50, 1), Some(TabStop::Range(40, 60))));
        // Given up after three renders.
        let mut f = FocusTries::default();
        for _ in 0..3 {
            assert!(!f.after_render(req(9, 4), None));
        }
        assert!(!f.after_render(req(9, 4), Some(TabStop::Snapshot(9))));
    }

    #[test]
    fn the_reducer_renders_only_on_change() {
        let m = Rc::new(model(100));
        let s = Rc::new(TimelineState::default());
        let same = s.clone().reduce(Msg(m.clone(), Action::Unhover));
        assert!(Rc::ptr_eq(&s, &same));
        let moved = s.clone().reduce(Msg(m, Action::Click(Tip::Snapshot(5))));
        assert!(!Rc::ptr_eq(&s, &moved));
        assert_eq!(moved.active, Some(5));
    }
}
