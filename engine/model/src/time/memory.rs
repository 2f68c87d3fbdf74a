//! Memory time of the assignments inside loop nests, from the cache model: a nest's
//! seconds of memory traffic per run (the lines each cache level loads at the
//! bandwidth of the level that supplies them, `cache::memory_seconds`, mean over the
//! processors) spread over its assignments in proportion to the array references each
//! makes, per execution. An execution then takes max(operations, memory): out-of-order
//! cores with hardware prefetchers overlap the two, so the slower decides (the roofline
//! rule); memory time shows only where it exceeds the computation.

use crate::cache::UnitCache;
use costline_syntax::ir::{Expr, StmtId, StmtKind, Unit, walk};
use std::collections::HashMap;

/// Seconds of memory traffic per execution of each assignment inside a nest.
pub fn memory_seconds(
    unit: &Unit,
    cache: &UnitCache,
    freq: &dyn Fn(StmtId) -> Option<f64>,
    processors: usize,
) -> HashMap<StmtId, f64> {
    let mut out = HashMap::new();
    walk(&unit.body, &mut |s, _| {
        let Some(nest) = cache.of(s.id).filter(|n| n.outermost) else {
            return;
        };
        if nest.memory_s.is_empty() {
            return;
        }
        let mean = nest.memory_s.iter().sum::<f64>() / nest.memory_s.len() as f64;
        let copies = if nest.divided { processors.max(1) } else { 1 } as f64;
        let per_run = mean * nest.entries * copies;
        // Array references per assignment of the nest.
        let mut refs: Vec<(StmtId, usize)> = Vec::new();
        walk(std::slice::from_ref(s), &mut |x, _| {
            if let StmtKind::Assign { lhs, rhs } = &x.kind {
                let mut n = 0;
                for e in [lhs, rhs] {
                    e.visit(&mut |y| n += usize::from(matches!(y, Expr::Array(_))));
                }
                refs.push((x.id, n));
            }
        });
        let all: usize = refs.iter().map(|(_, n)| n).sum();
        if all == 0 {
            return;
        }
        for (id, n) in refs {
            if let Some(f) = freq(id).filter(|f| *f > 0.0) {
                out.insert(id, per_run * n as f64 / all as f64 / f);
            }
        }
    });
    out
}
