//! The human-readable form of a report: per file, per unit, its loops and statements
//! in source order with their nesting, then the findings as `path:line:col: ...`.

use costline_engine::report::{FileReport, Report, UnitReport};
use std::fmt::Write;

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    if !report.params.is_empty() {
        let params: Vec<String> = report
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(out, "params: {}", params.join(", "));
    }
    for file in &report.files {
        render_file(&mut out, file);
    }
    out
}

fn render_file(out: &mut String, file: &FileReport) {
    let _ = writeln!(out, "{} ({} form)", file.path, file.form);
    for unit in &file.units {
        render_unit(out, unit);
    }
    for d in &file.diagnostics {
        let _ = writeln!(
            out,
            "{}:{}:{}: {}[{}]: {}",
            file.path,
            d.line,
            d.column,
            d.severity.as_str(),
            d.code,
            d.message
        );
    }
}

fn render_unit(out: &mut String, unit: &UnitReport) {
    let host = unit
        .host
        .as_ref()
        .map(|h| format!(" in {h}"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  {} {}{host}  (lines {}-{})",
        unit.kind, unit.name, unit.line, unit.end_line
    );
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
    // Loops and statements interleaved in source order, indented by loop depth.
    let mut rows: Vec<(u32, u32, usize, String)> = Vec::new();
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
        rows.push((l.line, l.column, l.depth, format!("{header}{independent}")));
    }
    for s in &unit.statements {
        rows.push((s.line, s.column, s.depth, s.text.clone()));
    }
    rows.sort_by_key(|r| (r.0, r.1, r.2));
    for (line, _, depth, text) in rows {
        let _ = writeln!(out, "    {line:>5}  {}{text}", "  ".repeat(depth));
    }
}
