//! Crossing points by direct comparison of predicted times: where the sign of
//! `T_a − T_b` changes over the problem size n at a fixed p, or over the processor count
//! p at a fixed n (the "execution time comparison" route the paper cites from [22]).
//!
//! The caller's samples are evaluated first; between two consecutive samples whose
//! faster model differs, integer bisection locates the change exactly. A sign change that
//! comes and goes between two samples is invisible: sample finer than the shortest
//! interval the order can hold.

use std::collections::HashMap;

use super::{Memo, Model, gap, midpoint};

/// A change of the faster model.
#[derive(Clone, Debug, PartialEq)]
pub struct Crossing {
    /// The smallest value (n, or p) from which the order holds.
    pub at: i64,
    /// Which model is faster from `at` on (0 = a, 1 = b).
    pub faster: usize,
    /// Times (a, b) just before `at`: at the last size with a value where the old order
    /// (or a tie) held, usually `at − 1`.
    pub before: (f64, f64),
    /// Times (a, b) at `at`.
    pub after: (f64, f64),
}

/// Relative tolerance under which two times are a tie: `|T_a − T_b| ≤ 1e-12·max(T_a, T_b)`.
const TIE: f64 = 1e-12;

/// The faster model for times (a, b): `Some(0)` when a is faster, `Some(1)` when b is,
/// `None` for a tie (equal within [`TIE`] relative).
pub(crate) fn faster_of((ta, tb): (f64, f64)) -> Option<usize> {
    if (ta - tb).abs() <= TIE * ta.abs().max(tb.abs()) {
        None
    } else if ta < tb {
        Some(0)
    } else {
        Some(1)
    }
}

/// Every change of the faster model over n at fixed p: sign changes of `T_a(n) − T_b(n)`
/// between consecutive samples (sorted, deduplicated n values given by the caller; they
/// are sorted and deduplicated again here), each located exactly by integer bisection
/// between the two samples. Ties count as no change; samples where either model is
/// `None` are skipped. Each (n, p) is evaluated at most once.
pub fn crossings_in_n(a: &mut Model, b: &mut Model, p: i64, samples: &[i64]) -> Vec<Crossing> {
    let (mut ma, mut mb) = (Memo::new(a), Memo::new(b));
    crossings(
        |n| Some((ma.at(n, p)?.time_s, mb.at(n, p)?.time_s)),
        samples,
    )
}

/// Every change of the faster model over p at fixed n: sign changes of `T_a(p) − T_b(p)`
/// between consecutive processor-count samples, each located exactly by bisection over
/// the integers between the two samples (processor counts where either model has no
/// value, e.g. a grid that does not fit, are skipped). Each (n, p) is evaluated at most
/// once.
pub fn crossings_in_p(a: &mut Model, b: &mut Model, n: i64, samples: &[i64]) -> Vec<Crossing> {
    let (mut ma, mut mb) = (Memo::new(a), Memo::new(b));
    crossings(
        |p| Some((ma.at(n, p)?.time_s, mb.at(n, p)?.time_s)),
        samples,
    )
}

/// The shared walk over one axis: `times(x)` gives (T_a, T_b) at x or `None`.
fn crossings(times: impl FnMut(i64) -> Option<(f64, f64)>, samples: &[i64]) -> Vec<Crossing> {
    Axis::new(times).walk(samples)
}

/// Theorem 3's test at one scaled processor count p': model a (the initially slower)
/// against b (the initially faster) at the same sizes from `lo` (the smaller of n', n*)
/// to `hi` — the ends and the quartiles, with integer bisection where the faster model
/// changes. Returns a clause describing the order and whether a is faster somewhere, in
/// which case p' is a scaled crossing point by Theorem 3.
pub(crate) fn theorem3(
    times: impl FnMut(i64) -> Option<(f64, f64)>,
    p: i64,
    lo: i64,
    hi: i64,
) -> (String, bool) {
    let mut axis = Axis::new(times);
    let quarter = (hi - lo) / 4;
    let samples = [lo, lo + quarter, lo + 2 * quarter, hi - quarter, hi];
    let orders: Vec<usize> = samples
        .iter()
        .filter_map(|&n| faster_of(axis.at(n)?))
        .collect();
    let flips = axis.walk(&samples);
    let crossing = orders.contains(&0) || flips.iter().any(|c| c.faster == 0);
    let range = format!("both models at p = {p} for n from {lo} to {hi}");
    if flips.is_empty() {
        let how = if crossing {
            "faster at every"
        } else {
            "not faster at any"
        };
        let clause = format!("{range}: no flip, the initially slower model is {how} size probed");
        return (clause, crossing);
    }
    let at: Vec<String> = flips
        .iter()
        .map(|c| {
            let who = ["slower", "faster"][c.faster];
            format!("n = {} (the initially {who} model faster from there)", c.at)
        })
        .collect();
    (
        format!("{range}: the order flips at {}", at.join(", ")),
        crossing,
    )
}

/// One axis of a comparison, with its memo.
struct Axis<F> {
    times: F,
    seen: HashMap<i64, Option<(f64, f64)>>,
}

impl<F: FnMut(i64) -> Option<(f64, f64)>> Axis<F> {
    fn new(times: F) -> Self {
        Axis {
            times,
            seen: HashMap::new(),
        }
    }

    /// Every change of the faster model between the samples (sorted and deduplicated
    /// here), located by [`Axis::bisect`].
    fn walk(&mut self, samples: &[i64]) -> Vec<Crossing> {
        let mut xs = samples.to_vec();
        xs.sort_unstable();
        xs.dedup();
        let mut found = Vec::new();
        // The last sample with a value and a strict order: (x, faster).
        let mut last: Option<(i64, usize)> = None;
        for x in xs {
            let Some(now) = self.at(x).and_then(faster_of) else {
                continue;
            };
            if let Some((lo, old)) = last
                && old != now
            {
                found.push(self.bisect(lo, x, now));
            }
            last = Some((x, now));
        }
        found
    }

    fn at(&mut self, x: i64) -> Option<(f64, f64)> {
        let times = &mut self.times;
        *self.seen.entry(x).or_insert_with(|| times(x))
    }

    /// The smallest x in `(lo, hi]` from which `new` is faster, given that `lo` has a
    /// value where the old order holds and `hi` one where `new` holds. A tie keeps the
    /// old order; sizes without a value are stepped over, so `at` is the first size with
    /// a value after the last one where the old order (or a tie) holds.
    fn bisect(&mut self, mut lo: i64, mut hi: i64, new: usize) -> Crossing {
        while gap(lo, hi) {
            let Some(x) = self.valid_near(midpoint(lo, hi), lo, hi) else {
                break;
            };
            let t = self.at(x).expect("valid_near returns a value");
            if faster_of(t) == Some(new) {
                hi = x;
            } else {
                lo = x;
            }
        }
        Crossing {
            at: hi,
            faster: new,
            before: self.at(lo).expect("lo has a value"),
            after: self.at(hi).expect("hi has a value"),
        }
    }

    /// The point nearest `mid` strictly between `lo` and `hi` that has a value, looking
    /// at `mid`, then `mid ± 1`, `mid ± 2`, …; `None` when none has. Where the models
    /// have values almost everywhere this is one evaluation; where they have few (e.g.
    /// only square processor counts) it walks to the nearest one, and over a whole
    /// bisection it never evaluates more than the sizes between the two samples.
    fn valid_near(&mut self, mid: i64, lo: i64, hi: i64) -> Option<i64> {
        let mut d = 0i64;
        loop {
            let (up, down) = (mid.saturating_add(d), mid.saturating_sub(d));
            if up >= hi && down <= lo {
                return None;
            }
            for x in [up, down] {
                if x > lo && x < hi && self.at(x).is_some() {
                    return Some(x);
                }
            }
            d += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    //! Crossings of the analytic models of `scaling::tests` against a scan of every size.

    use super::*;
    use crate::scaling::Point;
    use crate::scaling::tests::{Calls, PARAMS, assert_once, block, column, counted};

    /// Every change of the faster model scanning each x in `lo..=hi` (ties and `None` skipped).
    fn brute(times: impl Fn(i64) -> Option<(f64, f64)>, lo: i64, hi: i64) -> Vec<(i64, usize)> {
        let (mut last, mut out) = (None, Vec::new());
        for x in lo..=hi {
            let Some(now) = times(x).and_then(faster_of) else {
                continue;
            };
            if last.is_some_and(|l| l != now) {
                out.push((x, now));
            }
            last = Some(now);
        }
        out
    }

    fn found(cs: &[Crossing]) -> Vec<(i64, usize)> {
        cs.iter().map(|c| (c.at, c.faster)).collect()
    }

    #[test]
    fn crossings_in_n_match_a_scan() {
        for (c, a1, b1) in PARAMS {
            for p in [4, 25, 36, 64, 100, 256] {
                let (fa, fb) = (column(c, a1, b1), block(c, a1, b1));
                let (ca, cb) = (Calls::default(), Calls::default());
                let (mut a, mut b) = (counted(&fa, &ca), counted(&fb, &cb));
                let samples: Vec<i64> = (0..40).map(|i| 2 + i * 173).collect();
                let got = crossings_in_n(&mut a, &mut b, p, &samples);
                let want = brute(
                    |n| Some((fa(n, p)?.time_s, fb(n, p)?.time_s)),
                    2,
                    2 + 39 * 173,
                );
                assert_eq!(found(&got), want, "c={c} a1={a1} b1={b1} p={p}");
                // Closed form: the block layout wins from n = 3·a1 / (b1·(1 − 4/sqrt(p))).
                if p > 16 {
                    let n = 3.0 * a1 / (b1 * (1.0 - 4.0 / (p as f64).sqrt()));
                    if n < 2.0 + 39.0 * 173.0 {
                        assert!((got[0].at as f64 - n).abs() <= 1.0, "{n} vs {:?}", got[0]);
                    }
                }
                for x in &got {
                    assert_eq!(
                        x.after,
                        (fa(x.at, p).unwrap().time_s, fb(x.at, p).unwrap().time_s)
                    );
                    let t = fa(x.at - 1, p).unwrap().time_s;
                    assert_eq!(x.before.0, t);
                }
                assert_once(&ca);
                assert_once(&cb);
                assert!(ca.borrow().len() <= 40 + 14 * got.len());
            }
        }
    }

    #[test]
    fn crossings_in_n_several_changes_ties_and_gaps() {
        // T_a − T_b = sin(n/15), b has no value at n ≡ 3 (mod 7) and from 700 to 760.
        let fa = |n: i64, _| {
            Some(Point {
                time_s: 2.0 + (n as f64 / 15.0).sin(),
                seq_s: 1.0,
                work: 1.0,
            })
        };
        let fb = |n: i64, _| {
            (n % 7 != 3 && !(700..=760).contains(&n)).then_some(Point {
                time_s: 2.0,
                seq_s: 1.0,
                work: 1.0,
            })
        };
        for step in [5, 11, 23] {
            let samples: Vec<i64> = (1..=2000).step_by(step).collect();
            let last = *samples.last().unwrap();
            let want = brute(|n| Some((fa(n, 1)?.time_s, fb(n, 1)?.time_s)), 1, last);
            assert!(want.len() > 20);
            let (mut a, mut b) = (fa, fb);
            let got = crossings_in_n(&mut a, &mut b, 1, &samples);
            assert_eq!(found(&got), want, "step {step}");
        }
        // Equal times everywhere: no change.
        let (mut a, mut b) = (fb, fb);
        assert!(crossings_in_n(&mut a, &mut b, 1, &[1, 50, 100]).is_empty());
    }

    #[test]
    fn crossings_in_p_match_a_scan() {
        for (c, a1, b1) in PARAMS {
            for n in [200, 500, 2000, 8000] {
                let (fa, fb) = (column(c, a1, b1), block(c, a1, b1));
                let (ca, cb) = (Calls::default(), Calls::default());
                let (mut a, mut b) = (counted(&fa, &ca), counted(&fb, &cb));
                let samples = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
                let got = crossings_in_p(&mut a, &mut b, n, &samples);
                let want = brute(|p| Some((fa(n, p)?.time_s, fb(n, p)?.time_s)), 1, 1024);
                assert_eq!(found(&got), want, "c={c} a1={a1} b1={b1} n={n}");
                assert_once(&ca);
                assert_once(&cb);
                // Only square grids fit the block layout: the crossing is the first square.
                let square = |p: i64| (p as f64).sqrt().round().powi(2) as i64 == p;
                let fb2 = |n, p| if square(p) { fb(n, p) } else { None };
                let (mut a, mut b) = (&fa, fb2);
                let got = crossings_in_p(&mut a, &mut b, n, &samples);
                let want = brute(|p| Some((fa(n, p)?.time_s, fb2(n, p)?.time_s)), 1, 1024);
                assert_eq!(found(&got), want, "squares only, n={n}");
            }
        }
    }

    #[test]
    fn theorem3_finds_the_flip_between_the_sizes() {
        // The slower model beats the faster below n = 50 and loses above (a tie at 50).
        let times = |n: i64| Some((1.0 + 0.01 * n as f64, 1.5));
        let (clause, crossing) = theorem3(times, 16, 20, 80);
        assert!(crossing);
        let flip = "flips at n = 51 (the initially faster model faster from there)";
        assert!(clause.ends_with(flip), "{clause}");
        // Between 60 and 80 the slower model stays slower: not a crossing by Theorem 3.
        let (clause, crossing) = theorem3(times, 16, 60, 80);
        assert!(!crossing, "{clause}");
        assert!(
            clause
                .ends_with("no flip, the initially slower model is not faster at any size probed")
        );
        // From 10 to 40 it is faster throughout: a crossing without a flip.
        assert!(theorem3(times, 16, 10, 40).1);
    }
}
