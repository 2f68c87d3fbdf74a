//! Info diagnostics on counts: a loop whose trip count had to be assumed without a
//! pragma, and a count without a closed form (its numbers come from numeric counting).

use super::{Assumption, Source, UnitFrequencies};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::{StmtKind, Unit};

/// The notes on the loops of `unit`.
pub fn notes(unit: &Unit, freqs: &UnitFrequencies) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    unit.walk(&mut |s, _| {
        let StmtKind::Loop(l) = &s.kind else { return };
        let Some(count) = freqs.of(s.id) else { return };
        for a in &count.assumptions {
            if let Assumption::Trips { at, trips, source: Source::Default, why } = a
                && *at == l.header
            {
                out.push(Diagnostic::info(
                    l.header,
                    "unknown-trips",
                    format!("the trip count of this loop is unknown ({why}): {trips} assumed; give it with `!costline: trips N`"),
                ));
            }
        }
        if let Some(e) = count.symbolic_error() {
            out.push(Diagnostic::info(
                l.header,
                "no-closed-form",
                format!("no formula for this loop's count ({e}): its numbers come from counting for the current values"),
            ));
        }
    });
    out
}
