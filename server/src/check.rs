//! `costline check`: analyze files, print the report, exit 0 (findings are not errors)
//! or 1 (an input could not be read or parsed as asked).

use crate::{CheckArgs, Format};
use costline_ide::files::read_source;
use costline_ide::report::{FileReport, Report, file_reports};
use std::collections::BTreeMap;
use std::process::ExitCode;

/// The analysis options of `check` and `coverage`: costline.toml, then the flags.
pub fn options(args: &CheckArgs) -> Result<costline_ide::Options, String> {
    crate::config::file::options(&crate::config::file::Flags {
        machine: args.machine.as_deref(),
        params: args.params.iter().cloned().collect(),
        include: &args.include_dirs,
        imbalance_threshold: args.imbalance_threshold,
        finding_share: args.finding_share,
        files: &args.files,
        include_anywhere: args.include_anywhere,
    })
}

/// What was read of the command line's files: the contents of the readable ones (path,
/// bytes), and the reports of those that could not be read, by their index.
pub type Read = (Vec<(String, Vec<u8>)>, BTreeMap<usize, FileReport>);

/// Reads `files` (see [`Read`]).
pub fn read(files: &[String]) -> Read {
    let mut inputs = Vec::new();
    let mut unreadable = BTreeMap::new();
    for (i, path) in files.iter().enumerate() {
        match read_source(std::path::Path::new(path)) {
            Ok(bytes) => inputs.push((path.clone(), bytes)),
            Err(e) => {
                unreadable.insert(
                    i,
                    FileReport::failed(path, 1, 1, "io", format!("cannot read the file: {e}")),
                );
            }
        }
    }
    (inputs, unreadable)
}

pub fn run(args: &CheckArgs) -> ExitCode {
    let options = match options(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("costline: {e}");
            return ExitCode::from(1);
        }
    };
    // Read every file; unreadable ones are reported in place.
    let (inputs, mut unreadable) = read(&args.files);
    let mut analyzed = file_reports(&inputs, &options).into_iter();
    let files: Vec<FileReport> = (0..args.files.len())
        .map(|i| match unreadable.remove(&i) {
            Some(failed) => failed,
            None => analyzed.next().expect("one report per readable input"),
        })
        .collect();
    let report = Report::new(files, &options.bindings, &options.machine.name);
    let out = match args.format {
        Format::Json => {
            serde_json::to_string_pretty(&report).expect("the report serializes") + "\n"
        }
        Format::Text => crate::text::render(&report),
    };
    crate::stdout::write(&out);
    if report.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
