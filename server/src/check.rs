//! `costline check`: analyze files, print the report, exit 0 (findings are not errors)
//! or 1 (an input could not be read or parsed as asked).

use crate::ask_compiler;
use crate::sarif::SarifReport;
use crate::text::TextReport;
use crate::{AnalysisFlags, CheckCommand, CheckFormat};
use costline_ide::CompilerOutput;
use costline_ide::Severity;
use costline_ide::files::read_source;
use costline_ide::report::{
    DiagnosticReport, FileReport, JsonReport, ReportSink, UnitReport, stream_with_compiler,
};
use std::collections::BTreeMap;
use std::process::ExitCode;

/// The analysis options of `check`, `coverage` and `diff` for `files`: costline.toml,
/// then the flags.
pub fn options(args: &AnalysisFlags, files: &[String]) -> Result<costline_ide::Options, String> {
    let mut options = crate::config::file::options(&crate::config::file::Flags {
        machine: args.machine.as_deref(),
        params: args.params.iter().cloned().collect(),
        include: &args.include_dirs,
        imbalance_threshold: args.imbalance_threshold,
        finding_share: args.finding_share,
        fixed_line_length: args.fixed_line_length,
        files,
        include_anywhere: args.include_anywhere,
        compiler: args.compiler.as_deref(),
        defines: &args.defines,
    })?;
    if let Some(path) = &args.profile {
        options.profile = Some(std::sync::Arc::new(crate::config::read_profile(path)?));
    }
    Ok(options)
}

/// The files to analyze: those given, each directory expanded to the Fortran files
/// under it (less `exclude` of costline.toml and `--exclude`); none given, those of the
/// project's `sourceDirs` (a costline.toml's root when it names none). The error and
/// the exit status it asks for: 2 when no file is given and there is no project.
pub fn files(given: &[String], flags: &AnalysisFlags) -> Result<Vec<String>, (u8, String)> {
    let project = crate::config::file::project().map_err(|e| (1, e))?;
    let mut exclude = project.config.exclude.clone();
    exclude.extend(flags.exclude.iter().cloned());
    let args: Vec<String> = if !given.is_empty() {
        given.to_vec()
    } else if !project.has_file {
        return Err((
            2,
            "no files given (name Fortran files or directories, or give the project a \
             costline.toml, whose `sourceDirs` are then analyzed)"
                .to_string(),
        ));
    } else if project.config.source_dirs.is_empty() {
        vec![project.root.display().to_string()]
    } else {
        let cwd = std::env::current_dir().unwrap_or_default();
        project
            .config
            .source_dirs
            .iter()
            .map(|d| {
                let dir = project.root.join(d);
                // Shown relative to where the command runs, as given files are.
                dir.strip_prefix(&cwd).unwrap_or(&dir).display().to_string()
            })
            .collect()
    };
    crate::sources::expand(&args, &project.root, &exclude).map_err(|e| (1, e))
}

/// The files to analyze ([`files`]) and the options for them ([`options`]).
pub fn prepare(
    given: &[String],
    flags: &AnalysisFlags,
) -> Result<(costline_ide::Options, Vec<String>), (u8, String)> {
    let files = files(given, flags)?;
    let options = options(flags, &files).map_err(|e| (1, e))?;
    Ok((options, files))
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

/// `costline check`; with `--ask-compiler`, the compiler's reports of the files first.
/// Exit 1 when a file cannot be read or parsed, else 3 when a finding matches
/// `--fail-on`, else 0.
pub fn run(check: &CheckCommand) -> ExitCode {
    let args = &check.args;
    let (options, files) = match prepare(&args.files, &args.analysis) {
        Ok(o) => o,
        Err((code, e)) => {
            eprintln!("costline: {e}");
            return ExitCode::from(code);
        }
    };
    // Read every file; unreadable ones are reported in place.
    let (inputs, unreadable) = read(&files);
    let compiler = if check.ask_compiler {
        compiler_reports(&inputs, &options)
    } else {
        BTreeMap::new()
    };
    let out = std::io::BufWriter::new(std::io::stdout().lock());
    let (machine, params) = (&options.machine.name, &options.bindings);
    let fail_on = &check.fail_on;
    let (written, verdict) = match check.format {
        CheckFormat::Json => {
            let mut sink = InPlace::new(JsonReport::new(out, machine, params), unreadable, fail_on);
            stream_with_compiler(&inputs, &compiler, &options, &mut sink);
            let (sink, verdict) = sink.finish();
            (sink.finish(), verdict)
        }
        CheckFormat::Text => {
            let mut sink = InPlace::new(TextReport::new(out, machine, params), unreadable, fail_on);
            stream_with_compiler(&inputs, &compiler, &options, &mut sink);
            let (sink, verdict) = sink.finish();
            (sink.finish(), verdict)
        }
        CheckFormat::Sarif => {
            let mut sink =
                InPlace::new(SarifReport::new(out, machine, params), unreadable, fail_on);
            stream_with_compiler(&inputs, &compiler, &options, &mut sink);
            let (sink, verdict) = sink.finish();
            (sink.finish(!verdict.errors), verdict)
        }
    };
    if let Err(e) = written {
        crate::stdout::failed(&e);
    }
    if verdict.errors {
        ExitCode::from(1)
    } else if let Some(hit) = verdict.failed_on {
        eprintln!("costline: a finding matches --fail-on: {hit}");
        ExitCode::from(FAIL_ON_EXIT)
    } else {
        ExitCode::SUCCESS
    }
}

/// The exit status when a finding matches `--fail-on`.
pub const FAIL_ON_EXIT: u8 = 3;

/// What `--fail-on` asks for: a finding of a severity or above, or of a code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailOn {
    Severity(Severity),
    Code(&'static str),
}

impl FailOn {
    /// `error`, `warning`, `info`, `hint` or a finding code (`imbalance`, ...).
    pub fn parse(s: &str) -> Result<FailOn, String> {
        let s = s.trim();
        let severity = [
            Severity::Error,
            Severity::Warning,
            Severity::Info,
            Severity::Hint,
        ]
        .into_iter()
        .find(|v| v.as_str() == s);
        if let Some(severity) = severity {
            return Ok(FailOn::Severity(severity));
        }
        match costline_ide::codes::describe(s) {
            Some(c) => Ok(FailOn::Code(c.code)),
            None => Err(format!(
                "`{s}` is neither a severity (error, warning, info, hint) nor a finding code ({})",
                costline_ide::codes::CODES
                    .iter()
                    .map(|c| c.code)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Whether `d` is a finding this asks to fail on.
    fn matches(&self, d: &DiagnosticReport) -> bool {
        match self {
            // Severities are ordered from the most severe.
            FailOn::Severity(s) => d.severity <= *s,
            FailOn::Code(c) => d.code == *c,
        }
    }
}

/// What the findings of a run decide about its exit status.
#[derive(Debug, Default)]
struct Verdict {
    /// A file could not be read or parsed (an error-severity finding).
    errors: bool,
    /// The first finding that matched `--fail-on`, for the message.
    failed_on: Option<String>,
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
/// command line's files, and the verdict of their findings.
struct InPlace<'a, S: ReportSink> {
    sink: S,
    /// The reports of the files that could not be read, by their index.
    unreadable: BTreeMap<usize, FileReport>,
    /// The index of the next file to report.
    next: usize,
    fail_on: &'a [FailOn],
    /// The path of the file being reported.
    path: String,
    verdict: Verdict,
}

impl<'a, S: ReportSink> InPlace<'a, S> {
    fn new(
        sink: S,
        unreadable: BTreeMap<usize, FileReport>,
        fail_on: &'a [FailOn],
    ) -> InPlace<'a, S> {
        InPlace {
            sink,
            unreadable,
            next: 0,
            fail_on,
            path: String::new(),
            verdict: Verdict::default(),
        }
    }

    /// Reports the unreadable files before the next readable one.
    fn unreadable_before(&mut self) {
        // Each goes through `file` (which counts it) and `end_file` (its error).
        while let Some(failed) = self.unreadable.remove(&self.next) {
            failed.send(self);
        }
    }

    /// Reports the unreadable files left; the sink, and the verdict.
    fn finish(mut self) -> (S, Verdict) {
        for (_, failed) in std::mem::take(&mut self.unreadable) {
            failed.send(&mut self);
        }
        (self.sink, self.verdict)
    }
}

impl<S: ReportSink> ReportSink for InPlace<'_, S> {
    fn file(&mut self, path: &str, form: &'static str) {
        self.unreadable_before();
        self.next += 1;
        self.path = path.to_string();
        self.sink.file(path, form);
    }

    fn unit(&mut self, unit: UnitReport) {
        self.sink.unit(unit);
    }

    fn end_file(&mut self, diagnostics: Vec<DiagnosticReport>) {
        let v = &mut self.verdict;
        v.errors |= diagnostics.iter().any(|d| d.severity == Severity::Error);
        if v.failed_on.is_none()
            && let Some(d) = diagnostics
                .iter()
                .find(|d| self.fail_on.iter().any(|f| f.matches(d)))
        {
            v.failed_on = Some(format!(
                "{}:{}:{}: {}[{}]",
                d.file.as_deref().unwrap_or(&self.path),
                d.line,
                d.column,
                d.severity.as_str(),
                d.code
            ));
        }
        self.sink.end_file(diagnostics);
    }
}
