//! A cheap scan of free-form text into logical statements: continuation lines joined,
//! `;` separators split, comments dropped. It never fails and never needs a parser,
//! which is what lets the unit splitter find procedure boundaries in a large file
//! without parsing it.

/// One logical statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogicalStmt {
    /// Offset of the statement's first significant character.
    pub start: usize,
    /// Offset just past the line terminator of the statement's last line (or past the
    /// `;` that ends it).
    pub line_end: usize,
    /// The statement's first [`HEAD_LEN`] significant characters, lower-case, with
    /// continuations joined and runs of blanks collapsed to one space.
    pub head: String,
    /// What follows the statement's first parenthesized group (`then` in
    /// `if (...) then`, nothing in `where (...)`), lower-case, trimmed, at most
    /// [`AFTER_GROUP_LEN`] characters; `None` when no group closes. Exact however long
    /// the group is, unlike `head`.
    pub after_group: Option<String>,
}

/// How much of [`LogicalStmt::after_group`] is kept: enough to tell `then` and nothing
/// from anything else.
pub const AFTER_GROUP_LEN: usize = 32;

/// How much of a statement [`LogicalStmt::head`] keeps: enough to classify any unit
/// statement (`recursive double precision function name`).
pub const HEAD_LEN: usize = 160;

/// A statement head's leading label (`10 continue` → 10) and the rest of the head.
pub fn split_label(head: &str) -> (Option<u32>, &str) {
    let digits = head.len() - head.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && head[digits..].starts_with(' ') {
        (head[..digits].parse().ok(), head[digits..].trim_start())
    } else {
        (None, head)
    }
}

/// Splits `text` into logical statements.
pub fn logical_statements(text: &str) -> Vec<LogicalStmt> {
    logical_statements_where(text, |_, _| true).collect()
}

/// Splits `text` into logical statements, building the head (and what follows the first
/// group) only of those that `wanted` accepts, given their first word (lower-case,
/// after any label) and the rest of their first line: the others keep their bounds and
/// an empty head. Scanning the boundaries of a whole file this way is several times
/// faster than building every head.
pub fn logical_statements_where<'a>(
    text: &'a str,
    wanted: impl Fn(&str, &[u8]) -> bool + 'a,
) -> impl Iterator<Item = LogicalStmt> + 'a {
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    std::iter::from_fn(move || scanner.next_statement(&wanted))
}

/// The bytes that end or split a statement within a line, or hide the rest of it.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'\'' as usize] = true;
    t[b'"' as usize] = true;
    t[b'!' as usize] = true;
    t[b';' as usize] = true;
    t[b'&' as usize] = true;
    t
};

/// The length of the first line of `text` (up to its `\n`); `str::find` of an ASCII
/// character is a vectorized memchr.
fn line_length(text: &str) -> usize {
    text.find('\n').unwrap_or(text.len())
}

/// The longest first word [`logical_statements_where`] looks at; a longer one is
/// passed on truncated.
const FIRST_WORD_LEN: usize = 24;

/// The first word of the statement at the start of `bytes` (after a label), lower-case,
/// and where the word ends; `None` when a continuation may split it (`sub&` …
/// `&routine`), so that it cannot be judged from this line.
fn first_word(bytes: &[u8], buf: &mut [u8; FIRST_WORD_LEN]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i > 0 {
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
    }
    let mut n = 0;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        if n < FIRST_WORD_LEN {
            buf[n] = bytes[i].to_ascii_lowercase();
            n += 1;
        }
        i += 1;
    }
    (bytes.get(i) != Some(&b'&')).then_some((n, i))
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

/// The significant text of a statement as it is scanned.
#[derive(Default)]
struct Text {
    /// Whether to keep it (the statement is wanted).
    collect: bool,
    head: Vec<u8>,
    /// Parenthesis depth outside character literals.
    depth: usize,
    /// Whether the first parenthesized group has closed, and what followed it.
    group_closed: bool,
    after_group: Vec<u8>,
}

impl Text {
    fn push(&mut self, b: u8, in_literal: bool) {
        if !self.collect {
            return;
        }
        let blank = b == b' ' || b == b'\t';
        let b = if blank { b' ' } else { b.to_ascii_lowercase() };
        if self.head.len() < HEAD_LEN && !(blank && self.head.last().is_none_or(|&l| l == b' ')) {
            self.head.push(b);
        }
        if self.group_closed {
            if self.after_group.len() < AFTER_GROUP_LEN && !(blank && self.after_group.is_empty()) {
                self.after_group.push(b);
            }
            return;
        }
        if in_literal {
            return;
        }
        match b {
            b'(' => self.depth += 1,
            b')' if self.depth > 0 => {
                self.depth -= 1;
                self.group_closed = self.depth == 0;
            }
            _ => {}
        }
    }
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips blank lines, comment lines, line terminators and `;` between statements.
    fn skip_trivia(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | b';' | 0x0c => self.pos += 1,
                b'!' => self.skip_to_line_end(),
                _ => return,
            }
        }
    }

    fn skip_to_line_end(&mut self) {
        while let Some(b) = self.peek() {
            if b == b'\n' {
                return;
            }
            self.pos += 1;
        }
    }

    fn next_statement(&mut self, wanted: &dyn Fn(&str, &[u8]) -> bool) -> Option<LogicalStmt> {
        self.skip_trivia();
        let start = self.pos;
        self.peek()?;
        let mut buf = [0u8; FIRST_WORD_LEN];
        let rest = &self.bytes[start..];
        // Trivia are ASCII, so a statement starts on a character boundary.
        let line_len = self.text.get(start..).map_or(rest.len(), line_length);
        let collect = match first_word(&rest[..line_len], &mut buf) {
            Some((n, end)) => wanted(
                std::str::from_utf8(&buf[..n]).unwrap_or(""),
                &rest[end..line_len],
            ),
            None => true,
        };
        if !collect && let Some(next) = self.simple_line_end(line_len) {
            self.pos = next;
            return Some(LogicalStmt {
                start,
                line_end: next,
                head: String::new(),
                after_group: None,
            });
        }
        let mut text = Text {
            collect,
            ..Text::default()
        };
        let mut quote: Option<u8> = None;
        while let Some(b) = self.peek() {
            match (quote, b) {
                (Some(q), _) if b == q => {
                    quote = None;
                    text.push(b, false);
                    self.pos += 1;
                }
                (None, b'\'' | b'"') => {
                    quote = Some(b);
                    text.push(b, false);
                    self.pos += 1;
                }
                (None, b'!') => self.skip_to_line_end(),
                (None, b';') => {
                    self.pos += 1;
                    return Some(self.finish(start, text));
                }
                (_, b'&') if self.continues_after_ampersand() => {}
                (_, b'\n') => {
                    self.pos += 1;
                    return Some(self.finish(start, text));
                }
                (_, b'\r') => self.pos += 1,
                _ => {
                    text.push(b, quote.is_some());
                    self.pos += 1;
                }
            }
        }
        Some(self.finish(start, text))
    }

    /// When the rest of the current line (`len` bytes) holds no quote, comment, `;` or
    /// `&` (most lines), the statement is that line: the offset past its terminator.
    fn simple_line_end(&self, len: usize) -> Option<usize> {
        let rest = &self.bytes[self.pos..];
        let special = rest[..len].iter().any(|&b| SPECIAL[b as usize]);
        (!special).then(|| self.pos + (len + 1).min(rest.len()))
    }

    /// At an `&`: when only blanks or a comment follow on this line, it is a
    /// continuation mark — skip to the next significant line (and past its leading
    /// `&`) and return true. Otherwise return false without moving.
    fn continues_after_ampersand(&mut self) -> bool {
        let mut p = self.pos + 1;
        while let Some(&b) = self.bytes.get(p) {
            match b {
                b' ' | b'\t' | b'\r' => p += 1,
                b'!' | b'\n' => break,
                _ => return false,
            }
        }
        self.pos = p;
        // Skip the rest of this line, then comment and blank lines.
        loop {
            self.skip_to_line_end();
            if self.peek().is_none() {
                return true;
            }
            self.pos += 1;
            let line = self.pos;
            while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
                self.pos += 1;
            }
            match self.peek() {
                Some(b'!') | Some(b'\n') => continue,
                Some(b'&') => {
                    self.pos += 1;
                    return true;
                }
                Some(_) => return true,
                None => {
                    self.pos = line;
                    return true;
                }
            }
        }
    }

    fn finish(&self, start: usize, text: Text) -> LogicalStmt {
        let lossy = |b: &[u8]| String::from_utf8_lossy(b).trim_end().to_string();
        LogicalStmt {
            start,
            line_end: self.pos,
            head: lossy(&text.head),
            after_group: (text.collect && text.group_closed).then(|| lossy(&text.after_group)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heads(text: &str) -> Vec<String> {
        logical_statements(text)
            .into_iter()
            .map(|s| s.head)
            .collect()
    }

    #[test]
    fn joins_continuations_and_drops_comments() {
        let text = "SUBROUTINE Foo(a, &  ! args\n   ! a comment line\n   &   b)\nx = 1; y = 2 ! trailing\n";
        assert_eq!(heads(text), ["subroutine foo(a, b)", "x = 1", "y = 2"]);
    }

    #[test]
    fn quotes_protect_bangs_and_semicolons() {
        let text = "print *, 'a!b;c'\nz = \"it''s\"\n";
        assert_eq!(heads(text), ["print *, 'a!b;c'", "z = \"it''s\""]);
    }

    #[test]
    fn ampersand_inside_a_line_is_not_a_continuation() {
        assert_eq!(heads("x = a & b\n"), ["x = a & b"]);
    }

    #[test]
    fn offsets_cover_whole_lines() {
        let text = "a = 1\n  b = 2 &\n  + 3\nc = 4";
        let stmts = logical_statements(text);
        assert_eq!(stmts[1].start, 8);
        assert_eq!(&text[stmts[1].start..stmts[1].line_end], "b = 2 &\n  + 3\n");
        assert_eq!(stmts[2].line_end, text.len());
    }

    #[test]
    fn what_follows_the_first_parenthesized_group() {
        let after = |t: &str| logical_statements(t)[0].after_group.clone();
        assert_eq!(after("if (a(i) > ')') then\n").as_deref(), Some("then"));
        assert_eq!(after("where (x > 0)\n").as_deref(), Some(""));
        assert_eq!(after("where (x > 0) x = 1\n").as_deref(), Some("x = 1"));
        assert_eq!(after("x = 1\n"), None);
        let long = format!("IF ({} .GT. 0) &\n   THEN\n", "A(I)+".repeat(100));
        assert_eq!(after(&long).as_deref(), Some("then"));
        assert!(logical_statements(&long)[0].head.len() <= HEAD_LEN);
    }

    #[test]
    fn unwanted_statements_keep_their_bounds_only() {
        let text = "10 CALL f(1); subroutine s(x)\n  x = 1 &\n & + 2\nSUB&\n&ROUTINE t\n";
        let all = logical_statements(text);
        let some: Vec<LogicalStmt> =
            logical_statements_where(text, |w, _| w == "subroutine").collect();
        assert_eq!(all.len(), some.len());
        for (a, s) in all.iter().zip(&some) {
            assert_eq!((a.start, a.line_end), (s.start, s.line_end));
        }
        let heads: Vec<&str> = some.iter().map(|s| s.head.as_str()).collect();
        // The split keyword cannot be judged from its first line: it is kept.
        assert_eq!(heads, ["", "subroutine s(x)", "", "subroutine t"]);
    }

    #[test]
    fn unterminated_continuation_at_end_of_file() {
        assert_eq!(heads("x = 1 &\n"), ["x = 1"]);
        assert_eq!(heads("x = 1 &"), ["x = 1"]);
    }
}
