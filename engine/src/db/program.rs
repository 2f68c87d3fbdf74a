//! The program-wide results: how often each unit runs (its callers' counts times their
//! runs), each unit's wd (Definition 4.3, a call weighted with its callee's wd) and its
//! communication (Definitions 4.4–4.6: its own plus its calls' counts times their
//! callees').
//! Each unit contributes a small summary (its calls and wd items, with values); the
//! program query combines the summaries of every unit on each revision, and each unit's
//! [`context`] picks its share, cut off when that share did not change.

use super::analysis::{cache, comm_values, freqs, lower, unit_times_with, values};
use super::inputs::Workspace;
use super::units::{UnitText, file_units};
use crate::comm::CommMetrics;
use crate::freq::calls::{self, Call, Caller, Runs};
use crate::ir::{StmtId, UnitKind};
use crate::work::imbalance::{self, WdItem, WdUnit};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// What the program-wide results need of one unit.
#[derive(Debug, PartialEq)]
pub struct Summary {
    pub kind: UnitKind,
    pub name: String,
    pub calls: Vec<Call>,
    pub items: Vec<WdItem>,
    /// NT, TD, TT and CT of one run, its own statements only (not its calls).
    pub comm: Option<CommMetrics>,
    /// Computation time (busiest processor) and predicted time of one run, its own
    /// statements only.
    pub time: (f64, f64),
    /// Cache lines its own loop nests load per run (the first sum of Definition 4.11).
    pub cache_lines: f64,
}

#[salsa::tracked(returns(clone))]
fn summary<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Summary> {
    let ir = lower(db, unit);
    let values = values(db, unit);
    Arc::new(Summary {
        kind: ir.kind,
        name: ir.name.clone(),
        calls: calls::calls(&ir, &freqs(db, unit), &values),
        items: imbalance::unit_items(&ir, &values),
        comm: comm_values(db, unit).total(&ir),
        time: {
            let own = unit_times_with(db, unit, &|_| None).unit;
            (own.ct_s(), own.time_s)
        },
        cache_lines: cache(db, unit).own_lines(),
    })
}

/// Per unit (by index), its own value with its calls' folded in: `add(total, callee's
/// total, the call's count)` for each call of a unit of the workspace (P^3T+ Definitions
/// 4.4 and 4.7: a call adds its callee's parameters times the call's count). A
/// recursive call adds nothing for the unit being computed.
fn call_graph_totals<T: Copy>(
    summaries: &[Arc<Summary>],
    own: &dyn Fn(&Summary) -> T,
    add: &dyn Fn(T, T, f64) -> T,
) -> Vec<T> {
    let by_name: HashMap<&str, usize> = summaries
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind != UnitKind::Module)
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    struct Walk<'a, T> {
        summaries: &'a [Arc<Summary>],
        by_name: HashMap<&'a str, usize>,
        own: &'a dyn Fn(&Summary) -> T,
        add: &'a dyn Fn(T, T, f64) -> T,
        memo: Vec<Option<T>>,
    }
    impl<T: Copy> Walk<'_, T> {
        fn resolve(&mut self, i: usize) -> T {
            if let Some(t) = self.memo[i] {
                return t;
            }
            let mut total = (self.own)(&self.summaries[i]);
            self.memo[i] = Some(total);
            let summaries = self.summaries;
            for call in &summaries[i].calls {
                let (Some(&j), Some(count)) = (self.by_name.get(call.callee.as_str()), call.value)
                else {
                    continue;
                };
                let callee = self.resolve(j);
                total = (self.add)(total, callee, count.to_f64());
            }
            self.memo[i] = Some(total);
            total
        }
    }
    let mut walk = Walk {
        summaries,
        by_name,
        own,
        add,
        memo: vec![None; summaries.len()],
    };
    (0..summaries.len()).map(|i| walk.resolve(i)).collect()
}

/// Each unit's communication per run with its calls' (NT, TD, TT and CT).
fn comm_totals(summaries: &[Arc<Summary>]) -> Vec<Option<CommMetrics>> {
    call_graph_totals(
        summaries,
        &|s| s.comm,
        &|total, callee, count| match callee {
            Some(c) => Some(total.unwrap_or_default().plus(&c, count)),
            None => total,
        },
    )
}

/// Each unit's computation and predicted time per run with its calls'.
fn time_totals(summaries: &[Arc<Summary>]) -> Vec<(f64, f64)> {
    call_graph_totals(
        summaries,
        &|s| s.time,
        &|(ct, time), (callee_ct, callee_time), count| {
            (ct + callee_ct * count, time + callee_time * count)
        },
    )
}

/// Each unit's cache lines per run with its calls' (Definitions 4.10–4.11: a call adds
/// its callee's lines per run times the call's count).
fn cache_totals(summaries: &[Arc<Summary>]) -> Vec<f64> {
    call_graph_totals(summaries, &|s| s.cache_lines, &|total, callee, count| {
        total + callee * count
    })
}

/// The runs and wd of every unit of the workspace.
#[derive(Debug, Default, PartialEq, salsa::SalsaValue)]
pub struct Program<'db> {
    pub units: HashMap<UnitText<'db>, (Runs, Option<f64>)>,
    /// wd of each procedure by name.
    pub wd_by_name: HashMap<String, f64>,
    /// Communication per run of each procedure, its calls' included, by name.
    pub comm_by_name: HashMap<String, CommMetrics>,
    /// Computation and predicted time per run of each procedure, its calls' included.
    pub time_by_name: HashMap<String, (f64, f64)>,
    /// Cache lines per run of each procedure, its calls' included.
    pub cache_by_name: HashMap<String, f64>,
}

/// Combines the summaries of every unit of every file, in workspace order.
#[salsa::tracked(returns(ref))]
pub fn program(db: &dyn salsa::Database) -> Program<'_> {
    let mut units: Vec<UnitText> = Vec::new();
    for &file in Workspace::get(db).files(db) {
        if let Ok(f) = file_units(db, file) {
            units.extend(f.units.iter().copied());
        }
    }
    let summaries: Vec<Arc<Summary>> = units.iter().map(|&u| summary(db, u)).collect();
    let callers: Vec<Caller> = summaries
        .iter()
        .map(|s| Caller {
            kind: s.kind,
            name: &s.name,
            calls: &s.calls,
        })
        .collect();
    let runs = calls::runs(&callers);
    let wd_units: Vec<WdUnit> = summaries
        .iter()
        .map(|s| WdUnit {
            kind: s.kind,
            name: &s.name,
            items: &s.items,
        })
        .collect();
    let wds = imbalance::unit_wds(&wd_units);
    let wd_by_name = summaries
        .iter()
        .zip(&wds)
        .filter(|(s, _)| s.kind != UnitKind::Module)
        .filter_map(|(s, wd)| Some((s.name.clone(), (*wd)?)))
        .collect();
    let comm_by_name = summaries
        .iter()
        .zip(comm_totals(&summaries))
        .filter(|(s, _)| s.kind != UnitKind::Module)
        .filter_map(|(s, m)| Some((s.name.clone(), m?)))
        .collect();
    let time_by_name = summaries
        .iter()
        .zip(time_totals(&summaries))
        .filter(|(s, _)| s.kind != UnitKind::Module)
        .map(|(s, t)| (s.name.clone(), t))
        .collect();
    let cache_by_name = summaries
        .iter()
        .zip(cache_totals(&summaries))
        .filter(|(s, _)| s.kind != UnitKind::Module)
        .map(|(s, t)| (s.name.clone(), t))
        .collect();
    let units = units.into_iter().zip(runs.into_iter().zip(wds)).collect();
    Program {
        units,
        wd_by_name,
        comm_by_name,
        time_by_name,
        cache_by_name,
    }
}

/// A unit's place in the program.
#[derive(Debug, PartialEq)]
pub struct UnitContext {
    pub runs: Runs,
    /// wd of the unit (Definition 4.3).
    pub wd: Option<f64>,
    /// wd of the units it calls, by name.
    pub callee_wds: BTreeMap<String, f64>,
    /// The communication its calls cause per run of the unit (Definition 4.4: each
    /// callee's per run, theirs included, times the call's count), by calling statement.
    pub call_comm: HashMap<StmtId, CommMetrics>,
    /// The computation and predicted time its calls add per run of the unit, by calling
    /// statement.
    pub call_time: HashMap<StmtId, (f64, f64)>,
    /// The cache lines its calls load per run of the unit, by calling statement.
    pub call_lines: HashMap<StmtId, f64>,
}

/// How often `unit` runs, its wd and its callees' wd.
#[salsa::tracked(returns(clone))]
pub fn context<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitContext> {
    let p = program(db);
    // Every unit of the workspace's files is in the program; a unit of another file
    // runs once per call.
    let (runs, wd) = p
        .units
        .get(&unit)
        .cloned()
        .unwrap_or_else(|| (Runs::once(Vec::new(), Some(calls::NO_CALLER)), None));
    let own = summary(db, unit);
    let mut call_comm: HashMap<StmtId, CommMetrics> = HashMap::new();
    for c in &own.calls {
        if let (Some(m), Some(count)) = (p.comm_by_name.get(&c.callee), c.value) {
            let slot = call_comm.entry(c.stmt).or_default();
            *slot = slot.plus(m, count.to_f64());
        }
    }
    let mut call_time: HashMap<StmtId, (f64, f64)> = HashMap::new();
    for c in &own.calls {
        if let (Some((ct, t)), Some(count)) = (p.time_by_name.get(&c.callee), c.value) {
            let slot = call_time.entry(c.stmt).or_default();
            slot.0 += ct * count.to_f64();
            slot.1 += t * count.to_f64();
        }
    }
    let mut call_lines: HashMap<StmtId, f64> = HashMap::new();
    for c in &own.calls {
        if let (Some(lines), Some(count)) = (p.cache_by_name.get(&c.callee), c.value) {
            *call_lines.entry(c.stmt).or_default() += lines * count.to_f64();
        }
    }
    let callee_wds = own
        .items
        .iter()
        .filter_map(|i| match i {
            WdItem::Call { callee, .. } => Some((callee.clone(), *p.wd_by_name.get(callee)?)),
            WdItem::Assign { .. } => None,
        })
        .collect();
    Arc::new(UnitContext {
        runs,
        wd,
        callee_wds,
        call_comm,
        call_time,
        call_lines,
    })
}

/// What the calls of `unit` add to its times, by CALL statement; the program (and the
/// unit's own summary) is consulted only when the unit may call something.
#[salsa::tracked(returns(clone))]
pub fn call_times<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<HashMap<StmtId, (f64, f64)>> {
    if !may_call(&lower(db, unit)) || summary(db, unit).calls.is_empty() {
        return Arc::new(HashMap::new());
    }
    Arc::new(context(db, unit).call_time.clone())
}

/// Whether `unit` has a CALL (not of MPI) or references a function that is not an
/// intrinsic: a cheap test before the call graph is asked.
fn may_call(unit: &crate::ir::Unit) -> bool {
    let mut found = false;
    unit.walk(&mut |s, _| {
        if found {
            return;
        }
        let mut look = |e: &crate::ir::Expr| {
            e.visit(&mut |x| {
                if let crate::ir::Expr::Call(c) = x
                    && crate::ir::intrinsics::intrinsic_class(&c.name).is_none()
                {
                    found = true;
                }
            })
        };
        match &s.kind {
            crate::ir::StmtKind::Call(c) if !c.name.starts_with("mpi_") => found = true,
            crate::ir::StmtKind::Assign { lhs, rhs } => {
                look(lhs);
                look(rhs);
            }
            crate::ir::StmtKind::If(i) => i.branches.iter().flat_map(|b| &b.cond).for_each(look),
            crate::ir::StmtKind::Loop(l) => match &l.control {
                crate::ir::LoopControl::Counted {
                    lower, upper, step, ..
                } => {
                    look(lower);
                    look(upper);
                    step.iter().for_each(look);
                }
                crate::ir::LoopControl::While(c) => look(c),
                crate::ir::LoopControl::Forever => {}
            },
            _ => {}
        }
    });
    found
}

/// wd of every loop of `unit` (Definition 4.3 over the loop's body). The program is
/// consulted only when the unit calls something, so a unit without calls gets its
/// loops' wd without the whole program being analyzed.
#[salsa::tracked(returns(clone))]
pub fn loop_wds<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<HashMap<StmtId, f64>> {
    let calls = summary(db, unit)
        .items
        .iter()
        .any(|i| matches!(i, WdItem::Call { .. }));
    let callee_wds = if calls {
        context(db, unit).callee_wds.clone()
    } else {
        BTreeMap::new()
    };
    let callee = |n: &str| callee_wds.get(n).copied();
    Arc::new(imbalance::loop_wds(
        &lower(db, unit),
        &values(db, unit),
        &callee,
    ))
}
