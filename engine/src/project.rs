//! The files analyzed together (the command line's FILE arguments, or a workspace):
//! each is loaded and split into units, every unit is parsed, and units are lowered
//! hosts and used modules first, so that each sees the declarations and constants of
//! its host and of the modules it uses, wherever in the inputs they are.

use crate::diagnostics::Diagnostic;
use crate::distribution::{self, UnitMappings};
use crate::freq::calls::{self, Runs, UnitInfo};
use crate::freq::{Assumption, FreqOptions, UnitFrequencies, frequencies};
use crate::ir::consteval::fold_constants;
use crate::ir::{Expr, StmtId, StmtKind, SymbolTable, Unit, UnitKind, Use};
use crate::source::{LoadError, SourceFile};
use crate::span::Span;
use crate::syntax::lower::{ParsedUnit, Scope, lower};
use crate::syntax::{UnitChunk, split_units};
use crate::work::{UnitWork, imbalance, unit_work};
use std::collections::{BTreeMap, HashMap};

/// One file, loaded and lowered.
pub struct FileAnalysis {
    pub source: SourceFile,
    pub units: Vec<UnitAnalysis>,
    /// File-level findings; spans are offsets into the normalized text.
    pub diagnostics: Vec<Diagnostic>,
}

/// One unit of a file.
pub struct UnitAnalysis {
    /// Where the unit is in the file's normalized text.
    pub chunk: UnitChunk,
    /// Spans in here are relative to `chunk.range.start`.
    pub unit: Unit,
    /// The values of the integer names the unit sees: its PARAMETERs, its host's and its
    /// modules', and the user's bindings of names it mentions.
    pub constants: BTreeMap<String, i64>,
    /// How often each statement and loop runs per run of the unit.
    pub freqs: UnitFrequencies,
    /// How often the unit runs in the program.
    pub runs: Runs,
    /// How its arrays are distributed.
    pub mappings: UnitMappings,
    /// work(S, p) of its assignments.
    pub work: UnitWork,
    /// wd of the unit (Definition 4.3, calls weighted by their callee's wd).
    pub wd: Option<f64>,
    /// wd of each loop.
    pub loop_wd: HashMap<StmtId, f64>,
}

impl UnitAnalysis {
    /// A unit-relative span as an offset range in the file's normalized text.
    pub fn absolute(&self, span: Span) -> Span {
        span.shifted(self.chunk.range.start)
    }

    /// The value of an integer name the unit sees, if it has one.
    pub fn value_of(&self, name: &str) -> Option<i128> {
        self.constants.get(name).map(|v| *v as i128)
    }
}

/// Modules every Fortran or HPF system provides: using them is not a missing input.
const INTRINSIC_MODULES: &[&str] = &[
    "mpi",
    "mpi_f08",
    "iso_c_binding",
    "iso_fortran_env",
    "ieee_arithmetic",
    "ieee_exceptions",
    "ieee_features",
    "omp_lib",
    "omp_lib_kinds",
    "openacc",
    "hpf_library",
    "hpf_local_library",
];

/// How to analyze.
#[derive(Clone, Debug)]
pub struct Options {
    /// The user's bindings of program unknowns (lower-case names).
    pub bindings: BTreeMap<String, i64>,
    pub freq: FreqOptions,
    /// wd above which a statement is reported as imbalanced (DESIGN.md section 7).
    pub imbalance_threshold: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            bindings: BTreeMap::new(),
            freq: FreqOptions::default(),
            imbalance_threshold: 0.25,
        }
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

/// Loads and lowers `inputs` (path, contents) as one program and analyzes every unit.
/// A file that cannot be loaded (binary input) yields its error in place of its analysis.
pub fn analyze_with(
    inputs: &[(String, Vec<u8>)],
    options: &Options,
) -> Vec<Result<FileAnalysis, LoadError>> {
    let bindings = &options.bindings;
    let mut files: Vec<Result<Loaded, LoadError>> = inputs
        .iter()
        .map(|(path, bytes)| SourceFile::new(path, bytes, None).map(Loaded::new))
        .collect();

    let mut modules: HashMap<String, (usize, usize)> = HashMap::new();
    for (f, file) in files.iter_mut().enumerate() {
        let Ok(file) = file else { continue };
        for u in 0..file.parsed.len() {
            let parsed = &file.parsed[u];
            if parsed.kind != UnitKind::Module {
                continue;
            }
            if modules.contains_key(&parsed.name) {
                let message = format!(
                    "module `{}` is defined more than once; the first definition is used",
                    parsed.name
                );
                let at = header(&file.chunks[u], file.source.normalized());
                file.diagnostics
                    .push(Diagnostic::warning(at, "duplicate-module", message));
            } else {
                modules.insert(parsed.name.clone(), (f, u));
            }
        }
    }

    let mut resolver = Resolver {
        files: &files,
        modules: &modules,
        bindings,
        lowered: files
            .iter()
            .map(|f| {
                f.as_ref()
                    .map_or(Vec::new(), |f| vec![None; f.parsed.len()])
            })
            .collect(),
        exports: HashMap::new(),
    };
    for (f, file) in files.iter().enumerate() {
        if let Ok(file) = file {
            for u in 0..file.parsed.len() {
                resolver.lower((f, u));
            }
        }
    }
    let mut lowered = resolver.lowered;
    count_everything(&mut lowered, options);

    files
        .into_iter()
        .enumerate()
        .map(|(f, file)| {
            let file = file?;
            let units = file
                .chunks
                .into_iter()
                .zip(lowered[f].iter_mut().map(Option::take))
                .filter_map(|(chunk, done)| {
                    let done = done?;
                    Some(UnitAnalysis {
                        chunk,
                        unit: done.unit,
                        constants: done.constants,
                        freqs: done.freqs,
                        runs: done.runs?,
                        mappings: done.mappings,
                        work: done.work,
                        wd: done.wd,
                        loop_wd: done.loop_wd,
                    })
                })
                .collect();
            Ok(FileAnalysis {
                source: file.source,
                units,
                diagnostics: file.diagnostics,
            })
        })
        .collect()
}

/// A file split and parsed, before lowering.
struct Loaded {
    source: SourceFile,
    chunks: Vec<UnitChunk>,
    parsed: Vec<ParsedUnit>,
    diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    fn new(source: SourceFile) -> Loaded {
        let text = source.normalized();
        let (chunks, split_diagnostics) = split_units(text);
        let parsed = chunks
            .iter()
            .map(|c| ParsedUnit::parse(c.kind, c.name.clone(), c.text(text)))
            .collect();
        let mut diagnostics = source.diagnostics().to_vec();
        diagnostics.extend(split_diagnostics);
        if chunks.is_empty() {
            diagnostics.push(Diagnostic::info(
                Span::default(),
                "empty",
                "no program unit in this file",
            ));
        }
        Loaded {
            source,
            chunks,
            parsed,
            diagnostics,
        }
    }
}

fn header(chunk: &UnitChunk, text: &str) -> Span {
    let start = chunk.range.start as usize;
    let line = text[start..].lines().next().unwrap_or("");
    Span::new(start, start + line.trim_end().len())
}

#[derive(Clone)]
struct Lowered {
    unit: Unit,
    constants: BTreeMap<String, i64>,
    /// What the unit sees from outside (kept to build what its contained units see).
    scope: Scope,
    freqs: UnitFrequencies,
    runs: Option<Runs>,
    mappings: UnitMappings,
    work: UnitWork,
    wd: Option<f64>,
    loop_wd: HashMap<StmtId, f64>,
}

/// Counts the statements of every unit, then how often every unit runs, then the work
/// of each processor; notes the loops whose trip count had to be assumed, the counts
/// without a closed form, and the imbalanced statements and distributions.
fn count_everything(lowered: &mut [Vec<Option<Lowered>>], options: &Options) {
    for done in lowered.iter_mut().flatten().flatten() {
        done.freqs = frequencies(&done.unit, &options.freq);
        let notes = count_notes(&done.unit, &done.freqs);
        done.unit.diagnostics.extend(notes);
        done.mappings = distribution::mappings(&done.unit);
        let constants = &done.constants;
        let env = |n: &str| constants.get(n).map(|v| *v as i128);
        done.work = unit_work(&done.unit, &done.freqs, &done.mappings, &env, &options.freq);
        let notes = done.mappings.diagnostics.clone();
        done.unit.diagnostics.extend(notes);
        let notes = imbalance::diagnostics(&done.unit, &done.work, &done.freqs, options);
        done.unit.diagnostics.extend(notes);
    }
    let all: Vec<&Lowered> = lowered.iter().flatten().flatten().collect();
    let envs: Vec<_> = all
        .iter()
        .map(|d| {
            let constants = &d.constants;
            move |n: &str| constants.get(n).map(|v| *v as i128)
        })
        .collect();
    let infos: Vec<UnitInfo> = all
        .iter()
        .zip(&envs)
        .map(|(d, env)| UnitInfo {
            unit: &d.unit,
            freqs: &d.freqs,
            env,
        })
        .collect();
    let runs = calls::runs(&infos, &options.freq);
    let works: Vec<&UnitWork> = all.iter().map(|d| &d.work).collect();
    let wds = imbalance::unit_wds(&infos, &works, &options.freq);
    let by_name: HashMap<String, f64> = all
        .iter()
        .zip(&wds)
        .filter_map(|(d, wd)| Some((d.unit.name.clone(), (*wd)?)))
        .collect();
    let callee = |n: &str| by_name.get(n).copied();
    let loop_wds: Vec<HashMap<StmtId, f64>> = infos
        .iter()
        .zip(&works)
        .map(|(u, w)| imbalance::loop_wds(u.unit, w, u.freqs, u.env, &options.freq, &callee))
        .collect();
    for (((done, runs), wd), loops) in lowered
        .iter_mut()
        .flatten()
        .flatten()
        .zip(runs)
        .zip(wds)
        .zip(loop_wds)
    {
        done.runs = Some(runs);
        done.wd = wd;
        done.loop_wd = loops;
    }
}

/// Info diagnostics on loops: a trip count assumed without a pragma, a count without
/// a closed form (its numbers come from a numeric count).
fn count_notes(unit: &Unit, freqs: &UnitFrequencies) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    unit.walk(&mut |s, _| {
        let StmtKind::Loop(l) = &s.kind else { return };
        let Some(count) = freqs.of(s.id) else { return };
        for a in &count.assumptions {
            if let Assumption::Trips { at, trips, from_pragma: false, why } = a
                && *at == l.header
            {
                out.push(Diagnostic::info(
                    l.header,
                    "unknown-trips",
                    format!("the trip count of this loop is unknown ({why}): {trips} assumed; give it with `!costline: trips N`"),
                ));
            }
        }
        if let Some(e) = count.symbolic_error() {
            out.push(Diagnostic::info(
                l.header,
                "no-closed-form",
                format!("no formula for this loop's count ({e}): its numbers come from counting for the current values"),
            ));
        }
    });
    out
}

struct Resolver<'a> {
    files: &'a [Result<Loaded, LoadError>],
    bindings: &'a BTreeMap<String, i64>,
    modules: &'a HashMap<String, (usize, usize)>,
    lowered: Vec<Vec<Option<Lowered>>>,
    /// Each module's public entities; `None` while the module is being lowered (a
    /// USE cycle).
    exports: HashMap<String, Option<SymbolTable>>,
}

impl Resolver<'_> {
    fn loaded(&self, f: usize) -> &Loaded {
        self.files[f]
            .as_ref()
            .expect("only loaded files have units")
    }

    fn lower(&mut self, (f, u): (usize, usize)) {
        if self.lowered[f][u].is_some() {
            return;
        }
        let mut scope = Scope::default();
        let mut notes = Vec::new();
        if let Some(p) = self.loaded(f).chunks[u].parent {
            self.lower((f, p));
            let host = self.lowered[f][p].as_ref().expect("just lowered");
            scope.symbols = visible(host);
        }
        for u_stmt in self.loaded(f).parsed[u].uses() {
            self.import(&u_stmt, &mut scope, &mut notes);
        }
        let files = self.files;
        let file = files[f].as_ref().expect("only loaded files have units");
        let host = file.chunks[u].parent.map(|p| file.parsed[p].name.as_str());
        let parsed = &file.parsed[u];
        let mut unit = lower(parsed, host, &scope);
        unit.diagnostics.extend(notes);
        let bindings = self.bindings;
        let outer = |n: &str| {
            scope
                .symbols
                .get(n)
                .and_then(|s| s.value.as_ref()?.as_int())
        };
        let mut constants: BTreeMap<String, i64> = scope
            .symbols
            .values()
            .filter_map(|s| Some((s.name.clone(), s.value.as_ref()?.as_int()?)))
            .filter(|(n, _)| !unit.symbols.contains_key(n))
            .collect();
        constants.extend(fold_constants(&unit, &outer, bindings));
        for (name, value) in bindings {
            if let Some(sym) = unit.symbols.get(name).filter(|s| s.attrs.parameter) {
                unit.diagnostics.push(Diagnostic::info(
                    sym.span,
                    "binding",
                    format!("--param {name}={value} overrides the PARAMETER value of `{name}`"),
                ));
            }
            if mentions(&parsed.text, name) {
                constants.insert(name.clone(), *value);
            }
        }
        self.lowered[f][u] = Some(Lowered {
            unit,
            constants,
            scope,
            freqs: UnitFrequencies::default(),
            runs: None,
            mappings: UnitMappings::default(),
            work: UnitWork::default(),
            wd: None,
            loop_wd: HashMap::new(),
        });
    }

    /// Makes the entities of `used.module` visible in `scope` (ONLY lists and renames
    /// applied), or notes why it cannot.
    fn import(&mut self, used: &Use, scope: &mut Scope, notes: &mut Vec<Diagnostic>) {
        let Some(exports) = self.exports(&used.module, used.span, notes) else {
            return;
        };
        for (remote, sym) in exports {
            if let Some(local) = used.local_name(&remote) {
                let mut sym = sym;
                sym.name = local.to_string();
                scope.symbols.insert(local.to_string(), sym);
            }
        }
    }

    fn exports(
        &mut self,
        module: &str,
        at: Span,
        notes: &mut Vec<Diagnostic>,
    ) -> Option<SymbolTable> {
        match self.exports.get(module) {
            Some(Some(e)) => return Some(e.clone()),
            Some(None) => {
                notes.push(Diagnostic::warning(
                    at,
                    "use-cycle",
                    format!("module `{module}` uses itself (directly or through other modules)"),
                ));
                return None;
            }
            None => {}
        }
        let Some(&loc) = self.modules.get(module) else {
            if !INTRINSIC_MODULES.contains(&module) {
                notes.push(Diagnostic::info(
                    at,
                    "unresolved-module",
                    format!(
                        "module `{module}` is not among the inputs: its constants and arrays are unknown (give its file on the command line)"
                    ),
                ));
            }
            return None;
        };
        self.exports.insert(module.to_string(), None);
        self.lower(loc);
        let done = self.lowered[loc.0][loc.1].as_ref().expect("just lowered");
        let e = visible(done);
        self.exports.insert(module.to_string(), Some(e.clone()));
        Some(e)
    }
}

/// Whether `name` (lower-case) occurs as a whole word in `text`, directives included.
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let lower = text.to_ascii_lowercase();
    lower.match_indices(name).any(|(i, _)| {
        let before = lower[..i].chars().next_back().is_none_or(|c| !word(c));
        let after = lower[i + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !word(c));
        before && after
    })
}

/// Everything a unit makes visible to its contained procedures (or, for a module, to
/// its users): its scope and its own entities, constants replaced by their values.
fn visible(done: &Lowered) -> SymbolTable {
    let mut symbols = done.scope.symbols.clone();
    for (name, sym) in &done.unit.symbols {
        let mut sym = sym.clone();
        if let Some(v) = done.constants.get(name) {
            sym.value = Some(Expr::Int(*v));
        }
        symbols.insert(name.clone(), sym);
    }
    symbols
}
