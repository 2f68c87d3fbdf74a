//! wd of loops, procedures and programs (Definition 4.3), and the `imbalance` warnings:
//! on each assignment whose wd exceeds the threshold, saying which processors are over-
//! and under-loaded, and on the DISTRIBUTE (or ALIGN) directive behind it.

use super::{StmtWork, UnitWork, weighted_wd};
use crate::diagnostics::Diagnostic;
use crate::freq::calls::UnitInfo;
use crate::freq::{FreqOptions, UnitFrequencies};
use crate::ir::{Expr, Stmt, StmtId, StmtKind, Unit, UnitKind, walk};
use crate::project::Options;
use crate::span::Span;
use crate::symbolic::Env;
use std::collections::{BTreeMap, HashMap};

/// The (freq, wd) items of Definition 4.3 among `stmts` (at any depth): array
/// assignments with their wd, calls with their callee's.
fn items(
    stmts: &[Stmt],
    work: &UnitWork,
    freqs: &UnitFrequencies,
    env: Env,
    options: &FreqOptions,
    callee_wd: &dyn Fn(&str) -> Option<f64>,
) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    walk(stmts, &mut |s, _| {
        let wd = match &s.kind {
            StmtKind::Assign {
                lhs: Expr::Array(_),
                ..
            } => work.of(s.id).and_then(StmtWork::wd),
            StmtKind::Call(c) => callee_wd(&c.name),
            _ => None,
        };
        if let Some(wd) = wd
            && let Some(freq) = freqs.of(s.id).and_then(|c| c.eval(env, options).ok())
        {
            out.push((freq.to_f64(), wd));
        }
    });
    out
}

/// wd of every unit (Definition 4.3 over its body; a call counts with its callee's wd).
pub fn unit_wds(
    units: &[UnitInfo],
    works: &[&UnitWork],
    options: &FreqOptions,
) -> Vec<Option<f64>> {
    let by_name: HashMap<&str, usize> = units
        .iter()
        .enumerate()
        .filter(|(_, u)| u.unit.kind != UnitKind::Module)
        .map(|(i, u)| (u.unit.name.as_str(), i))
        .collect();
    let mut memo: Vec<Option<Option<f64>>> = vec![None; units.len()];
    fn resolve(
        i: usize,
        units: &[UnitInfo],
        works: &[&UnitWork],
        by_name: &HashMap<&str, usize>,
        memo: &mut Vec<Option<Option<f64>>>,
        options: &FreqOptions,
    ) -> Option<f64> {
        if let Some(w) = memo[i] {
            return w;
        }
        // A recursive call sees no wd for the unit being computed.
        memo[i] = Some(None);
        let u = &units[i];
        let mut callees: HashMap<String, Option<f64>> = HashMap::new();
        walk(&u.unit.body, &mut |s, _| {
            if let StmtKind::Call(c) = &s.kind {
                callees.entry(c.name.clone()).or_default();
            }
        });
        for (name, slot) in callees.iter_mut() {
            if let Some(&j) = by_name.get(name.as_str()) {
                *slot = resolve(j, units, works, by_name, memo, options);
            }
        }
        let lookup = |n: &str| callees.get(n).copied().flatten();
        let wd = weighted_wd(&items(
            &u.unit.body,
            works[i],
            u.freqs,
            u.env,
            options,
            &lookup,
        ));
        memo[i] = Some(wd);
        wd
    }
    (0..units.len())
        .map(|i| resolve(i, units, works, &by_name, &mut memo, options))
        .collect()
}

/// wd of every loop of a unit (Definition 4.3 over the loop's body).
pub fn loop_wds(
    unit: &Unit,
    work: &UnitWork,
    freqs: &UnitFrequencies,
    env: Env,
    options: &FreqOptions,
    callee_wd: &dyn Fn(&str) -> Option<f64>,
) -> HashMap<StmtId, f64> {
    let mut out = HashMap::new();
    unit.walk(&mut |s, _| {
        if let StmtKind::Loop(l) = &s.kind
            && let Some(wd) = weighted_wd(&items(&l.body, work, freqs, env, options, callee_wd))
        {
            out.insert(s.id, wd);
        }
    });
    out
}

/// Warnings on imbalanced assignments and on the directives that distribute their arrays.
pub fn diagnostics(
    unit: &Unit,
    work: &UnitWork,
    freqs: &UnitFrequencies,
    options: &Options,
) -> Vec<Diagnostic> {
    let threshold = options.imbalance_threshold;
    let mut out = Vec::new();
    // Per directive: (statements affected, worst wd).
    let mut by_directive: BTreeMap<Span, (usize, f64, String)> = BTreeMap::new();
    unit.walk(&mut |s, _| {
        let Some(w) = work.of(s.id) else { return };
        let (Some(wd), Some(per)) = (w.wd(), w.per_processor.as_ref()) else { return };
        if wd <= threshold || freqs.of(s.id).is_none() {
            return;
        }
        let super::Spread::Owned { array, mapping, .. } = &w.spread else { return };
        let mean = per.iter().sum::<f64>() / per.len().max(1) as f64;
        let Some((max, min)) = w.extremes() else { return };
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
