//! What each CALL of a unit does to its integer values, for its count walk
//! ([`costline_model::freq::CallEffect`]): the COMMON members the callee (or anything
//! it calls) may set are forgotten; the callee's values at its return, as formulas
//! over its entry values ([`exit_values`]), come back to the caller's names. Calls
//! within a recursive cycle bring no values back (they would depend on themselves).

use super::analysis::{freqs, local_constants, lower};
use super::callers::reachable;
use super::calls::{ProcName, procedure_named};
use super::common_reach::common_reach;
use super::functions::parameters;
use super::units::{UnitText, base};
use costline_model::calls::Member;
use costline_model::freq::convert::Names;
use costline_model::freq::convert::{Scope, element_key};
use costline_model::freq::{Assumption, CallEffect, CalleeRun};
use costline_symbolic::Sym;
use costline_syntax::ir::{ArrayRef, Expr, StmtId, StmtKind, Subscript, Unit, Written};
use std::collections::HashMap;
use std::sync::Arc;

/// How a callee's entry value is found in a caller.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Entry {
    /// A COMMON member, or its element at these subscripts.
    Member(Member, Option<Vec<i64>>),
    /// The dummy at this position.
    Dummy(usize),
}

/// A procedure's integer values when it returns, where it returns only at its end:
/// COMMON members (by member, an element's subscripts) and integer scalar dummies (by
/// position), each a formula over entry values with what it rests on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExitValues {
    values: Vec<(Entry, Sym, Vec<Assumption>)>,
    /// The entry values the formulas use, by the callee's name.
    entry: Vec<(String, Entry)>,
}

/// The values `unit` leaves when it returns ([`ExitValues`]), its own constants
/// substituted (cut off while they are unchanged, so an edit that keeps them
/// recounts no caller).
#[salsa::tracked(returns(clone))]
pub fn exit_values<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<ExitValues> {
    let unit = base(db, unit);
    let f = freqs(db, unit);
    let Some(names) = f.exit() else {
        return Arc::default();
    };
    let ir = lower(db, unit);
    let constants = local_constants(db, unit);
    let scope = Scope {
        unit: &ir,
        names,
        integers: false,
    };
    let entry_of = |key: &str| -> Option<Entry> { entry(&ir, key) };
    let mut out = ExitValues::default();
    for (key, formula) in names.entries() {
        let Ok(formula) = formula else {
            continue;
        };
        let Some(at) = entry_of(key) else { continue };
        let Some(formula) = resolved(formula, &constants.values) else {
            continue;
        };
        let mut usable = true;
        for var in formula.vars() {
            match entry_of(&var) {
                Some(e) => {
                    if !out.entry.iter().any(|(n, _)| *n == *var) {
                        out.entry.push((var.to_string(), e));
                    }
                }
                None => usable = false,
            }
        }
        let integer = scope.is_integer(key.split('(').next().unwrap_or(key));
        if usable && integer {
            out.values.push((at, formula, names.assumed(key).to_vec()));
        }
    }
    Arc::new(out)
}

/// Where the callee's name or element key `key` comes from on entry: a COMMON member
/// (or its element) or an integer scalar dummy.
fn entry(ir: &Unit, key: &str) -> Option<Entry> {
    let (name, subscripts) = match key.split_once('(') {
        Some((name, rest)) => {
            let subs = rest
                .strip_suffix(')')?
                .split(',')
                .map(|s| s.parse::<i64>().ok())
                .collect::<Option<Vec<i64>>>()?;
            (name, Some(subs))
        }
        None => (key, None),
    };
    let sym = ir.symbols.get(name)?;
    if let Some(member) = &sym.common {
        return Some(Entry::Member(member.clone(), subscripts));
    }
    let position = ir.dummies.iter().position(|d| d == name)?;
    (subscripts.is_none() && !sym.is_array()).then_some(Entry::Dummy(position))
}

/// `formula` with the unit's constants substituted; `None` if that fails.
fn resolved(formula: &Sym, constants: &std::collections::BTreeMap<String, i64>) -> Option<Sym> {
    let mut out = formula.clone();
    for var in formula.vars() {
        if let Some(v) = constants.get(&*var) {
            out = out.subst(&var, &Sym::int(*v as i128)).ok()?;
        }
    }
    Some(out)
}

/// The effect of each CALL of `unit` on its names.
pub fn call_effects<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> HashMap<StmtId, CallEffect> {
    let ir = lower(db, unit);
    let mut calls = Vec::new();
    ir.walk(&mut |s, _| {
        if let StmtKind::Call(c) = &s.kind
            && !c.name.starts_with("mpi_")
        {
            calls.push((s.id, c));
        }
    });
    let mut out = HashMap::new();
    if calls.is_empty() {
        return out;
    }
    let name = unit.name(db);
    for (id, call) in calls {
        let Some(callee) = procedure_named(db, &call.name) else {
            continue;
        };
        let mut effect = CallEffect {
            callee: call.name.clone(),
            ..CallEffect::default()
        };
        for member in &common_reach(db, callee).set {
            if let Some(s) = member_in(&ir, member) {
                effect.kills.push(if s.is_array() {
                    Written::Array(s.name.clone())
                } else {
                    Written::Scalar(s.name.clone())
                });
            }
        }
        // A callee that reaches the caller closes a recursive cycle.
        let recursive = callee.name(db) == name
            || reachable(db, ProcName::new(db, callee.name(db).clone())).contains(name);
        if !recursive {
            let exits = exit_values(db, callee);
            let actuals: Vec<&Expr> = call
                .args
                .iter()
                .take_while(|a| a.keyword.is_none())
                .map(|a| &a.value)
                .collect();
            for (at, formula, assumed) in &exits.values {
                if let Some(key) = caller_key(&ir, at, &actuals) {
                    effect.exits.push((key, formula.clone(), assumed.clone()));
                }
            }
            for (var, at) in &exits.entry {
                if let Some(e) = caller_expr(&ir, at, &actuals) {
                    effect.entry.push((var.clone(), e));
                }
            }
        }
        if !recursive {
            effect.run = callee_run(db, &ir, callee, call);
        }
        if !effect.kills.is_empty() || !effect.exits.is_empty() || effect.run.is_some() {
            out.insert(id, effect);
        }
    }
    out
}

/// The caller's declaration of a COMMON member.
fn member_in<'a>(ir: &'a Unit, member: &Member) -> Option<&'a costline_syntax::ir::Symbol> {
    ir.symbols
        .values()
        .find(|s| s.common.as_ref() == Some(member))
}

/// The caller's name or element key for a callee's exit value at `at`.
fn caller_key(ir: &Unit, at: &Entry, actuals: &[&Expr]) -> Option<String> {
    match at {
        Entry::Member(m, None) => Some(member_in(ir, m)?.name.clone()),
        Entry::Member(m, Some(subs)) => Some(element_key(&member_in(ir, m)?.name, subs)),
        Entry::Dummy(k) => match actuals.get(*k)? {
            Expr::Name(n) => Some(n.clone()),
            Expr::Array(a) => Some(element_key(&a.name, &a.literal_subscripts()?)),
            _ => None,
        },
    }
}

/// How the caller writes a callee's entry value at `at`.
fn caller_expr(ir: &Unit, at: &Entry, actuals: &[&Expr]) -> Option<Expr> {
    match at {
        Entry::Member(m, None) => Some(Expr::Name(member_in(ir, m)?.name.clone())),
        Entry::Member(m, Some(subs)) => Some(Expr::Array(ArrayRef {
            name: member_in(ir, m)?.name.clone(),
            subscripts: subs
                .iter()
                .map(|v| Subscript::Index(Expr::Int(*v)))
                .collect(),
            span: Default::default(),
        })),
        Entry::Dummy(k) => Some((*actuals.get(*k)?).clone()),
    }
}

/// The callee's body with the correspondence of its integer entry values to the
/// caller's names (`call` in the caller `ir`), to run at the call
/// ([`costline_model::freq::CalleeRun`]); `None` when the two share no integer.
pub(crate) fn callee_run<'db>(
    db: &'db dyn salsa::Database,
    ir: &Unit,
    callee: UnitText<'db>,
    call: &costline_syntax::ir::Call,
) -> Option<Arc<CalleeRun>> {
    let theirs = lower(db, callee);
    let names = Names::default();
    let scope = Scope {
        unit: &theirs,
        names: &names,
        integers: false,
    };
    // Only a callee that assigns an integer its caller sees is worth running.
    let mut assigned = std::collections::HashSet::new();
    theirs.walk(&mut |s, _| {
        if let StmtKind::Assign { lhs, .. } = &s.kind {
            match lhs {
                Expr::Name(n) => assigned.insert(n.clone()),
                Expr::Array(a) => assigned.insert(a.name.clone()),
                _ => false,
            };
        }
    });
    // A component (`lc%first`) is seen where its structure is.
    let seen = |n: &str| {
        let n = n.split('%').next().unwrap_or(n);
        let sym = theirs.symbols.get(n);
        theirs.dummies.iter().any(|d| d == n) || sym.is_some_and(|s| s.common.is_some())
    };
    if !assigned.iter().any(|n| seen(n) && scope.is_integer(n)) {
        return None;
    }
    let caller_names = Names::default();
    let caller = Scope {
        unit: ir,
        names: &caller_names,
        integers: false,
    };
    let (mut dummies, mut structures, mut arrays) = (Vec::new(), Vec::new(), Vec::new());
    for (k, dummy) in theirs.dummies.iter().enumerate() {
        let Some(actual) = call
            .args
            .iter()
            .find(|a| a.keyword.as_deref() == Some(dummy.as_str()))
            .or_else(|| call.args.get(k).filter(|a| a.keyword.is_none()))
        else {
            continue;
        };
        let Some(sym) = theirs.symbols.get(dummy) else {
            continue;
        };
        let structure = sym.ty.as_ref().is_some_and(|t| t.derived.is_some());
        match &actual.value {
            Expr::Name(n) if structure && !sym.is_array() => {
                structures.push((n.clone(), dummy.clone()));
            }
            Expr::Name(n) | Expr::Array(ArrayRef { name: n, .. })
                if sym.is_array() && caller.is_integer(n) =>
            {
                arrays.push(n.clone());
            }
            value if !sym.is_array() && scope.is_integer(dummy) => {
                dummies.push((dummy.clone(), value.clone()));
            }
            _ => {}
        }
    }
    let mut members = Vec::new();
    for sym in theirs.symbols.values() {
        if let Some(member) = &sym.common
            && scope.is_integer(&sym.name)
            && let Some(ours) = member_in(ir, member)
        {
            members.push((ours.name.clone(), sym.name.clone()));
        }
    }
    members.sort();
    if dummies.is_empty() && members.is_empty() && structures.is_empty() {
        return None;
    }
    Some(Arc::new(CalleeRun {
        unit: theirs,
        parameters: parameters(db, callee),
        dummies,
        members,
        structures,
        arrays,
    }))
}
