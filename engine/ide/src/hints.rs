//! Inlay hints: at the end of each DO header and each assignment, how often it runs per
//! run of its unit and, where its work is distributed, its wd — `×1.0e6 · wd 0.42` —
//! and for an assignment that communicates, its messages and bytes per run (`2 msg · 16 KiB`);
//! at DO loops and CALLs, the predicted time per run on the machine (`≈ 3.2 ms`, or
//! `≥ 3.2 ms` when it leaves out something it could not read or model; `comm ?` marks
//! an assignment whose communication is not modelled).
//! Only the units overlapping the requested range are analyzed.

use super::{Lazy, UnitAt, label, overlaps, units_of};
use crate::completeness;
use costline_db::{
    File, Settings, comm_values, constants, context, counts, freqs, lower, times, unit_missing,
    work,
};
use costline_model::work::Spread;
use costline_model::work::imbalance::{Numbers, loop_wd};
use costline_syntax::ir::{LoopOrigin, StmtKind};
use costline_syntax::span::Span;

/// One hint: its label at `offset` (into the file's text), and a tooltip.
#[derive(Clone, Debug, PartialEq)]
pub struct InlayHint {
    pub offset: u32,
    pub label: String,
    pub tooltip: String,
}

pub(super) fn inlay_hints(db: &dyn salsa::Database, file: File, range: Span) -> Vec<InlayHint> {
    let (_, units) = units_of(db, file);
    let mut out = Vec::new();
    for u in units.iter().filter(|u| overlaps(u.range(), range)) {
        unit_hints(db, u, range, &mut out);
    }
    out.sort_by_key(|h| h.offset);
    out
}

fn unit_hints(db: &dyn salsa::Database, u: &UnitAt, range: Span, out: &mut Vec<InlayHint>) {
    let ir = lower(db, u.unit);
    let freqs = freqs(db, u.unit);
    let counts = counts(db, u.unit);
    let known = constants(db, u.unit);
    let numbers = Lazy {
        db,
        unit: u.unit,
        counts: &counts,
    };
    // Callees' wd come from the whole program: asked for only when a loop calls.
    let callee_wd = |name: &str| context(db, u.unit).callee_wds.get(name).copied();
    let per = match ir.kind {
        costline_syntax::ir::UnitKind::Program => "per program run".to_string(),
        _ => format!("per call of `{}`", ir.name),
    };
    let comm_values = comm_values(db, u.unit);
    // What a CALL's callee communicates (Definition 4.4), from the whole program too.
    let call_comm = |id| {
        context(db, u.unit)
            .call_comm
            .get(&id)
            .copied()
            .filter(|m| m.nt > 0.0)
    };
    // What each statement's figures leave out (a call's includes its callee's).
    let unit_missing = unit_missing(db, u.unit);
    ir.walk(&mut |s, _| {
        // Array syntax, FORALL and WHERE become loops around their assignments: the
        // assignments carry the hint.
        let at = match &s.kind {
            StmtKind::Loop(l) if l.origin == LoopOrigin::Do => l.header,
            StmtKind::Assign { .. } => s.span,
            StmtKind::Call(_) if comm_values.mpi.contains_key(&s.id) => s.span,
            StmtKind::Call(_) if call_comm(s.id).is_some() => s.span,
            // A call whose figures leave something out (a procedure not given, a
            // callee's unread statements) says so.
            StmtKind::Call(_) if !unit_missing.within(std::slice::from_ref(s)).is_empty() => {
                s.span
            }
            _ => return,
        };
        // A statement of an included file has no place of its own in this file.
        if !u.written_here(at) {
            return;
        }
        let at = u.original(at);
        if !overlaps(Span::new(at.end as usize, at.end as usize), range) {
            return;
        }
        let wd = match &s.kind {
            StmtKind::Loop(l) => loop_wd(l, &numbers, &callee_wd),
            _ => numbers.wd(s.id),
        };
        let Some(count) = freqs.of(s.id) else { return };
        let value = counts.freq(s.id);
        // Replicated work runs everywhere: its wd of 0 would read as perfect balance.
        let replicated = matches!(s.kind, StmtKind::Assign { .. })
            && wd.is_some()
            && work(db, u.unit)
                .of(s.id)
                .is_some_and(|w| matches!(w.spread, Spread::Replicated));
        let exact = count.is_exact() && !crate::profile::measured_values(&known, count).1;
        let mut label = if replicated {
            format!("{} · replicated", label::count(value, exact))
        } else {
            label::with_wd(label::count(value, exact), wd)
        };
        // Statements that communicate: an assignment's messages, an MPI call's cost, a
        // call's callee's messages.
        let comm = match s.kind {
            StmtKind::Call(_) => call_comm(s.id),
            _ => comm_values.metrics(s.id).filter(|m| m.nt > 0.0),
        };
        match (&s.kind, comm_values.mpi.get(&s.id)) {
            (StmtKind::Call(_), Some(m)) => {
                label = match &m.metrics {
                    Ok(c) => format!(
                        "{label} · {} · {}",
                        label::comm(c),
                        label::seconds(c.path_s)
                    ),
                    Err(_) => format!("{label} · {} ?", m.op.as_str()),
                };
            }
            (StmtKind::Assign { .. } | StmtKind::Call(_), _) => {
                if let Some(m) = &comm {
                    label = format!("{label} · {}", label::comm(m));
                }
            }
            _ => {}
        }
        // Loops and calls: the predicted time per run of the unit.
        let timing = match s.kind {
            StmtKind::Loop(_) | StmtKind::Call(_) => times(db, u.unit)
                .of(s.id)
                .filter(|t| t.known)
                .cloned(),
            _ => None,
        };
        // What the figures leave out (a call's includes its callee's).
        let missing = unit_missing.within(std::slice::from_ref(s));
        if comm.is_none()
            && matches!(s.kind, StmtKind::Assign { .. })
            && completeness::leaves_out_communication(&missing)
        {
            label = format!("{label} · comm ?");
        }
        if let Some(t) = &timing {
            label = format!(
                "{label} · {}{}",
                completeness::time_mark(&missing),
                label::seconds(t.time_s)
            );
        }
        let mut tooltip = match value {
            Some(Ok(v)) => format!("runs {} times {per}", label::full(v.to_f64())),
            _ => {
                let needs: Vec<String> = count.unknowns().iter().map(|n| n.to_string()).collect();
                format!(
                    "the count needs values for {} (costline.params)",
                    needs.join(", ")
                )
            }
        };
        if let Some(f) = count.symbolic() {
            tooltip += &format!("\ncount = {}", label::formula(f, 160));
        }
        if !exact {
            tooltip += "\nestimated: see the hover for the assumptions";
        }
        if let Some(m) = comm {
            tooltip += &format!(
                "\ncommunication per run: {} messages, {}, transfer time {}",
                label::full(m.nt),
                label::bytes(m.td_bytes),
                label::seconds(m.tt_s)
            );
        }
        if let Some(t) = &timing {
            tooltip += &format!(
                "\npredicted on {}: {}{} per run (computation {} on the busiest processor, communication {})",
                Settings::get(db).machine(db).name,
                completeness::time_mark(&missing),
                label::seconds(t.time_s),
                label::seconds(t.ct_s()),
                completeness::comm_seconds(&missing, t.comm_s)
            );
        }
        if !missing.is_empty() {
            tooltip += &format!(
                "\nincomplete: leaves out {} (see the hover)",
                completeness::places(&missing)
            );
        }
        out.push(InlayHint {
            offset: at.end,
            label,
            tooltip,
        });
    });
}
