//! `costline profile FILE... [-- ARGS]`: one run of the program to measure what the
//! analysis would otherwise assume. The program is built twice in a private
//! directory with the user's compiler — as written, and with counters at each
//! statement whose count rests on an assumed branch probability or trip count
//! (`costline_ide::profile`) — and both run once with the arguments given. The
//! instrumented run must print what the original does (lines that differ between two
//! runs of the original itself, such as timings, are not compared); its counts go to
//! `.costline/profile.json` next to the sources, which `check --profile` reads.
//! With `--ranks N` the program is an MPI program: built with `$MPIFC` (default
//! mpif90) and run under `--mpirun` (default mpirun) on N ranks, each rank writing its
//! own counts.

mod build;
mod output;
mod run;

use crate::check;
use crate::train::exec::Tool;
use crate::train::mpi::{Mpi, Placement};
use build::{Program, build};
use costline_ide::AnalysisHost;
use costline_ide::profile::Role;
use costline_ide::profile::counters::{
    COUNTERS_FILE, OUTPUT_VARIABLE, RANKED_VARIABLE, RunCounts, counters_source, ranked_output,
    read_counts,
};
use costline_ide::profile::file::{ProfileFile, Run};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

#[derive(clap::Args)]
pub struct ProfileArgs {
    #[command(flatten)]
    args: crate::CheckArgs,
    /// Stop the program when a run takes longer than this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    timeout: u64,
    /// Where to write the profile [default: `.costline/profile.json` in the directory
    /// holding the files].
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// A file the program reads as its standard input.
    #[arg(long, value_name = "PATH")]
    stdin: Option<PathBuf>,
    /// An MPI program: build it with $MPIFC (default mpif90) and run it on this many
    /// ranks under the launcher (`--mpirun`); each rank's counts are kept.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    ranks: Option<u32>,
    /// The MPI launcher and its leading arguments [default: mpirun].
    #[arg(long, value_name = "CMD", requires = "ranks")]
    mpirun: Option<String>,
    /// The program's arguments, after `--`.
    #[arg(last = true, value_name = "ARGS")]
    program_args: Vec<String>,
}

/// `costline profile`: exit 0 with the profile written, 1 when the program cannot be
/// built or run or its instrumented run printed something else, 2 on usage errors.
pub fn run(args: &ProfileArgs) -> ExitCode {
    match profile(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, e)) => {
            eprintln!("costline: {e}");
            ExitCode::from(code)
        }
    }
}

fn profile(args: &ProfileArgs) -> Result<(), (u8, String)> {
    // C sources (a timer, say) are compiled and linked, not analyzed.
    let (c_sources, fortran): (Vec<String>, Vec<String>) = args
        .args
        .files
        .iter()
        .cloned()
        .partition(|f| build::is_c(Path::new(f)));
    if fortran.is_empty() && !c_sources.is_empty() {
        return Err((2, "no Fortran file to profile".to_string()));
    }
    let (mut options, files) = check::prepare(&fortran, &args.args.analysis)?;
    options.profile = None;
    let (inputs, unreadable) = check::read(&files);
    if let Some((_, report)) = unreadable.into_iter().next() {
        let why = report
            .diagnostics
            .first()
            .map_or(String::new(), |d| d.message.clone());
        return Err((1, format!("{}: {why}", report.path)));
    }
    let mut host = AnalysisHost::new(&options);
    for (path, bytes) in &inputs {
        host.add_file(path, bytes.clone());
    }
    let program = host
        .snapshot()
        .instrument()
        .map_err(|_| (1, "the analysis was cancelled".to_string()))?;
    let fail = |e: String| (1, e);
    let scratch = crate::scratch::private_dir("costline-profile-").map_err(fail)?;
    let mpi = match args.ranks {
        Some(_) => Some(
            Mpi::find(
                crate::train::tool_from_env("MPIFC", "mpif90"),
                Tool::or_default(args.mpirun.as_deref().unwrap_or(""), "mpirun"),
                Placement::ThisNode,
                scratch.path(),
                crate::train::sysinfo::cores(),
            )
            .map_err(fail)?,
        ),
        None => None,
    };
    let command = match &mpi {
        Some(mpi) => mpi_compiler(&options.compiler_command(), &mpi.fc),
        None => options.compiler_command(),
    };
    let written: BTreeMap<String, String> = program.ported.iter().cloned().collect();
    let original = build(
        &command,
        &Program {
            sources: &inputs,
            replaced: &written,
            own: None,
            c_sources: &c_sources,
        },
        &options.include_dirs,
        &scratch.path().join("original"),
    )
    .map_err(|e| {
        fail(match mpi {
            Some(_) => e,
            None => with_mpi_hint(e, &inputs),
        })
    })?;
    let replaced: BTreeMap<String, String> = program.files.iter().cloned().collect();
    let instrumented = build(
        &command,
        &Program {
            sources: &inputs,
            replaced: &replaced,
            own: Some((
                COUNTERS_FILE,
                counters_source(program.counters, &program.gather_tables()),
            )),
            c_sources: &c_sources,
        },
        &options.include_dirs,
        &scratch.path().join("instrumented"),
    )
    .map_err(|e| {
        fail(format!(
            "the instrumented program does not build (costline's fault; please report it): {e}"
        ))
    })?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let limit = Duration::from_secs(args.timeout.max(1));
    let once = |exe: &Path, env: &[(&str, &OsStr)]| {
        let cmd = match (&mpi, args.ranks) {
            (Some(mpi), Some(n)) => mpi.launch(n, exe, &args.program_args),
            _ => {
                let mut c = Command::new(exe);
                c.args(&args.program_args);
                c
            }
        };
        run::run(cmd, &cwd, env, args.stdin.as_deref(), scratch.path(), limit)
    };
    let first = once(&original, &[]).map_err(fail)?;
    if first.status != Some(0) {
        return Err(fail(format!(
            "the program failed ({}):\n{}",
            status(first.status),
            tail(&first.stderr)
        )));
    }
    let counts_path = scratch.path().join("counts.txt");
    let measured = once(
        &instrumented,
        &[
            (OUTPUT_VARIABLE, counts_path.as_os_str()),
            (
                RANKED_VARIABLE,
                OsStr::new(if mpi.is_some() { "1" } else { "0" }),
            ),
        ],
    )
    .map_err(fail)?;
    if measured.status != first.status {
        return Err(fail(format!(
            "the instrumented program ended otherwise ({}) than the original ({}): costline's fault; please report it\n{}",
            status(measured.status),
            status(first.status),
            tail(&measured.stderr)
        )));
    }
    let varying = if measured.stdout == first.stdout {
        BTreeSet::new()
    } else {
        let again = once(&original, &[]).map_err(fail)?;
        output::varying_lines(&first.stdout, &again.stdout).unwrap_or_default()
    };
    if let Some((line, want, got)) =
        output::first_difference(&first.stdout, &measured.stdout, &varying)
    {
        return Err(fail(format!(
            "the instrumented program printed something else than the original (costline's fault; please report it): line {line} is `{got}`, not `{want}`"
        )));
    }
    let counts = match args.ranks {
        Some(n) => ranked_counts(&counts_path, n, program.counters).map_err(fail)?,
        None => vec![counts_of(&counts_path, program.counters).map_err(fail)?],
    };
    let file = ProfileFile::new(
        Run {
            date: crate::train::date::now(),
            args: args.program_args.clone(),
            stdin: args.stdin.as_ref().map(|p| p.display().to_string()),
            compiler: command,
            mpi: mpi
                .as_ref()
                .zip(args.ranks)
                .map(|(mpi, n)| (mpi.launcher.spec.clone(), n)),
        },
        &program,
        &counts,
        &inputs,
    );
    let out = args.out.clone().unwrap_or_else(|| default_out(&files));
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| fail(format!("cannot make {}: {e}", dir.display())))?;
    }
    std::fs::write(&out, file.to_json())
        .map_err(|e| fail(format!("cannot write {}: {e}", out.display())))?;
    for s in &program.skipped {
        eprintln!("costline: note: {s}");
    }
    if !varying.is_empty() {
        eprintln!(
            "costline: note: {} line(s) of the output differ between runs of the program itself (timings?): not compared",
            varying.len()
        );
    }
    // Statements and values by file, unit (name and host) and statement or name.
    let statements: BTreeSet<(&str, &str, Option<&str>, u32)> = program
        .points
        .iter()
        .filter(|p| p.role != Role::Value)
        .map(|p| {
            (
                p.file.as_str(),
                p.unit.name.as_str(),
                p.unit.host.as_deref(),
                p.stmt,
            )
        })
        .collect();
    let values: BTreeSet<(&str, &str, Option<&str>, &str)> = program
        .points
        .iter()
        .filter_map(|p| {
            let name = p.name.as_deref()?;
            Some((
                p.file.as_str(),
                p.unit.name.as_str(),
                p.unit.host.as_deref(),
                name,
            ))
        })
        .collect();
    let reads = if program.gathers.is_empty() {
        String::new()
    } else {
        format!(
            ", {} irregular read(s) of mapped arrays recorded",
            program.gathers.len()
        )
    };
    println!(
        "costline: {} statement(s) measured and {} value(s) recorded with {} counter(s){reads} ({}); the profile is in {}",
        statements.len(),
        values.len(),
        program.counters,
        file.run(),
        out.display()
    );
    Ok(())
}

/// The compiler command of an MPI build: `command` (the compiler and its flags) with
/// its compiler replaced by the MPI wrapper `fc` (its leading arguments kept).
fn mpi_compiler(command: &str, fc: &Tool) -> String {
    let flags = command.split_whitespace().skip(1);
    std::iter::once(fc.spec.as_str())
        .chain(flags)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A serial build's error, with a hint to profile with `--ranks` when what is missing
/// is MPI: `mpif.h`, the `mpi` module (a module no file provides, in a program with
/// `use mpi`) or MPI's routines.
fn with_mpi_hint(error: String, sources: &[(String, Vec<u8>)]) -> String {
    let lower = error.to_lowercase();
    let uses_mpi = || {
        sources.iter().any(|(_, bytes)| {
            String::from_utf8_lossy(bytes)
                .to_lowercase()
                .lines()
                .any(|l| l.trim_start().starts_with("use mpi"))
        })
    };
    let missing = ["mpif.h", "reference to `mpi_"]
        .iter()
        .any(|m| lower.contains(m))
        || lower.contains("needs a module no file provides") && uses_mpi();
    if !missing {
        return error;
    }
    format!("{error}\n(an MPI program? profile it on N ranks with --ranks N)")
}

/// The counts in the file at `path` (all 0 when there is none: the program ended
/// before reaching a counter, which is when the file is set up to be written).
fn counts_of(path: &Path, counters: usize) -> Result<RunCounts, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => read_counts(&text, counters),
        Err(_) => Ok(RunCounts {
            counts: vec![0; counters],
            ..RunCounts::default()
        }),
    }
}

/// The counts of each of `ranks` ranks, from the files `path.RANK`; an error when a
/// rank could not tell its rank (the launcher set neither `OMPI_COMM_WORLD_RANK` nor
/// `PMI_RANK`) or names a rank past `ranks`.
fn ranked_counts(path: &Path, ranks: u32, counters: usize) -> Result<Vec<RunCounts>, String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let prefix = format!(
        "{}.",
        path.file_name().unwrap_or_default().to_string_lossy()
    );
    for entry in
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?
    {
        let name = entry.map_err(|e| e.to_string())?.file_name();
        let Some(rank) = name
            .to_string_lossy()
            .strip_prefix(&prefix)
            .map(str::to_string)
        else {
            continue;
        };
        if !rank.parse::<u32>().is_ok_and(|r| r < ranks) {
            return Err(format!(
                "a rank of the instrumented program wrote its counts as rank `{rank}` of {ranks}: \
                 the launcher must set OMPI_COMM_WORLD_RANK or PMI_RANK (Open MPI, MPICH)"
            ));
        }
    }
    (0..ranks)
        .map(|r| counts_of(&ranked_output(path, r), counters))
        .collect()
}

/// `.costline/profile.json` in the deepest directory holding all of `files`.
fn default_out(files: &[String]) -> PathBuf {
    let dirs: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            Path::new(f)
                .parent()
                .map_or_else(PathBuf::new, Path::to_path_buf)
        })
        .collect();
    let mut common = dirs.first().cloned().unwrap_or_default();
    for d in &dirs {
        while !d.starts_with(&common) {
            if !common.pop() {
                break;
            }
        }
    }
    common.join(".costline").join("profile.json")
}

/// An exit status in words.
fn status(code: Option<i32>) -> String {
    match code {
        Some(c) => format!("exit status {c}"),
        None => "killed by a signal".to_string(),
    }
}

/// The last 20 lines of what a program printed on stderr.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}
