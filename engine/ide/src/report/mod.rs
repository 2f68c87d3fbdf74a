//! The report of `costline check`: the JSON contract of DESIGN.md section 5 (fields
//! may be added, none renamed), built from the analysis of a set of files. Lines and
//! columns are 1-based and refer to the original source text.

use crate::completeness::{self, MissingReport};
use costline_db::project::{FileAnalysis, UnitAnalysis};
use costline_db::{MissingList, Options};
use costline_model::cache::NestCache;
use costline_model::calls::is_passed_key;
use costline_model::comm::ranks::{RankComm, TimeSource};
use costline_model::comm::skeleton::Note;
use costline_model::comm::{CommMetrics, RefValues};
use costline_model::freq::Count;
use costline_model::time::Timing;
use costline_model::time::vectorize::Source;
use costline_model::work::{Load, Spread, StmtWork};
use costline_symbolic::{EvalError, Notation, Num};
use costline_syntax::diagnostics::{Diagnostic, Severity};
use costline_syntax::ir::{
    ArrayRef, Expr, LoopControl, Stmt, StmtId, StmtKind, Subscript, Symbol, Unit,
};
use costline_syntax::source::SourceFile;
use costline_syntax::span::Span;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

mod json;
mod sink;

pub use json::JsonReport;
pub use sink::{Collect, Output, ReportSink, stream, stream_with_compiler};

#[derive(Debug, Serialize)]
pub struct Report {
    pub version: u32,
    pub machine: String,
    pub params: BTreeMap<String, i64>,
    pub files: Vec<FileReport>,
}

#[derive(Debug, Serialize)]
pub struct FileReport {
    pub path: String,
    /// `free` or `fixed` (`unknown` when the file could not be loaded).
    pub form: &'static str,
    pub units: Vec<UnitReport>,
    pub diagnostics: Vec<DiagnosticReport>,
}

#[derive(Debug, Serialize)]
pub struct UnitReport {
    pub name: String,
    pub kind: &'static str,
    pub line: u32,
    pub end_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// |P|: the processors the unit's distributed arrays are spread over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processors: Option<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dummies: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uses: Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub constants: BTreeMap<String, i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arrays: Vec<ArrayReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub directives: Vec<DirectiveReport>,
    pub metrics: Metrics,
    /// Its MPI calls rank by rank, per run of the unit (absent when it makes none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi_ranks: Option<MpiRanksReport>,
    /// The main program of an MPI program: the whole program run on every process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi_run: Option<MpiRunReport>,
    pub loops: Vec<LoopReport>,
    pub statements: Vec<StatementReport>,
}

/// A unit's MPI calls on every process (0-based ranks), per run of the unit: NT and TD
/// over all ranks, the most one rank sends, the slowest rank's communication time, and
/// each rank's record; or why there are none (`note`).
#[derive(Debug, Serialize)]
pub struct MpiRanksReport {
    pub complete: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<RankNote>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumptions: Vec<RankNote>,
    /// Calls counted with each rank's counts from a profile run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub measured: Vec<RankNote>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nt_total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub td_total_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nt_max_rank: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    /// How `time_s` was found: `replay` (the ranks' calls replayed together, each
    /// waiting for its partners) or `per_call` (call by call, partners not waited for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<&'static str>,
    /// Why the calls were not replayed, for `per_call`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing_note: Option<String>,
    /// Transfers and collectives the replay found no partner for (priced alone).
    #[serde(skip_serializing_if = "is_zero")]
    pub unmatched: usize,
    pub ranks: Vec<RankComm>,
}

/// The program run on every process (its statements that MPI calls depend on, with
/// concrete values), and its MPI events replayed together: per process what a PMPI
/// counter counts and the communication time.
#[derive(Debug, Serialize)]
pub struct MpiRunReport {
    /// Nothing left out (assumptions are listed but do not make it incomplete).
    pub complete: bool,
    /// Why there is no run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<RunNote>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumptions: Vec<RunNote>,
    /// What the run took from a profile run on as many processes where it could not
    /// evaluate (branches, trips, counts: each process's own).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub measured: Vec<RunNote>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processes: Option<usize>,
    /// The slowest process's communication time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    /// Messages sent and bytes sent over all processes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nt_total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub td_total_bytes: Option<f64>,
    #[serde(skip_serializing_if = "is_zero")]
    pub unmatched: usize,
    /// Statements run over all processes (and passes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statements: Option<u64>,
    pub ranks: Vec<RankComm>,
}

/// Something a program run could not know or assumed, at a statement of a procedure
/// (`line` for the main program's own statements).
#[derive(Debug, Serialize)]
pub struct RunNote {
    pub unit: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub what: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A call the per-rank records leave out or count on an assumption.
#[derive(Debug, Serialize)]
pub struct RankNote {
    pub line: u32,
    pub what: String,
}

/// A declared array: its element type and shape as written.
#[derive(Debug, Serialize)]
pub struct ArrayReport {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub shape: Vec<String>,
}

/// An HPF directive as parsed, in canonical form (`DISTRIBUTE (BLOCK, *) ONTO pr :: a`).
#[derive(Debug, Serialize)]
pub struct DirectiveReport {
    pub line: u32,
    pub column: u32,
    pub text: String,
    /// The included file the directive was written in (`line` and `column` are there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// The performance metrics of a statement, loop or unit. Later analyses add theirs;
/// absent fields are omitted.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Metrics {
    /// How often it executes: per run of its unit for statements and loops (a loop's
    /// iterations), per run of the program for units. Absent when an unknown has no value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freq: Option<Value>,
    /// Whether `freq` is exactly what the program does (no probability, assumed trip
    /// count or early exit in it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
    /// Unknowns to bind (`--param NAME=VALUE`) for `freq` to have a value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
    /// What the numbers assume beyond the program text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumptions: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<SymbolicMetrics>,
    /// Σ_p work(S, p); for a loop or unit, over its assignments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_total: Option<Value>,
    /// The work distribution goodness (P^3T+ Definitions 4.2 and 4.3): 0 is perfectly
    /// balanced, |P| - 1 the worst.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wd: Option<f64>,
    /// owork(S) = Σ_p work(S, p) / |P| (Definition 4.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owork: Option<f64>,
    /// The processor with the most work (1-based) and its work over the mean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub most_loaded: Option<Loaded>,
    /// The processor with the least work.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub least_loaded: Option<Loaded>,
    /// How the work of an assignment is spread: `owner` (owner computes), `replicated`
    /// (every processor), `even` (assumed: the owner could not be followed); of a call of
    /// an `EXTRINSIC(HPF_LOCAL)` procedure, `local` (each processor its own part).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<&'static str>,
    /// Number of transfers (P^3T+ Definitions 4.4–4.6), per run of the unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nt: Option<f64>,
    /// Data transferred, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub td_bytes: Option<f64>,
    /// Transfer time, seconds: Σ over messages of α + β·bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tt_s: Option<f64>,
    /// Communication time on the critical path (the busiest processor), seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm_s: Option<f64>,
    /// Computation time of the busiest processor (P^3T+ Definitions 4.7–4.9), seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ct_s: Option<f64>,
    /// Predicted time: per phase, communication then the busiest processor's
    /// computation, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    /// The computation time of each processor (units and loops), seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ct_per_processor: Option<Vec<f64>>,
    /// Cache lines loaded into the first cache level per run (P^3T+ Definitions
    /// 4.10–4.11): a loop's nest per entry, mean over the processors, times its entries,
    /// plus what its calls load; a unit's outermost nests and calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_lines: Option<f64>,
    /// A loop nest's lines per entry, by cache level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheReport>,
    /// Whether every quantity summed here was modelled from the source (DESIGN.md
    /// section 5); `false` lists what is not in `missing`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complete: Option<bool>,
    /// The places the figures leave out and why (distinct, at most
    /// [`crate::completeness::MAX_LISTED`])...
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<MissingReport>,
    /// ...and how many more there are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_more: Option<usize>,
    /// `lower` when `time_s` leaves out parts that can only add time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_bound: Option<&'static str>,
}

/// The cache lines of one entry of a loop nest, mean over the processors.
#[derive(Clone, Debug, Serialize)]
pub struct CacheReport {
    /// Entries into the nest per run of its unit.
    pub entries: f64,
    /// Distinct lines (an infinite cache: the compulsory misses).
    pub distinct: f64,
    /// Lines each level loads, innermost level first.
    pub levels: Vec<CacheLevelReport>,
    /// Lines from main memory (the last level's misses).
    pub from_memory: f64,
    /// Lines loaded into the first level by each processor, when there are several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_processor: Option<Vec<f64>>,
    /// Per loop carrying reuse: the footprint of one iteration and the levels it fits.
    pub layer_conditions: Vec<LayerReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CacheLevelReport {
    pub name: String,
    pub misses: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct LayerReport {
    pub var: String,
    pub bytes: f64,
    /// The levels it fits in.
    pub holds_in: Vec<String>,
}

impl CacheReport {
    fn of(n: &NestCache, machine_levels: &[String]) -> CacheReport {
        CacheReport {
            entries: n.entries,
            distinct: n.distinct,
            levels: machine_levels
                .iter()
                .zip(&n.misses)
                .map(|(name, m)| CacheLevelReport {
                    name: name.clone(),
                    misses: *m,
                })
                .collect(),
            from_memory: n.misses.last().copied().unwrap_or(n.distinct),
            per_processor: (n.per_processor.len() > 1).then(|| n.per_processor.clone()),
            layer_conditions: n
                .conditions
                .iter()
                .map(|c| LayerReport {
                    var: c.var.clone(),
                    bytes: c.bytes,
                    holds_in: machine_levels
                        .iter()
                        .zip(&c.holds)
                        .filter(|(_, h)| **h)
                        .map(|(n, _)| n.clone())
                        .collect(),
                })
                .collect(),
        }
    }
}

impl Metrics {
    /// These metrics with communication's added: zero when there is none, absent when
    /// what there is was not modelled (`leaves_out` of [`completeness`]).
    fn with_comm(self, m: Option<CommMetrics>, missing: &MissingList) -> Metrics {
        // Communication left out with nothing of it modelled is unknown (absent),
        // never 0; some of it modelled is a lower bound (`complete: false`).
        let left_out = completeness::leaves_out_communication(missing);
        let m = match m {
            Some(m) if !(left_out && m.nt == 0.0) => m,
            _ if left_out => return self,
            _ => CommMetrics::default(),
        };
        Metrics {
            nt: Some(m.nt),
            td_bytes: Some(m.td_bytes),
            tt_s: Some(m.tt_s),
            comm_s: Some(m.path_s),
            ..self
        }
    }

    /// These metrics with the communication of `refs` that is an upper bound said as an
    /// assumption (the figures are no longer exact), and that a profile measured said
    /// as measured.
    fn with_bounds(mut self, refs: &[RefValues]) -> Metrics {
        for r in refs {
            if let Some(why) = &r.bound {
                self.exact = Some(false);
                self.assumptions.push(format!(
                    "the communication of `{}` is an upper bound from the owner sets: {why}",
                    r.reference
                ));
            }
            if let Some(how) = &r.measured {
                self.assumptions
                    .push(format!("the communication of `{}` is {how}", r.reference));
            }
        }
        self
    }

    /// These metrics with their completeness: what they leave out, and the time marked
    /// as a lower bound when they leave anything out.
    fn with_missing(self, missing: &MissingList) -> Metrics {
        let (listed, more) = completeness::listed(missing);
        let complete = missing.is_empty();
        Metrics {
            complete: Some(complete),
            missing: listed,
            missing_more: more,
            time_bound: (!complete && self.time_s.is_some()).then_some("lower"),
            ..self
        }
    }
}

impl Metrics {
    /// These metrics with the work of a call of an `EXTRINSIC(HPF_LOCAL)` procedure: the
    /// assignments each processor executes in its part (spread `local`).
    fn with_local(self, work: Option<&Vec<f64>>) -> Metrics {
        match work {
            Some(w) => Metrics {
                spread: Some("local"),
                ..self
            }
            .with_load(&Load::of(w.clone())),
            None => self,
        }
    }

    /// These metrics with the figures of a work vector: Σ, wd, owork and the most and
    /// least loaded processors.
    fn with_load(self, load: &Load) -> Metrics {
        let mean = load.owork();
        let per = load.per_processor();
        let loaded = |p: usize| {
            (mean > 0.0).then(|| Loaded {
                processor: p,
                work_over_mean: per[p - 1] / mean,
            })
        };
        let (most, least) = match load.extremes() {
            Some((max, min)) => (loaded(max), loaded(min)),
            None => (None, None),
        };
        Metrics {
            work_total: Some(Value::of_f64(load.total())),
            wd: Some(load.wd()),
            owork: Some(mean),
            most_loaded: most,
            least_loaded: least,
            ..self
        }
    }

    /// These metrics with the times of `t` (the per-processor computation when asked).
    fn with_time(self, t: Option<&Timing>, per_processor: bool) -> Metrics {
        match t.filter(|t| t.known) {
            Some(t) => Metrics {
                ct_s: Some(t.ct_s()),
                time_s: Some(t.time_s),
                ct_per_processor: (per_processor && t.per_processor.len() > 1)
                    .then(|| t.per_processor.clone()),
                ..self
            },
            None => self,
        }
    }
}

impl Metrics {
    /// A loop's cache lines: its nest's per run plus its calls'.
    fn with_cache(self, u: &UnitAnalysis, s: &Stmt, levels: &[String]) -> Metrics {
        let Some(n) = u.cache.of(s.id) else {
            return self;
        };
        let mut calls = 0.0;
        costline_syntax::ir::walk(std::slice::from_ref(s), &mut |x, _| {
            calls += u.call_lines.get(&x.id).copied().unwrap_or(0.0);
        });
        Metrics {
            cache_lines: Some(n.lines_per_run() + calls),
            cache: Some(CacheReport::of(n, levels)),
            ..self
        }
    }

    /// A unit's cache lines: its outermost nests' and its calls' (Definition 4.11).
    fn with_unit_cache(self, u: &UnitAnalysis) -> Metrics {
        Metrics {
            cache_lines: Some(u.cache.own_lines() + sum_by_stmt(&u.call_lines)),
            ..self
        }
    }
}

/// Σ of per-statement values in statement order: a float sum in the map's order would
/// change in the last digits from run to run.
fn sum_by_stmt(m: &HashMap<StmtId, f64>) -> f64 {
    let mut ids: Vec<&StmtId> = m.keys().collect();
    ids.sort();
    ids.into_iter().map(|id| m[id]).sum()
}

/// A processor and its work relative to the mean.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Loaded {
    pub processor: usize,
    pub work_over_mean: f64,
}

/// The metrics as formulas in the program's unknowns (Fortran-like notation).
#[derive(Clone, Debug, Serialize)]
pub struct SymbolicMetrics {
    /// `value if guard, ...; value if ...`; null when the symbolic sum gave up (the
    /// number then comes from counting for the current values).
    pub freq: Option<Arc<str>>,
    /// work(S, p) with `$p` the processor (or `$p1, $p2, ...` its grid coordinates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work: Option<Arc<str>>,
}

/// A JSON number: an integer when the value is one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    Float(f64),
}

impl Value {
    pub fn of(n: Num) -> Value {
        match n {
            Num::Exact(r) => match r.as_integer().and_then(|i| i64::try_from(i).ok()) {
                Some(i) => Value::Int(i),
                None => Value::Float(r.to_f64()),
            },
            Num::Approx(f) => Value::Float(f),
        }
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
        }
    }

    /// An integer when the float is one.
    pub fn of_f64(x: f64) -> Value {
        if x.fract() == 0.0 && x.abs() < 9e15 {
            Value::Int(x as i64)
        } else {
            Value::Float(x)
        }
    }

    pub fn as_int(self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(i),
            Value::Float(_) => None,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct LoopReport {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    /// The loop variable (`$1`, `$2`, ... for loops from array syntax); null for DO WHILE
    /// and DO without control.
    pub var: Option<String>,
    /// Number of enclosing loops (0 for an outermost loop).
    pub depth: usize,
    /// `do`, `do_while`, `do_forever`, or for normalized constructs `forall`, `array`, `where`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub independent: bool,
    /// An innermost DO loop: what the compiler does with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compiler: Option<CompilerReport>,
    pub metrics: Metrics,
}

/// Whether the compiler vectorizes a loop (by its own report of the file, or by
/// costline's model of its rules for the flags in effect), how wide, and why (not).
#[derive(Debug, Serialize)]
pub struct CompilerReport {
    pub vectorized: bool,
    /// Elements per vector operation (1: scalar).
    pub lanes: f64,
    /// The bytes of its vectors, when vectorized.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_bytes: Option<u32>,
    /// Why (not): the rules' reason, or the compiler's own words.
    pub why: String,
    /// `compiler`: the compiler's report of the file as it is (`check
    /// --ask-compiler`, the editor's `askCompiler`); `rules`: costline's model of the
    /// compiler's rules.
    pub source: &'static str,
}

#[derive(Debug, Serialize)]
pub struct StatementReport {
    /// work(S, p) for p = 1..|P| (assignments, when |P| has a value).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work: Option<Vec<Value>>,
    pub line: u32,
    pub column: u32,
    /// Number of enclosing loops (the P^3T+ nesting level).
    pub depth: usize,
    /// `assign`, `call`, `if`, `select`, `goto`, `exit`, `cycle`, `return`, `stop`,
    /// `continue`, `redistribute`, `realign`, or what an opaque statement is (`write`,
    /// `allocate`, ...).
    pub kind: String,
    /// The statement as lowered (after normalization), for reading.
    pub text: String,
    /// The array elements the statement writes and reads, each subscript an expression.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<RefReport>,
    /// Communication records per (sender, receiver), over all references, per run of
    /// the unit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub comm: Vec<CommRecordReport>,
    /// Each right-hand-side reference to a distributed array: where its fetch is placed,
    /// its pattern and metrics.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub comm_refs: Vec<CommRefReport>,
    /// An MPI call: the operation as costed, bytes per message, processes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiReport>,
    pub metrics: Metrics,
}

/// How an MPI call is costed.
#[derive(Debug, Serialize)]
pub struct MpiReport {
    pub op: &'static str,
    /// How a collective is priced (its algorithm, or a fitted runtime function).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processes: Option<i128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What one processor sends another.
#[derive(Debug, Serialize)]
pub struct CommRecordReport {
    pub from: usize,
    pub to: usize,
    pub messages: f64,
    pub bytes: f64,
}

/// The communication of one reference.
#[derive(Debug, Serialize)]
pub struct CommRefReport {
    pub reference: String,
    pub array: String,
    /// `local`, `shift`, `broadcast`, `gather`, `all-to-all`, `general`, `unknown`.
    pub pattern: &'static str,
    /// Enclosing loops the fetch stays inside, and loops it is vectorized over.
    pub kept_loops: usize,
    pub hoisted_loops: usize,
    /// Fetched one element at a time inside every enclosing loop.
    pub element_wise: bool,
    pub exact: bool,
    /// `upper` when the records are an upper bound (an element the analysis cannot
    /// follow: every owner may send to each reader, at most one element per read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<&'static str>,
    /// Whether the records are what a profile run measured of the read (an element
    /// the analysis cannot follow).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub measured: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nt: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub td_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tt_s: Option<f64>,
}

/// One array reference of a statement.
#[derive(Debug, Serialize)]
pub struct RefReport {
    pub array: String,
    pub subscripts: Vec<String>,
    /// `write` for the left-hand side of an assignment, `read` otherwise.
    pub access: &'static str,
}

/// A finding. Its position is in the report's file, or, when `file` is present, in
/// that included file (the text the finding is about was written there), reached
/// through the INCLUDE lines of `included_from`.
#[derive(Debug, Serialize)]
pub struct DiagnosticReport {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    /// The included file `line` and `column` refer to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The INCLUDE lines that brought `file` in, outermost (in the report's file) first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub included_from: Vec<IncludeSiteReport>,
}

/// An INCLUDE line: the including file and the line's position in it.
#[derive(Debug, Serialize)]
pub struct IncludeSiteReport {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

impl DiagnosticReport {
    /// Orders findings by where they are met reading the file: by position in the
    /// report's file, those of an included file at its INCLUDE line after the line's
    /// own, by their position there.
    fn reading_order(&self) -> (u32, u32, u32, u32) {
        match self.included_from.first() {
            Some(site) => (site.line, site.column, self.line, self.column),
            None => (self.line, self.column, 0, 0),
        }
    }
}

/// The 1-based start and end positions of a normalized span of `src`, in the included
/// file that holds it (its path, then) or in `src`, and the INCLUDE lines between.
struct Place {
    start: (u32, u32),
    end: (u32, u32),
    file: Option<String>,
    sites: Vec<IncludeSiteReport>,
}

fn place(src: &SourceFile, span: Span) -> Place {
    let origin = src.origin(span);
    let sites = origin
        .sites
        .into_iter()
        .map(|s| IncludeSiteReport {
            path: s.path,
            line: s.line,
            column: s.column,
        })
        .collect();
    match origin.header {
        Some((header, range)) => Place {
            start: header.line_index().line_col(range.start),
            end: header.line_index().line_col(range.end),
            file: Some(header.path().to_string()),
            sites,
        },
        None => Place {
            start: src.line_col(span.start),
            end: src.line_col(span.end),
            file: None,
            sites,
        },
    }
}

impl Report {
    /// A report over `files` priced on `machine`; `params` are the bindings the user
    /// gave.
    pub fn new(files: Vec<FileReport>, params: &BTreeMap<String, i64>, machine: &str) -> Report {
        Report {
            version: 1,
            machine: machine.to_string(),
            params: params.clone(),
            files,
        }
    }
}

impl FileReport {
    /// The report of a file that could not be read or loaded: no units, one error.
    pub fn failed(
        path: &str,
        line: u32,
        column: u32,
        code: &'static str,
        message: String,
    ) -> FileReport {
        FileReport {
            path: path.to_string(),
            form: "unknown",
            units: Vec::new(),
            diagnostics: vec![DiagnosticReport {
                line,
                column,
                end_line: line,
                end_column: column,
                severity: Severity::Error,
                code,
                message,
                file: None,
                included_from: Vec::new(),
            }],
        }
    }
}

/// The reports of `inputs` (path, contents) analyzed together under `options`, one per
/// input in order, all held at once ([`stream`] hands them over a unit at a time).
pub fn file_reports(inputs: &[(String, Vec<u8>)], options: &Options) -> Vec<FileReport> {
    let mut files = Collect::default();
    stream(inputs, options, &mut files);
    files.0
}

/// The report of one analyzed file.
pub fn file_report(file: &FileAnalysis) -> FileReport {
    let mut report = FileReporter::new(&file.source, &file.diagnostics);
    let units = file.units.iter().map(|u| report.unit(u)).collect();
    FileReport {
        path: file.source.path().to_string(),
        form: form(&file.source),
        units,
        diagnostics: report.finish(),
    }
}

/// `free` or `fixed`.
fn form(src: &SourceFile) -> &'static str {
    match src.form() {
        costline_syntax::source::SourceForm::Free => "free",
        costline_syntax::source::SourceForm::Fixed { .. } => "fixed",
    }
}

/// The reports of a file's units, a unit at a time, and its findings.
struct FileReporter<'a> {
    src: &'a SourceFile,
    diagnostics: Vec<DiagnosticReport>,
}

impl<'a> FileReporter<'a> {
    /// A file with its file-level findings.
    fn new(src: &'a SourceFile, diagnostics: &[Diagnostic]) -> FileReporter<'a> {
        FileReporter {
            src,
            diagnostics: diagnostics
                .iter()
                .map(|d| diagnostic(src, d, d.span))
                .collect(),
        }
    }

    /// A unit's report; its findings join the file's.
    fn unit(&mut self, u: &UnitAnalysis) -> UnitReport {
        self.findings(u);
        unit_report(self.src, u)
    }

    /// A unit's findings join the file's (its report made apart: [`unit_report`]).
    fn findings(&mut self, u: &UnitAnalysis) {
        let src = self.src;
        self.diagnostics.extend(
            u.diagnostics
                .iter()
                .map(|d| diagnostic(src, d, u.absolute(d.span))),
        );
    }

    /// The file's findings, in reading order.
    fn finish(mut self) -> Vec<DiagnosticReport> {
        self.diagnostics
            .sort_by_key(DiagnosticReport::reading_order);
        self.diagnostics
    }
}

fn diagnostic(src: &SourceFile, d: &Diagnostic, span: Span) -> DiagnosticReport {
    let place = place(src, span);
    let ((line, column), (end_line, end_column)) = (place.start, place.end);
    DiagnosticReport {
        line,
        column,
        end_line,
        end_column,
        severity: d.severity,
        code: d.code,
        message: d.message.clone(),
        file: place.file,
        included_from: place.sites,
    }
}

/// The report of unit `u` of the file `src`.
fn unit_report(src: &SourceFile, u: &UnitAnalysis) -> UnitReport {
    let unit = &u.unit;
    let levels = &u.cache.levels;
    // Statements of one block share their count: evaluate it once.
    let mut evaluated: HashMap<usize, Rc<Metrics>> = HashMap::new();
    let mut metrics = |id| {
        let Some((key, count)) = u.freqs.shared(id) else {
            return Metrics::default();
        };
        evaluated
            .entry(key)
            .or_insert_with(|| Rc::new(count_metrics(src, u, count, u.values.freq(id))))
            .as_ref()
            .clone()
    };
    let line_of = |span: Span| src.line_col(u.absolute(span).start).0;
    let range = u.chunk.range;
    let mut loops = Vec::new();
    let mut statements = Vec::new();
    unit.walk(&mut |s, depth| {
        let (line, column) = src.line_col(u.absolute(s.span).start);
        match &s.kind {
            StmtKind::Loop(l) => {
                let (line, column) = src.line_col(u.absolute(l.header).start);
                let end_line = src.line_col(u.absolute(s.span).end.saturating_sub(1)).0;
                let (mut lower, mut upper, mut step, mut condition) = (None, None, None, None);
                let kind = match (&l.control, l.origin) {
                    (
                        LoopControl::Counted {
                            lower: lo,
                            upper: up,
                            step: st,
                            ..
                        },
                        origin,
                    ) => {
                        lower = Some(lo.to_string());
                        upper = Some(up.to_string());
                        step = st.as_ref().map(ToString::to_string);
                        origin.as_str()
                    }
                    (LoopControl::While(c), _) => {
                        condition = Some(c.to_string());
                        "do_while"
                    }
                    (LoopControl::Forever, _) => "do_forever",
                };
                loops.push(LoopReport {
                    line,
                    column,
                    end_line: end_line.max(line),
                    var: l.var().map(str::to_string),
                    depth,
                    kind,
                    lower,
                    upper,
                    step,
                    condition,
                    independent: l.independent.is_some(),
                    compiler: u.vector.get(&s.id).map(|v| CompilerReport {
                        vectorized: v.vectorized,
                        lanes: v.lanes,
                        vector_bytes: v.vectorized.then_some(v.vector_bytes),
                        why: v.why.clone(),
                        source: match v.source {
                            Source::Compiler => "compiler",
                            Source::Rules => "rules",
                        },
                    }),
                    metrics: {
                        let missing = u.missing.within(std::slice::from_ref(s));
                        Metrics {
                            wd: u.loop_wd.get(&s.id).copied(),
                            ..metrics(s.id)
                        }
                        .with_comm(comm_within(u, &l.body), &missing)
                        .with_time(u.times.of(s.id), true)
                        .with_cache(u, s, levels)
                        .with_missing(&missing)
                    },
                });
            }
            kind => {
                let missing = u.missing.within(std::slice::from_ref(s));
                statements.push(StatementReport {
                    work: u
                        .values
                        .load(s.id)
                        .map(|l| l.per_processor())
                        .or(u.call_local.get(&s.id).map(Vec::as_slice))
                        .map(|w| w.iter().map(|x| Value::of_f64(*x)).collect()),
                    line,
                    column,
                    depth,
                    kind: statement_kind(unit, kind),
                    text: statement_text(unit, kind),
                    refs: statement_refs(kind),
                    comm: comm_records(u.comm.of(s.id)),
                    comm_refs: u.comm.of(s.id).iter().map(comm_ref).collect(),
                    mpi: u.comm.mpi.get(&s.id).map(|m| MpiReport {
                        op: m.op.as_str(),
                        algorithm: m.algorithm,
                        bytes: m.bytes,
                        processes: m.processes,
                        note: m.metrics.as_ref().err().cloned(),
                    }),
                    metrics: with_work(
                        metrics(s.id),
                        u.work.of(s.id),
                        u.formulas.as_ref().and_then(|f| f.of(s.id)),
                        u.values.load(s.id),
                    )
                    .with_comm(u.stmt_comm(s.id), &missing)
                    .with_bounds(u.comm.of(s.id))
                    .with_time(u.times.of(s.id), false)
                    .with_local(u.call_local.get(&s.id))
                    .with_missing(&missing),
                })
            }
        }
    });
    UnitReport {
        name: unit.name.clone(),
        kind: unit.kind.as_str(),
        line: line_of(unit.header),
        end_line: src.line_col(range.end.saturating_sub(1).max(range.start)).0,
        host: unit.host.clone(),
        processors: u.work.arrangement.as_ref().and_then(|a| {
            let v = a.size().ok()?.eval(&|n: &str| u.value_of(n)).ok()?;
            Value::of(v).as_int()
        }),
        dummies: unit.dummies.clone(),
        uses: unit.uses.iter().map(|u| u.module.clone()).collect(),
        constants: u
            .constants
            .values
            .iter()
            .filter(|(k, _)| !is_passed_key(k))
            .map(|(k, v)| (k.clone(), *v))
            .collect(),
        arrays: unit
            .symbols
            .values()
            .filter(|s| s.is_array())
            .map(|s| array_report(unit, s))
            .collect(),
        directives: unit
            .directives
            .iter()
            .map(|d| {
                let place = place(src, u.absolute(d.span));
                DirectiveReport {
                    line: place.start.0,
                    column: place.start.1,
                    text: d.kind.to_string(),
                    file: place.file,
                }
            })
            .collect(),
        metrics: Metrics {
            wd: u.wd,
            ..runs_metrics(u)
        }
        .with_comm(comm_within(u, &unit.body), &u.missing.all)
        .with_time(Some(&u.times.unit), true)
        .with_unit_cache(u)
        .with_missing(&u.missing.all),
        mpi_ranks: mpi_ranks_report(u, &line_of),
        mpi_run: mpi_run_report(src, u),
        loops,
        statements,
    }
}

/// The program run of a main program; notes on its own statements carry their lines.
fn mpi_run_report(src: &SourceFile, u: &UnitAnalysis) -> Option<MpiRunReport> {
    let run = match u.mpi_run.as_ref().as_ref()? {
        Ok(r) => r,
        Err(why) => {
            return Some(MpiRunReport {
                complete: false,
                note: Some(why.clone()),
                missing: Vec::new(),
                assumptions: Vec::new(),
                measured: Vec::new(),
                processes: None,
                time_s: None,
                nt_total: None,
                td_total_bytes: None,
                unmatched: 0,
                statements: None,
                ranks: Vec::new(),
            });
        }
    };
    let line = |unit: &str, id: StmtId| {
        if unit != u.unit.name {
            return None;
        }
        let mut found = None;
        u.unit.walk(&mut |s, _| {
            if s.id == id {
                found = Some(s.span);
            }
        });
        Some(src.line_col(u.absolute(found?).start).0)
    };
    let listed = |notes: &mut dyn Iterator<Item = &Note>| -> Vec<RunNote> {
        notes
            .map(|n| RunNote {
                unit: n.unit.clone(),
                line: line(&n.unit, n.stmt),
                what: n.what.clone(),
            })
            .collect()
    };
    let notes = |assumed: bool| listed(&mut run.notes.iter().filter(|n| n.assumed == assumed));
    Some(MpiRunReport {
        complete: run.complete(),
        note: None,
        missing: notes(false),
        assumptions: notes(true),
        measured: listed(&mut run.measured.iter()),
        processes: Some(run.ranks.len()),
        time_s: Some(run.time_s()),
        nt_total: Some(run.ranks.iter().map(|r| r.sends).sum()),
        td_total_bytes: Some(run.ranks.iter().map(|r| r.send_bytes).sum()),
        unmatched: run.unmatched,
        statements: Some(run.statements),
        ranks: run.ranks.clone(),
    })
}

/// The per-rank report of a unit that calls MPI.
fn mpi_ranks_report(u: &UnitAnalysis, line_of: &dyn Fn(Span) -> u32) -> Option<MpiRanksReport> {
    let ranks = match u.mpi_ranks.as_ref().as_ref()? {
        Ok(r) => r,
        Err(why) => {
            return Some(MpiRanksReport {
                complete: false,
                missing: Vec::new(),
                assumptions: Vec::new(),
                measured: Vec::new(),
                note: Some(why.clone()),
                nt_total: None,
                td_total_bytes: None,
                nt_max_rank: None,
                time_s: None,
                timing: None,
                timing_note: None,
                unmatched: 0,
                ranks: Vec::new(),
            });
        }
    };
    let mut lines = HashMap::new();
    u.unit.walk(&mut |s, _| {
        lines.insert(s.id, line_of(s.span));
    });
    let entries = |list: &[(StmtId, String)]| -> Vec<RankNote> {
        let mut out: Vec<RankNote> = list
            .iter()
            .map(|(id, what)| RankNote {
                line: lines.get(id).copied().unwrap_or(0),
                what: what.clone(),
            })
            .collect();
        out.sort_by(|a, b| (a.line, &a.what).cmp(&(b.line, &b.what)));
        out
    };
    let totals = ranks
        .stmts
        .values()
        .fold((0.0, 0.0), |(nt, td), m| (nt + m.nt, td + m.td_bytes));
    Some(MpiRanksReport {
        complete: ranks.missing.is_empty(),
        missing: entries(&ranks.missing),
        assumptions: entries(&ranks.assumed),
        measured: entries(&ranks.measured),
        note: None,
        nt_total: Some(totals.0),
        td_total_bytes: Some(totals.1),
        nt_max_rank: Some(ranks.max_sends()),
        time_s: Some(ranks.path_s()),
        timing: Some(match ranks.timing {
            TimeSource::Replayed { .. } => "replay",
            TimeSource::PerCall(_) => "per_call",
        }),
        timing_note: match &ranks.timing {
            TimeSource::PerCall(why) => Some(why.clone()),
            TimeSource::Replayed { .. } => None,
        },
        unmatched: match ranks.timing {
            TimeSource::Replayed { unmatched } => unmatched,
            TimeSource::PerCall(_) => 0,
        },
        ranks: ranks.ranks.clone(),
    })
}

/// The records of a statement's references, summed per (sender, receiver).
fn comm_records(refs: &[RefValues]) -> Vec<CommRecordReport> {
    let mut by_pair: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
    for r in refs
        .iter()
        .filter_map(|r| r.records.as_ref().ok())
        .flatten()
    {
        let slot = by_pair.entry((r.from, r.to)).or_default();
        slot.0 += r.messages;
        slot.1 += r.bytes;
    }
    by_pair
        .into_iter()
        .map(|((from, to), (messages, bytes))| CommRecordReport {
            from,
            to,
            messages,
            bytes,
        })
        .collect()
}

fn comm_ref(r: &RefValues) -> CommRefReport {
    CommRefReport {
        reference: r.reference.clone(),
        array: r.array.clone(),
        pattern: r.pattern.as_str(),
        kept_loops: r.placement.kept,
        hoisted_loops: r.placement.hoisted,
        element_wise: r.element_wise(),
        exact: r.exact,
        bound: r.bound.as_ref().map(|_| "upper"),
        measured: r.measured.is_some(),
        note: r.records.as_ref().err().cloned().or_else(|| {
            r.bound
                .as_ref()
                .map(|why| format!("an upper bound from the owner sets: {why}"))
                .or_else(|| r.measured.clone())
        }),
        nt: r.metrics.map(|m| m.nt),
        td_bytes: r.metrics.map(|m| m.td_bytes),
        tt_s: r.metrics.map(|m| m.tt_s),
    }
}

/// Definitions 4.5 and 4.6: the communication of a loop or unit is the sum over the
/// statements in it, calls included (per run of the unit).
pub fn comm_within(u: &UnitAnalysis, body: &[Stmt]) -> Option<CommMetrics> {
    let mut all = Vec::new();
    costline_syntax::ir::walk(body, &mut |s, _| all.extend(u.stmt_comm(s.id)));
    (!all.is_empty()).then(|| CommMetrics::sum(&all))
}

/// The metrics of a statement or loop from its count and the count's value.
fn count_metrics(
    src: &SourceFile,
    u: &UnitAnalysis,
    c: &Count,
    value: Option<&Result<Num, EvalError>>,
) -> Metrics {
    let (freq, needs) = match value {
        Some(Ok(v)) => (Some(Value::of(*v)), Vec::new()),
        _ => {
            let needs = c
                .unknowns()
                .into_iter()
                .filter(|n| u.value_of(n).is_none())
                .map(|n| n.to_string())
                .collect();
            (None, needs)
        }
    };
    let (measured, varied) = crate::profile::measured_values(&u.constants, c);
    Metrics {
        freq,
        exact: Some(c.is_exact() && !varied),
        needs,
        assumptions: c
            .assumptions
            .iter()
            .map(|a| a.describe(&|at| src.line_col(u.absolute(at).start).0))
            .chain(measured)
            .collect(),
        symbolic: Some(SymbolicMetrics {
            freq: c.symbolic_text(),
            work: None,
        }),
        ..Metrics::default()
    }
}

/// A statement's metrics with its work distribution added.
fn with_work(
    m: Metrics,
    w: Option<&StmtWork>,
    formula: Option<&Count>,
    load: Option<&Load>,
) -> Metrics {
    let Some(w) = w else { return m };
    let (spread, formula) = match &w.spread {
        Spread::Owned { .. } => ("owner", formula.and_then(Count::symbolic_text)),
        Spread::Replicated => (
            "replicated",
            m.symbolic.as_ref().and_then(|s| s.freq.clone()),
        ),
        Spread::Irregular { .. } => ("even", None),
    };
    let mut assumptions = m.assumptions.clone();
    if let Spread::Irregular { array, why, .. } = &w.spread {
        assumptions.push(format!("the owner of the `{array}` element cannot be followed ({why}): work assumed evenly spread"));
    }
    let m = Metrics {
        spread: Some(spread),
        symbolic: m.symbolic.map(|s| SymbolicMetrics { work: formula, ..s }),
        assumptions,
        ..m
    };
    match load {
        // Every processor runs every execution: wd does not apply (0 would read as
        // perfect balance); `spread` says it.
        Some(l) if spread == "replicated" => Metrics {
            work_total: Some(Value::of_f64(l.total())),
            ..m
        },
        Some(l) => m.with_load(l),
        None => m,
    }
}

/// The metrics of a unit from how often it runs.
fn runs_metrics(u: &UnitAnalysis) -> Metrics {
    let r = &u.runs;
    Metrics {
        freq: r.value.map(Value::of),
        exact: Some(r.note.is_none()),
        needs: Vec::new(),
        assumptions: r.note.iter().map(|n| n.to_string()).collect(),
        symbolic: Some(SymbolicMetrics {
            freq: r
                .symbolic
                .as_ref()
                .map(|p| Arc::from(p.display(Notation::Fortran))),
            work: None,
        }),
        ..Metrics::default()
    }
}

fn array_report(unit: &Unit, s: &Symbol) -> ArrayReport {
    ArrayReport {
        name: s.name.clone(),
        ty: s
            .ty
            .as_ref()
            .or_else(|| unit.implicit.type_of(&s.name))
            .map_or_else(|| "untyped".to_string(), ToString::to_string),
        shape: s.dims.iter().flatten().map(ToString::to_string).collect(),
    }
}

fn statement_kind(unit: &Unit, kind: &StmtKind) -> String {
    match kind {
        StmtKind::Remap { directive } => match unit.directives.get(*directive).map(|d| &d.kind) {
            Some(costline_syntax::ir::directive::DirectiveKind::Realign(_)) => "realign",
            _ => "redistribute",
        },
        StmtKind::Assign { .. } => "assign",
        StmtKind::Loop(_) => "loop",
        StmtKind::If(_) => "if",
        StmtKind::Select(_) => "select",
        StmtKind::Call(_) => "call",
        StmtKind::Goto { .. } => "goto",
        StmtKind::ArithmeticIf { .. } => "arithmetic_if",
        StmtKind::Exit { .. } => "exit",
        StmtKind::Cycle { .. } => "cycle",
        StmtKind::Return => "return",
        StmtKind::Stop => "stop",
        StmtKind::Continue => "continue",
        StmtKind::Other { what, .. } => return what.clone(),
    }
    .to_string()
}

/// The array references of a statement's own expressions (not of nested statements).
fn statement_refs(kind: &StmtKind) -> Vec<RefReport> {
    let mut out = Vec::new();
    match kind {
        StmtKind::Assign { lhs, rhs } => {
            match lhs {
                // The written element, then what its subscripts read.
                Expr::Array(r) => {
                    out.push(ref_report(r, "write"));
                    for s in &r.subscripts {
                        if let Subscript::Index(e) = s {
                            refs_in(e, "read", &mut out);
                        }
                    }
                }
                other => refs_in(other, "read", &mut out),
            }
            refs_in(rhs, "read", &mut out);
        }
        StmtKind::Call(c) => c
            .args
            .iter()
            .for_each(|a| refs_in(&a.value, "read", &mut out)),
        StmtKind::If(i) => i
            .branches
            .iter()
            .filter_map(|b| b.cond.as_ref())
            .for_each(|c| refs_in(c, "read", &mut out)),
        StmtKind::Select(sel) => refs_in(&sel.selector, "read", &mut out),
        StmtKind::ArithmeticIf { expr, .. } => refs_in(expr, "read", &mut out),
        _ => {}
    }
    out
}

fn refs_in(e: &Expr, access: &'static str, out: &mut Vec<RefReport>) {
    e.visit(&mut |e| {
        if let Expr::Array(r) = e {
            out.push(ref_report(r, access));
        }
    });
}

fn ref_report(r: &ArrayRef, access: &'static str) -> RefReport {
    RefReport {
        array: r.name.clone(),
        subscripts: r.subscripts.iter().map(ToString::to_string).collect(),
        access,
    }
}

/// The statement's own line as lowered (for a compound statement, its header).
fn statement_text(unit: &Unit, kind: &StmtKind) -> String {
    match kind {
        StmtKind::Remap { directive } => unit
            .directives
            .get(*directive)
            .map_or_else(String::new, |d| d.kind.to_string()),
        StmtKind::If(i) => i
            .branches
            .iter()
            .map(|b| match &b.cond {
                Some(c) => format!("if ({c})"),
                None => "else".to_string(),
            })
            .collect::<Vec<_>>()
            .join(" / "),
        StmtKind::Select(s) => format!("select case ({})", s.selector),
        _ => {
            let stmt = costline_syntax::ir::Stmt {
                id: costline_syntax::ir::StmtId(0),
                span: Span::default(),
                label: None,
                kind: kind.clone(),
            };
            costline_syntax::ir::pretty::render(std::slice::from_ref(&stmt))
                .trim_end()
                .to_string()
        }
    }
}
