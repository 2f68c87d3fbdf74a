//! Source form: free or fixed, by file extension or, failing that, by the content.

use std::path::Path;

use super::line_index::lines;

/// The source form of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SourceForm {
    /// Free form (Fortran 90 and later): statements anywhere on a line, `&` continuation.
    Free,
    /// Fixed form (FORTRAN 77 card layout): label in columns 1–5, continuation mark in
    /// column 6, statement text in columns 7 to `line_length` (72 by default, 132 with
    /// extended-line options); text beyond `line_length` is ignored.
    Fixed { line_length: usize },
}

impl SourceForm {
    /// Fixed form with the standard line length of 72.
    pub const FIXED: SourceForm = SourceForm::Fixed { line_length: 72 };

    /// The form of a file, by extension when it tells:
    /// `.f .for .ftn .f77 .fpp` (any case, so `.F .FOR .FPP` too) → fixed with 72
    /// columns; `.f90 .f95 .f03 .f08` (any case) → free.
    ///
    /// Any other file (e.g. `.hpf`, no extension) is sniffed conservatively: fixed when
    /// some line shows a fixed-form sign — a comment line with `C`, `c` or `*` in
    /// column 1 not followed by an identifier character (nor, for `C`/`c`, by an
    /// assignment or subscript, as in free-form `c = 1`), or a continuation mark
    /// (neither a letter nor `0`) in column 6 after 5 blanks — and no line shows a
    /// free-form-only sign: code ending in `&`, or a statement starting in columns 1–5
    /// with a letter other than a column-1 `C c D d` (a letter in column 6 may be a
    /// continuation mark, so it tells nothing). Otherwise free.
    pub fn detect(path: &str, text: &str) -> SourceForm {
        let extension = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if let Some(form) = pragma(text) {
            return form;
        }
        match extension.as_deref() {
            Some("f" | "for" | "ftn" | "f77" | "fpp") => SourceForm::FIXED,
            _ if free_by_extension(path) => SourceForm::Free,
            _ => sniff(text),
        }
    }
}

/// Whether the extension of `path` says free form (`.f90 .f95 .f03 .f08`, any case):
/// the file's form then depends on its text only through a form pragma.
pub fn free_by_extension(path: &str) -> bool {
    Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| {
            ["f90", "f95", "f03", "f08"]
                .iter()
                .any(|f| e.eq_ignore_ascii_case(f))
        })
}

/// The file pragma `!costline: fixed-form [N]` or `!costline: free-form` on a comment
/// line (`C`, `c` or `*` in column 1 also introduce it, as fixed form allows): the
/// form the file is in whatever its extension says, N the fixed-form line length
/// (72 when absent; 132 for the extended lines compilers accept with
/// `-ffixed-line-length-132` and the like). The first such line counts; one with an
/// unusable length is ignored (and reported where the unit's pragmas are).
pub fn pragma(text: &str) -> Option<SourceForm> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for line in lines(text) {
        let line = &text[line.start..line.end];
        let body = match line.as_bytes().first() {
            Some(b'c' | b'C' | b'*') => &line[1..],
            _ => line
                .trim_start_matches([' ', '\t'])
                .strip_prefix('!')
                .unwrap_or(""),
        };
        let body = body.trim_start();
        let Some(head) = body
            .get(..9)
            .filter(|h| h.eq_ignore_ascii_case("costline:"))
        else {
            continue;
        };
        let mut words = body[head.len()..].split_whitespace();
        let key = words.next().unwrap_or("").to_ascii_lowercase();
        let value = words.next();
        match (key.as_str(), value) {
            ("free-form", None) => return Some(SourceForm::Free),
            ("fixed-form", None) => return Some(SourceForm::FIXED),
            ("fixed-form", Some(n)) => {
                if let Ok(line_length) = n.parse::<usize>()
                    && (72..=1024).contains(&line_length)
                {
                    return Some(SourceForm::Fixed { line_length });
                }
            }
            _ => {}
        }
    }
    None
}

/// What one line says about the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sign {
    Fixed,
    Free,
    Neutral,
}

fn sniff(text: &str) -> SourceForm {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut fixed = false;
    for line in lines(text) {
        match line_sign(&text[line.start..line.end]) {
            Sign::Free => return SourceForm::Free,
            Sign::Fixed => fixed = true,
            Sign::Neutral => {}
        }
    }
    if fixed {
        SourceForm::FIXED
    } else {
        SourceForm::Free
    }
}

fn line_sign(line: &str) -> Sign {
    let trimmed = line.trim_start_matches([' ', '\t']);
    let Some(first) = trimmed.chars().next() else {
        return Sign::Neutral;
    };
    if first == '#' || first == '!' {
        return Sign::Neutral;
    }
    let mut chars = line.chars();
    let col1 = chars.next().unwrap_or(' ');
    let col2 = chars.next();
    let after_col1 = line.get(1..).unwrap_or("").trim_start();
    match col1 {
        '*' => return Sign::Fixed,
        'C' | 'c' => {
            let identifier = col2.is_some_and(|c| c.is_alphanumeric() || c == '_');
            let statement = after_col1.starts_with(['=', '(', '%', '[']);
            return if identifier || statement {
                Sign::Neutral
            } else {
                Sign::Fixed
            };
        }
        'D' | 'd' => return Sign::Neutral,
        _ => {}
    }
    let indent = line.len() - trimmed.len();
    if line[..indent].contains('\t') {
        // Tab layouts read the same in both forms.
        return Sign::Neutral;
    }
    if indent == 5 && first != '0' && !first.is_alphabetic() && first != '_' {
        return Sign::Fixed;
    }
    if indent < 5 && first.is_alphabetic() {
        return Sign::Free;
    }
    if ends_with_ampersand(trimmed) {
        return Sign::Free;
    }
    Sign::Neutral
}

/// Whether a code line's text (before a `!` comment outside quotes) ends in `&`.
fn ends_with_ampersand(code: &str) -> bool {
    let mut quote = None;
    let mut end = code.len();
    for (i, c) in code.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '!' => {
                end = i;
                break;
            }
            None => {}
        }
    }
    code[..end].trim_end().ends_with('&')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_pragma_overrides_the_extension() {
        let text = "C costline: fixed-form 132\n      X = 1\n";
        let f = SourceForm::detect("a.f90", text);
        assert_eq!(f, SourceForm::Fixed { line_length: 132 });
        assert_eq!(
            SourceForm::detect("a.f", "! costline: free-form\nx = 1\n"),
            SourceForm::Free
        );
        assert_eq!(
            SourceForm::detect("a.f90", "!COSTLINE: Fixed-Form\n"),
            SourceForm::FIXED
        );
        // An unusable length leaves the extension's form.
        assert_eq!(
            SourceForm::detect("a.f", "!costline: fixed-form 9\n"),
            SourceForm::FIXED
        );
        assert_eq!(
            SourceForm::detect("a.f90", "!costline: fixed-form x\n"),
            SourceForm::Free
        );
    }

    #[test]
    fn by_extension() {
        for path in [
            "a.f", "a.F", "a.for", "a.FOR", "a.ftn", "a.f77", "a.fpp", "a.FPP",
        ] {
            assert_eq!(SourceForm::detect(path, ""), SourceForm::FIXED, "{path}");
        }
        for path in ["a.f90", "a.F90", "dir.f/a.f95", "a.f03", "a.F08"] {
            assert_eq!(
                SourceForm::detect(path, "C comment\n"),
                SourceForm::Free,
                "{path}"
            );
        }
    }

    #[test]
    fn sniffs_other_files() {
        let fixed = "C     A COMMENT\n      X = 1\n     $    + 2\n";
        assert_eq!(SourceForm::detect("a.hpf", fixed), SourceForm::FIXED);
        assert_eq!(
            SourceForm::detect("noext", "*> doc\n      END\n"),
            SourceForm::FIXED
        );
        let continuation = "      CALL F(A,\n     &       B)\n";
        assert_eq!(SourceForm::detect("a.hpf", continuation), SourceForm::FIXED);
        // Letters as continuation marks (column 6) do not make the text free form.
        let letters = "*     DATA\n      DATA X/1.0,\n     A       2.0/\n";
        assert_eq!(SourceForm::detect("a.hpf", letters), SourceForm::FIXED);
        let free = "program p\n  x = 1\nend program\n";
        assert_eq!(SourceForm::detect("a.hpf", free), SourceForm::Free);
        let free_amp = "C     comment\n      call f(a, &\n             b)\n";
        assert_eq!(SourceForm::detect("a.hpf", free_amp), SourceForm::Free);
        // `c = 1` and `call` in column 1 are free-form statements, not comments.
        assert_eq!(SourceForm::detect("a.hpf", "c = 1\n"), SourceForm::Free);
        assert_eq!(SourceForm::detect("a.hpf", "call f\n"), SourceForm::Free);
        // No sign either way: free.
        assert_eq!(
            SourceForm::detect("a.hpf", "      X = 1\n"),
            SourceForm::Free
        );
        assert_eq!(SourceForm::detect("a.hpf", ""), SourceForm::Free);
        // `&` inside a literal or a comment is no free-form sign.
        let quoted = "C     A COMMENT\n      X = 'A&'\n      Y = 1 ! &\n";
        assert_eq!(SourceForm::detect("a.hpf", quoted), SourceForm::FIXED);
    }
}
