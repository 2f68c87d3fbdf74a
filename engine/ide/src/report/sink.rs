//! The report streamed: a file's start, each unit's report as soon as its analysis is
//! done, then the file's findings, so that a front end writes a program of any size
//! out in the memory of one batch of analyses ([`Project`]).

use super::{DiagnosticReport, FileReport, FileReporter, UnitReport, form, unit_report};
use costline_db::project::{Detail, Project};
use costline_db::{CompilerOutput, Options};
use std::collections::BTreeMap;
use std::io::Write;

/// What [`stream`] hands over, in order: for each file, [`ReportSink::file`], its units,
/// then [`ReportSink::end_file`].
pub trait ReportSink {
    /// A file starts: its path as given, and its form (`free`, `fixed`, or `unknown`
    /// when it could not be loaded).
    fn file(&mut self, path: &str, form: &'static str);
    /// The report of the file's next unit, in file order.
    fn unit(&mut self, unit: UnitReport);
    /// The file's findings, in reading order; the file ends.
    fn end_file(&mut self, diagnostics: Vec<DiagnosticReport>);
}

/// Analyzes `inputs` (path, contents) together under `options` and hands their reports
/// to `sink`, one input after the other; a file that cannot be loaded (binary input)
/// reports its error.
pub fn stream(inputs: &[(String, Vec<u8>)], options: &Options, sink: &mut dyn ReportSink) {
    stream_with_compiler(inputs, &BTreeMap::new(), options, sink);
}

/// [`stream`] with what the compiler said about some of the files, by path (its
/// verdicts on their loops answer where they are fresh).
pub fn stream_with_compiler(
    inputs: &[(String, Vec<u8>)],
    compiler: &BTreeMap<String, CompilerOutput>,
    options: &Options,
    sink: &mut dyn ReportSink,
) {
    let mut project = Project::load_with_compiler(inputs, compiler, options);
    for (i, (path, _)) in inputs.iter().enumerate() {
        match project.head(i) {
            Ok(head) => {
                sink.file(path, form(&head.source));
                let mut report = FileReporter::new(&head.source, &head.diagnostics);
                // The units' reports are made on every core, handed over in file order.
                let src = &*head.source;
                project.visit_units_prepared(
                    i,
                    Detail::Formulas,
                    &|u| unit_report(src, u),
                    &mut |u, made| {
                        report.findings(&u);
                        sink.unit(made);
                    },
                );
                sink.end_file(report.finish());
            }
            Err(e) => FileReport::failed(path, e.line, e.column, "binary", e.message).send(sink),
        }
    }
    // Freeing every memoized result takes a tenth of a cold run of a large program: it
    // happens beside the caller's next steps (a CLI's exit).
    std::thread::spawn(move || drop(project));
}

impl FileReport {
    /// Hands the whole report to `sink`.
    pub fn send(self, sink: &mut dyn ReportSink) {
        sink.file(&self.path, self.form);
        for unit in self.units {
            sink.unit(unit);
        }
        sink.end_file(self.diagnostics);
    }
}

/// The reports, held.
#[derive(Default)]
pub struct Collect(pub Vec<FileReport>);

impl ReportSink for Collect {
    fn file(&mut self, path: &str, form: &'static str) {
        self.0.push(FileReport {
            path: path.to_string(),
            form,
            units: Vec::new(),
            diagnostics: Vec::new(),
        });
    }

    fn unit(&mut self, unit: UnitReport) {
        if let Some(file) = self.0.last_mut() {
            file.units.push(unit);
        }
    }

    fn end_file(&mut self, diagnostics: Vec<DiagnosticReport>) {
        if let Some(file) = self.0.last_mut() {
            file.diagnostics = diagnostics;
        }
    }
}

/// Where a sink writes: it keeps its first error and writes nothing after it (a sink
/// cannot fail midway; its owner learns of the error at the end).
pub struct Output<W: Write> {
    out: W,
    error: Option<std::io::Error>,
}

impl<W: Write> Output<W> {
    pub fn new(out: W) -> Output<W> {
        Output { out, error: None }
    }

    pub fn write(&mut self, text: &str) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(text.as_bytes())
        {
            self.error = Some(e);
        }
    }

    /// Flushes, and hands back the writer or the first write error.
    pub fn finish(mut self) -> Result<W, std::io::Error> {
        if self.error.is_none()
            && let Err(e) = self.out.flush()
        {
            self.error = Some(e);
        }
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.out),
        }
    }
}
