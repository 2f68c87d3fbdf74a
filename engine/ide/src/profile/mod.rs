//! `costline profile`'s data: where counters go in a copy of the program
//! ([`plan`]), the Fortran they are counted with ([`counters`]), and the profile file
//! the counts are kept in and read back from ([`file`]): measured branch
//! probabilities and trip counts, by unit and statement, and the values of the
//! scalars the counts need, by unit and name.

pub mod counters;
mod edit;
pub mod file;
pub mod gathers;
mod lexical;
mod plan;
mod port;

use crate::Analysis;
use costline_db::analysis::Constants;
use costline_db::{Cancellable, UnitKey};
use costline_model::freq::Count;
use gathers::GatherTable;

/// What a counter counts at its statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Runs of branch k of an IF or SELECT.
    Branch(usize),
    /// Runs of an IF or SELECT where no branch ran.
    None,
    /// Arrivals at a loop.
    Entry,
    /// Arrivals at a GO TO loop's labelled statement.
    Arrival,
    /// Starts of a loop's body.
    Iteration,
    /// Jumps back of a GO TO loop.
    Jump,
    /// Runs of a CALL of an MPI routine (`MPI_...`).
    Call,
    /// The elements a CALL of an MPI routine that moves one buffer passed (its count
    /// arguments, summed over its runs).
    Elements,
    /// The value of an integer scalar before the statement: four counters from this
    /// one, how often it was recorded, the sum, the least and the greatest value.
    Value,
    /// Runs of the unit (counted before its first statement, of a unit that calls
    /// MPI: its calls per run on each rank).
    Runs,
}

/// One counter of the instrumented program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    /// The counter's number (from 1); GO TO jumps may share their IF's.
    pub counter: usize,
    pub unit: UnitKey,
    /// The digest of the unit's text ([`costline_db::text_digest`]).
    pub digest: u64,
    /// The file the unit is in.
    pub file: String,
    /// The statement measured (its id in the unit).
    pub stmt: u32,
    pub role: Role,
    /// The routine a [`Role::Call`] or [`Role::Elements`] counter's statement calls
    /// (lower-case).
    pub callee: Option<String>,
    /// The unknown a [`Role::Value`] counter records, as the counts name it.
    pub name: Option<String>,
    /// Where the counter is: the file (an included one, or the unit's) and the
    /// 1-based line and column of the statement it counts.
    pub path: String,
    pub line: u32,
    pub column: u32,
}

/// An irregular read of a mapped array the instrumented program records
/// ([`gathers`]), and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatherPoint {
    /// The read site's number (from 1).
    pub site: usize,
    pub unit: UnitKey,
    pub digest: u64,
    pub file: String,
    /// The statement reading, and the reference as the analysis writes it.
    pub stmt: u32,
    pub reference: String,
    /// The layouts and bounds it is recorded under.
    pub table: GatherTable,
    pub path: String,
    pub line: u32,
    pub column: u32,
}

/// A program instrumented for a profile run.
#[derive(Clone, Debug, Default)]
pub struct Instrumented {
    /// The texts of the files with counters (the program's files and included files),
    /// by path, ported as in `ported`; the others are compiled as they are.
    pub files: Vec<(String, String)>,
    /// The texts of the files changed to compile as Fortran 90 and run serially (an
    /// HPF program's EXTRINSIC prefixes, ...: see `port`), by path: what the program
    /// as written is built from.
    pub ported: Vec<(String, String)>,
    /// How many counters there are.
    pub counters: usize,
    pub points: Vec<Point>,
    /// The irregular reads recorded, by site.
    pub gathers: Vec<GatherPoint>,
    /// The statements that cannot be measured, and why (their counts stay assumed).
    pub skipped: Vec<String>,
}

impl Instrumented {
    /// The tables of the read sites, in site order.
    pub fn gather_tables(&self) -> Vec<GatherTable> {
        self.gathers.iter().map(|g| g.table.clone()).collect()
    }
}

impl Analysis {
    /// The workspace's program instrumented for a profile run: a counter at each
    /// statement whose count rests on an assumed branch probability or trip count,
    /// at each CALL of an MPI routine, a record of each unknown the counts need
    /// before the outermost statement needing it, and a recorder at each read of a
    /// mapped array whose element the analysis cannot follow (under the mappings for
    /// the processor count in force).
    pub fn instrument(&self) -> Cancellable<Instrumented> {
        let files = self.files();
        self.with_db(|db| plan::instrument(db, &files))
    }
}

/// The values a profile run recorded that `count` rests on under `constants`, one
/// line of words each, and whether one of them varied where it was recorded on one
/// rank (between executions): the count is then an estimate, counted with the mean.
/// (One value on each MPI rank: the count is each rank's, averaged.)
pub(crate) fn measured_values(constants: &Constants, count: &Count) -> (Vec<String>, bool) {
    let run = constants.measured_run.as_deref().unwrap_or("profile");
    let mut varied = false;
    let lines = constants
        .measured_in(count)
        .into_iter()
        .map(|(name, v)| {
            if !v.per_rank.is_empty() {
                let each: Vec<String> = v.per_rank.iter().map(i64::to_string).collect();
                format!(
                    "`{name}` is {} on ranks 0 to {}: counted on each rank, the mean over the ranks (measured: {run})",
                    each.join(", "),
                    v.per_rank.len() - 1
                )
            } else if v.varied() {
                varied = true;
                format!(
                    "`{name}` varied from {} to {} where recorded, {} on average: counted as {} (measured: {run})",
                    v.min,
                    v.max,
                    crate::label::compact(v.mean.to_f64()),
                    v.binding()
                )
            } else {
                format!("the value of `{name}` is {} (measured: {run})", v.min)
            }
        })
        .collect();
    (lines, varied)
}
