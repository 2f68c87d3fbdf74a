//! What each unit's figures leave out, placed in the files (DESIGN.md section 5,
//! `missing`): a unit's own gaps ([`costline_model::completeness`]) and, at each call,
//! everything the callee's runs leave out, transitively (a recursive cycle is followed
//! once). Kept apart from the program fold so that moving a gap's line re-runs only
//! what shows it.

use super::analysis::{comm_values, constants, counts, freqs, intrinsic_times, lower, mappings};
use super::calls::{procedure_named, procedures};
use super::units::{UnitText, base, file_units};
use costline_model::completeness::{Gap, GapCode, GapInputs, UnitGaps, unit_gaps};
use costline_model::freq::calls::called;
use costline_syntax::ir::{Stmt, StmtId, walk};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// At most this many places are kept per list; the rest are counted.
pub const MAX_MISSING: usize = 200;

/// One thing a figure leaves out, placed in a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Missing {
    pub file: Arc<str>,
    /// 1-based; a place in an included file is its INCLUDE line.
    pub line: u32,
    pub code: GapCode,
    pub what: String,
}

/// What a figure leaves out: distinct places in (file, line) order, at most
/// [`MAX_MISSING`], and how many more there are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MissingList {
    pub entries: BTreeSet<Missing>,
    pub more: usize,
}

impl MissingList {
    /// Whether the figure leaves nothing out: it is complete.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.more == 0
    }

    /// How many places it leaves out (those kept and those counted).
    pub fn len(&self) -> usize {
        self.entries.len() + self.more
    }

    pub fn add(&mut self, m: Missing) {
        if self.entries.contains(&m) {
            return;
        }
        if self.entries.len() < MAX_MISSING {
            self.entries.insert(m);
        } else {
            self.more += 1;
        }
    }

    pub fn extend(&mut self, other: &MissingList) {
        for m in &other.entries {
            self.add(m.clone());
        }
        self.more += other.more;
    }
}

/// What a unit's figures leave out: each statement's (a call's includes its callee's),
/// and the unit's as a whole (every statement's and the statements not read).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnitMissing {
    pub by_stmt: HashMap<StmtId, MissingList>,
    pub all: MissingList,
}

impl UnitMissing {
    /// What the figures of `body` (statements with everything inside them) leave out
    /// together.
    pub fn within(&self, body: &[Stmt]) -> MissingList {
        let mut out = MissingList::default();
        walk(body, &mut |s, _| {
            if let Some(m) = self.by_stmt.get(&s.id) {
                out.extend(m);
            }
        });
        out
    }
}

/// The gaps of a unit's own statements.
#[salsa::tracked(returns(clone))]
pub fn gaps<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitGaps> {
    let ir = lower(db, unit);
    let comm = comm_values(db, unit);
    let counts = counts(db, unit);
    let freqs = freqs(db, unit);
    let known = constants(db, unit);
    let needs = |id: StmtId| -> Option<Vec<String>> {
        if counts.freq(id).is_some_and(|v| v.is_ok()) {
            return None;
        }
        let count = freqs.of(id)?;
        Some(
            count
                .unknowns()
                .into_iter()
                .filter(|n| !known.values.contains_key(n.as_ref() as &str))
                .map(|n| n.to_string())
                .collect(),
        )
    };
    let intrinsics = intrinsic_times(db, unit);
    Arc::new(unit_gaps(&GapInputs {
        unit: &ir,
        comm: &comm,
        needs: &needs,
        known_procedure: &|name| procedure_named(db, name).is_some(),
        arrangements: mappings(db, unit)
            .unusable_arrangements(&ir, &|n| known.values.get(n).map(|v| *v as i128)),
        unpriced_loops: &intrinsics.unpriced,
    }))
}

/// The gaps of `unit` placed in its file.
fn placed(db: &dyn salsa::Database, unit: UnitText<'_>, gaps: &[Gap]) -> Vec<Missing> {
    let home = base(db, unit);
    let Ok(f) = file_units(db, home.file(db)) else {
        return Vec::new();
    };
    let Some(k) = f.units.iter().position(|&u| u == home) else {
        return Vec::new();
    };
    let chunk = &f.chunks[k];
    let path: Arc<str> = Arc::from(f.source.path());
    gaps.iter()
        .map(|g| Missing {
            file: path.clone(),
            line: f.source.line_col(chunk.file_span(g.at).start).0,
            code: g.code,
            what: g.what.clone(),
        })
        .collect()
}

/// Everything the runs of each procedure of the workspace leave out, by name: its own
/// gaps and its callees', transitively.
#[salsa::tracked(returns(ref))]
fn reached(db: &dyn salsa::Database) -> HashMap<String, Arc<MissingList>> {
    let procedures = procedures(db);
    let mut memo: HashMap<String, Arc<MissingList>> = HashMap::new();
    let mut names: Vec<&String> = procedures.keys().collect();
    names.sort();
    let mut out = HashMap::new();
    for name in names {
        let (list, _) = reach(db, name, procedures, &mut memo, &mut Vec::new());
        out.insert(name.clone(), list);
    }
    out
}

/// Everything the runs of `name` leave out, and whether the list was cut short by a
/// recursive cycle through a caller still being walked (then it is not kept: entered
/// from elsewhere the cycle gives more).
fn reach<'db>(
    db: &'db dyn salsa::Database,
    name: &str,
    procedures: &HashMap<String, UnitText<'db>>,
    memo: &mut HashMap<String, Arc<MissingList>>,
    active: &mut Vec<String>,
) -> (Arc<MissingList>, bool) {
    if let Some(m) = memo.get(name) {
        return (m.clone(), false);
    }
    let Some(&unit) = procedures.get(name) else {
        return (Arc::default(), false);
    };
    let own = gaps(db, unit);
    let mut all = MissingList::default();
    for m in placed(db, unit, &own.unit) {
        all.add(m);
    }
    for list in own.stmts.values() {
        for m in placed(db, unit, list) {
            all.add(m);
        }
    }
    let mut cut = false;
    active.push(name.to_string());
    for callee in callees(db, unit) {
        if callee == name || !procedures.contains_key(&callee) {
            continue;
        }
        if active.contains(&callee) {
            cut = true;
            continue;
        }
        let (theirs, theirs_cut) = reach(db, &callee, procedures, memo, active);
        cut |= theirs_cut;
        all.extend(&theirs);
    }
    active.pop();
    let all = Arc::new(all);
    if !cut {
        memo.insert(name.to_string(), all.clone());
    }
    (all, cut)
}

/// The procedures `unit` calls from statements that may run (count not known to be 0).
fn callees(db: &dyn salsa::Database, unit: UnitText<'_>) -> Vec<String> {
    let ir = lower(db, unit);
    let counts = counts(db, unit);
    let mut out: Vec<String> = Vec::new();
    ir.walk(&mut |s, _| {
        if counts.value(s.id) == Some(0.0) {
            return;
        }
        for c in called(&s.kind) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    });
    out
}

/// What the figures of `unit` leave out, by statement and as a whole.
#[salsa::tracked(returns(clone))]
pub fn unit_missing<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitMissing> {
    let own = gaps(db, unit);
    let ir = lower(db, unit);
    let counts = counts(db, unit);
    // The program-wide lists only when the unit calls a procedure of the workspace.
    let mut callee_lists = None;
    let mut out = UnitMissing::default();
    for m in placed(db, unit, &own.unit) {
        out.all.add(m);
    }
    ir.walk(&mut |s, _| {
        let mut list = MissingList::default();
        if let Some(gs) = own.stmts.get(&s.id) {
            for m in placed(db, unit, gs) {
                list.add(m);
            }
        }
        if counts.value(s.id) != Some(0.0) {
            for c in called(&s.kind) {
                if c == *ir.name || procedure_named(db, &c).is_none() {
                    continue;
                }
                let lists = callee_lists.get_or_insert_with(|| reached(db));
                if let Some(theirs) = lists.get(&c) {
                    list.extend(theirs);
                }
            }
        }
        if !list.is_empty() {
            out.all.extend(&list);
            out.by_stmt.insert(s.id, list);
        }
    });
    Arc::new(out)
}
