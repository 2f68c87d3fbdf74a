//! Every finding on a file, at ranges of its text: loading and structure (file level),
//! duplicate modules, and each unit's parse, directive, count and imbalance findings.

use super::units_of;
use crate::db::{File, duplicate_modules, file_units, unit_diagnostics};
use crate::diagnostics::Severity;
use crate::span::Span;

/// A finding at a range of the file's text.
#[derive(Clone, Debug, PartialEq)]
pub struct FileDiagnostic {
    pub range: Span,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

pub(super) fn diagnostics(db: &dyn salsa::Database, file: File) -> Vec<FileDiagnostic> {
    let Ok(f) = file_units(db, file) else {
        return Vec::new();
    };
    let mut out: Vec<FileDiagnostic> = f
        .diagnostics
        .iter()
        .chain(&duplicate_modules(db, file))
        .map(|d| FileDiagnostic {
            range: f.source.original_span(d.span),
            severity: d.severity,
            code: d.code,
            message: d.message.clone(),
        })
        .collect();
    let (_, units) = units_of(db, file);
    for u in &units {
        out.extend(unit_diagnostics(db, u.unit).iter().map(|d| FileDiagnostic {
            range: u.original(d.span),
            severity: d.severity,
            code: d.code,
            message: d.message.clone(),
        }));
    }
    out.sort_by_key(|d| (d.range.start, d.range.end));
    out
}
