//! The files analyzed together (the command line's FILE arguments, or a workspace) and
//! what the analysis found in each: the view the CLI's reports and the language
//! server's surfaces are built from. The results come from the incremental database
//! ([`crate`]); this module assembles them per file.

use crate::{Analysis, Cancellable, CompilerOutput, Database, File, Options, UnitText};
use costline_model::cache::UnitCache;
use costline_model::comm::ranks::MpiRanks;
use costline_model::comm::skeleton::ProgramRun;
use costline_model::comm::{CommMetrics, UnitCommValues};
use costline_model::distribution::UnitMappings;
use costline_model::freq::UnitFrequencies;
use costline_model::freq::calls::Runs;
use costline_model::time::UnitTimes;
use costline_model::work::{UnitFormulas, UnitValues, UnitWork};
use costline_syntax::UnitChunk;
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::{StmtId, Unit, UnitKind};
use costline_syntax::source::{LoadError, SourceFile};
use costline_syntax::span::Span;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// One file, loaded and analyzed.
pub struct FileAnalysis {
    pub source: Arc<SourceFile>,
    pub units: Vec<UnitAnalysis>,
    /// File-level findings; spans are offsets into the normalized text.
    pub diagnostics: Vec<Diagnostic>,
}

/// One unit of a file.
pub struct UnitAnalysis {
    /// Where the unit is in the file's normalized text.
    pub chunk: UnitChunk,
    /// Spans in here are offsets into the unit's own text ([`UnitChunk::text`]).
    pub unit: Arc<Unit>,
    /// The values of the integer names the unit sees: its PARAMETERs, its host's and its
    /// modules', the user's bindings of names it mentions, its callers' and a profile's.
    pub constants: Arc<crate::analysis::Constants>,
    /// How often each statement and loop runs per run of the unit, as formulas...
    pub freqs: Arc<UnitFrequencies>,
    /// ...and the numbers under the bindings: counts and the work of every processor.
    pub values: Arc<UnitValues>,
    /// How often the unit runs in the program.
    pub runs: Runs,
    /// How its arrays are distributed.
    pub mappings: Arc<UnitMappings>,
    /// How the work of its assignments is spread...
    pub work: Arc<UnitWork>,
    /// ...and work(S, p) as formulas, when asked for ([`Detail::Formulas`]).
    pub formulas: Option<Arc<UnitFormulas>>,
    /// wd of the unit (Definition 4.3, calls weighted by their callee's wd).
    pub wd: Option<f64>,
    /// wd of each loop.
    pub loop_wd: Arc<HashMap<StmtId, f64>>,
    /// The communication of every assignment under the bindings: records, NT, TD, TT.
    pub comm: Arc<UnitCommValues>,
    /// Its MPI calls rank by rank (none when it makes none), or why they cannot be.
    pub mpi_ranks: Arc<Option<Result<MpiRanks, String>>>,
    /// For the main program of an MPI program: the program's run on every process
    /// (see [`crate::mpi_run`]), or why there is none.
    pub mpi_run: Arc<Option<Result<ProgramRun, String>>>,
    /// What its calls communicate per run of the unit, by calling statement.
    pub call_comm: HashMap<StmtId, CommMetrics>,
    /// The cache lines its calls load per run of the unit, by calling statement.
    pub call_lines: HashMap<StmtId, f64>,
    /// Its calls of `EXTRINSIC(HPF_LOCAL)` procedures: the assignments each processor
    /// executes in its part per run of the unit.
    pub call_local: HashMap<StmtId, Vec<f64>>,
    /// Computation, communication and predicted time of its statements, loops and of
    /// the unit, per run, on the machine.
    pub times: Arc<UnitTimes>,
    /// What the compiler does with each innermost DO loop (vectorized or why not).
    pub vector: Arc<HashMap<StmtId, costline_model::time::vectorize::Verdict>>,
    /// The cache lines of every loop nest on the machine.
    pub cache: Arc<UnitCache>,
    /// Everything the analysis says about the unit (spans relative to its text).
    pub diagnostics: Arc<Vec<Diagnostic>>,
    /// What its figures leave out, by statement and as a whole (calls include their
    /// callees').
    pub missing: Arc<crate::UnitMissing>,
}

impl UnitAnalysis {
    /// A span of the unit's own text as an offset range in the file's normalized text.
    pub fn absolute(&self, span: Span) -> Span {
        self.chunk.file_span(span)
    }

    /// A statement's communication per run of the unit: its own (Definition 4.4) plus
    /// what the procedures it calls communicate.
    pub fn stmt_comm(&self, id: StmtId) -> Option<CommMetrics> {
        match (self.comm.metrics(id), self.call_comm.get(&id)) {
            (Some(own), Some(calls)) => Some(own.plus(calls, 1.0)),
            (own, calls) => own.or(calls.copied()),
        }
    }

    /// The value of an integer name the unit sees, if it has one.
    pub fn value_of(&self, name: &str) -> Option<i128> {
        self.constants.values.get(name).map(|v| *v as i128)
    }
}

/// [`analyze_with`] default options and `bindings`.
pub fn analyze(
    inputs: &[(String, Vec<u8>)],
    bindings: &BTreeMap<String, i64>,
) -> Vec<Result<FileAnalysis, LoadError>> {
    let options = Options {
        bindings: bindings.clone(),
        ..Options::default()
    };
    analyze_with(inputs, &options)
}

/// Loads `inputs` (path, contents) as one program and analyzes every unit, all held
/// at once (a [`Project`] visits them one at a time instead). A file that cannot be
/// loaded (binary input) yields its error in place of its analysis.
pub fn analyze_with(
    inputs: &[(String, Vec<u8>)],
    options: &Options,
) -> Vec<Result<FileAnalysis, LoadError>> {
    let mut project = Project::load(inputs, options);
    (0..inputs.len())
        .map(|i| {
            let head = project.head(i)?;
            let mut units = Vec::new();
            project.visit_units(i, Detail::Formulas, &mut |u| units.push(u));
            Ok(FileAnalysis {
                source: head.source,
                units,
                diagnostics: head.diagnostics,
            })
        })
        .collect()
}

/// Units analysed at once between two evictions of the bulky intermediate results (at
/// most half of what each query keeps, its `lru` capacity: a batch never evicts its
/// own results).
const BATCH: usize = 128;

/// A program loaded for a cold analysis of all of it (the CLI's), visited a file and a
/// unit at a time in bounded memory: the bulky symbolic intermediates of one batch of
/// units ([`BATCH`]) at most are held at once, the compact results of all of them.
/// Each batch is analysed on every core.
pub struct Project {
    host: crate::AnalysisHost,
    files: Vec<File>,
}

/// A loaded file, without its units.
pub struct FileHead {
    pub source: Arc<SourceFile>,
    /// File-level findings; spans are offsets into the normalized text.
    pub diagnostics: Vec<Diagnostic>,
}

impl Project {
    /// Loads `inputs` (path, contents) as one program: every unit lowered (the call
    /// graph reads them all) and summarized (the whole-program fold reads them all).
    /// Nothing here changes the database, so nothing cancels the work.
    pub fn load(inputs: &[(String, Vec<u8>)], options: &Options) -> Project {
        Project::load_with_compiler(inputs, &BTreeMap::new(), options)
    }

    /// [`Project::load`] with what the compiler said about some of the files (by path:
    /// `check --ask-compiler`).
    pub fn load_with_compiler(
        inputs: &[(String, Vec<u8>)],
        compiler: &BTreeMap<String, CompilerOutput>,
        options: &Options,
    ) -> Project {
        let mut host = crate::AnalysisHost::new(options, None);
        let files = inputs
            .iter()
            .map(|(path, bytes)| {
                let file = host.add_file(path, bytes.clone());
                host.set_compiler_output(path, compiler.get(path).cloned());
                file
            })
            .collect();
        let mut project = Project { host, files };
        let snapshot = project.host.snapshot();
        let count = crate::workspace_unit_count(snapshot.db());
        let _ = snapshot.on_each(count, &|db, i| crate::warm_lowering(db, i));
        drop(snapshot);
        for start in (0..count).step_by(BATCH) {
            let end = (start + BATCH).min(count);
            project.batch(end - start, &|db, i| crate::warm_summary(db, start + i));
        }
        project
    }

    /// File `index` of the inputs as loaded, or why it could not be.
    pub fn head(&self, index: usize) -> Result<FileHead, LoadError> {
        file_head(&self.host.db, self.files[index])
    }

    /// Hands the analysis of every unit of file `index` to `visit`, in file order.
    pub fn visit_units(
        &mut self,
        index: usize,
        detail: Detail,
        visit: &mut dyn FnMut(UnitAnalysis),
    ) {
        self.visit_units_prepared(index, detail, &|_| (), &mut |u, ()| visit(u));
    }

    /// Hands the analysis of every unit of file `index` to `visit`, in file order, with
    /// what `prepare` made of it: `prepare` runs on every core (a unit's report, built
    /// while the next units are analysed), each thread taking the next unit not yet
    /// taken; `visit` runs on the caller's thread as soon as a unit's turn comes.
    pub fn visit_units_prepared<T: Send>(
        &mut self,
        index: usize,
        detail: Detail,
        prepare: &(dyn Fn(&UnitAnalysis) -> T + Sync),
        visit: &mut dyn FnMut(UnitAnalysis, T),
    ) {
        let file = self.files[index];
        let count = crate::file_units(&self.host.db, file)
            .as_ref()
            .map_or(0, |f| f.units.len());
        for start in (0..count).step_by(BATCH) {
            let batch = start..(start + BATCH).min(count);
            let analyse = |db: &Database, i: usize| {
                let f = crate::file_units(db, file).as_ref().ok()?;
                let u = unit_analysis(db, f.chunks.get(i)?, *f.units.get(i)?, detail);
                let made = prepare(&u);
                Some((u, made))
            };
            let (done, arrived) = std::sync::mpsc::channel();
            let snapshot = self.host.snapshot();
            // The units visited in order while the rest are analysed; the first one
            // that did not arrive (cancelled, failed) and those after it are made here.
            let mut turn = batch.start;
            let (first, len, analyse) = (batch.start, batch.len(), &analyse);
            std::thread::scope(|scope| {
                // The channel closes when this thread is done with the sender.
                scope.spawn(move || {
                    let each = std::panic::AssertUnwindSafe(|db: &Database, j: usize| {
                        if let Some(made) = analyse(db, first + j) {
                            let _ = done.send((first + j, made));
                        }
                    });
                    let _ = snapshot.on_each(len, &|db, j| (*each)(db, j));
                });
                let mut waiting = std::collections::BTreeMap::new();
                for (i, made) in arrived.iter() {
                    waiting.insert(i, made);
                    while let Some((u, made)) = waiting.remove(&turn) {
                        visit(u, made);
                        turn += 1;
                    }
                }
            });
            for i in turn..batch.end {
                if let Some((u, made)) = analyse(&self.host.db, i) {
                    visit(u, made);
                }
            }
            self.host.evict();
        }
    }

    /// Runs `work(db, i)` for i = 0..count on every core ([`crate::Analysis::on_each`]),
    /// then drops the bulky intermediates beyond their capacity.
    fn batch(
        &mut self,
        count: usize,
        work: &(dyn Fn(&Database, usize) + Sync + std::panic::RefUnwindSafe),
    ) {
        let _ = self.host.snapshot().on_each(count, work);
        self.host.evict();
    }
}

/// How much of the analysis to assemble.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// The numbers: counts and work under the bindings, wd, diagnostics.
    Numbers,
    /// The numbers and the work formulas (slower: a symbolic sum per assignment).
    Formulas,
}

/// The analysis of `file`, assembled from the database's queries.
pub fn file_analysis(db: &Database, file: File, detail: Detail) -> Result<FileAnalysis, LoadError> {
    let head = file_head(db, file)?;
    let units = crate::file_units(db, file)
        .as_ref()
        .map_or(Vec::new(), |f| {
            f.chunks
                .iter()
                .zip(&f.units)
                .map(|(chunk, &u)| unit_analysis(db, chunk, u, detail))
                .collect()
        });
    Ok(FileAnalysis {
        source: head.source,
        units,
        diagnostics: head.diagnostics,
    })
}

/// `file` as loaded, with its file-level findings, or why it could not be loaded.
fn file_head(db: &Database, file: File) -> Result<FileHead, LoadError> {
    let f = crate::file_units(db, file)
        .as_ref()
        .map_err(|e| e.0.clone())?;
    let mut diagnostics = f.diagnostics.clone();
    diagnostics.extend(crate::duplicate_modules(db, file));
    Ok(FileHead {
        source: f.source.clone(),
        diagnostics,
    })
}

/// The analysis of one unit of a file, assembled from the database's queries.
fn unit_analysis(
    db: &Database,
    chunk: &UnitChunk,
    u: UnitText<'_>,
    detail: Detail,
) -> UnitAnalysis {
    let context = crate::context(db, u);
    UnitAnalysis {
        chunk: chunk.clone(),
        unit: crate::lower(db, u),
        constants: crate::constants(db, u),
        freqs: crate::freqs(db, u),
        values: crate::values(db, u),
        runs: context.runs.clone(),
        mappings: crate::mappings(db, u),
        work: crate::work(db, u),
        formulas: (detail == Detail::Formulas).then(|| crate::work_formulas(db, u)),
        wd: context.wd,
        loop_wd: crate::loop_wds(db, u),
        comm: crate::comm_values(db, u),
        mpi_ranks: crate::mpi_ranks(db, u),
        mpi_run: if u.kind(db) == UnitKind::Program {
            crate::mpi_run(db)
        } else {
            Arc::new(None)
        },
        call_comm: context.call_comm.clone(),
        call_lines: context.call_lines.clone(),
        call_local: context.call_local.clone(),
        times: crate::times(db, u),
        vector: crate::vector_verdicts(db, u),
        cache: crate::cache(db, u),
        diagnostics: crate::unit_diagnostics(db, u),
        missing: crate::unit_missing(db, u),
    }
}

impl Analysis {
    /// The analysis of the file at `path`; `None` when it is not in the workspace.
    pub fn file(
        &self,
        path: &str,
        detail: Detail,
    ) -> Cancellable<Option<Result<FileAnalysis, LoadError>>> {
        let Some(file) = self.file_id(path) else {
            return Ok(None);
        };
        self.with_db(|db| Some(file_analysis(db, file, detail)))
    }
}
