//! The timeline's layout, as plain logic: lanes, the id scale, the visible window, binning of
//! dense ranges, label stacking, keyboard navigation, and the drawing itself as a [`Node`] tree.
//! Nothing here touches the DOM, so all of it is unit-tested natively.
//!
//! Coordinates are SVG user units in a `viewBox` [`WIDTH`] wide (the page scales it to its
//! width). The x axis is the snapshot id: id `n` is drawn at the centre of the slot
//! `[n - 0.5, n + 0.5]`.

use std::collections::HashMap;

use prv::report::model::{Code, ConsumerVerdict, SparkCheckpointVerdict, TableReport};

use super::node::{fmt_num, Node};

/// Width of the drawing (the `viewBox` width).
pub const WIDTH: f64 = 1000.0;
/// Left gutter for the lane labels.
pub const GUTTER: f64 = 132.0;
/// Right margin.
pub const RIGHT: f64 = 16.0;
/// Width of the plotting area.
pub const PLOT_W: f64 = WIDTH - GUTTER - RIGHT;
/// Individual marks are drawn only when every visible snapshot gets at least this many units.
pub const MIN_MARK_PX: f64 = 4.0;
/// The narrowest aggregate bin.
pub const BIN_PX: f64 = 6.0;
/// At most this many aggregates are drawn (over all lanes together).
pub const MAX_AGGREGATES: usize = 1200;
/// At most this many lanes; the least active commit users beyond are folded into one lane.
pub const MAX_LANES: usize = 16;
/// Height of one lane.
pub const LANE_H: f64 = 26.0;
/// Height of the axis row.
pub const AXIS_H: f64 = 22.0;
/// Height of one row of markers or flags.
pub const ROW_H: f64 = 18.0;
/// Rows of markers (tags, hints, earliest/latest) above the lanes.
pub const MAX_MARKER_ROWS: usize = 3;
/// Rows of flags (consumers, Spark and Ray checkpoints) below the lanes.
pub const MAX_FLAG_ROWS: usize = 4;
/// Estimated width of one character of an 11-unit label.
pub const CHAR_W: f64 = 6.3;
/// Visible tags above which tags are counted per bin instead of labelled one by one.
pub const MAX_TAG_LABELS: usize = 40;
/// The smallest visible span, in ids.
pub const MIN_SPAN: f64 = 8.0;

/// A snapshot's commit kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `APPEND`: a writer's new data (and, with `input`, its changelog).
    Append,
    /// `COMPACT`: compaction (and, with `lookup`/`full-compaction`, the changelog).
    Compact,
    /// `OVERWRITE`: `INSERT OVERWRITE` or a delete of partitions.
    Overwrite,
    /// `ANALYZE`: statistics only.
    Analyze,
    /// Anything a newer Paimon wrote.
    Other,
}

impl Kind {
    /// Every kind, in legend order.
    pub const ALL: [Kind; 5] = [
        Kind::Append,
        Kind::Compact,
        Kind::Overwrite,
        Kind::Analyze,
        Kind::Other,
    ];

    /// From the snapshot's `commitKind`.
    pub fn parse(s: &str) -> Kind {
        match s {
            "APPEND" => Kind::Append,
            "COMPACT" => Kind::Compact,
            "OVERWRITE" => Kind::Overwrite,
            "ANALYZE" => Kind::Analyze,
            _ => Kind::Other,
        }
    }

    /// The name Paimon writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Append => "APPEND",
            Kind::Compact => "COMPACT",
            Kind::Overwrite => "OVERWRITE",
            Kind::Analyze => "ANALYZE",
            Kind::Other => "OTHER",
        }
    }

    /// The CSS class that colours it.
    pub fn class(self) -> &'static str {
        match self {
            Kind::Append => "tl-append",
            Kind::Compact => "tl-compact",
            Kind::Overwrite => "tl-overwrite",
            Kind::Analyze => "tl-analyze",
            Kind::Other => "tl-other",
        }
    }

    /// The light-theme colour, as a presentation attribute (CSS overrides it per theme).
    pub fn fill(self) -> &'static str {
        match self {
            Kind::Append => "#2f81f7",
            Kind::Compact => "#8250df",
            Kind::Overwrite => "#bc4c00",
            Kind::Analyze => "#6e7781",
            Kind::Other => "#ffffff",
        }
    }

    /// The shape of a mark of this kind centred at `(x, y)` with radius `r`.
    pub fn shape(self, x: f64, y: f64, r: f64) -> Node {
        match self {
            Kind::Append => Node::new("circle").num("cx", x).num("cy", y).num("r", r),
            Kind::Compact => Node::new("rect")
                .num("x", x - r * 0.9)
                .num("y", y - r * 0.9)
                .num("width", r * 1.8)
                .num("height", r * 1.8),
            Kind::Overwrite => Node::new("path").attr(
                "d",
                format!(
                    "M{} {}L{} {}L{} {}L{} {}Z",
                    fmt_num(x),
                    fmt_num(y - r * 1.2),
                    fmt_num(x + r * 1.2),
                    fmt_num(y),
                    fmt_num(x),
                    fmt_num(y + r * 1.2),
                    fmt_num(x - r * 1.2),
                    fmt_num(y)
                ),
            ),
            Kind::Analyze => Node::new("path").attr(
                "d",
                format!(
                    "M{} {}L{} {}L{} {}Z",
                    fmt_num(x),
                    fmt_num(y - r * 1.1),
                    fmt_num(x + r * 1.1),
                    fmt_num(y + r * 0.9),
                    fmt_num(x - r * 1.1),
                    fmt_num(y + r * 0.9)
                ),
            ),
            Kind::Other => Node::new("circle")
                .num("cx", x)
                .num("cy", y)
                .num("r", r * 0.85),
        }
    }
}

/// Flag bit: the snapshot's changelog was lost (`lost-changelog`).
pub const LOST: u8 = 1;
/// Flag bit: the snapshot's changelog is not produced yet (`pending-changelog`).
pub const PENDING: u8 = 2;
/// Flag bit: another finding names the snapshot.
pub const OTHER_FINDING: u8 = 4;

/// What the layout needs of one table, prepared once per table (the page memoizes it).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Snapshot ids, ascending.
    pub ids: Vec<i64>,
    /// Index into `TableReport::snapshots` of each id.
    pub src: Vec<usize>,
    /// Lane of each id.
    pub lane: Vec<usize>,
    /// Kind of each id.
    pub kind: Vec<Kind>,
    /// [`LOST`] / [`PENDING`] / [`OTHER_FINDING`] bits of each id.
    pub flags: Vec<u8>,
    /// Lane labels (commit users, by first commit; a folded lane last).
    pub lanes: Vec<String>,
    /// Indices (into `ids`) of each lane's snapshots, ascending.
    pub members: Vec<Vec<usize>>,
    /// The id range drawn when zoomed out fully (every position of interest, padded).
    pub domain: (f64, f64),
}

/// The [`LOST`] / [`PENDING`] / [`OTHER_FINDING`] bits of each snapshot a finding names.
fn flags_by_snapshot(table: &TableReport) -> HashMap<i64, u8> {
    let mut flag_of: HashMap<i64, u8> = HashMap::new();
    for f in &table.findings {
        if let Some(id) = f.snapshot {
            let bit = match f.code {
                Code::LostChangelog => LOST,
                Code::PendingChangelog => PENDING,
                _ => OTHER_FINDING,
            };
            *flag_of.entry(id).or_default() |= bit;
        }
    }
    flag_of
}

/// The lanes of a table: one per commit user, in order of first commit; past [`MAX_LANES`],
/// the most active users keep theirs and the rest share a folded lane, last.
struct Lanes<'t> {
    /// Lane labels.
    labels: Vec<String>,
    /// The lane of each user that has one (the others are on the folded lane).
    of_user: HashMap<&'t str, usize>,
}

impl<'t> Lanes<'t> {
    /// The lanes of `table`, whose snapshots `order` lists by id.
    fn of(table: &'t TableReport, order: &[usize]) -> Lanes<'t> {
        let mut users: Vec<(&str, usize, usize)> = Vec::new(); // (user, first position, count)
        let mut user_ix: HashMap<&str, usize> = HashMap::new();
        for (pos, &i) in order.iter().enumerate() {
            if let Some(s) = table.snapshots.get(i) {
                let u = s.commit_user.as_str();
                match user_ix.get(u) {
                    Some(&k) => {
                        if let Some(e) = users.get_mut(k) {
                            e.2 += 1;
                        }
                    }
                    None => {
                        user_ix.insert(u, users.len());
                        users.push((u, pos, 1));
                    }
                }
            }
        }
        let mut lanes = Lanes {
            labels: Vec::new(),
            of_user: HashMap::new(),
        };
        if users.len() <= MAX_LANES {
            for (u, _, _) in &users {
                lanes.of_user.insert(u, lanes.labels.len());
                lanes.labels.push((*u).to_string());
            }
        } else {
            let mut by_count = users.clone();
            by_count.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.cmp(&b.1)));
            let mut kept: Vec<(&str, usize, usize)> =
                by_count.iter().take(MAX_LANES - 1).copied().collect();
            kept.sort_by_key(|u| u.1);
            for (u, _, _) in &kept {
                lanes.of_user.insert(u, lanes.labels.len());
                lanes.labels.push((*u).to_string());
            }
            lanes
                .labels
                .push(format!("{} other commit users", users.len() - kept.len()));
        }
        lanes
    }
}

/// The id range drawn when zoomed out fully: every position the drawing shows (snapshots
/// `ids`, the table's ends and hints, consumers, tags, long-lived changelogs, engine
/// checkpoints), padded, at least [`MIN_SPAN`] wide.
fn domain(table: &TableReport, ids: &[i64]) -> (f64, f64) {
    let mut points: Vec<i64> = Vec::new();
    points.extend(ids.first());
    points.extend(ids.last());
    points.extend(table.earliest);
    points.extend(table.latest);
    points.extend(table.hints.earliest);
    points.extend(table.hints.latest);
    points.extend(table.consumers.iter().filter_map(|c| c.next_snapshot));
    points.extend(table.tags.iter().filter_map(|t| t.snapshot));
    if let Some(r) = table.long_lived_changelogs {
        points.push(r.first);
        points.push(r.last);
    }
    for s in &table.spark_checkpoints {
        points.extend(spark_position(s));
        points.extend(s.planned_offset.map(|o| o.snapshot_id));
    }
    for r in &table.ray_checkpoints {
        points.extend(ray_snapshot(r.generation_marker.as_deref()));
    }
    let (Some(lo), Some(hi)) = (points.iter().min(), points.iter().max()) else {
        return (0.0, 1.0);
    };
    let (lo, hi) = (*lo as f64, *hi as f64);
    let pad = ((hi - lo) * 0.02).max(1.0);
    if (hi + pad) - (lo - pad) < MIN_SPAN {
        let c = (lo + hi) / 2.0;
        return (c - MIN_SPAN / 2.0, c + MIN_SPAN / 2.0);
    }
    (lo - pad, hi + pad)
}

fn ray_snapshot(marker: Option<&str>) -> Option<i64> {
    marker?.split(':').next()?.trim().parse().ok()
}

impl Model {
    /// Prepares `table`: its snapshots in id order, each on its commit user's lane, flagged by
    /// the findings that name it, and the id range every position of interest spans.
    pub fn new(table: &TableReport) -> Model {
        let mut order: Vec<usize> = (0..table.snapshots.len()).collect();
        order.sort_by_key(|&i| table.snapshots.get(i).map(|s| s.id));
        let flag_of = flags_by_snapshot(table);
        let Lanes { labels, of_user } = Lanes::of(table, &order);
        let folded = labels.len().saturating_sub(1);
        let mut m = Model {
            ids: Vec::with_capacity(order.len()),
            src: Vec::with_capacity(order.len()),
            lane: Vec::with_capacity(order.len()),
            kind: Vec::with_capacity(order.len()),
            flags: Vec::with_capacity(order.len()),
            members: vec![Vec::new(); labels.len()],
            lanes: labels,
            domain: (0.0, 1.0),
        };
        for &i in &order {
            let Some(s) = table.snapshots.get(i) else {
                continue;
            };
            let lane = of_user
                .get(s.commit_user.as_str())
                .copied()
                .unwrap_or(folded);
            if let Some(list) = m.members.get_mut(lane) {
                list.push(m.ids.len());
            }
            m.ids.push(s.id);
            m.src.push(i);
            m.lane.push(lane);
            m.kind.push(Kind::parse(&s.kind));
            m.flags.push(flag_of.get(&s.id).copied().unwrap_or(0));
        }
        m.domain = domain(table, &m.ids);
        m
    }

    /// The index of snapshot `id`.
    pub fn index_of(&self, id: i64) -> Option<usize> {
        self.ids.binary_search(&id).ok()
    }

    /// Indices `lo..hi` of the snapshots inside `view`.
    pub fn visible(&self, view: &View) -> (usize, usize) {
        let a = view.start - 0.5;
        let b = view.start + view.span + 0.5;
        let lo = self.ids.partition_point(|&id| (id as f64) < a);
        let hi = self.ids.partition_point(|&id| (id as f64) <= b);
        (lo, hi.max(lo))
    }

    /// Whether `view` shows too many snapshots to draw one by one.
    pub fn dense(&self, view: &View) -> bool {
        let (lo, hi) = self.visible(view);
        (hi - lo) as f64 * MIN_MARK_PX > PLOT_W
    }

    /// The snapshot `delta` steps (by id) from `id` (clamped to the first and last).
    pub fn step(&self, id: Option<i64>, delta: isize) -> Option<i64> {
        let last = self.ids.len().checked_sub(1)?;
        let i = match id.and_then(|id| self.index_of(id)) {
            Some(i) => i.saturating_add_signed(delta).min(last),
            None if delta < 0 => last,
            None => 0,
        };
        self.ids.get(i).copied()
    }

    /// The snapshot nearest to `id` in the next non-empty lane above (`dir < 0`) or below.
    pub fn lane_step(&self, id: i64, dir: isize) -> Option<i64> {
        let i = self.index_of(id)?;
        let mut lane = *self.lane.get(i)?;
        loop {
            lane = lane.checked_add_signed(dir)?;
            let members = self.members.get(lane)?;
            if members.is_empty() {
                continue;
            }
            let p = members.partition_point(|&j| j < i);
            let mut best: Option<usize> = None;
            for k in [p.checked_sub(1), Some(p)].into_iter().flatten() {
                if let Some(&j) = members.get(k) {
                    let d = j.abs_diff(i);
                    if best.is_none_or(|b| d < b.abs_diff(i)) {
                        best = Some(j);
                    }
                }
            }
            return best.and_then(|j| self.ids.get(j).copied());
        }
    }
}

/// Where a Spark checkpoint is drawn: the snapshot a restart reads first.
pub fn spark_position(s: &prv::report::model::SparkCheckpointReport) -> Option<i64> {
    s.resume_snapshot
        .or(s.offset.map(|o| o.snapshot_id))
        .or(s.planned_offset.map(|o| o.snapshot_id))
}

/// The visible window: ids `start ..= start + span`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// First visible id (fractional).
    pub start: f64,
    /// Visible ids.
    pub span: f64,
}

impl View {
    /// The whole domain.
    pub fn fit(m: &Model) -> View {
        View {
            start: m.domain.0,
            span: m.domain.1 - m.domain.0,
        }
    }

    /// Centred on `id`, `span` wide (clamped to the domain).
    pub fn around(id: f64, span: f64, m: &Model) -> View {
        View {
            start: id - span / 2.0,
            span,
        }
        .clamp(m)
    }

    /// A view where `id` shows as an individual mark (zoomed in if needed, else unchanged).
    pub fn reveal(self, id: i64, m: &Model) -> View {
        let mut v = self;
        if m.dense(&v) {
            v = View::around(id as f64, (PLOT_W / (MIN_MARK_PX * 4.0)).max(MIN_SPAN), m);
        }
        let x = id as f64;
        if x - 0.5 < v.start || x + 0.5 > v.start + v.span {
            v = View::around(x, v.span, m);
        }
        v
    }

    /// x of id `id`.
    pub fn x(&self, id: f64) -> f64 {
        GUTTER + (id - self.start) / self.span * PLOT_W
    }

    /// The id at x (fractional).
    pub fn id_at(&self, x: f64) -> f64 {
        self.start + (x - GUTTER) / PLOT_W * self.span
    }

    /// Units per id.
    pub fn px_per_id(&self) -> f64 {
        PLOT_W / self.span
    }

    /// Keeps the span within `[MIN_SPAN, domain]` and the window inside the domain.
    pub fn clamp(self, m: &Model) -> View {
        let full = (m.domain.1 - m.domain.0).max(1.0);
        let span = if self.span.is_finite() {
            self.span.clamp(MIN_SPAN.min(full), full)
        } else {
            full
        };
        // `max`: `domain.1 - span` can round below `domain.0` (f64::clamp panics then).
        let start = if self.start.is_finite() {
            self.start
                .clamp(m.domain.0, (m.domain.1 - span).max(m.domain.0))
        } else {
            m.domain.0
        };
        View { start, span }
    }

    /// Zooms by `factor` (< 1 zooms in) keeping id `center` where it is.
    pub fn zoom(self, factor: f64, center: f64, m: &Model) -> View {
        let span = self.span * factor;
        let t = if self.span > 0.0 {
            (center - self.start) / self.span
        } else {
            0.5
        };
        View {
            start: center - t * span,
            span,
        }
        .clamp(m)
    }

    /// Moves by `delta` ids.
    pub fn pan(self, delta: f64, m: &Model) -> View {
        View {
            start: self.start + delta,
            span: self.span,
        }
        .clamp(m)
    }

    /// The centre id.
    pub fn center(&self) -> f64 {
        self.start + self.span / 2.0
    }
}

/// Snapshots of one lane and one bin, drawn as one element when the view is dense.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    /// Lane.
    pub lane: usize,
    /// Bin: ids `bin * width .. (bin + 1) * width`.
    pub bin: i64,
    /// Bin width in ids.
    pub width: i64,
    /// Lowest id present.
    pub first: i64,
    /// Highest id present.
    pub last: i64,
    /// Snapshots.
    pub count: usize,
    /// Snapshots per kind, in [`Kind::ALL`] order.
    pub kinds: [usize; 5],
    /// Union of the snapshots' flags.
    pub flags: u8,
}

impl Aggregate {
    /// The kind most snapshots have.
    pub fn dominant(&self) -> Kind {
        let mut best = (0, Kind::Other);
        for (k, &n) in Kind::ALL.iter().zip(self.kinds.iter()) {
            if n > best.0 {
                best = (n, *k);
            }
        }
        best.1
    }

    /// Summary lines: range and lane, counts by kind, lost or pending changelog.
    pub fn describe(&self, m: &Model) -> Vec<String> {
        let mut lines = vec![
            format!(
                "Snapshots {}–{} of {}",
                self.first,
                self.last,
                m.lanes.get(self.lane).map_or("", String::as_str)
            ),
            format!(
                "{} snapshots: {}",
                self.count,
                Kind::ALL
                    .iter()
                    .zip(self.kinds.iter())
                    .filter(|(_, &n)| n > 0)
                    .map(|(k, n)| format!("{n} {}", k.as_str()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ];
        if self.flags & LOST != 0 {
            lines.push("lost changelog".to_string());
        }
        if self.flags & PENDING != 0 {
            lines.push("changelog pending".to_string());
        }
        lines
    }

    /// `APPEND,COMPACT`: the kinds present.
    pub fn kinds_present(&self) -> String {
        Kind::ALL
            .iter()
            .zip(self.kinds.iter())
            .filter(|(_, &n)| n > 0)
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The bin width (in ids) for `view` with `lanes` lanes, keeping at most [`MAX_AGGREGATES`]
/// bins in all.
pub fn bin_width(view: &View, lanes: usize) -> i64 {
    let per_lane = (MAX_AGGREGATES / lanes.max(1)).max(1) as f64;
    let bin_px = BIN_PX.max(PLOT_W / per_lane);
    let w = (view.span * bin_px / PLOT_W).ceil();
    if w.is_finite() && w >= 1.0 {
        w as i64
    } else {
        1
    }
}

/// The aggregates of the visible snapshots, by lane, then by bin.
pub fn aggregates(m: &Model, view: &View) -> Vec<Aggregate> {
    let (lo, hi) = m.visible(view);
    let width = bin_width(view, m.lanes.len());
    let mut per_lane: Vec<Vec<Aggregate>> = vec![Vec::new(); m.lanes.len()];
    for i in lo..hi {
        let (Some(&id), Some(&lane), Some(&kind), Some(&flags)) =
            (m.ids.get(i), m.lane.get(i), m.kind.get(i), m.flags.get(i))
        else {
            continue;
        };
        let Some(list) = per_lane.get_mut(lane) else {
            continue;
        };
        let bin = id.div_euclid(width);
        let k = Kind::ALL.iter().position(|&x| x == kind).unwrap_or(4);
        match list.last_mut() {
            Some(a) if a.bin == bin => {
                a.last = id;
                a.count += 1;
                if let Some(n) = a.kinds.get_mut(k) {
                    *n += 1;
                }
                a.flags |= flags;
            }
            _ => {
                let mut kinds = [0; 5];
                if let Some(n) = kinds.get_mut(k) {
                    *n = 1;
                }
                list.push(Aggregate {
                    lane,
                    bin,
                    width,
                    first: id,
                    last: id,
                    count: 1,
                    kinds,
                    flags,
                });
            }
        }
    }
    per_lane.into_iter().flatten().collect()
}

/// Assigns each label `(x, width)` the first row (up to `rows`) where it does not overlap the
/// previous one; `None` when no row has room. Input in any order; the answer is in input order.
pub fn stack(items: &[(f64, f64)], rows: usize) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        let xa = items.get(a).map_or(0.0, |i| i.0);
        let xb = items.get(b).map_or(0.0, |i| i.0);
        xa.total_cmp(&xb)
    });
    let mut ends = vec![f64::NEG_INFINITY; rows];
    let mut out = vec![None; items.len()];
    for i in order {
        let Some(&(x, w)) = items.get(i) else {
            continue;
        };
        if let Some(r) = ends.iter().position(|&e| e + 4.0 <= x) {
            if let Some(e) = ends.get_mut(r) {
                *e = x + w;
            }
            if let Some(o) = out.get_mut(i) {
                *o = Some(r);
            }
        }
    }
    out
}

/// Axis ticks: round ids about every 100 units.
pub fn ticks(view: &View) -> Vec<i64> {
    let raw = view.span / (PLOT_W / 100.0);
    let mag = 10f64.powf(raw.max(1.0).log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag)
        .max(1.0);
    let step = step as i64;
    if step <= 0 {
        return Vec::new();
    }
    let first = (view.start / step as f64).ceil() as i64 * step;
    let end = view.start + view.span;
    let mut out = Vec::new();
    let mut t = first;
    while (t as f64) <= end && out.len() < 50 {
        out.push(t);
        t = t.saturating_add(step);
    }
    out
}

/// Which element holds the timeline's tab stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabStop {
    /// A snapshot mark.
    Snapshot(i64),
    /// An aggregate `first..=last`.
    Range(i64, i64),
}

/// What the drawing shows besides the table: selection, focus, interactivity.
#[derive(Debug, Clone, Default)]
pub struct Ui {
    /// The snapshot holding the keyboard cursor (roving tabindex).
    pub active: Option<i64>,
    /// The snapshot highlighted from a finding.
    pub focus: Option<i64>,
    /// The id of the tooltip element the active mark is described by.
    pub tooltip_id: Option<String>,
    /// Live page (tabindex, roles, ARIA) rather than a static export (`<title>`s instead).
    pub interactive: bool,
}

/// The drawing of one view.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The SVG's children.
    pub nodes: Vec<Node>,
    /// The drawing's height (the `viewBox` height).
    pub height: f64,
    /// Whether snapshots are aggregated.
    pub dense: bool,
    /// Snapshots in the view.
    pub visible: usize,
    /// The element holding the tab stop, if any.
    pub tab_stop: Option<TabStop>,
    /// Top and bottom of the lanes.
    pub lanes_y: (f64, f64),
}

impl Scene {
    /// DOM nodes (elements and text nodes) of the drawing.
    pub fn dom_nodes(&self) -> usize {
        self.nodes.iter().map(Node::dom_nodes).sum()
    }

    /// Every element, depth first.
    pub fn elements(&self) -> Vec<&Node> {
        self.nodes.iter().flat_map(Node::walk).collect()
    }
}

/// The centre y of lane `lane`.
pub fn lane_y(scene_lanes_top: f64, lane: usize) -> f64 {
    scene_lanes_top + lane as f64 * LANE_H + LANE_H / 2.0
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

fn last_component(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit(['/', '!'])
        .next()
        .unwrap_or(path)
}

fn consumer_tone(v: ConsumerVerdict) -> &'static str {
    match v {
        ConsumerVerdict::Safe | ConsumerVerdict::CaughtUp => "tl-ok",
        ConsumerVerdict::Unknown | ConsumerVerdict::Stale | ConsumerVerdict::Unreadable => {
            "tl-warn"
        }
        ConsumerVerdict::Expired
        | ConsumerVerdict::Ahead
        | ConsumerVerdict::Blocked
        | ConsumerVerdict::PastLostChangelog => "tl-bad",
    }
}

fn spark_tone(v: SparkCheckpointVerdict) -> &'static str {
    match v {
        SparkCheckpointVerdict::Safe => "tl-ok",
        SparkCheckpointVerdict::Unknown
        | SparkCheckpointVerdict::Legacy
        | SparkCheckpointVerdict::Shared
        | SparkCheckpointVerdict::ConsumerBehind
        | SparkCheckpointVerdict::InitialScanUnfenced
        | SparkCheckpointVerdict::Uncommitted => "tl-warn",
        SparkCheckpointVerdict::ConsumerAhead | SparkCheckpointVerdict::Expired => "tl-bad",
    }
}

/// The light-theme colour of a tone class.
pub fn tone_fill(tone: &str) -> &'static str {
    match tone {
        "tl-ok" => "#1a7f37",
        "tl-warn" => "#9a6700",
        _ => "#cf222e",
    }
}

/// One snapshot's summary lines (the tooltip and the mark's label).
pub fn describe(table: &TableReport, m: &Model, i: usize) -> Vec<String> {
    let Some(s) = m.src.get(i).and_then(|&k| table.snapshots.get(k)) else {
        return Vec::new();
    };
    let mut lines = vec![
        format!("Snapshot {} · {}", s.id, s.kind),
        format!(
            "user {} · identifier {}",
            s.commit_user, s.commit_identifier
        ),
        prv::report::format_utc(s.time_millis),
    ];
    let rows = |v: Option<i64>| v.map_or_else(|| "?".to_string(), |n| n.to_string());
    lines.push(format!(
        "delta {} rows · changelog {} rows",
        rows(s.delta_record_count),
        rows(s.changelog_record_count)
    ));
    if let Some(f) = s.files {
        lines.push(format!(
            "files +{} −{} · {} changelog files",
            f.added, f.deleted, f.changelog
        ));
    }
    let flags = m.flags.get(i).copied().unwrap_or(0);
    if flags & LOST != 0 {
        lines.push("lost changelog".to_string());
    }
    if flags & PENDING != 0 {
        lines.push("changelog pending".to_string());
    }
    for f in table.findings.iter().filter(|f| f.snapshot == Some(s.id)) {
        if !matches!(f.code, Code::LostChangelog | Code::PendingChangelog) {
            lines.push(f.code.title().to_string());
        }
    }
    for t in table.tags.iter().filter(|t| t.snapshot == Some(s.id)) {
        lines.push(format!("tag {}", t.name));
    }
    lines
}

/// A one-sentence summary of the whole timeline (the SVG's accessible name).
pub fn summary(table: &TableReport, m: &Model) -> String {
    let mut s = format!(
        "Snapshot timeline of {} (branch {}): {} snapshots",
        table.path,
        table.branch,
        m.ids.len()
    );
    if let (Some(a), Some(b)) = (m.ids.first(), m.ids.last()) {
        s.push_str(&format!(", ids {a} to {b}"));
    }
    s.push_str(&format!(", {} commit users", m.lanes.len()));
    let hint = |name: &str, h: Option<i64>, actual: Option<i64>| match (h, actual) {
        (None, _) => format!("no {name} hint"),
        (Some(h), Some(a)) if h != a => format!("{name} hint {h} disagrees with {a}"),
        (Some(h), _) => format!("{name} hint {h}"),
    };
    s.push_str(&format!(
        "; {}, {}",
        hint("EARLIEST", table.hints.earliest, table.earliest),
        hint("LATEST", table.hints.latest, table.latest)
    ));
    let lost: Vec<String> = m
        .ids
        .iter()
        .zip(&m.flags)
        .filter(|(_, f)| **f & LOST != 0)
        .map(|(id, _)| id.to_string())
        .collect();
    if !lost.is_empty() {
        s.push_str(&format!("; lost changelog at {}", lost.join(", ")));
    }
    let pending = m.flags.iter().filter(|f| **f & PENDING != 0).count();
    if pending > 0 {
        s.push_str(&format!("; {pending} with changelog pending"));
    }
    for c in &table.consumers {
        match c.next_snapshot {
            Some(n) => s.push_str(&format!(
                "; consumer {} at {} ({})",
                c.id,
                n,
                c.verdict.as_str()
            )),
            None => s.push_str(&format!("; consumer {} unreadable", c.id)),
        }
    }
    for sp in &table.spark_checkpoints {
        s.push_str(&format!(
            "; Spark checkpoint {} resumes at {} ({})",
            last_component(&sp.path),
            spark_position(sp).map_or_else(|| "?".to_string(), |n| n.to_string()),
            sp.verdict.as_str()
        ));
        if let Some(p) = sp.planned_offset {
            s.push_str(&format!(
                ", a batch planned up to {} never committed",
                p.snapshot_id
            ));
        }
    }
    if !table.tags.is_empty() {
        s.push_str(&format!("; {} tags", table.tags.len()));
    }
    s.push('.');
    s
}

/// A marker or flag before its row is known: where it points, its label, and its `g` element
/// (which gets its line, symbol and text when it is drawn).
struct Label {
    x: f64,
    text: String,
    node: Node,
}

/// Whether `x` is inside the plotting area (give or take rounding).
fn inside(x: f64) -> bool {
    (GUTTER - 0.01..=GUTTER + PLOT_W + 0.01).contains(&x)
}

/// `x` moved into the plotting area.
fn clampx(x: f64) -> f64 {
    x.clamp(GUTTER, GUTTER + PLOT_W)
}

/// Where the parts of the drawing sit, top to bottom: axis, marker rows, lanes (the
/// long-lived changelog strip under them), flag rows.
#[derive(Debug, Clone, Copy)]
struct Rows {
    /// Top of the first marker row.
    marker_top: f64,
    /// Top of the first lane.
    lanes_top: f64,
    /// Bottom of the last lane.
    lanes_bottom: f64,
    /// Top of the first flag row.
    flags_top: f64,
    /// Flag rows drawn (the last also holds the flags with no room for a label).
    flag_rows: usize,
    /// The drawing's height.
    height: f64,
}

impl Rows {
    /// The rows for the markers' and the flags' row assignments (see [`stack`]).
    fn new(
        table: &TableReport,
        m: &Model,
        marker_rows_of: &[Option<usize>],
        flag_rows_of: &[Option<usize>],
    ) -> Rows {
        let marker_rows = marker_rows_of
            .iter()
            .flatten()
            .max()
            .map_or(1, |r| r + 1)
            .max(1);
        let marker_top = AXIS_H;
        let lanes_top = marker_top + marker_rows as f64 * ROW_H + 4.0;
        let n_lanes = m.lanes.len().max(1);
        let lanes_bottom = lanes_top + n_lanes as f64 * LANE_H;
        let strip_h = if table.long_lived_changelogs.is_some() {
            12.0
        } else {
            0.0
        };
        let flags_top = lanes_bottom + strip_h + 6.0;
        let flag_rows = if flag_rows_of.is_empty() {
            0
        } else {
            flag_rows_of.iter().flatten().max().map_or(1, |r| r + 1)
        };
        Rows {
            marker_top,
            lanes_top,
            lanes_bottom,
            flags_top,
            flag_rows,
            height: flags_top + flag_rows as f64 * ROW_H + 8.0,
        }
    }
}

/// What every part of one drawing reads: the table, its model, the view and the UI state.
struct Ctx<'a> {
    table: &'a TableReport,
    m: &'a Model,
    view: &'a View,
    ui: &'a Ui,
}

/// Draws `view` of `table`: lanes, bands, axis and grid, pair arcs, marks (or aggregates when
/// dense), markers and flags, each part a group, in that order (later ones paint over).
pub fn scene(table: &TableReport, m: &Model, view: &View, ui: &Ui) -> Scene {
    let cx = Ctx { table, m, view, ui };
    let markers = cx.markers();
    let marker_rows_of = stack(
        &markers.iter().map(marker_extent).collect::<Vec<_>>(),
        MAX_MARKER_ROWS,
    );
    let flags = cx.flags();
    let flag_rows_of = stack(
        &flags
            .iter()
            .map(|l| (l.x, label_w(&l.text)))
            .collect::<Vec<_>>(),
        MAX_FLAG_ROWS,
    );
    let rows = Rows::new(table, m, &marker_rows_of, &flag_rows_of);
    let (lo, hi) = m.visible(view);
    let dense = (hi - lo) as f64 * MIN_MARK_PX > PLOT_W;
    let pairs = Node::new("g")
        .attr("class", "tl-pairs")
        .attr("fill", "none")
        .attr("stroke", "#8c959f");
    let (pairs, (marks, tab_stop)) = if dense {
        (pairs, cx.aggregate_marks(rows.lanes_top))
    } else {
        (
            pairs.children(cx.pair_arcs(lo, hi, rows.lanes_top)),
            cx.single_marks(lo, hi, rows.lanes_top),
        )
    };
    let top = Node::new("g").attr("class", "tl-markers").children(
        markers
            .into_iter()
            .zip(marker_rows_of)
            .map(|(l, row)| marker(l, row, &rows, ui.interactive)),
    );
    let flag_g = Node::new("g").attr("class", "tl-flags").children(
        flags
            .into_iter()
            .zip(flag_rows_of)
            .map(|(l, row)| flag(l, row, &rows, ui.interactive)),
    );
    Scene {
        nodes: vec![
            lanes(m, rows.lanes_top),
            cx.bands(&rows),
            axis(view, rows.lanes_bottom),
            pairs,
            Node::new("g").attr("class", "tl-marks").children(marks),
            top,
            flag_g,
        ],
        height: rows.height,
        dense,
        visible: hi - lo,
        tab_stop,
        lanes_y: (rows.lanes_top, rows.lanes_bottom),
    }
}

impl Ctx<'_> {
    /// The markers above the lanes that fall inside the view, in drawing order: the earliest
    /// and latest snapshots, the EARLIEST/LATEST hints, then the tags.
    fn markers(&self) -> Vec<Label> {
        let mut out = self.position_markers();
        out.extend(self.tag_markers());
        out.retain(|l| inside(l.x));
        out
    }

    /// The earliest and latest snapshots (`data-marker`), then the EARLIEST and LATEST hints
    /// (`data-hint`, marked `data-mismatch` when the hint is not the snapshot it names).
    fn position_markers(&self) -> Vec<Label> {
        let (table, view) = (self.table, self.view);
        let mut out = Vec::new();
        for (name, id) in [("earliest", table.earliest), ("latest", table.latest)] {
            if let Some(id) = id {
                out.push(Label {
                    x: view.x(id as f64),
                    text: format!("{name} {id}"),
                    node: Node::new("g")
                        .attr("class", format!("tl-marker tl-{name}"))
                        .attr("data-marker", name)
                        .attr("data-snapshot", id),
                });
            }
        }
        for (name, label, hint, actual) in [
            ("earliest", "EARLIEST", table.hints.earliest, table.earliest),
            ("latest", "LATEST", table.hints.latest, table.latest),
        ] {
            if let Some(h) = hint {
                let mismatch = actual != Some(h);
                out.push(Label {
                    x: view.x(h as f64),
                    text: format!("{label} hint {h}{}", if mismatch { " ≠" } else { "" }),
                    node: Node::new("g")
                        .attr(
                            "class",
                            if mismatch {
                                "tl-marker tl-hint tl-mismatch"
                            } else {
                                "tl-marker tl-hint"
                            },
                        )
                        .attr("data-hint", name)
                        .attr("data-hint-value", h)
                        .attr("data-mismatch", mismatch),
                });
            }
        }
        out
    }

    /// The tags inside the view: one marker each (`data-tag`), or, beyond
    /// [`MAX_TAG_LABELS`], one per 60-unit bin counting them (`data-tag-count`).
    fn tag_markers(&self) -> Vec<Label> {
        let view = self.view;
        let tags_visible: Vec<_> = self
            .table
            .tags
            .iter()
            .filter_map(|t| t.snapshot.map(|s| (t, s, view.x(s as f64))))
            .filter(|(_, _, x)| inside(*x))
            .collect();
        if tags_visible.len() <= MAX_TAG_LABELS {
            return tags_visible
                .into_iter()
                .map(|(t, s, x)| Label {
                    x,
                    text: t.name.clone(),
                    node: Node::new("g")
                        .attr(
                            "class",
                            if t.snapshot_retained {
                                "tl-marker tl-tag"
                            } else {
                                "tl-marker tl-tag tl-tag-expired"
                            },
                        )
                        .attr("data-tag", &t.name)
                        .attr("data-snapshot", s),
                })
                .collect();
        }
        // (bin, x of its first tag, tags, lowest snapshot, highest snapshot)
        let mut bins: Vec<(i64, f64, usize, i64, i64)> = Vec::new();
        for (_, s, x) in tags_visible {
            let b = ((x - GUTTER) / 60.0).floor() as i64;
            match bins.last_mut() {
                Some(e) if e.0 == b => {
                    e.2 += 1;
                    e.3 = e.3.min(s);
                    e.4 = e.4.max(s);
                }
                _ => bins.push((b, x, 1, s, s)),
            }
        }
        bins.into_iter()
            .map(|(_, x, n, a, b)| Label {
                x,
                text: format!("{n} tags"),
                node: Node::new("g")
                    .attr("class", "tl-marker tl-tag tl-tag-group")
                    .attr("data-tag-count", n)
                    .attr("data-tag-range", format!("{a}-{b}")),
            })
            .collect()
    }

    /// The flags below the lanes, in drawing order: consumers, Spark checkpoints (and their
    /// uncommitted planned batches), Ray checkpoints; off-view ones moved to the edge.
    fn flags(&self) -> Vec<Label> {
        let mut flags = self.consumer_flags();
        flags.extend(self.spark_flags());
        flags.extend(self.ray_flags());
        for f in &mut flags {
            to_edge(f);
        }
        flags
    }

    /// One flag per consumer with a position, at its next snapshot (`data-consumer`), toned
    /// by its verdict.
    fn consumer_flags(&self) -> Vec<Label> {
        let mut out = Vec::new();
        for c in &self.table.consumers {
            let Some(n) = c.next_snapshot else { continue };
            let tone = consumer_tone(c.verdict);
            out.push(Label {
                x: self.view.x(n as f64),
                text: format!("{} → {n}", c.id),
                node: Node::new("g")
                    .attr("class", format!("tl-flag tl-consumer {tone}"))
                    .attr("data-consumer", &c.id)
                    .attr("data-verdict", c.verdict.as_str())
                    .attr("data-next-snapshot", n),
            });
        }
        out
    }

    /// One flag per Spark checkpoint at the snapshot a restart reads first
    /// (`data-spark-checkpoint`), and one at the snapshot a planned but uncommitted batch
    /// would have read up to (`data-spark-planned`).
    fn spark_flags(&self) -> Vec<Label> {
        let view = self.view;
        let mut out = Vec::new();
        for sp in &self.table.spark_checkpoints {
            let Some(n) = spark_position(sp) else {
                continue;
            };
            let tone = spark_tone(sp.verdict);
            let offset = sp.offset.map(|o| o.describe());
            out.push(Label {
                x: view.x(n as f64),
                text: format!("Spark {} ⟲ {n}", last_component(&sp.path)),
                node: Node::new("g")
                    .attr("class", format!("tl-flag tl-spark {tone}"))
                    .attr("data-spark-checkpoint", &sp.path)
                    .attr("data-verdict", sp.verdict.as_str())
                    .attr("data-resume-snapshot", n)
                    .attr_opt("data-offset", offset),
            });
            if let Some(p) = sp.planned_offset {
                out.push(Label {
                    x: view.x(p.snapshot_id as f64),
                    text: format!(
                        "Spark {} planned {} (not committed)",
                        last_component(&sp.path),
                        p.snapshot_id
                    ),
                    node: Node::new("g")
                        .attr("class", "tl-flag tl-spark tl-spark-planned tl-warn")
                        .attr("data-spark-planned", &sp.path)
                        .attr("data-snapshot", p.snapshot_id)
                        .attr("data-offset", p.describe()),
                });
            }
        }
        out
    }

    /// One flag per Ray checkpoint (`data-ray-checkpoint`), at the snapshot of its generation
    /// marker (else the latest), saying how many of its ids are missing.
    fn ray_flags(&self) -> Vec<Label> {
        let mut out = Vec::new();
        for r in &self.table.ray_checkpoints {
            let Some(n) = ray_snapshot(r.generation_marker.as_deref()).or(self.table.latest) else {
                continue;
            };
            let unknown = r.missing_unknown_because.is_some();
            let tone = if unknown {
                "tl-warn"
            } else if r.missing > 0 {
                "tl-bad"
            } else {
                "tl-ok"
            };
            let missing = if unknown {
                "missing unknown".to_string()
            } else {
                format!("{} missing", r.missing)
            };
            out.push(Label {
                x: self.view.x(n as f64),
                text: format!("Ray {}: {} ids, {missing}", last_component(&r.path), r.ids),
                node: Node::new("g")
                    .attr("class", format!("tl-flag tl-ray {tone}"))
                    .attr("data-ray-checkpoint", &r.path)
                    .attr("data-missing", r.missing)
                    .attr("data-snapshot", n),
            });
        }
        out
    }

    /// The bands over the lanes, in a `tl-bands` group: the expired ids, the gaps, the
    /// long-lived changelog range.
    fn bands(&self, rows: &Rows) -> Node {
        let gaps = self
            .table
            .findings
            .iter()
            .filter(|f| f.code == Code::SnapshotGap)
            .filter_map(|f| self.gap_band(f, rows));
        Node::new("g")
            .attr("class", "tl-bands")
            .children(self.expired_band(rows))
            .children(gaps)
            .children(self.changelog_band(rows))
    }

    /// The ids before the earliest snapshot, shaded across the lanes (`data-band=expired`),
    /// labelled when there is room.
    fn expired_band(&self, rows: &Rows) -> Option<Node> {
        let (view, e) = (self.view, self.table.earliest?);
        let x1 = clampx(view.x(e as f64 - 0.5));
        let x0 = clampx(view.x(self.m.domain.0).max(view.x(0.5)));
        let band = (x1 - x0 > 0.5).then(|| {
            Node::new("g")
                .attr("class", "tl-band tl-band-expired")
                .attr("data-band", "expired")
                .attr("data-range", format!("-{}", e - 1))
                .child(
                    Node::new("rect")
                        .num("x", x0)
                        .num("y", rows.lanes_top)
                        .num("width", x1 - x0)
                        .num("height", rows.lanes_bottom - rows.lanes_top)
                        .attr("fill", "#d0d7de")
                        .attr("fill-opacity", "0.45"),
                )
        })?;
        let label = (x1 - x0 > 60.0).then(|| {
            Node::new("text")
                .attr("class", "tl-band-label")
                .num("x", x0 + 4.0)
                .num("y", rows.lanes_top + 11.0)
                .attr("fill", "#57606a")
                .text(format!("expired (< {e})"))
        });
        Some(band.children(label))
    }

    /// The ids a `snapshot-gap` finding says are missing between two present snapshots,
    /// shaded across the lanes (`data-band=gap`) and named: a label where it fits, else a
    /// title (export) or an ARIA label (page).
    fn gap_band(&self, f: &prv::report::model::Finding, rows: &Rows) -> Option<Node> {
        let (Some(&a), Some(&b)) = (f.related_snapshots.first(), f.related_snapshots.last()) else {
            return None;
        };
        if b - a < 2 {
            return None;
        }
        let x0 = clampx(self.view.x(a as f64 + 0.5));
        let x1 = clampx(self.view.x(b as f64 - 0.5));
        if x1 - x0 <= 0.0 {
            return None;
        }
        let text = if b - a == 2 {
            format!("missing {}", a + 1)
        } else {
            format!("missing {}–{}", a + 1, b - 1)
        };
        let band = Node::new("g")
            .attr("class", "tl-band tl-band-gap")
            .attr("data-band", "gap")
            .attr("data-range", format!("{}-{}", a + 1, b - 1))
            .child(
                Node::new("rect")
                    .num("x", x0)
                    .num("y", rows.lanes_top)
                    .num("width", (x1 - x0).max(1.5))
                    .num("height", rows.lanes_bottom - rows.lanes_top)
                    .attr("fill", "#cf222e")
                    .attr("fill-opacity", "0.15"),
            );
        Some(if x1 - x0 > text.chars().count() as f64 * CHAR_W + 8.0 {
            band.child(
                Node::new("text")
                    .attr("class", "tl-band-label tl-gap-label")
                    .num("x", x0 + 4.0)
                    .num("y", rows.lanes_bottom - 4.0)
                    .attr("fill", "#cf222e")
                    .text(text),
            )
        } else if !self.ui.interactive {
            band.child(Node::new("title").text(text))
        } else {
            band.attr("aria-label", text)
        })
    }

    /// The long-lived changelog range, a strip under the lanes
    /// (`data-band=long-lived-changelog`), labelled when there is room.
    fn changelog_band(&self, rows: &Rows) -> Option<Node> {
        let r = self.table.long_lived_changelogs?;
        let x0 = clampx(self.view.x(r.first as f64 - 0.5));
        let x1 = clampx(self.view.x(r.last as f64 + 0.5));
        let band = (x1 - x0 > 0.0).then(|| {
            Node::new("g")
                .attr("class", "tl-band tl-band-changelog")
                .attr("data-band", "long-lived-changelog")
                .attr("data-range", format!("{}-{}", r.first, r.last))
                .child(
                    Node::new("rect")
                        .num("x", x0)
                        .num("y", rows.lanes_bottom + 2.0)
                        .num("width", (x1 - x0).max(1.0))
                        .num("height", 9.0)
                        .attr("fill", "#1b7c83")
                        .attr("fill-opacity", "0.35"),
                )
        })?;
        let text = format!("long-lived changelog {}–{}", r.first, r.last);
        let label = (x1 - x0 > text.chars().count() as f64 * 5.0 + 8.0).then(|| {
            Node::new("text")
                .attr("class", "tl-band-label tl-small")
                .num("x", x0 + 3.0)
                .num("y", rows.lanes_bottom + 9.5)
                .attr("fill", "#1b1f24")
                .text(text)
        });
        Some(band.children(label))
    }

    /// The aggregates of a dense view, one rect per lane and bin (`data-snapshot-range`), and
    /// the tab stop: the aggregate holding the active snapshot, else the first.
    fn aggregate_marks(&self, lanes_top: f64) -> (Vec<Node>, Option<TabStop>) {
        let m = self.m;
        let aggs = aggregates(m, self.view);
        let stop_ix = self
            .ui
            .active
            .and_then(|id| {
                let lane = m.index_of(id).and_then(|i| m.lane.get(i).copied())?;
                aggs.iter()
                    .position(|a| a.lane == lane && a.first <= id && id <= a.last)
            })
            .or(if aggs.is_empty() { None } else { Some(0) });
        let tab_stop = stop_ix
            .and_then(|k| aggs.get(k))
            .map(|a| TabStop::Range(a.first, a.last));
        let marks = aggs
            .iter()
            .enumerate()
            .map(|(k, a)| self.aggregate_mark(a, lanes_top, stop_ix == Some(k)))
            .collect();
        (marks, tab_stop)
    }

    /// One aggregate's rect: coloured by its dominant kind, outlined when it holds lost or
    /// pending changelog, `tl-focus` when it holds the focused snapshot's lane and id.
    fn aggregate_mark(&self, a: &Aggregate, lanes_top: f64, stop: bool) -> Node {
        let (m, view, ui) = (self.m, self.view, self.ui);
        let x0 = clampx(view.x((a.bin * a.width) as f64 - 0.5));
        let x1 = clampx(view.x(((a.bin + 1) * a.width) as f64 - 0.5));
        let y = lane_y(lanes_top, a.lane);
        let dom = a.dominant();
        let code = finding_code(a.flags);
        let mut class = format!("tl-agg {}", dom.class());
        if let Some(c) = code {
            class.push_str(if c == "lost-changelog" {
                " tl-lost"
            } else {
                " tl-pending"
            });
        }
        let focused = ui.focus.is_some_and(|f| a.first <= f && f <= a.last)
            && ui
                .focus
                .and_then(|f| m.index_of(f))
                .and_then(|i| m.lane.get(i))
                == Some(&a.lane);
        if focused {
            class.push_str(" tl-focus");
        }
        let label = a.describe(m).join(", ");
        let h = 14.0;
        let mut node = Node::new("rect")
            .attr("class", class)
            .num("x", x0 + 0.5)
            .num("y", y - h / 2.0)
            .num("width", (x1 - x0 - 1.0).max(1.5))
            .num("height", h)
            .attr("fill", dom.fill())
            .attr("data-snapshot-range", format!("{}-{}", a.first, a.last))
            .attr("data-count", a.count)
            .attr("data-kinds", a.kinds_present())
            .attr_opt("data-finding-code", code);
        if code.is_some() {
            node = node.attr("stroke", "#cf222e").attr("stroke-width", "2");
        }
        node = role(node, stop, ui.interactive);
        if ui.interactive {
            node.attr("aria-label", label)
        } else {
            node.child(Node::new("title").text(label))
        }
    }

    /// The arcs joining the snapshots of one commit (user + identifier), `path.tl-pair`, for
    /// each pair with at least one end among the visible snapshots `lo..hi`.
    fn pair_arcs(&self, lo: usize, hi: usize, lanes_top: f64) -> Vec<Node> {
        let (m, view) = (self.m, self.view);
        let mut out = Vec::new();
        for g in &self.table.commit_groups {
            for w in g.snapshots.windows(2) {
                let (Some(&a), Some(&b)) = (w.first(), w.get(1)) else {
                    continue;
                };
                let (Some(ia), Some(ib)) = (m.index_of(a), m.index_of(b)) else {
                    continue;
                };
                if !((lo..hi).contains(&ia) || (lo..hi).contains(&ib)) {
                    continue;
                }
                let (Some(&la), Some(&lb)) = (m.lane.get(ia), m.lane.get(ib)) else {
                    continue;
                };
                let (xa, xb) = (view.x(a as f64), view.x(b as f64));
                let (ya, yb) = (lane_y(lanes_top, la), lane_y(lanes_top, lb));
                let lift = (LANE_H * 0.45).min((xb - xa).abs() * 0.5 + 3.0);
                out.push(
                    Node::new("path")
                        .attr("class", "tl-pair")
                        .attr("data-pair", format!("{a}-{b}"))
                        .attr("data-commit-identifier", g.commit_identifier)
                        .attr(
                            "d",
                            format!(
                                "M{} {}Q{} {} {} {}",
                                fmt_num(xa),
                                fmt_num(ya),
                                fmt_num((xa + xb) / 2.0),
                                fmt_num(ya.min(yb) - lift),
                                fmt_num(xb),
                                fmt_num(yb)
                            ),
                        ),
                );
            }
        }
        out
    }

    /// The marks of the visible snapshots `lo..hi`, and the tab stop: the active snapshot
    /// when visible, else the first visible.
    fn single_marks(&self, lo: usize, hi: usize, lanes_top: f64) -> (Vec<Node>, Option<TabStop>) {
        let m = self.m;
        let r = (self.view.px_per_id() * 0.32).clamp(2.5, 6.0);
        let stop_id = self
            .ui
            .active
            .filter(|id| m.index_of(*id).is_some_and(|i| lo <= i && i < hi))
            .or(m.ids.get(lo).copied().filter(|_| hi > lo));
        let marks = (lo..hi)
            .flat_map(|i| self.snapshot_mark(i, lanes_top, r, stop_id))
            .collect();
        (marks, stop_id.map(TabStop::Snapshot))
    }

    /// The mark of snapshot index `i` with radius `r` (after a ring when it is the focused
    /// one): shaped and coloured by its kind, outlined for lost or pending changelog, named by
    /// its summary ([`describe`]); `tl-active` and described by the tooltip when it is the
    /// tab stop `stop_id`.
    fn snapshot_mark(&self, i: usize, lanes_top: f64, r: f64, stop_id: Option<i64>) -> Vec<Node> {
        let (m, ui) = (self.m, self.ui);
        let (Some(&id), Some(&lane), Some(&kind), Some(&flags)) =
            (m.ids.get(i), m.lane.get(i), m.kind.get(i), m.flags.get(i))
        else {
            return Vec::new();
        };
        let (x, y) = (self.view.x(id as f64), lane_y(lanes_top, lane));
        let mut out: Vec<Node> = (ui.focus == Some(id))
            .then(|| focus_ring(x, y, r))
            .into_iter()
            .collect();
        let code = finding_code(flags);
        let mut class = format!("tl-mark {}", kind.class());
        match code {
            Some("lost-changelog") => class.push_str(" tl-lost"),
            Some(_) => class.push_str(" tl-pending"),
            None => {}
        }
        if flags & OTHER_FINDING != 0 {
            class.push_str(" tl-has-finding");
        }
        if ui.focus == Some(id) {
            class.push_str(" tl-focus");
        }
        let stop = stop_id == Some(id);
        if stop && ui.interactive {
            class.push_str(" tl-active");
        }
        let lines = describe(self.table, m, i);
        let mut node = kind
            .shape(x, y, r)
            .attr("class", class)
            .attr("data-snapshot-id", id)
            .attr("data-kind", kind.as_str())
            .attr_opt("data-finding-code", code)
            .attr("fill", kind.fill())
            .attr(
                "stroke",
                match code {
                    Some("lost-changelog") => "#cf222e",
                    Some(_) => "#bf8700",
                    None => "#1b1f24",
                },
            )
            .attr("stroke-width", if code.is_some() { "2.5" } else { "0.75" });
        node = role(node, stop, ui.interactive);
        if ui.interactive {
            node = node.attr("aria-label", lines.join(", "));
            if stop {
                node = node.attr_opt("aria-describedby", ui.tooltip_id.clone());
            }
        } else {
            node = node.child(Node::new("title").text(lines.join("\n")));
        }
        out.push(node);
        out
    }
}

/// The ring around the focused snapshot's mark at `(x, y)` (radius `r`), drawn before it.
fn focus_ring(x: f64, y: f64, r: f64) -> Node {
    Node::new("circle")
        .attr("class", "tl-focus-ring")
        .num("cx", x)
        .num("cy", y)
        .num("r", r + 5.0)
        .attr("fill", "none")
        .attr("stroke", "#bf8700")
        .attr("stroke-width", "2.5")
        .attr("pointer-events", "none")
}

/// The lanes, in a `tl-lanes` group: one striped rect per commit user across the whole width
/// (`data-lane`) and its label in the gutter (cut at 19 characters, the whole name in
/// `data-full`).
fn lanes(m: &Model, lanes_top: f64) -> Node {
    let mut g = Node::new("g").attr("class", "tl-lanes");
    for (k, name) in m.lanes.iter().enumerate() {
        let y = lanes_top + k as f64 * LANE_H;
        g = g.child(
            Node::new("rect")
                .attr(
                    "class",
                    if k % 2 == 0 {
                        "tl-lane"
                    } else {
                        "tl-lane tl-lane-alt"
                    },
                )
                .attr("data-lane", name)
                .num("x", 0.0)
                .num("y", y)
                .num("width", WIDTH)
                .num("height", LANE_H)
                .attr("fill", if k % 2 == 0 { "#f6f8fa" } else { "#ffffff" }),
        );
        let mut label = Node::new("text")
            .attr("class", "tl-lane-label")
            .num("x", 6.0)
            .num("y", y + LANE_H / 2.0 + 4.0)
            .attr("fill", "#57606a")
            .text(truncate(name, 19));
        if name.chars().count() > 19 {
            label = label.attr("data-full", name);
        }
        g = g.child(label);
    }
    g
}

/// The axis, in a `tl-axis` group: at each tick ([`ticks`]) inside the view, a grid line down
/// to the bottom of the lanes and the id above it.
fn axis(view: &View, lanes_bottom: f64) -> Node {
    let mut g = Node::new("g").attr("class", "tl-axis");
    for t in ticks(view) {
        let x = view.x(t as f64);
        if !inside(x) {
            continue;
        }
        g = g
            .child(
                Node::new("line")
                    .attr("class", "tl-grid")
                    .num("x1", x)
                    .num("x2", x)
                    .num("y1", AXIS_H - 4.0)
                    .num("y2", lanes_bottom)
                    .attr("stroke", "#d0d7de"),
            )
            .child(
                Node::new("text")
                    .attr("class", "tl-tick")
                    .num("x", x)
                    .num("y", 13.0)
                    .attr("text-anchor", "middle")
                    .attr("fill", "#57606a")
                    .text(t.to_string()),
            );
    }
    g
}

/// `lost-changelog` or `pending-changelog` for a snapshot's (or an aggregate's) flags.
fn finding_code(flags: u8) -> Option<&'static str> {
    if flags & LOST != 0 {
        Some("lost-changelog")
    } else if flags & PENDING != 0 {
        Some("pending-changelog")
    } else {
        None
    }
}

/// A mark made focusable (`tabindex` 0 for the tab stop, else -1) and a button, on the live
/// page; unchanged in a static export.
fn role(n: Node, stop: bool, interactive: bool) -> Node {
    if interactive {
        n.attr("tabindex", if stop { "0" } else { "-1" })
            .attr("role", "button")
    } else {
        n
    }
}

/// A flag outside the plotting area moved to its edge with an arrow pointing the way
/// (`data-offscreen=left|right`).
fn to_edge(f: &mut Label) {
    let (left, right) = (GUTTER, GUTTER + PLOT_W);
    if f.x < left {
        f.x = left;
        f.text = format!("◀ {}", f.text);
        f.node = std::mem::replace(&mut f.node, Node::new("g")).attr("data-offscreen", "left");
    } else if f.x > right {
        f.text = format!("{} ▶", f.text);
        f.x = (right - label_w(&f.text)).max(left);
        f.node = std::mem::replace(&mut f.node, Node::new("g")).attr("data-offscreen", "right");
    }
}

/// The span `(x, width)` a marker's label takes, for [`stack`] (left of it when it flips).
fn marker_extent(l: &Label) -> (f64, f64) {
    let w = label_w(&l.text);
    (if flips(l.x, w) { l.x - w } else { l.x - 4.0 }, w)
}

/// A marker drawn in marker row `row` (`None`: no row had room, drawn in the first without
/// its label, named by a title or an ARIA label): a line down into the lanes (to their bottom
/// for earliest/latest, dashed to their top for hints and tags), a triangle (earliest/latest,
/// hints) or a diamond (tags), and the label. Red where a hint disagrees.
fn marker(l: Label, row: Option<usize>, rows: &Rows, interactive: bool) -> Node {
    let row_y = rows.marker_top + row.unwrap_or(0) as f64 * ROW_H;
    let is_line = l.node.get("data-marker").is_some();
    let is_hint = l.node.get("data-hint").is_some();
    let colour = if l.node.get("data-mismatch") == Some("true") {
        "#cf222e"
    } else if is_line {
        "#1b1f24"
    } else if is_hint {
        "#0969da"
    } else {
        "#9a6700"
    };
    let (y1, dash) = if is_line {
        (rows.lanes_bottom, None)
    } else {
        (rows.lanes_top, Some("2 2"))
    };
    let symbol = if is_line || is_hint {
        Node::new("path").attr("fill", colour).attr(
            "d",
            format!("M{} {}l4 -6h-8Z", fmt_num(l.x), fmt_num(row_y + 12.0)),
        )
    } else {
        Node::new("rect")
            .num("x", l.x - 3.5)
            .num("y", row_y + 3.0)
            .num("width", 7.0)
            .num("height", 7.0)
            .attr(
                "transform",
                format!("rotate(45 {} {})", fmt_num(l.x), fmt_num(row_y + 6.5)),
            )
            .attr("fill", colour)
    };
    let g = l
        .node
        .child(
            Node::new("line")
                .num("x1", l.x)
                .num("x2", l.x)
                .num("y1", row_y + 6.0)
                .num("y2", y1)
                .attr("stroke", colour)
                .attr_opt("stroke-dasharray", dash),
        )
        .child(symbol);
    if row.is_some() {
        let flip = flips(l.x, label_w(&l.text));
        g.child(
            Node::new("text")
                .num("x", if flip { l.x - 7.0 } else { l.x + 7.0 })
                .num("y", row_y + 12.0)
                .attr_opt("text-anchor", flip.then_some("end"))
                .attr("fill", colour)
                .text(l.text),
        )
    } else if !interactive {
        g.child(Node::new("title").text(l.text))
    } else {
        g.attr("aria-label", l.text)
    }
}

/// A flag drawn in flag row `row` (`None`: no row had room, a small unlabelled box in the
/// last row, named by a title or an ARIA label): a pole from the top of the lanes down to it
/// (none when off-view; dashed for Spark, dotted for Ray), a box in its tone's colour, and its
/// label.
fn flag(l: Label, row: Option<usize>, rows: &Rows, interactive: bool) -> Node {
    let labelled = row.is_some();
    let row = row.unwrap_or(rows.flag_rows.saturating_sub(1));
    let y = rows.flags_top + row as f64 * ROW_H;
    let fill = tone_fill(flag_tone(&l.node));
    let w = if labelled {
        l.text.chars().count() as f64 * CHAR_W + 10.0
    } else {
        6.0
    };
    let offscreen = l.node.get("data-offscreen").is_some();
    let dash = g_dash(&l.node);
    let mut g = l.node;
    if !offscreen {
        g = g.child(
            Node::new("line")
                .attr("class", "tl-pole")
                .num("x1", l.x)
                .num("x2", l.x)
                .num("y1", rows.lanes_top)
                .num("y2", y + ROW_H - 3.0)
                .attr("stroke", fill)
                .attr("stroke-width", "1.5")
                .attr_opt("stroke-dasharray", dash),
        );
    }
    g = g.child(
        Node::new("rect")
            .attr("class", "tl-flag-box")
            .num("x", l.x)
            .num("y", y + 1.0)
            .num("width", w)
            .num("height", ROW_H - 3.0)
            .attr("rx", "3")
            .attr("fill", fill),
    );
    if labelled {
        g.child(
            Node::new("text")
                .attr("class", "tl-flag-text")
                .num("x", l.x + 5.0)
                .num("y", y + 12.5)
                .attr("fill", "#ffffff")
                .text(l.text),
        )
    } else if interactive {
        g.attr("aria-label", l.text)
    } else {
        g.child(Node::new("title").text(l.text))
    }
}

/// The tone class (`tl-ok`, `tl-warn`, `tl-bad`) of a flag's `g`; `tl-bad` when it has none.
fn flag_tone(g: &Node) -> &str {
    g.get("class")
        .and_then(|c| {
            c.split(' ').find(|t| {
                t.starts_with("tl-ok") || t.starts_with("tl-warn") || t.starts_with("tl-bad")
            })
        })
        .unwrap_or("tl-bad")
}

/// Estimated width of a marker's or flag's label (with its symbol or box padding).
fn label_w(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_W + 14.0
}

/// Whether a label at `x` is drawn to the left of its marker (it would overflow on the right).
fn flips(x: f64, w: f64) -> bool {
    x + w > WIDTH - 2.0 && x - w >= 0.0
}

/// The dash of a flag's pole: Spark checkpoints dashed, Ray checkpoints dotted.
fn g_dash(g: &Node) -> Option<&'static str> {
    match g.get("class") {
        Some(c) if c.contains("tl-spark") => Some("4 2"),
        Some(c) if c.contains("tl-ray") => Some("1 2"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    fn ui() -> Ui {
        Ui {
            interactive: true,
            tooltip_id: Some("tip".to_string()),
            ..Ui::default()
        }
    }

    fn with_attr<'a>(sc: &'a Scene, name: &str) -> Vec<&'a Node> {
        sc.elements()
            .into_iter()
            .filter(|n| n.get(name).is_some())
            .collect()
    }

    #[test]
    fn lanes_follow_commit_users_by_first_commit() {
        let t = sample::table(300);
        let m = Model::new(&t);
        assert_eq!(m.lanes.first().map(String::as_str), Some("writer-1"));
        assert!(m.lanes.iter().any(|l| l == "compactor"));
        assert!(m.lanes.iter().any(|l| l == "batch-job"));
        assert!(m.lanes.iter().any(|l| l == "analyzer"));
        assert_eq!(m.ids.len(), 300);
        assert!(m.ids.windows(2).all(|w| w[0] < w[1]));
        for (lane, members) in m.members.iter().enumerate() {
            assert!(members.iter().all(|&i| m.lane[i] == lane));
        }
        // The domain reaches the expired consumer (1) and the last snapshot.
        assert!(m.domain.0 < 1.0 && m.domain.1 > *m.ids.last().unwrap() as f64);
    }

    #[test]
    fn many_commit_users_fold_into_one_lane() {
        let mut t = sample::table(200);
        for (k, s) in t.snapshots.iter_mut().enumerate() {
            s.commit_user = format!("user-{}", k % 40);
        }
        let m = Model::new(&t);
        assert_eq!(m.lanes.len(), MAX_LANES);
        assert_eq!(m.lanes.last().unwrap(), "25 other commit users");
        assert_eq!(m.members.iter().map(Vec::len).sum::<usize>(), 200);
    }

    #[test]
    fn a_small_table_shows_every_snapshot_with_its_highlights() {
        let t = sample::table(30);
        let m = Model::new(&t);
        let v = View::fit(&m);
        let sc = scene(&t, &m, &v, &ui());
        assert!(!sc.dense);
        let marks = with_attr(&sc, "data-snapshot-id");
        assert_eq!(marks.len(), 30);
        let lost: Vec<_> = marks
            .iter()
            .filter(|n| n.get("data-finding-code") == Some("lost-changelog"))
            .map(|n| n.get("data-snapshot-id").unwrap())
            .collect();
        assert_eq!(lost, vec![sample::LOST.to_string()]);
        let pending = marks
            .iter()
            .filter(|n| n.get("data-finding-code") == Some("pending-changelog"))
            .count();
        assert_eq!(pending, 1);
        // Exactly one tab stop, on the first snapshot.
        let stops: Vec<_> = marks
            .iter()
            .filter(|n| n.get("tabindex") == Some("0"))
            .collect();
        assert_eq!(stops.len(), 1);
        assert_eq!(stops[0].get("data-snapshot-id"), Some("3"));
        assert_eq!(sc.tab_stop, Some(TabStop::Snapshot(3)));
        // Kinds.
        let kind_of = |id: i64| {
            marks
                .iter()
                .find(|n| n.get("data-snapshot-id") == Some(&id.to_string()))
                .and_then(|n| n.get("data-kind"))
        };
        assert_eq!(kind_of(3), Some("APPEND"));
        assert_eq!(kind_of(4), Some("COMPACT"));
        assert_eq!(kind_of(10), Some("COMPACT"));
        // Pairs join the two halves of a commit.
        let pairs = with_attr(&sc, "data-pair");
        assert!(pairs.iter().any(|p| p.get("data-pair") == Some("3-4")));
        assert!(!pairs.iter().any(|p| p
            .get("data-pair")
            .unwrap()
            .starts_with(&format!("{}-", sample::LOST))));
        // Markers, hints (EARLIEST disagrees), tags, bands, flags.
        let hint = with_attr(&sc, "data-hint");
        let early = hint
            .iter()
            .find(|n| n.get("data-hint") == Some("earliest"))
            .unwrap();
        assert_eq!(early.get("data-mismatch"), Some("true"));
        let late = hint
            .iter()
            .find(|n| n.get("data-hint") == Some("latest"))
            .unwrap();
        assert_eq!(late.get("data-mismatch"), Some("false"));
        assert_eq!(with_attr(&sc, "data-marker").len(), 2);
        assert_eq!(with_attr(&sc, "data-tag").len(), 1);
        let bands: Vec<_> = with_attr(&sc, "data-band")
            .iter()
            .map(|n| n.get("data-band").unwrap())
            .collect();
        assert_eq!(bands, vec!["expired", "long-lived-changelog"]);
        let consumers = with_attr(&sc, "data-consumer");
        assert_eq!(consumers.len(), 2);
        assert!(consumers
            .iter()
            .any(|c| c.get("data-consumer") == Some("cdc-reader")
                && c.get("data-verdict") == Some("past-lost-changelog")
                && c.get("data-next-snapshot") == Some("9")));
        let spark = with_attr(&sc, "data-spark-checkpoint");
        assert_eq!(spark.len(), 1);
        assert_eq!(spark[0].get("data-resume-snapshot"), Some("9"));
        // Lanes.
        assert_eq!(with_attr(&sc, "data-lane").len(), m.lanes.len());
    }

    #[test]
    fn the_active_mark_holds_the_tab_stop_and_the_tooltip() {
        let t = sample::table(30);
        let m = Model::new(&t);
        let v = View::fit(&m);
        let mut u = ui();
        u.active = Some(12);
        u.focus = Some(sample::LOST);
        let sc = scene(&t, &m, &v, &u);
        let stops: Vec<_> = sc
            .elements()
            .into_iter()
            .filter(|n| n.get("tabindex") == Some("0"))
            .collect();
        assert_eq!(stops.len(), 1);
        assert_eq!(stops[0].get("data-snapshot-id"), Some("12"));
        assert_eq!(stops[0].get("aria-describedby"), Some("tip"));
        assert!(sc
            .elements()
            .iter()
            .any(|n| n.get("class") == Some("tl-focus-ring")));
        let lost = sc
            .elements()
            .into_iter()
            .find(|n| n.get("data-snapshot-id") == Some("7"))
            .unwrap();
        assert!(lost.get("class").unwrap().contains("tl-focus"));
        assert!(lost.get("aria-label").unwrap().contains("lost changelog"));
    }

    #[test]
    fn ten_thousand_snapshots_stay_within_the_node_budget() {
        let t = sample::table(10_000);
        let m = Model::new(&t);
        let full = View::fit(&m);
        let sc = scene(&t, &m, &full, &ui());
        assert!(sc.dense);
        assert_eq!(sc.visible, 10_000);
        let nodes = sc.dom_nodes();
        assert!(nodes <= 2_000, "{nodes} DOM nodes");
        assert!(with_attr(&sc, "data-snapshot-id").is_empty());
        let aggs = with_attr(&sc, "data-snapshot-range");
        let counted: usize = aggs
            .iter()
            .filter(|n| n.tag == "rect")
            .map(|n| n.get("data-count").unwrap().parse::<usize>().unwrap())
            .sum();
        assert_eq!(counted, 10_000);
        // The bin holding the lost changelog says so.
        assert!(aggs.iter().any(|n| {
            let (a, b) = n
                .get("data-snapshot-range")
                .unwrap()
                .split_once('-')
                .unwrap();
            let (a, b): (i64, i64) = (a.parse().unwrap(), b.parse().unwrap());
            a <= sample::LOST
                && sample::LOST <= b
                && n.get("data-finding-code") == Some("lost-changelog")
        }));
        // Exactly one tab stop.
        assert_eq!(
            sc.elements()
                .iter()
                .filter(|n| n.get("tabindex") == Some("0"))
                .count(),
            1
        );
        // At every zoom level: within budget, single marks only when sparse enough.
        let mut v = full;
        let mut saw_single = false;
        let mut most = 0;
        for _ in 0..40 {
            let sc = scene(&t, &m, &v, &ui());
            let nodes = sc.dom_nodes();
            most = most.max(nodes);
            assert!(nodes <= 2_000, "{nodes} DOM nodes at span {}", v.span);
            let singles = with_attr(&sc, "data-snapshot-id").len();
            if sc.dense {
                assert_eq!(singles, 0);
            } else {
                saw_single = true;
                assert_eq!(singles, sc.visible);
                assert!(sc.visible as f64 * MIN_MARK_PX <= PLOT_W);
            }
            v = v.zoom(0.8, 5_000.0, &m);
        }
        assert!(saw_single);
        println!("DOM nodes at 10,000 snapshots: {nodes} zoomed out, at most {most} at any zoom");
    }

    #[test]
    fn many_lanes_at_ten_thousand_snapshots_stay_within_the_budget() {
        let mut t = sample::table(10_000);
        for (k, s) in t.snapshots.iter_mut().enumerate() {
            s.commit_user = format!("user-{}", (k * 7919) % 40);
        }
        let m = Model::new(&t);
        assert_eq!(m.lanes.len(), MAX_LANES);
        let mut v = View::fit(&m);
        for _ in 0..30 {
            let sc = scene(&t, &m, &v, &ui());
            let nodes = sc.dom_nodes();
            assert!(nodes <= 2_000, "{nodes} DOM nodes at span {}", v.span);
            v = v.zoom(0.8, 5_000.0, &m);
        }
    }

    #[test]
    fn aggregates_partition_the_visible_snapshots() {
        let t = sample::table(5_000);
        let m = Model::new(&t);
        let v = View {
            start: 1000.0,
            span: 2000.0,
        };
        let aggs = aggregates(&m, &v);
        let (lo, hi) = m.visible(&v);
        assert_eq!(aggs.iter().map(|a| a.count).sum::<usize>(), hi - lo);
        assert!(aggs.len() <= MAX_AGGREGATES + 2 * m.lanes.len());
        for a in &aggs {
            assert!(a.first <= a.last);
            assert_eq!(a.first.div_euclid(a.width), a.bin);
            assert_eq!(a.last.div_euclid(a.width), a.bin);
            assert_eq!(a.kinds.iter().sum::<usize>(), a.count);
        }
        // Bins of one lane do not overlap.
        for w in aggs.windows(2) {
            if w[0].lane == w[1].lane {
                assert!(w[0].last < w[1].first);
            }
        }
    }

    #[test]
    fn zoom_and_pan_stay_inside_the_domain() {
        let t = sample::table(1_000);
        let m = Model::new(&t);
        let full = View::fit(&m);
        let z = full.zoom(0.1, 500.0, &m);
        assert!((z.span - full.span * 0.1).abs() < 1e-6);
        // The centre keeps its place.
        assert!((z.x(500.0) - full.x(500.0)).abs() < 1e-6);
        let p = z.pan(1e9, &m);
        assert!((p.start + p.span - m.domain.1).abs() < 1e-6);
        let p = z.pan(-1e9, &m);
        assert!((p.start - m.domain.0).abs() < 1e-6);
        let tiny = full.zoom(1e-9, 10.0, &m);
        assert!((tiny.span - MIN_SPAN).abs() < 1e-6);
        let huge = full.zoom(1e9, 10.0, &m);
        assert_eq!(huge, full);
        // x and id_at are inverse.
        assert!((z.id_at(z.x(321.5)) - 321.5).abs() < 1e-9);
        // Revealing an id zooms to single marks and shows it.
        let r = full.reveal(600, &m);
        assert!(!m.dense(&r));
        assert!(r.start <= 599.5 && r.start + r.span >= 600.5);
    }

    #[test]
    fn clamping_the_whole_domain_never_panics() {
        // 10,000: domain -199.02..10202.02, whose width rounds: `domain.1 - span` < `domain.0`.
        for n in [1, 2, 5, 30, 299, 1_000, 9_999, 10_000, 33_333] {
            let t = sample::table(n);
            let m = Model::new(&t);
            let fit = View::fit(&m);
            let c = fit.clamp(&m);
            assert!((c.start - fit.start).abs() < 1e-6 && (c.span - fit.span).abs() < 1e-6);
            let _ = c.zoom(0.999_999, c.center(), &m).pan(1e-9, &m);
        }
    }

    #[test]
    fn keyboard_steps_move_by_id_and_across_lanes() {
        let t = sample::table(40);
        let m = Model::new(&t);
        assert_eq!(m.step(None, 1), Some(3));
        assert_eq!(m.step(None, -1), Some(42));
        assert_eq!(m.step(Some(3), 1), Some(4));
        assert_eq!(m.step(Some(3), -1), Some(3));
        assert_eq!(m.step(Some(42), 1), Some(42));
        // From writer-1's 9 down to the compactor's 10 (its nearest), and back up.
        assert_eq!(m.lane_step(9, 1), Some(10));
        assert_eq!(m.lane_step(10, -1), Some(9));
        assert_eq!(m.lane_step(9, -1), None);
    }

    #[test]
    fn stacking_keeps_labels_apart() {
        let items = [
            (0.0, 50.0),
            (10.0, 50.0),
            (60.0, 20.0),
            (20.0, 50.0),
            (30.0, 5.0),
        ];
        let rows = stack(&items, 2);
        assert_eq!(rows, vec![Some(0), Some(1), Some(0), None, None]);
    }

    #[test]
    fn ticks_are_round_and_inside() {
        let v = View {
            start: 0.5,
            span: 10_000.0,
        };
        let t = ticks(&v);
        assert!(t.len() >= 4 && t.len() <= 12, "{t:?}");
        assert!(t
            .iter()
            .all(|&x| x % 1000 == 0 || x % 500 == 0 || x % 2000 == 0));
        let v = View {
            start: 2.0,
            span: 8.0,
        };
        assert_eq!(ticks(&v), vec![2, 3, 4, 5, 6, 7, 8, 9, 10]);
    }

    #[test]
    fn offscreen_flags_point_the_way() {
        let t = sample::table(500);
        let m = Model::new(&t);
        let v = View {
            start: 300.0,
            span: 50.0,
        };
        let sc = scene(&t, &m, &v, &ui());
        let c = with_attr(&sc, "data-consumer");
        assert!(c.iter().all(|n| n.get("data-offscreen") == Some("left")));
    }

    #[test]
    fn an_uncommitted_spark_batch_gets_its_own_flag() {
        let mut t = sample::table(30);
        let sp = t.spark_checkpoints.first_mut().unwrap();
        sp.planned_offset = sp.offset.map(|mut o| {
            o.snapshot_id = 20;
            o
        });
        let m = Model::new(&t);
        let sc = scene(&t, &m, &View::fit(&m), &ui());
        let planned = with_attr(&sc, "data-spark-planned");
        assert_eq!(planned.len(), 1);
        assert_eq!(planned[0].get("data-snapshot"), Some("20"));
        assert_eq!(with_attr(&sc, "data-spark-checkpoint").len(), 1);
        assert!(summary(&t, &m).contains("planned up to 20 never committed"));
    }

    #[test]
    fn crowded_flags_stay_in_the_drawing_without_labels() {
        let mut t = sample::table(30);
        let c = t.consumers.first().unwrap().clone();
        t.consumers = (0..12)
            .map(|k| {
                let mut c = c.clone();
                c.id = format!("reader-{k}");
                c
            })
            .collect();
        let m = Model::new(&t);
        let sc = scene(&t, &m, &View::fit(&m), &ui());
        let flags = with_attr(&sc, "data-consumer");
        assert_eq!(flags.len(), 12);
        let unlabelled = flags
            .iter()
            .filter(|f| f.children.iter().all(|c| c.tag != "text"))
            .count();
        assert_eq!(unlabelled, 12 - MAX_FLAG_ROWS);
        assert!(flags
            .iter()
            .all(|f| f.get("aria-label").is_some() || f.children.iter().any(|c| c.tag == "text")));
    }

    #[test]
    fn gaps_are_drawn_as_missing_ranges() {
        let mut t = sample::table(60);
        t.snapshots.retain(|s| !(20..=29).contains(&s.id));
        t.findings.push(
            prv::report::model::Finding::new(
                Code::SnapshotGap,
                prv::report::model::Severity::Error,
                "gap",
                "remedy",
            )
            .snapshot(20)
            .related([19, 30]),
        );
        let m = Model::new(&t);
        let sc = scene(&t, &m, &View::fit(&m), &ui());
        let gap: Vec<_> = with_attr(&sc, "data-band")
            .into_iter()
            .filter(|n| n.get("data-band") == Some("gap"))
            .collect();
        assert_eq!(gap.len(), 1);
        assert_eq!(gap[0].get("data-range"), Some("20-29"));
    }

    #[test]
    fn many_tags_are_counted_per_bin() {
        let mut t = sample::table(10_000);
        let tag = t.tags.first().unwrap().clone();
        t.tags = (0..500)
            .map(|k| {
                let mut g = tag.clone();
                g.name = format!("daily-{k}");
                g.snapshot = Some(3 + k * 20);
                g
            })
            .collect();
        let m = Model::new(&t);
        let sc = scene(&t, &m, &View::fit(&m), &ui());
        let groups = with_attr(&sc, "data-tag-count");
        assert!(!groups.is_empty() && groups.len() < 30, "{}", groups.len());
        let tagged: usize = groups
            .iter()
            .map(|g| g.get("data-tag-count").unwrap().parse::<usize>().unwrap())
            .sum();
        assert_eq!(tagged, 500);
        assert!(with_attr(&sc, "data-tag").is_empty());
        assert!(sc.dom_nodes() <= 2_000);
        // Zoomed in, each tag is named.
        let v = View {
            start: 100.0,
            span: 100.0,
        };
        let sc = scene(&t, &m, &v, &ui());
        assert_eq!(with_attr(&sc, "data-tag").len(), 5);
    }

    #[test]
    fn summary_names_the_problems() {
        let t = sample::table(30);
        let m = Model::new(&t);
        let s = summary(&t, &m);
        assert!(s.contains("30 snapshots"), "{s}");
        assert!(s.contains("EARLIEST hint 2 disagrees with 3"), "{s}");
        assert!(s.contains("lost changelog at 7"), "{s}");
        assert!(
            s.contains("consumer cdc-reader at 9 (past-lost-changelog)"),
            "{s}"
        );
        assert!(s.contains("Spark checkpoint query-1 resumes at 9"), "{s}");
    }
}
