//! The hover on a mapping directive written in a header: the header maps the arrays of
//! every unit that includes it, so the hover lists those units, the assignments whose
//! work the directive spreads in each, and (on a DISTRIBUTE) the program's predicted
//! time as written and under its best alternative.

use super::UnitAt;
use super::header::file_name;
use super::hover::Hover;
use super::label::seconds;
use super::program_alternatives::program_alternatives;
use costline_db::{File, lower, mappings, values, work};
use costline_model::work::{Load, Spread};
use costline_syntax::ir::directive::DirectiveKind;
use costline_syntax::span::Span;
use std::fmt::Write;

/// Units named in the list of includers before it is folded.
const NAMED_UNITS: usize = 8;

/// Units listed with their assignments before the list is folded.
const ROWS: usize = 12;

/// The hover of the directive written at `range` of the header at `path`; `units` are
/// the units that include it, each with the directive's index in its IR.
pub(super) fn hover(
    db: &dyn salsa::Database,
    files: &[File],
    path: &str,
    units: &[(UnitAt, usize)],
    range: Span,
    kind: &DirectiveKind,
) -> Hover {
    let mut out = format!("**`!HPF$ {kind}`** in `{}`\n\n", file_name(path));
    let names: Vec<String> = units
        .iter()
        .take(NAMED_UNITS)
        .map(|(u, _)| format!("`{}` ({})", u.chunk.name, file_name(u.source.path())))
        .collect();
    let more = units.len().saturating_sub(NAMED_UNITS);
    let _ = write!(
        out,
        "included by {} unit(s): {}",
        units.len(),
        names.join(", ")
    );
    if more > 0 {
        let _ = write!(out, ", … {more} more");
    }
    out.push_str("\n\n");
    let mut mapped: Vec<String> = Vec::new();
    let mut rows: Vec<(usize, String)> = Vec::new();
    for (u, i) in units {
        let ir = lower(db, u.unit);
        let span = ir.directives[*i].span;
        let maps = mappings(db, u.unit);
        let own: Vec<&str> = maps
            .arrays
            .iter()
            .filter(|(_, m)| m.directives.contains(&span))
            .map(|(a, _)| a.as_str())
            .collect();
        for a in &own {
            if !mapped.iter().any(|m| m == a) {
                mapped.push(a.to_string());
            }
        }
        let work = work(db, u.unit);
        let values = values(db, u.unit);
        let (mut n, mut wds, mut first) = (0, Vec::new(), None);
        ir.walk(&mut |s, _| {
            if let Some(w) = work.of(s.id)
                && let Spread::Owned { array, .. } | Spread::Irregular { array, .. } = &w.spread
                && own.contains(&array.as_str())
            {
                n += 1;
                first.get_or_insert(s.span);
                wds.extend(values.load(s.id).map(Load::wd));
            }
        });
        if let Some(first) = first {
            rows.push(unit_row(u, n, first, &wds));
        }
    }
    if !mapped.is_empty() {
        // In name order: the map's own order changes from run to run.
        mapped.sort_unstable();
        let names: Vec<String> = mapped.iter().map(|a| format!("`{a}`")).collect();
        let _ = writeln!(out, "maps {}\n", names.join(", "));
        if rows.is_empty() {
            out.push_str("no assignment of these units writes these arrays\n");
        } else {
            let _ = writeln!(
                out,
                "spreads the work of {} assignment(s) in {} unit(s):\n",
                rows.iter().map(|(n, _)| n).sum::<usize>(),
                rows.len()
            );
            for (_, row) in rows.iter().take(ROWS) {
                let _ = writeln!(out, "{row}");
            }
            if rows.len() > ROWS {
                let _ = writeln!(out, "- … {} more units", rows.len() - ROWS);
            }
            out.push('\n');
        }
    }
    if matches!(kind, DirectiveKind::Distribute(_)) {
        out.push_str(&program_section(db, files, units));
    }
    Hover {
        range,
        markdown: out,
    }
}

/// A unit's line of the list: `- `x_solve` (x_solve.f:40): 12 assignments, wd 0.00–0.25`
/// (`first` the span of its first assignment; `wds` those with a value).
fn unit_row(u: &UnitAt, n: usize, first: Span, wds: &[f64]) -> (usize, String) {
    let lo = wds.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = wds.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let wd = match wds.len() {
        0 => "wd needs values (costline.params)".to_string(),
        _ if hi - lo < 0.005 => format!("wd {lo:.2}"),
        _ => format!("wd {lo:.2}–{hi:.2}"),
    };
    let unknown = n - wds.len();
    let rest = if unknown > 0 && !wds.is_empty() {
        format!(" ({unknown} need values)")
    } else {
        String::new()
    };
    let what = if n == 1 { "assignment" } else { "assignments" };
    let row = format!(
        "- `{}` ({}:{}): {n} {what}, {wd}{rest}",
        u.chunk.name,
        file_name(u.source.path()),
        u.line(first)
    );
    (n, row)
}

/// The program's predicted time as written and under the best alternative, or why it
/// has none.
fn program_section(db: &dyn salsa::Database, files: &[File], units: &[(UnitAt, usize)]) -> String {
    let alts = match program_alternatives(db, files, units) {
        Ok(a) => a,
        Err(why) => return format!("program-wide alternatives: not priced ({why})\n"),
    };
    let p = alts
        .target
        .processors()
        .map(|p| format!(" at P={p}"))
        .unwrap_or_default();
    let mut out = format!(
        "**predicted time of the {}{p}**: as written {}",
        alts.scope.noun(),
        seconds(alts.written_s)
    );
    match alts.ranked.first() {
        Some((layout, t)) if *t < alts.written_s => {
            let _ = write!(
                out,
                "; best alternative `{}` {} ({:.1}× faster)",
                layout.formats_text(true, true),
                seconds(*t),
                alts.written_s / t.max(f64::MIN_POSITIVE)
            );
        }
        Some(_) => out.push_str("; no alternative is faster"),
        None => out.push_str("; no alternative for every unit that includes it"),
    }
    let _ = writeln!(
        out,
        " (the {} including unit(s) that run, each weighted by its runs)",
        alts.units
    );
    out
}
