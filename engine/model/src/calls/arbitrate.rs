//! Which binding a procedure is analysed under when its calls disagree: the binding of
//! the call site that runs most often (per run of its caller; the first on ties), the
//! other distinct bindings as variants (up to [`MAX_VARIANTS`]), and notes naming the
//! dummies the running sites bind differently. An `EXTRINSIC(HPF_LOCAL)` procedure is
//! analysed as it runs on the largest part of that site ([`LocalPart::heaviest`]).

use super::binding::{ActualMapping, Binding};
use super::local::{LocalPart, local_parts};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::Unit;

/// How many bindings of one procedure besides the reported one are analysed each.
pub const MAX_VARIANTS: usize = 8;

/// A call a procedure receives: (caller, the call's rank among the caller's calls of
/// the procedure, its count per run of the caller, its binding).
pub type CallerSite = (String, usize, Option<f64>, Binding);

/// The calls a procedure receives from outside its recursive cycle, and the binding
/// the procedure as written is analysed under.
#[derive(Debug, Default, PartialEq)]
pub struct Incoming {
    /// (caller, its call's rank among its calls of this procedure, count, binding).
    pub sites: Vec<CallerSite>,
    /// The binding of the site that runs most often (per run of its caller).
    pub chosen: Option<Binding>,
    /// The other bindings analysed as variants: the first [`MAX_VARIANTS`] distinct
    /// ones, in call order; a call with another counts as the procedure as reported
    /// (and a call from the procedure's own recursive cycle too).
    pub variants: Vec<Binding>,
    /// Where the running sites disagree, what was taken (spans: the dummies').
    pub notes: Vec<Diagnostic>,
}

/// The binding `ir` (the procedure `name` as written) is analysed under, given the
/// calls it receives from outside its recursive cycle.
pub fn arbitrate(ir: &Unit, name: &str, sites: Vec<CallerSite>) -> Incoming {
    let running: Vec<&CallerSite> = sites.iter().filter(|s| s.2 != Some(0.0)).collect();
    let chosen = running
        .iter()
        .copied()
        .reduce(|best, s| {
            if s.2.unwrap_or(-1.0) > best.2.unwrap_or(-1.0) {
                s
            } else {
                best
            }
        })
        .or(sites.first());
    if ir.is_hpf_local() {
        let chosen = chosen.cloned();
        return local_incoming(ir, sites, chosen);
    }
    let mut notes = chosen
        .map(|c| disagreements(ir, c, &running))
        .unwrap_or_default();
    let mut variants: Vec<Binding> = Vec::new();
    let mut distinct = 0;
    for s in &running {
        if chosen.is_some_and(|c| c.3 == s.3) || variants.contains(&s.3) {
            continue;
        }
        distinct += 1;
        if variants.len() < MAX_VARIANTS {
            variants.push(s.3.clone());
        }
    }
    if distinct > MAX_VARIANTS {
        notes.push(Diagnostic::info(
            ir.header,
            "call-binding",
            format!(
                "`{name}` is called with {} different bindings of its dummies: the first \
                 {MAX_VARIANTS} besides the one reported are analysed each, the calls with \
                 the others count as the one reported",
                distinct + 1
            ),
        ));
    }
    Incoming {
        chosen: chosen.map(|c| c.3.clone()),
        variants,
        sites,
        notes,
    }
}

/// The calls of an `EXTRINSIC(HPF_LOCAL)` procedure: it is analysed as it runs on the
/// largest part of the site that runs most often ([`LocalPart::heaviest`]); every
/// other part of every site is a variant (the database's `local_calls`).
fn local_incoming(ir: &Unit, sites: Vec<CallerSite>, chosen: Option<CallerSite>) -> Incoming {
    let span = ir.extrinsic.as_ref().map_or(ir.header, |e| e.1);
    let mut notes = Vec::new();
    let chosen = chosen.map(|(caller, rank, _, global)| match local_parts(&global) {
        Ok(parts) => {
            let part = LocalPart::heaviest(&parts);
            notes.push(Diagnostic::info(
                span,
                "hpf-local",
                format!(
                    "EXTRINSIC(HPF_LOCAL): each processor runs `{}` on its own part of the \
                     actual arrays, without communication; this report shows the part of \
                     processor {} ({}) as call {rank} from `{caller}` passes it, and each \
                     call costs its busiest processor's time",
                    ir.name,
                    part.processors.first().copied().unwrap_or(1),
                    part.describe()
                ),
            ));
            part.binding.clone()
        }
        Err(why) => {
            notes.push(Diagnostic::warning(
                span,
                "not-modelled",
                format!(
                    "EXTRINSIC(HPF_LOCAL): the processors' parts of call {rank} from \
                     `{caller}` are not known ({why}): `{}` is shown with the whole actuals",
                    ir.name
                ),
            ));
            global
        }
    });
    Incoming {
        sites,
        chosen,
        variants: Vec::new(),
        notes,
    }
}

/// Notes on the dummies the running sites bind differently from `chosen`.
fn disagreements(ir: &Unit, chosen: &CallerSite, running: &[&CallerSite]) -> Vec<Diagnostic> {
    let transcriptive = crate::distribution::transcriptive_dummies(ir);
    let site = |s: &CallerSite| {
        let count = match s.2 {
            None => "an unknown number of times".to_string(),
            Some(c) if (c - 1.0).abs() < f64::EPSILON => "once".to_string(),
            Some(c) => format!("{c} times"),
        };
        format!("call {} from `{}` ({count} per run of `{}`)", s.1, s.0, s.0)
    };
    let mut out = Vec::new();
    for dummy in &ir.dummies {
        let Some(sym) = ir.symbols.get(dummy) else {
            continue;
        };
        let describe = |b: &Binding| -> Option<String> {
            if sym.is_array() {
                if !transcriptive.contains(dummy) {
                    return None;
                }
                Some(match b.mapping(dummy)? {
                    ActualMapping::Replicated => "replicated".to_string(),
                    ActualMapping::Mapped(l) => l.describe(),
                    ActualMapping::Unknown => "a mapping without values".to_string(),
                })
            } else {
                b.values
                    .iter()
                    .find(|v| &v.0 == dummy)
                    .map(|v| v.1.to_string())
            }
        };
        let taken = describe(&chosen.3);
        let others: Vec<String> = running
            .iter()
            .filter(|s| describe(&s.3) != taken)
            .map(|s| {
                let what = describe(&s.3).unwrap_or_else(|| "unknown".into());
                format!("{what} by {}", site(s))
            })
            .collect();
        if others.is_empty() {
            continue;
        }
        let what = if sym.is_array() { "mappings" } else { "values" };
        out.push(Diagnostic::info(
            sym.span,
            "call-binding",
            format!(
                "the calls pass `{dummy}` different {what}: {} by {}, {}; this report shows \
                 `{}` as called by the first (it runs most), and every caller's totals \
                 count each call with its own",
                taken.unwrap_or_else(|| "unknown".into()),
                site(chosen),
                others.join(", "),
                ir.name
            ),
        ));
    }
    out
}
