//! The timeline as a standalone SVG document ("download SVG"), and the legend both outputs share.

use prv::report::model::TableReport;

use super::layout::{scene, summary, Kind, Model, Ui, View, WIDTH};
use super::node::{escape, fmt_num, Node};

/// The timeline's stylesheet (`web/styles/timeline.css`), embedded in every export.
pub const STYLE: &str = include_str!("../../styles/timeline.css");

/// One legend entry: a 14×14 symbol and its label.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    /// The symbol, drawn in a `0 0 14 14` box.
    pub symbol: Node,
    /// What it means.
    pub label: &'static str,
}

fn flag_symbol(tone: &'static str, fill: &'static str) -> Node {
    Node::new("g")
        .attr("class", format!("tl-flag {tone}"))
        .child(
            Node::new("rect")
                .attr("class", "tl-flag-box")
                .attr("x", "1")
                .attr("y", "3")
                .attr("width", "12")
                .attr("height", "8")
                .attr("rx", "2")
                .attr("fill", fill),
        )
}

/// The legend: kinds, highlights, bands, markers, flags.
pub fn legend() -> Vec<LegendEntry> {
    let mut out: Vec<LegendEntry> = Kind::ALL
        .iter()
        .map(|k| LegendEntry {
            symbol: k
                .shape(7.0, 7.0, 4.5)
                .attr("class", format!("tl-mark {}", k.class()))
                .attr("fill", k.fill())
                .attr("stroke", "#1b1f24")
                .attr("stroke-width", "0.75"),
            label: match k {
                Kind::Append => "APPEND",
                Kind::Compact => "COMPACT",
                Kind::Overwrite => "OVERWRITE",
                Kind::Analyze => "ANALYZE",
                Kind::Other => "other kind",
            },
        })
        .collect();
    out.push(LegendEntry {
        symbol: Node::new("circle")
            .attr("class", "tl-mark tl-append tl-lost")
            .attr("cx", "7")
            .attr("cy", "7")
            .attr("r", "4.5")
            .attr("fill", "#2f81f7")
            .attr("stroke", "#cf222e")
            .attr("stroke-width", "2.5"),
        label: "lost changelog",
    });
    out.push(LegendEntry {
        symbol: Node::new("circle")
            .attr("class", "tl-mark tl-append tl-pending")
            .attr("cx", "7")
            .attr("cy", "7")
            .attr("r", "4.5")
            .attr("fill", "#2f81f7")
            .attr("stroke", "#bf8700")
            .attr("stroke-width", "2.5"),
        label: "changelog pending",
    });
    out.push(LegendEntry {
        symbol: Node::new("path")
            .attr("class", "tl-pair")
            .attr("d", "M1 11Q7 1 13 11")
            .attr("fill", "none")
            .attr("stroke", "#8c959f")
            .attr("stroke-width", "1.5"),
        label: "one commit (user + identifier)",
    });
    out.push(LegendEntry {
        symbol: Node::new("rect")
            .attr("class", "tl-agg tl-append")
            .attr("x", "1")
            .attr("y", "3")
            .attr("width", "12")
            .attr("height", "8")
            .attr("fill", "#2f81f7"),
        label: "several snapshots (zoom in)",
    });
    out.push(LegendEntry {
        symbol: Node::new("g").attr("class", "tl-band-expired").child(
            Node::new("rect")
                .attr("x", "0")
                .attr("y", "0")
                .attr("width", "14")
                .attr("height", "14")
                .attr("fill", "#d0d7de"),
        ),
        label: "expired ids",
    });
    out.push(LegendEntry {
        symbol: Node::new("g").attr("class", "tl-band-changelog").child(
            Node::new("rect")
                .attr("x", "0")
                .attr("y", "4")
                .attr("width", "14")
                .attr("height", "6")
                .attr("fill", "#1b7c83")
                .attr("fill-opacity", "0.35"),
        ),
        label: "long-lived changelog",
    });
    out.push(LegendEntry {
        symbol: Node::new("g").attr("class", "tl-band-gap").child(
            Node::new("rect")
                .attr("x", "0")
                .attr("y", "0")
                .attr("width", "14")
                .attr("height", "14")
                .attr("fill", "#cf222e")
                .attr("fill-opacity", "0.15"),
        ),
        label: "missing snapshots (gap)",
    });
    out.push(LegendEntry {
        symbol: Node::new("g").attr("class", "tl-marker tl-hint").child(
            Node::new("path")
                .attr("d", "M7 12l4 -6h-8Z")
                .attr("fill", "#0969da"),
        ),
        label: "EARLIEST/LATEST hint (red: disagrees)",
    });
    out.push(LegendEntry {
        symbol: Node::new("g").attr("class", "tl-marker tl-tag").child(
            Node::new("rect")
                .attr("x", "3.5")
                .attr("y", "3.5")
                .attr("width", "7")
                .attr("height", "7")
                .attr("transform", "rotate(45 7 7)")
                .attr("fill", "#9a6700"),
        ),
        label: "tag",
    });
    out.push(LegendEntry {
        symbol: flag_symbol("tl-ok", "#1a7f37"),
        label: "consumer / checkpoint: safe",
    });
    out.push(LegendEntry {
        symbol: flag_symbol("tl-warn", "#9a6700"),
        label: "warning",
    });
    out.push(LegendEntry {
        symbol: flag_symbol("tl-bad", "#cf222e"),
        label: "unsafe",
    });
    out
}

/// The legend drawn in SVG, wrapping at [`WIDTH`]; returns the nodes and their height.
fn legend_nodes(top: f64) -> (Node, f64) {
    let mut g = Node::new("g").attr("class", "tl-legend-svg");
    let (mut x, mut y) = (8.0, top);
    for e in legend() {
        let w = 20.0 + e.label.chars().count() as f64 * 6.3 + 14.0;
        if x + w > WIDTH {
            x = 8.0;
            y += 18.0;
        }
        g = g
            .child(
                Node::new("g")
                    .attr(
                        "transform",
                        format!("translate({} {})", fmt_num(x), fmt_num(y)),
                    )
                    .child(e.symbol),
            )
            .child(
                Node::new("text")
                    .num("x", x + 19.0)
                    .num("y", y + 11.0)
                    .attr("fill", "#1b1f24")
                    .text(e.label),
            );
        x += w;
    }
    (g, y + 18.0 - top)
}

/// The timeline of `table` as a standalone SVG document: `xmlns`, a title and description, the
/// embedded stylesheet (light and dark), a background, the drawing of `view` (the whole table
/// when `None`, aggregated where dense, as on the page) and the legend. Each mark has a
/// `<title>` with its summary.
pub fn to_svg_string(table: &TableReport, view: Option<View>) -> String {
    let m = Model::new(table);
    let view = view.map_or_else(|| View::fit(&m), |v| v.clamp(&m));
    let sc = scene(table, &m, &view, &Ui::default());
    let (legend, legend_h) = legend_nodes(sc.height + 4.0);
    let height = sc.height + 4.0 + legend_h + 4.0;
    let title = format!("Snapshot timeline: {} ({})", table.path, table.branch);
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tl-svg\" role=\"img\" \
         aria-labelledby=\"tl-title tl-desc\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" \
         data-testid=\"timeline\">",
        w = fmt_num(WIDTH),
        h = fmt_num(height)
    ));
    out.push_str(&format!(
        "<title id=\"tl-title\">{}</title><desc id=\"tl-desc\">{}</desc>",
        escape(&title),
        escape(&summary(table, &m))
    ));
    out.push_str("<style>");
    // The sheet holds no `<` or `&`; escape anyway so the document stays well-formed.
    out.push_str(&escape(STYLE).replace("&quot;", "\""));
    out.push_str("</style>");
    Node::new("rect")
        .attr("class", "tl-bg")
        .attr("x", "0")
        .attr("y", "0")
        .attr("width", "100%")
        .attr("height", "100%")
        .attr("fill", "#ffffff")
        .write_xml(&mut out);
    for n in &sc.nodes {
        n.write_xml(&mut out);
    }
    legend.write_xml(&mut out);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    /// Checks that tags nest and close (enough XML to catch a broken writer).
    fn well_formed(doc: &str) -> Result<usize, String> {
        let body = doc
            .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            .ok_or("no XML declaration")?;
        let mut stack: Vec<&str> = Vec::new();
        let mut elements = 0;
        let mut rest = body;
        while let Some(open) = rest.find('<') {
            let after = &rest[open + 1..];
            let close = after.find('>').ok_or("unclosed tag")?;
            let tag = &after[..close];
            if let Some(name) = tag.strip_prefix('/') {
                let top = stack.pop().ok_or("close without open")?;
                if top != name {
                    return Err(format!("</{name}> closes <{top}>"));
                }
            } else {
                elements += 1;
                let name = tag.split([' ', '/']).next().unwrap_or("");
                if !tag.ends_with('/') {
                    stack.push(name);
                }
            }
            if tag.contains('<') {
                return Err(format!("'<' inside tag {tag}"));
            }
            rest = &after[close + 1..];
        }
        if stack.is_empty() {
            Ok(elements)
        } else {
            Err(format!("unclosed {stack:?}"))
        }
    }

    #[test]
    fn a_small_table_exports_a_standalone_svg() {
        let mut t = sample::table(30);
        t.path = "a<b>&\"c\"".to_string();
        let svg = to_svg_string(&t, None);
        assert!(well_formed(&svg).is_ok(), "{:?}", well_formed(&svg));
        assert!(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("role=\"img\""));
        assert!(svg.contains("<style>"));
        assert!(svg.contains("prefers-color-scheme: dark"));
        assert!(svg.contains("a&lt;b&gt;&amp;&quot;c&quot;"));
        assert!(!svg.contains("a<b>"));
        assert_eq!(svg.matches("data-snapshot-id=").count(), 30);
        assert!(svg.contains("data-finding-code=\"lost-changelog\""));
        // Static: titles, no tab stops.
        assert!(svg.contains("<title>Snapshot 7 · APPEND"));
        assert!(!svg.contains("tabindex"));
        assert!(svg.contains("lost changelog</text>"));
    }

    #[test]
    fn ten_thousand_snapshots_export_aggregated() {
        let t = sample::table(10_000);
        let svg = to_svg_string(&t, None);
        let elements = well_formed(&svg).unwrap();
        assert!(elements < 2_500, "{elements} elements");
        assert!(!svg.contains("data-snapshot-id="));
        assert!(svg.contains("data-snapshot-range=\"3-"));
        // A chosen view exports that view.
        let svg = to_svg_string(
            &t,
            Some(View {
                start: 4_000.0,
                span: 100.0,
            }),
        );
        assert!(svg.contains("data-snapshot-id=\"4050\""));
    }

    #[test]
    fn the_legend_names_every_kind() {
        let labels: Vec<_> = legend().iter().map(|e| e.label).collect();
        for k in [
            "APPEND",
            "COMPACT",
            "OVERWRITE",
            "ANALYZE",
            "lost changelog",
            "tag",
        ] {
            assert!(labels.contains(&k), "{k}");
        }
    }
}

/// `PRV_TIMELINE_DUMP=dir cargo test -p paimon-recovery-validator-web dump_samples` writes the
/// sample exports there, to look at.
#[cfg(test)]
mod dump {
    #[test]
    fn dump_samples() {
        let Some(dir) = std::env::var_os("PRV_TIMELINE_DUMP") else {
            return;
        };
        let dir = std::path::PathBuf::from(dir);
        for n in [30, 300, 10_000] {
            let svg = super::to_svg_string(&super::super::sample::table(n), None);
            std::fs::write(dir.join(format!("timeline-{n}.svg")), svg).unwrap();
        }
        // PRV_TIMELINE_REPORT=report.json (the CLI's --format json): every table of it.
        if let Some(report) = std::env::var_os("PRV_TIMELINE_REPORT") {
            let text = std::fs::read_to_string(report).unwrap();
            let report: prv::report::model::Report = serde_json::from_str(&text).unwrap();
            for (k, t) in report.tables.iter().enumerate() {
                let svg = super::to_svg_string(t, None);
                std::fs::write(dir.join(format!("report-{k}.svg")), svg).unwrap();
            }
        }
    }
}
