//! Integer tables a program fills once from constants (NPB LU's `jlow(k)`,
//! `ilow(k, j)`: the bounds of each hyperplane of its wavefront sweeps), read as
//! formulas of their subscripts. A table whose values on the elements written are
//! exactly the maximum (or the minimum) of a few affine functions of the subscripts is
//! that formula: `ilow(k, j) = max(2, k - j - 31)`, so a loop `do i = ilow(l, j), ...`
//! inside `do j = ...` has bounds the symbolic sum counts. The fit is checked at every
//! element written; a table that is no such formula has none.

use costline_symbolic::Sym;
use std::collections::{BTreeMap, BTreeSet};

/// Distinct affine pieces tried at most.
const MAX_PIECES: usize = 64;

/// The variable a fitted table's formula names its `k`-th subscript by (0-based).
pub fn subscript_var(k: usize) -> String {
    format!("#{}", k + 1)
}

/// An affine function of the subscripts: the coefficients and the constant.
type Plane = (Vec<i64>, i64);

/// The formula of the table with these `values` (subscripts → value, all of one
/// rank) in the [`subscript_var`]s: an affine function, or the maximum or minimum of
/// affine functions, equal to the table at every element given; `None` if none is.
pub fn fit(values: &BTreeMap<Vec<i64>, i64>) -> Option<Sym> {
    let rank = values.keys().next()?.len();
    if rank == 0 || values.keys().any(|k| k.len() != rank) {
        return None;
    }
    let planes = candidates(values, rank)?;
    let at = |p: &Plane, x: &[i64]| -> Option<i64> {
        p.0.iter()
            .zip(x)
            .try_fold(p.1, |acc, (c, x)| acc.checked_add(c.checked_mul(*x)?))
    };
    for upper in [false, true] {
        // The pieces of a maximum lie below the table everywhere, those of a minimum
        // above it.
        let below = |p: &Plane| {
            values
                .iter()
                .all(|(x, v)| at(p, x).is_some_and(|a| if upper { a >= *v } else { a <= *v }))
        };
        let mut kept: Vec<&Plane> = planes.iter().filter(|p| below(p)).collect();
        let reproduces = |kept: &[&Plane]| {
            values.iter().all(|(x, v)| {
                let each = kept.iter().filter_map(|p| at(p, x));
                let best = if upper { each.min() } else { each.max() };
                best == Some(*v)
            })
        };
        if kept.is_empty() || !reproduces(&kept) {
            continue;
        }
        // Drop the pieces the others make redundant.
        let mut i = 0;
        while i < kept.len() && kept.len() > 1 {
            let mut without = kept.clone();
            without.remove(i);
            if reproduces(&without) {
                kept = without;
            } else {
                i += 1;
            }
        }
        let pieces: Vec<Sym> = kept.iter().map(|p| formula(p)).collect::<Option<_>>()?;
        return match pieces.as_slice() {
            [one] => Some(one.clone()),
            _ if upper => Sym::min(&pieces).ok(),
            _ => Sym::max(&pieces).ok(),
        };
    }
    None
}

/// The affine functions through each element and its neighbours along every
/// dimension (forward where the table has the next element, else backward).
fn candidates(values: &BTreeMap<Vec<i64>, i64>, rank: usize) -> Option<Vec<Plane>> {
    let mut out: BTreeSet<Plane> = BTreeSet::new();
    for (x, v) in values {
        let mut slopes = Vec::with_capacity(rank);
        for d in 0..rank {
            let mut next = x.clone();
            next[d] = next[d].checked_add(1)?;
            let slope = if let Some(w) = values.get(&next) {
                w.checked_sub(*v)?
            } else {
                next[d] = x[d].checked_sub(1)?;
                match values.get(&next) {
                    Some(w) => v.checked_sub(*w)?,
                    // A dimension with one value here: any slope, take 0.
                    None => 0,
                }
            };
            slopes.push(slope);
        }
        let offset = slopes
            .iter()
            .zip(x)
            .try_fold(*v, |acc, (c, x)| acc.checked_sub(c.checked_mul(*x)?))?;
        out.insert((slopes, offset));
        if out.len() > MAX_PIECES {
            return None;
        }
    }
    Some(out.into_iter().collect())
}

fn formula((coefficients, offset): &Plane) -> Option<Sym> {
    let mut out = Sym::int(*offset as i128);
    for (k, c) in coefficients.iter().enumerate() {
        if *c != 0 {
            let term = Sym::var(&subscript_var(k))
                .mul(&Sym::int(*c as i128))
                .ok()?;
            out = out.add(&term).ok()?;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(
        f: impl Fn(i64, i64) -> Option<i64>,
        k: std::ops::RangeInclusive<i64>,
    ) -> BTreeMap<Vec<i64>, i64> {
        let mut out = BTreeMap::new();
        for a in k.clone() {
            for b in 1..=40 {
                if let Some(v) = f(a, b) {
                    out.insert(vec![a, b], v);
                }
            }
        }
        out
    }

    fn check(values: &BTreeMap<Vec<i64>, i64>, formula: &Sym) {
        for (x, v) in values {
            let mut s = formula.clone();
            for (k, x) in x.iter().enumerate() {
                s = s.subst(&subscript_var(k), &Sym::int(*x as i128)).unwrap();
            }
            assert_eq!(s.as_int(), Some(*v as i128), "at {x:?}: {formula}");
        }
    }

    /// LU's lower bounds of the hyperplane k (xsize = 33): 2 on the first third of the
    /// sweep, k - j - 32 where that is larger; only j in jfirst..jlast written.
    #[test]
    fn a_table_with_a_kink_is_a_maximum() {
        let values = table(
            |k, j| {
                let (first, last) = (2.max(k - 64), (k - 4).min(32));
                (first..=last).contains(&j).then(|| 2.max(k - j - 32))
            },
            6..=96,
        );
        let f = fit(&values).expect("a maximum of two planes");
        assert_eq!(f.to_string().matches("max").count(), 1, "{f}");
        check(&values, &f);
    }

    #[test]
    fn upper_bounds_are_a_minimum_and_affine_tables_a_plane() {
        let values = table(|k, j| (j < k).then(|| 32.min(k - j - 2)), 6..=60);
        check(&values, &fit(&values).expect("a minimum"));
        let plane = table(|k, j| Some(3 * k - j + 7), 1..=5);
        let f = fit(&plane).expect("a plane");
        assert!(!f.to_string().contains("m"), "{f}");
        check(&plane, &f);
    }

    #[test]
    fn a_table_of_data_has_no_formula() {
        // A pseudo-random table is neither.
        let values = table(|k, j| Some((k * 7919 + j * 104_729) % 97), 1..=20);
        assert_eq!(fit(&values), None);
        // A saddle (neither convex nor concave) is neither either.
        let saddle = table(|k, j| Some((k - 10).abs() - (j - 20).abs()), 1..=20);
        assert_eq!(fit(&saddle), None);
    }
}
