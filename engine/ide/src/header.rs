//! Answers on the text of an included file (a header open in the editor, which is not
//! analyzed on its own): its offsets placed in the workspace's files that include it,
//! the units there that hold them, each seen from the header ([`UnitAt::view`]) so that
//! ranges and edits land in the header's text.

use super::UnitAt;
use costline_db::{File, file_units, lower};
use costline_syntax::span::Span;

/// A unit of an including file holding a header offset, and where in its own text.
pub(super) struct Placed<'a> {
    pub unit: UnitAt<'a>,
    pub own: u32,
}

/// The units of `files` seen from the header at `path`.
pub(super) fn viewed_units<'a>(
    db: &'a dyn salsa::Database,
    files: &[File],
    path: &'a str,
) -> Vec<UnitAt<'a>> {
    let mut out = Vec::new();
    for &file in files {
        let Ok(f) = file_units(db, file) else {
            continue;
        };
        if !f.source.includes(path) {
            continue;
        }
        out.extend(f.chunks.iter().zip(&f.units).map(|(chunk, &unit)| UnitAt {
            source: &f.source,
            chunk,
            unit,
            view: Some(path),
        }));
    }
    out
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
    for &file in files {
        let Ok(f) = file_units(db, file) else {
            continue;
        };
        for at in f.source.placements(path, offset) {
            let innermost = f
                .chunks
                .iter()
                .zip(&f.units)
                .filter_map(|(chunk, &unit)| Some((chunk, unit, chunk.own_offset(at)?)))
                .min_by_key(|(chunk, _, _)| chunk.range.end - chunk.range.start);
            if let Some((chunk, unit, own)) = innermost {
                out.push(Placed {
                    unit: UnitAt {
                        source: &f.source,
                        chunk,
                        unit,
                        view: Some(path),
                    },
                    own,
                });
            }
        }
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
