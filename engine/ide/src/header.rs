//! Answers on the text of an included file (a header open in the editor, which is not
//! analyzed on its own): its offsets placed in the workspace's files that include it,
//! the units there that hold them, each seen from the header ([`UnitAt::view`]) so that
//! ranges and edits land in the header's text.

use super::{UnitAt, innermost_unit, units_in};
use costline_db::{File, file_units, lower};
use costline_syntax::span::Span;

/// A unit of an including file holding a header offset, and where in its own text.
pub(super) struct Placed<'a> {
    pub unit: UnitAt<'a>,
    pub own: u32,
}

/// The units of those of `files` that include the header at `path`, seen from it.
pub(super) fn viewed_units<'a>(
    db: &'a dyn salsa::Database,
    files: &[File],
    path: &'a str,
) -> Vec<UnitAt<'a>> {
    files
        .iter()
        .filter_map(|&file| file_units(db, file).as_ref().ok())
        .filter(|f| f.source.includes(path))
        .flat_map(|f| units_in(f, Some(path)))
        .collect()
}

/// Each place of the header's `offset` (original) in `files`: the innermost unit
/// holding it there, in file order and text order.
pub(super) fn placed<'a>(
    db: &'a dyn salsa::Database,
    files: &[File],
    path: &'a str,
    offset: u32,
) -> Vec<Placed<'a>> {
    let mut out = Vec::new();
    for f in files
        .iter()
        .filter_map(|&file| file_units(db, file).as_ref().ok())
    {
        let at = f.source.placements(path, offset);
        if at.is_empty() {
            continue;
        }
        let units = units_in(f, Some(path));
        out.extend(at.into_iter().filter_map(|at| {
            let (u, own) = innermost_unit(&units, at)?;
            Some(Placed {
                unit: u.clone(),
                own,
            })
        }));
    }
    out
}

/// The units (seen from the header) whose text holds the header's directive written at
/// `range`, each with the directive's index in its IR.
pub(super) fn directive_units<'a>(
    db: &'a dyn salsa::Database,
    files: &[File],
    path: &'a str,
    range: Span,
) -> Vec<(UnitAt<'a>, usize)> {
    viewed_units(db, files, path)
        .into_iter()
        .filter_map(|u| {
            let ir = lower(db, u.unit);
            let i = ir
                .directives
                .iter()
                .position(|d| u.written_here(d.span) && u.original(d.span) == range)?;
            Some((u, i))
        })
        .collect()
}

/// The last component of a path, for naming an including file.
pub(super) fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
