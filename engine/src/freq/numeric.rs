//! The numeric count for given values of the unknowns, when the symbolic sum gave up:
//! first the symbolic sum again with the parameters replaced by their values (which
//! decides every case split on parameters), then, if even that fails, enumeration of
//! the iteration space up to a limit. Both are exact.

use super::FreqOptions;
use crate::symbolic::{
    Budget, Constraint, Env, EvalError, Ext, Interval, Name, Num, Rational, Rel, Sym, symbolic_sum,
};

pub fn count(
    constraints: &[Constraint],
    vars: &[Name],
    env: Env,
    options: &FreqOptions,
) -> Result<Num, EvalError> {
    // Parameters replaced by their values; loop variables stay.
    let mut bound = Vec::with_capacity(constraints.len());
    for c in constraints {
        let mut c = c.clone();
        for name in c.expr.vars() {
            if vars.contains(&name) {
                continue;
            }
            let value = env(&name).ok_or_else(|| EvalError::Unbound(name.to_string()))?;
            c = c
                .subst(&name, &Sym::int(value))
                .map_err(|_| EvalError::DivisionByZero)?;
        }
        bound.push(c);
    }
    let mut budget = Budget::new(options.max_pieces, options.max_steps, None);
    if let Ok(p) = symbolic_sum(bound.clone(), vars, Sym::one(), &mut budget) {
        return p.eval(&|_| None);
    }
    let outer_first: Vec<&Name> = vars.iter().rev().collect();
    let mut values: Vec<(Name, i128)> = Vec::new();
    let mut left = options.max_enumeration;
    let n = enumerate(&bound, &outer_first, &mut values, &mut left)
        .ok_or_else(|| EvalError::Opaque("an iteration space too large to enumerate".into()))?;
    Ok(Num::Exact(Rational::int(n)))
}

/// Counts the points, outermost variable first; `None` past the iteration limit or for
/// an unbounded variable.
fn enumerate(
    cons: &[Constraint],
    vars: &[&Name],
    values: &mut Vec<(Name, i128)>,
    left: &mut u64,
) -> Option<i128> {
    let look = |values: &[(Name, i128)]| {
        let v = values.to_vec();
        move |n: &str| v.iter().find(|(k, _)| &**k == n).map(|(_, x)| *x)
    };
    let Some((v, rest)) = vars.split_first() else {
        let env = look(values);
        let all = cons.iter().all(|c| c.eval(&env).unwrap_or(false));
        return Some(i128::from(all));
    };
    // v's range from the constraints on v and the variables already fixed.
    let known: Vec<&Name> = values.iter().map(|(n, _)| n).collect();
    let mut range = Interval::ALL;
    for c in cons {
        let vars_in = c.expr.vars();
        if !vars_in.contains(v) || vars_in.iter().any(|n| n != *v && !known.contains(&n)) {
            continue;
        }
        let mut fixed = c.clone();
        for (n, x) in values.iter() {
            fixed = fixed.subst(n, &Sym::int(*x)).ok()?;
        }
        if let Some(b) = single_bound(&fixed, v) {
            range = range.meet(b);
        }
    }
    let (Ext::Fin(lo), Ext::Fin(hi)) = (range.lo, range.hi) else {
        return None;
    };
    let (lo, hi) = (lo.ceil(), hi.floor());
    let mut total = 0i128;
    for x in lo..=hi {
        *left = left.checked_sub(1)?;
        values.push(((*v).clone(), x));
        total += enumerate(cons, rest, values, left)?;
        values.pop();
    }
    Some(total)
}

/// The integer range of `v` allowed by a constraint linear in `v` with a constant
/// coefficient (`None` for any other constraint).
fn single_bound(c: &Constraint, v: &Name) -> Option<Interval> {
    let coefs = c.expr.poly_in(v)?;
    let [c0, c1] = coefs.as_slice() else {
        return None;
    };
    let (c0, c1) = (c0.as_const()?, c1.as_const()?);
    // c1·v + c0 (rel) 0  →  v (rel') -c0/c1
    let at = c0.checked_neg().ok()?.checked_mul(c1.recip()?).ok()?;
    let int = |x: i128| Ext::Fin(Rational::int(x));
    Some(match (c.rel, c1.signum() > 0) {
        (Rel::Eq, _) => Interval::point(at),
        (Rel::Ge, true) => Interval {
            lo: int(at.ceil()),
            hi: Ext::PosInf,
        },
        (Rel::Ge, false) => Interval {
            lo: Ext::NegInf,
            hi: int(at.floor()),
        },
        (Rel::Gt, true) => Interval {
            lo: int(at.floor() + 1),
            hi: Ext::PosInf,
        },
        (Rel::Gt, false) => Interval {
            lo: Ext::NegInf,
            hi: int(at.ceil() - 1),
        },
    })
}
