//! The program-wide results: how often each unit runs (its callers' counts times their
//! runs), each unit's wd (Definition 4.3, a call weighted with its callee's wd) and its
//! communication (Definitions 4.4–4.6: its own plus its calls' counts times their
//! callees').
//! Each unit contributes a small summary (its calls and wd items, with values); the
//! program query combines the summaries of every unit on each revision, and each unit's
//! [`context`] picks its share, cut off when that share did not change.

use super::analysis::{cache, comm_values, counts, freqs, lower, unit_times_with, values};
use super::calls as sites;
use super::inputs::Workspace;
use super::units::{UnitText, file_units};
use costline_model::comm::CommMetrics;
use costline_model::freq::calls::{self, Call, Caller, Runs};
use costline_model::work::imbalance::{self, WdItem, WdUnit};
use costline_syntax::ir::{StmtId, StmtKind, UnitKind};
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
    /// How many assignments it executes per run (its own statements; Σ freq(S)).
    pub assignments: f64,
}

#[salsa::tracked(returns(clone))]
fn summary<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Summary> {
    let ir = lower(db, unit);
    let values = values(db, unit);
    Arc::new(Summary {
        kind: ir.kind,
        name: ir.name.clone(),
        calls: calls::calls(&ir, &freqs(db, unit), &counts(db, unit)),
        items: imbalance::unit_items(&ir, &values),
        comm: comm_values(db, unit).total(&ir),
        time: {
            let own = unit_times_with(db, unit, &|_| None).unit;
            (own.ct_s(), own.time_s)
        },
        cache_lines: cache(db, unit).own_lines(),
        assignments: {
            let mut n = 0.0;
            ir.walk(&mut |s, _| {
                if let StmtKind::Assign { .. } = s.kind {
                    n += values
                        .freq(s.id)
                        .and_then(|f| f.as_ref().ok())
                        .map_or(0.0, |f| f.to_f64());
                }
            });
            n
        },
    })
}

/// What a unit costs per run: communication (NT, TD, TT, CT), computation and predicted
/// time, cache lines.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    pub comm: Option<CommMetrics>,
    pub time: (f64, f64),
    pub lines: f64,
}

impl Totals {
    /// A unit's own statements' (not its calls').
    fn own(s: &Summary) -> Totals {
        Totals {
            comm: s.comm,
            time: s.time,
            lines: s.cache_lines,
        }
    }

    /// `self + k·t` (P^3T+ Definitions 4.4, 4.7, 4.10: a call adds its callee's
    /// parameters times the call's count).
    fn plus(self, t: &Totals, k: f64) -> Totals {
        Totals {
            comm: match (self.comm, t.comm) {
                (c, None) => c,
                (c, Some(m)) => Some(c.unwrap_or_default().plus(&m, k)),
            },
            time: (self.time.0 + k * t.time.0, self.time.1 + k * t.time.1),
            lines: self.lines + k * t.lines,
        }
    }
}

/// Each unit's totals with its calls', every call adding the totals of its callee as
/// called from there (a variant when its binding differs from the one the callee is
/// analysed under, [`sites::as_called`]). A call closing a recursive cycle adds its
/// callee's own costs only (the recursion counted one level deep). A call of an
/// `EXTRINSIC(HPF_LOCAL)` procedure adds the totals of its busiest processor's part
/// ([`sites::local_calls`]): the processors run their parts at once.
struct Walk<'db> {
    db: &'db dyn salsa::Database,
    memo: HashMap<UnitText<'db>, Totals>,
    /// What each call adds per run of its unit, by unit and calling statement.
    per_call: HashMap<UnitText<'db>, HashMap<StmtId, Totals>>,
    /// The calls of `EXTRINSIC(HPF_LOCAL)` procedures, by unit and calling statement.
    local: HashMap<UnitText<'db>, HashMap<StmtId, LocalShare>>,
    active: Vec<String>,
}

/// A call of an `EXTRINSIC(HPF_LOCAL)` procedure: how often it runs per run of the
/// caller, and the assignments each processor executes in its part per call.
struct LocalShare {
    callee: String,
    count: f64,
    work: Vec<f64>,
}

impl<'db> Walk<'db> {
    fn total(&mut self, unit: UnitText<'db>) -> Totals {
        if let Some(t) = self.memo.get(&unit) {
            return *t;
        }
        let db = self.db;
        let s = summary(db, unit);
        let procedures = sites::procedures(db);
        let variants: HashMap<StmtId, Vec<(f64, UnitText<'db>)>> =
            sites::callees(db, unit).into_iter().collect();
        let locals: HashMap<StmtId, Vec<(Vec<usize>, UnitText<'db>)>> =
            sites::local_calls(db, unit)
                .into_iter()
                .filter_map(|c| Some((c.stmt, c.parts.ok()?)))
                .collect();
        let mut total = Totals::own(&s);
        let mut per_call: HashMap<StmtId, Totals> = HashMap::new();
        let mut local: HashMap<StmtId, LocalShare> = HashMap::new();
        self.active.push(s.name.clone());
        for c in &s.calls {
            let (Some(&callee), Some(count)) = (procedures.get(&c.callee), c.value) else {
                continue;
            };
            let count = count.to_f64();
            let t = match locals.get(&c.stmt) {
                Some(parts) => {
                    let (t, work) = self.busiest(&c.callee, parts);
                    local.insert(
                        c.stmt,
                        LocalShare {
                            callee: c.callee.clone(),
                            count,
                            work,
                        },
                    );
                    t
                }
                None => match variants
                    .get(&c.stmt)
                    .filter(|vs| vs.iter().all(|v| v.1.name(db) == &c.callee))
                {
                    // Each sub-site adds its variant's totals times its share.
                    Some(vs) => vs.iter().fold(Totals::default(), |t, (share, v)| {
                        t.plus(&self.reach(&c.callee, *v), *share)
                    }),
                    None => self.reach(&c.callee, callee),
                },
            };
            total = total.plus(&t, count);
            let slot = per_call.entry(c.stmt).or_default();
            *slot = slot.plus(&t, count);
        }
        self.active.pop();
        self.memo.insert(unit, total);
        self.per_call.insert(unit, per_call);
        if !local.is_empty() {
            self.local.insert(unit, local);
        }
        total
    }

    /// The totals of `callee` (named `name`): its own only inside its recursive cycle.
    fn reach(&mut self, name: &str, callee: UnitText<'db>) -> Totals {
        if self.active.iter().any(|a| a == name) {
            Totals::own(&summary(self.db, callee))
        } else {
            self.total(callee)
        }
    }

    /// The totals of the part whose predicted time is the largest, and the assignments
    /// each processor executes in its part (processor p at index p - 1).
    fn busiest(&mut self, name: &str, parts: &[(Vec<usize>, UnitText<'db>)]) -> (Totals, Vec<f64>) {
        let processors = parts.iter().flat_map(|p| &p.0).copied().max().unwrap_or(0);
        let mut work = vec![0.0; processors];
        let mut best: Option<Totals> = None;
        for (ps, part) in parts {
            let t = self.reach(name, *part);
            let assignments = summary(self.db, *part).assignments;
            for &p in ps {
                work[p - 1] = assignments;
            }
            if best.is_none_or(|b| t.time.1 > b.time.1) {
                best = Some(t);
            }
        }
        (best.unwrap_or_default(), work)
    }
}

/// The runs and wd of every unit of the workspace.
#[derive(Debug, Default, PartialEq, salsa::SalsaValue)]
pub struct Program<'db> {
    pub units: HashMap<UnitText<'db>, Place>,
    /// wd of each procedure by name.
    pub wd_by_name: HashMap<String, f64>,
    /// What each call of each unit adds per run of the unit, by calling statement.
    pub calls: HashMap<UnitText<'db>, CallTotals>,
}

/// How often a unit runs in the program, and its wd (Definition 4.3).
#[derive(Clone, Debug, PartialEq, salsa::SalsaValue)]
pub struct Place {
    pub runs: Runs,
    pub wd: Option<f64>,
}

/// What each call of a unit adds per run of the unit, by calling statement.
#[derive(Debug, Default, PartialEq, salsa::SalsaValue)]
pub struct CallTotals {
    pub by_stmt: HashMap<StmtId, Totals>,
    /// The calls of `EXTRINSIC(HPF_LOCAL)` procedures: the assignments each processor
    /// executes in its part, per run of the unit.
    pub local: HashMap<StmtId, Vec<f64>>,
}

/// wd of each `EXTRINSIC(HPF_LOCAL)` procedure (Definition 4.2 over the processors'
/// parts instead of owner computes): the variation of the assignments each processor
/// executes in its part, averaged over the procedure's calls weighted by how often each
/// runs in the program (its count times its caller's runs, 1 where unknown).
fn local_wds(
    units: &[UnitText],
    runs: &[Runs],
    local: &HashMap<UnitText, HashMap<StmtId, LocalShare>>,
) -> HashMap<String, f64> {
    let mut sums: HashMap<String, (f64, f64)> = HashMap::new();
    for (u, r) in units.iter().zip(runs) {
        let runs = r.value.as_ref().map_or(1.0, |v| v.to_f64());
        for share in local.get(u).into_iter().flat_map(HashMap::values) {
            let weight = share.count * runs;
            let slot = sums.entry(share.callee.clone()).or_default();
            slot.0 += weight * costline_model::work::variation(&share.work);
            slot.1 += weight;
        }
    }
    sums.into_iter()
        .map(|(name, (sum, weight))| (name, if weight > 0.0 { sum / weight } else { 0.0 }))
        .collect()
}

/// Every unit of the workspace's files, in file order.
pub(crate) fn workspace_units(db: &dyn salsa::Database) -> Vec<UnitText<'_>> {
    let mut units: Vec<UnitText> = Vec::new();
    for &file in Workspace::get(db).files(db) {
        if let Ok(f) = file_units(db, file) {
            units.extend(f.units.iter().copied());
        }
    }
    units
}

/// How many units the workspace has ([`workspace_units`]), for the warm-ups below.
pub fn workspace_unit_count(db: &dyn salsa::Database) -> usize {
    workspace_units(db).len()
}

/// Memoizes the lowering of the workspace's unit `i` (the call graph reads them all),
/// for [`crate::Analysis::on_each`] before a cold analysis.
pub fn warm_lowering(db: &dyn salsa::Database, i: usize) {
    if let Some(&u) = workspace_units(db).get(i) {
        lower(db, u);
    }
}

/// Memoizes the summary of the workspace's unit `i` (in [`workspace_units`] order),
/// what [`program`] folds: the fold is sequential, the summaries are independent (once
/// [`warm_lowering`] has built the call graph's input).
pub fn warm_summary(db: &dyn salsa::Database, i: usize) {
    if let Some(&u) = workspace_units(db).get(i) {
        summary(db, u);
    }
}

/// Memoizes the whole-program fold ([`program`]: what every lens and predicted time
/// reads), once [`warm_summaries`] has memoized what it folds.
pub fn warm_program(db: &dyn salsa::Database) {
    program(db);
}

#[salsa::tracked(returns(ref))]
pub fn program(db: &dyn salsa::Database) -> Program<'_> {
    let units = workspace_units(db);
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
    let mut walk = Walk {
        db,
        memo: HashMap::new(),
        per_call: HashMap::new(),
        local: HashMap::new(),
        active: Vec::new(),
    };
    for &u in &units {
        walk.total(u);
    }
    let local_wds = local_wds(&units, &runs, &walk.local);
    let wd_units: Vec<WdUnit> = summaries
        .iter()
        .map(|s| WdUnit {
            kind: s.kind,
            name: &s.name,
            items: &s.items,
            fixed: local_wds.get(&s.name).copied(),
        })
        .collect();
    let wds = imbalance::unit_wds(&wd_units);
    let wd_by_name = summaries
        .iter()
        .zip(&wds)
        .filter(|(s, _)| s.kind != UnitKind::Module)
        .filter_map(|(s, wd)| Some((s.name.clone(), (*wd)?)))
        .collect();
    let calls = units
        .iter()
        .filter_map(|u| {
            let by_stmt = walk.per_call.remove(u)?;
            let local = walk
                .local
                .remove(u)
                .unwrap_or_default()
                .into_iter()
                .map(|(id, l)| (id, l.work.iter().map(|w| w * l.count).collect()))
                .collect();
            Some((*u, CallTotals { by_stmt, local }))
        })
        .collect();
    let units = units
        .into_iter()
        .zip(runs.into_iter().zip(wds))
        .map(|(u, (runs, wd))| (u, Place { runs, wd }))
        .collect();
    Program {
        units,
        wd_by_name,
        calls,
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
    /// Its calls of `EXTRINSIC(HPF_LOCAL)` procedures: the assignments each processor
    /// executes in its part per run of the unit (processor p at index p - 1).
    pub call_local: HashMap<StmtId, Vec<f64>>,
}

/// How often `unit` runs, its wd and its callees' wd.
#[salsa::tracked(returns(clone))]
pub fn context<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitContext> {
    let p = program(db);
    // Every unit of the workspace's files is in the program; a unit of another file
    // runs once per call.
    let Place { runs, wd } = p.units.get(&unit).cloned().unwrap_or_else(|| Place {
        runs: Runs::once(Vec::new(), Some(calls::NO_CALLER)),
        wd: None,
    });
    let own = summary(db, unit);
    let per_call = p.calls.get(&unit);
    let each = per_call.into_iter().flat_map(|c| &c.by_stmt);
    let call_comm = each
        .clone()
        .filter_map(|(id, t)| Some((*id, t.comm?)))
        .collect();
    let call_time = each.clone().map(|(id, t)| (*id, t.time)).collect();
    let call_lines = each.map(|(id, t)| (*id, t.lines)).collect();
    let call_local = per_call.map(|c| c.local.clone()).unwrap_or_default();
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
        call_local,
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
fn may_call(unit: &costline_syntax::ir::Unit) -> bool {
    let mut found = false;
    unit.walk(&mut |s, _| {
        if found {
            return;
        }
        let mut look = |e: &costline_syntax::ir::Expr| {
            e.visit(&mut |x| {
                if let costline_syntax::ir::Expr::Call(c) = x
                    && costline_syntax::ir::intrinsics::intrinsic_class(&c.name).is_none()
                {
                    found = true;
                }
            })
        };
        match &s.kind {
            costline_syntax::ir::StmtKind::Call(c) if !c.name.starts_with("mpi_") => found = true,
            costline_syntax::ir::StmtKind::Assign { lhs, rhs } => {
                look(lhs);
                look(rhs);
            }
            costline_syntax::ir::StmtKind::If(i) => {
                i.branches.iter().flat_map(|b| &b.cond).for_each(look)
            }
            costline_syntax::ir::StmtKind::Loop(l) => match &l.control {
                costline_syntax::ir::LoopControl::Counted {
                    lower, upper, step, ..
                } => {
                    look(lower);
                    look(upper);
                    step.iter().for_each(look);
                }
                costline_syntax::ir::LoopControl::While(c) => look(c),
                costline_syntax::ir::LoopControl::Forever => {}
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
