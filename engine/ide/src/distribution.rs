//! Better distributions where the user is looking: code actions on a DISTRIBUTE, ALIGN
//! or PROCESSORS directive and on an imbalance or communication finding offer the
//! fastest alternatives (see [`costline_db::alternatives`]) with their predicted gain at the
//! current bindings and the problem sizes where they win; the hover on a DISTRIBUTE
//! draws the predicted time over P of the written and the best alternative.

use super::actions::CodeAction;
use super::directive_edit::{keyword, paren_group, style};
use super::label::seconds;
use super::{UnitAt, overlaps, units_of};
use costline_db::alternatives::{
    Evaluated, Explorer, Hand, Layout, Prediction, Target, alternatives, price_share,
};
use costline_db::{Analysis, Cancellable, File, lower, unit_diagnostics};
use costline_model::scaling::{Point, crossings_in_n};
use costline_syntax::ir::Unit;
use costline_syntax::ir::directive::{DirectiveKind, Onto};
use costline_syntax::span::Span;
use std::cell::RefCell;
use std::sync::atomic::AtomicUsize;

/// Findings whose fix may be another distribution.
const DISTRIBUTION_FINDINGS: [&str; 3] = [
    "imbalance",
    "fine-grained-communication",
    "communication-in-loop",
];

/// Alternatives offered per directive.
pub(super) const OFFERED: usize = 3;

/// An alternative must be this much faster to be offered.
pub(super) const MIN_GAIN: f64 = 1.01;

/// The DISTRIBUTE directives a range asks about: the ones it touches, those an ALIGN or
/// PROCESSORS it touches leads to, and every DISTRIBUTE of a unit when the range
/// touches one of its imbalance or communication findings.
pub(super) fn asked(db: &dyn salsa::Database, u: &UnitAt, ir: &Unit, range: Span) -> Vec<usize> {
    let touches = |s: Span| u.written_here(s) && overlaps(u.original(s), range);
    let distributes = costline_db::alternatives::distribute_directives(ir);
    let finding = unit_diagnostics(db, u.unit)
        .iter()
        .any(|d| DISTRIBUTION_FINDINGS.contains(&d.code) && touches(d.span));
    if finding {
        return distributes;
    }
    let mut out = Vec::new();
    for &i in &distributes {
        let DirectiveKind::Distribute(dist) = &ir.directives[i].kind else {
            continue;
        };
        let onto = match &dist.onto {
            Some(Onto::Target { name, .. }) => Some(name.name.as_str()),
            _ => None,
        };
        let names: Vec<&str> = dist.distributees.iter().map(|n| n.name.as_str()).collect();
        let hit = ir.directives.iter().enumerate().any(|(k, d)| {
            touches(d.span)
                && match &d.kind {
                    _ if k == i => true,
                    DirectiveKind::Align(a) => names.contains(&a.target.name.as_str()),
                    DirectiveKind::Processors(decls) => {
                        decls.iter().any(|p| Some(p.name.name.as_str()) == onto)
                    }
                    _ => false,
                }
        });
        if hit {
            out.push(i);
        }
    }
    out
}

/// The code actions replacing a DISTRIBUTE with a faster alternative.
pub(super) fn distribution_actions(
    a: &Analysis,
    path: &str,
    file: File,
    range: Span,
) -> Cancellable<Vec<CodeAction>> {
    // The alternatives of the directives asked about, priced on all cores first.
    let counter = AtomicUsize::new(0);
    a.on_all_cores(&|db, _, _| {
        let mut hand = Hand::new(&counter);
        let (_, units) = units_of(db, file);
        for u in units.iter().filter(|u| overlaps(u.range(), range)) {
            let ir = lower(db, u.unit);
            let asked: Vec<usize> = asked(db, u, &ir, range)
                .into_iter()
                .filter(|&i| u.written_here(ir.directives[i].span))
                .collect();
            price_share(db, u.unit, &asked, usize::MAX, &mut hand);
        }
    })?;
    // First what the snapshot knows (cheap, cancellable); the ranges after, each in a
    // private database of its own.
    let offers = a.with_db(|db| {
        let (source, units) = units_of(db, file);
        let Some(source) = source else {
            return Vec::new();
        };
        let text = source.original();
        let mut out = Vec::new();
        for u in units.iter().filter(|u| overlaps(u.range(), range)) {
            let ir = lower(db, u.unit);
            // A directive of an included file is not rewritten from here.
            let asked = asked(db, u, &ir, range);
            for i in asked
                .into_iter()
                .filter(|&i| u.written_here(ir.directives[i].span))
            {
                let Some((target, ranked)) = alternatives(db, u.unit, i) else {
                    continue;
                };
                let Some(current) = ranked.iter().find(|e| e.current).cloned() else {
                    continue;
                };
                for alt in ranked
                    .iter()
                    .filter(|e| !e.current)
                    // A time that leaves something out is a lower bound: no gain can
                    // be promised for it.
                    .filter(|e| e.prediction.complete)
                    .filter(|e| current.prediction.time_s > MIN_GAIN * e.prediction.time_s)
                    .take(OFFERED)
                {
                    if let Some(edits) = edits(text, u, &ir, &target, &alt.layout) {
                        out.push(Offer {
                            unit: ir.name.clone(),
                            directive: i,
                            diagnostic: u.original(ir.directives[i].span),
                            head: head(text, u, &ir, &target, &alt.layout),
                            alt: alt.clone(),
                            current: current.prediction,
                            processors: target.processors().unwrap_or(1),
                            edits,
                        });
                    }
                }
            }
        }
        out
    })?;
    let mut actions = Vec::new();
    let mut explorers: Vec<((String, usize), RefCell<Explorer>)> = Vec::new();
    for o in offers {
        let key = (o.unit.clone(), o.directive);
        if !explorers.iter().any(|(k, _)| *k == key) {
            let e = Explorer::of_analysis(a, path, &o.unit, o.directive);
            explorers.push((key.clone(), RefCell::new(e)));
        }
        let explorer = &explorers.iter().find(|(k, _)| *k == key).expect("added").1;
        let gain = o.current.time_s / o.alt.prediction.time_s;
        let at = explorer
            .borrow()
            .size_parameter()
            .map(|(n, v)| format!("{}={v}, ", n.to_ascii_uppercase()))
            .unwrap_or_default();
        // As written leaving something out, its time and so the gain are lower bounds.
        let least = if o.current.complete { "" } else { "≥ " };
        let mut title = format!(
            "{} — {least}{gain:.1}× faster at {at}P={} ({} instead of {least}{})",
            o.head,
            o.processors,
            seconds(o.alt.prediction.time_s),
            seconds(o.current.time_s)
        );
        if let Some(wins) = winning_range(explorer, &o.alt.layout, o.processors) {
            title.push_str("; ");
            title.push_str(&wins);
        }
        actions.push(CodeAction {
            title,
            fixes: "distribution",
            diagnostic: o.diagnostic,
            edits: o.edits,
            promised_s: Some(o.alt.prediction.time_s),
        });
    }
    Ok(actions)
}

/// An alternative found worth offering, before its range is known.
struct Offer {
    unit: String,
    directive: usize,
    diagnostic: Span,
    /// `DISTRIBUTE A(*, BLOCK) ONTO P(16)`.
    head: String,
    alt: Evaluated,
    current: Prediction,
    processors: i64,
    edits: Vec<(Span, String)>,
}

/// The directive as the alternative writes it, for the action's title.
pub(super) fn head(text: &str, u: &UnitAt, ir: &Unit, target: &Target, layout: &Layout) -> String {
    let DirectiveKind::Distribute(dist) = &ir.directives[target.directive].kind else {
        return String::new();
    };
    let names: Vec<&str> = dist
        .distributees
        .iter()
        .filter_map(|n| {
            let s = u.original(n.span);
            text.get(s.start as usize..s.end as usize)
        })
        .collect();
    let p = target.processors().unwrap_or(1);
    let mut out = format!(
        "DISTRIBUTE {}{}",
        names.join(", "),
        layout.formats_text(true, true)
    );
    if let (Some(name), Some(shape)) = (onto_name(ir, target), layout.shape_text(p, true)) {
        out.push_str(&format!(" ONTO {}{shape}", name.to_ascii_uppercase()));
    }
    out
}

fn onto_name(ir: &Unit, target: &Target) -> Option<String> {
    let (d, k) = target.arrangement?;
    match &ir.directives[d].kind {
        DirectiveKind::Processors(decls) => Some(decls.get(k)?.name.name.clone()),
        _ => None,
    }
}

/// The edits that write `layout` over the directive as written: its format list and,
/// when the grid's shape changes, the PROCESSORS declaration's; `None` when one of them
/// is written in another file than the one the answer is about.
pub(super) fn edits(
    text: &str,
    u: &UnitAt,
    ir: &Unit,
    target: &Target,
    layout: &Layout,
) -> Option<Vec<(Span, String)>> {
    let directive = &ir.directives[target.directive];
    let DirectiveKind::Distribute(dist) = &directive.kind else {
        return None;
    };
    if !u.written_here(directive.span) {
        return None;
    }
    let whole = u.original(directive.span);
    let (start, end) = (whole.start as usize, whole.end as usize);
    let own = text.get(start..end)?;
    // `DISTRIBUTE (BLOCK) :: A` lists the formats after the keyword, else after the
    // first distributee.
    let from = if own.contains("::") {
        keyword(text, "distribute", start, end)?.end as usize
    } else {
        u.original(dist.distributees.first()?.span).end as usize
    };
    let group = paren_group(text, from, end)?;
    let written = text.get(group.start as usize..group.end as usize)?;
    let (upper, spaced) = style(written);
    let mut out = vec![(group, layout.formats_text(upper, spaced))];
    let p = target.processors()?;
    if let Some((d, k)) = target.arrangement {
        let new = layout.grid.extents(p)?;
        if Some(&new) != target.extents.as_ref() {
            let DirectiveKind::Processors(decls) = &ir.directives[d].kind else {
                return None;
            };
            if !u.written_here(ir.directives[d].span) {
                return None;
            }
            let name = u.original(decls.get(k)?.name.span);
            let limit = u.original(ir.directives[d].span).end as usize;
            let shape = paren_group(text, name.end as usize, limit)?;
            let written = text.get(shape.start as usize..shape.end as usize)?;
            out.push((shape, layout.shape_text(p, style(written).1)?));
        }
    }
    Some(out)
}

/// The largest size the range search of a code action analyzes beyond twice the
/// current one: each sample is a whole analysis whose element-by-element counts grow
/// with N², so a fixed cap (not a clock) keeps a code action quick and its title the
/// same from run to run.
const RANGE_CAP: i64 = 1024;

/// Where the alternative beats the directive as written, over the size parameter from a
/// sixteenth to sixteen times its value (up to twice it, or [`RANGE_CAP`], beyond
/// that): `better for N ≥ 180`, `better for 60 ≤ N < 230`.
fn winning_range(explorer: &RefCell<Explorer>, layout: &Layout, p: i64) -> Option<String> {
    let (name, n0) = explorer.borrow().size_parameter()?.clone();
    let name = name.to_ascii_uppercase();
    let top = n0.saturating_mul(2).max(RANGE_CAP);
    let mut samples: Vec<i64> = (-4..=4)
        .map(|k| ((n0 as f64) * 2f64.powi(k)).round() as i64)
        .filter(|n| *n >= 2 && *n <= top)
        .collect();
    samples.dedup();
    let mut alt = |n: i64, p: i64| {
        explorer
            .borrow_mut()
            .predict(Some(layout), Some(n), p)
            .map(|q| q.point())
    };
    let mut written = |n: i64, p: i64| {
        explorer
            .borrow_mut()
            .predict(None, Some(n), p)
            .map(|q| q.point())
    };
    let crossings = crossings_in_n(&mut alt, &mut written, p, &samples);
    let (lo, hi) = (samples.first()?, samples.last()?);
    // Which is faster at the first sample: the opposite of the first change, or (no
    // change) the alternative, since it is faster at the current size.
    let mut winning = crossings.first().is_none_or(|c| c.faster == 1);
    let mut start = *lo;
    let mut parts = Vec::new();
    for c in &crossings {
        if winning {
            parts.push(interval(&name, start, Some(c.at), *lo));
        }
        winning = c.faster == 0;
        start = c.at;
    }
    if winning {
        parts.push(interval(&name, start, None, *lo));
    }
    if crossings.is_empty() {
        return Some(format!("better for every {name} in {lo}..{hi}"));
    }
    Some(format!("better for {}", parts.join(" and ")))
}

fn interval(name: &str, from: i64, to: Option<i64>, lo: i64) -> String {
    match to {
        Some(to) if from <= lo => format!("{name} < {to}"),
        Some(to) => format!("{from} ≤ {name} < {to}"),
        None => format!("{name} ≥ {from}"),
    }
}

/// Processor counts the hover's sparkline is drawn over.
const SPARK_PROCS: [i64; 7] = [1, 2, 4, 8, 16, 32, 64];

/// The hover section of a DISTRIBUTE: the predicted time over P of the distribution as
/// written and of the best alternative at the current P, as sparklines on one scale, and
/// where over P the order changes.
pub(super) fn sparkline_section(
    db: &dyn salsa::Database,
    u: &UnitAt,
    directive: usize,
) -> Option<String> {
    let (target, ranked) = alternatives(db, u.unit, directive)?;
    let written = ranked.iter().find(|e| e.current)?;
    let best = ranked.iter().find(|e| !e.current)?;
    let current = target.current.as_ref()?;
    let p0 = target.processors()?;
    let mut procs: Vec<i64> = SPARK_PROCS.to_vec();
    procs.push(p0);
    procs.sort_unstable();
    procs.dedup();
    let time = |layout: &Layout, p: i64| {
        costline_db::alternatives::predict_layout(db, u.unit, &target, layout, p).map(|q| q.time_s)
    };
    let line =
        |layout: &Layout| -> Vec<Option<f64>> { procs.iter().map(|&p| time(layout, p)).collect() };
    let (a, b) = (line(current), line(&best.layout));
    let all: Vec<f64> = a.iter().chain(&b).flatten().copied().collect();
    if a.iter().flatten().count() < 2 {
        // A shared arrangement keeps its shape: nothing to draw over P.
        return Some(format!(
            "**predicted time at P={p0}**: as written `{}` {}, best alternative `{}` {}\n",
            written.layout.formats_text(true, true),
            seconds(written.prediction.time_s),
            best.layout.formats_text(true, true),
            seconds(best.prediction.time_s)
        ));
    }
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(0.0, f64::max);
    let mut out = format!(
        "**predicted time over P = {}–{}** (one scale, lower is faster)\n\n",
        procs[0],
        procs[procs.len() - 1]
    );
    for (label, e, series) in [("as written", written, &a), ("best alternative", best, &b)] {
        out.push_str(&format!(
            "- {label} `{}` `{}` {} at P={p0}\n",
            e.layout.formats_text(true, true),
            spark(series, lo, hi),
            seconds(e.prediction.time_s)
        ));
    }
    let point = |t: Option<f64>| {
        t.map(|time_s| Point {
            time_s,
            seq_s: 0.0,
            work: 0.0,
        })
    };
    let mut ma = |_: i64, p: i64| point(time(current, p));
    let mut mb = |_: i64, p: i64| point(time(&best.layout, p));
    let crossings = costline_model::scaling::crossings_in_p(&mut ma, &mut mb, 1, &procs);
    if crossings.is_empty() {
        out.push_str("\nno crossing over this range of P\n");
    }
    for c in crossings {
        let who = if c.faster == 0 {
            "as written"
        } else {
            "the alternative"
        };
        out.push_str(&format!(
            "\ncrossing: {who} is faster from P = {} on\n",
            c.at
        ));
    }
    Some(out)
}

/// A sparkline of `values` on the log scale lo..hi (`·` where there is no value).
fn spark(values: &[Option<f64>], lo: f64, hi: f64) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let (l, h) = (lo.max(1e-30).ln(), hi.max(1e-30).ln());
    values
        .iter()
        .map(|v| match v {
            Some(v) if h > l => {
                let x = ((v.max(1e-30).ln() - l) / (h - l) * 7.0).round();
                BARS[x.clamp(0.0, 7.0) as usize]
            }
            Some(_) => BARS[0],
            None => '·',
        })
        .collect()
}
