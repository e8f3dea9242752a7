//! Line charts as SVG, small enough to need no plotting crate: a grid of
//! panels, each with log or linear axes, ticks, a legend.

use std::fmt::Write;

/// One line of a chart.
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points, drawn in order.
    pub points: Vec<(f64, f64)>,
}

/// One panel.
pub struct Chart {
    /// Title above the panel.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Logarithmic (base 2) x axis.
    pub log_x: bool,
    /// Logarithmic (base 10) y axis.
    pub log_y: bool,
    /// The lines.
    pub series: Vec<Series>,
}

const W: f64 = 560.0;
const H: f64 = 380.0;
const ML: f64 = 80.0;
const MR: f64 = 150.0;
const MT: f64 = 40.0;
const MB: f64 = 55.0;
const COLORS: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.3}G", v / 1e9).replace(".000", "")
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6).replace(".0M", "M")
    } else if a >= 1e3 {
        format!("{:.1}k", v / 1e3).replace(".0k", "k")
    } else if a >= 10.0 || v == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// Renders `charts` in a grid `cols` wide.
pub fn svg(charts: &[Chart], cols: usize) -> String {
    let cols = cols.max(1);
    let rows = charts.len().div_ceil(cols).max(1);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="12">"#,
        W * cols as f64,
        H * rows as f64
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for (i, c) in charts.iter().enumerate() {
        let ox = (i % cols) as f64 * W;
        let oy = (i / cols) as f64 * H;
        panel(&mut s, c, ox, oy);
    }
    s.push_str("</svg>\n");
    s
}

fn panel(s: &mut String, c: &Chart, ox: f64, oy: f64) {
    let pts: Vec<(f64, f64)> = c
        .series
        .iter()
        .flat_map(|x| x.points.iter().copied())
        .filter(|p| {
            p.0.is_finite() && p.1.is_finite() && (!c.log_x || p.0 > 0.0) && (!c.log_y || p.1 > 0.0)
        })
        .collect();
    let tx = |v: f64| if c.log_x { v.log2() } else { v };
    let ty = |v: f64| if c.log_y { v.log10() } else { v };
    let (mut x0, mut x1) = pts.iter().fold((f64::MAX, f64::MIN), |a, p| {
        (a.0.min(tx(p.0)), a.1.max(tx(p.0)))
    });
    let (mut y0, mut y1) = pts.iter().fold((f64::MAX, f64::MIN), |a, p| {
        (a.0.min(ty(p.1)), a.1.max(ty(p.1)))
    });
    if pts.is_empty() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if !c.log_y {
        y0 = y0.min(0.0);
    } else {
        y0 = y0.floor();
        y1 = y1.ceil();
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    if !c.log_y {
        y1 *= 1.05;
    }
    let pw = W - ML - MR;
    let ph = H - MT - MB;
    let px = |v: f64| ox + ML + (tx(v) - x0) / (x1 - x0) * pw;
    let py = |v: f64| oy + MT + ph - (ty(v) - y0) / (y1 - y0) * ph;
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" font-size="14" font-weight="bold">{}</text>"#,
        ox + ML,
        oy + 22.0,
        esc(&c.title)
    );
    let _ = writeln!(
        s,
        r##"<rect x="{}" y="{}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>"##,
        ox + ML,
        oy + MT
    );
    // X ticks.
    let xt: Vec<f64> = if c.log_x {
        (x0.floor() as i32..=x1.ceil() as i32)
            .map(|e| 2f64.powi(e))
            .filter(|&v| tx(v) >= x0 - 1e-9 && tx(v) <= x1 + 1e-9)
            .collect()
    } else {
        (0..=5).map(|k| x0 + (x1 - x0) * k as f64 / 5.0).collect()
    };
    for v in xt {
        let x = px(v);
        let _ = writeln!(
            s,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#ddd"/><text x="{x}" y="{}" text-anchor="middle">{}</text>"##,
            oy + MT,
            oy + MT + ph,
            oy + MT + ph + 16.0,
            fmt_num(v)
        );
    }
    // Y ticks.
    let yt: Vec<f64> = if c.log_y {
        (y0 as i32..=y1 as i32).map(|e| 10f64.powi(e)).collect()
    } else {
        (0..=5).map(|k| y0 + (y1 - y0) * k as f64 / 5.0).collect()
    };
    for v in yt {
        let y = py(v);
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{}</text>"##,
            ox + ML,
            ox + ML + pw,
            ox + ML - 6.0,
            y + 4.0,
            fmt_num(v)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        ox + ML + pw / 2.0,
        oy + H - 14.0,
        esc(&c.x_label)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate({},{}) rotate(-90)" text-anchor="middle">{}</text>"#,
        ox + 18.0,
        oy + MT + ph / 2.0,
        esc(&c.y_label)
    );
    for (k, ser) in c.series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let path: Vec<String> = ser
            .points
            .iter()
            .filter(|p| {
                p.0.is_finite()
                    && p.1.is_finite()
                    && (!c.log_x || p.0 > 0.0)
                    && (!c.log_y || p.1 > 0.0)
            })
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        if path.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#,
            path.join(" ")
        );
        for p in &path {
            let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
            let _ = writeln!(s, r#"<circle cx="{x}" cy="{y}" r="3" fill="{color}"/>"#);
        }
        let ly = oy + MT + 10.0 + k as f64 * 18.0;
        let lx = ox + ML + pw + 12.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
            lx + 18.0,
            lx + 24.0,
            ly + 4.0,
            esc(&ser.name)
        );
    }
}
