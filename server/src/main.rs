//! `costline`: performance hints for HPF and Fortran+MPI programs, as a CLI and a
//! language server.

mod ask_compiler;
mod check;
mod child;
mod compare;
mod config;
mod coverage;
mod diff;
mod lsp;
mod machines;
mod profile;
mod sarif;
mod scratch;
mod sources;
mod stdout;
mod text;
mod train;

use clap::{Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

/// jemalloc, not glibc's allocator: glibc keeps what a long editing session frees in
/// its arenas, so the server's resident size only climbs (to 220 MB over 2,000 edits
/// of a fuzz session whose documents were restored, against 90 MB with jemalloc).
/// jemalloc's background thread returns freed pages after a second
/// (`JEMALLOC_SYS_WITH_MALLOC_CONF` in `.cargo/config.toml`). It is the C code's
/// `malloc` too (`unprefixed_malloc_on_supported_platforms`): tree-sitter's trees
/// fragmented glibc's arenas, ~40 MB of resident size above what jemalloc held.
#[cfg(all(target_os = "linux", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    name = "costline",
    version,
    about = "Predicts how data-parallel Fortran performs on distributed-memory machines"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Analyze Fortran/HPF files and print a report per program unit.
    Check(CheckCommand),
    /// How much of the program the files make up costline understood: statements read
    /// and counted, work vectors, communication records, MPI calls priced, complete
    /// units.
    Coverage(CoverageCommand),
    /// Run the language server on stdin/stdout (for editors).
    Serve {
        /// Accepted and ignored: stdio is the only transport (language clients such as
        /// vscode-languageclient append it).
        #[arg(long)]
        stdio: bool,
    },
    /// List the machine models: the shipped ones and those in the machine directories.
    Machines {
        /// Output format (`json`: versioned, for scripts and editors).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Measure this machine (operation costs, memory, MPI) into a machine model.
    Train(train::TrainArgs),
    /// The change in predicted time, communication and wd per unit from BASE to HEAD
    /// (each a `check --format json` report, a Fortran file or a directory of them),
    /// for a pull-request comment.
    Diff(diff::DiffArgs),
    /// Compare each DISTRIBUTE with its alternatives over problem sizes and processor
    /// counts: predicted times, crossing points, an SVG plot.
    Compare(compare::CompareArgs),
    /// Run the program once, built with counters, to measure the branch probabilities
    /// and trip counts the analysis would assume; `check --profile` reads the result
    /// (`.costline/profile.json`).
    Profile(profile::ProfileArgs),
}

#[derive(clap::Args)]
struct CheckCommand {
    #[command(flatten)]
    args: CheckArgs,
    /// Output format: the report as text, as JSON (DESIGN.md section 5) or as SARIF
    /// 2.1.0 (the findings, for code-scanning dashboards).
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    format: CheckFormat,
    /// Exit with status 3 when a finding is of this severity or above (`error`,
    /// `warning`, `info`, `hint`) or has this code (`imbalance`, ...): for CI
    /// (repeatable, or comma-separated).
    #[arg(long = "fail-on", value_name = "SEVERITY|CODE", value_delimiter = ',', value_parser = check::FailOn::parse)]
    fail_on: Vec<check::FailOn>,
    /// Run the compiler (`--compiler`, else gfortran with the machine model's training
    /// flags) on each file first and take which loops it vectorizes, and how wide, from
    /// its own report (gfortran's -fopt-info-vec-all) instead of costline's model of
    /// its rules. A file it cannot compile alone keeps the rules (a note on stderr says
    /// why). JSON loops say which in `compiler.source`. Off by default, so that the
    /// report does not depend on the compilers installed.
    #[arg(long)]
    ask_compiler: bool,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Fortran sources (free form .f90/.F90/...; fixed form .f/.for/.F/...), analyzed together:
    /// a module's constants reach every file that uses it. A directory stands for the
    /// Fortran files under it (as git sees the tree: `.gitignore` is honoured). None:
    /// the `sourceDirs` of the project's costline.toml (else its root).
    files: Vec<String>,
    #[command(flatten)]
    analysis: AnalysisFlags,
}

/// How to analyze: the flags `check`, `coverage` and `diff` share, over costline.toml.
#[derive(clap::Args)]
struct AnalysisFlags {
    /// Bind a program unknown, e.g. `--param N=1000` (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<(String, i64)>,
    /// The machine model to price times on: a shipped or installed model's name (see
    /// `costline machines`) or the path of a machine file.
    #[arg(long, value_name = "NAME|PATH")]
    machine: Option<String>,
    /// wd (work distribution goodness) above which an assignment is reported as
    /// imbalanced [default: 0.25, or `imbalanceThreshold` in costline.toml].
    #[arg(long, value_name = "WD", value_parser = parse_threshold)]
    imbalance_threshold: Option<f64>,
    /// The share of its unit's predicted time below which a statement earns no
    /// imbalance or communication finding, in [0, 1]; 0 reports every one
    /// [default: 0.02, or `findingShare` in costline.toml].
    #[arg(long, value_name = "SHARE", value_parser = parse_share)]
    finding_share: Option<f64>,
    /// The line length of fixed-form files that name none with a `!costline:
    /// fixed-form N` pragma, 72 to 1024 (132: the extended lines of
    /// `-ffixed-line-length-132`) [default: 72, or `fixedLineLength` in costline.toml].
    #[arg(long, value_name = "COLUMNS", value_parser = parse_line_length)]
    fixed_line_length: Option<usize>,
    /// The compiler command and flags the program is built with (`"gfortran -O3
    /// -march=native"`): which loops it vectorizes, and so what they cost [default: the
    /// flags the machine model was trained with, or `compiler` in costline.toml].
    #[arg(long, value_name = "\"CMD FLAGS\"", allow_hyphen_values = true)]
    compiler: Option<String>,
    /// Let INCLUDE read files anywhere (by default only under the current directory,
    /// the project's root, the given files' directories and the include directories).
    #[arg(long)]
    include_anywhere: bool,
    /// A directory to search for INCLUDE'd files after the including file's own
    /// (repeatable; searched in order).
    #[arg(long = "include", value_name = "DIR")]
    include_dirs: Vec<std::path::PathBuf>,
    /// Define a macro for the preprocessor's conditionals (`#if`, `#ifdef`), as `-D`
    /// does for cpp (repeatable; value 1 when absent; over `defines` in costline.toml).
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]", value_parser = config::parse_define)]
    defines: Vec<(String, String)>,
    /// Leave out the Fortran files of the directories given that match this
    /// gitignore-style glob, relative to the project's root (repeatable; after
    /// `exclude` in costline.toml).
    #[arg(long = "exclude", value_name = "GLOB")]
    exclude: Vec<String>,
    /// Count with what a profile run measured (`costline profile` writes
    /// `.costline/profile.json`): its branch probabilities and trip counts replace the
    /// assumed ones in the units whose text is still the one measured.
    #[arg(long, value_name = "PATH")]
    profile: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
struct CoverageCommand {
    #[command(flatten)]
    args: CheckArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// The output formats of `coverage`, `compare` and `machines`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// The output formats of `check`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CheckFormat {
    Text,
    Json,
    Sarif,
}

/// `NAME=VALUE` with an integer value; names are case-insensitive like Fortran's.
fn parse_param(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got `{s}`"))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`{name}` is not a Fortran name"));
    }
    let value = value
        .trim()
        .parse()
        .map_err(|_| format!("`{value}` is not an integer"))?;
    Ok((name.to_ascii_lowercase(), value))
}

/// A number ≥ 0 (`--imbalance-threshold`), as the server accepts.
fn parse_threshold(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a number ≥ 0")),
    }
}

/// A share in [0, 1] (`--finding-share`).
fn parse_share(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a number in [0, 1]")),
    }
}

fn parse_line_length(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if config::FIXED_LINE_LENGTHS.contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}` is not a line length in {}..={}",
            config::FIXED_LINE_LENGTHS.start(),
            config::FIXED_LINE_LENGTHS.end()
        )),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The commands analyze on a thread with the analysis stack (see ANALYSIS_STACK).
    std::thread::Builder::new()
        .name("costline".into())
        .stack_size(costline_ide::ANALYSIS_STACK)
        .spawn(move || run(cli))
        .expect("the main thread starts")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Check(check) => check::run(&check),
        Command::Coverage(c) => coverage::run(&c.args, c.format),
        // Exit at once: the runtime's stdin reader would otherwise keep the process.
        Command::Serve { .. } => std::process::exit(lsp::serve()),
        Command::Train(args) => train::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Profile(args) => profile::run(&args),
        Command::Machines { format } => machines::list(format),
    }
}
