//! Finding program units in a file without parsing it: from the logical statements,
//! recognize unit statements (PROGRAM, SUBROUTINE, FUNCTION, MODULE, SUBMODULE,
//! BLOCK DATA), their END statements, CONTAINS, and interface blocks (whose bodies
//! are not units). Each unit becomes a [`UnitChunk`] that is parsed on its own, so an
//! edit in one procedure re-parses that procedure only.

use super::statements::{LogicalStmt, logical_statements_where};
use crate::diagnostics::Diagnostic;
use crate::ir::UnitKind;
use crate::span::Span;
use crate::unit_source::UnitSource;

/// One program unit's place in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitChunk {
    pub kind: UnitKind,
    /// Lower-case; `main` for a main program without a PROGRAM statement. Shared: an
    /// edit elsewhere moves the chunk without copying its name.
    pub name: std::sync::Arc<str>,
    /// From the start of the unit statement's line to the end of its END line.
    pub range: Span,
    /// Index of the host unit (for contained and module procedures).
    pub parent: Option<usize>,
    /// Ranges of the units nested directly in this one (left out of its own text), in
    /// order.
    pub nested: Vec<Span>,
    /// The unit's kind, name and own text ([`UnitChunk::own_text`]), kept when an edit
    /// elsewhere moves the unit.
    pub source: UnitSource,
}

impl UnitChunk {
    /// The unit's own text: its range of `text` without the units nested in it. Nested
    /// units start and end at line boundaries, so the host keeps whole lines, and its
    /// text does not change when a contained procedure is edited.
    pub fn text(&self, text: &str) -> String {
        self.own_text(text).into_owned()
    }

    /// [`UnitChunk::text`], borrowed from `text` when no unit is nested in this one.
    pub fn own_text<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        if self.nested.is_empty() {
            let end = (self.range.end as usize).min(text.len());
            let start = (self.range.start as usize).min(end);
            return std::borrow::Cow::Borrowed(&text[start..end]);
        }
        let end = (self.range.end as usize).min(text.len());
        let mut at = (self.range.start as usize).min(end);
        let mut own = String::with_capacity(end - at);
        for n in &self.nested {
            // Nested ranges lie inside this one; clamp anyway rather than trust it.
            let (s, e) = (
                (n.start as usize).clamp(at, end),
                (n.end as usize).clamp(at, end),
            );
            own.push_str(&text[at..s]);
            at = e;
        }
        own.push_str(&text[at..end]);
        std::borrow::Cow::Owned(own)
    }

    /// The file offset of `at`, an offset into [`UnitChunk::text`]; an offset where a
    /// nested unit was left out maps to the text after that unit.
    pub fn file_offset(&self, at: u32) -> u32 {
        let mut pos = self.range.start.saturating_add(at);
        for n in &self.nested {
            if n.start > pos {
                break;
            }
            pos = pos.saturating_add(n.end - n.start);
        }
        pos
    }

    /// The offset into [`UnitChunk::text`] of file offset `at`; `None` outside the unit or
    /// inside a unit nested in it.
    pub fn own_offset(&self, at: u32) -> Option<u32> {
        if at < self.range.start || at > self.range.end {
            return None;
        }
        let mut removed = 0;
        for n in &self.nested {
            if at < n.start {
                break;
            }
            if at < n.end {
                return None;
            }
            removed += n.end - n.start;
        }
        Some(at - self.range.start - removed)
    }

    /// The file range of `span`, a range of [`UnitChunk::text`].
    pub fn file_span(&self, span: Span) -> Span {
        let start = self.file_offset(span.start);
        if span.end <= span.start {
            return Span::new(start as usize, start as usize);
        }
        let end = self.file_offset(span.end - 1) + 1;
        Span::new(start as usize, end as usize)
    }
}

/// The units of `text` (normalized free-form source), in order of their start, and
/// diagnostics for missing END statements. Spans are offsets into `text`.
pub fn split_units(text: &str) -> (Vec<UnitChunk>, Vec<Diagnostic>) {
    split_statements(text, logical_statements_where(text, may_be_unit_statement))
}

/// [`split_units`] over the logical statements of `text`.
fn split_statements(
    text: &str,
    statements: impl Iterator<Item = LogicalStmt>,
) -> (Vec<UnitChunk>, Vec<Diagnostic>) {
    let mut splitter = Splitter {
        text,
        units: Vec::new(),
        stack: Vec::new(),
        diagnostics: Vec::new(),
        last_end: 0,
    };
    for stmt in statements {
        splitter.statement(&stmt);
    }
    splitter.finish();
    let Splitter {
        mut units,
        diagnostics,
        ..
    } = splitter;
    // Units were pushed when opened, so they are already sorted by start; fill in the
    // nested ranges now that every range is final.
    for i in 0..units.len() {
        if let Some(p) = units[i].parent {
            let range = units[i].range;
            units[p].nested.push(range);
        }
    }
    for u in &mut units {
        u.source = UnitSource::new(u.kind, &u.name, &u.own_text(text));
    }
    (units, diagnostics)
}

/// Whether a statement beginning with `word`, its first line going on with `rest`, may
/// matter for unit structure; the others are [`Statement::Other`] whatever follows.
/// `END DO`, `END IF` and declarations without the word FUNCTION are the common
/// statements told apart here.
fn may_be_unit_statement(word: &str, rest: &[u8]) -> bool {
    match word {
        "end" => match next_word(rest) {
            None => true,
            Some(next) => matches!(
                next.as_str(),
                "" | "program"
                    | "subroutine"
                    | "function"
                    | "module"
                    | "submodule"
                    | "block"
                    | "blockdata"
                    | "interface"
            ),
        },
        w if w.starts_with("end") => matches!(
            w,
            "endprogram"
                | "endsubroutine"
                | "endfunction"
                | "endmodule"
                | "endsubmodule"
                | "endblock"
                | "endblockdata"
                | "endinterface"
        ),
        // A typed FUNCTION statement names FUNCTION on its first line (or continues).
        "integer" | "real" | "complex" | "logical" | "character" | "double" | "doubleprecision"
        | "doublecomplex" | "type" | "class" => {
            contains_word_prefix(rest, b"function") || continues(rest)
        }
        _ => matches!(
            word,
            "program"
                | "module"
                | "submodule"
                | "block"
                | "blockdata"
                | "contains"
                | "interface"
                | "abstract"
                | "subroutine"
                | "function"
                | "recursive"
                | "pure"
                | "elemental"
                | "impure"
                | "non_recursive"
                | "extrinsic"
        ),
    }
}

/// The word after blanks at the start of `rest`, lower-case (empty at the end of the
/// statement or before a comment); `None` when the line continues there.
fn next_word(rest: &[u8]) -> Option<String> {
    let mut i = 0;
    while i < rest.len() && (rest[i] == b' ' || rest[i] == b'\t' || rest[i] == b'\r') {
        i += 1;
    }
    if rest.get(i) == Some(&b'&') {
        return None;
    }
    let start = i;
    while i < rest.len() && (rest[i].is_ascii_alphanumeric() || rest[i] == b'_') {
        i += 1;
    }
    if rest.get(i) == Some(&b'&') {
        return None;
    }
    Some(String::from_utf8_lossy(&rest[start..i]).to_ascii_lowercase())
}

/// Whether `needle` (lower-case) occurs in `line`, ignoring case.
fn contains_word_prefix(line: &[u8], needle: &[u8]) -> bool {
    line.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Whether the line ends with a continuation `&` (before blanks or a comment).
fn continues(line: &[u8]) -> bool {
    let code = match line.iter().position(|&b| b == b'!') {
        Some(bang) => &line[..bang],
        None => line,
    };
    code.iter().rev().find(|b| !b.is_ascii_whitespace()) == Some(&b'&')
}

/// What a statement means for unit structure.
#[derive(Debug, PartialEq, Eq)]
enum Statement {
    Start(UnitKind, String),
    /// `END` alone or with a unit keyword.
    End,
    Contains,
    InterfaceStart,
    InterfaceEnd,
    Other,
}

#[derive(Debug)]
enum Frame {
    Unit {
        index: usize,
        contains: bool,
    },
    Interface,
    /// A procedure heading inside an interface block (it has an END, but is no unit).
    InterfaceBody,
}

struct Splitter<'a> {
    text: &'a str,
    units: Vec<UnitChunk>,
    stack: Vec<Frame>,
    diagnostics: Vec<Diagnostic>,
    /// End of the last closed top-level unit: an implicit main program starts here.
    last_end: usize,
}

impl Splitter<'_> {
    fn statement(&mut self, stmt: &LogicalStmt) {
        match classify(&stmt.head) {
            Statement::Start(kind, name) => self.start(kind, name, stmt),
            Statement::End => self.end(stmt),
            Statement::Contains => {
                if let Some(Frame::Unit { contains, .. }) = self.stack.last_mut() {
                    *contains = true;
                }
            }
            Statement::InterfaceStart => {
                self.ensure_open(stmt);
                self.stack.push(Frame::Interface);
            }
            Statement::InterfaceEnd => {
                // Close any interface body left open, then the interface itself.
                while let Some(Frame::InterfaceBody) = self.stack.last() {
                    self.stack.pop();
                }
                if let Some(Frame::Interface) = self.stack.last() {
                    self.stack.pop();
                }
            }
            Statement::Other => self.ensure_open(stmt),
        }
    }

    /// Executable or specification statements outside any unit begin a main program
    /// without a PROGRAM statement; it takes in the comments (and directives) between
    /// the previous unit and its first statement.
    fn ensure_open(&mut self, stmt: &LogicalStmt) {
        if self.stack.is_empty() {
            let start = self.last_end.min(stmt.start);
            self.open(UnitKind::Program, "main".into(), start, None);
        }
    }

    fn start(&mut self, kind: UnitKind, name: String, stmt: &LogicalStmt) {
        if matches!(
            self.stack.last(),
            Some(Frame::Interface | Frame::InterfaceBody)
        ) {
            self.stack.push(Frame::InterfaceBody);
            return;
        }
        // A unit may only start at top level or after CONTAINS of its host; otherwise
        // the previous unit lacks its END.
        while let Some(Frame::Unit { index, contains }) = self.stack.last() {
            if *contains && !matches!(kind, UnitKind::Module | UnitKind::Program) {
                break;
            }
            let index = *index;
            self.missing_end(index, line_start(self.text, stmt.start));
        }
        let parent = match self.stack.last() {
            Some(Frame::Unit { index, .. }) => Some(*index),
            _ => None,
        };
        let start = line_start(self.text, stmt.start);
        self.open(kind, name, start, parent);
    }

    fn open(&mut self, kind: UnitKind, name: String, start: usize, parent: Option<usize>) {
        self.units.push(UnitChunk {
            kind,
            name: name.into(),
            range: Span::new(start, self.text.len()),
            parent,
            nested: Vec::new(),
            source: UnitSource::default(),
        });
        self.stack.push(Frame::Unit {
            index: self.units.len() - 1,
            contains: false,
        });
    }

    fn end(&mut self, stmt: &LogicalStmt) {
        match self.stack.pop() {
            Some(Frame::Unit { index, .. }) => {
                self.units[index].range.end = stmt.line_end as u32;
                if self.stack.is_empty() {
                    self.last_end = stmt.line_end;
                }
            }
            Some(Frame::InterfaceBody) => {}
            Some(Frame::Interface) => {
                // `END` inside an interface that never closed: keep the interface open
                // (the parser will report it) and let the END close the unit.
                self.end(stmt);
            }
            None => self.diagnostics.push(Diagnostic::error(
                Span::new(stmt.start, stmt.start + 3),
                "syntax",
                "END statement outside any program unit",
            )),
        }
    }

    /// Closes unit `index` (and anything above it) at offset `end`, reporting its
    /// missing END.
    fn missing_end(&mut self, index: usize, end: usize) {
        while let Some(frame) = self.stack.pop() {
            if let Frame::Unit { index: i, .. } = frame {
                self.units[i].range.end = (end as u32).max(self.units[i].range.start);
                if i == index {
                    break;
                }
            }
        }
        if self.stack.is_empty() {
            self.last_end = self.units[index].range.end as usize;
        }
        let unit = &self.units[index];
        let header = header_span(self.text, unit.range);
        self.diagnostics.push(Diagnostic::error(
            header,
            "syntax",
            format!(
                "{} `{}` has no END statement",
                unit.kind.as_str().replace('_', " "),
                unit.name
            ),
        ));
    }

    fn finish(&mut self) {
        while let Some(frame) = self.stack.last() {
            match frame {
                Frame::Unit { index, .. } => {
                    let index = *index;
                    self.missing_end(index, self.text.len());
                }
                _ => {
                    self.stack.pop();
                }
            }
        }
    }
}

/// The start of the line holding `offset`.
fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |p| p + 1)
}

/// The first line of a unit, without leading blanks.
fn header_span(text: &str, range: Span) -> Span {
    let own = &text[range.start as usize..range.end as usize];
    let line = own.split('\n').next().unwrap_or("");
    let lead = line.len() - line.trim_start().len();
    let start = range.start as usize + lead;
    Span::new(start, range.start as usize + line.trim_end().len())
}

/// Classifies one statement head (lower-case, blanks collapsed).
fn classify(head: &str) -> Statement {
    let mut words = Words::new(strip_label(head));
    let Some(first) = words.word() else {
        return Statement::Other;
    };
    match first {
        "end" => return classify_end(words.rest()),
        "endprogram" | "endsubroutine" | "endfunction" | "endmodule" | "endsubmodule"
        | "endblockdata" => return Statement::End,
        "endinterface" => return Statement::InterfaceEnd,
        "contains" if words.rest().is_empty() => return Statement::Contains,
        "interface" => return Statement::InterfaceStart,
        "abstract" if words.word() == Some("interface") => return Statement::InterfaceStart,
        "program" => {
            return words.word().map_or(Statement::Other, |n| {
                Statement::Start(UnitKind::Program, n.to_string())
            });
        }
        "module" => {
            let mut probe = words.clone();
            match probe.word() {
                Some("procedure") => return Statement::Other,
                Some("subroutine" | "function") => {}
                Some(name) if probe.rest().is_empty() => {
                    return Statement::Start(UnitKind::Module, name.to_string());
                }
                _ => return Statement::Other,
            }
        }
        "submodule" => {
            if words.skip_parens() {
                return words.word().map_or(Statement::Other, |n| {
                    Statement::Start(UnitKind::Submodule, n.to_string())
                });
            }
            return Statement::Other;
        }
        "blockdata" => {
            return Statement::Start(UnitKind::BlockData, words.word().unwrap_or("").into());
        }
        "block" => {
            if words.word() == Some("data") {
                return Statement::Start(UnitKind::BlockData, words.word().unwrap_or("").into());
            }
            return Statement::Other;
        }
        _ => {}
    }
    classify_procedure(strip_label(head))
}

/// `END`, `END SUBROUTINE [name]`, ... and the END statements of other constructs.
fn classify_end(rest: &str) -> Statement {
    let mut words = Words::new(rest);
    match words.word() {
        // `end(d, c) = 1`, `end = 0`: an assignment to a variable named END.
        None if !rest.trim().is_empty() => Statement::Other,
        None => Statement::End,
        Some("program" | "subroutine" | "function" | "module" | "submodule" | "blockdata") => {
            Statement::End
        }
        Some("block") if words.word() == Some("data") => Statement::End,
        Some("interface") => Statement::InterfaceEnd,
        _ => Statement::Other,
    }
}

/// `[prefix...] SUBROUTINE name` or `[prefix...] [type-spec] FUNCTION name`.
fn classify_procedure(head: &str) -> Statement {
    let mut words = Words::new(head);
    let mut typed = false;
    loop {
        let Some(w) = words.word() else {
            return Statement::Other;
        };
        match w {
            "subroutine" | "function" => {
                let kind = if w == "subroutine" {
                    UnitKind::Subroutine
                } else {
                    UnitKind::Function
                };
                let Some(name) = words.word() else {
                    return Statement::Other;
                };
                // A unit statement continues with `(`, `result`, `bind` or nothing;
                // anything else (`= ...`) is not one.
                let rest = words.rest();
                let ok = rest.is_empty()
                    || rest.starts_with('(')
                    || rest.starts_with("result")
                    || rest.starts_with("bind");
                return if ok {
                    Statement::Start(kind, name.to_string())
                } else {
                    Statement::Other
                };
            }
            "recursive" | "pure" | "elemental" | "impure" | "non_recursive" | "module" => {}
            // HPF's EXTRINSIC(HPF_LOCAL), EXTRINSIC(HPF_SERIAL), ...
            "extrinsic" => {
                if !words.skip_parens() {
                    return Statement::Other;
                }
            }
            "integer" | "real" | "complex" | "logical" | "character" | "doubleprecision"
            | "doublecomplex" | "double"
                if !typed =>
            {
                typed = true;
                if w == "double" && !matches!(words.word(), Some("precision" | "complex")) {
                    return Statement::Other;
                }
                words.skip_kind_selector();
            }
            "type" | "class" if !typed => {
                typed = true;
                if !words.skip_parens() {
                    return Statement::Other;
                }
            }
            _ => return Statement::Other,
        }
    }
}

fn strip_label(head: &str) -> &str {
    super::statements::split_label(head).1
}

/// A tiny tokenizer over a statement head: words (identifiers), parenthesized groups.
#[derive(Clone)]
struct Words<'a> {
    rest: &'a str,
}

impl<'a> Words<'a> {
    fn new(s: &'a str) -> Words<'a> {
        Words {
            rest: s.trim_start(),
        }
    }

    fn rest(&self) -> &'a str {
        self.rest.trim_start()
    }

    /// The next identifier, or `None` if the next token is not one.
    fn word(&mut self) -> Option<&'a str> {
        let s = self.rest.trim_start();
        let len = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        if len == 0 || s.as_bytes()[0].is_ascii_digit() {
            return None;
        }
        self.rest = &s[len..];
        Some(&s[..len])
    }

    /// Skips a balanced `( ... )` group; false if the next token is not `(`.
    fn skip_parens(&mut self) -> bool {
        let s = self.rest.trim_start();
        if !s.starts_with('(') {
            return false;
        }
        let mut depth = 0usize;
        for (i, c) in s.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.rest = &s[i + 1..];
                        return true;
                    }
                }
                _ => {}
            }
        }
        false
    }

    /// Skips a kind or length selector after a type keyword: `(8)`, `(kind=dp)`, `*8`, `*(*)`.
    fn skip_kind_selector(&mut self) {
        let s = self.rest.trim_start();
        if let Some(after) = s.strip_prefix('*') {
            self.rest = after;
            if !self.skip_parens() {
                let after = self.rest.trim_start();
                let digits =
                    after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                self.rest = &after[digits..];
            }
        } else {
            self.skip_parens();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statements::logical_statements;
    use expect_test::{Expect, expect};

    fn check(text: &str, expected: Expect) {
        let (units, diags) = split_units(text);
        let mut out = String::new();
        for u in &units {
            let first = text[u.range.start as usize..u.range.end as usize]
                .lines()
                .next()
                .unwrap_or("")
                .trim();
            out += &format!(
                "{} {} [{}..{}] parent={:?} nested={} | {first}\n",
                u.kind.as_str(),
                u.name,
                u.range.start,
                u.range.end,
                u.parent,
                u.nested.len()
            );
        }
        for d in &diags {
            out += &format!("{}@{}: {}\n", d.code, d.span.start, d.message);
        }
        expected.assert_eq(&out);
    }

    #[test]
    fn classifies_unit_statements() {
        let starts = [
            ("subroutine foo(a, n)", "subroutine foo"),
            ("recursive subroutine bar", "subroutine bar"),
            ("real*8 function f(x)", "function f"),
            ("double precision function dnrm2(n, x)", "function dnrm2"),
            ("integer(kind=4) pure function g()", "function g"),
            ("character(len=*) function h(s) result(r)", "function h"),
            ("type(point) function mk()", "function mk"),
            ("elemental real function sq(x)", "function sq"),
            ("module subroutine impl(x)", "subroutine impl"),
            ("10 subroutine labeled", "subroutine labeled"),
            ("program jacobi", "program jacobi"),
            ("module consts", "module consts"),
            ("submodule (parent) child", "submodule child"),
            ("block data init", "block_data init"),
            ("blockdata", "block_data "),
        ];
        for (head, want) in starts {
            match classify(head) {
                Statement::Start(k, n) => assert_eq!(format!("{} {n}", k.as_str()), want),
                other => panic!("{head}: {other:?}"),
            }
        }
        for head in [
            "module procedure foo",
            "function = 3",
            "real function",
            "x = subroutine(1)",
            "end do",
            "endif",
            "end block",
            "type is (integer)",
            "double x",
        ] {
            assert!(
                matches!(classify(head), Statement::Other),
                "{head}: {:?}",
                classify(head)
            );
        }
        for head in [
            "end",
            "end subroutine foo",
            "endfunction",
            "end block data",
            "end program p",
        ] {
            assert_eq!(classify(head), Statement::End, "{head}");
        }
    }

    #[test]
    fn splits_units_with_contains_and_interfaces() {
        check(
            "module m
  integer, parameter :: n = 10
  interface
    subroutine ext(x)
      real x
    end subroutine
    function f(y)
    end
  end interface
contains
  subroutine s()
  end subroutine s
  function g(x) result(r)
    r = x
  end function
end module m
program p
  use m
  call s()
contains
  subroutine inner
  end
end program
",
            expect![[r#"
                module m [0..257] parent=None nested=2 | module m
                subroutine s [157..193] parent=Some(0) nested=0 | subroutine s()
                function g [193..244] parent=Some(0) nested=0 | function g(x) result(r)
                program p [257..332] parent=None nested=1 | program p
                subroutine inner [295..320] parent=Some(3) nested=0 | subroutine inner
            "#]],
        );
    }

    #[test]
    fn implicit_main_program_and_missing_end() {
        check(
            "! leading comment\n!HPF$ PROCESSORS p(4)\nreal a(10)\na = 1\nend\nsubroutine s\nx = 1\nsubroutine t\nend\n",
            expect![[r#"
                program main [0..61] parent=None nested=0 | ! leading comment
                subroutine s [61..80] parent=None nested=0 | subroutine s
                subroutine t [80..97] parent=None nested=0 | subroutine t
                syntax@61: subroutine `s` has no END statement
            "#]],
        );
    }

    #[test]
    fn an_array_named_end_is_assigned_not_ended() {
        // NPB SP and BT keep `start(d, c)` and `end(d, c)` arrays.
        check(
            "subroutine s\nend(d, c) = 1\nend = 2\nend\n",
            expect![[r#"
                subroutine s [0..39] parent=None nested=0 | subroutine s
            "#]],
        );
    }

    #[test]
    fn unterminated_unit_at_end_of_file() {
        check(
            "program p\n do i = 1, 10\n",
            expect![[r#"
                program p [0..24] parent=None nested=0 | program p
                syntax@0: program `p` has no END statement
            "#]],
        );
    }

    #[test]
    fn an_unterminated_host_still_covers_its_last_contained_unit() {
        // Found by the robustness proptest: the host used to end before its child.
        let text = "do i = 1, n\ncontains\nsubroutine s(a, n)\nend";
        let (units, _) = split_units(text);
        assert_eq!(units[0].range.end as usize, text.len());
        assert_eq!(units[0].text(text), "do i = 1, n\ncontains\n");
    }

    proptest::proptest! {
        /// Building the heads of the statements that may be unit statements only splits
        /// every text as building all heads does.
        #[test]
        fn the_filtered_scan_splits_as_the_full_one(
            picks in proptest::collection::vec(0usize..LINES.len(), 0..40)
        ) {
            let text: String = picks.iter().map(|&i| LINES[i]).collect();
            let full = split_statements(&text, logical_statements(&text).into_iter());
            proptest::prop_assert_eq!(split_units(&text), full, "{}", text);
        }
    }

    /// Lines the property test above builds texts from.
    const LINES: &[&str] = &[
        "subroutine s(a)\n",
        "SUBROUTINE T\n",
        "recursive integer(kind=8) function f(x) result(r)\n",
        "real*8 function g(y)\n",
        "double precision function h()\n",
        "type(point) function p()\n",
        "module m\n",
        "module procedure q\n",
        "program main\n",
        "block data bd\n",
        "submodule (m) sm\n",
        "contains\n",
        "interface\n",
        "abstract interface\n",
        "end interface\n",
        "end\n",
        "end subroutine s\n",
        "endfunction\n",
        "END DO\n",
        "end do\n",
        "  end  if ! done\n",
        "end ! the program\n",
        "end &\n",
        "  & subroutine\n",
        "endblock\n",
        "end block data\n",
        "endif\n",
        "real :: function_count\n",
        "real, dimension(3) :: x ! no function here\n",
        "integer(kind=4) &\n",
        "  function k()\n",
        "type(point) :: q\n",
        "type point\n",
        "end type point\n",
        "10 end\n",
        "x = 1; end\n",
        "call sub&\n",
        "&routine(1)\n",
        "sub&\n",
        "&routine z\n",
        "  a(i) = b(i) + &\n",
        "    c(i)\n",
        "! comment\n",
        "print *, 'end; subroutine'\n",
        "integer :: n\n",
        "do i = 1, n\n",
        "if (x) then\n",
        "\n",
    ];

    #[test]
    fn nested_units_are_left_out_of_the_host_text() {
        let text = "module m\ncontains\nsubroutine s\nend\nsubroutine t\nend\nend module\n";
        let (units, _) = split_units(text);
        let own = units[0].text(text);
        assert_eq!(own, "module m\ncontains\nend module\n");
        // Every offset of the host's own text maps back to the same character of the file.
        for (i, c) in own.char_indices() {
            let at = units[0].file_offset(i as u32) as usize;
            assert_eq!(text[at..].chars().next(), Some(c), "offset {i}");
        }
        let end = own.find("end module").unwrap();
        let span = units[0].file_span(Span::new(end, end + 10));
        assert_eq!(&text[span.start as usize..span.end as usize], "end module");
        let contains = units[0].file_span(Span::new(9, 17));
        assert_eq!(
            &text[contains.start as usize..contains.end as usize],
            "contains"
        );
    }
}
