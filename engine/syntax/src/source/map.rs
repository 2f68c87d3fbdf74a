//! The position map between an original text and its normalized form, when the two
//! differ only by inserted characters (every other byte kept or replaced in place by
//! one of the same length).

use crate::span::Span;

/// Maps offsets between an original text and a normalized text made from it by
/// inserting characters.
///
/// Every byte not inserted maps exactly; an inserted byte maps to the original offset it
/// was inserted at (the original byte that follows it). The anchors are the normalized
/// and original offsets of the inserted bytes, so each lookup is a binary search:
/// O(log n) in the number of insertions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct PositionMap {
    /// Normalized offsets of the inserted bytes, increasing.
    inserted: Vec<u32>,
    /// For each inserted byte, the original offset it was inserted at (non-decreasing).
    at: Vec<u32>,
    original_len: u32,
    normalized_len: u32,
}

impl PositionMap {
    /// The identity map of a text of `len` bytes.
    pub fn identity(len: usize) -> PositionMap {
        let len = to_u32(len);
        PositionMap {
            inserted: Vec::new(),
            at: Vec::new(),
            original_len: len,
            normalized_len: len,
        }
    }

    /// Records `len` bytes inserted into the normalized text at `normalized`, before the
    /// original byte at `original`. Calls must come in text order.
    pub fn insert(&mut self, normalized: usize, original: usize, len: usize) {
        let (normalized, original) = (to_u32(normalized), to_u32(original));
        for i in 0..to_u32(len) {
            self.inserted.push(normalized.saturating_add(i));
            self.at.push(original);
        }
        self.normalized_len = self.normalized_len.saturating_add(to_u32(len));
    }

    /// The original offset of a normalized offset (clamped to the texts' ends).
    pub fn to_original(&self, normalized: u32) -> u32 {
        let normalized = normalized.min(self.normalized_len);
        let before = self.inserted.partition_point(|&n| n < normalized);
        if self.inserted.get(before) == Some(&normalized) {
            return self.at[before];
        }
        (normalized - to_u32(before)).min(self.original_len)
    }

    /// The normalized offset of an original offset (clamped to the texts' ends). Bytes
    /// inserted at `original` come before it.
    pub fn to_normalized(&self, original: u32) -> u32 {
        let original = original.min(self.original_len);
        let before = self.at.partition_point(|&o| o <= original);
        original.saturating_add(to_u32(before))
    }

    /// The original byte range of a normalized span (inserted bytes take no room).
    pub fn original_span(&self, span: Span) -> Span {
        let start = self.to_original(span.start);
        let end = self.to_original(span.end).max(start);
        Span { start, end }
    }

    /// The normalized byte range of an original span: bytes inserted at its end are
    /// left out, those inserted at its start are left out too.
    pub fn normalized_span(&self, span: Span) -> Span {
        let start = self.to_normalized(span.start);
        let end_original = span.end.min(self.original_len);
        let before_end = self.at.partition_point(|&o| o < end_original);
        let end = end_original.saturating_add(to_u32(before_end)).max(start);
        Span { start, end }
    }
}

fn to_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_around_insertions() {
        // original "ab\ncd", normalized "ab&\ncd": `&` inserted before original byte 2.
        let mut map = PositionMap::identity(5);
        map.insert(2, 2, 1);
        let to_original: Vec<u32> = (0..=6).map(|n| map.to_original(n)).collect();
        assert_eq!(to_original, [0, 1, 2, 2, 3, 4, 5]);
        let to_normalized: Vec<u32> = (0..=5).map(|o| map.to_normalized(o)).collect();
        assert_eq!(to_normalized, [0, 1, 3, 4, 5, 6]);
        assert_eq!(map.to_original(99), 5);
        assert_eq!(map.to_normalized(99), 6);
        assert_eq!(map.normalized_span(Span::new(0, 2)), Span::new(0, 2));
        assert_eq!(map.normalized_span(Span::new(2, 5)), Span::new(3, 6));
        assert_eq!(map.original_span(Span::new(0, 3)), Span::new(0, 2));
    }

    #[test]
    fn multi_byte_insertion() {
        // " &" inserted before original byte 1.
        let mut map = PositionMap::identity(3);
        map.insert(1, 1, 2);
        let to_original: Vec<u32> = (0..=5).map(|n| map.to_original(n)).collect();
        assert_eq!(to_original, [0, 1, 1, 1, 2, 3]);
        assert_eq!(map.to_normalized(1), 3);
    }
}
