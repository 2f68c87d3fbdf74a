//! The integer COMMON tables the program fills once from constants, as formulas of
//! their subscripts ([`costline_model::freq::table`]): NPB LU's `SetLoopBounds` fills
//! `jlow(k)`, `ilow(k, j)`, ... (the bounds of each hyperplane of its wavefront
//! sweeps) in loops that call two procedures per element; run once here, the tables
//! are `max(2, k - j - 32)` and the like, and the sweeps' loops have counts.
//!
//! A table qualifies where one procedure of the program sets its member (no other
//! assigns, reads or passes it), that procedure takes no arguments, and its body runs
//! exactly ([`costline_model::freq::execute`]) from constants: its PARAMETERs and the
//! COMMON scalars set once in the program ([`set_once`]). Every unit but the writer
//! and what it calls reads the table as the formula (a read before the table is
//! filled would read undefined values).

use super::analysis::lower;
use super::calls::{procedure_named, procedures};
use super::common_reach::common_use;
use super::functions::{Functions, parameters};
use super::units::{UnitText, base};
use costline_model::calls::Member;
use costline_model::freq::calls::callee_names;
use costline_model::freq::convert::{Names, Scope};
use costline_model::freq::execute::Executor;
use costline_model::freq::table::fit;
use costline_symbolic::Sym;
use costline_syntax::ir::{Expr, StmtKind, Unit, UnitKind};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Statements one table run executes at most.
const MAX_STEPS: usize = 400_000;
/// Elements one table run writes at most.
const MAX_ELEMENTS: usize = 100_000;
/// Rounds of the set-once propagation (a constant computed from one set before it).
const MAX_ROUNDS: usize = 8;

/// A table: the procedure that fills it and its formula.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub writer: String,
    pub formula: Sym,
}

/// The procedures of the program in name order.
fn sorted_procedures(db: &dyn salsa::Database) -> Vec<UnitText<'_>> {
    let mut units: Vec<UnitText> = procedures(db).values().copied().collect();
    units.sort_by_key(|u| u.name(db).clone());
    units
}

/// The procedures that may set each COMMON member: assign it, read it in, or pass it
/// to a call.
#[salsa::tracked(returns(ref))]
fn writers(db: &dyn salsa::Database) -> BTreeMap<Member, BTreeSet<String>> {
    let mut out: BTreeMap<Member, BTreeSet<String>> = BTreeMap::new();
    for u in sorted_procedures(db) {
        let usage = common_use(db, u);
        let passed = usage.passed.iter().map(|(_, _, m)| m);
        for m in usage.set.iter().chain(passed) {
            out.entry(m.clone()).or_default().insert(u.name(db).clone());
        }
    }
    out
}

/// The tables of the program by COMMON member.
#[salsa::tracked(returns(ref))]
pub fn tables(db: &dyn salsa::Database) -> BTreeMap<Member, Table> {
    let writers = writers(db);
    let mut by_writer: BTreeMap<String, Vec<Member>> = BTreeMap::new();
    for u in sorted_procedures(db) {
        for m in &common_use(db, u).elements_set {
            if let Some(w) = writers.get(m).filter(|w| w.len() == 1) {
                let w = w.iter().next().expect("one writer");
                by_writer.entry(w.clone()).or_default().push(m.clone());
            }
        }
    }
    let mut out = BTreeMap::new();
    for (writer, members) in by_writer {
        let Some(unit) = procedure_named(db, &writer) else {
            continue;
        };
        let filled = filled(db, unit);
        for m in members {
            if let Some(formula) = filled.get(&m) {
                let writer = writer.clone();
                let formula = formula.clone();
                out.insert(m, Table { writer, formula });
            }
        }
    }
    out
}

/// The formulas of the integer COMMON arrays whose elements `unit` sets, where it takes
/// no arguments and its body runs exactly from its PARAMETERs and the COMMON scalars
/// set once in the program. Run once per text of the unit (and of the set-once
/// values): an edit elsewhere does not run it again.
#[salsa::tracked(returns(clone))]
fn filled<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<BTreeMap<Member, Sym>> {
    let ir = lower(db, base(db, unit));
    let elements_set = &common_use(db, unit).elements_set;
    let arrays: Vec<(&Member, &str)> = integer_common_arrays(&ir)
        .into_iter()
        .filter(|(m, _)| elements_set.contains(*m))
        .collect();
    if ir.kind != UnitKind::Subroutine || !ir.dummies.is_empty() || arrays.is_empty() {
        return Arc::default();
    }
    // The set-once members are values of the list, not constants, so calls pass them
    // on as the COMMON values they are.
    let once = set_once(db);
    let mut names = Names::default().with_constants(parameters(db, unit));
    for sym in ir.symbols.values() {
        if let Some(v) = sym.common.as_ref().and_then(|m| once.get(m)) {
            names = names.with(&sym.name, Ok(Sym::int(*v as i128)));
        }
    }
    let functions = Functions { db };
    let Some(end) = Executor::new(&ir, &functions, 0)
        .with_budget(MAX_STEPS, MAX_ELEMENTS)
        .run_body(&ir.body, &names)
    else {
        return Arc::default();
    };
    let mut out = BTreeMap::new();
    for (m, name) in arrays {
        if let Some(formula) = values_of(&end, name).as_ref().and_then(fit) {
            out.insert(m.clone(), formula);
        }
    }
    Arc::new(out)
}

/// The tables `unit` reads, by its names for their arrays: none for a table's writer
/// or a procedure it calls (which may read it half filled).
#[salsa::tracked(returns(clone))]
pub fn unit_tables<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<BTreeMap<String, Sym>> {
    let ir = lower(db, base(db, unit));
    // Most units declare no COMMON integer array: they need not read the program.
    if integer_common_arrays(&ir).is_empty() {
        return Arc::default();
    }
    let all = tables(db);
    let mut out = BTreeMap::new();
    let mut reached: HashMap<String, bool> = HashMap::new();
    for sym in ir.symbols.values() {
        let Some(t) = sym.common.as_ref().and_then(|m| all.get(m)) else {
            continue;
        };
        let inside = *reached
            .entry(t.writer.clone())
            .or_insert_with(|| calls_reach(db, &t.writer, &ir.name));
        if !inside {
            out.insert(sym.name.clone(), t.formula.clone());
        }
    }
    Arc::new(out)
}

/// The unit's integer arrays in COMMON, with their members.
fn integer_common_arrays(ir: &Unit) -> Vec<(&Member, &str)> {
    let declared = Names::default();
    let scope = Scope {
        unit: ir,
        names: &declared,
        integers: false,
    };
    ir.symbols
        .values()
        .filter(|s| s.is_array() && scope.is_integer(&s.name))
        .filter_map(|s| Some((s.common.as_ref()?, s.name.as_str())))
        .collect()
}

/// Whether `from` is `to` or calls it, at any depth.
fn calls_reach(db: &dyn salsa::Database, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut queue = vec![from.to_string()];
    while let Some(name) = queue.pop() {
        if name == to {
            return true;
        }
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(u) = procedure_named(db, &name) {
            queue.extend(callee_names(&lower(db, u)));
        }
    }
    false
}

/// The values an execution left in the elements of `array` (subscripts → value);
/// `None` if any element it wrote has no number.
fn values_of(end: &Names, array: &str) -> Option<BTreeMap<Vec<i64>, i64>> {
    let prefix = format!("{array}(");
    let mut out = BTreeMap::new();
    for (key, value) in end.entries() {
        let Some(subs) = key.strip_prefix(&prefix).and_then(|k| k.strip_suffix(')')) else {
            continue;
        };
        let value = value.as_ref().ok()?;
        let value = i64::try_from(end.resolved(value)?.as_int()?).ok()?;
        let subs = subs
            .split(',')
            .map(|s| s.parse::<i64>().ok())
            .collect::<Option<Vec<i64>>>()?;
        out.insert(subs, value);
    }
    (!out.is_empty()).then_some(out)
}

/// The integer COMMON scalars the program sets once, each by one assignment at the
/// top of a procedure's body from constants (`xsize = isiz1`, `section1 = xsize + 2`):
/// their values, by member. A member also set elsewhere, read in, passed to a call or
/// given an initial value is none.
#[salsa::tracked(returns(ref))]
fn set_once(db: &dyn salsa::Database) -> BTreeMap<Member, i64> {
    let mut initialised: BTreeSet<Member> = BTreeSet::new();
    let mut tops: Vec<(Arc<Unit>, UnitText, Member, String, Expr)> = Vec::new();
    for u in sorted_procedures(db) {
        let ir = lower(db, base(db, u));
        for sym in ir.symbols.values() {
            if let (Some(m), Some(_)) = (&sym.common, &sym.value) {
                initialised.insert(m.clone());
            }
        }
        let mut assigned: BTreeMap<Member, usize> = BTreeMap::new();
        ir.walk(&mut |s, _| {
            if let StmtKind::Assign {
                lhs: Expr::Name(n), ..
            } = &s.kind
                && let Some(m) = ir.symbols.get(n).and_then(|s| s.common.clone())
            {
                *assigned.entry(m).or_default() += 1;
            }
        });
        for s in &ir.body {
            if let StmtKind::Assign {
                lhs: Expr::Name(n),
                rhs,
            } = &s.kind
                && let Some(sym) = ir.symbols.get(n)
                && let Some(m) = &sym.common
                && !sym.is_array()
                && assigned.get(m) == Some(&1)
            {
                tops.push((ir.clone(), u, m.clone(), n.clone(), rhs.clone()));
            }
        }
    }
    let writers = writers(db);
    tops.retain(|(_, _, m, _, _)| {
        !initialised.contains(m) && writers.get(m).is_some_and(|w| w.len() == 1)
    });
    let mut out: BTreeMap<Member, i64> = BTreeMap::new();
    for _ in 0..MAX_ROUNDS {
        let before = out.len();
        for (ir, u, m, name, rhs) in &tops {
            if out.contains_key(m) {
                continue;
            }
            let mut constants = BTreeMap::clone(&parameters(db, *u));
            for sym in ir.symbols.values() {
                if let Some(v) = sym.common.as_ref().and_then(|m| out.get(m)) {
                    constants.insert(sym.name.clone(), *v);
                }
            }
            let names = Names::default().with_constants(Arc::new(constants));
            let scope = Scope {
                unit: ir,
                names: &names,
                integers: false,
            };
            if scope.is_integer(name)
                && let Some(v) = scope.constant(rhs)
            {
                out.insert(m.clone(), v);
            }
        }
        if out.len() == before {
            break;
        }
    }
    out
}
