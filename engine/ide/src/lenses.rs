//! Code lenses: above each procedure, how often it runs in the program, how many
//! assignments it executes per run, its wd, its communication and its predicted time
//! per run on the machine with the computation/communication split — `×50 runs ·
//! 2.1e6 assignments/run · wd 0.08 · ≈ 3.2 ms/run (compute 2.9 ms, comm 0.3 ms) on
//! ib-hdr`; a time that leaves something out is a lower bound (`≥ 3.2 ms/run ·
//! incomplete: leaves out 3 places`). A procedure's wd weighs its calls with its
//! callees', so lenses read the program-wide results.

use super::{label, units_of};
use crate::completeness;
use costline_db::{
    File, Settings, UnitContext, UnitText, comm_values, context, lower, times, unit_missing, values,
};
use costline_model::comm::CommMetrics;
use costline_syntax::ir::{StmtKind, UnitKind};

/// A lens: its title, shown above the unit statement at `offset` (into the file's text).
#[derive(Clone, Debug, PartialEq)]
pub struct CodeLens {
    pub offset: u32,
    pub title: String,
}

pub(super) fn code_lenses(db: &dyn salsa::Database, file: File) -> Vec<CodeLens> {
    let (_, units) = units_of(db, file);
    let mut out = Vec::new();
    for u in &units {
        let ir = lower(db, u.unit);
        if matches!(
            ir.kind,
            UnitKind::Module | UnitKind::Submodule | UnitKind::BlockData
        ) {
            continue;
        }
        let ctx = context(db, u.unit);
        let values = values(db, u.unit);
        let runs = match ctx.runs.value {
            Some(v) => format!(
                "×{} run{}",
                label::compact(v.to_f64()),
                if v.to_f64() == 1.0 { "" } else { "s" }
            ),
            None => "×? runs".to_string(),
        };
        // Assignments executed per run: Σ freq(S) over the unit's assignments.
        let mut total = Some(0.0);
        ir.walk(&mut |s, _| {
            if let StmtKind::Assign { .. } = s.kind {
                total = match (total, values.freq(s.id)) {
                    (Some(t), Some(Ok(v))) => Some(t + v.to_f64()),
                    (t, None) => t,
                    _ => None,
                };
            }
        });
        let per_run = match total {
            Some(t) => format!("{} assignments/run", label::compact(t)),
            None => "? assignments/run".to_string(),
        };
        let mut title = label::with_wd(format!("{runs} · {per_run}"), ctx.wd);
        // Communication per run, its calls' included (Definitions 4.4–4.6).
        if let Some(m) = comm_total(db, u.unit, &ir, &ctx).filter(|m| m.nt > 0.0) {
            title = format!("{title} · {}", label::comm(&m));
        }
        let t = &times(db, u.unit).unit;
        let machine = &Settings::get(db).machine(db).name;
        let missing = unit_missing(db, u.unit);
        title = if t.known {
            format!(
                "{title} · {}{}/run (compute {}, comm {}) on {machine}",
                completeness::time_mark(&missing.all),
                label::seconds(t.time_s),
                label::seconds(t.ct_s()),
                completeness::comm_seconds(&missing.all, t.comm_s),
            )
        } else {
            format!("{title} · ≈ ?/run on {machine} (counts need values)")
        };
        if !missing.all.is_empty() {
            title = format!(
                "{title} · incomplete: leaves out {}",
                completeness::places(&missing.all)
            );
        }
        out.push(CodeLens {
            offset: u.original(ir.header).start,
            title,
        });
    }
    out
}

/// A unit's communication per run: its statements' and its calls'.
fn comm_total(
    db: &dyn salsa::Database,
    unit: UnitText,
    ir: &costline_syntax::ir::Unit,
    ctx: &UnitContext,
) -> Option<CommMetrics> {
    let own = comm_values(db, unit).total(ir);
    // In statement order: a float sum in the map's order changes from run to run.
    let mut calls: Vec<_> = ctx.call_comm.iter().collect();
    calls.sort_by_key(|(id, _)| **id);
    calls.into_iter().fold(own, |acc, (_, m)| {
        Some(acc.unwrap_or_default().plus(m, 1.0))
    })
}
