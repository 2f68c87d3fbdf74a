//! The numeric count for given values of the unknowns, when the symbolic sum gave up:
//! first the symbolic sum again with the parameters replaced by their values (which
//! decides every case split on parameters), then, if even that fails, enumeration of
//! the iteration space up to a limit. Both are exact.

use super::FreqOptions;
use super::nest::{Nest, Point, order, order_last, unordered};
use costline_symbolic::{
    Budget, Constraint, Env, EvalError, Name, Num, Rational, Sym, symbolic_sum,
};

pub fn count(
    constraints: &[Constraint],
    vars: &[Name],
    env: Env,
    options: &FreqOptions,
) -> Result<Num, EvalError> {
    // Parameters replaced by their values; loop variables stay.
    let bound = bind(constraints, &|n| vars.contains(n), env)?;
    let mut budget = Budget::new(options.max_pieces, options.max_steps);
    if let Ok(p) = symbolic_sum(bound.clone(), vars, Sym::one(), &mut budget) {
        return p.eval(&|_| None);
    }
    let outer_first = order(&bound, vars).ok_or_else(unordered)?;
    let mut left = options.max_enumeration;
    let n = Nest::ordered(&bound, outer_first, &[])
        .count(&[], &mut left)
        .ok_or_else(too_large)?;
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

fn too_large() -> EvalError {
    EvalError::Opaque("an iteration space too large to enumerate".into())
}

/// Visits every integer point of `constraints` over `vars` (outermost first in the
/// order found), the other names valued by `env`. Variables `projected` accepts are left out of the points where the order allows
/// (enumerated innermost, only whether some value exists is asked): the visitor then
/// sees each distinct point of the others once. Each point and each value of an outer
/// variable looked at costs one of `left`. Errs when a variable has no
/// constant-coefficient bounds or when `left` runs out.
pub fn points(
    constraints: &[Constraint],
    vars: &[Name],
    projected: &dyn Fn(&Name) -> bool,
    env: Env,
    left: &mut u64,
    f: &mut dyn FnMut(Point),
) -> Result<(), EvalError> {
    let bound = bind(constraints, &|n| vars.contains(n), env)?;
    // A constraint false on its own empties the set, bounded or not.
    if bound.iter().any(|c| c.truth() == Some(false)) {
        return Ok(());
    }
    let outer_first = order_last(&bound, vars, projected).ok_or_else(unordered)?;
    let depth = outer_first.len()
        - outer_first
            .iter()
            .rev()
            .take_while(|v| projected(v))
            .count();
    Nest::ordered(&bound, outer_first, &[])
        .visit(&[], depth, left, f)
        .ok_or_else(too_large)
}
