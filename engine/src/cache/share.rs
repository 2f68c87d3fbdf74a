//! Which part of a nest each processor runs: under owner computes a processor executes
//! the iterations whose left-hand side it owns, so each loop running through a
//! distributed dimension of the first assignment's left-hand side is cut into the
//! processors' blocks (the compiler reduces its bounds). With several distributed
//! dimensions (a (BLOCK, BLOCK) grid) every such loop is cut by its dimension's
//! processor count, so a processor's iterations form its local box — the footprint of
//! one iteration of an outer loop is a local column, not a global one; the outermost
//! of them carries the rest of the processor's share of the assignment's executions
//! (imbalance included), so the iterations per processor are that share exactly.

use super::nest::Nest;
use crate::ir::{Expr, Stmt, StmtId, StmtKind, Subscript, walk};
use crate::work::Load;

/// How a nest's loops are divided among the processors.
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    /// The outermost divided loop (index into the nest's loops) and the fraction of
    /// its iterations on each processor.
    pub along: usize,
    pub shares: Vec<f64>,
    /// The other divided loops and the fraction of their iterations every processor
    /// runs (1 / the processors along their dimension).
    pub inner: Vec<(usize, f64)>,
}

impl Share {
    /// The fraction of loop `l`'s iterations that processor `p` (0-based) runs.
    pub fn factor(&self, l: usize, p: usize) -> f64 {
        if l == self.along {
            return self.shares[p];
        }
        self.inner
            .iter()
            .find(|(k, _)| *k == l)
            .map_or(1.0, |(_, f)| *f)
    }
}

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
    // A share of 1 on every processor (replicated work) divides nothing.
    if shares.iter().all(|s| (s - 1.0).abs() < 1e-12) {
        return None;
    }
    // Per distributed dimension of the left-hand side: the outermost nest loop whose
    // variable subscripts it, and the processors along it.
    let mut divided: Vec<(usize, i64)> = Vec::new();
    if let Expr::Array(a) = lhs {
        for (d, s) in a.subscripts.iter().enumerate() {
            let Subscript::Index(x) = s else { continue };
            let k = divisor(&a.name, d);
            if k <= 1 {
                continue;
            }
            let mut outermost: Option<usize> = None;
            x.visit(&mut |e| {
                if let Expr::Name(n) = e
                    && let Some(l) = nest.loops.iter().position(|l| l.var.as_deref() == Some(n))
                {
                    outermost = Some(outermost.map_or(l, |o| o.min(l)));
                }
            });
            if let Some(l) = outermost
                && !divided.iter().any(|(m, _)| *m == l)
            {
                divided.push((l, k));
            }
        }
    }
    divided.sort_unstable();
    let Some((&(along, _), rest)) = divided.split_first() else {
        return Some(Share {
            along: 0,
            shares,
            inner: Vec::new(),
        });
    };
    let inner: Vec<(usize, f64)> = rest.iter().map(|(l, k)| (*l, 1.0 / *k as f64)).collect();
    let cut: f64 = inner.iter().map(|(_, f)| f).product();
    Some(Share {
        along,
        shares: shares.iter().map(|s| s / cut).collect(),
        inner,
    })
}

#[cfg(test)]
mod tests {
    use crate::project;
    use std::collections::BTreeMap;

    /// The bytes of the `j` loop's layer condition (one iteration's footprint on the
    /// busiest processor) of a 5-point stencil on an n×n grid, with `directives`.
    fn j_layer(n: i64, directives: &str) -> f64 {
        let text = format!(
            "program s\n  integer :: i, j\n  integer, parameter :: n = {n}\n  real :: a(n, n), b(n, n)\n\
             {directives}  do j = 2, n - 1\n    do i = 2, n - 1\n      \
             b(i, j) = a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1)\n    \
             end do\n  end do\nend program s\n"
        );
        let files = project::analyze(&[("s.f90".into(), text.into_bytes())], &BTreeMap::new());
        let file = files.into_iter().next().unwrap().unwrap();
        let u = &file.units[0];
        let nest = u.cache.nests.iter().find(|n| n.outermost).expect("a nest");
        nest.conditions
            .iter()
            .find(|c| c.var == "j")
            .expect("j carries reuse")
            .bytes
    }

    /// On a (BLOCK, BLOCK) grid a processor runs its local box: one iteration of `j`
    /// touches local columns (a quarter of a global one on 4×4), as in the sequential
    /// program of the local size; before, only `j` was cut and `i` ran the global column.
    #[test]
    fn a_two_dimensional_block_runs_local_columns() {
        let grid = "!HPF$ PROCESSORS p(4, 4)\n!HPF$ DISTRIBUTE (BLOCK, BLOCK) ONTO p :: a, b\n";
        let columns = "!HPF$ PROCESSORS p(16)\n!HPF$ DISTRIBUTE (*, BLOCK) ONTO p :: a, b\n";
        let (local, global) = (j_layer(512, grid), j_layer(512, columns));
        let sequential = j_layer(128, "");
        assert!(
            (local / sequential - 1.0).abs() < 0.1,
            "local {local} B, sequential of the local size {sequential} B"
        );
        assert!(
            local < 0.3 * global,
            "local {local} B, global columns {global} B"
        );
    }
}
