//! The SVG plot of `costline compare`: panels of predicted time over problem size or
//! processor count, one line per distribution alternative, with crossing points marked.
//!
//! Plain string building: a fixed layout, "nice" ticks, a colorblind-friendly palette, and
//! every number printed with a fixed format so that the output is deterministic.

use std::fmt::Write as _;

#[cfg(test)]
mod tests;

/// One line on a chart: an alternative's predicted time over x.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// Shown in the shared legend; series with the same name share a color in every panel.
    pub name: String,
    /// `(x, seconds)` in drawing order (normally increasing x). Points that cannot be drawn
    /// (NaN, infinite, beyond ±1e300, or not positive on a log axis) are skipped and break
    /// the line.
    pub points: Vec<(f64, f64)>,
    /// drawn thicker (the user's current distribution)
    pub highlight: bool,
}

/// A vertical mark at x (a crossing point), labelled.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marker {
    /// In data units; a marker outside the chart's x range (set by the data) is not drawn.
    pub x: f64,
    /// Written along the line, reading upwards from near the top of the plot.
    pub label: String,
}

/// One panel: time (y, in seconds) over one parameter (x).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
    pub markers: Vec<Marker>,
}

/// Width of the document and of every panel; height of one panel.
const WIDTH: f64 = 720.0;
const PANEL_H: f64 = 330.0;
/// Margins of the plot area in a panel, for: the y ticks and label; the rightmost marker
/// label; the title; the x ticks and label.
const LEFT: f64 = 80.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 50.0;
/// Okabe–Ito (without its yellow) and Tol colors, distinguishable with color blindness.
const PALETTE: [&str; 10] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#882255",
    "#999933", "#332288",
];
/// Dash patterns, one per trip through the palette (the first is a solid line).
const DASHES: [&str; 4] = ["", "7 4", "2 3", "9 3 2 3"];
/// Attributes of grid lines at ticks and between decades, and of centered and right-aligned
/// text.
const GRID: &str = "stroke=\"#dddddd\"";
const MINOR_GRID: &str = "stroke=\"#f0f0f0\"";
const MIDDLE: &str = " text-anchor=\"middle\"";
const END: &str = " text-anchor=\"end\"";

/// Appends formatted text to a `String` (which cannot fail).
macro_rules! put {
    ($out:expr, $($arg:tt)*) => {{
        let _ = write!($out, $($arg)*);
    }};
}

/// Renders the charts as panels of one SVG document (stacked vertically, all the same
/// width), with one shared legend above them. Colors are assigned by series name in order of
/// first appearance over all charts.
pub fn render(charts: &[Chart]) -> String {
    let names = series_names(charts);
    let mut legend = String::new();
    let legend_h = draw_legend(&mut legend, charts, &names);
    let height = legend_h + PANEL_H * charts.len() as f64 + 8.0;
    let (w, h) = (num(WIDTH), num(height));
    let mut out = String::new();
    put!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n{legend}"
    );
    for (i, chart) in charts.iter().enumerate() {
        let y = legend_h + PANEL_H * i as f64;
        put!(out, "<g transform=\"translate(0,{})\">\n", num(y));
        draw_panel(&mut out, chart, &names);
        out += "</g>\n";
    }
    out += "</svg>\n";
    out
}

/// Every series name once, in order of first appearance; a name's index picks its style.
fn series_names(charts: &[Chart]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for s in charts.iter().flat_map(|c| &c.series) {
        if !names.contains(&s.name.as_str()) {
            names.push(&s.name);
        }
    }
    names
}

/// The color of the series named `names[index]`.
fn color(index: usize) -> &'static str {
    PALETTE[index % PALETTE.len()]
}

/// The line attributes of the series named `names[index]`: its color, a dash pattern once
/// the palette is used up, and its width.
fn stroke(index: usize, highlight: bool) -> String {
    let dash = match DASHES[(index / PALETTE.len()) % DASHES.len()] {
        "" => String::new(),
        dash => format!(" stroke-dasharray=\"{dash}\""),
    };
    let width = if highlight { "3.0" } else { "1.5" };
    let color = color(index);
    let join = "stroke-linejoin=\"round\"";
    format!("fill=\"none\" stroke=\"{color}\" stroke-width=\"{width}\"{dash} {join}")
}

/// Appends a `<line>` from `a` to `b` with the given attributes.
fn line(out: &mut String, a: (f64, f64), b: (f64, f64), attrs: &str) {
    let [x1, y1, x2, y2] = [a.0, a.1, b.0, b.1].map(num);
    put!(
        out,
        "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" {attrs}/>\n"
    );
}

/// Appends a `<text>` at `at` with the given attributes (leading space included), escaping `s`.
fn text(out: &mut String, at: (f64, f64), attrs: &str, s: &str) {
    let ([x, y], s) = ([at.0, at.1].map(num), esc(s));
    put!(out, "<text x=\"{x}\" y=\"{y}\"{attrs}>{s}</text>\n");
}

/// The attribute turning text at `at` by 90° to read upwards.
fn upwards(at: (f64, f64)) -> String {
    format!(" transform=\"rotate(-90 {} {})\"", num(at.0), num(at.1))
}

/// Appends the dot marking a data point.
fn dot(out: &mut String, at: (f64, f64), highlight: bool, color: &str) {
    let ([x, y], r) = ([at.0, at.1].map(num), if highlight { "3.5" } else { "2.5" });
    put!(
        out,
        "<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\" fill=\"{color}\"/>\n"
    );
}

/// Draws the shared legend (a sample line and the name per series, wrapped into rows) and
/// returns its height.
fn draw_legend(out: &mut String, charts: &[Chart], names: &[&str]) -> f64 {
    let (mut x, mut y) = (LEFT, 18.0);
    for (i, name) in names.iter().enumerate() {
        let mut all = charts.iter().flat_map(|c| &c.series);
        let highlight = all.any(|s| s.name == *name && s.highlight);
        let width = 34.0 + 6.5 * name.chars().count() as f64 + 18.0;
        if x > LEFT && x + width > WIDTH - RIGHT {
            (x, y) = (LEFT, y + 18.0);
        }
        line(out, (x, y), (x + 24.0, y), &stroke(i, highlight));
        dot(out, (x + 12.0, y), highlight, color(i));
        text(out, (x + 30.0, y + 4.0), "", name);
        x += width;
    }
    if names.is_empty() { 0.0 } else { y + 14.0 }
}

/// Draws one chart in panel coordinates (its top left corner at 0,0).
fn draw_panel(out: &mut String, chart: &Chart, names: &[&str]) {
    let (log_x, log_y) = (chart.log_x, chart.log_y);
    let drawable = |&&(x, y): &&(f64, f64)| usable(x, log_x) && usable(y, log_y);
    let points = || chart.series.iter().flat_map(|s| &s.points).filter(drawable);
    let x_ticks = ticks(points().map(|p| p.0), log_x);
    let y_ticks = ticks(points().map(|p| p.1), log_y);
    let (left, right, top, bottom) = (LEFT, WIDTH - RIGHT, TOP, PANEL_H - BOTTOM);
    let xs = Scale::new(&x_ticks, log_x, left, right);
    let ys = Scale::new(&y_ticks, log_y, bottom, top);
    let (mid_x, mid_y) = ((left + right) / 2.0, (top + bottom) / 2.0);

    for x in minor_ticks(&x_ticks, log_x).into_iter().map(|v| xs.px(v)) {
        line(out, (x, top), (x, bottom), MINOR_GRID);
    }
    for y in minor_ticks(&y_ticks, log_y).into_iter().map(|v| ys.px(v)) {
        line(out, (left, y), (right, y), MINOR_GRID);
    }
    for &v in &x_ticks {
        let x = xs.px(v);
        line(out, (x, top), (x, bottom + 4.0), GRID);
        text(out, (x, bottom + 16.0), MIDDLE, &fmt_x(v));
    }
    for &v in &y_ticks {
        let y = ys.px(v);
        line(out, (left - 4.0, y), (right, y), GRID);
        text(out, (left - 7.0, y + 4.0), END, &fmt_time(v));
    }
    let [l, r, t, b] = [left, right, top, bottom].map(num);
    put!(
        out,
        "<path d=\"M{l} {t}V{b}H{r}\" fill=\"none\" stroke=\"#333333\"/>\n"
    );
    let bold = format!("{MIDDLE} font-size=\"13\" font-weight=\"bold\"");
    text(out, (mid_x, 20.0), &bold, &chart.title);
    text(out, (mid_x, PANEL_H - 12.0), MIDDLE, &chart.x_label);
    let rotated = format!("{MIDDLE}{}", upwards((18.0, mid_y)));
    text(out, (18.0, mid_y), &rotated, &chart.y_label);
    if points().next().is_none() {
        let grey = format!("{MIDDLE} fill=\"#888888\"");
        text(out, (mid_x, mid_y), &grey, "no data");
    }

    // Highlighted series last, so that they are drawn on top.
    let mut series: Vec<&Series> = chart.series.iter().collect();
    series.sort_by_key(|s| s.highlight);
    for s in series {
        let index = names.iter().position(|n| *n == s.name).unwrap_or(0);
        put!(out, "<g><title>{}</title>\n", esc(&s.name));
        for run in runs(&s.points, &xs, &ys) {
            if run.len() >= 2 {
                let pts: Vec<_> = run.iter().map(|&(x, y)| num(x) + "," + &num(y)).collect();
                let (pts, stroke) = (pts.join(" "), stroke(index, s.highlight));
                put!(out, "<polyline points=\"{pts}\" {stroke}/>\n");
            }
            for &p in &run {
                dot(out, p, s.highlight, color(index));
            }
        }
        out.push_str("</g>\n");
    }

    // Markers left to right; a label that would overlap the previous one moves right.
    let in_range = chart.markers.iter().filter(|m| xs.contains(m.x));
    let mut marks: Vec<_> = in_range.map(|m| (xs.px(m.x), &m.label)).collect();
    marks.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut last_label = f64::NEG_INFINITY;
    for (x, label) in marks {
        line(
            out,
            (x, top),
            (x, bottom),
            "stroke=\"#555555\" stroke-dasharray=\"4 3\"",
        );
        last_label = x.max(last_label + 13.0);
        let at = (last_label + 12.0, top + 4.0);
        let halo = "fill=\"#333333\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"";
        text(out, at, &format!("{END} {halo}{}", upwards(at)), label);
    }
}

/// The drawable stretches of `points` in pixels: a point that cannot be drawn ends a stretch.
fn runs(points: &[(f64, f64)], xs: &Scale, ys: &Scale) -> Vec<Vec<(f64, f64)>> {
    let mut runs = vec![Vec::new()];
    for &(x, y) in points {
        if usable(x, xs.log) && usable(y, ys.log) {
            let pixel = (xs.px(x), ys.px(y));
            runs.last_mut().expect("never empty").push(pixel);
        } else if !runs.last().expect("never empty").is_empty() {
            runs.push(Vec::new());
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}

/// Whether `v` can be placed on an axis: finite and below 1e300 in magnitude (so that padded
/// ranges and ticks stay finite), and on a log axis at least 1e-300.
fn usable(v: f64, log: bool) -> bool {
    v.abs() < 1e300 && (!log || v >= 1e-300)
}

/// Maps data values to pixels along one axis (through log10 on a log axis).
struct Scale {
    log: bool,
    /// The axis range (in log10 units on a log axis) and the pixels of its ends.
    d0: f64,
    d1: f64,
    p0: f64,
    p1: f64,
}

impl Scale {
    /// The scale spanning `ticks` (first to last) over pixels `p0..p1`.
    fn new(ticks: &[f64], log: bool, p0: f64, p1: f64) -> Scale {
        let t = |v: Option<&f64>| v.map_or(0.0, |&v| if log { v.log10() } else { v });
        let (mut d0, mut d1) = (t(ticks.first()), t(ticks.last()));
        if d1 <= d0 || !(d1 - d0).is_finite() {
            (d0, d1) = (0.0, 1.0);
        }
        Scale {
            log,
            d0,
            d1,
            p0,
            p1,
        }
    }

    /// The pixel of value `v`.
    fn px(&self, v: f64) -> f64 {
        let t = if self.log { v.log10() } else { v };
        self.p0 + (t - self.d0) / (self.d1 - self.d0) * (self.p1 - self.p0)
    }

    /// Whether `v` is drawable and within the axis range.
    fn contains(&self, v: f64) -> bool {
        let t = if self.log { v.log10() } else { v };
        let eps = 1e-9 * (self.d1 - self.d0);
        usable(v, self.log) && t >= self.d0 - eps && t <= self.d1 + eps
    }
}

/// The ticks of an axis showing `values` (all usable): nice ticks, the first and last
/// enclosing the values (the axis spans first to last). One value (or none) gets a padded range.
fn ticks(values: impl Iterator<Item = f64>, log: bool) -> Vec<f64> {
    let (mut lo, mut hi) = values.fold((f64::INFINITY, -f64::INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    // No values (lo > hi) ends up in the last case too.
    if hi - lo <= 1e-4 * lo.abs().max(hi.abs()) {
        (lo, hi) = match (log, lo == 0.0) {
            (true, _) => (lo / 3.0, hi * 3.0),
            (false, true) => (-1.0, 1.0),
            (false, false) => (lo - 0.1 * lo.abs(), hi + 0.1 * hi.abs()),
        };
    }
    if hi <= lo || hi.is_nan() {
        (lo, hi) = if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    let nice = if log { log_ticks } else { linear_ticks };
    nice(lo, hi)
}

/// `m`·10^`e` as the nearest `f64` (exact decimal ticks, so labels and unit thresholds agree).
fn pow10(m: i64, e: i32) -> f64 {
    format!("{m}e{e}").parse().unwrap_or(f64::NAN)
}

/// Nice ticks on a linear axis: 4 to 8 consecutive multiples of a 1-2-5 step, the first ≤ `lo`
/// and the last ≥ `hi`.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut e = ((hi - lo) / 10.0).log10().floor().max(-330.0) as i32;
    loop {
        for m in [1, 2, 5] {
            let step = pow10(m, e);
            let first = (lo / step + 1e-9).floor() as i64;
            let last = (hi / step - 1e-9).ceil() as i64;
            if step > 0.0 && last.saturating_sub(first) <= 7 {
                return (first..=last)
                    .map(|k| pow10(k.saturating_mul(m), e))
                    .collect();
            }
        }
        e += 1;
    }
}

/// Nice ticks on a log axis over `lo..hi` (both > 0), enclosing them: 1, 2 and 5 of each
/// decade when that gives 4 to 8 ticks; over less than about a decade linear ticks; over more
/// decades every decade, or every 2nd, 5th, 10th, ... decade.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let dense = decade_ticks(lo, hi, &[1, 2, 5], 1);
    if (4..=8).contains(&dense.len()) {
        return dense;
    }
    if dense.len() < 4 {
        let linear = linear_ticks(lo, hi);
        if linear.first().is_some_and(|&t| t > 0.0) {
            return linear;
        }
    }
    for k in 0u32..=30 {
        let stride = [1, 2, 5][k as usize % 3] * 10i32.pow(k / 3);
        let ticks = decade_ticks(lo, hi, &[1], stride);
        if ticks.len() <= 8 {
            return ticks;
        }
    }
    vec![lo, hi]
}

/// The values `m`·10^`e` (`m` in `mantissas`, `e` a multiple of `stride`) from the largest
/// one ≤ `lo` to the smallest one ≥ `hi`.
fn decade_ticks(lo: f64, hi: f64, mantissas: &[i64], stride: i32) -> Vec<f64> {
    let (a, b, s) = (lo.log10(), hi.log10(), f64::from(stride));
    let e0 = (a / s).floor() as i32 * stride;
    let e1 = (b / s).ceil() as i32 * stride;
    let all: Vec<f64> = (e0..=e1)
        .step_by(stride as usize)
        .flat_map(|e| mantissas.iter().map(move |&m| pow10(m, e)))
        .collect();
    // `all` is sorted.
    let first = all.iter().filter(|v| v.log10() <= a + 1e-9).count().max(1) - 1;
    let last = all.len() - all.iter().filter(|v| v.log10() >= b - 1e-9).count();
    all.get(first..=last).unwrap_or(&[lo, hi]).to_vec()
}

/// Unlabelled grid values between the ticks of a log axis ticked at every decade: 2..9 of
/// each decade.
fn minor_ticks(ticks: &[f64], log: bool) -> Vec<f64> {
    let every_decade = ticks.windows(2).all(|w| (w[1] / w[0] - 10.0).abs() < 1e-6);
    if !log || ticks.len() < 2 || !every_decade {
        return Vec::new();
    }
    let between = |&t: &f64| (2..10).map(move |m| t * f64::from(m));
    ticks[..ticks.len() - 1].iter().flat_map(between).collect()
}

/// `v` with the fewest significant digits (3 to 6) that show it exactly (else 3), without
/// trailing zeros: `12`, `1.5`, `0.002`, `1.00001`.
fn sig(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{}", v + 0.0);
    }
    let mag = v.abs().log10().floor() as i32;
    let digits = |d: i32| format!("{v:.*}", (d - 1 - mag).max(0) as usize);
    let close = |p: f64| (p - v).abs() <= 1e-9 * v.abs();
    let s = (3..=6).map(digits).find(|s| s.parse().is_ok_and(close));
    // Printing the rounded value drops trailing zeros.
    let rounded: f64 = s.unwrap_or_else(|| digits(3)).parse().unwrap_or(v);
    format!("{}", rounded + 0.0)
}

/// An x value compactly: `500`, `1k`, `20k`, `1.5M`, `2G`; `1e15`, `5e-5` when far out.
fn fmt_x(v: f64) -> String {
    let a = v.abs() * (1.0 + 1e-9);
    let (div, suffix) = match a {
        _ if a >= 1e12 || (a > 0.0 && a < 1e-3) => return format!("{v:e}"),
        _ if a >= 1e9 => (1e9, "G"),
        _ if a >= 1e6 => (1e6, "M"),
        _ if a >= 1e3 => (1e3, "k"),
        _ => (1.0, ""),
    };
    format!("{}{suffix}", sig(v / div))
}

/// A time in seconds with a unit that keeps the number short: `1.2 s`, `12 ms`, `350 µs`,
/// `40 ns`; `1e7 s` when far out.
fn fmt_time(v: f64) -> String {
    let a = v.abs() * (1.0 + 1e-9);
    let (mul, unit) = match a {
        _ if a >= 1e6 || (a > 0.0 && a < 1e-12) => return format!("{v:e} s"),
        _ if a >= 1.0 || a == 0.0 => (1.0, "s"),
        _ if a >= 1e-3 => (1e3, "ms"),
        _ if a >= 1e-6 => (1e6, "µs"),
        _ => (1e9, "ns"),
    };
    format!("{} {unit}", sig(v * mul))
}

/// A pixel coordinate with one decimal (never `-0.0`, never non-finite).
fn num(v: f64) -> String {
    let v = if v.is_nan() { 0.0 } else { v.clamp(-1e6, 1e6) };
    format!("{:.1}", (v * 10.0).round() / 10.0 + 0.0)
}

/// `s` escaped for XML text and attribute values.
fn esc(s: &str) -> String {
    let s = s
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    s.replace('"', "&quot;").replace('\'', "&apos;")
}
