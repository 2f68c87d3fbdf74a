//! The time section of a hover: the predicted time on the machine, its computation and
//! communication parts, the busiest processor, and for an assignment the operations
//! of one execution and their price; a time that leaves something out is marked as a
//! lower bound (`≥`) with what it leaves out listed.

use super::{UnitAt, label};
use crate::completeness;
use costline_db::{
    MissingList, ReportState, Settings, lower, ops, report_state, times, unit_missing,
    vector_verdicts,
};
use costline_model::time::vectorize::{Source, Verdict};
use costline_syntax::ir::{Stmt, StmtKind};
use std::fmt::Write;

/// Rows of the per-processor computation table beyond which it is folded.
const TABLE_ROWS: usize = 16;

/// Places a figure leaves out listed in a hover, beyond which they are counted.
const MISSING_ROWS: usize = 8;

/// Appends the time of statement `stmt` (or of the whole unit when `None`).
pub(super) fn time_section(
    db: &dyn salsa::Database,
    u: &UnitAt,
    stmt: Option<&Stmt>,
    out: &mut String,
) {
    let id = stmt.map(|s| s.id);
    let machine = Settings::get(db).machine(db);
    let ir = lower(db, u.unit);
    let times = times(db, u.unit);
    let Some(t) = (match id {
        Some(id) => times.of(id),
        None => Some(&times.unit),
    }) else {
        return;
    };
    // What the time leaves out (a call's includes its callee's): then it is a lower
    // bound, and the places are listed.
    let unit_missing = unit_missing(db, u.unit);
    let missing = match stmt {
        Some(s) => unit_missing.within(std::slice::from_ref(s)),
        None => unit_missing.all.clone(),
    };
    if !t.known {
        let _ = writeln!(
            out,
            "predicted time on `{}`: needs values for the counts (costline.params)\n",
            machine.name
        );
        missing_section(&missing, out);
        return;
    }
    let per = match ir.kind {
        costline_syntax::ir::UnitKind::Program => "per program run".to_string(),
        _ => format!("per call of `{}`", ir.name),
    };
    let _ = writeln!(
        out,
        "**{}{}** {per} on `{}` — computation {} · communication {}\n",
        completeness::time_mark(&missing),
        label::seconds(t.time_s),
        machine.name,
        label::seconds(t.ct_s()),
        completeness::comm_seconds(&missing, t.comm_s),
    );
    missing_section(&missing, out);
    let p = t.per_processor.len();
    if p > 1 {
        let mean = t.per_processor.iter().sum::<f64>() / p as f64;
        if let Some(b) = t.busiest() {
            let _ = writeln!(
                out,
                "busiest processor **{b}** of {p}: {} (mean {})\n",
                label::seconds(t.per_processor[b - 1]),
                label::seconds(mean)
            );
        }
        if stmt.is_none_or(|s| matches!(s.kind, StmtKind::Loop(_))) && p <= 64 {
            out.push_str("| p | computation |\n|---:|---:|\n");
            label::folded_rows(
                out,
                p,
                TABLE_ROWS,
                &|o, i| {
                    let _ = writeln!(o, "| {} | {} |", i + 1, label::seconds(t.per_processor[i]));
                },
                &|o, hidden| {
                    let _ = writeln!(o, "| … | {hidden} more |");
                },
            );
            out.push('\n');
        }
    }
    if let Some(id) = id
        && let Some(v) = vector_verdicts(db, u.unit).get(&id)
    {
        let name = costline_db::analysis::compiler(db).name;
        let report = report_state(db, u.unit.file(db));
        let _ = writeln!(
            out,
            "compiler (`costline.compiler`): {}\n",
            compiler_line(v, &name, &report)
        );
    }
    if let Some(id) = id
        && let Some((ops_s, mem_s)) = times.execution(id)
        && let Some(o) = ops(db, u.unit).get(&id)
    {
        let _ = writeln!(
            out,
            "one execution: {} = {}; memory traffic {}{}\n",
            o.describe(),
            label::seconds(ops_s),
            label::seconds(mem_s),
            if mem_s > ops_s {
                " (memory-bound: it decides)"
            } else {
                ""
            }
        );
    }
}

/// What the compiler `name` does with a loop (`v`), in a line: vectorized or not, how
/// wide, and where that came from — its report (`report`, with the compiler's own
/// reason), or costline's rules (with the rules' reason, and why not the report when
/// one was asked for).
fn compiler_line(v: &Verdict, name: &str, report: &ReportState) -> String {
    let what = if v.vectorized {
        format!(
            "**vectorized** by `{name}` ({}-byte vectors, {} lanes)",
            v.vector_bytes, v.lanes
        )
    } else {
        format!("**not vectorized** by `{name}`")
    };
    if v.source == Source::Compiler {
        return format!("{what} — compiler report: {}", v.why);
    }
    let rules = if v.vectorized {
        format!("costline's rules of {name}")
    } else {
        format!("costline's rules of {name}: {}", v.why)
    };
    let note = match report {
        ReportState::NotAsked => String::new(),
        ReportState::Stale => {
            " (compiler report out of date: the rules answer until the new one arrives)".into()
        }
        ReportState::Unavailable(why) => format!(" (compiler report unavailable: {why})"),
        ReportState::Fresh(_) => " (the compiler's report says nothing of this loop)".into(),
    };
    format!("{what} — {rules}{note}")
}

/// What a figure leaves out, listed (nothing when it is complete).
fn missing_section(missing: &MissingList, out: &mut String) {
    if missing.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "**incomplete** (a time is a lower bound): it leaves out {}\n",
        completeness::places(missing)
    );
    for line in completeness::hover_lines(missing, MISSING_ROWS) {
        let _ = writeln!(out, "- {line}");
    }
    out.push('\n');
}
