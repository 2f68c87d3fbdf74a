//! Included files' texts placed into a file's text, and the map between the spliced
//! text and the file's own normalized text.
//!
//! An included file's normalized text (itself spliced, when it includes others) goes
//! right after its INCLUDE line, which is blanked; the parser and the unit split see one
//! text, as a compiler does. Offsets outside the included texts map to the file's own
//! text by a shift; an offset inside one maps to its INCLUDE line here, and to its
//! place in the included file through [`Splices::containing`].

use crate::span::Span;
use std::sync::Arc;

use super::SourceFile;
use super::include::IncludeLine;

/// One included text in a spliced text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Inclusion {
    /// The INCLUDE line (offsets into the own text).
    pub line: Span,
    /// Where the included text was inserted in the own text (the start of the next line).
    at: u32,
    /// Where the included text sits in the spliced text, newlines added around it
    /// included.
    pub range: Span,
    /// Bytes at the start of `range` that precede the included text (a newline when the
    /// INCLUDE line is the file's last and unterminated).
    lead: u32,
    /// The included file.
    pub source: Arc<SourceFile>,
}

impl Inclusion {
    /// The offset in the spliced text of an offset in the included file's text.
    pub fn outer(&self, inner: u32) -> u32 {
        inner
            .saturating_add(self.range.start + self.lead)
            .min(self.range.end)
    }

    /// The offset in the included file's (spliced) text of an offset in `range`.
    pub fn inner(&self, offset: u32) -> u32 {
        let len = self.source.normalized().len();
        offset
            .saturating_sub(self.range.start + self.lead)
            .min(u32::try_from(len).unwrap_or(u32::MAX))
    }
}

/// The inclusions of a text, in text order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Splices {
    items: Vec<Inclusion>,
}

impl Splices {
    /// Builds the spliced text of `own` with each file's text placed after its line;
    /// `included` in text order.
    pub fn build(own: &str, included: Vec<(IncludeLine, Arc<SourceFile>)>) -> (String, Splices) {
        let extra: usize = included.iter().map(|(_, s)| s.normalized().len() + 2).sum();
        let mut text = String::with_capacity(own.len() + extra);
        let mut items = Vec::with_capacity(included.len());
        let mut last = 0usize;
        for (line, source) in included {
            let at = (line.next as usize).clamp(last, own.len());
            text.push_str(&own[last..at]);
            let start = text.len();
            let lead = if at == line.span.end as usize {
                text.push('\n');
                1
            } else {
                0
            };
            let inner = source.normalized();
            text.push_str(inner);
            if !inner.is_empty() && !inner.ends_with(['\n', '\r']) {
                text.push('\n');
            }
            items.push(Inclusion {
                line: line.span,
                at: to_u32(at),
                range: Span::new(start, text.len()),
                lead,
                source,
            });
            last = at;
        }
        text.push_str(&own[last..]);
        (text, Splices { items })
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Inclusion> {
        self.items.iter()
    }

    /// The last inclusion that starts at or before `offset` of the spliced text.
    fn before(&self, offset: u32) -> Option<&Inclusion> {
        let k = self.items.partition_point(|i| i.range.start <= offset);
        k.checked_sub(1).map(|k| &self.items[k])
    }

    /// The own-text offset of a spliced offset; an offset inside an included text maps
    /// to the start of its INCLUDE line (`end`: to the end of it).
    pub fn to_own(&self, offset: u32, end: bool) -> u32 {
        match self.before(offset) {
            None => offset,
            Some(i)
                if offset < i.range.end
                    || (end && offset == i.range.end && i.range.start < i.range.end) =>
            {
                if end {
                    i.line.end
                } else {
                    i.line.start
                }
            }
            Some(i) => offset - (i.range.end - i.at),
        }
    }

    /// The spliced offset of an own-text offset.
    pub fn to_spliced(&self, offset: u32) -> u32 {
        let k = self.items.partition_point(|i| i.at <= offset);
        match k.checked_sub(1) {
            None => offset,
            Some(k) => {
                let i = &self.items[k];
                offset.saturating_add(i.range.end - i.at)
            }
        }
    }

    /// The own-text span of a spliced span (an end inside an included text maps to the
    /// end of its INCLUDE line).
    pub fn own_span(&self, span: Span) -> Span {
        let start = self.to_own(span.start, false);
        let end = if span.end > span.start {
            self.to_own(span.end, true)
        } else {
            start
        };
        Span {
            start,
            end: end.max(start),
        }
    }

    /// The inclusion whose included text holds all of `span` (a non-empty span may end
    /// where the text ends).
    pub fn containing(&self, span: Span) -> Option<&Inclusion> {
        let i = self.before(span.start)?;
        (span.start < i.range.end && span.end <= i.range.end).then_some(i)
    }
}

fn to_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
