//! How often each unit runs in the program: the main program once; a procedure as often
//! as its call sites execute, each weighted by how often its caller runs (P^3T+
//! Definitions 4.3 and 4.7: a call contributes the callee weighted by call frequency).
//! A procedure no input calls runs once per call, and says so.

use super::{Count, FreqOptions, UnitFrequencies};
use crate::ir::{Expr, StmtId, StmtKind, Unit, UnitKind};
use crate::symbolic::{Env, Num, Piecewise, Rational, Sym};
use std::collections::HashMap;

/// A call of a unit: the calling unit (its index in the list given to [`runs`]) and
/// the calling statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSite {
    pub caller: usize,
    pub stmt: StmtId,
}

/// How often a unit runs in the program.
#[derive(Clone, Debug)]
pub struct Runs {
    pub sites: Vec<CallSite>,
    /// In the callers' unknowns; `None` when a call site has no formula.
    pub symbolic: Option<Piecewise>,
    /// Under the callers' values; `None` when one is missing.
    pub value: Option<Num>,
    /// Why the count is per call rather than per program run, if it is.
    pub note: Option<&'static str>,
}

/// One unit as [`runs`] sees it.
pub struct UnitInfo<'a> {
    pub unit: &'a Unit,
    pub freqs: &'a UnitFrequencies,
    pub env: Env<'a>,
}

/// The runs of every unit in `units` (all units of the program, across files).
pub fn runs(units: &[UnitInfo], options: &FreqOptions) -> Vec<Runs> {
    let by_name: HashMap<&str, usize> = units
        .iter()
        .enumerate()
        .filter(|(_, u)| u.unit.kind != UnitKind::Module)
        .map(|(i, u)| (u.unit.name.as_str(), i))
        .collect();
    let mut sites: Vec<Vec<CallSite>> = vec![Vec::new(); units.len()];
    for (caller, u) in units.iter().enumerate() {
        u.unit.walk(&mut |s, _| {
            for name in called(&s.kind) {
                if let Some(&callee) = by_name.get(name.as_str())
                    && callee != caller
                {
                    sites[callee].push(CallSite { caller, stmt: s.id });
                }
            }
        });
    }
    let mut memo: Vec<Option<Runs>> = vec![None; units.len()];
    let mut active = vec![false; units.len()];
    for i in 0..units.len() {
        resolve(i, units, &sites, options, &mut memo, &mut active);
    }
    memo.into_iter()
        .map(|r| r.expect("every unit resolved"))
        .collect()
}

fn once(sites: Vec<CallSite>, note: Option<&'static str>) -> Runs {
    Runs {
        sites,
        symbolic: Some(Piecewise::constant(Sym::one())),
        value: Some(Num::Exact(Rational::ONE)),
        note,
    }
}

fn resolve(
    i: usize,
    units: &[UnitInfo],
    sites: &[Vec<CallSite>],
    options: &FreqOptions,
    memo: &mut Vec<Option<Runs>>,
    active: &mut Vec<bool>,
) {
    if memo[i].is_some() {
        return;
    }
    let own = sites[i].clone();
    if units[i].unit.kind == UnitKind::Program {
        memo[i] = Some(once(own, None));
        return;
    }
    if own.is_empty() {
        memo[i] = Some(once(
            own,
            Some("no caller among the inputs: counts are per call"),
        ));
        return;
    }
    if active[i] {
        memo[i] = Some(once(own, Some("recursive: counts are per call")));
        return;
    }
    active[i] = true;
    let mut symbolic = Some(Piecewise::zero());
    let mut value = Some(Num::Exact(Rational::ZERO));
    for site in &own {
        resolve(site.caller, units, sites, options, memo, active);
        let caller = memo[site.caller].as_ref().expect("resolved").clone();
        let count: Option<&Count> = units[site.caller].freqs.of(site.stmt);
        symbolic = match (symbolic, count.and_then(Count::symbolic), caller.symbolic) {
            (Some(acc), Some(c), Some(r)) => c.times(&r).ok().map(|p| acc.plus(p)),
            _ => None,
        };
        let here = count.and_then(|c| c.eval(units[site.caller].env, options).ok());
        value = match (value, here, caller.value) {
            (Some(acc), Some(c), Some(r)) => Some(acc + c * r),
            _ => None,
        };
    }
    active[i] = false;
    // A unit reached only from recursion may have been settled meanwhile.
    if memo[i].is_none() {
        memo[i] = Some(Runs {
            sites: own,
            symbolic: symbolic.and_then(|s| s.simplified().ok()),
            value,
            note: None,
        });
    }
}

/// The units a statement calls: CALL statements and function references in its own
/// expressions (not in nested statements).
fn called(kind: &StmtKind) -> Vec<String> {
    let mut out = Vec::new();
    let mut visit = |e: &Expr| {
        e.visit(&mut |e| {
            if let Expr::Call(c) = e {
                out.push(c.name.clone());
            }
        })
    };
    match kind {
        StmtKind::Call(c) => {
            c.args.iter().for_each(|a| visit(&a.value));
            out.push(c.name.clone());
        }
        StmtKind::Assign { lhs, rhs } => {
            visit(lhs);
            visit(rhs);
        }
        StmtKind::If(i) => i
            .branches
            .iter()
            .filter_map(|b| b.cond.as_ref())
            .for_each(visit),
        StmtKind::Select(s) => visit(&s.selector),
        StmtKind::ArithmeticIf { expr, .. } => visit(expr),
        _ => {}
    }
    out
}
