//! Fortran 95 control flow on known integers, shared by the simulators: which IF
//! branch and which CASE run, how a counted DO iterates, and what an integer scalar
//! assignment stores.

use super::eval;
use costline_engine::ir::{BaseType, CaseValue, Expr, If, Loop, LoopControl, Select, Stmt, Unit};

type Env<'a> = &'a dyn Fn(&str) -> Option<i64>;

/// The body of the first IF branch whose condition holds, if any.
pub fn branch<'a>(i: &'a If, env: Env) -> Result<Option<&'a [Stmt]>, String> {
    for b in &i.branches {
        let taken = match &b.cond {
            None => true,
            Some(c) => eval::logical(c, env)?,
        };
        if taken {
            return Ok(Some(&b.body));
        }
    }
    Ok(None)
}

/// The body of the CASE matching the selector (a match wins over CASE DEFAULT wherever
/// the default is written), if any.
pub fn case<'a>(sel: &'a Select, env: Env) -> Result<Option<&'a [Stmt]>, String> {
    let v = eval::int(&sel.selector, env)?;
    let mut chosen = None;
    for case in &sel.cases {
        let matches = match &case.values {
            None => chosen.is_none(),
            Some(values) => values.iter().try_fold(false, |hit, value| {
                let bound =
                    |e: &Option<Expr>, none| e.as_ref().map_or(Ok(none), |e| eval::int(e, env));
                Ok::<bool, String>(
                    hit || match value {
                        CaseValue::Value(e) => eval::int(e, env)? == v,
                        CaseValue::Range(lo, hi) => {
                            (bound(lo, i64::MIN)?..=bound(hi, i64::MAX)?).contains(&v)
                        }
                    },
                )
            })?,
        };
        if matches && (chosen.is_none() || case.values.is_some()) {
            chosen = Some(case.body.as_slice());
        }
    }
    Ok(chosen)
}

/// How a counted DO iterates: the variable takes `first + k·step` for k < `trips`.
pub struct Trips<'a> {
    pub var: &'a str,
    pub first: i64,
    pub step: i64,
    pub trips: i64,
}

/// `DO var = l, u, s` (Fortran 95 section 8.1.4.4.1): the bounds and step are
/// evaluated once and the trip count is max(0, (u - l + s)/s) with `/` truncating;
/// after the loop the variable holds `first + trips·step`.
pub fn trips<'a>(l: &'a Loop, env: Env) -> Result<Trips<'a>, String> {
    let LoopControl::Counted {
        var,
        lower,
        upper,
        step,
    } = &l.control
    else {
        return Err("not simulated: DO WHILE and DO without control".to_string());
    };
    let (first, last) = (eval::int(lower, env)?, eval::int(upper, env)?);
    let step = step.as_ref().map_or(Ok(1), |s| eval::int(s, env))?;
    if step == 0 {
        return Err(format!("the loop over `{var}` has step 0"));
    }
    Ok(Trips {
        var,
        first,
        step,
        trips: ((last - first + step) / step).max(0),
    })
}

/// The value an assignment of `rhs` to scalar `name` leaves in it, when it is an
/// integer scalar and `rhs` has a known value (`None`: unknown from now on).
pub fn integer_value(unit: &Unit, name: &str, rhs: &Expr, env: Env) -> Option<i64> {
    let integer = unit
        .symbols
        .get(name)
        .and_then(|s| s.ty.as_ref())
        .or_else(|| unit.implicit.type_of(name))
        .is_some_and(|t| t.base == BaseType::Integer);
    eval::int(rhs, env).ok().filter(|_| integer)
}
