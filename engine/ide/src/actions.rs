//! Code actions: quick fixes the user can accept. Each is a title and text edits at
//! ranges of the file's text; nothing is changed until the editor applies them.
//!
//! - `poor-locality`: interchange the innermost loop with its parent (the two DO
//!   headers swap places), when the interchange is legal (see `cache::locality`).

use super::{overlaps, units_of};
use costline_db::{File, locality};
use costline_syntax::span::Span;

/// A quick fix.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeAction {
    pub title: String,
    /// The diagnostic code it fixes.
    pub fixes: &'static str,
    /// Where the fixed diagnostic is (offsets into the file's text).
    pub diagnostic: Span,
    /// Replacements at ranges of the file's text (non-overlapping).
    pub edits: Vec<(Span, String)>,
    /// The time per run of the unit the edited file is predicted to take (of the
    /// program, for a directive in a header), when the action promises one (a
    /// distribution alternative), seconds.
    pub promised_s: Option<f64>,
}

pub(super) fn code_actions(db: &dyn salsa::Database, file: File, range: Span) -> Vec<CodeAction> {
    let (source, units) = units_of(db, file);
    let Some(source) = source else {
        return Vec::new();
    };
    let text = source.original();
    let mut out = Vec::new();
    for u in &units {
        if !overlaps(u.range(), range) {
            continue;
        }
        // Loops of an included file are not rewritten from here.
        for f in locality(db, u.unit)
            .iter()
            .filter(|f| u.written_here(f.header))
        {
            let header = u.original(f.header);
            if !overlaps(header, range) {
                continue;
            }
            let Some((outer, inner)) = f.interchange else {
                continue;
            };
            let (outer, inner) = (u.original(outer), u.original(inner));
            let slice = |s: Span| text.get(s.start as usize..s.end as usize);
            let (Some(a), Some(b)) = (slice(outer), slice(inner)) else {
                continue;
            };
            // A header continued over lines (fixed form) is not moved as text.
            if a.contains('\n') || b.contains('\n') {
                continue;
            }
            out.push(CodeAction {
                title: format!("Interchange loops: `{}` ↔ `{}`", a.trim(), b.trim()),
                fixes: "poor-locality",
                diagnostic: header,
                edits: vec![(outer, b.to_string()), (inner, a.to_string())],
                promised_s: None,
            });
        }
    }
    out
}
