//! The database's inputs: what the user wrote and how they asked to analyze it.

use super::profile::Profile;
use costline_model::freq::FreqOptions;
use costline_model::machine::{Catalog, Machine};
use costline_model::time::compiler_report::Report;
use costline_syntax::UnitChunk;
use costline_syntax::source::{Defines, IncludeName, SourceFile};
use salsa::Setter;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// One source file: its path (which also decides fixed or free form), its bytes, and
/// where the files it includes were found (set by the host, which reads them).
#[salsa::input(debug)]
pub struct File {
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub bytes: Vec<u8>,
    #[default]
    #[returns(ref)]
    pub includes: Includes,
    /// What the compiler said about the file's loops, when the driver asked it
    /// ([`CompilerOutput`]; `None`: not asked).
    #[default]
    #[returns(ref)]
    pub compiler_output: Option<Arc<CompilerOutput>>,
    /// Where `file_units` keeps its load and split of the current bytes, for the next
    /// edit (a new cell with each change of the bytes).
    #[default]
    #[returns(ref)]
    pub split: Arc<SplitCell>,
    /// The load and split of the bytes before the last change, when they were made:
    /// what the split after an edit starts from (`costline_syntax::resplit`).
    #[default]
    #[returns(ref)]
    pub previous: Option<Previous>,
}

/// The split of a file's bytes before its last change, and where the change was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Previous {
    pub split: Split,
    /// The lengths of the common prefix and suffix of the bytes before and after the
    /// change (`costline_syntax::text_edit::common_ends`).
    pub ends: (usize, usize),
}

/// A file's text as loaded and split into units, without findings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    pub source: Arc<SourceFile>,
    pub chunks: Arc<Vec<UnitChunk>>,
}

/// The [`Split`] of a file's current bytes, once `file_units` made it. Filling it is
/// the one side effect of a query: it caches a value every computation gives alike.
#[derive(Debug, Default)]
pub struct SplitCell(Mutex<Option<Split>>);

impl SplitCell {
    pub fn get(&self) -> Option<Split> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn set(&self, split: Split) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(split);
    }
}

/// The compiler's vectorization report of a file (`-fopt-info-vec-all`), and what it
/// was made from: the file's bytes (their [`content_hash`]) and the compiler command
/// and flags it was run with ([`compiler_command`]). It answers for the file only as
/// long as both are still those in force.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompilerOutput {
    pub content: u64,
    pub compiler: String,
    /// The report, or why there is none (the file does not compile alone: the first
    /// error, `line 4: Fatal Error: Cannot open module file ...`).
    pub report: Result<Arc<Report>, String>,
}

/// The identity of a file's bytes that a [`CompilerOutput`] names (SipHash of the
/// bytes: the same in every run of one build).
pub fn content_hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// The compiler command and flags the program is built with, words separated by one
/// space: `setting` (`--compiler`, `compiler` in costline.toml), else gfortran with
/// the flags `machine` was trained with, else `gfortran -O2`; then a `-DNAME=VALUE`
/// for each of `defines` (the macros its preprocessor is given).
pub fn compiler_command(setting: Option<&str>, machine: &Machine, defines: &Defines) -> String {
    let text = match setting {
        Some(s) if !s.trim().is_empty() => s.to_string(),
        _ => {
            let flags = machine
                .training
                .as_ref()
                .map_or("-O2", |t| t.flags.as_str());
            format!("gfortran {flags}")
        }
    };
    let mut words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    words.extend(
        defines
            .iter()
            .map(|(name, value)| format!("-D{name}={value}")),
    );
    words.join(" ")
}

/// How the host resolved each name a file's INCLUDE lines could ask for.
pub type Includes = BTreeMap<IncludeName, Resolution>;

/// Where an included file was found.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Resolution {
    /// This file (an input like any other).
    Found(File),
    /// Nowhere: the directories searched, in order.
    Missing { searched: Vec<String> },
    /// At `path`, which cannot be read.
    Unreadable { path: String, error: String },
}

/// The files analyzed together, in order: modules are found in any of them.
#[salsa::input(singleton, debug)]
pub struct Workspace {
    #[returns(ref)]
    pub files: Vec<File>,
}

/// How to analyze.
#[derive(Clone, Debug)]
pub struct Options {
    /// The user's bindings of program unknowns (lower-case names).
    pub bindings: BTreeMap<String, i64>,
    pub freq: FreqOptions,
    /// wd above which a statement is reported as imbalanced (DESIGN.md section 7).
    pub imbalance_threshold: f64,
    /// The share of its unit's predicted time below which a statement earns no
    /// imbalance or communication finding (DESIGN.md section 7, `findingShare`).
    pub finding_share: f64,
    /// The machine model every time is priced from.
    pub machine: Arc<Machine>,
    /// Where included files are searched after the including file's directory, in
    /// order (`--include DIR`, `include` in costline.toml).
    pub include_dirs: Vec<PathBuf>,
    /// The directories INCLUDE may read files under, besides `include_dirs` (the
    /// workspace: untrusted text must not read `/etc/passwd`); `None`: anywhere.
    pub include_roots: Option<Vec<PathBuf>>,
    /// The line length of fixed-form files without a `!costline: fixed-form N` pragma
    /// (`--fixed-line-length`, `fixedLineLength` in costline.toml; compilers' extended
    /// lines, `-ffixed-line-length-132`); `None`: the standard 72.
    pub fixed_line_length: Option<usize>,
    /// The compiler command and flags the program is built with (`gfortran -O3
    /// -march=native`: `--compiler`, `compiler` in costline.toml); `None`: the flags the
    /// machine model was trained with.
    pub compiler: Option<String>,
    /// The macros defined for the preprocessor (`--define NAME[=VALUE]`, `defines` in
    /// costline.toml and the editor's settings): they choose the branches of `#if`.
    pub defines: Defines,
    /// What a profile run measured (`check --profile PATH`); `None`: every branch
    /// probability and unknown trip count assumed.
    pub profile: Option<Arc<Profile>>,
}

impl Options {
    /// The compiler command and flags these options build with ([`compiler_command`]).
    pub fn compiler_command(&self) -> String {
        compiler_command(self.compiler.as_deref(), &self.machine, &self.defines)
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            bindings: BTreeMap::new(),
            freq: FreqOptions::default(),
            imbalance_threshold: 0.25,
            // A few percent: a boundary row's imbalance or a setup statement's messages
            // do not earn a finding; `findingShare = 0` shows every one.
            finding_share: 0.02,
            machine: Arc::new(Catalog::default_machine()),
            include_dirs: Vec::new(),
            include_roots: None,
            fixed_line_length: None,
            compiler: None,
            defines: Defines::new(),
            profile: None,
        }
    }
}

/// How to analyze: one field per setting, so that changing one re-runs only its readers.
#[salsa::input(singleton, debug)]
pub struct Settings {
    /// The user's bindings of program unknowns (lower-case names).
    #[returns(ref)]
    pub bindings: BTreeMap<String, i64>,
    #[returns(ref)]
    pub freq: FreqOptions,
    /// wd above which a statement is reported as imbalanced.
    #[returns(copy)]
    pub imbalance_threshold: f64,
    /// The share of its unit's time below which a statement earns no finding.
    #[returns(copy)]
    pub finding_share: f64,
    /// The machine model times are priced from.
    #[returns(ref)]
    pub machine: Arc<Machine>,
    /// The line length of fixed-form files without a pragma of their own.
    #[returns(copy)]
    pub fixed_line_length: Option<usize>,
    /// The compiler command and flags the program is built with.
    #[returns(ref)]
    pub compiler: Option<String>,
    /// The macros defined for the preprocessor.
    #[returns(ref)]
    pub defines: Defines,
    /// What a profile run measured.
    #[returns(ref)]
    pub profile: Option<Arc<Profile>>,
}

impl Settings {
    pub(super) fn defaults(db: &dyn salsa::Database) -> Settings {
        let o = Options::default();
        Settings::new(
            db,
            o.bindings,
            o.freq,
            o.imbalance_threshold,
            o.finding_share,
            o.machine,
            o.fixed_line_length,
            o.compiler,
            o.defines,
            o.profile,
        )
    }

    /// Sets the fields of `options` that differ from the current ones (an equal value
    /// set again would still start a new revision).
    pub(super) fn update(self, db: &mut dyn salsa::Database, options: &Options) {
        if *self.bindings(db) != options.bindings {
            self.set_bindings(db).to(options.bindings.clone());
        }
        if *self.freq(db) != options.freq {
            self.set_freq(db).to(options.freq.clone());
        }
        if self.imbalance_threshold(db) != options.imbalance_threshold {
            self.set_imbalance_threshold(db)
                .to(options.imbalance_threshold);
        }
        if self.finding_share(db) != options.finding_share {
            self.set_finding_share(db).to(options.finding_share);
        }
        if *self.machine(db) != options.machine {
            self.set_machine(db).to(options.machine.clone());
        }
        if self.fixed_line_length(db) != options.fixed_line_length {
            self.set_fixed_line_length(db).to(options.fixed_line_length);
        }
        if *self.compiler(db) != options.compiler {
            self.set_compiler(db).to(options.compiler.clone());
        }
        if *self.defines(db) != options.defines {
            self.set_defines(db).to(options.defines.clone());
        }
        if *self.profile(db) != options.profile {
            self.set_profile(db).to(options.profile.clone());
        }
    }
}
