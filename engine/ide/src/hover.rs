//! Hovers: on an assignment or loop, its count as a formula and a number, its work
//! distribution (wd, owork, the per-processor table, the most and least loaded
//! processors) and what the numbers assume; on a DISTRIBUTE or ALIGN directive, the
//! assignments whose work it spreads and how evenly; on a unit's header, how often it
//! runs and its wd.

use super::cache_hover::cache_section;
use super::comm_hover::comm_section;
use super::mpi_hover;
use super::time_hover::time_section;
use super::{Lazy, UnitAt, header, header_directive, innermost_unit, label, units_of};
use costline_db::analysis::Constants;
use costline_db::{
    File, constants, context, counts, freqs, lower, mappings, stmt_formula, stmt_load, values, work,
};
use costline_model::freq::Count;
use costline_model::work::imbalance::loop_wd;
use costline_model::work::{Load, Spread};
use costline_symbolic::{EvalError, Num};
use costline_syntax::ir::directive::DirectiveKind;
use costline_syntax::ir::{LoopOrigin, Stmt, StmtKind, Unit, UnitKind};
use costline_syntax::span::Span;
use std::fmt::Write;

/// Markdown about the item at a range of the file's text.
#[derive(Clone, Debug, PartialEq)]
pub struct Hover {
    pub range: Span,
    pub markdown: String,
}

/// Rows of the per-processor table beyond which it is folded (first and last rows kept).
const TABLE_ROWS: usize = 16;

pub(super) fn hover(db: &dyn salsa::Database, file: File, offset: u32) -> Option<Hover> {
    let (source, units) = units_of(db, file);
    let source = source?;
    let at = source.to_normalized(offset);
    // The innermost unit holding the offset in its own text.
    let (u, own) = innermost_unit(&units, at)?;
    hover_in(db, u, own)
}

/// What is known of the item at `own`, an offset of the unit's own text.
fn hover_in(db: &dyn salsa::Database, u: &UnitAt, own: u32) -> Option<Hover> {
    let ir = lower(db, u.unit);
    if let Some(d) = ir.directives.iter().find(|d| contains(d.span, own)) {
        return directive_hover(db, u, &ir, d.span, &d.kind);
    }
    if let Some(s) = innermost(&ir.body, own) {
        return Some(statement_hover(db, u, &ir, s));
    }
    contains(ir.header, own).then(|| unit_hover(db, u, &ir))
}

/// The hover at `offset` of the header at `path`, which `files` include: on a
/// directive, what it maps in every unit that includes it; on anything else, the
/// hover of the first unit whose text holds it.
pub(super) fn header_hover(
    db: &dyn salsa::Database,
    files: &[File],
    path: &str,
    offset: u32,
) -> Option<Hover> {
    let placed = header::placed(db, files, path, offset);
    let first = placed.first()?;
    let ir = lower(db, first.unit.unit);
    if let Some(d) = ir.directives.iter().find(|d| contains(d.span, first.own))
        && first.unit.written_here(d.span)
    {
        let range = first.unit.original(d.span);
        let units = header::directive_units(db, files, path, range);
        return Some(header_directive::hover(
            db, files, path, &units, range, &d.kind,
        ));
    }
    hover_in(db, &first.unit, first.own)
}

fn contains(span: Span, at: u32) -> bool {
    span.start <= at && at <= span.end
}

/// The innermost assignment, CALL or DO loop whose text holds `at` (a loop only by its
/// header; a statement made of loops by normalization counts as its assignment).
fn innermost(stmts: &[Stmt], at: u32) -> Option<&Stmt> {
    for s in stmts {
        if !contains(s.span, at) {
            continue;
        }
        match &s.kind {
            StmtKind::Loop(l) => {
                if let Some(inner) = innermost(&l.body, at) {
                    return Some(inner);
                }
                if l.origin == LoopOrigin::Do && contains(l.header, at) {
                    return Some(s);
                }
            }
            StmtKind::If(i) => {
                if let Some(inner) = i.branches.iter().find_map(|b| innermost(&b.body, at)) {
                    return Some(inner);
                }
            }
            StmtKind::Select(sel) => {
                if let Some(inner) = sel.cases.iter().find_map(|c| innermost(&c.body, at)) {
                    return Some(inner);
                }
            }
            StmtKind::Assign { .. } | StmtKind::Call(_) => return Some(s),
            _ => {}
        }
    }
    None
}

/// `**once**`, `**1,024** times`.
fn times(x: f64) -> String {
    if x == 1.0 {
        "**once**".into()
    } else {
        format!("**{}** times", label::full(x))
    }
}

/// `per call of `f`` or `per program run`.
fn per(ir: &Unit) -> String {
    match ir.kind {
        UnitKind::Program => "per program run".into(),
        _ => format!("per call of `{}`", ir.name),
    }
}

/// The count of a statement: its value (or what it needs), exactness and formula.
fn count_section(
    out: &mut String,
    ir: &Unit,
    (count, known): (&Count, &Constants),
    value: Option<&Result<Num, EvalError>>,
) {
    match value {
        Some(Ok(v)) => {
            let how = if count.is_exact() && !crate::profile::measured_values(known, count).1 {
                "exactly"
            } else {
                "an estimate"
            };
            let _ = writeln!(out, "runs {} {} ({how})\n", times(v.to_f64()), per(ir));
        }
        Some(Err(e)) => {
            let _ = writeln!(out, "runs an unknown number of times {}: {e}\n", per(ir));
        }
        None => {}
    }
    if let Some(f) = count.symbolic() {
        let _ = writeln!(out, "count = `{}`\n", label::formula(f, 400));
    }
}

/// What the count rests on besides the program text: its assumptions and the values
/// a profile run recorded.
fn assumptions(out: &mut String, u: &UnitAt, count: &Count, known: &Constants) {
    let (values, _) = crate::profile::measured_values(known, count);
    if count.assumptions.is_empty() && values.is_empty() {
        return;
    }
    out.push_str("assuming:\n");
    for a in &count.assumptions {
        let _ = writeln!(out, "- {}", a.describe(&|at| u.line(at)));
    }
    for v in values {
        let _ = writeln!(out, "- {v}");
    }
}

fn statement_hover(db: &dyn salsa::Database, u: &UnitAt, ir: &Unit, s: &Stmt) -> Hover {
    let freqs = freqs(db, u.unit);
    let counts = counts(db, u.unit);
    let mut out = String::new();
    let (span, title) = match &s.kind {
        StmtKind::Loop(l) => (l.header, "loop"),
        StmtKind::Call(_) => (s.span, "call"),
        _ => (s.span, "assignment"),
    };
    let _ = writeln!(out, "**{title}** (line {})\n", u.line(span));
    let Some(count) = freqs.of(s.id) else {
        out.push_str("not reached: no count\n");
        return Hover {
            range: u.original(span),
            markdown: out,
        };
    };
    let known = constants(db, u.unit);
    count_section(&mut out, ir, (count, &known), counts.freq(s.id));
    match &s.kind {
        StmtKind::Loop(l) => {
            let numbers = Lazy {
                db,
                unit: u.unit,
                counts: &counts,
            };
            let callee_wd = |name: &str| context(db, u.unit).callee_wds.get(name).copied();
            if let Some(wd) = loop_wd(l, &numbers, &callee_wd) {
                let _ = writeln!(
                    out,
                    "wd of its body **{wd:.2}** (the wd of its assignments and calls, weighted by how often they run)\n"
                );
            }
        }
        _ => work_section(
            db,
            u,
            s,
            count,
            stmt_load(db, u.unit, s.id).as_ref(),
            &mut out,
        ),
    }
    comm_section(db, u, s.id, &mut out);
    mpi_hover::call_section(db, u, s.id, &mut out);
    time_section(db, u, Some(s), &mut out);
    if matches!(s.kind, StmtKind::Loop(_)) {
        cache_section(db, u, s, &mut out);
    }
    assumptions(&mut out, u, count, &known);
    Hover {
        range: u.original(span),
        markdown: out,
    }
}

/// How an assignment's work is spread over the processors.
fn work_section(
    db: &dyn salsa::Database,
    u: &UnitAt,
    s: &Stmt,
    count: &Count,
    load: Option<&Load>,
    out: &mut String,
) {
    let work = work(db, u.unit);
    let Some(w) = work.of(s.id) else { return };
    let onto = w
        .arrangement
        .as_ref()
        .map(|a| a.name.clone())
        .unwrap_or_default();
    match &w.spread {
        Spread::Owned { array, .. } => {
            let _ = writeln!(
                out,
                "owner computes: the owners of `{array}` elements run it, on `{onto}`\n"
            );
        }
        Spread::Replicated => {
            let _ = writeln!(out, "replicated: every processor runs every iteration\n");
            return;
        }
        Spread::Irregular { array, why, .. } => {
            let _ = writeln!(
                out,
                "the owner of the `{array}` element cannot be followed ({why}): its work is assumed evenly spread over `{onto}`\n"
            );
        }
    }
    let Some(load) = load else {
        let needs: Vec<String> = count.unknowns().iter().map(|n| n.to_string()).collect();
        let _ = writeln!(
            out,
            "work per processor: needs the number of processors and values for {} (costline.params)\n",
            if needs.is_empty() {
                "the unknowns".into()
            } else {
                needs.join(", ")
            }
        );
        return;
    };
    let per = load.per_processor();
    let mean = load.owork();
    let _ = write!(
        out,
        "wd **{:.2}** over {} processors · owork {}",
        load.wd(),
        per.len(),
        label::compact(mean)
    );
    if let Some((max, min)) = load.extremes()
        && mean > 0.0
    {
        let _ = write!(
            out,
            " · most loaded p{max} ({:.2}× mean) · least loaded p{min} ({:.2}×)",
            per[max - 1] / mean,
            per[min - 1] / mean
        );
    }
    out.push_str("\n\n");
    table(out, per, mean);
    if matches!(w.spread, Spread::Owned { .. })
        && let Some(f) = stmt_formula(db, u.unit, s.id)
            .as_ref()
            .and_then(Count::symbolic)
    {
        let _ = writeln!(out, "work(S, p) = `{}`\n", label::formula(f, 400));
    }
}

/// The per-processor table, folded past [`TABLE_ROWS`] rows.
fn table(out: &mut String, per: &[f64], mean: f64) {
    out.push_str("| p | work | × mean |\n|---:|---:|---:|\n");
    let row = |out: &mut String, p: usize| {
        let ratio = if mean > 0.0 { per[p] / mean } else { 0.0 };
        let _ = writeln!(
            out,
            "| {} | {} | {ratio:.2} |",
            p + 1,
            label::compact(per[p])
        );
    };
    label::folded_rows(out, per.len(), TABLE_ROWS, &row, &|out, hidden| {
        let _ = writeln!(out, "| … | {hidden} more | |");
    });
    out.push('\n');
}

fn directive_hover(
    db: &dyn salsa::Database,
    u: &UnitAt,
    ir: &Unit,
    span: Span,
    kind: &DirectiveKind,
) -> Option<Hover> {
    let mut out = format!("**`!HPF$ {kind}`**\n\n");
    let maps = mappings(db, u.unit);
    let mut mapped: Vec<&str> = maps
        .arrays
        .iter()
        .filter(|(_, m)| m.directives.contains(&span))
        .map(|(a, _)| a.as_str())
        .collect();
    // In name order: the map's own order changes from run to run.
    mapped.sort_unstable();
    if !mapped.is_empty() {
        let names: Vec<String> = mapped.iter().map(|a| format!("`{a}`")).collect();
        let _ = writeln!(out, "maps {}\n", names.join(", "));
        let work = work(db, u.unit);
        let values = values(db, u.unit);
        let mut rows = Vec::new();
        ir.walk(&mut |s, _| {
            if let Some(w) = work.of(s.id)
                && let Spread::Owned { array, .. } | Spread::Irregular { array, .. } = &w.spread
                && mapped.contains(&array.as_str())
            {
                rows.push((u.line(s.span), values.load(s.id).map(Load::wd)));
            }
        });
        if rows.is_empty() {
            out.push_str("no assignment of the unit writes these arrays\n");
        } else {
            let _ = writeln!(out, "spreads the work of {} assignment(s):\n", rows.len());
            for (line, wd) in rows.iter().take(TABLE_ROWS) {
                match wd {
                    Some(wd) => {
                        let _ = writeln!(out, "- line {line}: wd {wd:.2}");
                    }
                    None => {
                        let _ = writeln!(out, "- line {line}: wd needs values (costline.params)");
                    }
                }
            }
            if rows.len() > TABLE_ROWS {
                let _ = writeln!(out, "- … {} more", rows.len() - TABLE_ROWS);
            }
        }
    }
    if let Some(i) = ir
        .directives
        .iter()
        .position(|d| d.span == span && matches!(d.kind, DirectiveKind::Distribute(_)))
        && let Some(section) = super::distribution::sparkline_section(db, u, i)
    {
        out.push('\n');
        out.push_str(&section);
    }
    Some(Hover {
        range: u.original(span),
        markdown: out,
    })
}

fn unit_hover(db: &dyn salsa::Database, u: &UnitAt, ir: &Unit) -> Hover {
    let mut out = format!(
        "**{} `{}`**\n\n",
        ir.kind.as_str().replace('_', " "),
        ir.name
    );
    if ir.kind != UnitKind::Module {
        let ctx = context(db, u.unit);
        match ctx.runs.value {
            Some(v) => {
                let _ = writeln!(out, "runs {} in the program\n", times(v.to_f64()));
            }
            None => {
                out.push_str("runs an unknown number of times (a caller's count needs values)\n\n")
            }
        }
        if let Some(note) = ctx.runs.note {
            let _ = writeln!(out, "({note})\n");
        }
        if !ctx.runs.callers.is_empty() {
            let callers: Vec<String> = ctx.runs.callers.iter().map(|c| format!("`{c}`")).collect();
            let _ = writeln!(out, "called from {}\n", callers.join(", "));
        }
        if let Some(wd) = ctx.wd {
            let _ = writeln!(
                out,
                "wd **{wd:.2}** (its assignments and calls, weighted by how often they run)\n"
            );
        }
        time_section(db, u, None, &mut out);
        mpi_hover::unit_section(db, u, &mut out);
    }
    // The header's span ends with its line terminator: the hover covers the text.
    let header = u.original(ir.header);
    let text = &u.source.original()[header.start as usize..header.end as usize];
    Hover {
        range: Span::new(
            header.start as usize,
            header.start as usize + text.trim_end().len(),
        ),
        markdown: out,
    }
}
