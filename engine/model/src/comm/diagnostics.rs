//! Findings on communication: a fetch that cannot be vectorized out of a loop over the
//! data it reads (`communication-in-loop`), and element-wise messages
//! (`fine-grained-communication`). Both only when the records show communication.

use super::records::UnitCommValues;
use super::{RefKind, UnitComm};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::{StmtId, Unit};

/// Whether [`diagnostics`] may find anything in `comm`: both findings are of a fetch
/// kept inside a loop (`kept > 0`) that communicates (not `Local`). Without one the
/// unit's records need not be counted nor its time predicted for its findings.
pub fn may_find(comm: &UnitComm) -> bool {
    comm.iter().any(|(_, refs)| {
        refs.iter()
            .any(|r| r.placement.kept > 0 && !matches!(r.kind, RefKind::Local))
    })
}

/// The communication findings of a unit, at the references (unit-relative spans).
/// `matters` tells the statements whose share of their unit's time is worth a finding.
pub fn diagnostics(
    unit: &Unit,
    values: &UnitCommValues,
    matters: &dyn Fn(StmtId) -> bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    unit.walk(&mut |s, _| {
        for r in values.of(s.id) {
            let Some(m) = r.metrics.filter(|m| m.nt > 0.0) else {
                continue;
            };
            if !(r.placement.kept > 0 && matters(s.id)) {
                continue;
            }
            let blocker = match r
                .placement
                .blocked_by
                .as_ref()
                .and_then(|b| b.var.as_deref())
            {
                Some(v) => format!("DO loop over `{v}`"),
                None => "enclosing loop".to_string(),
            };
            let messages = match m.nt {
                1.0 => "1 message".to_string(),
                n => format!("{} messages", costline_symbolic::compact(n)),
            };
            if r.element_wise() {
                out.push(Diagnostic::warning(
                    r.span,
                    "fine-grained-communication",
                    format!(
                        "`{}` is fetched one element at a time: the {blocker} may write elements \
                         of `{}` before it reads them, so the reads cannot be vectorized out of it \
                         ({messages} per run)",
                        r.reference, r.array
                    ),
                ));
            } else if r.placement.kept > 0 && r.indexed_by_kept_loop {
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
