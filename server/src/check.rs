//! `costline check`: analyze files, print the report, exit 0 (findings are not errors)
//! or 1 (an input could not be read or parsed as asked).

use crate::ask_compiler;
use crate::text::TextReport;
use crate::{CheckArgs, Format};
use costline_ide::CompilerOutput;
use costline_ide::Severity;
use costline_ide::files::read_source;
use costline_ide::report::{
    DiagnosticReport, FileReport, JsonReport, ReportSink, UnitReport, stream_with_compiler,
};
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
        fixed_line_length: args.fixed_line_length,
        files: &args.files,
        include_anywhere: args.include_anywhere,
        compiler: args.compiler.as_deref(),
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

/// `costline check`; with `ask_compiler`, the compiler's reports of the files first.
pub fn run(args: &CheckArgs, ask_compiler: bool) -> ExitCode {
    let options = match options(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("costline: {e}");
            return ExitCode::from(1);
        }
    };
    // Read every file; unreadable ones are reported in place.
    let (inputs, unreadable) = read(&args.files);
    let compiler = if ask_compiler {
        compiler_reports(&inputs, &options)
    } else {
        BTreeMap::new()
    };
    let out = std::io::BufWriter::new(std::io::stdout().lock());
    let (machine, params) = (&options.machine.name, &options.bindings);
    let (written, errors) = match args.format {
        Format::Json => {
            let mut sink = InPlace::new(JsonReport::new(out, machine, params), unreadable);
            stream_with_compiler(&inputs, &compiler, &options, &mut sink);
            let (sink, errors) = sink.finish();
            (sink.finish(), errors)
        }
        Format::Text => {
            let mut sink = InPlace::new(TextReport::new(out, machine, params), unreadable);
            stream_with_compiler(&inputs, &compiler, &options, &mut sink);
            let (sink, errors) = sink.finish();
            (sink.finish(), errors)
        }
    };
    if let Err(e) = written {
        crate::stdout::failed(&e);
    }
    if errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// What the compiler in force says about each of `inputs` (`--ask-compiler`), with a
/// note on stderr for each file it could not compile and a warning when it cannot be
/// run at all (costline's rules answer then).
fn compiler_reports(
    inputs: &[(String, Vec<u8>)],
    options: &costline_ide::Options,
) -> BTreeMap<String, CompilerOutput> {
    let command = options.compiler_command();
    if !ask_compiler::available(&command) {
        eprintln!(
            "costline: warning: --ask-compiler: `{command}` cannot be run (not on PATH); \
             costline's rules say which loops it vectorizes"
        );
        return BTreeMap::new();
    }
    let outputs = match ask_compiler::ask_all(&command, inputs, &options.include_dirs) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("costline: warning: --ask-compiler: {e}; costline's rules answer");
            return BTreeMap::new();
        }
    };
    for (path, output) in &outputs {
        if let Err(why) = &output.report {
            eprintln!(
                "costline: note: {path}: compiler report unavailable ({why}); costline's \
                 rules say which of its loops `{command}` vectorizes"
            );
        }
    }
    outputs
}

/// The analyzed files' reports with the unreadable ones in their places among the
/// command line's files, and whether any says an error.
struct InPlace<S: ReportSink> {
    sink: S,
    /// The reports of the files that could not be read, by their index.
    unreadable: BTreeMap<usize, FileReport>,
    /// The index of the next file to report.
    next: usize,
    errors: bool,
}

impl<S: ReportSink> InPlace<S> {
    fn new(sink: S, unreadable: BTreeMap<usize, FileReport>) -> InPlace<S> {
        InPlace {
            sink,
            unreadable,
            next: 0,
            errors: false,
        }
    }

    /// Reports the unreadable files before the next readable one.
    fn unreadable_before(&mut self) {
        while let Some(failed) = self.unreadable.remove(&self.next) {
            self.next += 1;
            self.errors = true;
            failed.send(&mut self.sink);
        }
    }

    /// Reports the unreadable files left; the sink, and whether any file says an error.
    fn finish(mut self) -> (S, bool) {
        for (_, failed) in std::mem::take(&mut self.unreadable) {
            self.errors = true;
            failed.send(&mut self.sink);
        }
        (self.sink, self.errors)
    }
}

impl<S: ReportSink> ReportSink for InPlace<S> {
    fn file(&mut self, path: &str, form: &'static str) {
        self.unreadable_before();
        self.next += 1;
        self.sink.file(path, form);
    }

    fn unit(&mut self, unit: UnitReport) {
        self.sink.unit(unit);
    }

    fn end_file(&mut self, diagnostics: Vec<DiagnosticReport>) {
        self.errors |= diagnostics.iter().any(|d| d.severity == Severity::Error);
        self.sink.end_file(diagnostics);
    }
}
