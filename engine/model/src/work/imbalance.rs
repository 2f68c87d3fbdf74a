//! wd of loops, procedures and programs (Definition 4.3), and the `imbalance` warnings:
//! on each assignment whose wd exceeds the threshold, saying which processors are over-
//! and under-loaded, and on the DISTRIBUTE (or ALIGN) directive behind it.

use super::{Spread, UnitValues, UnitWork, weighted_wd};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::{Expr, Loop, Stmt, StmtId, StmtKind, Unit, UnitKind, walk};
use costline_syntax::span::Span;
use std::collections::{BTreeMap, HashMap};

/// One item of Definition 4.3: an array assignment with its wd, or a call, which
/// counts with its callee's wd.
#[derive(Clone, Debug, PartialEq)]
pub enum WdItem {
    Assign { freq: f64, wd: f64 },
    Call { freq: f64, callee: String },
}

/// What the items of Definition 4.3 need of a statement under the bindings.
pub trait Numbers {
    /// freq(S), when it has a value.
    fn freq(&self, id: StmtId) -> Option<f64>;
    /// wd(S) of an assignment whose work has values.
    fn wd(&self, id: StmtId) -> Option<f64>;
}

impl Numbers for UnitValues {
    fn freq(&self, id: StmtId) -> Option<f64> {
        Some(UnitValues::freq(self, id)?.as_ref().ok()?.to_f64())
    }

    fn wd(&self, id: StmtId) -> Option<f64> {
        self.load(id).map(|l| l.wd())
    }
}

/// The items of Definition 4.3 among `stmts` (at any depth) that have values.
fn items(stmts: &[Stmt], numbers: &dyn Numbers) -> Vec<WdItem> {
    let mut out = Vec::new();
    walk(stmts, &mut |s, _| {
        let Some(freq) = numbers.freq(s.id) else {
            return;
        };
        match &s.kind {
            StmtKind::Assign {
                lhs: Expr::Array(_),
                ..
            } => {
                if let Some(wd) = numbers.wd(s.id) {
                    out.push(WdItem::Assign { freq, wd });
                }
            }
            StmtKind::Call(c) => out.push(WdItem::Call {
                freq,
                callee: c.name.clone(),
            }),
            _ => {}
        }
    });
    out
}

/// The items of Definition 4.3 in the body of `unit`.
pub fn unit_items(unit: &Unit, values: &UnitValues) -> Vec<WdItem> {
    items(&unit.body, values)
}

/// wd(E) of the items, a call weighted with `callee_wd` (calls of callees without a wd
/// are left out).
fn weigh(items: &[WdItem], callee_wd: &dyn Fn(&str) -> Option<f64>) -> Option<f64> {
    let pairs: Vec<(f64, f64)> = items
        .iter()
        .filter_map(|i| match i {
            WdItem::Assign { freq, wd } => Some((*freq, *wd)),
            WdItem::Call { freq, callee } => Some((*freq, callee_wd(callee)?)),
        })
        .collect();
    weighted_wd(&pairs)
}

/// One unit as [`unit_wds`] sees it.
pub struct WdUnit<'a> {
    pub kind: UnitKind,
    pub name: &'a str,
    pub items: &'a [WdItem],
    /// Its wd when not Definition 4.3's over its items (an `EXTRINSIC(HPF_LOCAL)`
    /// procedure's, over the processors' parts).
    pub fixed: Option<f64>,
}

/// wd of every unit (Definition 4.3 over its body, or its `fixed` one; a call counts
/// with its callee's wd; a recursive call sees no wd for the unit being computed).
pub fn unit_wds(units: &[WdUnit]) -> Vec<Option<f64>> {
    let by_name: HashMap<&str, usize> = units
        .iter()
        .enumerate()
        .filter(|(_, u)| u.kind != UnitKind::Module)
        .map(|(i, u)| (u.name, i))
        .collect();
    let mut memo: Vec<Option<Option<f64>>> = vec![None; units.len()];
    fn resolve(
        i: usize,
        units: &[WdUnit],
        by_name: &HashMap<&str, usize>,
        memo: &mut Vec<Option<Option<f64>>>,
    ) -> Option<f64> {
        if let Some(w) = memo[i] {
            return w;
        }
        if let Some(w) = units[i].fixed {
            memo[i] = Some(Some(w));
            return Some(w);
        }
        memo[i] = Some(None);
        let mut callees: HashMap<&str, Option<f64>> = HashMap::new();
        for item in units[i].items {
            if let WdItem::Call { callee, .. } = item {
                callees.entry(callee.as_str()).or_default();
            }
        }
        for (name, slot) in callees.iter_mut() {
            if let Some(&j) = by_name.get(name) {
                *slot = resolve(j, units, by_name, memo);
            }
        }
        let wd = weigh(units[i].items, &|n| callees.get(n).copied().flatten());
        memo[i] = Some(wd);
        wd
    }
    (0..units.len())
        .map(|i| resolve(i, units, &by_name, &mut memo))
        .collect()
}

/// wd of a loop (Definition 4.3 over its body).
pub fn loop_wd(
    l: &Loop,
    numbers: &dyn Numbers,
    callee_wd: &dyn Fn(&str) -> Option<f64>,
) -> Option<f64> {
    weigh(&items(&l.body, numbers), callee_wd)
}

/// wd of every loop of a unit.
pub fn loop_wds(
    unit: &Unit,
    values: &UnitValues,
    callee_wd: &dyn Fn(&str) -> Option<f64>,
) -> HashMap<StmtId, f64> {
    let mut out = HashMap::new();
    unit.walk(&mut |s, _| {
        if let StmtKind::Loop(l) = &s.kind
            && let Some(wd) = loop_wd(l, values, callee_wd)
        {
            out.insert(s.id, wd);
        }
    });
    out
}

/// Warnings on imbalanced assignments and on the directives that distribute their arrays.
/// `matters` tells the statements whose share of their unit's time is worth a finding
/// (a one-element boundary update is not).
pub fn diagnostics(
    unit: &Unit,
    work: &UnitWork,
    values: &UnitValues,
    threshold: f64,
    matters: &dyn Fn(StmtId) -> bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // Per directive: (statements affected, worst wd).
    let mut by_directive: BTreeMap<Span, (usize, f64, String)> = BTreeMap::new();
    unit.walk(&mut |s, _| {
        let (Some(w), Some(load)) = (work.of(s.id), values.load(s.id)) else {
            return;
        };
        let wd = load.wd();
        if wd <= threshold || !matters(s.id) {
            return;
        }
        let Spread::Owned { array, mapping, .. } = &w.spread else { return };
        let per = load.per_processor();
        let mean = load.owork();
        let Some((max, min)) = load.extremes() else { return };
        let ratio = |p: usize| if mean > 0.0 { per[p - 1] / mean } else { 0.0 };
        out.push(Diagnostic::warning(
            s.span,
            "imbalance",
            format!(
                "the work of this assignment is unevenly spread over the {} processors of `{}` (wd {wd:.2}): processor {max} does {:.2}x the mean, processor {min} {:.2}x",
                per.len(),
                mapping.distribution.onto.name,
                ratio(max),
                ratio(min),
            ),
        ));
        for d in &mapping.directives {
            let e = by_directive.entry(*d).or_insert((0, 0.0, array.clone()));
            e.0 += 1;
            e.1 = e.1.max(wd);
        }
    });
    for (span, (n, worst, array)) in by_directive {
        out.push(Diagnostic::warning(
            span,
            "imbalance",
            format!(
                "this mapping of `{array}` spreads the work of {n} assignment{} unevenly (wd up to {worst:.2}, threshold {threshold})",
                if n == 1 { "" } else { "s" }
            ),
        ));
    }
    out
}
