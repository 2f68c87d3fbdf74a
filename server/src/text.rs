//! The human-readable form of a report, a predicted profile: the machine, then per file
//! and unit the predicted time (computation / communication, `≥` when it leaves
//! something out), the hot loops and statements ranked by their share of it, what it
//! leaves out; then the unit's loops and statements in source order with their counts,
//! and the findings as `path:line:col: ...`. Lines stay within 80 columns where the
//! source allows.

use costline_ide::label;
use costline_ide::report::{DiagnosticReport, Metrics, Output, ReportSink, UnitReport};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;

/// A [`ReportSink`] writing the report as text, a unit at a time.
pub struct TextReport<W: Write> {
    out: Output<W>,
    /// The path of the file being written.
    path: String,
}

impl<W: Write> TextReport<W> {
    /// Starts the report on `out`: the user's bindings and the machine.
    pub fn new(out: W, machine: &str, params: &BTreeMap<String, i64>) -> TextReport<W> {
        let mut head = String::new();
        if !params.is_empty() {
            let params: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(head, "params: {}", params.join(", "));
        }
        let _ = writeln!(head, "machine: {machine}");
        let mut out = Output::new(out);
        out.write(&head);
        TextReport {
            out,
            path: String::new(),
        }
    }

    /// Ends the report and hands back the writer, or the first write error.
    pub fn finish(self) -> Result<W, std::io::Error> {
        self.out.finish()
    }
}

impl<W: Write> ReportSink for TextReport<W> {
    fn file(&mut self, path: &str, form: &'static str) {
        self.path = path.to_string();
        self.out.write(&format!("{path} ({form} form)\n"));
    }

    fn unit(&mut self, unit: UnitReport) {
        let mut text = String::new();
        render_unit(&mut text, &unit);
        self.out.write(&text);
    }

    fn end_file(&mut self, diagnostics: Vec<DiagnosticReport>) {
        let mut text = String::new();
        for d in &diagnostics {
            // In an included file: its path, then where it was included from,
            // innermost first (as C compilers say it).
            let via: Vec<String> = d
                .included_from
                .iter()
                .rev()
                .map(|s| format!("{}:{}", s.path, s.line))
                .collect();
            let via = if via.is_empty() {
                String::new()
            } else {
                format!(" (included from {})", via.join(", from "))
            };
            let _ = writeln!(
                text,
                "{}:{}:{}: {}[{}]: {}{via}",
                d.file.as_deref().unwrap_or(&self.path),
                d.line,
                d.column,
                d.severity.as_str(),
                d.code,
                d.message
            );
        }
        self.out.write(&text);
    }
}

fn render_unit(out: &mut String, unit: &UnitReport) {
    let host = unit
        .host
        .as_ref()
        .map(|h| format!(" in {h}"))
        .unwrap_or_default();
    // How often the unit runs in the program, on how many processors, how evenly.
    let mut summary = String::new();
    if let Some(v) = &unit.metrics.freq {
        let estimated = if unit.metrics.exact == Some(false) {
            "~"
        } else {
            ""
        };
        summary += &format!("  ×{estimated}{}", number(v.to_f64()));
    }
    if let Some(p) = unit.processors {
        summary += &format!("  on {p} processors");
    }
    if let Some(wd) = unit.metrics.wd {
        summary += &format!("  wd {wd:.2}");
    }
    let _ = writeln!(
        out,
        "  {} {}{host}  (lines {}-{}){summary}",
        unit.kind, unit.name, unit.line, unit.end_line
    );
    if unit.kind != "module" {
        profile(out, unit);
    }
    let mut needs: Vec<&str> = unit
        .loops
        .iter()
        .map(|l| &l.metrics)
        .chain(unit.statements.iter().map(|s| &s.metrics))
        .flat_map(|m| m.needs.iter().map(String::as_str))
        .collect();
    needs.sort_unstable();
    needs.dedup();
    if !needs.is_empty() {
        let _ = writeln!(
            out,
            "    counts need values for: {} (--param NAME=VALUE)",
            needs.join(", ")
        );
    }
    if !unit.constants.is_empty() {
        let cs: Vec<String> = unit
            .constants
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(out, "    constants: {}", cs.join(", "));
    }
    for a in &unit.arrays {
        let _ = writeln!(
            out,
            "    array {}({}): {}",
            a.name,
            a.shape.join(", "),
            a.ty
        );
    }
    // Loops and statements interleaved in source order, indented by loop depth, each
    // with how often it runs.
    let mut rows: Vec<(u32, u32, usize, String, String)> = Vec::new();
    for l in &unit.loops {
        let header = match (l.kind, &l.var, &l.lower, &l.upper, &l.condition) {
            ("do_while", _, _, _, Some(c)) => format!("do while ({c})"),
            ("do_forever", ..) => "do".to_string(),
            (kind, Some(v), Some(lo), Some(up), _) => {
                let step = l
                    .step
                    .as_ref()
                    .map(|s| format!(", {s}"))
                    .unwrap_or_default();
                format!("{kind} {v} = {lo}, {up}{step}")
            }
            (kind, ..) => kind.to_string(),
        };
        let independent = if l.independent { "  [independent]" } else { "" };
        rows.push((
            l.line,
            l.column,
            l.depth,
            format!("{header}{independent}"),
            count(&l.metrics),
        ));
    }
    for s in &unit.statements {
        rows.push((s.line, s.column, s.depth, s.text.clone(), count(&s.metrics)));
    }
    rows.sort_by_key(|r| (r.0, r.1, r.2));
    let width = rows
        .iter()
        .map(|r| 2 * r.2 + r.3.chars().count())
        .max()
        .unwrap_or(0)
        .min(60);
    for (line, _, depth, text, count) in rows {
        let body = format!("{}{text}", "  ".repeat(depth));
        let pad = width.saturating_sub(body.chars().count());
        let _ = writeln!(out, "    {line:>5}  {body}{}  {count}", " ".repeat(pad));
    }
}

/// How often something runs and how evenly: `×1024 · wd 0.42`, `×~50` (estimated),
/// `×?` (an unknown needs a value).
fn count(m: &Metrics) -> String {
    let estimated = if m.exact == Some(false) { "~" } else { "" };
    let freq = match &m.freq {
        Some(v) => format!("×{estimated}{}", number(v.to_f64())),
        None if !m.needs.is_empty() => "×?".to_string(),
        None => String::new(),
    };
    match (m.wd, m.spread) {
        (_, Some("replicated")) if !freq.is_empty() && m.work_total.is_some() => {
            format!("{freq} · replicated")
        }
        (Some(wd), _) if !freq.is_empty() => format!("{freq} · wd {wd:.2}"),
        _ => freq,
    }
}

/// Integers as they are up to ten million, then 1.23e9; fractions to 3 decimals.
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e7 {
        format!("{x:.0}")
    } else if x.abs() >= 1e7 {
        format!("{x:.2e}")
    } else {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Hot spots listed per unit.
const HOT: usize = 3;

/// Places a unit leaves out listed in the text.
const MISSING: usize = 3;

/// The communication time of `m`: `?` when it was left out and nothing of it was
/// modelled (absent), `≥` when some of it was left out.
fn communication(m: &Metrics) -> String {
    let left_out = m.missing.iter().any(|p| p.is_communication());
    match m.comm_s {
        None => "?".to_string(),
        Some(s) if left_out => format!("≥ {}", label::seconds(s)),
        Some(s) => label::seconds(s),
    }
}

/// The unit's predicted time, its hot spots and what it leaves out.
fn profile(out: &mut String, unit: &UnitReport) {
    let m = &unit.metrics;
    let bound = if m.complete == Some(false) {
        "≥"
    } else {
        "≈"
    };
    match m.time_s {
        Some(t) => {
            let _ = writeln!(
                out,
                "    time {bound} {}/run (compute {}, communication {})",
                label::seconds(t),
                label::seconds(m.ct_s.unwrap_or(0.0)),
                communication(m)
            );
        }
        None => {
            let _ = writeln!(out, "    time ?/run (counts need values)");
        }
    }
    if let Some(total) = m.time_s.filter(|t| *t > 0.0) {
        // Outermost loops and statements, by their share of the unit's time.
        let mut hot: Vec<(f64, u32, String)> = unit
            .loops
            .iter()
            .filter(|l| l.depth == 0)
            .filter_map(|l| {
                let what = format!("do {}", l.var.as_deref().unwrap_or(""));
                Some((l.metrics.time_s? / total, l.line, what))
            })
            .chain(
                unit.statements
                    .iter()
                    .filter(|s| s.depth == 0)
                    .filter_map(|s| Some((s.metrics.time_s? / total, s.line, s.text.clone()))),
            )
            .filter(|h| h.0 >= 0.01)
            .collect();
        hot.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (share, line, what) in hot.into_iter().take(HOT) {
            let what: String = what.chars().take(52).collect();
            let _ = writeln!(
                out,
                "    hot {:>5.1} %  line {line:>5}  {what}",
                100.0 * share
            );
        }
    }
    if m.complete == Some(false) {
        let more = m.missing.len().saturating_sub(MISSING) + m.missing_more.unwrap_or(0);
        let _ = writeln!(out, "    incomplete: it leaves out");
        for x in m.missing.iter().take(MISSING) {
            let what: String = x.what.chars().take(54).collect();
            let _ = writeln!(out, "      line {:>5} {}: {what}", x.line, x.code);
        }
        if more > 0 {
            let _ = writeln!(out, "      … and {more} more (--format json lists them)");
        }
    }
}
