//! The numeric count for given values of the unknowns, when the symbolic sum gave up:
//! first the symbolic sum again with the parameters replaced by their values (which
//! decides every case split on parameters), then, if even that fails, enumeration of
//! the iteration space up to a limit. Both are exact.

use super::FreqOptions;
use crate::symbolic::{
    Budget, Constraint, Env, EvalError, Name, Num, Rational, Rel, Sym, symbolic_sum,
};

pub fn count(
    constraints: &[Constraint],
    vars: &[Name],
    env: Env,
    options: &FreqOptions,
) -> Result<Num, EvalError> {
    // Parameters replaced by their values; loop variables stay.
    let bound = bind(constraints, &|n| vars.contains(n), env)?;
    let mut budget = Budget::new(options.max_pieces, options.max_steps, None);
    if let Ok(p) = symbolic_sum(bound.clone(), vars, Sym::one(), &mut budget) {
        return p.eval(&|_| None);
    }
    let Some(outer_first) = enumeration_order(&bound, vars) else {
        return Err(EvalError::Opaque(
            "a loop variable without constant-coefficient bounds".into(),
        ));
    };
    let too_large = || EvalError::Opaque("an iteration space too large to enumerate".into());
    let Some(levels) = prepare(&bound, &outer_first) else {
        // A constraint without variables fails: nothing runs.
        return Ok(Num::Exact(Rational::ZERO));
    };
    let mut values = Vec::with_capacity(levels.len());
    let mut left = options.max_enumeration;
    let n = enumerate(&levels, &mut values, &mut left).ok_or_else(too_large)?;
    Ok(Num::Exact(Rational::int(n)))
}

/// `constraints` with every name but those `keep` names replaced by its value under
/// `env` (partial evaluation before a sum or an enumeration).
pub fn bind(
    constraints: &[Constraint],
    keep: &dyn Fn(&Name) -> bool,
    env: Env,
) -> Result<Vec<Constraint>, EvalError> {
    constraints
        .iter()
        .map(|c| {
            c.expr
                .vars()
                .into_iter()
                .filter(|n| !keep(n))
                .try_fold(c.clone(), |c, name| {
                    let value = env(&name).ok_or_else(|| EvalError::Unbound(name.to_string()))?;
                    c.subst(&name, &Sym::int(value))
                        .map_err(|_| EvalError::DivisionByZero)
                })
        })
        .collect()
}

/// An order to enumerate `vars`, outermost first: each next variable has a lower and an
/// upper bound (linear, constant coefficient) from constraints on itself and the
/// variables before it. Innermost-first loop order reversed is tried first.
fn enumeration_order(cons: &[Constraint], vars: &[Name]) -> Option<Vec<Name>> {
    let mut order: Vec<Name> = Vec::with_capacity(vars.len());
    let mut left: Vec<Name> = vars.iter().rev().cloned().collect();
    while !left.is_empty() {
        let next = left.iter().position(|v| {
            let (mut lower, mut upper) = (false, false);
            for c in cons {
                let names = c.expr.vars();
                if !names.contains(v)
                    || names
                        .iter()
                        .any(|n| n != v && vars.contains(n) && !order.contains(n))
                {
                    continue;
                }
                if let Some([_, c1]) = c.expr.poly_in(v).as_deref()
                    && let Some(k) = c1.as_const()
                {
                    match c.rel {
                        Rel::Eq => (lower, upper) = (true, true),
                        _ if k.signum() > 0 => lower = true,
                        _ => upper = true,
                    }
                }
            }
            lower && upper
        })?;
        order.push(left.remove(next));
    }
    Some(order)
}

/// The constraints to apply once a loop variable is fixed: bounds `c1·v + c0 (rel) 0`
/// with a constant `c1`, and other checks.
struct Level {
    var: Name,
    bounds: Vec<(Sym, Rational, Rel)>,
    checks: Vec<Constraint>,
}

/// Assigns each constraint to the level of its innermost variable. `None` when a
/// constraint without variables fails.
fn prepare(cons: &[Constraint], outer_first: &[Name]) -> Option<Vec<Level>> {
    let mut levels: Vec<Level> = outer_first
        .iter()
        .map(|v| Level {
            var: v.clone(),
            bounds: Vec::new(),
            checks: Vec::new(),
        })
        .collect();
    for c in cons {
        let deepest = c
            .expr
            .vars()
            .iter()
            .filter_map(|n| outer_first.iter().position(|v| v == n))
            .max();
        let Some(k) = deepest else {
            if c.truth() == Some(false) {
                return None;
            }
            continue;
        };
        let v = &outer_first[k];
        match c.expr.poly_in(v).as_deref() {
            Some([c0, c1]) if c1.as_const().is_some() => {
                levels[k]
                    .bounds
                    .push((c0.clone(), c1.as_const().expect("checked"), c.rel));
            }
            _ => levels[k].checks.push(c.clone()),
        }
    }
    Some(levels)
}

/// Counts the points, outermost variable first; `None` past the iteration limit or for
/// an unbounded variable.
fn enumerate(levels: &[Level], values: &mut Vec<(Name, i128)>, left: &mut u64) -> Option<i128> {
    let Some((level, rest)) = levels.split_first() else {
        return Some(1);
    };
    let (lo, hi) = {
        let env = |n: &str| values.iter().find(|(k, _)| &**k == n).map(|(_, x)| *x);
        range(level, &env)?
    };
    if hi < lo {
        return Some(0);
    }
    if rest.is_empty() && level.checks.is_empty() {
        // The innermost variable: its range is the count.
        return Some(hi - lo + 1);
    }
    let mut total = 0i128;
    for x in lo..=hi {
        *left = left.checked_sub(1)?;
        values.push((level.var.clone(), x));
        let env = |n: &str| values.iter().find(|(k, _)| &**k == n).map(|(_, x)| *x);
        let ok = level.checks.iter().all(|c| c.eval(&env).unwrap_or(false));
        if ok {
            total += enumerate(rest, values, left)?;
        }
        values.pop();
    }
    Some(total)
}

/// The integer range `[lo, hi]` the bounds of a level allow under `env`.
fn range(level: &Level, env: Env) -> Option<(i128, i128)> {
    let (mut lo, mut hi): (Option<i128>, Option<i128>) = (None, None);
    for (c0, c1, rel) in &level.bounds {
        let c0 = match c0.eval(env).ok()? {
            Num::Exact(r) => r,
            Num::Approx(_) => return None,
        };
        // c1·v + c0 (rel) 0  →  v (rel') -c0/c1
        let at = c0.checked_neg().ok()?.checked_mul(c1.recip()?).ok()?;
        let (l, h) = match (rel, c1.signum() > 0) {
            (Rel::Eq, _) if at.is_integer() => (Some(at.floor()), Some(at.floor())),
            (Rel::Eq, _) => return Some((1, 0)),
            (Rel::Ge, true) => (Some(at.ceil()), None),
            (Rel::Ge, false) => (None, Some(at.floor())),
            (Rel::Gt, true) => (Some(at.floor() + 1), None),
            (Rel::Gt, false) => (None, Some(at.ceil() - 1)),
        };
        if let Some(l) = l {
            lo = Some(lo.map_or(l, |x| x.max(l)));
        }
        if let Some(h) = h {
            hi = Some(hi.map_or(h, |x| x.min(h)));
        }
    }
    Some((lo?, hi?))
}

/// A visitor of points: each variable with its value.
pub type PointVisitor<'a> = dyn FnMut(&[(Name, i128)]) + 'a;

/// Visits every integer point of `constraints` over `vars` (outermost first in the
/// order found), the other names valued by `env`; at most `limit` points are looked
/// at. Errs when a variable has no constant-coefficient bounds or past the limit.
pub fn points(
    constraints: &[Constraint],
    vars: &[Name],
    env: Env,
    limit: u64,
    f: &mut PointVisitor,
) -> Result<(), EvalError> {
    let bound = bind(constraints, &|n| vars.contains(n), env)?;
    // A constraint false on its own empties the set, bounded or not.
    if bound.iter().any(|c| c.truth() == Some(false)) {
        return Ok(());
    }
    let order = enumeration_order(&bound, vars).ok_or_else(|| {
        EvalError::Opaque("a loop variable without constant-coefficient bounds".into())
    })?;
    let Some(levels) = prepare(&bound, &order) else {
        return Ok(());
    };
    let mut values = Vec::with_capacity(levels.len());
    let mut left = limit;
    visit(&levels, &mut values, &mut left, f)
        .ok_or_else(|| EvalError::Opaque("an iteration space too large to enumerate".into()))
}

fn visit(
    levels: &[Level],
    values: &mut Vec<(Name, i128)>,
    left: &mut u64,
    f: &mut PointVisitor,
) -> Option<()> {
    let Some((level, rest)) = levels.split_first() else {
        *left = left.checked_sub(1)?;
        f(values);
        return Some(());
    };
    let (lo, hi) = {
        let env = |n: &str| values.iter().find(|(k, _)| &**k == n).map(|(_, x)| *x);
        range(level, &env)?
    };
    for x in lo..=hi {
        values.push((level.var.clone(), x));
        let env = |n: &str| values.iter().find(|(k, _)| &**k == n).map(|(_, x)| *x);
        if level.checks.iter().all(|c| c.eval(&env).unwrap_or(false)) {
            visit(rest, values, left, f)?;
        }
        values.pop();
    }
    Some(())
}
