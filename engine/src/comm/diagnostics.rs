//! Findings on communication: a fetch that cannot be vectorized out of a loop over the
//! data it reads (`communication-in-loop`), and element-wise messages
//! (`fine-grained-communication`). Both only when the records show communication.

use super::records::{RefValues, UnitCommValues};
use crate::diagnostics::Diagnostic;
use crate::ir::{StmtKind, Unit};

/// The communication findings of a unit, at the references (unit-relative spans).
pub fn diagnostics(unit: &Unit, values: &UnitCommValues) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    unit.walk(&mut |s, _| {
        for r in values.of(s.id) {
            let Some(m) = r.metrics.filter(|m| m.nt > 0.0) else {
                continue;
            };
            let blocker = blocking_loop(unit, r);
            let messages = match m.nt {
                1.0 => "1 message".to_string(),
                n => format!("{} messages", crate::ide::label::compact(n)),
            };
            if r.element_wise() {
                out.push(Diagnostic::warning(
                    r.span,
                    "fine-grained-communication",
                    format!(
                        "`{}` is fetched one element at a time: the {blocker} writes `{}`, so the \
                         reads cannot be vectorized out of it ({messages} per run)",
                        r.reference, r.array
                    ),
                ));
            } else if r.kept_loops > 0 && r.indexed_by_kept_loop {
                out.push(Diagnostic::warning(
                    r.span,
                    "communication-in-loop",
                    format!(
                        "`{}` is fetched anew in every iteration of the {blocker}, which writes \
                         `{}` ({messages} per run instead of one vectorized message per \
                         processor pair)",
                        r.reference, r.array
                    ),
                ));
            }
        }
    });
    out
}

/// "DO loop over `j`", for the loop that keeps the fetch inside.
fn blocking_loop(unit: &Unit, r: &RefValues) -> String {
    let mut var = None;
    if let Some((id, _)) = r.blocked_by {
        unit.walk(&mut |s, _| {
            if s.id == id
                && let StmtKind::Loop(l) = &s.kind
            {
                var = l.var().map(str::to_string);
            }
        });
    }
    match var {
        Some(v) => format!("DO loop over `{v}`"),
        None => "enclosing loop".to_string(),
    }
}
