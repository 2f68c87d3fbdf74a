//! Fixed form to free form, line for line: the text tree-sitter-fortran reads well,
//! with every line where it was. Edits replace characters in place by as many bytes,
//! except the `&` inserted at the end of a line that the next statement line continues.

use crate::diagnostics::Diagnostic;
use crate::span::Span;

use super::line_index::lines;
use super::map::PositionMap;

/// Columns 1–5 (label field) and 6 (continuation mark) come before the statement text.
const TEXT_COLUMN: usize = 7;

/// A free-form text converted from fixed form, with its map and notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Converted {
    pub text: String,
    pub map: PositionMap,
    /// Spans are byte offsets in the input text.
    pub diagnostics: Vec<Diagnostic>,
}

/// One edit of the input, at byte offsets on character boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    /// Insert `text` before the byte at `at`.
    Insert { at: usize, text: &'static str },
    /// Replace `start..end` by `lead` padded with spaces to the same byte length.
    Replace {
        start: usize,
        end: usize,
        lead: &'static str,
    },
}

impl Edit {
    /// Application order: by position, an insertion before a replacement at the same place.
    fn key(self) -> (usize, u8) {
        match self {
            Edit::Insert { at, .. } => (at, 0),
            Edit::Replace { start, .. } => (start, 1),
        }
    }
}

/// A statement or directive line that the next such line may continue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Open {
    /// Where `&` goes if it is continued: after its significant text, before any comment.
    insert_at: usize,
    /// The quote of a character literal still open at the end of the line.
    quote: Option<char>,
}

/// The fields of a statement line, as byte offsets into the line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Fields {
    /// The column-6 character (or the digit after a tab) when it marks a continuation.
    mark: Option<(usize, usize)>,
    /// A column-6 `0`, which marks an initial line explicitly.
    zero: Option<usize>,
    /// Where the statement text (column 7) starts.
    text: usize,
}

/// The conversion state across lines.
struct Converter<'a> {
    text: &'a str,
    line_length: usize,
    edits: Vec<Edit>,
    statement: Option<Open>,
    directive: Option<Open>,
    /// Lines with non-blank text beyond `line_length`, and the first such text.
    beyond: usize,
    first_beyond: Option<Span>,
}

/// Converts fixed-form `text` to free form. `skip` bytes at the start (a byte-order
/// mark already blanked) are not part of line 1's columns.
///
/// Per line, columns counted in Unicode scalar values:
/// - blank lines stay blank;
/// - `C c * ! D d` in column 1 make a comment line: column 1 becomes `!`, the rest is
///   kept; so is a line whose first non-blank character is a `!` outside column 6;
/// - `CHPF$ cHPF$ *HPF$ !HPF$` (any case) in columns 1–5 make an HPF directive line:
///   they become `!HPF$`; a column-6 character other than blank or `0` continues the
///   previous directive line: it becomes `&`, and ` &` is inserted at the end of that
///   line's payload (before its inline `!` comment, if any). Other sentinels
///   (`C$OMP`, `CDIR$` ...) are comments;
/// - other lines are statement lines: label in columns 1–5, continuation mark in
///   column 6 (anything but blank or `0`; a `0` becomes a blank), text from column 7.
///   A tab in columns 1–6 ends the label field: a digit 1–9 right after it is a
///   continuation mark, otherwise the text starts after it, at column 7. A continuation
///   mark becomes `&`, and `&` is inserted at the end of the previous statement line's
///   code (comment and blank lines between are skipped): before its inline `!` comment
///   (a `!` outside a character literal, literals being followed across continuation
///   lines), else after its last non-blank character;
/// - text beyond column `line_length` of statement and directive lines becomes blanks,
///   with one `Info` (code `fixed-form`) per file at the first line where it is not blank.
pub(crate) fn to_free_form(text: &str, skip: usize, line_length: usize) -> Converted {
    let mut converter = Converter {
        text,
        line_length,
        edits: Vec::new(),
        statement: None,
        directive: None,
        beyond: 0,
        first_beyond: None,
    };
    for line in lines(text) {
        let start = if line.start == 0 {
            skip.min(line.end)
        } else {
            line.start
        };
        converter.line(start, line.end);
    }
    let mut diagnostics = Vec::new();
    if let Some(span) = converter.first_beyond {
        let n = converter.beyond;
        let lines = if n == 1 { "line has" } else { "lines have" };
        diagnostics.push(Diagnostic::info(
            span,
            "fixed-form",
            format!(
                "{n} {lines} text beyond column {line_length}; it is ignored as fixed form requires"
            ),
        ));
    }
    let mut edits = converter.edits;
    edits.sort_by_key(|e| e.key());
    let (text, map) = apply(text, &edits);
    Converted {
        text,
        map,
        diagnostics,
    }
}

impl Converter<'_> {
    fn line(&mut self, start: usize, end: usize) {
        let line = &self.text[start..end];
        if line.chars().all(is_blank) {
            return;
        }
        if is_hpf_sentinel(line) {
            self.directive_line(start, line);
            return;
        }
        let first = line.chars().next().unwrap_or(' ');
        if matches!(first, 'C' | 'c' | '*' | 'D' | 'd') {
            self.replace(start, start + 1, "!");
            return;
        }
        if is_free_comment(line) {
            return;
        }
        self.statement_line(start, line);
    }

    fn statement_line(&mut self, start: usize, line: &str) {
        let fields = fields(line);
        if let Some(zero) = fields.zero {
            self.replace(start + zero, start + zero + 1, "");
        }
        let mut quote = None;
        if let Some((mark_start, mark_end)) = fields.mark {
            self.replace(start + mark_start, start + mark_end, "&");
            if let Some(open) = self.statement {
                self.insert(open.insert_at, "&");
                quote = open.quote;
            }
        }
        let limit = self.limit(start, line, fields.text);
        let (text_end, quote) = scan(line, fields.text, limit, quote);
        let insert_at = text_end.or_else(|| {
            let head = line[..fields.text].trim_end_matches(is_blank).len();
            (head > 0).then_some(head)
        });
        // A line blank up to `line_length` is a blank line.
        if let Some(at) = insert_at {
            self.statement = Some(Open {
                insert_at: start + at,
                quote,
            });
            self.directive = None;
        }
    }

    fn directive_line(&mut self, start: usize, line: &str) {
        if &line[..5] != "!HPF$" {
            self.replace(start, start + 5, "!HPF$");
        }
        let mut text = 5;
        if let Some(c) = line[5..].chars().next() {
            text += c.len_utf8();
            match c {
                ' ' | '\t' => {}
                '0' => self.replace(start + 5, start + 6, ""),
                _ => {
                    self.replace(start + 5, start + text, "&");
                    if let Some(open) = self.directive {
                        self.insert(open.insert_at, " &");
                    }
                }
            }
        }
        let limit = self.limit(start, line, text);
        let (payload_end, _) = scan(line, text, limit, None);
        let at = payload_end.unwrap_or_else(|| line[..text].trim_end_matches(is_blank).len());
        self.directive = Some(Open {
            insert_at: start + at,
            quote: None,
        });
    }

    /// The end of the columns up to `line_length` of a line whose column 7 is at byte
    /// `text`; text beyond it is blanked (and counted when not blank).
    fn limit(&mut self, start: usize, line: &str, text: usize) -> usize {
        let columns = self.line_length.saturating_sub(TEXT_COLUMN - 1);
        let limit = line[text..]
            .char_indices()
            .nth(columns)
            .map_or(line.len(), |(i, _)| text + i);
        if !line[limit..].chars().all(is_blank) {
            self.replace(start + limit, start + line.len(), "");
            self.beyond += 1;
            self.first_beyond
                .get_or_insert(Span::new(start + limit, start + line.len()));
        }
        limit
    }

    fn replace(&mut self, start: usize, end: usize, lead: &'static str) {
        self.edits.push(Edit::Replace { start, end, lead });
    }

    fn insert(&mut self, at: usize, text: &'static str) {
        self.edits.push(Edit::Insert { at, text });
    }
}

/// Blank in fixed form: a space, a tab, a vertical tab or a form feed.
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0b' | '\x0c')
}

/// `CHPF$`, `cHPF$`, `*HPF$` or `!HPF$` (any case) in columns 1–5.
fn is_hpf_sentinel(line: &str) -> bool {
    line.get(..5).is_some_and(|head| {
        head.starts_with(['C', 'c', '*', '!']) && head[1..].eq_ignore_ascii_case("HPF$")
    })
}

/// A line whose first non-blank character is a `!` outside column 6.
fn is_free_comment(line: &str) -> bool {
    let indent = line.len() - line.trim_start_matches(is_blank).len();
    line[indent..].starts_with('!') && !(indent == 5 && line[..indent].chars().all(|c| c == ' '))
}

/// Splits a statement line into label field, continuation mark and text.
fn fields(line: &str) -> Fields {
    for (column, (i, c)) in (1..).zip(line.char_indices()) {
        let after = i + c.len_utf8();
        if c == '\t' {
            return match line[after..].chars().next() {
                Some('1'..='9') => Fields {
                    mark: Some((after, after + 1)),
                    zero: None,
                    text: after + 1,
                },
                _ => Fields {
                    mark: None,
                    zero: None,
                    text: after,
                },
            };
        }
        if column == TEXT_COLUMN - 1 {
            return Fields {
                mark: (c != ' ' && c != '0').then_some((i, after)),
                zero: (c == '0').then_some(i),
                text: after,
            };
        }
    }
    Fields {
        mark: None,
        zero: None,
        text: line.len(),
    }
}

/// Scans statement text `line[from..to]`, starting inside a character literal opened by
/// `quote` if any. Returns the end of its significant text (its last non-blank
/// character before an inline `!` comment), if any, and the literal still open at `to`.
fn scan(
    line: &str,
    from: usize,
    to: usize,
    mut quote: Option<char>,
) -> (Option<usize>, Option<char>) {
    let mut end = None;
    for (i, c) in line[from..to].char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '!' => break,
            None => {}
        }
        if !is_blank(c) {
            end = Some(from + i + c.len_utf8());
        }
    }
    (end, quote)
}

/// Applies sorted, non-overlapping edits (at character boundaries) to `text`, recording insertions in the map.
fn apply(text: &str, edits: &[Edit]) -> (String, PositionMap) {
    let inserted: usize = edits
        .iter()
        .map(|e| match e {
            Edit::Insert { text, .. } => text.len(),
            Edit::Replace { .. } => 0,
        })
        .sum();
    let mut out = String::with_capacity(text.len() + inserted);
    let mut map = PositionMap::identity(text.len());
    let mut cursor = 0;
    for &edit in edits {
        match edit {
            Edit::Insert { at, text: insert } => {
                let at = at.max(cursor);
                out.push_str(&text[cursor..at]);
                cursor = at;
                map.insert(out.len(), at, insert.len());
                out.push_str(insert);
            }
            Edit::Replace { start, end, lead } => {
                let start = start.max(cursor);
                let end = end.max(start);
                out.push_str(&text[cursor..start]);
                out.push_str(lead);
                out.extend(std::iter::repeat_n(
                    ' ',
                    (end - start).saturating_sub(lead.len()),
                ));
                cursor = end;
            }
        }
    }
    out.push_str(&text[cursor..]);
    (out, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_statement_lines() {
        let f = |line: &str| {
            let f = fields(line);
            (f.mark, f.zero, f.text)
        };
        assert_eq!(f("   10 CONTINUE"), (None, None, 6));
        assert_eq!(f("     $  X"), (Some((5, 6)), None, 6));
        assert_eq!(f("     0X"), (None, Some(5), 6));
        assert_eq!(f("     é X"), (Some((5, 7)), None, 7));
        assert_eq!(f("10\tX"), (None, None, 3));
        assert_eq!(f("\t2X"), (Some((1, 2)), None, 2));
        assert_eq!(f("  10"), (None, None, 4));
    }

    #[test]
    fn scan_follows_literals() {
        assert_eq!(scan("X = 'A!' ! c", 0, 12, None), (Some(8), None));
        assert_eq!(scan("X = 'A! ", 0, 8, None), (Some(7), Some('\'')));
        assert_eq!(scan("B' ! c", 0, 6, Some('\'')), (Some(2), None));
        assert_eq!(scan("   ! c", 0, 6, None), (None, None));
    }
}
