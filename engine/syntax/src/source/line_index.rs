//! Line starts of a text, and conversions between byte offsets and (line, column)
//! positions, columns counted either in Unicode scalar values or in UTF-16 code units.

/// One line of a text: `start..end` is its content, `next` the start of the following
/// line (after the terminator; equal to `end` on the last line without a terminator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

/// The lines of `text`. Line terminators are `\n`, `\r\n` and a lone `\r` (the three
/// the LSP specification recognizes). A text ending in a terminator has no empty line
/// after it; an empty text has none at all.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = Line> + '_ {
    let bytes = text.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let end = memchr::memchr2(b'\n', b'\r', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let next = match bytes.get(end) {
            Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
            Some(_) => end + 1,
            None => end,
        };
        pos = next;
        Some(Line { start, end, next })
    })
}

/// A non-ASCII character: where it starts and how many UTF-8 bytes it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Wide {
    offset: u32,
    utf8_len: u8,
}

impl Wide {
    fn utf16_len(self) -> u32 {
        if self.utf8_len == 4 { 2 } else { 1 }
    }
}

/// Line starts and non-ASCII characters of a text, for O(log n) conversions between
/// byte offsets and 1-based (line, column) positions.
///
/// Lines end at `\n`, `\r\n` or a lone `\r`. Columns count Unicode scalar values
/// ([`LineIndex::line_col`]) or UTF-16 code units ([`LineIndex::utf16_col`]), both
/// 1-based. An offset inside a multi-byte character is treated as that character's
/// start; an offset past the end of the text as the end of the text. A byte-order mark
/// at the start of the text takes no column (editors do not show it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LineIndex {
    /// Byte offset of the first character of each line; `starts[0] == 0`.
    starts: Vec<u32>,
    /// Byte offset of the end of each line's content (where its terminator starts).
    ends: Vec<u32>,
    /// Every non-ASCII character, in text order.
    wide: Vec<Wide>,
    /// The length of a byte-order mark at the start of the text (0 or 3).
    bom: u32,
    len: u32,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let (mut starts, mut ends) = if memchr::memchr(b'\r', bytes).is_none() {
            // Only `\n` ends lines: its positions, found at memory speed.
            let count = memchr::memchr_iter(b'\n', bytes).count() + 1;
            let mut starts = Vec::with_capacity(count + 1);
            let mut ends = Vec::with_capacity(count + 1);
            let mut start = 0;
            for at in memchr::memchr_iter(b'\n', bytes) {
                starts.push(to_u32(start));
                ends.push(to_u32(at));
                start = at + 1;
            }
            if start < bytes.len() {
                starts.push(to_u32(start));
                ends.push(to_u32(bytes.len()));
            }
            (starts, ends)
        } else {
            lines(text)
                .map(|line| (to_u32(line.start), to_u32(line.end)))
                .unzip()
        };
        // An empty text, or one ending in a terminator, has an empty last line.
        if text.is_empty() || text.ends_with(['\n', '\r']) {
            starts.push(to_u32(text.len()));
            ends.push(to_u32(text.len()));
        }
        let wide = if text.is_ascii() {
            Vec::new()
        } else {
            text.char_indices()
                .filter(|(_, c)| !c.is_ascii())
                .map(|(offset, c)| Wide {
                    offset: to_u32(offset),
                    utf8_len: u8::try_from(c.len_utf8()).unwrap_or(4),
                })
                .collect()
        };
        LineIndex {
            starts,
            ends,
            wide,
            bom: if text.starts_with('\u{feff}') { 3 } else { 0 },
            len: to_u32(text.len()),
        }
    }

    /// The index of `text`, made from `self`, the index of the text before an edit that
    /// put `text[from..new_to]` in place of the bytes `from..old_to`: the lines before the
    /// edit are kept, the lines it touched indexed again, the lines after it moved. The
    /// same as [`LineIndex::new`] of `text` (a carriage return near the edit, or an edit
    /// at the very start, index the whole text).
    pub fn edited(&self, text: &str, from: usize, old_to: usize, new_to: usize) -> LineIndex {
        let bytes = text.as_bytes();
        let near = &bytes[from.saturating_sub(1).min(bytes.len())..(new_to + 1).min(bytes.len())];
        if from < 3 || near.contains(&b'\r') || self.len as usize != bytes.len() + old_to - new_to {
            return LineIndex::new(text);
        }
        let delta = new_to as i64 - old_to as i64;
        let moved = |o: u32| (o as i64 + delta) as u32;
        // The old lines: those starting at or before `from` but the last (kept, but the
        // one holding `from` indexed again), and those starting after `old_to` (moved).
        let k = self
            .starts
            .partition_point(|&s| s as usize <= from)
            .saturating_sub(1);
        let after = self.starts.partition_point(|&s| s as usize <= old_to);
        let region_start = self.starts[k] as usize;
        // Where the lines after the edit start, before it and now.
        let old_region_end = self.starts.get(after).map_or(self.len, |&s| s);
        let region_end = (old_region_end as i64 + delta) as usize;
        // The old index's empty last line (after a final terminator) is the new one's to
        // make, as `new` does.
        let after_lines = if after < self.starts.len() {
            let last_empty = self.len > 0
                && *self.starts.last().unwrap_or(&0) == self.len
                && self.starts.len() > after;
            let end = self.starts.len() - usize::from(last_empty);
            after..end.max(after)
        } else {
            after..after
        };
        let mut starts = Vec::with_capacity(self.starts.len() + 8);
        let mut ends = Vec::with_capacity(self.starts.len() + 8);
        starts.extend_from_slice(&self.starts[..k]);
        ends.extend_from_slice(&self.ends[..k]);
        for line in lines(&text[region_start..region_end]) {
            starts.push(to_u32(region_start + line.start));
            ends.push(to_u32(region_start + line.end));
        }
        starts.extend(self.starts[after_lines.clone()].iter().map(|&s| moved(s)));
        ends.extend(self.ends[after_lines].iter().map(|&e| moved(e)));
        if text.is_empty() || text.ends_with(['\n', '\r']) {
            starts.push(to_u32(text.len()));
            ends.push(to_u32(text.len()));
        }
        let kept = self
            .wide
            .partition_point(|w| (w.offset as usize) < region_start);
        let later = self.wide.partition_point(|w| w.offset < old_region_end);
        let mut wide = self.wide[..kept].to_vec();
        let region = &text[region_start..region_end];
        if !region.is_ascii() {
            wide.extend(
                region
                    .char_indices()
                    .filter(|(_, c)| !c.is_ascii())
                    .map(|(o, c)| Wide {
                        offset: to_u32(region_start + o),
                        utf8_len: u8::try_from(c.len_utf8()).unwrap_or(4),
                    }),
            );
        }
        wide.extend(self.wide[later..].iter().map(|w| Wide {
            offset: moved(w.offset),
            utf8_len: w.utf8_len,
        }));
        LineIndex {
            starts,
            ends,
            wide,
            bom: self.bom,
            len: to_u32(text.len()),
        }
    }

    /// The number of lines (an empty text has one empty line; a text ending in a
    /// terminator has an empty last line after it).
    pub fn line_count(&self) -> u32 {
        to_u32(self.starts.len())
    }

    /// The length in bytes of the indexed text.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the indexed text is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The byte offset where 1-based `line` starts, `None` past the last line.
    pub fn line_start(&self, line: u32) -> Option<u32> {
        let index = usize::try_from(line.checked_sub(1)?).ok()?;
        self.starts.get(index).copied()
    }

    /// The 1-based line and column (in Unicode scalar values) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let (line, start, offset) = self.locate(offset);
        let (chars, _) = self.count_columns(start, offset);
        (line, chars + 1)
    }

    /// The 1-based column in UTF-16 code units of a byte offset (its line is the one
    /// [`LineIndex::line_col`] reports).
    pub fn utf16_col(&self, offset: u32) -> u32 {
        let (_, start, offset) = self.locate(offset);
        let (_, utf16) = self.count_columns(start, offset);
        utf16 + 1
    }

    /// The 1-based column in bytes of a byte offset (moved back to the start of the
    /// character it falls in; its line is the one [`LineIndex::line_col`] reports).
    pub fn utf8_col(&self, offset: u32) -> u32 {
        let (_, start, offset) = self.locate(offset);
        offset - start + 1
    }

    /// The byte offset of a 1-based line and 1-based byte column, clamped to the end of
    /// the line's content and moved back to the start of the character it falls in.
    pub fn offset_of_utf8(&self, line: u32, utf8_col: u32) -> u32 {
        let Some(start) = self.line_start(line) else {
            return self.len;
        };
        let start = if line == 1 { self.bom } else { start };
        let offset = start
            .saturating_add(utf8_col.saturating_sub(1))
            .min(self.content_end(line));
        self.locate(offset).2
    }

    /// The byte offset of a 1-based line and 1-based UTF-16 column. A line past the
    /// last one gives the end of the text; a column past the end of its line gives
    /// the end of the line's content (before its terminator); a column inside a
    /// surrogate pair gives the start of that character.
    pub fn offset_of_utf16(&self, line: u32, utf16_col: u32) -> u32 {
        let Some(start) = self.line_start(line) else {
            return self.len;
        };
        let start = if line == 1 { self.bom } else { start };
        let line_end = self.content_end(line);
        let mut remaining = utf16_col.saturating_sub(1);
        let mut offset = start;
        let first = self.wide.partition_point(|w| w.offset < start);
        for w in &self.wide[first..] {
            if w.offset >= line_end {
                break;
            }
            let ascii_run = w.offset - offset;
            if remaining <= ascii_run {
                return offset + remaining;
            }
            remaining -= ascii_run;
            if remaining < w.utf16_len() {
                return w.offset;
            }
            remaining -= w.utf16_len();
            offset = w.offset + u32::from(w.utf8_len);
        }
        offset.saturating_add(remaining).min(line_end)
    }

    /// The 1-based line of `offset`, where its columns start (after a byte-order mark),
    /// and `offset` clamped to the text and moved back to the start of the character it
    /// falls in.
    fn locate(&self, offset: u32) -> (u32, u32, u32) {
        let mut offset = offset.min(self.len);
        let w = self.wide.partition_point(|w| w.offset <= offset);
        if let Some(prev) = w.checked_sub(1).and_then(|i| self.wide.get(i))
            && offset < prev.offset + u32::from(prev.utf8_len)
        {
            offset = prev.offset;
        }
        let index = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = match index {
            0 => self.bom,
            _ => self.starts.get(index).copied().unwrap_or(0),
        };
        // An offset inside a line's terminator (the `\n` of a `\r\n`) is its line's end.
        let end = self.ends.get(index).copied().unwrap_or(self.len);
        (to_u32(index + 1), start, offset.min(end).max(start))
    }

    /// Scalar values and UTF-16 code units in `start..end` (both on character boundaries).
    fn count_columns(&self, start: u32, end: u32) -> (u32, u32) {
        let first = self.wide.partition_point(|w| w.offset < start);
        let last = self.wide.partition_point(|w| w.offset < end);
        let wide = &self.wide[first..last.max(first)];
        let extra_bytes: u32 = wide.iter().map(|w| u32::from(w.utf8_len) - 1).sum();
        let chars = (end - start).saturating_sub(extra_bytes);
        let pairs = to_u32(wide.iter().filter(|w| w.utf8_len == 4).count());
        (chars, chars + pairs)
    }

    /// The end of the content of 1-based `line` (before its terminator).
    fn content_end(&self, line: u32) -> u32 {
        usize::try_from(line.saturating_sub(1))
            .ok()
            .and_then(|i| self.ends.get(i))
            .copied()
            .unwrap_or(self.len)
    }
}

fn to_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_index_is_the_index_of_the_edited_text() {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let pieces = [
            "a", "\n", "xyz\n", "é", "😀", "\n\n", "  ", "", "\r\n", "\r",
        ];
        for round in 0..40_000 {
            // Most texts without carriage returns (those are indexed anew).
            let choices = if round % 4 == 0 { pieces.len() } else { 6 };
            let mut text = String::new();
            for _ in 0..next(40) {
                text.push_str(pieces[next(choices)]);
            }
            let old = LineIndex::new(&text);
            let mut from = next(text.len() + 1);
            while !text.is_char_boundary(from) {
                from -= 1;
            }
            let mut old_to = from + next(text.len() - from + 1);
            while !text.is_char_boundary(old_to) {
                old_to -= 1;
            }
            let insert = pieces[next(pieces.len())];
            let mut edited = text.clone();
            edited.replace_range(from..old_to, insert);
            let got = old.edited(&edited, from, old_to, from + insert.len());
            assert_eq!(got, LineIndex::new(&edited), "{text:?} → {edited:?}");
        }
    }

    #[test]
    fn lines_end_at_every_terminator() {
        let text = "a\nbc\r\nd\re";
        let all: Vec<(usize, usize, usize)> =
            lines(text).map(|l| (l.start, l.end, l.next)).collect();
        assert_eq!(all, [(0, 1, 2), (2, 4, 6), (6, 7, 8), (8, 9, 9)]);
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        assert_eq!(index.line_start(3), Some(6));
        assert_eq!(index.line_start(0), None);
        assert_eq!(index.line_start(5), None);
        assert_eq!(index.line_col(4), (2, 3));
        // Inside `\r\n`: the end of its line, not a column past it.
        assert_eq!(index.line_col(5), (2, 3));
        assert_eq!(LineIndex::new("\r\n  x = 1\n").line_col(1), (1, 1));
        assert_eq!(index.line_col(9), (4, 2));
        assert_eq!(index.line_col(100), (4, 2));
        assert_eq!((index.len(), index.is_empty()), (9, false));
    }

    #[test]
    fn byte_columns_round_trip_and_clamp() {
        let text = "aé😀b\ncd\n";
        let index = LineIndex::new(text);
        for (offset, _) in text.char_indices() {
            let offset = offset as u32;
            let (line, _) = index.line_col(offset);
            assert_eq!(index.offset_of_utf8(line, index.utf8_col(offset)), offset);
        }
        // Inside `é` (bytes 1..3): back to its start; past the line: its end.
        assert_eq!(index.offset_of_utf8(1, 3), 1);
        assert_eq!(index.offset_of_utf8(1, 99), 8);
        assert_eq!(index.utf8_col(9), 1);
        assert_eq!(index.offset_of_utf8(5, 1), text.len() as u32);
    }

    #[test]
    fn a_byte_order_mark_takes_no_column() {
        let index = LineIndex::new("\u{feff}ab\ncd");
        assert_eq!(index.line_col(0), (1, 1));
        assert_eq!(index.line_col(3), (1, 1));
        assert_eq!(index.line_col(4), (1, 2));
        assert_eq!(index.utf16_col(4), 2);
        assert_eq!(index.line_col(7), (2, 2));
        assert_eq!(index.offset_of_utf16(1, 1), 3);
        assert_eq!(index.line_start(1), Some(0));
    }

    #[test]
    fn empty_and_terminated_texts() {
        let empty = LineIndex::new("");
        assert_eq!((empty.line_count(), empty.line_col(0)), (1, (1, 1)));
        assert!(empty.is_empty());
        let terminated = LineIndex::new("x\n");
        assert_eq!(terminated.line_count(), 2);
        assert_eq!(terminated.line_col(2), (2, 1));
        assert_eq!(terminated.offset_of_utf16(2, 1), 2);
    }

    #[test]
    fn columns_count_scalar_values_and_utf16_units() {
        // 'é' is 2 bytes and 1 UTF-16 unit; '😀' is 4 bytes and 2 units.
        let text = "x\né😀z\n";
        let index = LineIndex::new(text);
        let z = text.find('z').unwrap() as u32;
        assert_eq!(index.line_col(z), (2, 3));
        assert_eq!(index.utf16_col(z), 4);
        // Inside a character: that character's position.
        assert_eq!(index.line_col(z - 1), (2, 2));
        assert_eq!(index.utf16_col(z - 1), 2);
        assert_eq!(index.offset_of_utf16(2, 1), 2);
        assert_eq!(index.offset_of_utf16(2, 2), 4);
        assert_eq!(index.offset_of_utf16(2, 3), 4);
        assert_eq!(index.offset_of_utf16(2, 4), z);
        assert_eq!(index.offset_of_utf16(2, 5), z + 1);
        assert_eq!(index.offset_of_utf16(2, 99), z + 1);
        assert_eq!(index.offset_of_utf16(1, 99), 1);
        assert_eq!(index.offset_of_utf16(9, 1), text.len() as u32);
        for offset in 0..=text.len() as u32 {
            let (line, _) = index.line_col(offset);
            let back = index.offset_of_utf16(line, index.utf16_col(offset));
            assert!(back <= offset && offset - back < 4, "{offset} -> {back}");
        }
    }
}
