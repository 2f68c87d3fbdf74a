//! Scaling: how predictions move with problem size n and processor count p, and where
//! one alternative overtakes another (crossing points), by direct comparison of
//! predicted times and by isospeed scalability (Sun, Pantano and Fahringer).
//!
//! Notation (Sun, Pantano, Fahringer, "Integrated Range Comparison for Data-Parallel
//! Compilation Systems", section 3): W = f(n) is the work, T_p the time on p processors,
//! T_s the sequential time, and eq. 3 splits `T_p = T_s/p + T_o = W·Delta/p + T_o` with
//! Delta = T_s/W the time per unit of work and T_o the parallel overhead.
//!
//! - [`direct`]: crossing points by comparing predicted times over n or over p.
//! - [`isospeed`]: the scaled problem size that keeps the average speed (Fig. 2, eq. 4)
//!   and the isospeed scalability psi (eq. 1).
//! - [`range_comparison`] (here, as it joins the two): Fig. 1, the scaled crossing points
//!   of two models by Definition 2 / eq. 5 and, as a check, by Theorem 2 (direct
//!   comparison of the times at the scaled sizes); where the two differ, Theorem 3.

use std::collections::HashMap;

pub mod direct;
pub mod isospeed;

#[cfg(test)]
mod tests;

pub use direct::{Crossing, crossings_in_n, crossings_in_p};
pub use isospeed::{Scaled, scaled};

/// One alternative's prediction for problem size `n` on `p` processors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// T_p(n): the predicted time, seconds.
    pub time_s: f64,
    /// T_s(n): the sequential time the parallel run divides (the computation summed over
    /// processors), seconds.
    pub seq_s: f64,
    /// W(n): the work (floating-point operations); increasing in n.
    pub work: f64,
}

/// A model: the prediction at (n, p), `None` where it has no value (e.g. p does not fit,
/// n too small). Each call may cost a re-analysis (milliseconds): callers memoize
/// nothing, so evaluate sparingly (bisection, not scans) and never twice at the same
/// (n, p) within one algorithm (keep a small memo inside your functions).
pub type Model<'a> = dyn FnMut(i64, i64) -> Option<Point> + 'a;

/// A model with a memo: each (n, p) is asked of the model at most once. Sizes and
/// processor counts below 1 are never asked (they have no value), and a point with a
/// non-finite or negative field counts as no value.
pub(crate) struct Memo<'m, 'a> {
    model: &'m mut Model<'a>,
    seen: HashMap<(i64, i64), Option<Point>>,
}

impl<'m, 'a> Memo<'m, 'a> {
    pub(crate) fn new(model: &'m mut Model<'a>) -> Self {
        Memo {
            model,
            seen: HashMap::new(),
        }
    }

    /// The model's point at (n, p), from the memo when it was asked before.
    pub(crate) fn at(&mut self, n: i64, p: i64) -> Option<Point> {
        if n < 1 || p < 1 {
            return None;
        }
        let model = &mut *self.model;
        *self.seen.entry((n, p)).or_insert_with(|| {
            model(n, p).filter(|q| {
                [q.time_s, q.seq_s, q.work]
                    .iter()
                    .all(|v| v.is_finite() && *v >= 0.0)
            })
        })
    }
}

/// The midpoint of two integers without overflow.
pub(crate) fn midpoint(lo: i64, hi: i64) -> i64 {
    ((i128::from(lo) + i128::from(hi)) / 2) as i64
}

/// Whether integers `lo < hi` have a third strictly between them, without overflow.
pub(crate) fn gap(lo: i64, hi: i64) -> bool {
    i128::from(hi) - i128::from(lo) > 1
}

/// Where the power law `v = c·n^d` through `(n1, v1)` and `(n2, v2)` reaches `target`;
/// `None` unless the sizes differ and the values differ and are positive.
pub(crate) fn power_guess((n1, v1): (i64, f64), (n2, v2): (i64, f64), target: f64) -> Option<f64> {
    if n1 == n2 || v1 == v2 || v1 <= 0.0 || v2 <= 0.0 || target <= 0.0 {
        return None;
    }
    let d = (v2 / v1).ln() / (n2 as f64 / n1 as f64).ln();
    Some(n2 as f64 * (target / v2).powf(1.0 / d)).filter(|g| g.is_finite())
}

/// The smallest n in `[lo, hi]` with `above(n)`, for a predicate that is false then true
/// as n grows (e.g. `f(n) ≥ W` for an increasing f): gallops from `guess` with steps
/// `step, 2·step, 4·step, …` to bracket the change, then bisects the bracket — about
/// 2·log2(distance from the guess) evaluations. `None` when `above(hi)` is false. When
/// the predicate is not monotone the result is some n where it changes from false to
/// true (`above(n)` and, unless n = lo, not `above(n − 1)`), the one the bracket holds.
pub(crate) fn smallest_above(
    mut above: impl FnMut(i64) -> bool,
    lo: i64,
    hi: i64,
    guess: i64,
    step: i64,
) -> Option<i64> {
    if lo > hi {
        return None;
    }
    let mut step = step.max(1);
    let start = guess.clamp(lo, hi);
    // Invariant after galloping: !above(bottom) and above(top), bottom < top.
    let (mut bottom, mut top);
    if above(start) {
        top = start;
        loop {
            if top == lo {
                return Some(lo);
            }
            let x = top.saturating_sub(step).max(lo);
            if above(x) {
                top = x;
                step = step.saturating_mul(2);
            } else {
                bottom = x;
                break;
            }
        }
    } else {
        bottom = start;
        loop {
            if bottom == hi {
                return None;
            }
            let x = bottom.saturating_add(step).min(hi);
            if above(x) {
                top = x;
                break;
            }
            bottom = x;
            step = step.saturating_mul(2);
        }
    }
    while gap(bottom, top) {
        let mid = midpoint(bottom, top);
        if above(mid) {
            top = mid;
        } else {
            bottom = mid;
        }
    }
    Some(top)
}

/// One scaled processor count of a range comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// p', the scaled processor count.
    pub p: i64,
    /// The scaled size of the initially slower model (W', scalability Phi).
    pub slower: Scaled,
    /// The scaled size of the initially faster model (W*, scalability Psi).
    pub faster: Scaled,
    /// Phi(p0, p) / Psi(p0, p).
    pub ratio: f64,
    /// Definition 2 / eq. 5: `ratio > alpha`; `None` (no verdict) when a scaled size is
    /// not a fixed point (no size up to n_max keeps the initial speed, or eq. 5
    /// contradicts `direct_crossing` at a size whose average speed is off the initial
    /// one by more than 10%): eq. 5 assumes both speeds kept.
    pub isospeed_crossing: Option<bool>,
    /// Theorem 2 checked by direct comparison: the slower model's predicted time at its
    /// scaled size is below the faster one's at its scaled size.
    pub direct_crossing: bool,
    /// The two models' times at the scaled sizes (slower at n', faster at n*), seconds.
    pub times: (f64, f64),
}

/// Fig. 1 over a list of processor counts.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeComparison {
    /// 0 = a, 1 = b: the initially slower model (a on a tie).
    pub slower: usize,
    /// alpha = t_p0(W) / T_p0(W) ≥ 1: the slower time over the faster at (n0, p0).
    pub alpha: f64,
    /// One row per processor count > p0 where both models have a scaled size.
    pub rows: Vec<Row>,
    /// Fig. 1: the smallest scaled crossing point by eq. 5 (among the rows with a
    /// verdict).
    pub isospeed_first: Option<i64>,
    /// The smallest scaled crossing point by Theorem 2 (direct comparison).
    pub direct_first: Option<i64>,
    /// `None` when the routes agree on every row where eq. 5 has a verdict; else
    /// sentences saying where and why they differ.
    pub disagreement: Option<String>,
    /// `None` when eq. 5 has a verdict on every row; else a sentence naming the
    /// processor counts where it has none, and why.
    pub no_verdict: Option<String>,
}

/// Fig. 1 over the processor counts `procs` (those > p0, ascending): compares a and b
/// from the initial state (n0, p0); `None` without predictions for both there.
///
/// The initially slower model has time `t = alpha·T` at (n0, p0). For every p' it gets
/// its scaled size W' and scalability Phi(p0, p') from [`scaled`] (Fig. 2), the faster
/// model W* and Psi; p' is a scaled crossing point when `Phi/Psi > alpha` (Definition 2, eq. 5),
/// which by eq. 2 (`T_{p'}(W') = T_p(W)/psi`) and Theorem 2 is the same as
/// `t_{p'}(W') < T_{p'}(W*)` when the scaled sizes keep the speed exactly. Unlike Fig. 1
/// this does not stop at the first crossing: every p' gets a row. The routes can differ
/// because the sizes are integers and the fixed point is found to within 1%; where they
/// do, both models are compared at the sizes between n' and n* at p' (Theorem 3). Where
/// Fig. 2 finds no fixed point for either model (no size up to `n_max` keeps its speed),
/// eq. 5 has no verdict: the row says so and only the direct comparison decides there.
pub fn range_comparison(
    a: &mut Model,
    b: &mut Model,
    n0: i64,
    p0: i64,
    procs: &[i64],
    n_max: i64,
) -> Option<RangeComparison> {
    let mut memos = [Memo::new(a), Memo::new(b)];
    let init = [memos[0].at(n0, p0)?, memos[1].at(n0, p0)?];
    let slower = usize::from(init[0].time_s < init[1].time_s);
    let (t, tt) = (init[slower], init[1 - slower]);
    if tt.time_s <= 0.0 || tt.work <= 0.0 || t.work <= 0.0 {
        return None;
    }
    let alpha = t.time_s / tt.time_s;
    let speed = |q: &Point, p: i64| q.work / (p as f64 * q.time_s);
    let a0 = (speed(&t, p0), speed(&tt, p0));
    let [ma, mb] = &mut memos;
    let (ms, mf) = if slower == 0 { (ma, mb) } else { (mb, ma) };
    let mut ps: Vec<i64> = procs.iter().copied().filter(|&p| p > p0).collect();
    ps.sort_unstable();
    ps.dedup();
    let (mut rows, mut notes, mut unsettled) = (Vec::new(), Vec::new(), Vec::new());
    for p in ps {
        let Some(s) = isospeed::scaled_with(ms, n0, p0, p, n_max) else {
            continue;
        };
        let Some(f) = isospeed::scaled_with(mf, n0, p0, p, n_max) else {
            continue;
        };
        let (Some(qs), Some(qf)) = (ms.at(s.n, p), mf.at(f.n, p)) else {
            continue;
        };
        let (ratio, s_n, f_n) = (s.psi / f.psi, s.n, f.n);
        // How far each scaled size's average speed is from its initial one.
        let off = (speed(&qs, p) / a0.0 - 1.0, speed(&qf, p) / a0.1 - 1.0);
        let direct_crossing = direct::faster_of((qs.time_s, qf.time_s)) == Some(0);
        // Where eq. 5 contradicts the direct comparison at sizes that miss the initial
        // speed by more than [`KEPT_SPEED`] (the iteration can stop at a repeated size
        // far from a fixed point), those sizes keep nothing and eq. 5 has no verdict.
        let far = off.0.abs().max(off.1.abs()) > KEPT_SPEED;
        let kept = s.converged && f.converged && !((ratio > alpha) != direct_crossing && far);
        if !kept {
            unsettled.push(format!(
                "p = {p} (average speed {:+.1}% off a at n' = {s_n}, {:+.1}% at n* = {f_n})",
                100.0 * off.0,
                100.0 * off.1
            ));
        }
        let row = Row {
            p,
            ratio,
            isospeed_crossing: kept.then_some(ratio > alpha),
            direct_crossing,
            times: (qs.time_s, qf.time_s),
            slower: s,
            faster: f,
        };
        if row
            .isospeed_crossing
            .is_some_and(|c| c != row.direct_crossing)
        {
            let (lo, hi) = (s_n.min(f_n), s_n.max(f_n));
            let times = |n| Some((ms.at(n, p)?.time_s, mf.at(n, p)?.time_s));
            let theorem3 = direct::theorem3(times, p, lo, hi);
            notes.push(explain(&row, alpha, off, &theorem3));
        }
        rows.push(row);
    }
    let first = |hit: fn(&Row) -> bool| rows.iter().find(|r| hit(r)).map(|r| r.p);
    Some(RangeComparison {
        slower,
        alpha,
        isospeed_first: first(|r| r.isospeed_crossing == Some(true)),
        direct_first: first(|r| r.direct_crossing),
        disagreement: (!notes.is_empty()).then(|| notes.join(" ")),
        no_verdict: (!unsettled.is_empty()).then(|| {
            format!(
                "eq. 5 has no verdict at {}: no size up to n = {n_max} keeps the initial \
                 average speed there (Fig. 2 found no fixed point, or the one it found \
                 is more than 10% off and eq. 5 contradicts the direct comparison \
                 there), and eq. 5 holds only for sizes that keep it; the direct \
                 comparison stands alone there.",
                unsettled.join(", ")
            )
        }),
        rows,
    })
}

/// The largest relative difference from the initial average speed a scaled size may
/// have and still decide against the direct comparison.
const KEPT_SPEED: f64 = 0.1;

/// The sentence for a row where eq. 5 and Theorem 2 disagree.
fn explain(row: &Row, alpha: f64, off: (f64, f64), theorem3: &(String, bool)) -> String {
    let p = row.p;
    let (says, cmp) = if row.isospeed_crossing == Some(true) {
        ("a", ">")
    } else {
        ("no", "≤")
    };
    let why = format!(
        "At p = {p} eq. 5 (Phi/Psi = {:.4} {cmp} alpha = {alpha:.4}) says {says} crossing \
         but Theorem 2, comparing the predicted times at the scaled sizes, says {}: \
         {:.4e} s for the initially slower model at n' = {} vs {:.4e} s for the faster at \
         n* = {}. The scaled sizes are integers and the fixed points are found to within \
         1%: the average speed at n' is {:+.2}% off a and at n* {:+.2}% off",
        row.ratio,
        if row.direct_crossing { "one" } else { "none" },
        row.times.0,
        row.slower.n,
        row.times.1,
        row.faster.n,
        100.0 * off.0,
        100.0 * off.1,
    );
    let verdict = if theorem3.1 { "is" } else { "is not" };
    why + &format!(
        ". Theorem 3 ({}): p = {p} {verdict} a crossing point.",
        theorem3.0
    )
}
