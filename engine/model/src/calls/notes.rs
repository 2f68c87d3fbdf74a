//! What a call says that the numbers do not show, as notes at the call.

use super::binding::{Actual, Site, bind};
use super::local::local_parts;
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::Unit;
use costline_syntax::ir::directive::{DirectiveKind, FormatClause};

/// What call `s` of the procedure `ir` says that the numbers do not show: how a call
/// of an `EXTRINSIC(HPF_LOCAL)` procedure spreads over the processors (or why that is
/// not known), and which sections of mapped arrays are passed without their mapping.
pub fn site_notes(s: &Site, ir: &Unit) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (k, (keyword, a)) in s.actuals.iter().enumerate() {
        if let Actual::Section {
            name,
            text,
            mapped: true,
            ..
        } = a
        {
            let dummy = keyword.as_ref().or(ir.dummies.get(k));
            if dummy.is_some_and(|d| maps_itself(ir, d)) {
                continue;
            }
            let dummy = dummy.map_or("its dummy".to_string(), |d| format!("`{d}`"));
            out.push(Diagnostic::warning(
                s.span,
                "not-modelled",
                format!(
                    "`{text}` is a section of the mapped array `{name}`: its mapping is not \
                         followed into `{}`, where {dummy} counts as not mapped (every processor \
                         does its work); pass the whole array, or map the dummy",
                    s.callee
                ),
            ));
        }
    }
    if !ir.is_hpf_local() {
        return out;
    }
    out.push(match local_parts(&bind(ir, &s.actuals)) {
        Ok(parts) => {
            let total: usize = parts.iter().map(|p| p.processors.len()).sum();
            let each: Vec<String> = parts
                .iter()
                .map(|p| format!("{} on {}", p.describe(), processors(&p.processors)))
                .collect();
            Diagnostic::info(
                s.span,
                "hpf-local",
                format!(
                    "`{}` is EXTRINSIC(HPF_LOCAL): each of the {total} processors runs it on \
                         its own part ({}), without communication; the call takes the busiest \
                         processor's time",
                    s.callee,
                    each.join("; ")
                ),
            )
        }
        Err(why) => Diagnostic::warning(
            s.span,
            "not-modelled",
            format!(
                "the processors' parts of this call of EXTRINSIC(HPF_LOCAL) `{}` are not \
                     known ({why}): it counts as the procedure reported",
                s.callee
            ),
        ),
    });
    out
}

/// Processor numbers as ranges: `1–3, 5`.
pub(super) fn processors(ps: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in ps {
        match runs.last_mut() {
            Some(r) if r.1 + 1 == p => r.1 = p,
            _ => runs.push((p, p)),
        }
    }
    let runs: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    format!(
        "processor{} {}",
        if ps.len() == 1 { "" } else { "s" },
        runs.join(", ")
    )
}

/// Whether procedure `ir` maps its dummy `dummy` with a directive of its own (an ALIGN,
/// or a DISTRIBUTE that is not transcriptive): what the actual's mapping is does not
/// change where its work runs there.
fn maps_itself(ir: &Unit, dummy: &str) -> bool {
    ir.directives.iter().any(|d| match &d.kind {
        DirectiveKind::Align(a) => a.alignees.iter().any(|n| n.name == dummy),
        DirectiveKind::Distribute(dist) => {
            !matches!(dist.formats, FormatClause::Transcriptive)
                && dist.distributees.iter().any(|n| n.name == dummy)
        }
        _ => false,
    })
}
