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
use crate::work::Load;
use costline_syntax::ir::{Expr, Stmt, StmtId, StmtKind, Subscript, walk};

/// How a nest's loops are divided among the processors.
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    /// The outermost divided loop (index into the nest's loops) and the fraction of
    /// its iterations on each processor.
    pub along: usize,
    pub shares: Vec<f64>,
    /// Later loops of the same variable as `along` (a second sweep over the same
    /// dimension, as the black points after the red ones), divided the same way.
    pub peers: Vec<usize>,
    /// The other divided loops and the fraction of their iterations every processor
    /// runs (1 / the processors along their dimension).
    pub inner: Vec<(usize, f64)>,
}

impl Share {
    /// The fraction of loop `l`'s iterations that processor `p` (0-based) runs.
    pub fn factor(&self, l: usize, p: usize) -> f64 {
        if l == self.along || self.peers.contains(&l) {
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
            peers: Vec::new(),
            inner: Vec::new(),
        });
    };
    let mut inner: Vec<(usize, f64)> = rest.iter().map(|(l, k)| (*l, 1.0 / *k as f64)).collect();
    let cut: f64 = inner.iter().map(|(_, f)| f).product();
    // The loops of the same variables elsewhere in the nest (a DO variable cannot be
    // reused inside its own loop, so these are later sweeps) are divided alike.
    let var = |l: usize| nest.loops[l].var.as_deref();
    let same = |l: usize, m: usize| m != l && var(m).is_some() && var(m) == var(l);
    let peers: Vec<usize> = (0..nest.loops.len()).filter(|&m| same(along, m)).collect();
    let inner_peers: Vec<(usize, f64)> = inner
        .iter()
        .flat_map(|&(l, f)| {
            (0..nest.loops.len())
                .filter(move |&m| same(l, m))
                .map(move |m| (m, f))
        })
        .collect();
    inner.extend(inner_peers);
    Some(Share {
        along,
        shares: shares.iter().map(|s| s / cut).collect(),
        peers,
        inner,
    })
}
