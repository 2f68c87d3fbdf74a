//! The values of the loops around a call, for calls whose actuals change with them: a
//! multigrid V-cycle calls its smoother once per level with `m1(k)` and a section
//! `r(1:m1(k), …, k)`, and each level's call binds the callee differently. Each
//! combination of the enclosing loops' values is a sub-site of the call, running its
//! share of the call's executions.

use crate::distribution::exact_int;
use crate::freq::convert::{Names, Scope};
use costline_symbolic::Sym;
use costline_syntax::ir::{Expr, Loop, LoopControl, StmtId, Unit, enclosing_loops};
use std::collections::{BTreeMap, BTreeSet};

/// Sub-sites of one call beyond this many are not told apart: the call binds as one.
pub const MAX_SUB_SITES: usize = 256;

/// Each combination of values of the loops enclosing statement `id` of `ir` that
/// `exprs` (the call's actuals) depend on, as the values of the internal counters the
/// counts name the loop variables by (what `names`, the names at the statement, map
/// each loop variable to), outermost loop first in the order of iteration. A loop the
/// actuals do not depend on (a time-step loop around a sweep over `l`), nor the
/// bounds of a loop they do, is left out: each of its iterations makes the same calls.
/// The bounds are valued at the statement under `known` (the unit's constants) and the
/// outer loops' values: a loop variable whose bounds the body changes has no value
/// there. `None` when the actuals depend on no counted loop, such a loop has an
/// unvalued bound, or the combinations are more than [`MAX_SUB_SITES`].
pub fn loop_values(
    ir: &Unit,
    id: StmtId,
    names: &Names,
    known: &BTreeMap<String, i64>,
    exprs: &[&Expr],
) -> Option<Vec<BTreeMap<String, i64>>> {
    let loops = depended_on(ir, enclosing_loops(&ir.body, id)?, names, known, exprs);
    if loops.is_empty() {
        return None;
    }
    let mut combinations = vec![BTreeMap::new()];
    for l in loops {
        let LoopControl::Counted {
            var,
            lower,
            upper,
            step,
        } = &l.control
        else {
            return None;
        };
        let variable = names.get(var)?.as_ref().ok()?;
        let mut next = Vec::new();
        for outer in &combinations {
            let values = at_values(known, outer);
            let scope = names.with_more_constants(&values);
            let value = |e: &Expr| value_of(ir, &scope, &values, e);
            let (lo, up) = (value(lower)?, value(upper)?);
            let step = step.as_ref().map_or(Some(1), value)?;
            let (counter, base, slope) = counter(variable, &values)?;
            // Fortran's trip count max(0, (up - lo + step) / step); huge bounds have none.
            let trips = up
                .checked_sub(lo)?
                .checked_add(step)?
                .checked_div(step)?
                .max(0);
            if next.len() as i64 + trips > MAX_SUB_SITES as i64 {
                return None;
            }
            for t in 0..trips {
                // The counter value that gives the loop variable lo + t·step.
                let offset = lo.checked_add(t.checked_mul(step)?)?.checked_sub(base)?;
                if offset.checked_rem(slope)? != 0 {
                    return None;
                }
                let mut m = outer.clone();
                m.insert(counter.clone(), offset.checked_div(slope)?);
                next.push(m);
            }
        }
        combinations = next;
    }
    Some(combinations)
}

/// The loops of `loops` (outermost first) whose variables `exprs` depend on, directly,
/// through a value computed from them, or through the bounds of an inner loop they
/// depend on.
fn depended_on<'a>(
    ir: &Unit,
    loops: Vec<&'a Loop>,
    names: &Names,
    known: &BTreeMap<String, i64>,
    exprs: &[&Expr],
) -> Vec<&'a Loop> {
    let scope = Scope {
        unit: ir,
        names,
        integers: true,
    };
    // The unknowns an expression's value rests on (its names where it has no formula).
    let unknowns = |e: &Expr, into: &mut BTreeSet<String>| {
        e.visit(&mut |x| {
            if let Expr::Name(n) = x {
                match scope.sym(x) {
                    Ok(s) => into.extend(s.vars().into_iter().map(|v| v.to_string())),
                    Err(_) => {
                        into.insert(n.clone());
                    }
                }
            }
        });
    };
    let mut wanted = BTreeSet::new();
    for e in exprs {
        unknowns(e, &mut wanted);
    }
    let mut kept = Vec::new();
    for l in loops.into_iter().rev() {
        // A DO WHILE has no values to enumerate: what changes in it has no value at
        // the call either.
        let LoopControl::Counted { var, .. } = &l.control else {
            continue;
        };
        let counter = names
            .get(var)
            .and_then(|v| v.as_ref().ok())
            .and_then(|v| counter(v, known));
        let named =
            wanted.contains(var) || counter.as_ref().is_some_and(|(c, _, _)| wanted.contains(c));
        if named {
            for e in l.control.exprs() {
                unknowns(e, &mut wanted);
            }
            kept.push(l);
        }
    }
    kept.reverse();
    kept
}

/// `known` with `extra` over it.
pub fn at_values(
    known: &BTreeMap<String, i64>,
    extra: &BTreeMap<String, i64>,
) -> BTreeMap<String, i64> {
    let mut all = known.clone();
    all.extend(extra.iter().map(|(k, v)| (k.clone(), *v)));
    all
}

/// The value of integer expression `e` of `ir` under `names` and `values`.
fn value_of(ir: &Unit, names: &Names, values: &BTreeMap<String, i64>, e: &Expr) -> Option<i64> {
    let s = Scope {
        unit: ir,
        names,
        integers: true,
    }
    .sym(e)
    .ok()?;
    exact_int(&s, &|n| values.get(n).map(|v| *v as i128))
}

/// The internal counter of a loop variable's formula `variable` (its one unknown
/// without a value in `values`) and the formula as `base + slope·counter`.
fn counter(variable: &Sym, values: &BTreeMap<String, i64>) -> Option<(String, i64, i64)> {
    let env = |n: &str| values.get(n).map(|v| *v as i128);
    let free: Vec<String> = variable
        .vars()
        .into_iter()
        .map(|v| v.to_string())
        .filter(|v| !values.contains_key(v))
        .collect();
    let [counter] = free.as_slice() else {
        return None;
    };
    let at = |t: i128| exact_int(&variable.subst(counter, &Sym::int(t)).ok()?, &env);
    let base = at(0)?;
    Some((counter.clone(), base, at(1)?.checked_sub(base)?))
}
