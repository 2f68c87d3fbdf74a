//! The program's MPI skeleton run: every process runs the program from its main
//! program on — only the statements MPI calls depend on ([`slice`]), with concrete
//! values ([`run`]) — and lists the MPI events it makes; the events of all processes
//! are then replayed together ([`crate::comm::replay`]). This is what a PMPI counter
//! sees of a real run (per-process messages, bytes, collectives) when the counts,
//! peers and branches around MPI calls are computed from the process's rank, the
//! program's constants and what its set-up routines compute (NPB CG's `l2npcols`,
//! `reduce_exch_proc(i)`, `reduce_recv_lengths(i)` in a module, set in one routine and
//! read in another). Values that come from input or from the skipped floating-point
//! work are unknown; what depends on them is noted ([`Note`]), never counted as 0 —
//! unless a profile run on as many processes measured it ([`measured`]): then each
//! rank's own counts decide the branches, trips and counts it cannot evaluate.

mod comms;
pub mod measured;
mod mpi;
mod run;
pub mod slice;
mod value;

use super::cost::Network;
use super::ranks::{MAX_RANKS, RankComm};
use super::replay::replay;
use comms::Shared;
use costline_syntax::ir::{StmtId, Unit};
use measured::Profiled;
use run::{Abort, Rank};
use slice::Slice;
use std::collections::HashMap;

/// The statements all processes and passes of a run may execute together.
pub const MAX_STEPS: u64 = 20_000_000;

/// Passes over all processes at most (see [`comms`]).
const MAX_PASSES: usize = 4;

/// The program: its main program, its procedures by name, the integer constants
/// each unit sees (its modules' and host's PARAMETERs, the user's bindings) by unit and
/// name, and what a profile run on as many processes measured.
pub struct Program<'a> {
    pub main: &'a Unit,
    pub procedures: HashMap<String, &'a Unit>,
    pub constant: &'a dyn Fn(&str, &str) -> Option<i64>,
    pub profiled: &'a Profiled,
}

/// Something a run could not know at a statement, or assumed there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub unit: String,
    pub stmt: StmtId,
    pub what: String,
    /// An assumption the run went on with (else something left out).
    pub assumed: bool,
}

/// A run of the program on every process.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProgramRun {
    /// What each process does with MPI, its time the replay's.
    pub ranks: Vec<RankComm>,
    pub notes: Vec<Note>,
    /// What the run took from the profile run where it could not evaluate.
    pub measured: Vec<Note>,
    /// Transfers and collectives the replay found no partner for.
    pub unmatched: usize,
    /// Passes over the processes the run needed.
    pub passes: usize,
    /// Statements executed over all processes and passes.
    pub statements: u64,
}

impl ProgramRun {
    /// The slowest process's communication time.
    pub fn time_s(&self) -> f64 {
        self.ranks.iter().map(|r| r.time_s).fold(0.0, f64::max)
    }

    pub fn complete(&self) -> bool {
        self.notes.iter().all(|n| n.assumed)
    }
}

/// Runs `program` on `p` processes on network `net`, or says why it cannot.
pub fn run(program: &Program, p: i128, net: &Network) -> Result<ProgramRun, String> {
    if !(1..=MAX_RANKS).contains(&p) {
        return Err(format!("{p} processes: a run is made for 1 to {MAX_RANKS}"));
    }
    let p = p as usize;
    let slice = Slice::of(program);
    let mut shared = Shared::new(p);
    let mut steps = MAX_STEPS;
    let mut sites = HashMap::new();
    let mut out = ProgramRun::default();
    let mut traces = Vec::new();
    for pass in 1..=MAX_PASSES {
        traces.clear();
        out.ranks.clear();
        out.notes.clear();
        out.measured.clear();
        out.passes = pass;
        for r in 0..p {
            let mut rank = Rank::new(program, &slice, &mut shared, r, &mut steps, &mut sites, net);
            match rank.run_main() {
                Ok(()) => {}
                Err(Abort::Budget) => {
                    return Err(format!(
                        "the program's MPI skeleton runs more than {MAX_STEPS} statements"
                    ));
                }
            }
            for n in rank.notes {
                if !out.notes.contains(&n) {
                    out.notes.push(n);
                }
            }
            for n in rank.measured {
                if !out.measured.contains(&n) {
                    out.measured.push(n);
                }
            }
            out.ranks.push(rank.counts);
            traces.push(rank.events);
        }
        if !shared.rotate() {
            break;
        }
    }
    out.statements = MAX_STEPS - steps;
    let price = |from: usize, to: usize, b: f64| net.price(from, to, p, b);
    let result = replay(&traces, &price);
    for (rank, clock) in out.ranks.iter_mut().zip(result.clocks) {
        rank.time_s = clock;
    }
    out.unmatched = result.unmatched;
    Ok(out)
}
