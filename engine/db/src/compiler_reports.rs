//! The compiler's own word on a file's loops: its vectorization report (an input the
//! driver sets, [`crate::CompilerOutput`]) read against the file as it is now. A report
//! of other bytes or of another compiler command is never applied: costline's rules
//! answer until the new one arrives. A file nobody asked the compiler about reads
//! nothing here but the input's absence, so its verdicts depend on its units alone.

use super::analysis::compiler_text;
use super::inputs::{File, content_hash};
use super::units::{UnitText, base, file_units};
use costline_model::time::compiler_report::Report;
use costline_model::time::vectorize::{self, Compiler, Verdict};
use costline_syntax::ir::{StmtId, StmtKind, Unit};
use std::collections::HashMap;
use std::sync::Arc;

/// Whether a file's compiler report answers for it as it is now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportState {
    /// Nobody asked the compiler.
    NotAsked,
    /// The report is of other bytes or of another compiler command.
    Stale,
    /// The compiler could not compile the file as it is, alone: its first error.
    Unavailable(String),
    /// The report of the file as it is, by the compiler in force.
    Fresh(Arc<Report>),
}

/// The state of `file`'s compiler report against its bytes and the compiler command
/// in force.
#[salsa::tracked(returns(clone))]
pub fn report_state(db: &dyn salsa::Database, file: File) -> ReportState {
    let Some(output) = file.compiler_output(db) else {
        return ReportState::NotAsked;
    };
    if output.compiler != compiler_text(db) || output.content != content_hash(file.bytes(db)) {
        return ReportState::Stale;
    }
    match &output.report {
        Ok(report) => ReportState::Fresh(report.clone()),
        Err(why) => ReportState::Unavailable(why.clone()),
    }
}

/// The verdicts the fresh compiler report of `unit`'s file gives its innermost DO
/// loops (`ir`, compiled by `compiler`): each loop with a message about a loop on its
/// lines ([`vectorize::reported`]). Empty when the report is not fresh.
pub(super) fn reported_verdicts(
    db: &dyn salsa::Database,
    unit: UnitText<'_>,
    ir: &Unit,
    compiler: &Compiler,
) -> HashMap<StmtId, Verdict> {
    let mut out = HashMap::new();
    let file = unit.file(db);
    let ReportState::Fresh(report) = report_state(db, file) else {
        return out;
    };
    let Ok(f) = file_units(db, file) else {
        return out;
    };
    let written = base(db, unit);
    let Some(chunk) = f
        .units
        .iter()
        .position(|&u| u == written)
        .map(|i| &f.chunks[i])
    else {
        return out;
    };
    // The original line of an offset into the unit's text.
    let line = |offset: u32| f.source.line_col(chunk.file_offset(offset)).0;
    // The first lines of the loops around the statement visited, with their depths.
    let mut around: Vec<(usize, u32)> = Vec::new();
    ir.walk(&mut |s, depth| {
        let StmtKind::Loop(l) = &s.kind else {
            return;
        };
        let first = line(l.header.start);
        while around.last().is_some_and(|(d, _)| *d >= depth) {
            around.pop();
        }
        // A nest written on one line (array syntax of rank 2 and more, FORALL,
        // WHERE): a message that the loop there was not vectorized may be about an
        // outer one (gfortran makes an inner copy a memcpy, of which it says
        // nothing), so only a vectorized one is taken as the innermost's.
        let one_line_nest = around.last().is_some_and(|(_, l)| *l == first);
        around.push((depth, first));
        let last = line(l.header.end.saturating_sub(1)).max(first);
        let end = line(s.span.end.saturating_sub(1)).max(last);
        // At its header, else inside it: gfortran places a loop it rotated (one with
        // an exit) at its first statement; a loop message inside an innermost loop
        // can only be about it.
        let Some((_, said)) = report
            .loop_at(first..=end)
            .filter(|(_, said)| said.vectorized || !one_line_nest)
        else {
            return;
        };
        let slp = report.slp_within(first..=end);
        if let Some(v) = vectorize::reported(ir, s, compiler, said, slp) {
            out.insert(s.id, v);
        }
    });
    out
}
