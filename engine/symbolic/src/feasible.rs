//! Whether a conjunction of constraints over the integer unknowns can hold: a sound
//! Fourier–Motzkin test that answers "empty" only when no point satisfies it.
//!
//! Every monomial (`n`, `p·m`, `⌊3m/4⌋`) is a variable of its own, so the test is run on
//! a relaxation; each step eliminates one variable `x` by adding every lower bound
//! `a·x + e ≥ 0` (a > 0) to every upper bound `-b·x + f ≥ 0` (b > 0) as
//! `b·e + a·f ≥ 0`. The combinations are rounded as integer constraints
//! (`Constraint::normalized`: `2n - 3 ≥ 0` → `n - 2 ≥ 0`), which is sound for
//! integer-valued expressions and decides a single unknown's bounds exactly. A floor atom
//! `x = ⌊e⌋` adds its defining bounds `q·x ≤ q·e ≤ q·x + q - 1` (q the denominator of
//! `e`). Strict constraints of non-integer values are relaxed to non-strict ones. Past
//! [`MAX_ROWS`] constraints the test gives up and answers "maybe feasible".

use super::constraint::{Constraint, Rel};
use super::rational::Rational;
use super::sym::{Atom, Monomial, Sym, SymError};

/// The most constraints one elimination step may leave before the test gives up.
const MAX_ROWS: usize = 64;

/// Whether no integer point satisfies every constraint of `cs` (`false`: maybe some
/// does).
pub(crate) fn infeasible(cs: &[Constraint]) -> bool {
    eliminate(rows(cs)).unwrap_or(false)
}

/// Whether every integer point satisfying `hyp` satisfies `c` (`false`: maybe not).
pub(crate) fn implies(hyp: &[Constraint], c: &Constraint) -> bool {
    let Ok(negations) = c.negated() else {
        return false;
    };
    negations.into_iter().all(|n| {
        let mut all = hyp.to_vec();
        all.push(n);
        infeasible(&all)
    })
}

/// The constraints as `e ≥ 0` rows (an equality is two), with the bounds of the floor
/// atoms they mention.
fn rows(cs: &[Constraint]) -> Vec<Sym> {
    let mut out = Vec::with_capacity(cs.len() + 2);
    for c in cs {
        match c.rel {
            Rel::Ge | Rel::Gt => out.push(c.expr.clone()),
            Rel::Eq => {
                out.push(c.expr.clone());
                if let Ok(neg) = c.expr.neg() {
                    out.push(neg);
                }
            }
        }
    }
    let mut floors: Vec<&Atom> = Vec::new();
    for c in cs {
        for t in c.expr.terms() {
            if let [(a @ Atom::Floor(_), 1)] = t.mono.factors()
                && !floors.contains(&a)
            {
                floors.push(a);
            }
        }
    }
    for a in floors {
        if let Atom::Floor(e) = a
            && let Ok(bounds) = floor_bounds(a, e)
        {
            out.extend(bounds);
        }
    }
    out
}

/// `q·e - q·x ≥ 0` and `q·x - q·e + q - 1 ≥ 0` for `x = ⌊e⌋`, when `q·e` is
/// integer-valued.
fn floor_bounds(a: &Atom, e: &Sym) -> Result<Vec<Sym>, SymError> {
    let (_, q) = e.content();
    let qe = e.scale(Rational::int(q))?;
    if !qe.is_integer_valued() {
        return Ok(Vec::new());
    }
    let qx = Sym::atom(a.clone()).scale(Rational::int(q))?;
    Ok(vec![qe.sub(&qx)?, qx.sub(&qe)?.add_int(q - 1)?])
}

/// The coefficient of `m` in `s`.
fn coef(s: &Sym, m: &Monomial) -> Rational {
    s.terms()
        .iter()
        .find(|t| &t.mono == m)
        .map_or(Rational::ZERO, |t| t.coef)
}

/// `Some(true)` when the rows have no common solution, `Some(false)` when they have a
/// rational one, `None` when the test gave up (too many rows, an overflow).
fn eliminate(mut rows: Vec<Sym>) -> Option<bool> {
    loop {
        let mut kept: Vec<Sym> = Vec::with_capacity(rows.len());
        for r in rows {
            let c = Constraint {
                expr: r,
                rel: Rel::Ge,
            }
            .normalized()
            .ok()?;
            match c.truth() {
                Some(false) => return Some(true),
                Some(true) => {}
                None => kept.push(c.expr),
            }
        }
        kept.sort();
        kept.dedup();
        if kept.len() > MAX_ROWS {
            return None;
        }
        // The variable with the fewest new rows.
        let mut monos: Vec<&Monomial> = kept
            .iter()
            .flat_map(|r| r.terms().iter().map(|t| &t.mono))
            .filter(|m| !m.is_one())
            .collect();
        monos.sort();
        monos.dedup();
        let Some(x) = monos
            .into_iter()
            .min_by_key(|m| {
                let (mut lo, mut hi) = (0usize, 0usize);
                for r in &kept {
                    match coef(r, m).signum() {
                        1 => lo += 1,
                        -1 => hi += 1,
                        _ => {}
                    }
                }
                (lo * hi) as isize - (lo + hi) as isize
            })
            .cloned()
        else {
            return Some(false);
        };
        let (mut lower, mut upper, mut next) = (Vec::new(), Vec::new(), Vec::new());
        for r in kept {
            let a = coef(&r, &x);
            match a.signum() {
                1 => lower.push((a, r)),
                -1 => upper.push((a.checked_neg().ok()?, r)),
                _ => next.push(r),
            }
        }
        for (a, l) in &lower {
            for (b, u) in &upper {
                let combined = l.scale(*b).and_then(|l| l.add(&u.scale(*a)?)).ok()?;
                next.push(combined);
            }
        }
        rows = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Sym {
        Sym::var(s)
    }

    fn ge(a: &Sym, b: i128) -> Constraint {
        Constraint::ge(a, &Sym::int(b)).unwrap()
    }

    fn le(a: &Sym, b: i128) -> Constraint {
        Constraint::le(a, &Sym::int(b)).unwrap()
    }

    #[test]
    fn bounds_on_one_unknown_are_decided_exactly() {
        let n = v("n");
        assert!(infeasible(&[ge(&n, 4), le(&n, 3)]));
        assert!(!infeasible(&[ge(&n, 3), le(&n, 3)]));
        // 2n >= 3 and 2n <= 3: no integer.
        let two_n = n.scale(Rational::int(2)).unwrap();
        assert!(infeasible(&[ge(&two_n, 3), le(&two_n, 3)]));
        // 2n = 3
        let eq = Constraint::eq(&two_n, &Sym::int(3))
            .unwrap()
            .normalized()
            .unwrap();
        assert!(infeasible(&[eq]));
    }

    #[test]
    fn chains_over_several_unknowns() {
        let (n, m) = (v("n"), v("m"));
        // n >= m + 1, m >= 5, n <= 5
        let c = Constraint::ge(&n, &m.add_int(1).unwrap()).unwrap();
        assert!(infeasible(&[c.clone(), ge(&m, 5), le(&n, 5)]));
        assert!(!infeasible(&[c.clone(), ge(&m, 5), le(&n, 6)]));
        assert!(implies(&[c, ge(&m, 5)], &ge(&n, 6)));
        assert!(!implies(&[ge(&m, 5)], &ge(&n, 6)));
    }

    #[test]
    fn floors_are_bounded_by_their_argument() {
        // floor(n/2) >= 3 and n <= 5: floor(n/2) <= n/2 <= 5/2.
        let n = v("n");
        let half = n
            .scale(Rational::new(1, 2).unwrap())
            .unwrap()
            .floor()
            .unwrap();
        assert!(infeasible(&[ge(&half, 3), le(&n, 5)]));
        assert!(!infeasible(&[ge(&half, 3), le(&n, 6)]));
    }
}
