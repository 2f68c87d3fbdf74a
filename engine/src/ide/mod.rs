//! The editor's questions — inlay hints, hovers, code lenses, diagnostics — answered
//! from the database in plain terms: byte offsets into the file's text as given,
//! strings and numbers, never LSP types (the server converts, as rust-analyzer's `ide`
//! crate and its `rust-analyzer` binary split the work). Every answer reads only the
//! units it is about: hints for a range analyze the units in that range.

mod actions;
mod cache_hover;
mod comm_hover;
pub mod compare;
mod diagnostics;
mod directive_edit;
mod distribution;
mod hints;
mod hover;
pub(crate) mod label;
mod lenses;
mod time_hover;

pub use actions::CodeAction;
pub use diagnostics::{FileDiagnostic, InHeader};
pub use hints::InlayHint;
pub use hover::Hover;
pub use lenses::CodeLens;

use crate::db::{Analysis, Cancellable, File, UnitText, file_units, stmt_load};
use crate::freq::Counts;
use crate::ir::StmtId;
use crate::source::SourceFile;
use crate::span::Span;
use crate::syntax::UnitChunk;
use crate::work::imbalance::Numbers;

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
        self.analyze_units(file)?;
        self.with_db(|db| lenses::code_lenses(db, file))
    }

    /// The quick fixes for the findings in `range` (offsets into the file's text).
    pub fn code_actions(&self, path: &str, range: Span) -> Cancellable<Vec<CodeAction>> {
        let Some(file) = self.file_id(path) else {
            return Ok(Vec::new());
        };
        let mut out = self.with_db(|db| actions::code_actions(db, file, range))?;
        out.extend(distribution::distribution_actions(self, path, file, range)?);
        Ok(out)
    }

    /// Every finding on the file: loading, structure, parse and directive errors,
    /// notes on counts, imbalance warnings. For an included file outside the
    /// workspace: what the workspace's files that include it found in its text, once
    /// each.
    pub fn diagnostics(&self, path: &str) -> Cancellable<Vec<FileDiagnostic>> {
        let Some(file) = self.file_id(path) else {
            return self.header_diagnostics(path);
        };
        self.analyze_units(file)?;
        self.with_db(|db| diagnostics::diagnostics(db, file))
    }

    /// The findings of the workspace's files in the text of the included file at `path`.
    fn header_diagnostics(&self, path: &str) -> Cancellable<Vec<FileDiagnostic>> {
        if self.header_id(path).is_none() {
            return Ok(Vec::new());
        }
        let mut out: Vec<FileDiagnostic> = Vec::new();
        for p in self.paths() {
            let Some(file) = self.file_id(&p) else {
                continue;
            };
            if !self.with_db(|db| diagnostics::includes(db, file, path))? {
                continue;
            }
            self.analyze_units(file)?;
            for d in self.with_db(|db| diagnostics::found_in_header(db, file, path))? {
                let seen = out
                    .iter()
                    .any(|o| o.range == d.range && o.code == d.code && o.message == d.message);
                if !seen {
                    out.push(d);
                }
            }
        }
        out.sort_by_key(|d| (d.range.start, d.range.end));
        Ok(out)
    }

    /// Analyzes every unit of `file` on all cores (units dealt round-robin), so that a whole-file answer after a cold open does not analyze its
    /// procedures one after the other. Memoized: a second call costs a lookup per unit.
    fn analyze_units(&self, file: File) -> Cancellable<()> {
        self.on_all_cores(&|db, k, threads| {
            let Ok(f) = file_units(db, file) else { return };
            for &unit in f.units.iter().skip(k).step_by(threads) {
                crate::db::unit_diagnostics(db, unit);
            }
        })
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

    /// Whether a span of the unit's text was written in the file itself, not in a file
    /// it includes (whose text an edit or a hint in this file must not target).
    fn written_here(&self, span: Span) -> bool {
        self.source
            .origin(self.chunk.file_span(span))
            .header
            .is_none()
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

/// The numbers of a unit, work evaluated statement by statement as asked.
struct Lazy<'a> {
    db: &'a dyn salsa::Database,
    unit: UnitText<'a>,
    counts: &'a Counts,
}

impl Numbers for Lazy<'_> {
    fn freq(&self, id: StmtId) -> Option<f64> {
        Some(self.counts.freq(id)?.as_ref().ok()?.to_f64())
    }

    fn wd(&self, id: StmtId) -> Option<f64> {
        stmt_load(self.db, self.unit, id).as_ref().map(|l| l.wd())
    }
}

/// Whether the half-open spans overlap (an empty span overlaps what contains it).
fn overlaps(a: Span, b: Span) -> bool {
    a.start <= b.end && b.start <= a.end
}

#[cfg(test)]
mod tests;
