//! The editor's questions — inlay hints, hovers, code lenses, diagnostics — answered
//! from the database in plain terms: byte offsets into the file's text as given,
//! strings and numbers, never LSP types (the server converts, as rust-analyzer's `ide`
//! crate and its `rust-analyzer` binary split the work). Every answer reads only the
//! units it is about: hints for a range analyze the units in that range.

mod actions;
mod analysis;
mod cache_hover;
pub mod codes;
mod comm_hover;
pub mod compare;
pub mod completeness;
pub mod coverage;
mod diagnostics;
mod directive_edit;
mod distribution;
mod header;
mod header_actions;
mod header_directive;
mod hints;
mod hover;
pub mod label;
mod lenses;
mod mpi_hover;
pub mod profile;
mod program_alternatives;
mod program_files;
pub mod report;
mod time_hover;

pub use actions::CodeAction;
pub use analysis::{Analysis, AnalysisHost};
pub use diagnostics::{FileDiagnostic, InHeader};
pub use hints::InlayHint;
pub use hover::Hover;
pub use lenses::CodeLens;

// What the front ends need of the layers below, named here so that they see this crate
// only: the settings, cancellation, positions and severities, machine models (listed,
// trained and written by the binary), the scaling results compare prints, and the
// compiler's reports the binary asks for.
pub use costline_db::{
    ANALYSIS_STACK, Cancellable, CompilerOutput, Options, Profile, content_hash,
};
pub use costline_model::comm::Network;
pub use costline_model::comm::mpi::library_time;
pub use costline_model::time::compiler_report;
pub use costline_model::{machine, scaling};
pub use costline_syntax::diagnostics::Severity;
pub use costline_syntax::source::LineIndex;
pub use costline_syntax::source::file as files;
pub use costline_syntax::span::Span;

use costline_db::{File, FileUnits, UnitText, file_units, stmt_load};
use costline_model::freq::Counts;
use costline_model::work::imbalance::Numbers;
use costline_syntax::UnitChunk;
use costline_syntax::ir::StmtId;
use costline_syntax::source::SourceFile;
use std::sync::Arc;

/// One unit of a file as the answers see it: its place and its key.
#[derive(Clone)]
struct UnitAt<'a> {
    source: &'a SourceFile,
    chunk: &'a UnitChunk,
    unit: UnitText<'a>,
    /// The included file the answer is about (its path), when it is not the file
    /// itself: a header open in the editor, answered through a file that includes it.
    view: Option<&'a str>,
}

impl UnitAt<'_> {
    /// The viewed header's text of a span of the unit's text: `Some` when the header
    /// holds all of it.
    fn in_view(&self, span: Span) -> Option<(Arc<SourceFile>, Span)> {
        let view = self.view?;
        let (header, range) = self.source.origin(self.chunk.file_span(span)).header?;
        (header.path() == view).then_some((header, range))
    }

    /// A span of the unit's text as offsets into the text the answer is about: the
    /// file's, or the viewed header's (an empty span at its start for a span it does not
    /// hold: check [`UnitAt::written_here`] first).
    fn original(&self, span: Span) -> Span {
        match self.view {
            None => self.source.original_span(self.chunk.file_span(span)),
            Some(_) => self.in_view(span).map(|(_, r)| r).unwrap_or_default(),
        }
    }

    /// The 1-based line of a span of the unit's text: in the viewed header when it holds
    /// it, else in the file (of an included text: its INCLUDE line's).
    fn line(&self, span: Span) -> u32 {
        if let Some((header, range)) = self.in_view(span) {
            return header.line_index().line_col(range.start).0;
        }
        self.source.line_col(self.chunk.file_span(span).start).0
    }

    /// Whether a span of the unit's text was written in the text the answer is about
    /// (the file itself, not a file it includes; or the viewed header): an edit or a
    /// hint must not target another file's text.
    fn written_here(&self, span: Span) -> bool {
        match self.view {
            None => self
                .source
                .origin(self.chunk.file_span(span))
                .header
                .is_none(),
            Some(_) => self.in_view(span).is_some(),
        }
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
    (Some(&f.source), units_in(f, None))
}

/// The units of a file's split, seen from `view` (see [`UnitAt::view`]).
fn units_in<'a>(f: &'a FileUnits, view: Option<&'a str>) -> Vec<UnitAt<'a>> {
    f.chunks
        .iter()
        .zip(&f.units)
        .map(|(chunk, &unit)| UnitAt {
            source: &f.source,
            chunk,
            unit,
            view,
        })
        .collect()
}

/// The innermost of `units` holding `at` (an offset of their file's spliced text) in
/// its own text, and the offset there.
fn innermost_unit<'u, 'a>(units: &'u [UnitAt<'a>], at: u32) -> Option<(&'u UnitAt<'a>, u32)> {
    units
        .iter()
        .filter_map(|u| Some((u, u.chunk.own_offset(at)?)))
        .min_by_key(|(u, _)| u.chunk.range.end - u.chunk.range.start)
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
