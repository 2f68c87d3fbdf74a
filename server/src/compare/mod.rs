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
use grid::{Procs, parse_param, parse_procs};

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

pub fn run(args: &CompareArgs) -> ExitCode {
    let ranged: Vec<&(String, (i64, i64))> =
        args.params.iter().filter(|(_, (lo, hi))| lo < hi).collect();
    if ranged.len() > 1 {
        eprintln!("costline: compare varies one problem size: give one --param NAME=LO..HI");
        return ExitCode::from(2);
    }
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
    let bindings: BTreeMap<String, i64> = args
        .params
        .iter()
        .map(|(n, (lo, _))| (n.clone(), *lo))
        .filter(|(n, _)| !ranged.iter().any(|(r, _)| r == n))
        .collect();
    let mut options = match crate::config::file::options(&crate::config::file::Flags {
        machine: args.machine.as_deref(),
        params: bindings,
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
    // The size compared over is varied, whatever costline.toml binds it to.
    for (name, _) in &ranged {
        options.bindings.remove(name);
    }
    let grid = Grid {
        range: ranged.first().map(|(name, range)| (name.clone(), *range)),
        procs: args.procs.clone().map(|p| p.0),
        top: args.top,
    };
    let all = compare(&files, &options, &grid);
    if all.is_empty() {
        crate::stdout::write("no DISTRIBUTE directive with formats: nothing to compare\n");
        return ExitCode::SUCCESS;
    }
    match args.format {
        Format::Text => crate::stdout::write(&report::text(&all, &options.machine.name)),
        Format::Json => {
            let doc = json::document(&all, &options.machine.name);
            crate::stdout::write(&(serde_json::to_string_pretty(&doc).expect("serializes") + "\n"));
        }
    }
    if let Some(out) = &args.svg {
        let doc = svg::render(&report::charts(&all));
        if let Err(e) = std::fs::write(out, doc) {
            eprintln!("costline: cannot write {out}: {e}");
            return ExitCode::from(1);
        }
        if args.format == Format::Text {
            crate::stdout::write(&format!("plot written to {out}\n"));
        }
    }
    ExitCode::SUCCESS
}
