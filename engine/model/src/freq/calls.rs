//! How often each unit runs in the program: the main program once; a procedure as often
//! as its call sites execute, each weighted by how often its caller runs (P^3T+
//! Definitions 4.3 and 4.7: a call contributes the callee weighted by call frequency).
//! A procedure no input calls runs once per call, and says so.

use super::{Counts, UnitFrequencies};
use costline_symbolic::{Num, Piecewise, Rational, Sym};
use costline_syntax::ir::{Expr, StmtId, StmtKind, Unit, UnitKind};
use std::collections::HashMap;

/// A call made by a unit: CALL statements and function references.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The called name (it may name no unit of the program: an external or intrinsic).
    pub callee: String,
    pub stmt: StmtId,
    /// How often the calling statement runs per run of the caller, as a formula...
    pub symbolic: Option<Piecewise>,
    /// ...and under the bindings.
    pub value: Option<Num>,
}

/// The calls of `unit` with their counts.
pub fn calls(unit: &Unit, freqs: &UnitFrequencies, counts: &Counts) -> Vec<Call> {
    let mut out = Vec::new();
    unit.walk(&mut |s, _| {
        let callees = called(&s.kind);
        if callees.is_empty() {
            return;
        }
        let symbolic = freqs.of(s.id).and_then(|c| c.symbolic().cloned());
        let value = counts.freq(s.id).and_then(|v| v.clone().ok());
        for callee in callees {
            out.push(Call {
                callee,
                stmt: s.id,
                symbolic: symbolic.clone(),
                value,
            });
        }
    });
    out
}

/// How often a unit runs in the program.
#[derive(Clone, Debug, PartialEq)]
pub struct Runs {
    /// The units that call it, in order, each once.
    pub callers: Vec<String>,
    /// In the callers' unknowns; `None` when a call site has no formula.
    pub symbolic: Option<Piecewise>,
    /// Under the callers' values; `None` when one is missing.
    pub value: Option<Num>,
    /// Why the count is per call rather than per program run, if it is.
    pub note: Option<&'static str>,
}

/// One unit as [`runs`] sees it.
pub struct Caller<'a> {
    pub kind: UnitKind,
    pub name: &'a str,
    pub calls: &'a [Call],
}

/// The runs of every unit in `units` (all units of the program, across files).
pub fn runs(units: &[Caller]) -> Vec<Runs> {
    let by_name: HashMap<&str, usize> = units
        .iter()
        .enumerate()
        .filter(|(_, u)| u.kind != UnitKind::Module)
        .map(|(i, u)| (u.name, i))
        .collect();
    // The call sites of each unit: (caller, index of the call in the caller's list).
    let mut sites: Vec<Vec<(usize, usize)>> = vec![Vec::new(); units.len()];
    for (caller, u) in units.iter().enumerate() {
        for (k, call) in u.calls.iter().enumerate() {
            if let Some(&callee) = by_name.get(call.callee.as_str())
                && callee != caller
            {
                sites[callee].push((caller, k));
            }
        }
    }
    let mut memo: Vec<Option<Runs>> = vec![None; units.len()];
    let mut active = vec![false; units.len()];
    for i in 0..units.len() {
        resolve(i, units, &sites, &mut memo, &mut active);
    }
    memo.into_iter()
        .map(|r| r.expect("every unit resolved"))
        .collect()
}

/// The note on a procedure no input calls.
pub const NO_CALLER: &str = "no caller among the inputs: counts are per call";

impl Runs {
    /// Once (per program run, or per call as `note` says).
    pub fn once(callers: Vec<String>, note: Option<&'static str>) -> Runs {
        Runs {
            callers,
            symbolic: Some(Piecewise::constant(Sym::one())),
            value: Some(Num::Exact(Rational::ONE)),
            note,
        }
    }
}

fn resolve(
    i: usize,
    units: &[Caller],
    sites: &[Vec<(usize, usize)>],
    memo: &mut Vec<Option<Runs>>,
    active: &mut Vec<bool>,
) {
    if memo[i].is_some() {
        return;
    }
    let mut callers: Vec<String> = Vec::new();
    for &(c, _) in &sites[i] {
        if !callers.iter().any(|n| n == units[c].name) {
            callers.push(units[c].name.to_string());
        }
    }
    if units[i].kind == UnitKind::Program {
        memo[i] = Some(Runs::once(callers, None));
        return;
    }
    if sites[i].is_empty() {
        memo[i] = Some(Runs::once(callers, Some(NO_CALLER)));
        return;
    }
    if active[i] {
        memo[i] = Some(Runs::once(callers, Some("recursive: counts are per call")));
        return;
    }
    active[i] = true;
    let mut symbolic = Some(Piecewise::zero());
    let mut value = Some(Num::Exact(Rational::ZERO));
    for &(c, k) in &sites[i] {
        resolve(c, units, sites, memo, active);
        let caller = memo[c].as_ref().expect("resolved").clone();
        let call = &units[c].calls[k];
        symbolic = match (symbolic, &call.symbolic, caller.symbolic) {
            (Some(acc), Some(n), Some(r)) => n.times(&r).ok().map(|p| acc.plus(p)),
            _ => None,
        };
        value = match (value, call.value, caller.value) {
            (Some(acc), Some(n), Some(r)) => Some(acc + n * r),
            _ => None,
        };
    }
    active[i] = false;
    // A unit reached only from recursion may have been settled meanwhile.
    if memo[i].is_none() {
        memo[i] = Some(Runs {
            callers,
            symbolic: symbolic.and_then(|s| s.simplified().ok()),
            value,
            note: None,
        });
    }
}

/// The names `unit` calls (CALL statements and function references), in order,
/// repeated as often as they are called.
pub fn callee_names(unit: &Unit) -> Vec<String> {
    let mut out = Vec::new();
    unit.walk(&mut |s, _| out.extend(called(&s.kind)));
    out
}

/// The units a statement calls: CALL statements and function references in its own
/// expressions (not in nested statements).
pub fn called(kind: &StmtKind) -> Vec<String> {
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
