//! Every finding on a file, at ranges of its text: loading and structure (file level),
//! duplicate modules, and each unit's parse, directive, count and imbalance findings.
//! A finding on the text of an included file sits on its INCLUDE line and says where in
//! that file it is; asked for an included file itself, the findings are those its
//! includers found in it.

use super::units_of;
use costline_db::{File, duplicate_modules, file_units, unit_diagnostics};
use costline_syntax::diagnostics::{Diagnostic, Severity};
use costline_syntax::source::{IncludeSite, SourceFile};
use costline_syntax::span::Span;
use std::sync::Arc;

/// A finding at a range of the file's text.
#[derive(Clone, Debug, PartialEq)]
pub struct FileDiagnostic {
    pub range: Span,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    /// For a finding on the text of an included file: where it is there (`range` is
    /// then the INCLUDE line).
    pub header: Option<InHeader>,
    /// For a finding listed on an included file: the INCLUDE lines that brought its
    /// text into the file that found it, outermost first.
    pub included_from: Vec<IncludeSite>,
}

/// A range of an included file's original text.
#[derive(Clone, Debug, PartialEq)]
pub struct InHeader {
    pub source: Arc<SourceFile>,
    pub range: Span,
    /// The INCLUDE lines between, outermost first.
    pub sites: Vec<IncludeSite>,
}

pub(super) fn diagnostics(db: &dyn salsa::Database, file: File) -> Vec<FileDiagnostic> {
    let Ok(f) = file_units(db, file) else {
        return Vec::new();
    };
    let source = &f.source;
    let mut out: Vec<FileDiagnostic> = f
        .diagnostics
        .iter()
        .chain(&duplicate_modules(db, file))
        .map(|d| placed(source, d, d.span))
        .collect();
    let (_, units) = units_of(db, file);
    for u in &units {
        out.extend(
            unit_diagnostics(db, u.unit)
                .iter()
                .map(|d| placed(source, d, u.chunk.file_span(d.span))),
        );
    }
    out.sort_by_key(|d| (d.range.start, d.range.end));
    out
}

/// The findings of `file` on the text of the included file at `path`, at ranges of
/// that file's text.
pub(super) fn found_in_header(
    db: &dyn salsa::Database,
    file: File,
    path: &str,
) -> Vec<FileDiagnostic> {
    diagnostics(db, file)
        .into_iter()
        .filter_map(|d| {
            let header = d.header?;
            (header.source.path() == path).then_some(FileDiagnostic {
                range: header.range,
                header: None,
                included_from: header.sites,
                ..d
            })
        })
        .collect()
}

/// Whether the text of `file` includes the file at `path` (at any depth).
pub(super) fn includes(db: &dyn salsa::Database, file: File, path: &str) -> bool {
    file_units(db, file)
        .as_ref()
        .is_ok_and(|f| f.source.includes(path))
}

/// `d`, found at `span` of the normalized text of `source`.
fn placed(source: &SourceFile, d: &Diagnostic, span: Span) -> FileDiagnostic {
    let origin = source.origin(span);
    FileDiagnostic {
        range: source.original_span(span),
        severity: d.severity,
        code: d.code,
        message: d.message.clone(),
        header: origin.header.map(|(source, range)| InHeader {
            source,
            range,
            sites: origin.sites,
        }),
        included_from: Vec::new(),
    }
}
