//! Byte ranges into source text.

use serde::Serialize;

/// A half-open byte range `start..end`.
///
/// What the offsets are relative to depends on the owner: items of a lowered
/// [`Unit`](crate::ir::Unit) are relative to the start of that unit's text (so moving a
/// unit inside its file changes none of them), file-level items are relative to the
/// start of the file's normalized text. [`crate::source::SourceFile`] maps both back to
/// original lines and columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: clamp_u32(start),
            end: clamp_u32(end.max(start)),
        }
    }

    /// The empty span at `offset`.
    pub fn at(offset: usize) -> Span {
        Span::new(offset, offset)
    }

    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// This span moved right by `offset` bytes.
    pub fn shifted(self, offset: u32) -> Span {
        Span {
            start: self.start.saturating_add(offset),
            end: self.end.saturating_add(offset),
        }
    }
}

fn clamp_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
