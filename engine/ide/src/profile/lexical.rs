//! Just enough of Fortran's free-form lexical rules to find where a statement's parts
//! end in a unit's (normalized, free-form) text: parentheses outside character
//! literals and comments, and the word after them across `&` continuations.

/// The offset just after the `)` that closes the first `(` at or after `from`
/// (outside character literals and comments); `None` when there is none before the
/// statement ends (a newline that is not continued).
pub fn after_parentheses(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'!') => {
                // A comment runs to the end of the line; the statement goes on only
                // if the line was continued.
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            (None, b'\n') if !continued(&bytes[from..i]) => return None,
            (None, b'(') => depth += 1,
            (None, b')') if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether the line ending at the end of `before` is continued: its last non-blank
/// character outside a comment is `&`.
fn continued(before: &[u8]) -> bool {
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line = &before[line_start..];
    let code = match line.iter().position(|&b| b == b'!') {
        Some(p) => &line[..p],
        None => line,
    };
    code.trim_ascii_end().last() == Some(&b'&')
}

/// The next word at or after `at` (letters, digits, `_`), skipping blanks and `&`
/// continuations (a comment after `&` included): its start and end, lower-case.
pub fn next_word(text: &str, at: usize) -> Option<(usize, usize, String)> {
    let bytes = text.as_bytes();
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\r' => i += 1,
            b'&' => {
                i += 1;
                // A trailing `&`: the rest of its line is blank or a comment. A
                // leading one (of a continuation line) is followed by the text.
                let end = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |p| i + p);
                let rest = bytes[i..end].trim_ascii();
                if rest.is_empty() || rest[0] == b'!' {
                    i = end;
                }
            }
            b'\n' if continued(&bytes[..i]) => i += 1,
            _ => break,
        }
    }
    let start = i;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        i += 1;
    }
    (i > start).then(|| (start, i, text[start..i].to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parentheses_close_across_continuations_strings_and_comments() {
        let t = "if (a(i) == ')' .and. &  ! (\n   b > 0) then\n";
        let end = after_parentheses(t, 0).unwrap();
        assert_eq!(&t[..end], "if (a(i) == ')' .and. &  ! (\n   b > 0)");
        assert_eq!(next_word(t, end).map(|w| w.2), Some("then".to_string()));
        assert_eq!(after_parentheses("if (a\nb)", 0), None);
    }

    #[test]
    fn the_word_after_a_continuation() {
        let t = "if (x) &\n  & then";
        let end = after_parentheses(t, 0).unwrap();
        assert_eq!(next_word(t, end).map(|w| w.2), Some("then".to_string()));
        assert_eq!(
            next_word("if (x) y = 1", 6).map(|w| w.2),
            Some("y".to_string())
        );
    }
}
