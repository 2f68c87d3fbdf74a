//! The incremental analysis database (salsa): the pipeline of DESIGN.md section 1 as
//! memoized queries, so that an edit re-runs only what it changed.
//!
//! Inputs: the files ([`File`]), the set analyzed together ([`Workspace`]) and the
//! settings ([`Settings`]: bindings, limits, threshold), the last two singletons. Queries, per file: load and split
//! into units ([`file_units`]); per unit, keyed by its content ([`UnitText`]: kind, name,
//! host and own text, never its position): parse → scope (host and USEd modules) → lower
//! → counts, mappings, work formulas → constants and values under the bindings →
//! diagnostics; over the program: how often each unit runs and its wd.
//!
//! Invariant (as in rust-analyzer): typing inside one procedure never invalidates another
//! procedure's derived data — its key does not change, and the shared queries it reads
//! (module exports, host scopes, the program's call summary) cut off early when their
//! values come out equal. Changing a binding re-runs constants and values only.

pub mod alternatives;
pub mod analysis;
mod call_effects;
mod callers;
pub mod calls;
mod common;
mod common_reach;
mod compiler_reports;
mod functions;
mod host;
mod include_search;
mod inputs;
mod mapped;
mod missing;
mod modules;
mod mpi_shared;
mod profile;
mod program;
mod program_run;
pub mod project;
mod scope;
mod splice;
mod tables;
mod units;

pub use analysis::{
    cache, comm, comm_records, comm_values, constants, counts, freqs, locality, lower, mappings,
    mpi_ranks, nests, ops, processors, stmt_formula, stmt_load, times, unit_diagnostics, values,
    vector_verdicts, work, work_formulas,
};
pub use compiler_reports::{ReportState, report_state};
pub use host::{ANALYSIS_STACK, Analysis, AnalysisHost, Cancellable};
pub use inputs::{
    CompilerOutput, File, Includes, Options, Resolution, Settings, Workspace, compiler_command,
    content_hash,
};
pub use missing::{Missing, MissingList, UnitMissing, gaps, unit_missing};
pub use modules::duplicate_modules;
pub use profile::{
    Profile, ProfileState, UnitKey, UnitProfile, profile_state, stale_note, text_digest,
};
pub use program::{
    UnitContext, context, loop_wds, warm_lowering, warm_program, warm_summary, workspace_unit_count,
};
pub use program_run::mpi_run;
pub use splice::{MAX_DEPTH, MAX_INCLUDED_BYTES, include_names};
pub use units::{FileUnits, UnitText, base, file_units, variant};

use std::sync::{Arc, Mutex};

/// The database: salsa's storage; the workspace and settings are singleton inputs.
#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
}

#[salsa::db]
impl salsa::Database for Database {}

impl Database {
    /// An empty workspace with default settings; `log`, if given, records every query
    /// execution.
    pub fn new(log: Option<ExecutionLog>) -> Database {
        let callback = log.map(|log| {
            Box::new(move |event: salsa::Event| {
                if let salsa::EventKind::WillExecute { database_key } = event.kind {
                    log.push(format!("{database_key:?}"));
                }
            }) as Box<dyn Fn(salsa::Event) + Send + Sync>
        });
        let db = Database {
            storage: salsa::Storage::new(callback),
        };
        Workspace::new(&db, Vec::new());
        Settings::defaults(&db);
        db
    }
}

/// The queries a database executed, as `name(Id(..))` entries (salsa's event log).
#[derive(Clone, Default)]
pub struct ExecutionLog(Arc<Mutex<Vec<String>>>);

impl ExecutionLog {
    fn push(&self, entry: String) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
    }

    /// The entries since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// How many of `entries` are executions of the query `name`.
    pub fn count(entries: &[String], name: &str) -> usize {
        entries
            .iter()
            .filter(|e| e.split('(').next() == Some(name))
            .count()
    }
}

#[cfg(test)]
mod tests;
