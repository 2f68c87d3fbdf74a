//! `costline coverage`: how much of a program costline understood — statements read and
//! counted (exactly, estimated, not at all), assignments to distributed arrays with a
//! work vector, reads of distributed data with communication records, MPI calls priced,
//! units whose figures are complete. The figures a ratchet keeps from getting worse.

use costline_db::Options;
use costline_db::project::{Detail, Project, UnitAnalysis};
use costline_model::comm::mpi;
use costline_model::work::Spread;
use costline_syntax::ir::{StmtKind, UnitKind};
use serde::Serialize;

/// Of `total` things, how many are `done`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Share {
    pub done: usize,
    pub total: usize,
}

impl Share {
    fn add(&mut self, done: bool) {
        self.total += 1;
        self.done += usize::from(done);
    }

    /// `done / total` in percent (100 when there is nothing to do).
    pub fn percent(self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.done as f64 / self.total as f64
        }
    }
}

/// The statements of a program by how well their count is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counted {
    /// A count with a value and no assumption in it.
    pub exact: usize,
    /// A count with a value that rests on assumptions (probabilities, trip counts).
    pub estimated: usize,
    /// No value (an unknown without a binding, or no count at all).
    pub unknown: usize,
}

/// How much of one program (the files analyzed together) costline understood.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Coverage {
    /// Statements read (lowered), of those written (read + could not be read).
    pub statements_read: Share,
    /// The statements read, by how well their count is known.
    pub counts: Counted,
    /// Assignments to distributed arrays that have a work vector (owner computes,
    /// evaluated for every processor).
    pub mapped_assignments_with_work: Share,
    /// Reads of distributed data whose communication is modelled (records, or none
    /// needed).
    pub mapped_reads_with_records: Share,
    /// MPI calls that communicate and are priced.
    pub mpi_calls_priced: Share,
    /// Procedures and programs whose figures are complete.
    pub units_complete: Share,
}

/// The coverage of `inputs` (path, contents) analyzed together under `options`; files
/// that cannot be loaded count nothing.
pub fn coverage(inputs: &[(String, Vec<u8>)], options: &Options) -> Coverage {
    let mut out = Coverage::default();
    let mut project = Project::load(inputs, options);
    for i in 0..inputs.len() {
        if project.head(i).is_ok() {
            project.visit_units(i, Detail::Numbers, &mut |u| add_unit(&mut out, &u));
        }
    }
    out
}

fn add_unit(out: &mut Coverage, u: &UnitAnalysis) {
    let unit = &u.unit;
    let mut read = 0;
    unit.walk(&mut |s, _| {
        read += 1;
        match u.values.freq(s.id) {
            Some(Ok(_))
                if u.freqs.of(s.id).is_some_and(|c| {
                    c.is_exact() && !crate::profile::measured_values(&u.constants, c).1
                }) =>
            {
                out.counts.exact += 1
            }
            Some(Ok(_)) => out.counts.estimated += 1,
            _ => out.counts.unknown += 1,
        }
        match &s.kind {
            StmtKind::Assign { .. } => {
                if let Some(w) = u.work.of(s.id) {
                    match w.spread {
                        Spread::Owned { .. } => out
                            .mapped_assignments_with_work
                            .add(u.values.load(s.id).is_some()),
                        Spread::Irregular { .. } => out.mapped_assignments_with_work.add(false),
                        Spread::Replicated => {}
                    }
                }
            }
            StmtKind::Call(c) if c.name.starts_with("mpi_") => {
                if let Some(m) = u.comm.mpi.get(&s.id) {
                    out.mpi_calls_priced.add(m.metrics.is_ok());
                } else if mpi::unpriced(&c.name) {
                    out.mpi_calls_priced.add(false);
                }
            }
            _ => {}
        }
        for r in u.comm.of(s.id).iter().filter(|r| !r.remap) {
            out.mapped_reads_with_records.add(r.records.is_ok());
        }
    });
    out.statements_read.done += read;
    out.statements_read.total += read + unit.unread.len();
    if !matches!(
        unit.kind,
        UnitKind::Module | UnitKind::Submodule | UnitKind::BlockData
    ) {
        out.units_complete.add(u.missing.all.is_empty());
    }
}
