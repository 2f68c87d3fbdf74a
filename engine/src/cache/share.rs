//! Which part of a nest each processor runs: under owner computes a processor executes
//! the iterations whose left-hand side it owns, so the loop running through a
//! distributed dimension of the first assignment's left-hand side is cut into the
//! processors' blocks (the compiler reduces its bounds), and each processor's share of
//! that loop's iterations is its share of the assignment's executions.

use super::nest::Nest;
use crate::ir::{Expr, Stmt, StmtId, StmtKind, Subscript, walk};
use crate::work::Load;

/// The nest loop divided among the processors and the fraction of its iterations on
/// each processor.
pub type Share = (usize, Vec<f64>);

/// The division of a nest's iterations, or `None` when every processor runs the
/// whole nest.
pub fn nest_share(
    nest: &Nest,
    root: &Stmt,
    load: &dyn Fn(StmtId) -> Option<Load>,
    freq: &dyn Fn(StmtId) -> Option<f64>,
    divisor: &dyn Fn(&str, usize) -> i64,
    processors: usize,
) -> Option<Share> {
    if processors <= 1 {
        return None;
    }
    let mut found: Option<(Vec<f64>, &Expr)> = None;
    walk(std::slice::from_ref(root), &mut |s, _| {
        if found.is_some() {
            return;
        }
        let StmtKind::Assign { lhs, .. } = &s.kind else {
            return;
        };
        let (Some(l), Some(f)) = (load(s.id), freq(s.id)) else {
            return;
        };
        if f > 0.0 && l.per_processor().len() == processors {
            found = Some((l.per_processor().iter().map(|w| w / f).collect(), lhs));
        }
    });
    let (shares, lhs) = found?;
    // The outermost nest loop whose variable subscripts a distributed dimension.
    let mut along = None;
    if let Expr::Array(a) = lhs {
        for (d, s) in a.subscripts.iter().enumerate() {
            let Subscript::Index(x) = s else { continue };
            if divisor(&a.name, d) <= 1 {
                continue;
            }
            x.visit(&mut |e| {
                if let Expr::Name(n) = e
                    && let Some(l) = nest.loops.iter().position(|l| l.var.as_deref() == Some(n))
                {
                    along = Some(along.map_or(l, |a: usize| a.min(l)));
                }
            });
        }
    }
    let along = along.unwrap_or(0);
    // A share of 1 on every processor (replicated work) divides nothing.
    if shares.iter().all(|s| (s - 1.0).abs() < 1e-12) {
        return None;
    }
    Some((along, shares))
}
