//! `costline coverage FILES...`: how much of the program the files make up costline
//! understood (see `costline_ide::coverage`), as a table or as JSON. Exit 0, or 1 when
//! a file cannot be read.

use crate::{CheckArgs, Format};
use costline_ide::coverage::{Coverage, Share, coverage};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::process::ExitCode;

/// The JSON form: the inputs, then the figures.
#[derive(Serialize)]
struct CoverageReport<'a> {
    version: u32,
    machine: &'a str,
    params: &'a BTreeMap<String, i64>,
    files: &'a [String],
    coverage: &'a Coverage,
}

pub fn run(args: &CheckArgs, format: Format) -> ExitCode {
    let (options, files) = match crate::check::prepare(&args.files, &args.analysis) {
        Ok(o) => o,
        Err((code, e)) => {
            eprintln!("costline: {e}");
            return ExitCode::from(code);
        }
    };
    let (inputs, unreadable) = crate::check::read(&files);
    for failed in unreadable.values() {
        for d in &failed.diagnostics {
            eprintln!("{}: error[{}]: {}", failed.path, d.code, d.message);
        }
    }
    let c = coverage(&inputs, &options);
    let out = match format {
        Format::Json => {
            let report = CoverageReport {
                version: 1,
                machine: &options.machine.name,
                params: &options.bindings,
                files: &files,
                coverage: &c,
            };
            serde_json::to_string_pretty(&report).expect("the coverage serializes") + "\n"
        }
        Format::Text => render(&c, files.len()),
    };
    crate::stdout::write(&out);
    if unreadable.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The figures as a table that fits 80 columns.
fn render(c: &Coverage, files: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "coverage of {files} file{}",
        if files == 1 { "" } else { "s" }
    );
    let row = |out: &mut String, what: &str, s: Share| {
        let pct = if s.total == 0 {
            "    –  ".to_string()
        } else {
            format!("{:>5.1} %", s.percent())
        };
        let _ = writeln!(out, "  {what:<44} {:>6} of {:<6} {pct}", s.done, s.total);
    };
    row(&mut out, "statements read", c.statements_read);
    let n = c.counts.exact + c.counts.estimated + c.counts.unknown;
    let pct = |k: usize| {
        if n == 0 {
            0.0
        } else {
            100.0 * k as f64 / n as f64
        }
    };
    let _ = writeln!(
        out,
        "  counts: exact {} ({:.1} %) · estimated {} ({:.1} %) · unknown {} ({:.1} %)",
        c.counts.exact,
        pct(c.counts.exact),
        c.counts.estimated,
        pct(c.counts.estimated),
        c.counts.unknown,
        pct(c.counts.unknown)
    );
    row(
        &mut out,
        "assignments to mapped arrays with work",
        c.mapped_assignments_with_work,
    );
    row(
        &mut out,
        "reads of mapped data with communication",
        c.mapped_reads_with_records,
    );
    row(&mut out, "MPI calls priced", c.mpi_calls_priced);
    row(&mut out, "units complete", c.units_complete);
    out
}
