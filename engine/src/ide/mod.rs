//! The editor's questions — inlay hints, hovers, code lenses, diagnostics — answered
//! from the database in plain terms: byte offsets into the file's text as given,
//! strings and numbers, never LSP types (the server converts, as rust-analyzer's `ide`
//! crate and its `rust-analyzer` binary split the work). Every answer reads only the
//! units it is about: hints for a range analyze the units in that range.

mod diagnostics;
mod hints;
mod hover;
mod label;
mod lenses;

pub use diagnostics::FileDiagnostic;
pub use hints::InlayHint;
pub use hover::Hover;
pub use lenses::CodeLens;

use crate::db::{Analysis, Cancellable, File, UnitText, file_units};
use crate::source::SourceFile;
use crate::span::Span;
use crate::syntax::UnitChunk;

impl Analysis {
    /// Hints at the end of the DO headers and assignments that end inside `range`
    /// (offsets into the file's text).
    pub fn inlay_hints(&self, path: &str, range: Span) -> Cancellable<Vec<InlayHint>> {
        let Some(file) = self.file_id(path) else {
            return Ok(Vec::new());
        };
        self.with_db(|db| hints::inlay_hints(db, file, range))
    }

    /// What is known of the statement, loop, directive or unit header at `offset`.
    pub fn hover(&self, path: &str, offset: u32) -> Cancellable<Option<Hover>> {
        let Some(file) = self.file_id(path) else {
            return Ok(None);
        };
        self.with_db(|db| hover::hover(db, file, offset))
    }

    /// One lens per procedure: how often it runs, its work per run and its wd.
    pub fn code_lenses(&self, path: &str) -> Cancellable<Vec<CodeLens>> {
        let Some(file) = self.file_id(path) else {
            return Ok(Vec::new());
        };
        self.with_db(|db| lenses::code_lenses(db, file))
    }

    /// Every finding on the file: loading, structure, parse and directive errors,
    /// notes on counts, imbalance warnings.
    pub fn diagnostics(&self, path: &str) -> Cancellable<Vec<FileDiagnostic>> {
        let Some(file) = self.file_id(path) else {
            return Ok(Vec::new());
        };
        self.with_db(|db| diagnostics::diagnostics(db, file))
    }
}

/// One unit of a file as the answers see it: its place and its key.
struct UnitAt<'a> {
    source: &'a SourceFile,
    chunk: &'a UnitChunk,
    unit: UnitText<'a>,
}

impl UnitAt<'_> {
    /// A span of the unit's text as offsets into the file's text.
    fn original(&self, span: Span) -> Span {
        self.source.original_span(self.chunk.file_span(span))
    }

    /// The 1-based line of a span of the unit's text.
    fn line(&self, span: Span) -> u32 {
        self.source.line_col(self.chunk.file_span(span).start).0
    }

    /// The unit's whole range in the file's text.
    fn range(&self) -> Span {
        self.source.original_span(self.chunk.range)
    }
}

/// The units of `file` (innermost last), with the file's source; empty for a file that
/// cannot be loaded.
fn units_of(db: &dyn salsa::Database, file: File) -> (Option<&SourceFile>, Vec<UnitAt<'_>>) {
    let Ok(f) = file_units(db, file) else {
        return (None, Vec::new());
    };
    let units = f
        .chunks
        .iter()
        .zip(&f.units)
        .map(|(chunk, &unit)| UnitAt {
            source: &f.source,
            chunk,
            unit,
        })
        .collect();
    (Some(&f.source), units)
}

/// Whether the half-open spans overlap (an empty span overlaps what contains it).
fn overlaps(a: Span, b: Span) -> bool {
    a.start <= b.end && b.start <= a.end
}

#[cfg(test)]
mod tests;
