//! Inlay hints: at the end of each DO header and each assignment, how often it runs per
//! run of its unit and, where its work is distributed, its wd — `×1.0e6 · wd 0.42`.
//! Only the units overlapping the requested range are analyzed.

use super::{UnitAt, label, overlaps, units_of};
use crate::db::{File, freqs, loop_wds, lower, values};
use crate::ir::{LoopOrigin, StmtKind};
use crate::span::Span;

/// One hint: its label at `offset` (into the file's text), and a tooltip.
#[derive(Clone, Debug, PartialEq)]
pub struct InlayHint {
    pub offset: u32,
    pub label: String,
    pub tooltip: String,
}

pub(super) fn inlay_hints(db: &dyn salsa::Database, file: File, range: Span) -> Vec<InlayHint> {
    let (_, units) = units_of(db, file);
    let mut out = Vec::new();
    for u in units.iter().filter(|u| overlaps(u.range(), range)) {
        unit_hints(db, u, range, &mut out);
    }
    out.sort_by_key(|h| h.offset);
    out
}

fn unit_hints(db: &dyn salsa::Database, u: &UnitAt, range: Span, out: &mut Vec<InlayHint>) {
    let ir = lower(db, u.unit);
    let freqs = freqs(db, u.unit);
    let values = values(db, u.unit);
    let loop_wds = loop_wds(db, u.unit);
    let per = match ir.kind {
        crate::ir::UnitKind::Program => "per program run".to_string(),
        _ => format!("per call of `{}`", ir.name),
    };
    ir.walk(&mut |s, _| {
        let (at, wd) = match &s.kind {
            // Array syntax, FORALL and WHERE become loops around their assignments: the
            // assignments carry the hint.
            StmtKind::Loop(l) if l.origin == LoopOrigin::Do => {
                (l.header, loop_wds.get(&s.id).copied())
            }
            StmtKind::Assign { .. } => (s.span, values.load(s.id).map(|l| l.wd())),
            _ => return,
        };
        let at = u.original(at);
        if !overlaps(Span::new(at.end as usize, at.end as usize), range) {
            return;
        }
        let Some(count) = freqs.of(s.id) else { return };
        let value = values.freq(s.id);
        let label = label::with_wd(label::count(value, count.is_exact()), wd);
        let mut tooltip = match value {
            Some(Ok(v)) => format!("runs {} times {per}", label::full(v.to_f64())),
            _ => {
                let needs: Vec<String> = count.unknowns().iter().map(|n| n.to_string()).collect();
                format!(
                    "the count needs values for {} (costline.params)",
                    needs.join(", ")
                )
            }
        };
        if let Some(f) = count.symbolic() {
            tooltip += &format!("\ncount = {}", label::formula(&f, 160));
        }
        if !count.is_exact() {
            tooltip += "\nestimated: see the hover for the assumptions";
        }
        out.push(InlayHint {
            offset: at.end,
            label,
            tooltip,
        });
    });
}
