//! Source text as read from disk, its form (free or fixed), and the normalized free-form
//! text the parser sees, with an exact map back to original lines and columns.
//!
//! Loading a file ([`SourceFile::new`]) decodes it ([`LoadError`] for binary input),
//! blanks preprocessor lines, unanalyzed conditional branches and INCLUDE lines, and
//! converts fixed form to free form. Every step keeps each line where it was: the only
//! edits that change lengths are the `&` inserted at the end of continued fixed-form
//! lines. [`SourceFile::splice`] then places the texts of included files after their
//! INCLUDE lines; positions inside them map back to the included files
//! ([`SourceFile::origin`]).

mod cpp_expr;
mod decode;
pub mod file;
mod fixed;
mod form;
mod include;
mod line_index;
mod map;
mod preproc;
mod splice;

pub use decode::LoadError;
pub use form::{SourceForm, free_by_extension, pragma as form_pragma};
pub use include::{IncludeLine, IncludeName, include_names, mentions_include};
pub use line_index::LineIndex;
pub(crate) use line_index::lines;
pub use preproc::Defines;

use crate::diagnostics::Diagnostic;
use crate::span::Span;
use std::sync::Arc;

use map::PositionMap;
use splice::Splices;

/// The UTF-8 byte-order mark.
const BOM: char = '\u{feff}';

/// `text` with each lone `\r` (old Mac OS line ends) read as `\n`, as [`LineIndex`]
/// counts it: every later stage splits lines at `\n`. The length is unchanged.
fn lone_cr_as_lf(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let lone = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone) {
        return std::borrow::Cow::Borrowed(text);
    }
    let out: Vec<u8> = (0..bytes.len())
        .map(|i| if lone(i) { b'\n' } else { bytes[i] })
        .collect();
    // One ASCII byte replaced by another: still UTF-8.
    std::borrow::Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| text.to_string()))
}

/// A loaded source file: the original text, the normalized free-form text for the
/// parser (with the texts of included files spliced in, once [`SourceFile::splice`]d),
/// and the map between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    path: String,
    form: SourceForm,
    original: String,
    /// `None` when the normalized text is the original (a plain free-form file): an
    /// edit of a large plain file copies its text once, not twice.
    normalized: Option<String>,
    diagnostics: Vec<Diagnostic>,
    /// Original offsets to the file's own normalized text.
    map: PositionMap,
    lines: LineIndex,
    /// The INCLUDE lines, in text order (offsets into the own normalized text).
    includes: Vec<IncludeLine>,
    /// The own normalized text to the spliced one (`normalized`).
    splices: Splices,
}

/// Where a span of a spliced text was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The included file that holds the whole span, and the span in its original text;
    /// `None` when the span is (or reaches) the including file's own text.
    pub header: Option<(Arc<SourceFile>, Span)>,
    /// The INCLUDE lines the text came through, outermost first.
    pub sites: Vec<IncludeSite>,
}

/// An INCLUDE line: the including file's path and the line's 1-based position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IncludeSite {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

impl SourceFile {
    /// Decodes, normalizes and indexes a file; `form` defaults to
    /// [`SourceForm::detect`]. Errors only for binary input (a NUL byte, or mostly
    /// non-text bytes): the error names the byte offset, line and column of the first
    /// offending byte.
    ///
    /// - Decoding: UTF-8, each byte of an invalid sequence read as `?` (one `Warning`,
    ///   code `encoding`, at the first); a byte-order mark is kept in the original text
    ///   and becomes 3 spaces in the normalized text.
    /// - Preprocessor lines never reach the parser: they are blanked, and so are the
    ///   code lines of the branches of each conditional group that cpp would not take
    ///   (no macro defined from outside: see [`SourceFile::with_defines`], and the
    ///   `preprocessor` notes and warnings).
    /// - Fixed form is converted to free form line for line; free form is kept as is.
    /// - INCLUDE lines (Fortran's and the analyzed branches' `#include`) are collected
    ///   ([`SourceFile::include_lines`]) and blanked.
    pub fn new(
        path: &str,
        bytes: &[u8],
        form: Option<SourceForm>,
    ) -> Result<SourceFile, LoadError> {
        SourceFile::with_defines(path, bytes, form, &Defines::new())
    }

    /// [`SourceFile::new`] with `defines`: the macros defined for the preprocessor from
    /// outside the file, which choose the branches of its conditionals.
    pub fn with_defines(
        path: &str,
        bytes: &[u8],
        form: Option<SourceForm>,
        defines: &Defines,
    ) -> Result<SourceFile, LoadError> {
        let decoded = decode::decode(bytes)?;
        let original = decoded.text;
        let lines = LineIndex::new(&original);
        let form = form.unwrap_or_else(|| SourceForm::detect(path, &original));

        let bom = if original.starts_with(BOM) {
            BOM.len_utf8()
        } else {
            0
        };
        let mut text = " ".repeat(bom);
        text.push_str(&lone_cr_as_lf(&original[bom..]));
        let preprocessed = preproc::preprocess(&text, defines);
        // Spans in original offsets until mapped below.
        let mut diagnostics = preprocessed.diagnostics;
        if let Some(invalid) = decoded.invalid {
            let (line, column) = lines.line_col(to_u32(invalid.first));
            let n = invalid.bytes;
            let bytes_word = if n == 1 { "byte" } else { "bytes" };
            diagnostics.push(Diagnostic::warning(
                Span::new(invalid.first, invalid.first + invalid.first_len),
                "encoding",
                format!(
                    "invalid UTF-8 at line {line}, column {column} ({n} {bytes_word} read as '?')"
                ),
            ));
        }
        let (mut normalized, map) = match form {
            SourceForm::Free => {
                let len = preprocessed.text.len();
                (preprocessed.text, PositionMap::identity(len))
            }
            SourceForm::Fixed { line_length } => {
                let converted = fixed::to_free_form(&preprocessed.text, bom, line_length);
                diagnostics.extend(converted.diagnostics);
                (converted.text, converted.map)
            }
        };
        for d in &mut diagnostics {
            d.span = map.normalized_span(d.span);
        }
        diagnostics.sort_by_key(|d| d.span.start);
        let mut includes = include::fortran_include_lines(&normalized);
        for line in &includes {
            let (start, end) = (line.span.start as usize, line.span.end as usize);
            normalized.replace_range(start..end, &" ".repeat(end - start));
        }
        includes.extend(preprocessed.includes.into_iter().map(|line| IncludeLine {
            span: map.normalized_span(line.span),
            next: map.to_normalized(line.next),
            ..line
        }));
        includes.sort_by_key(|line| line.span.start);
        let normalized = (normalized != original).then_some(normalized);
        Ok(SourceFile {
            path: path.to_owned(),
            form,
            original,
            normalized,
            diagnostics,
            map,
            lines,
            includes,
            splices: Splices::default(),
        })
    }

    /// This file, as loaded, with the text of each of `included` placed after its
    /// INCLUDE line (lines from [`SourceFile::include_lines`], in text order; the files
    /// spliced themselves already), and `problems` (spans in the file's own normalized
    /// text, e.g. an INCLUDE line whose file was not found) added to its diagnostics.
    /// The included files' diagnostics become this file's, at their place in the
    /// spliced text.
    pub fn splice(
        self,
        included: Vec<(IncludeLine, Arc<SourceFile>)>,
        problems: Vec<Diagnostic>,
    ) -> SourceFile {
        debug_assert!(self.splices.is_empty(), "{} is spliced already", self.path);
        let (spliced, splices) = Splices::build(self.normalized(), included);
        // Nothing spliced in: the text is the file's own.
        let normalized = if splices.is_empty() {
            self.normalized
        } else {
            Some(spliced)
        };
        let mut diagnostics: Vec<Diagnostic> = self
            .diagnostics
            .into_iter()
            .chain(problems)
            .map(|mut d| {
                d.span = Span {
                    start: splices.to_spliced(d.span.start),
                    end: splices.to_spliced(d.span.end),
                };
                d
            })
            .collect();
        for inclusion in splices.iter() {
            diagnostics.extend(inclusion.source.diagnostics().iter().map(|d| {
                let mut d = d.clone();
                d.span = Span {
                    start: inclusion.outer(d.span.start),
                    end: inclusion.outer(d.span.end),
                };
                d
            }));
        }
        diagnostics.sort_by_key(|d| d.span.start);
        SourceFile {
            normalized,
            diagnostics,
            splices,
            ..self
        }
    }

    /// Whether loading changed nothing of the text: free form, no preprocessor line, no
    /// INCLUDE line, no invalid byte, no lone carriage return, no finding. Such a file
    /// is [`SourceFile::plain`] of its text.
    pub fn is_plain(&self) -> bool {
        self.form == SourceForm::Free
            && self.diagnostics.is_empty()
            && self.includes.is_empty()
            && self.splices.is_empty()
            && self.map == PositionMap::identity(self.original.len())
            && self.normalized.is_none()
    }

    /// The free-form file at `path` whose text loads to itself ([`SourceFile::is_plain`]):
    /// what [`SourceFile::with_defines`] returns for such a text, without its passes.
    pub fn plain(path: &str, text: String) -> SourceFile {
        let lines = LineIndex::new(&text);
        SourceFile::plain_with(path, text, lines)
    }

    /// [`SourceFile::plain`] of `text`, this plain file's text after an edit that put
    /// `text[from..new_to]` in place of the bytes `from..old_to` (its lines indexed
    /// again only around the edit).
    pub fn plain_edited(
        &self,
        text: String,
        from: usize,
        old_to: usize,
        new_to: usize,
    ) -> SourceFile {
        let lines = self.lines.edited(&text, from, old_to, new_to);
        SourceFile::plain_with(&self.path, text, lines)
    }

    fn plain_with(path: &str, text: String, lines: LineIndex) -> SourceFile {
        SourceFile {
            path: path.to_owned(),
            form: SourceForm::Free,
            map: PositionMap::identity(text.len()),
            lines,
            normalized: None,
            original: text,
            diagnostics: Vec::new(),
            includes: Vec::new(),
            splices: Splices::default(),
        }
    }

    /// The path the file was loaded as (used for form detection and in reports).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The form the file was read in.
    pub fn form(&self) -> SourceForm {
        self.form
    }

    /// The decoded text: the same byte length as the input.
    pub fn original(&self) -> &str {
        &self.original
    }

    /// The free-form text for the parser, with the same lines as the original and the
    /// texts of included files after their INCLUDE lines.
    pub fn normalized(&self) -> &str {
        self.normalized.as_deref().unwrap_or(&self.original)
    }

    /// Whether the text of the file at `path` is spliced in (at any depth).
    pub fn includes(&self, path: &str) -> bool {
        self.splices
            .iter()
            .any(|i| i.source.path() == path || i.source.includes(path))
    }

    /// Where an offset of the original text of the included file at `path` sits in this
    /// file's spliced text: one offset per time the file is spliced in (at any depth),
    /// in text order; empty when it is not included.
    pub fn placements(&self, path: &str, original_offset: u32) -> Vec<u32> {
        let mut out = Vec::new();
        for inclusion in self.splices.iter() {
            if inclusion.source.path() == path {
                out.push(inclusion.outer(inclusion.source.to_normalized(original_offset)));
            } else {
                out.extend(
                    inclusion
                        .source
                        .placements(path, original_offset)
                        .into_iter()
                        .map(|inner| inclusion.outer(inner)),
                );
            }
        }
        out
    }

    /// The INCLUDE lines (Fortran's and the analyzed `#include`s), in text order, with
    /// spans in the file's own normalized text (before any splice).
    pub fn include_lines(&self) -> &[IncludeLine] {
        &self.includes
    }

    /// File-level notes and warnings (codes `encoding`, `preprocessor`, `fixed-form`,
    /// `include`), with spans in normalized offsets, ordered by position; those of
    /// included files at their place in the spliced text.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The line index of the original text.
    pub fn line_index(&self) -> &LineIndex {
        &self.lines
    }

    /// The original offset of a normalized offset: exact for every byte that was not
    /// inserted; an inserted byte maps to the original offset it was inserted at, a
    /// byte of an included text to the start of its INCLUDE line. O(log n).
    pub fn to_original(&self, normalized_offset: u32) -> u32 {
        self.map
            .to_original(self.splices.to_own(normalized_offset, false))
    }

    /// The normalized offset of an original offset (after any bytes inserted there).
    /// O(log n).
    pub fn to_normalized(&self, original_offset: u32) -> u32 {
        self.splices
            .to_spliced(self.map.to_normalized(original_offset))
    }

    /// 1-based line and column (column counted in Unicode scalar values, a byte-order
    /// mark taking none) in the ORIGINAL text of a normalized offset (of an offset in
    /// an included text: its INCLUDE line's).
    pub fn line_col(&self, normalized_offset: u32) -> (u32, u32) {
        self.lines.line_col(self.to_original(normalized_offset))
    }

    /// The original byte range of a normalized span (inserted bytes take no room; an
    /// included text takes its INCLUDE line's place).
    pub fn original_span(&self, span: Span) -> Span {
        self.map.original_span(self.splices.own_span(span))
    }

    /// Where a normalized span was written: in an included file (innermost, with the
    /// span in its original text) when that file's text holds all of it, and the
    /// INCLUDE lines it came through.
    pub fn origin(&self, span: Span) -> Origin {
        let mut file = self;
        let mut span = span;
        let mut header = None;
        let mut sites = Vec::new();
        while let Some(inclusion) = file.splices.containing(span) {
            let (line, column) = file
                .lines
                .line_col(file.map.to_original(inclusion.line.start));
            sites.push(IncludeSite {
                path: file.path.clone(),
                line,
                column,
            });
            span = Span {
                start: inclusion.inner(span.start),
                end: inclusion.inner(span.end),
            };
            header = Some(&inclusion.source);
            file = &inclusion.source;
        }
        Origin {
            header: header.map(|h| (h.clone(), h.original_span(span))),
            sites,
        }
    }
}

fn to_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Severity;
    use proptest::prelude::*;

    /// Loads `bytes`, checks the map invariants, and renders the normalized text (each
    /// line numbered and closed by `|`, a carriage return shown as `␍`, a tab as `→`) and the
    /// diagnostics with their original line and column.
    pub(super) fn show(path: &str, bytes: &[u8], form: Option<SourceForm>) -> String {
        let file = SourceFile::new(path, bytes, form).unwrap();
        check_map(&file);
        check_words(&file);
        let mut out = String::new();
        for (n, line) in (1..).zip(line_index::lines(file.normalized())) {
            let content = &file.normalized()[line.start..line.end];
            out.push_str(&format!("{n:02}|{}|", content.replace('\t', "→")));
            if file.normalized()[line.end..line.next].starts_with('\r') {
                out.push('␍');
            }
            out.push('\n');
        }
        for d in file.diagnostics() {
            let (line, column) = file.line_col(d.span.start);
            out.push_str(&format!(
                "{} {} {line}:{column}: {}\n",
                d.severity.as_str(),
                d.code,
                d.message
            ));
        }
        out
    }

    /// Every normalized byte that was not inserted maps to the same byte of the original
    /// (unless replaced in place by a blank, `!`, `&`, an `!HPF$` sentinel or a lone
    /// `\r` read as `\n`), and back.
    fn check_map(file: &SourceFile) {
        let (original, normalized) = (file.original().as_bytes(), file.normalized().as_bytes());
        assert_eq!(
            line_index::lines(file.original()).count(),
            line_index::lines(file.normalized()).count()
        );
        let mut inserted = 0;
        for (i, &b) in normalized.iter().enumerate() {
            let o = file.to_original(to_u32(i));
            if file.to_normalized(o) != to_u32(i) {
                // An inserted byte: it sits just before the byte it maps to.
                inserted += 1;
                assert!(b"& ".contains(&b), "inserted {:?} at {i}", b as char);
                continue;
            }
            let was = original[o as usize];
            // A lone `\r` reads as `\n` (the line ends where the index says).
            assert!(
                was == b || b" !&HPF$".contains(&b) || (was == b'\r' && b == b'\n'),
                "byte {i} is {:?}, was {:?}",
                b as char,
                was as char
            );
        }
        assert_eq!(normalized.len(), original.len() + inserted);
    }

    /// Every word of the normalized text is the same word (but for the case of an
    /// `!HPF$` sentinel) at the same line and column of the original (counted independently of the line index).
    fn check_words(file: &SourceFile) {
        let normalized = file.normalized();
        let mut start = None;
        for (i, c) in normalized.char_indices().chain([(normalized.len(), ' ')]) {
            match (start, c.is_ascii_alphanumeric()) {
                (None, true) => start = Some(i),
                (Some(s), false) => {
                    start = None;
                    let word = &normalized[s..i];
                    let o = file.to_original(to_u32(s)) as usize;
                    let was = file.original().get(o..o + word.len()).unwrap_or("");
                    assert!(was.eq_ignore_ascii_case(word), "{word} was {was}");
                    let before = file.original()[..o]
                        .replace("\r\n", "\n")
                        .replace('\r', "\n");
                    let line = before.matches('\n').count() + 1;
                    let line_start = before.rfind('\n').map_or(0, |n| n + 1);
                    let mut line_text = &before[line_start..];
                    if line_start == 0 {
                        line_text = line_text.strip_prefix(BOM).unwrap_or(line_text);
                    }
                    let column = line_text.chars().count() + 1;
                    assert_eq!(
                        file.line_col(to_u32(s)),
                        (to_u32(line), to_u32(column)),
                        "{word}"
                    );
                }
                _ => {}
            }
        }
    }

    fn fixed(text: &str) -> String {
        show("t.f", text.as_bytes(), None)
    }

    #[test]
    fn comment_lines() {
        let text = "C     comment C\nc     comment c\n*     comment star\n!     comment bang\n\
                    D     PRINT *, 'debug D'\nd     PRINT *, 'debug d'\n\n      X = 1\n\
                    C$OMP PARALLEL\nCDIR$ IVDEP\n   ! indented bang\n\t! tab bang\nCALL IS A COMMENT\n";
        expect_test::expect![[r#"
            01|!     comment C|
            02|!     comment c|
            03|!     comment star|
            04|!     comment bang|
            05|!     PRINT *, 'debug D'|
            06|!     PRINT *, 'debug d'|
            07||
            08|      X = 1|
            09|!$OMP PARALLEL|
            10|!DIR$ IVDEP|
            11|   ! indented bang|
            12|→! tab bang|
            13|!ALL IS A COMMENT|
        "#]]
        .assert_eq(&fixed(text));
    }

    #[test]
    fn labels_and_continuations() {
        let text = "      SUBROUTINE S(A, B,\n     $             C)\n   10 CONTINUE\n\
                    \x20     X = A +   ! inline comment\nC     comment between\n\n     &    B\n\
                    \x20     IF (X .GT. 0) GO TO 10\n  100 FORMAT (1X, 'A!B',\n     1        I5,\n\
                    \x20    !        I6)\n     0X = 2\n     &\n     &  + 3\n";
        expect_test::expect![[r#"
            01|      SUBROUTINE S(A, B,&|
            02|     &             C)|
            03|   10 CONTINUE|
            04|      X = A +&   ! inline comment|
            05|!     comment between|
            06||
            07|     &    B|
            08|      IF (X .GT. 0) GO TO 10|
            09|  100 FORMAT (1X, 'A!B',&|
            10|     &        I5,&|
            11|     &        I6)|
            12|      X = 2&|
            13|     &&|
            14|     &  + 3|
        "#]]
        .assert_eq(&fixed(text));
    }

    #[test]
    fn continued_literals() {
        let text = "      PRINT *, 'HELLO ! NOT A COMMENT\n     +WORLD'   ! real comment\n\
                    \x20     PRINT *, \"IT\"\"S ! TEXT\", 'A''B'  ! comment\n\
                    \x20     X = 'OPEN ! AT END\n     + STILL '' IN ! IT\n     + DONE' ! comment\n\
                    \x20     Y = 1\n";
        expect_test::expect![[r#"
            01|      PRINT *, 'HELLO ! NOT A COMMENT&|
            02|     &WORLD'   ! real comment|
            03|      PRINT *, "IT""S ! TEXT", 'A''B'  ! comment|
            04|      X = 'OPEN ! AT END&|
            05|     & STILL '' IN ! IT&|
            06|     & DONE' ! comment|
            07|      Y = 1|
        "#]]
        .assert_eq(&fixed(text));
    }

    #[test]
    fn tabs() {
        let text = "\tX = 1\n\t1+ 2\n10\tCONTINUE\n\tY = 'tab'\t! comment\n  \t2   + 3\n\t0Z = 1\n";
        expect_test::expect![[r#"
            01|→X = 1&|
            02|→&+ 2|
            03|10→CONTINUE|
            04|→Y = 'tab'&→! comment|
            05|  →&   + 3|
            06|→0Z = 1|
        "#]]
        .assert_eq(&fixed(text));
    }

    #[test]
    fn text_beyond_the_line_length() {
        let long = |code: &str, tail: &str| format!("{code:<72}{tail}\n");
        let text = [
            long("      X = 1", "SEQ00010"),
            long(
                "C     a comment line may be as long as it likes",
                "AND IS KEPT",
            ),
            long("      Y = 'A", "        "),
            long(
                "     &B' + 123456789012345678901234567890123456789012345678901234",
                "+ 9",
            ),
            long("", "SEQ00040"),
            long("      Z = 2", "SEQ00050"),
        ]
        .concat();
        expect_test::expect![[r#"
            01|      X = 1                                                                     |
            02|!     a comment line may be as long as it likes                         AND IS KEPT|
            03|      Y = 'A&                                                                    |
            04|     &B' + 123456789012345678901234567890123456789012345678901234          |
            05|                                                                                |
            06|      Z = 2                                                                     |
            info fixed-form 1:73: 4 lines have text beyond column 72; it is ignored as fixed form requires
        "#]].assert_eq(&fixed(&text));
        let wide = long("      X = 1", "+ 2");
        expect_test::expect![[r#"
            01|      X = 1                                                             + 2|
        "#]]
        .assert_eq(&show(
            "t.f",
            wide.as_bytes(),
            Some(SourceForm::Fixed { line_length: 132 }),
        ));
    }

    #[test]
    fn hpf_directives() {
        let text = "CHPF$ PROCESSORS P(4)\nCHPF$ DISTRIBUTE A(BLOCK,   ! comment\nC     between\n\
                    CHPF$*    CYCLIC) ONTO P\nchpf$ align B(I) with A(I)\n*HPF$ INDEPENDENT\n\
                    !hpf$ template T(100)\nCHPF$0TEMPLATE U\nCHPF$1   , V\nC$OMP PARALLEL DO\n\
                    \x20     DO I = 1, N\n";
        expect_test::expect![[r#"
            01|!HPF$ PROCESSORS P(4)|
            02|!HPF$ DISTRIBUTE A(BLOCK, &   ! comment|
            03|!     between|
            04|!HPF$&    CYCLIC) ONTO P|
            05|!HPF$ align B(I) with A(I)|
            06|!HPF$ INDEPENDENT|
            07|!HPF$ template T(100)|
            08|!HPF$ TEMPLATE U &|
            09|!HPF$&   , V|
            10|!$OMP PARALLEL DO|
            11|      DO I = 1, N|
        "#]]
        .assert_eq(&fixed(text));
    }

    #[test]
    fn preprocessor_in_fixed_form() {
        let text = "#include \"mpif.h\"\n#ifdef USE_MPI\n      CALL MPI_INIT(IERR)\n#else\n\
                    \x20     IERR = 0\n#endif\n#if 0\n      CALL OLD\n#elif defined(X) && defined(Y)\n\
                    \x20     CALL NEW(A,\n#ifdef Z\n     &  B)\n#else\n     &  C)\n#endif\n#endif\n\
                    #define LONG(x) \\\n  ((x) + 1)\n  #  include <stdio.h>\n#endif\n\
                    #if defined(NEVER_CLOSED)\n      X = 1\n";
        expect_test::expect![[r#"
            01|                 |
            02|              |
            03|                         |
            04|     |
            05|      IERR = 0|
            06|      |
            07|     |
            08|              |
            09|                              |
            10|                 |
            11|        |
            12|          |
            13|     |
            14|          |
            15|      |
            16|      |
            17|                 |
            18|           |
            19|                      |
            20|      |
            21|                         |
            22|           |
            info preprocessor 2:1: preprocessor conditionals: the branches cpp takes in 4 groups, with no macros defined; macros in Fortran lines are not expanded
            warning preprocessor 20:1: #endif without a matching #if
            warning preprocessor 21:1: #if without a matching #endif: the group runs to the end of the file
        "#]].assert_eq(&fixed(text));
    }

    #[test]
    fn preprocessor_in_free_form() {
        let text = "program p\n#ifdef X\n  x = 1\n#elif Y\n  x = 2\n#else\n  x = 3\n#endif\n\
                    #include 'defs.h'\nend program\n";
        expect_test::expect![[r#"
            01|program p|
            02|        |
            03|       |
            04|       |
            05|       |
            06|     |
            07|  x = 3|
            08|      |
            09|                 |
            10|end program|
            info preprocessor 2:1: preprocessor conditionals: the branches cpp takes in 1 group, with no macros defined; macros in Fortran lines are not expanded
        "#]].assert_eq(&show("p.F90", text.as_bytes(), None));
    }

    #[test]
    fn byte_order_mark() {
        let text = "\u{feff}C comment\n      X = 1\n     &  + 2\n";
        expect_test::expect![[r#"
            01|   ! comment|
            02|      X = 1&|
            03|     &  + 2|
        "#]]
        .assert_eq(&fixed(text));
        let file = SourceFile::new("t.f", text.as_bytes(), None).unwrap();
        assert!(file.original().starts_with('\u{feff}'));
        assert!(file.normalized().starts_with("   !"));
        let free = "\u{feff}#define X\nprogram p\nend\n";
        expect_test::expect![[r#"
            01|            |
            02|program p|
            03|end|
        "#]]
        .assert_eq(&show("p.f90", free.as_bytes(), None));
    }

    #[test]
    fn invalid_utf8() {
        let bytes = b"C     caf\xe9\n      X = '\xff\xfe' ! \xc3\xa9\n     &  // 'B'\n";
        expect_test::expect![[r#"
            01|!     caf?|
            02|      X = '??'& ! é|
            03|     &  // 'B'|
            warning encoding 1:10: invalid UTF-8 at line 1, column 10 (3 bytes read as '?')
        "#]]
        .assert_eq(&show("t.f", bytes, None));
        let file = SourceFile::new("t.f", bytes, None).unwrap();
        assert_eq!(file.original().len(), bytes.len());
        assert_eq!(file.diagnostics()[0].severity, Severity::Warning);
    }

    #[test]
    fn crlf_line_endings() {
        let text = "      X = 1 ! c\r\n     &  + 2\r\nC comment\r\n      Y = 'A\r\n     &B'\r\n";
        expect_test::expect![[r#"
            01|      X = 1& ! c|␍
            02|     &  + 2|␍
            03|! comment|␍
            04|      Y = 'A&|␍
            05|     &B'|␍
        "#]]
        .assert_eq(&fixed(text));
    }

    #[test]
    fn include_lines_are_collected_and_blanked() {
        let text = "      PROGRAM P\n      include \"dist.inc\" ! grid\n#include <mpif.h>\n#if 0\n#include \"old.h\"\n#endif\n      END\n";
        let file = SourceFile::new("p.f", text.as_bytes(), None).unwrap();
        let lines: Vec<(&str, bool, (u32, u32))> = file
            .include_lines()
            .iter()
            .map(|l| {
                (
                    l.name.name.as_str(),
                    l.name.system,
                    file.line_col(l.span.start),
                )
            })
            .collect();
        assert_eq!(
            lines,
            [("dist.inc", false, (2, 7)), ("mpif.h", true, (3, 1))]
        );
        assert_eq!(file.normalized().lines().nth(1).unwrap().trim(), "");
    }

    /// A text with `header` spliced after its INCLUDE line (the header read as fixed form).
    fn spliced(text: &str, header: &str) -> SourceFile {
        let file = SourceFile::new("p.f", text.as_bytes(), None).unwrap();
        let line = file.include_lines()[0].clone();
        let header =
            SourceFile::new("dist.inc", header.as_bytes(), Some(SourceForm::FIXED)).unwrap();
        file.splice(vec![(line, Arc::new(header))], Vec::new())
    }

    #[test]
    fn a_spliced_text_maps_back_to_both_files() {
        // The header has no final newline and a long line (a note of its own).
        let header = format!(
            "      REAL A(10)\n{:<72}SEQ\n!HPF$ DISTRIBUTE A(BLOCK)",
            "      REAL B(10)"
        );
        let text =
            "      PROGRAM P\n      INCLUDE 'dist.inc'\n      X = 1\n     &    + 2\n      END\n";
        let file = spliced(text, &header);
        let n = file.normalized();
        let blank = " ".repeat(24);
        assert!(
            n.starts_with(&format!("      PROGRAM P\n{blank}\n      REAL A(10)\n")),
            "{n}"
        );
        assert!(
            n.ends_with("!HPF$ DISTRIBUTE A(BLOCK)\n      X = 1&\n     &    + 2\n      END\n"),
            "{n}"
        );
        // In the header: its own line and column, through the INCLUDE line.
        let at = to_u32(n.find("A(BLOCK)").unwrap());
        let origin = file.origin(Span::new(at as usize, at as usize + 8));
        let (header, range) = origin.header.expect("in the header");
        assert_eq!(header.path(), "dist.inc");
        assert_eq!(header.line_index().line_col(range.start), (3, 18));
        assert_eq!(
            origin.sites,
            [IncludeSite {
                path: "p.f".into(),
                line: 2,
                column: 7
            }]
        );
        // And back: the header's offset is placed there, once.
        assert_eq!(file.placements("dist.inc", range.start), [at]);
        assert!(file.placements("other.inc", range.start).is_empty());
        // Seen from the including file, it is on the INCLUDE line.
        assert_eq!(file.line_col(at), (2, 7));
        assert_eq!(
            file.original_span(Span::new(at as usize, at as usize + 8)),
            Span::new(22, 40)
        );
        // After the header: the including file's own positions, both ways.
        let x = n.find("X = 1").unwrap();
        assert_eq!(file.line_col(to_u32(x)), (3, 7));
        assert_eq!(
            file.to_normalized(to_u32(text.find("X = 1").unwrap())),
            to_u32(x)
        );
        assert!(file.origin(Span::new(x, x + 1)).header.is_none());
        // A span from the header into the file's own text belongs to the file.
        assert!(file.origin(Span::new(at as usize, x)).header.is_none());
        // The header's note comes along, placed in the header.
        let note = &file.diagnostics()[0];
        assert_eq!(note.code, "fixed-form");
        let (header, range) = file.origin(note.span).header.unwrap();
        assert_eq!(header.line_index().line_col(range.start), (2, 73));
        check_spliced_invariants(&file);
    }

    #[test]
    fn a_last_include_line_without_a_newline_still_ends_its_line() {
        let file = spliced(
            "      PROGRAM P\n      INCLUDE 'dist.inc'",
            "      REAL A(10)\n",
        );
        let blank = " ".repeat(24);
        assert_eq!(
            file.normalized(),
            format!("      PROGRAM P\n{blank}\n      REAL A(10)\n")
        );
        check_spliced_invariants(&file);
    }

    #[test]
    fn nested_includes_map_to_the_innermost_file() {
        let inner = SourceFile::new(
            "params.h",
            b"      PARAMETER (N = 8)\n",
            Some(SourceForm::FIXED),
        )
        .unwrap();
        let middle = SourceFile::new(
            "dist.inc",
            b"      INCLUDE 'params.h'\n      REAL A(N)\n",
            Some(SourceForm::FIXED),
        )
        .unwrap();
        let line = middle.include_lines()[0].clone();
        let middle = middle.splice(vec![(line, Arc::new(inner))], Vec::new());
        let outer = SourceFile::new(
            "p.f",
            b"      PROGRAM P\n      INCLUDE 'dist.inc'\n      END\n",
            None,
        )
        .unwrap();
        let line = outer.include_lines()[0].clone();
        let file = outer.splice(vec![(line, Arc::new(middle))], Vec::new());
        let at = file.normalized().find("N = 8").unwrap();
        let origin = file.origin(Span::new(at, at + 5));
        let (header, range) = origin.header.unwrap();
        assert_eq!(
            (header.path(), header.line_index().line_col(range.start)),
            ("params.h", (1, 18))
        );
        let sites: Vec<(&str, u32)> = origin
            .sites
            .iter()
            .map(|s| (s.path.as_str(), s.line))
            .collect();
        assert_eq!(sites, [("p.f", 2), ("dist.inc", 1)]);
        assert_eq!(file.placements("params.h", range.start), [to_u32(at)]);
        let real = file.normalized().find("REAL A").unwrap();
        let in_middle = to_u32("      INCLUDE 'params.h'\n      ".len());
        assert_eq!(file.placements("dist.inc", in_middle), [to_u32(real)]);
        assert_eq!(file.line_col(to_u32(at)), (2, 7));
        check_spliced_invariants(&file);
    }

    /// Offsets of the file's own text map monotonically to its original text and back;
    /// those of an included text to its INCLUDE line.
    fn check_spliced_invariants(file: &SourceFile) {
        let mut last = 0;
        for n in 0..=to_u32(file.normalized().len()) {
            let o = file.to_original(n);
            if let Some(inclusion) = file.splices.containing(Span {
                start: n,
                end: n + 1,
            }) {
                assert_eq!(o, file.map.to_original(inclusion.line.start));
                continue;
            }
            assert!(
                o >= last && o as usize <= file.original().len(),
                "{n} → {o}"
            );
            last = o;
        }
        for o in 0..=to_u32(file.original().len()) {
            let n = file.to_normalized(o);
            assert!(n as usize <= file.normalized().len());
            // An original byte maps back to itself (the inserted `&` aside).
            let back = file.to_original(n);
            assert!(
                back == o || file.normalized().as_bytes().get(n as usize) == Some(&b'&'),
                "{o} → {n} → {back}"
            );
        }
    }

    #[test]
    fn binary_input_is_rejected() {
        let e = SourceFile::new("t.f", b"      X = 1\n\0", None).unwrap_err();
        assert_eq!((e.offset, e.line, e.column), (12, 2, 1));
        assert!(SourceFile::new("t.f", &[0xff; 10], None).is_err());
    }

    #[test]
    fn free_form_is_kept() {
        let text = "program p\n  x = 1 + &\n      2 ! c\nend program p\n";
        let file = SourceFile::new("p.f90", text.as_bytes(), None).unwrap();
        assert_eq!(file.form(), SourceForm::Free);
        assert_eq!(file.path(), "p.f90");
        assert_eq!(file.normalized(), text);
        assert!(file.diagnostics().is_empty());
        for i in 0..=to_u32(text.len()) {
            assert_eq!((file.to_original(i), file.to_normalized(i)), (i, i));
        }
    }

    #[test]
    fn spans_and_positions_map_back() {
        let text = "      X = 1\n     &  + 2\n";
        let file = SourceFile::new("t.f", text.as_bytes(), None).unwrap();
        assert_eq!(file.normalized(), "      X = 1&\n     &  + 2\n");
        // The inserted `&` maps to where it was inserted, and takes no room in a span.
        assert_eq!(file.to_original(11), 11);
        assert_eq!(file.to_original(12), 11);
        assert_eq!(file.to_normalized(11), 12);
        assert_eq!(file.original_span(Span::new(6, 12)), Span::new(6, 11));
        assert_eq!(file.line_col(18), (2, 6));
        assert_eq!(file.line_col(u32::MAX), (3, 1));
    }

    fn has_errors(text: &str) -> bool {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_fortran::LANGUAGE.into())
            .unwrap();
        parser.parse(text, None).unwrap().root_node().has_error()
    }

    const DAXPY: &str = "      SUBROUTINE DAXPY(N,DA,DX,INCX,DY,INCY)
*
*  -- Reference BLAS level1 routine --
*
*     .. Scalar Arguments ..
      DOUBLE PRECISION DA
      INTEGER INCX,INCY,N
*     ..
*     .. Array Arguments ..
      DOUBLE PRECISION DX(*),DY(*)
CHPF$ DISTRIBUTE DX(BLOCK)
CHPF$ ALIGN DY(I) WITH
CHPF$*   DX(I)
*     ..
*     .. Local Scalars ..
      INTEGER I,IX,IY,M,MP1
*     ..
*     .. Intrinsic Functions ..
      INTRINSIC MOD
*     ..
      IF (N.LE.0) RETURN
      IF (DA.EQ.0.0d0) RETURN
      IF (INCX.EQ.1 .AND. INCY.EQ.1) THEN
*
*        code for both increments equal to 1
*
         M = MOD(N,4)
         IF (M.NE.0) THEN
            DO 10 I = 1,M
               DY(I) = DY(I) + DA*DX(I)
   10       CONTINUE
         END IF
         IF (N.LT.4) RETURN
         MP1 = M + 1
         DO 50 I = MP1,N,4
            DY(I) = DY(I) + DA*DX(I)
            DY(I+1) = DY(I+1) + DA*DX(I+1)
            DY(I+2) = DY(I+2) + DA*DX(I+2)
            DY(I+3) = DY(I+3) +
     $                DA*DX(I+3)
   50    CONTINUE
      ELSE
*
*        code for unequal increments or equal increments
*          not equal to 1
*
         IX = 1
         IY = 1
         IF (INCX.LT.0) IX = (-N+1)*INCX + 1
         IF (INCY.LT.0) IY = (-N+1)*INCY + 1
         DO I = 1,N
          DY(IY) = DY(IY) + DA*DX(IX)
          IX = IX + INCX
          IY = IY + INCY
         END DO
      END IF
      RETURN
      END
";

    #[test]
    fn normalized_fixed_form_parses_cleanly() {
        let file = SourceFile::new("daxpy.f", DAXPY.as_bytes(), None).unwrap();
        check_map(&file);
        check_words(&file);
        assert!(
            has_errors(file.original()),
            "the raw fixed form should not parse"
        );
        assert!(!has_errors(file.normalized()), "{}", file.normalized());
    }

    /// A line that looks like fixed form, or like nothing in particular.
    fn fixed_line() -> impl Strategy<Value = String> {
        let head = prop_oneof![
            Just(""),
            Just("      "),
            Just("     $"),
            Just("     &"),
            Just("   10 "),
            Just("C"),
            Just("*"),
            Just("!"),
            Just("d"),
            Just("CHPF$ "),
            Just("cHPF$*"),
            Just("\t"),
            Just("\t1"),
            Just("#ifdef X"),
            Just("#if 0"),
            Just("#else"),
            Just("#endif"),
            Just("#define A \\"),
            Just("\u{feff}"),
        ];
        let body = "[ a-zA-Z0-9=+()',\"!&*$\t#\\\\é€😀\r]{0,90}";
        (head, body).prop_map(|(h, b)| format!("{h}{b}"))
    }

    fn check_invariants(file: &SourceFile) {
        let (original, normalized) = (file.original(), file.normalized());
        let mut last = 0;
        for n in 0..=to_u32(normalized.len()) + 2 {
            let o = file.to_original(n);
            assert!(o >= last && o as usize <= original.len());
            last = o;
            let (line, column) = file.line_col(n);
            assert!(line >= 1 && column >= 1);
        }
        let mut last = 0;
        for o in 0..=to_u32(original.len()) + 2 {
            let n = file.to_normalized(o);
            assert!(n >= last && n as usize <= normalized.len());
            last = n;
        }
        for d in file.diagnostics() {
            assert!(d.span.start <= d.span.end && d.span.end as usize <= normalized.len());
            let span = file.original_span(d.span);
            assert!(span.start <= span.end && span.end as usize <= original.len());
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            for form in [None, Some(SourceForm::FIXED), Some(SourceForm::Free)] {
                if let Ok(file) = SourceFile::new("x.hpf", &bytes, form) {
                    prop_assert_eq!(file.original().len(), bytes.len());
                    check_invariants(&file);
                }
            }
        }

        #[test]
        fn fixed_looking_lines_never_panic(
            lines in proptest::collection::vec(fixed_line(), 0..20),
            crlf in any::<bool>(),
            line_length in prop_oneof![Just(72usize), Just(132), 0usize..10],
        ) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            let file = SourceFile::new("x.f", text.as_bytes(), Some(SourceForm::Fixed { line_length })).unwrap();
            check_invariants(&file);
            check_map(&file);
            check_words(&file);
        }
    }
}
