//! `costline compare`: predicted times of a program's distribution alternatives over a
//! grid of problem sizes and processor counts, their crossing points by direct
//! comparison and by isospeed scalability, and a plot.

mod grid;
mod json;
mod report;
mod svg;

use costline_ide::compare::{Grid, compare};
use std::collections::BTreeMap;
use std::process::ExitCode;

use crate::Format;
pub use grid::{Procs, parse_param, parse_procs};

#[derive(clap::Args)]
pub struct CompareArgs {
    /// Fortran sources analyzed together (as for `check`); every DISTRIBUTE with
    /// formats is compared with its alternatives.
    #[arg(required = true)]
    files: Vec<String>,
    /// Bind a program unknown, `--param N=1000`, or give the range of the problem size
    /// to compare over, `--param N=16..1024` (one range at most).
    #[arg(long = "param", value_name = "NAME=VALUE|NAME=LO..HI", value_parser = parse_param)]
    params: Vec<(String, (i64, i64))>,
    /// Processor counts: `LO..HI` (LO, the powers of two between, HI) or a list
    /// `16,64`; the count as written when absent.
    #[arg(long, value_name = "LO..HI|P,P,...", value_parser = parse_procs)]
    procs: Option<Procs>,
    /// The machine model (a name from `costline machines` or a path).
    #[arg(long, value_name = "NAME|PATH")]
    machine: Option<String>,
    /// Write the plot (time vs N per P, time vs P) to this SVG file.
    #[arg(long, value_name = "OUT")]
    svg: Option<String>,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// How many alternatives to show besides the distribution as written.
    #[arg(long, default_value_t = 4)]
    top: usize,
    /// A directory to search for INCLUDE'd files after the including file's own
    /// (repeatable; searched in order).
    #[arg(long = "include", value_name = "DIR")]
    include_dirs: Vec<std::path::PathBuf>,
    /// Define a macro for the preprocessor's conditionals, as `-D` does for cpp
    /// (repeatable; value 1 when absent).
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]", value_parser = crate::config::parse_define)]
    defines: Vec<(String, String)>,
}

/// One comparison asked for: the bindings and the size varied (at most one range),
/// the processor counts, how many alternatives, and whose DISTRIBUTEs.
pub struct Request<'a> {
    pub params: &'a [(String, (i64, i64))],
    pub procs: Option<Procs>,
    pub top: usize,
    /// Only this file's DISTRIBUTEs (the others' files are analyzed with it).
    pub only: Option<String>,
}

/// What a comparison needs besides the files: the grid, and the options with the size
/// varied unbound; an error when more than one size is given a range.
pub fn grid_and_bindings(
    request: &Request,
    options: &mut costline_ide::Options,
) -> Result<Grid, String> {
    let ranged: Vec<&(String, (i64, i64))> = request
        .params
        .iter()
        .filter(|(_, (lo, hi))| lo < hi)
        .collect();
    if ranged.len() > 1 {
        return Err("compare varies one problem size: give one NAME=LO..HI".into());
    }
    for (name, (lo, _)) in request.params {
        if ranged.iter().any(|(r, _)| r == name) {
            // The size compared over is varied, whatever the settings bind it to.
            options.bindings.remove(name);
        } else {
            options.bindings.insert(name.clone(), *lo);
        }
    }
    Ok(Grid {
        range: ranged.first().map(|(name, range)| (name.clone(), *range)),
        procs: request.procs.clone().map(|p| p.0),
        top: request.top,
        only: request.only.clone(),
    })
}

/// The comparison's report for scripts and editors, its text and its plot.
pub struct Rendered {
    pub json: String,
    pub text: String,
    pub svg: String,
}

/// Compares `files` under `options` as `request` asks, rendered every way; `None`
/// when there is no DISTRIBUTE with formats to compare.
pub fn rendered(
    files: &[(String, Vec<u8>)],
    mut options: costline_ide::Options,
    request: &Request,
) -> Result<Option<Rendered>, String> {
    let grid = grid_and_bindings(request, &mut options)?;
    let all = compare(files, &options, &grid);
    if all.is_empty() {
        return Ok(None);
    }
    let machine = &options.machine.name;
    Ok(Some(Rendered {
        json: serde_json::to_string_pretty(&json::document(&all, machine)).expect("serializes"),
        text: report::text(&all, machine),
        svg: svg::render(&report::charts(&all)),
    }))
}

pub fn run(args: &CompareArgs) -> ExitCode {
    let mut files = Vec::new();
    for path in &args.files {
        match std::fs::read(path) {
            Ok(bytes) => files.push((path.clone(), bytes)),
            Err(e) => {
                eprintln!("costline: {path}: cannot read the file: {e}");
                return ExitCode::from(1);
            }
        }
    }
    let options = match crate::config::file::options(&crate::config::file::Flags {
        machine: args.machine.as_deref(),
        params: BTreeMap::new(),
        include: &args.include_dirs,
        imbalance_threshold: None,
        finding_share: None,
        fixed_line_length: None,
        files: &args.files,
        include_anywhere: false,
        compiler: None,
        defines: &args.defines,
    }) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("costline: {e}");
            return ExitCode::from(1);
        }
    };
    let request = Request {
        params: &args.params,
        procs: args.procs.clone(),
        top: args.top,
        only: None,
    };
    let out = match rendered(&files, options, &request) {
        Ok(Some(out)) => out,
        Ok(None) => {
            crate::stdout::write("no DISTRIBUTE directive with formats: nothing to compare\n");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("costline: {e}");
            return ExitCode::from(2);
        }
    };
    match args.format {
        Format::Text => crate::stdout::write(&out.text),
        Format::Json => crate::stdout::write(&(out.json + "\n")),
    }
    if let Some(path) = &args.svg {
        if let Err(e) = std::fs::write(path, &out.svg) {
            eprintln!("costline: cannot write {path}: {e}");
            return ExitCode::from(1);
        }
        if args.format == Format::Text {
            crate::stdout::write(&format!("plot written to {path}\n"));
        }
    }
    ExitCode::SUCCESS
}
