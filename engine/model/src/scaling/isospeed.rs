//! Isospeed scalability (Sun, Pantano and Fahringer, section 3.1 and 3.3): [`scaled`]
//! is Fig. 2, the scaled work W' that keeps the average speed `a = W/(p·T_p)` when p grows
//! to p', as the fixed point `W = phi(W)` of eq. 4, and the isospeed scalability
//! `psi(p, p') = p'·W / (p·W')` (eq. 1). Range comparison (Fig. 1), which compares two
//! models' scalabilities, is in the parent module and re-exported here.

use std::collections::HashSet;

use super::{Memo, Model, Point, power_guess, smallest_above};

pub use super::{RangeComparison, Row, range_comparison};

/// Fig. 2's relative stopping tolerance: `|W_{k+1} − W_k| < EPS·W_k` (ε = 10⁻² in the
/// paper's experiments).
const EPS: f64 = 1e-2;
/// Iterations (evaluations of phi or phi⁻¹) before giving up.
const MAX_ITERATIONS: usize = 64;
/// An overhead at most this fraction of the time counts as none (`T_o = 0`).
const NO_OVERHEAD: f64 = 1e-9;

/// The scaled problem size that keeps the average speed `a = W/(p·T_p)` of (n0, p0) on
/// p1 > p0 processors (Fig. 2), and `psi(p0, p1) = p1·W / (p0·W')` (eq. 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Scaled {
    /// p1, the scaled processor count.
    pub p: i64,
    /// n', the scaled problem size (an integer: `W'` is rounded up to the work of a size).
    pub n: i64,
    /// W' = f(n'), the model's work at n'.
    pub work: f64,
    /// psi(p0, p1) = p1·W / (p0·W') (eq. 1), with W' = f(n').
    pub psi: f64,
    /// Evaluations of phi or phi⁻¹ (the first is phi(W0)).
    pub iterations: usize,
    /// False when no fixed point was reached: 64 iterations, the iteration ran past
    /// `n_max` (then n' = n_max) or down to the smallest size with a value, or the initial
    /// state has no overhead (`a·Delta ≥ 1`) while p1 has some, so no size keeps `a`
    /// (then n' = n_max).
    pub converged: bool,
}

/// The scaled problem size of `model` from the initial state (n0, p0) to p1 processors,
/// by the iterative method of Fig. 2; `None` without a prediction at (n0, p0) (or one
/// with no work or time), for `p1 < p0`, or when the model has no value where the result
/// lands.
///
/// From the initial state, eq. 3 gives `Delta = T_s(n0)/W` (the paper's `T_c·p/W`) and
/// `a = W/(p0·T_p)`, so `a·p0·T_p = W` and `T_o = T_p − W·Delta/p0`. Eq. 4 is the fixed
/// point `W' = phi(W')` of `phi(W) = a·p1·T_o'(n(W)) / (1 − a·Delta)`, where `n(W)` is the
/// smallest n with `f(n) ≥ W` (integer bisection; f = the model's work) and
/// `T_o'(n) = T_{p1}(n) − T_s(n)/p1` is the overhead the model predicts at p1 (Fig. 2's
/// subroutine writes p; eq. 4 has p'). From `W0 = p1·W/p0`: if `phi(W0) ≈ W0` then
/// `W' = W0`; if `phi(W0) > W0` iterate `W_{k+1} = phi(W_k)`; else iterate
/// `W_{k+1} = phi⁻¹(W_k) = f(n)` with n the smallest size where
/// `T_o'(n) ≥ (1 − a·Delta)·W_k / (a·p1)`. Delta is taken at the iterate's size, not once
/// at the initial state (see [`scaled_overhead`]), so a fixed point keeps the speed a
/// exactly even where the model's time per unit of work changes with n. Stop when `|W_{k+1} − W_k| < 10⁻²·W_k`, when the
/// integer n repeats, or after 64 iterations; sizes never exceed `n_max`.
///
/// `T_o' = 0` (or below) at `n(W0)` is ideal scalability (section 3.1): `W' = W0`,
/// psi = 1 up to rounding; no division by `1 − a·Delta` happens then. Fig. 2 assumes
/// T_o' increases with n; where it does not, the bisections return a size where it
/// crosses the target near the previous iterate. Each n(W) and phi⁻¹ bisection gallops
/// from a guess on the power law through the last two iterates, so a smooth model costs
/// a few evaluations per iteration.
///
/// Fig. 2's branch choice is right when `W0 ≤ W'` (psi ≤ 1, the usual case): then
/// `phi(W0) > W0` exactly when the overhead grows slower than the work near the fixed
/// point (phi contracts) and `phi(W0) < W0` when it grows faster (phi⁻¹ contracts). When
/// `W' < W0` (psi > 1, e.g. an overhead that shrinks as p grows) the chosen map moves away
/// from the fixed point. So when a step of the chosen iteration is larger than the one
/// before, in log W (the map does not contract), or passes `n_max`, the other map is
/// run from W0 and kept if it converges; otherwise Fig. 2's iteration goes on without
/// the check. A size clamped at the smallest one with a value (n = 1, or none at n − 1)
/// is not a fixed point.
pub fn scaled(model: &mut Model, n0: i64, p0: i64, p1: i64, n_max: i64) -> Option<Scaled> {
    scaled_with(&mut Memo::new(model), n0, p0, p1, n_max)
}

/// [`scaled`] on a memoized model (shared by the rows of a range comparison).
pub(crate) fn scaled_with(
    memo: &mut Memo,
    n0: i64,
    p0: i64,
    p1: i64,
    n_max: i64,
) -> Option<Scaled> {
    if p1 < p0 || p0 < 1 || n_max < 1 {
        return None;
    }
    let init = memo.at(n0, p0)?;
    if init.work <= 0.0 || init.time_s <= 0.0 {
        return None;
    }
    let a = init.work / (p0 as f64 * init.time_s);
    let delta = init.seq_s / init.work;
    let one_minus = 1.0 - a * delta;
    let mut fig2 = Fig2 {
        memo,
        p1,
        a,
        one_minus,
        n_max,
        iterations: 0,
    };
    let w0 = p1 as f64 * init.work / p0 as f64;
    let (n, converged) = fig2.solve(w0, n0);
    let at = fig2.point(n)?;
    Some(Scaled {
        p: p1,
        n,
        work: at.work,
        psi: p1 as f64 * init.work / (p0 as f64 * at.work),
        iterations: fig2.iterations,
        converged,
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Branch {
    /// `W_{k+1} = phi(W_k)`.
    Phi,
    /// `W_{k+1} = phi⁻¹(W_k)`.
    Inverse,
}

/// Where an iteration ended: the size, the work it stood for, and why.
struct Outcome {
    n: i64,
    w: f64,
    end: End,
}

#[derive(Clone, Copy, PartialEq)]
enum End {
    /// `|W_{k+1} − W_k| < EPS·W_k` or n repeated.
    Converged,
    /// The steps grew: this map does not contract here.
    Diverged,
    /// The next size would pass n_max.
    Beyond,
    /// Clamped at the smallest size with a value, a non-positive W, or out of iterations.
    Failed,
}

impl Outcome {
    fn at(n: i64, w: f64, end: End) -> Self {
        Outcome { n, w, end }
    }
}

/// A quantity of a point on p processors, given the initial state's speed a.
type Value = fn(&Point, f64, f64) -> f64;

/// `T_o = T_p − T_s/p` (eq. 3).
fn overhead_of(q: &Point, p: f64) -> f64 {
    q.time_s - q.seq_s / p
}

/// `T_o(n) / (1 − a·Delta(n))` with `Delta(n) = T_s(n)/W(n)`: phi(W)/(a·p) (eq. 4) at
/// the point's size. Eq. 3 takes Delta (the time per unit of work) as one constant; a
/// model's Delta moves with n (loop overhead amortized, data leaving a cache), and with
/// the initial Delta the fixed point would keep a speed other than a. Taken at the
/// iterate's own size, the fixed point `W = a·p·T_o/(1 − a·T_s/W)` is exactly
/// `W = a·p·T_p`: the speed a. Infinite when `a·Delta(n) ≥ 1` (that size's sequential
/// speed is below a: no overhead is small enough).
fn scaled_overhead(q: &Point, p: f64, a: f64) -> f64 {
    let one_minus = 1.0 - a * q.seq_s / q.work;
    if one_minus <= NO_OVERHEAD {
        return f64::INFINITY;
    }
    overhead_of(q, p) / one_minus
}

fn work_of(q: &Point, _: f64, _: f64) -> f64 {
    q.work
}

/// The state of Fig. 2 for one model and one p1.
struct Fig2<'x, 'm, 'a> {
    memo: &'x mut Memo<'m, 'a>,
    p1: i64,
    /// The average speed a of the initial state.
    a: f64,
    /// 1 − a·Delta at the initial state (= T_o/T_p there).
    one_minus: f64,
    n_max: i64,
    iterations: usize,
}

impl Fig2<'_, '_, '_> {
    fn point(&mut self, n: i64) -> Option<Point> {
        self.memo.at(n, self.p1)
    }

    /// n(W): the smallest n ≤ n_max with `f(n) ≥ W`, galloping from `from`.
    fn size_of(&mut self, w: f64, from: (i64, i64)) -> Option<i64> {
        let n_max = self.n_max;
        let above = |n| self.point(n).is_some_and(|q| q.work >= w);
        smallest_above(above, 1, n_max, from.0, from.1)
    }

    /// Where to start looking for the n with `value(n) = target`, and the first step:
    /// on the power law through the values at `prev` and `n` (evaluated sizes) within a
    /// step or two when the model is smooth, else at `n` with a step of `dn/2`.
    fn start(
        &mut self,
        value: Value,
        prev: Option<i64>,
        n: i64,
        target: f64,
        dn: i64,
    ) -> (i64, i64) {
        let (p1, a) = (self.p1 as f64, self.a);
        let mut at = |m: i64| Some((m, value(&self.point(m)?, p1, a)));
        let guess = prev.and_then(|m| power_guess(at(m)?, at(n)?, target));
        match guess {
            Some(g) if (1.0..=self.n_max as f64).contains(&g) => (g.round() as i64, 1),
            _ => (n, (dn / 2).max(1)),
        }
    }

    /// `T_o'(n) / (1 − a·Delta(n))` ([`scaled_overhead`]).
    fn scaled_overhead(&mut self, n: i64) -> Option<f64> {
        let q = self.point(n)?;
        Some(scaled_overhead(&q, self.p1 as f64, self.a))
    }

    /// phi(W) given n(W) (eq. 4): `a·p1·T_o'(n) / (1 − a·Delta(n))`.
    fn phi_at(&mut self, n: i64) -> Option<f64> {
        Some(self.a * self.p1 as f64 * self.scaled_overhead(n)?)
    }

    /// phi⁻¹(W): the size n where `T_o'(n)/(1 − a·Delta(n)) ≥ W/(a·p1)` first holds, and
    /// f(n).
    fn inverse(&mut self, w: f64, prev: Option<i64>, n: i64, dn: i64) -> Option<(i64, f64)> {
        let target = w / (self.a * self.p1 as f64);
        let from = self.start(scaled_overhead, prev, n, target, dn);
        let n_max = self.n_max;
        let above = |n| self.scaled_overhead(n).is_some_and(|t| t >= target);
        let n = smallest_above(above, 1, n_max, from.0, from.1)?;
        Some((n, self.point(n)?.work))
    }

    /// Fig. 2's main program from `W0`, with `n0` as the first guess for n(W0).
    /// Returns the size n' and whether it is a fixed point.
    fn solve(&mut self, w0: f64, n0: i64) -> (i64, bool) {
        let beyond = (self.n_max, false);
        let Some(n_w0) = self.size_of(w0, (n0, (n0 / 8).max(1))) else {
            return beyond;
        };
        let Some(q) = self.point(n_w0) else {
            return beyond;
        };
        let overhead = overhead_of(&q, self.p1 as f64);
        self.iterations = 1;
        if overhead <= NO_OVERHEAD * q.time_s {
            // T_o' = 0: ideal scalability, W' = W0 (section 3.1).
            return (n_w0, true);
        }
        if self.one_minus <= NO_OVERHEAD {
            // a·Delta = 1: the initial speed is the peak 1/Delta, which no size with
            // overhead reaches; W' grows without bound.
            return beyond;
        }
        let Some(phi0) = self.phi_at(n_w0) else {
            return beyond;
        };
        if (phi0 - w0).abs() < EPS * w0 {
            return (n_w0, true);
        }
        let (first, other) = if phi0 > w0 {
            (Branch::Phi, Branch::Inverse)
        } else {
            (Branch::Inverse, Branch::Phi)
        };
        let fig = self.iterate(first, w0, n_w0, true);
        if !matches!(fig.end, End::Diverged | End::Beyond) {
            return (fig.n, fig.end == End::Converged);
        }
        let fallback = self.iterate(other, w0, n_w0, true);
        if fallback.end == End::Converged {
            return (fallback.n, true);
        }
        if fig.end == End::Beyond {
            return (fig.n, false);
        }
        // Neither contracts from W0: carry on with Fig. 2's choice, steps growing or not.
        let resumed = self.iterate(first, fig.w, fig.n, false);
        (resumed.n, resumed.end == End::Converged)
    }

    /// One branch of Fig. 2 from `w` (with `n = n(w)`) until `|W_{k+1} − W_k| < EPS·W_k`
    /// or a repeated n (converged), steps that grow (when `watch`), or a failure.
    fn iterate(&mut self, branch: Branch, mut w: f64, mut n: i64, watch: bool) -> Outcome {
        let mut seen = HashSet::from([n]);
        let (mut dn, mut prev) = ((n / 8).max(1), None);
        let mut last_step = f64::INFINITY;
        while self.iterations < MAX_ITERATIONS {
            self.iterations += 1;
            // W_{k+1}, and the size it stands for when the map gives one.
            let (next, size) = match branch {
                Branch::Phi => match self.phi_at(n) {
                    Some(v) => (v, None),
                    None => return Outcome::at(n, w, End::Failed),
                },
                Branch::Inverse => match self.inverse(w, prev, n, dn) {
                    Some((m, v)) => (v, Some(m)),
                    None => return Outcome::at(self.n_max, w, End::Beyond),
                },
            };
            if !(next > 0.0 && next.is_finite()) {
                return Outcome::at(n, w, End::Failed);
            }
            let size = size.or_else(|| {
                let from = self.start(work_of, prev, n, next, dn);
                self.size_of(next, from)
            });
            let Some(size) = size else {
                return Outcome::at(self.n_max, w, End::Beyond);
            };
            if size == 1 || self.point(size - 1).is_none() {
                // Clamped at the smallest size with a value: not a fixed point.
                return Outcome::at(size, next, End::Failed);
            }
            if (next - w).abs() < EPS * w || !seen.insert(size) {
                return Outcome::at(size, next, End::Converged);
            }
            // Steps in log W: a power-law map contracts iff these shrink.
            let step = (next / w).ln().abs();
            // Within two sizes the integers, not the map, set the steps.
            if watch && step > last_step && (size - n).abs() > 2 {
                return Outcome::at(size, next, End::Diverged);
            }
            (last_step, dn, prev, w, n) = (step, (size - n).abs(), Some(n), next, size);
        }
        Outcome::at(n, w, End::Failed)
    }
}
