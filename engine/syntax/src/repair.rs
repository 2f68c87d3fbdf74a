//! Graceful degradation for statements tree-sitter cannot parse. One bad statement
//! (an unclosed parenthesis, a construct the grammar lacks) can make tree-sitter give
//! up on the whole unit and return a flat ERROR node with no loop structure. When the
//! unit's block structure is sound, the statement holding the first error is left out
//! instead — blanked, keeping its label as a `CONTINUE` so labeled DO loops still end
//! where they should — and the unit is parsed again. Blanking keeps every offset, so
//! spans of the repaired text are spans of the original.

use super::blocks::is_construct_statement;
use super::cst;
use super::statements::{HEAD_LEN, LogicalStmt, logical_statements, split_label};
use crate::source::lines;
use crate::span::Span;
use tree_sitter::{Node, Tree};

/// At most this many statements are left out of one unit; past that the unit is
/// analyzed as tree-sitter recovered it.
const MAX_REPAIRS: usize = 16;

/// The longest line read, in characters: Fortran 2023's limit for a free-form line.
/// tree-sitter-fortran's error recovery takes time quadratic in a line's length (a
/// 100,000-character word without its end takes a minute), so a statement with a
/// longer line is left out before the parse.
pub const MAX_LINE_CHARS: usize = 10_000;

/// A unit's text parsed, with the statements that had to be left out.
pub struct Repaired {
    /// The text the tree was parsed from: the input with left-out statements blanked.
    pub text: String,
    pub tree: Tree,
    /// The left-out statements (first lines), as offsets into the text.
    pub left_out: Vec<Span>,
    /// The statements left out for a line longer than [`MAX_LINE_CHARS`] (first lines),
    /// with that line's length in characters.
    pub too_long: Vec<(Span, usize)>,
    /// The keywords renamed where a statement assigns to them ([`rename`]).
    pub renamed: Vec<Renamed>,
}

/// Parses `text`, leaving out statements that keep it from parsing.
pub fn parse_repaired(text: String) -> Repaired {
    let mut text = text;
    let too_long = blank_long_lines(&mut text);
    let mut tree = cst::parse(&text);
    let mut left_out = Vec::new();
    if !tree.root_node().has_error() {
        return Repaired {
            text,
            tree,
            left_out,
            too_long,
            renamed: Vec::new(),
        };
    }
    let statements = logical_statements(&text);
    let commas = common_commas(&mut text, &statements);
    let renamed = keyword_assignments(&mut text, &statements);
    if commas || !renamed.is_empty() {
        tree = cst::parse(&text);
        if !tree.root_node().has_error() {
            return Repaired {
                text,
                tree,
                left_out,
                too_long,
                renamed,
            };
        }
    }
    // A statement cut short (`x = 1 +`, `call f(a,` — what an editor holds while the
    // user types) lets tree-sitter read on into the next line and report its error
    // there, often at an END that cannot be left out: leave these out first.
    let last = statements.len().saturating_sub(1);
    for (i, stmt) in statements.iter().enumerate() {
        if left_out.len() < MAX_REPAIRS
            && i != 0
            && i != last
            && !is_construct_statement(stmt)
            && cut_short(&stmt.head)
        {
            left_out.push(blank_statement(&mut text, stmt));
        }
    }
    if !left_out.is_empty() {
        tree = cst::parse(&text);
    }
    while left_out.len() < MAX_REPAIRS && tree.root_node().has_error() {
        let Some(at) = first_error(tree.root_node()) else {
            break;
        };
        let Some(stmt) = statements
            .iter()
            .enumerate()
            .find(|(_, s)| s.start <= at && at < s.line_end.max(s.start + 1))
        else {
            break;
        };
        let (index, stmt) = stmt;
        // The unit statement and END are not statements that can be left out, nor is a
        // construct's own statement (leaving out `IF (...) THEN` unbalances the unit).
        if index == 0 || index + 1 == statements.len() || is_construct_statement(stmt) {
            break;
        }
        let span = blank_statement(&mut text, stmt);
        if left_out.contains(&span) {
            break;
        }
        left_out.push(span);
        tree = cst::parse(&text);
    }
    Repaired {
        text,
        tree,
        left_out,
        too_long,
        renamed,
    }
}

/// Fortran's statement keywords, which tree-sitter-fortran does not take for the name
/// a statement assigns to (`class = 'U'`, `type(3) = 1`): Fortran has no reserved
/// words.
const KEYWORDS: &[&str] = &[
    "allocate",
    "associate",
    "backspace",
    "block",
    "call",
    "case",
    "class",
    "close",
    "common",
    "contains",
    "continue",
    "cycle",
    "data",
    "deallocate",
    "dimension",
    "do",
    "else",
    "elseif",
    "elsewhere",
    "end",
    "endfile",
    "entry",
    "equivalence",
    "exit",
    "external",
    "forall",
    "format",
    "function",
    "go",
    "goto",
    "if",
    "implicit",
    "import",
    "include",
    "inquire",
    "intent",
    "interface",
    "intrinsic",
    "module",
    "namelist",
    "nullify",
    "open",
    "optional",
    "parameter",
    "pointer",
    "print",
    "private",
    "procedure",
    "program",
    "protected",
    "public",
    "read",
    "return",
    "rewind",
    "save",
    "select",
    "sequence",
    "stop",
    "submodule",
    "subroutine",
    "target",
    "type",
    "use",
    "value",
    "volatile",
    "wait",
    "where",
    "write",
];

/// Renames, keeping every offset, each keyword that a statement assigns to
/// ([`KEYWORDS`]): its first letter becomes `z` (no Fortran keyword starts with z), so
/// that the statement parses as the assignment it is. Returns the renamed words'
/// spans; lowering reads them as written ([`rename`] undoes it).
fn keyword_assignments(text: &mut String, statements: &[LogicalStmt]) -> Vec<Renamed> {
    let mut renamed = Vec::new();
    for stmt in statements {
        let (_, rest) = split_label(&stmt.head);
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if !KEYWORDS.contains(&&rest[..len]) {
            continue;
        }
        let after = rest[len..].trim_start();
        let assigned = if after.starts_with('(') {
            stmt.after_group.as_deref()
        } else {
            Some(after)
        };
        if !assigned
            .is_some_and(|a| a.starts_with('=') && !a.starts_with("==") && !a.starts_with("=>"))
        {
            continue;
        }
        // The word in the text: after the label, if any.
        let bytes = text.as_bytes();
        let mut at = stmt.start;
        while at < stmt.line_end
            && (bytes[at].is_ascii_digit() || bytes[at] == b' ' || bytes[at] == b'\t')
        {
            at += 1;
        }
        if bytes
            .get(at..at + len)
            .is_some_and(|w| w.eq_ignore_ascii_case(&rest.as_bytes()[..len]))
        {
            renamed.push((at, bytes[at]));
        }
    }
    rename(text, &renamed, true);
    renamed
}

/// A keyword renamed where a statement assigns to it ([`keyword_assignments`]): the
/// offset of its first letter, and that letter as written.
pub type Renamed = (usize, u8);

/// Writes the first letter of each renamed keyword: `z` for the parser (`for_parser`),
/// or as written, for the lowering to read the names of the source.
pub fn rename(text: &mut String, renamed: &[Renamed], for_parser: bool) {
    for &(at, letter) in renamed {
        let letter = if for_parser { b'z' } else { letter };
        text.replace_range(at..at + 1, &char::from(letter).to_string());
    }
}

/// Blanks every statement with a line longer than [`MAX_LINE_CHARS`] (comment lines are
/// left: tree-sitter reads them in linear time); returns the statements' first lines with the length of
/// their longest line.
fn blank_long_lines(text: &mut String) -> Vec<(Span, usize)> {
    let chars = |line: &str| {
        if line.len() <= MAX_LINE_CHARS {
            line.len()
        } else {
            line.chars().count()
        }
    };
    let long: Vec<(usize, usize, usize)> = lines(text)
        .map(|l| (l.start, l.end, chars(&text[l.start..l.end])))
        .filter(|&(.., n)| n > MAX_LINE_CHARS)
        .collect();
    if long.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for stmt in logical_statements(text) {
        let longest = long
            .iter()
            .filter(|&&(start, end, _)| start < stmt.line_end && stmt.start < end)
            .map(|&(.., n)| n)
            .max();
        if let Some(n) = longest {
            found.push((blank_statement(text, &stmt), n));
        }
    }
    found
}

/// Rewrites the COMMON spellings the grammar lacks into ones it parses, keeping every
/// offset: the comma before a block name (`common /a/ x, /b/ y`) is blanked; blank
/// COMMON's `//` is blanked when it opens the statement (the members before any
/// block name are blank COMMON's) and becomes `/_/` elsewhere (`common /a/ x, // z`;
/// `_` is no Fortran name, and lowering reads it as blank COMMON). Returns whether
/// anything changed.
fn common_commas(text: &mut String, statements: &[LogicalStmt]) -> bool {
    let mut edits: Vec<(usize, u8)> = Vec::new();
    for stmt in statements {
        let (_, rest) = split_label(&stmt.head);
        let is_common = rest
            .strip_prefix("common")
            .is_some_and(|r| r.starts_with([' ', '/']) || r.is_empty());
        if !is_common {
            continue;
        }
        let bytes = &text.as_bytes()[stmt.start..stmt.line_end];
        let Some(keyword) = bytes
            .windows(6)
            .position(|w| w.eq_ignore_ascii_case(b"common"))
        else {
            continue;
        };
        let skip = |mut j: usize| {
            while j < bytes.len() {
                match bytes[j] {
                    b' ' | b'\t' | b'&' | b'\n' | b'\r' => j += 1,
                    b'!' => {
                        while j < bytes.len() && bytes[j] != b'\n' {
                            j += 1;
                        }
                    }
                    _ => break,
                }
            }
            j
        };
        let first = skip(keyword + 6);
        let (mut depth, mut slashes) = (0i32, Vec::new());
        let mut i = keyword + 6;
        while i < bytes.len() {
            match bytes[i] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'!' => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                b',' if depth == 0 && bytes.get(skip(i + 1)) == Some(&b'/') => {
                    edits.push((stmt.start + i, b' '));
                }
                b'/' if depth == 0 && bytes.get(i + 1) == Some(&b'/') => {
                    slashes.push(i);
                    i += 1;
                }
                _ => {}
            }
            i += 1;
        }
        for j in slashes {
            if j == first {
                edits.push((stmt.start + j, b' '));
                edits.push((stmt.start + j + 1, b' '));
            } else if j > 0 && matches!(bytes[j - 1], b' ' | b',') {
                edits.push((stmt.start + j - 1, b'/'));
                edits.push((stmt.start + j, b'_'));
            }
        }
    }
    for &(at, b) in &edits {
        let s = [b];
        text.replace_range(at..at + 1, std::str::from_utf8(&s).expect("ASCII"));
    }
    !edits.is_empty()
}

/// Whether a statement (its head, lower-case) obviously ends early: an open parenthesis
/// or a trailing operator or comma. A head as long as [`HEAD_LEN`] may be cut by the
/// scan, not by the user: it is not judged.
fn cut_short(head: &str) -> bool {
    let head = head.trim_end();
    if head.len() + 1 >= HEAD_LEN {
        return false;
    }
    let (mut depth, mut quote) = (0i32, None);
    for c in head.chars() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            _ => {}
        }
    }
    if quote.is_some() || depth > 0 {
        return true;
    }
    let (_, rest) = split_label(head);
    // `print *` and `read *` end in `*` and are whole.
    if matches!(rest, "print *" | "read *") {
        return false;
    }
    // A single `/` also ends DATA, SAVE and COMMON statements: only `//` counts.
    const TRAILING: &[&str] = &[
        "+", "-", "*", "//", "=", ",", "::", ".and.", ".or.", ".not.", ".eqv.", ".neqv.", ".eq.",
        ".ne.", ".lt.", ".le.", ".gt.", ".ge.", "<", ">",
    ];
    TRAILING.iter().any(|t| head.ends_with(t))
}

/// Where tree-sitter's first error is: a MISSING token, or in an ERROR node the first
/// child that is not a whole statement it recovered.
fn first_error(node: Node) -> Option<usize> {
    if node.is_missing() {
        return Some(node.start_byte());
    }
    if !node.has_error() {
        return None;
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    for c in &children {
        if c.has_error() || c.is_missing() {
            return first_error(*c);
        }
        if node.is_error() && c.is_named() && !super::lower::is_statement_level(c.kind()) {
            return Some(c.start_byte());
        }
    }
    node.is_error().then(|| node.start_byte())
}

/// Blanks a statement's text (line terminators kept); a labeled statement becomes
/// `label CONTINUE` when there is room. Returns the statement's first line.
fn blank_statement(text: &mut String, stmt: &LogicalStmt) -> Span {
    let region = &text[stmt.start..stmt.line_end];
    let first_line_len = region.find(['\n', '\r', '!']).unwrap_or(region.len());
    let (label, _) = split_label(&stmt.head);
    let mut bytes: Vec<u8> = region
        .bytes()
        .map(|b| if b == b'\n' || b == b'\r' { b } else { b' ' })
        .collect();
    if let Some(label) = label {
        let replacement = format!("{label} continue");
        if replacement.len() <= first_line_len {
            bytes[..replacement.len()].copy_from_slice(replacement.as_bytes());
        }
    }
    let trimmed = text[stmt.start..stmt.start + first_line_len]
        .trim_end()
        .len();
    let blanked = String::from_utf8(bytes).expect("ASCII replacement of a whole region");
    text.replace_range(stmt.start..stmt.line_end, &blanked);
    Span::new(stmt.start, stmt.start + trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_cut_short_is_left_out_before_it_swallows_the_next_line() {
        let text = "program p\n  integer :: i\n  do i = 1, 10\n    x = 1 +\n    call f(a,\n    y = 2\n  end do\n  print *\nend program\n";
        let r = parse_repaired(text.to_string());
        assert!(
            !r.tree.root_node().has_error(),
            "{}",
            r.tree.root_node().to_sexp()
        );
        let out: Vec<&str> = r
            .left_out
            .iter()
            .map(|s| &text[s.start as usize..s.end as usize])
            .collect();
        assert_eq!(out, ["x = 1 +", "call f(a,"]);
        assert!(r.tree.root_node().to_sexp().contains("do_loop"));
        assert!(cut_short("if (x .gt."));
        assert!(!cut_short("write(*, *) 'a (', x"));
        assert!(!cut_short("10 print *"));
        assert!(!cut_short("data x /1.0, 2.0/"));
        assert!(!cut_short("save /blk/"));
    }

    #[test]
    fn one_bad_statement_no_longer_loses_the_unit() {
        let text = "program p\n  real a(10)\n  do 30 it = 1, 5\n    do 20 j = 1, 9\n20  a(j) = 0.25 * (a(j-1) + a(\n30 continue\n  end\n";
        let r = parse_repaired(text.to_string());
        assert!(
            !r.tree.root_node().has_error(),
            "{}",
            r.tree.root_node().to_sexp()
        );
        assert_eq!(r.left_out.len(), 1);
        assert_eq!(
            &text[r.left_out[0].start as usize..r.left_out[0].end as usize],
            "20  a(j) = 0.25 * (a(j-1) + a("
        );
        assert!(r.text.contains("20 continue"));
        assert_eq!(r.text.len(), text.len());
        let sexp = r.tree.root_node().to_sexp();
        assert!(sexp.contains("do_loop"), "{sexp}");
    }

    #[test]
    fn a_keyword_assigned_to_parses_and_reads_as_written() {
        let text = "program p\n  character class\n  integer type(3)\n  class = 'U'\n 10 type(2) = 1\n  if (class == 'U') print *, type\n  x = 1\nend program\n";
        let mut r = parse_repaired(text.to_string());
        assert!(
            !r.tree.root_node().has_error(),
            "{}",
            r.tree.root_node().to_sexp()
        );
        assert!(r.left_out.is_empty());
        assert_eq!(
            r.renamed.len(),
            2,
            "only the assignments' targets: {:?}",
            r.renamed
        );
        rename(&mut r.text, &r.renamed, false);
        assert_eq!(r.text, text);
        // Statements that start with a keyword and assign nothing to it, in a unit that
        // needs repairs (an unfinished `x = 1 +`).
        let text = "program p\n  type(t) :: v\n  if (a == 1) then\n  end if\n  do i = 1, n\n  end do\n  where (m) b = 0\n  call f(x)\n  x = 1 +\nend\n";
        assert!(parse_repaired(text.to_string()).renamed.is_empty());
    }

    #[test]
    fn commas_between_common_blocks_parse() {
        let text = "subroutine s\n  real x(10), y, z, w(2,3), v\n  common /a/ x, /b/ y\n  common // z, /c/ w, &\n     & /d/ v\n  common x2, y2\n  common /e/ e1, // e2 /f/ f1 // f2\nend\n";
        let r = parse_repaired(text.to_string());
        let sexp = r.tree.root_node().to_sexp();
        assert!(!r.tree.root_node().has_error(), "{sexp}");
        assert!(r.left_out.is_empty(), "{sexp}");
        assert_eq!(r.text.len(), text.len());
        assert!(r.text.contains("common /a/ x  /b/ y"));
        assert!(r.text.contains("common    z  /c/ w  &"));
        assert!(r.text.contains("common /e/ e1 /_/ e2 /f/ f1/_/ f2"));
    }

    #[test]
    fn construct_statements_are_not_left_out() {
        let text = "subroutine s\n  if (x .gt.) then\n    y = 1\n  end if\nend\n";
        let r = parse_repaired(text.to_string());
        assert!(r.left_out.is_empty());
    }

    #[test]
    fn clean_units_are_parsed_once_and_untouched() {
        let text = "subroutine s\n  x = 1\nend\n";
        let r = parse_repaired(text.to_string());
        assert!(r.left_out.is_empty());
        assert_eq!(r.text, text);
    }
}
