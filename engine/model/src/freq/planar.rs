//! The integer points of a plane region between lines, in closed form: for x in
//! `[lo, hi]` and y with lower bounds `y ≥ ⌈(p·x + q)/r⌉` and upper bounds
//! `y ≤ ⌊(p·x + q)/r⌋` (r > 0),
//!
//! `N = Σ_{x=lo}^{hi} max(0, min_u ⌊U_u(x)⌋ − max_l ⌈L_l(x)⌉ + 1)`.
//!
//! ⌊·⌋ and ⌈·⌉ are monotone, so `min_u ⌊U_u(x)⌋ = ⌊min_u U_u(x)⌋` (and likewise for the
//! lower bounds): between two crossings of the lines the same line U is the smallest
//! upper one and the same L the largest lower one. There the count at x is
//! `⌊U(x)⌋ − ⌈L(x)⌉ + 1` where `U(x) ≥ L(x)` (at least 0 since ⌊U⌋ > U − 1 and ⌈L⌉ < L + 1)
//! and 0 where `U(x) < L(x)` (then ⌊U⌋ − ⌈L⌉ + 1 ≤ U − L + 1 < 1), so on the interval of
//! x where `U(x) ≥ L(x)` it is a sum of floors of affine functions: [`floor_sum`].

use costline_symbolic::Word;
use std::cmp::Ordering;

/// `(p·x + q)/r` with r > 0: a bound on y at x.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line<T> {
    pub p: T,
    pub q: T,
    pub r: T,
}

impl<T: Word> Line<T> {
    /// `line(x)` compared with `other(x)` at x = m2/2 (twice a midpoint), exactly.
    fn cmp_at(&self, other: &Line<T>, m2: T) -> Option<Ordering> {
        // (p·m2 + 2q)/(2r) vs (p'·m2 + 2q')/(2r'): cross-multiplied by 2r·2r' > 0.
        let a = self.p.mul(m2)?.add(self.q.add(self.q)?)?;
        let b = other.p.mul(m2)?.add(other.q.add(other.q)?)?;
        Some(a.mul(other.r)?.cmp(&b.mul(self.r)?))
    }

    /// The x where the two lines cross, rounded down (`Some(None)` for parallel lines,
    /// `None` on overflow).
    fn crossing(&self, other: &Line<T>) -> Option<Option<T>> {
        // p/r·x + q/r = p'/r'·x + q'/r'  ⇔  (p·r' − p'·r)·x = q'·r − q·r'
        let den = self.p.mul(other.r)?.sub(other.p.mul(self.r)?)?;
        let num = other.q.mul(self.r)?.sub(self.q.mul(other.r)?)?;
        if den == T::ZERO {
            return Some(None);
        }
        floor_div(num, den).map(Some)
    }
}

/// ⌊n/d⌋ for d ≠ 0.
fn floor_div<T: Word>(n: T, d: T) -> Option<T> {
    if d < T::ZERO {
        n.neg()?.floor_div(d.neg()?)
    } else {
        n.floor_div(d)
    }
}

/// N of the module doc; `None` when y has no lower or no upper bound (and x values
/// exist) or an intermediate overflows `T`.
pub fn count<T: Word>(lo: T, hi: T, lower: &[Line<T>], upper: &[Line<T>]) -> Option<T> {
    if hi < lo {
        return Some(T::ZERO);
    }
    if lower.is_empty() || upper.is_empty() {
        return None;
    }
    // Pieces [a, b] of [lo, hi] with no crossing of two upper (or two lower) lines
    // strictly inside: a crossing at x* cuts after ⌊x*⌋.
    let mut cuts = Vec::new();
    for lines in [lower, upper] {
        for (k, a) in lines.iter().enumerate() {
            for b in &lines[k + 1..] {
                if let Some(c) = a.crossing(b)?
                    && lo <= c
                    && c < hi
                {
                    cuts.push(c);
                }
            }
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut total = T::ZERO;
    let mut a = lo;
    for b in cuts.into_iter().chain(std::iter::once(hi)) {
        total = total.add(piece(a, b, lower, upper)?)?;
        a = b.add(T::ONE)?;
    }
    Some(total)
}

/// N over `[a, b]`, a piece where the lines' order does not change (ties at the ends).
fn piece<T: Word>(a: T, b: T, lower: &[Line<T>], upper: &[Line<T>]) -> Option<T> {
    let m2 = a.add(b)?;
    let pick = |lines: &[Line<T>], better: Ordering| -> Option<Line<T>> {
        let mut best = lines[0];
        for l in &lines[1..] {
            if l.cmp_at(&best, m2)? == better {
                best = *l;
            }
        }
        Some(best)
    };
    let u = pick(upper, Ordering::Less)?;
    let l = pick(lower, Ordering::Greater)?;
    // U(x) − L(x) ≥ 0  ⇔  s·x + t ≥ 0 with s = pU·rL − pL·rU, t = qU·rL − qL·rU.
    let s = u.p.mul(l.r)?.sub(l.p.mul(u.r)?)?;
    let t = u.q.mul(l.r)?.sub(l.q.mul(u.r)?)?;
    let (mut from, mut to) = (a, b);
    match s.cmp(&T::ZERO) {
        Ordering::Equal if t < T::ZERO => return Some(T::ZERO),
        Ordering::Equal => {}
        // x ≥ ⌈−t/s⌉ = −⌊t/s⌋
        Ordering::Greater => from = from.max(t.floor_div(s)?.neg()?),
        // x ≤ ⌊t/−s⌋
        Ordering::Less => to = to.min(t.floor_div(s.neg()?)?),
    }
    if to < from {
        return Some(T::ZERO);
    }
    let n = to.sub(from)?.add(T::ONE)?;
    // Σ ⌊U(x)⌋ + Σ ⌊−L(x)⌋ + n over x = from + i, i in [0, n).
    let ups = floor_sum(n, u.r, u.p, u.p.mul(from)?.add(u.q)?)?;
    let downs = floor_sum(n, l.r, l.p.neg()?, l.p.mul(from)?.add(l.q)?.neg()?)?;
    ups.add(downs)?.add(n)
}

/// `Σ_{i=0}^{n−1} ⌊(a·i + b)/m⌋` for n ≥ 0, m > 0 (any signs of a and b), by the
/// Euclidean-like reduction: with 0 ≤ a, b < m the sum counts the lattice points under
/// the line, which is the same sum with a and m exchanged over n' = ⌊(a·n + b)/m⌋.
pub fn floor_sum<T: Word>(n: T, m: T, a: T, b: T) -> Option<T> {
    let (mut n, mut m, mut a, mut b) = (n, m, a, b);
    let mut total = T::ZERO;
    // n(n − 1)/2
    let pairs = |n: T| n.mul(n.sub(T::ONE)?)?.floor_div(T::ONE.add(T::ONE)?);
    while n > T::ZERO {
        if a < T::ZERO || a >= m {
            total = total.add(pairs(n)?.mul(a.floor_div(m)?)?)?;
            a = a.floor_rem(m)?;
        }
        if b < T::ZERO || b >= m {
            total = total.add(n.mul(b.floor_div(m)?)?)?;
            b = b.floor_rem(m)?;
        }
        let y_max = a.mul(n)?.add(b)?;
        if y_max < m {
            break;
        }
        n = y_max.floor_div(m)?;
        b = y_max.floor_rem(m)?;
        std::mem::swap(&mut m, &mut a);
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn line() -> impl Strategy<Value = Line<i128>> {
        (-9i128..10, -40i128..41, 1i128..8).prop_map(|(p, q, r)| Line { p, q, r })
    }

    /// N by visiting every x and y.
    fn brute(lo: i128, hi: i128, lower: &[Line<i128>], upper: &[Line<i128>]) -> i128 {
        let ceil = |l: &Line<i128>, x: i128| -(-(l.p * x + l.q)).div_euclid(l.r);
        let floor = |l: &Line<i128>, x: i128| (l.p * x + l.q).div_euclid(l.r);
        (lo..=hi)
            .map(|x| {
                let y0 = lower.iter().map(|l| ceil(l, x)).max().unwrap();
                let y1 = upper.iter().map(|l| floor(l, x)).min().unwrap();
                (y1 - y0 + 1).max(0)
            })
            .sum()
    }

    proptest! {
        #[test]
        fn floor_sums_equal_the_terms_added(n in 0i128..30, m in 1i128..12, a in -30i128..31, b in -60i128..61) {
            let direct: i128 = (0..n).map(|i| (a * i + b).div_euclid(m)).sum();
            prop_assert_eq!(floor_sum(n, m, a, b), Some(direct));
            let narrow = |x: i128| x as i64;
            prop_assert_eq!(floor_sum(narrow(n), narrow(m), narrow(a), narrow(b)), Some(narrow(direct)));
        }

        #[test]
        fn counts_equal_the_points_visited(
            lo in -20i128..20,
            len in -2i128..30,
            lower in prop::collection::vec(line(), 1..4),
            upper in prop::collection::vec(line(), 1..4),
        ) {
            let hi = lo + len;
            let n = brute(lo, hi, &lower, &upper);
            prop_assert_eq!(count(lo, hi, &lower, &upper), Some(n));
            let narrow = |lines: &[Line<i128>]| -> Vec<Line<i64>> {
                lines.iter().map(|l| Line { p: l.p as i64, q: l.q as i64, r: l.r as i64 }).collect()
            };
            prop_assert_eq!(count(lo as i64, hi as i64, &narrow(&lower), &narrow(&upper)), Some(n as i64));
        }
    }

    #[test]
    fn a_triangle_and_a_band() {
        // 0 ≤ y ≤ x for x in 0..=9: 55 points.
        let zero = Line::<i128> { p: 0, q: 0, r: 1 };
        let diagonal = Line { p: 1, q: 0, r: 1 };
        assert_eq!(count(0, 9, &[zero], &[diagonal]), Some(55));
        // x/2 ≤ y ≤ x/2 + 1 (halves rounded inward), x in 0..=3: 2+1+2+1.
        let half = Line::<i128> { p: 1, q: 0, r: 2 };
        let half_up = Line { p: 1, q: 2, r: 2 };
        assert_eq!(count(0, 3, &[half], &[half_up]), Some(6));
        assert_eq!(count(0, 3, &[], &[half_up]), None);
        assert_eq!(count::<i128>(3, 0, &[], &[]), Some(0));
    }
}
