//! HPF's `EXTRINSIC(kind)` procedure prefix, which the grammar lacks: found among the
//! other prefixes of a SUBROUTINE or FUNCTION statement in any order (`PURE
//! EXTRINSIC(HPF_LOCAL)`, `EXTRINSIC(HPF) RECURSIVE`, a type for a function), over
//! continuation lines (fixed form's `extrinsic (HPF)` line with the SUBROUTINE statement
//! on its continuation), in the unit's own statement and in its interface bodies; and
//! blanked before parsing, every offset unchanged.

use crate::span::Span;

/// The words that may stand with `EXTRINSIC(kind)` before SUBROUTINE or FUNCTION: the
/// other prefixes (Fortran 2008 prefix-spec) and a function's type.
const PREFIX_WORDS: &[&str] = &[
    "pure",
    "impure",
    "elemental",
    "recursive",
    "non_recursive",
    "module",
    "integer",
    "real",
    "double",
    "precision",
    "complex",
    "logical",
    "character",
    "type",
];

/// `text` with every `EXTRINSIC(kind)` prefix of a SUBROUTINE or FUNCTION statement
/// blanked (the unit's own and its interface bodies'), and the kind of the unit's own
/// (its first statement), lower-case, with its span.
pub fn strip_extrinsic(text: String) -> (String, Option<(String, Span)>) {
    let mut bytes = text.into_bytes();
    let mut own = None;
    for (k, statement) in statements(&bytes).into_iter().enumerate() {
        let Some((kind, span)) = extrinsic_prefix(&bytes, &statement) else {
            continue;
        };
        if k == 0 {
            own = Some((kind, span));
        }
        blank(&mut bytes, span);
        drop_empty_first_line(&mut bytes, &statement);
    }
    // Only ASCII bytes were replaced by spaces.
    let text = String::from_utf8(bytes).expect("blanking ASCII keeps UTF-8");
    (text, own)
}

/// One statement: the byte ranges of its code on each of its lines (comments and the
/// continuation `&`s left out), in order.
struct Statement {
    pieces: Vec<(usize, usize)>,
}

/// The statements of `text`, split at line ends that no `&` continues (and at `;`
/// only where it cannot matter: a prefix never follows one).
fn statements(text: &[u8]) -> Vec<Statement> {
    let mut out = Vec::new();
    let mut current: Option<Statement> = None;
    let mut start = 0;
    while start < text.len() {
        let end = text[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |n| start + n);
        let code_end = start + code_length(&text[start..end]);
        let mut from = start;
        while from < code_end && text[from].is_ascii_whitespace() {
            from += 1;
        }
        if from == code_end {
            // A blank or comment line: a statement continues across it.
            start = end + 1;
            continue;
        }
        if current.is_some() && text[from] == b'&' {
            from += 1;
        }
        let mut to = code_end;
        while to > from && text[to - 1].is_ascii_whitespace() {
            to -= 1;
        }
        let continued = to > from && text[to - 1] == b'&';
        if continued {
            to -= 1;
        }
        current
            .get_or_insert_with(|| Statement { pieces: Vec::new() })
            .pieces
            .push((from, to));
        if !continued {
            out.extend(current.take());
        }
        start = end + 1;
    }
    out.extend(current);
    out
}

/// The length of a line's code: up to a `!` that is not in a character literal.
fn code_length(line: &[u8]) -> usize {
    let mut quote = None;
    for (i, &b) in line.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'!' => return i,
            None => {}
        }
    }
    line.len()
}

/// A word, a parenthesized group, or another character of a statement, with its span.
#[derive(Debug)]
enum Token {
    Word(String, Span),
    Group(String, Span),
    Other,
}

/// The tokens of a statement's code, up to the first that cannot be in a prefix.
fn tokens(text: &[u8], statement: &Statement) -> Vec<Token> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut group = (String::new(), 0usize);
    for &(from, to) in &statement.pieces {
        let mut i = from;
        while i < to {
            let b = text[i].to_ascii_lowercase();
            if depth > 0 {
                match b {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    out.push(Token::Group(group.0.clone(), Span::new(group.1, i + 1)));
                } else {
                    group.0.push(b as char);
                }
                i += 1;
            } else if b == b'(' {
                depth = 1;
                group = (String::new(), i);
                i += 1;
            } else if b.is_ascii_alphabetic() {
                let start = i;
                while i < to && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                    i += 1;
                }
                let word = String::from_utf8_lossy(&text[start..i]).to_ascii_lowercase();
                let procedure = word == "subroutine" || word == "function";
                out.push(Token::Word(word, Span::new(start, i)));
                if procedure {
                    return out;
                }
            } else if b.is_ascii_whitespace() || b == b'*' || b.is_ascii_digit() {
                // Between words, and a length (`character*8 function`).
                i += 1;
            } else {
                out.push(Token::Other);
                return out;
            }
        }
    }
    out
}

/// The kind and span of the `EXTRINSIC(kind)` prefix of a SUBROUTINE or FUNCTION
/// statement (every other word before the keyword a prefix or a function's type).
fn extrinsic_prefix(text: &[u8], statement: &Statement) -> Option<(String, Span)> {
    let tokens = tokens(text, statement);
    let Some(Token::Word(last, _)) = tokens.last() else {
        return None;
    };
    if last != "subroutine" && last != "function" {
        return None;
    }
    let mut found = None;
    let mut iter = tokens[..tokens.len() - 1].iter().peekable();
    while let Some(token) = iter.next() {
        match token {
            Token::Word(word, span) if word == "extrinsic" => match iter.next() {
                Some(Token::Group(kind, group)) if found.is_none() => {
                    let span = Span::new(span.start as usize, group.end as usize);
                    found = Some((kind.trim().to_string(), span));
                }
                _ => return None,
            },
            Token::Word(word, _) if PREFIX_WORDS.contains(&word.as_str()) => {
                // A type's kind or length selector (`real(kind=8)`, `type(t)`).
                if let Some(Token::Group(..)) = iter.peek() {
                    iter.next();
                }
            }
            _ => return None,
        }
    }
    found
}

/// Replaces the bytes of `span` with spaces, line ends and continuation `&`s kept.
fn blank(bytes: &mut [u8], span: Span) {
    for b in &mut bytes[span.start as usize..span.end as usize] {
        if *b != b'\n' && *b != b'&' {
            *b = b' ';
        }
    }
}

/// When blanking left the statement's first line with nothing but its continuation
/// `&`, blanks that `&` and the next line's leading one: the statement then starts on
/// its next line, as the grammar reads it.
fn drop_empty_first_line(bytes: &mut [u8], statement: &Statement) {
    let (Some(&(from, to)), Some(&(next, _))) = (statement.pieces.first(), statement.pieces.get(1))
    else {
        return;
    };
    if !bytes[from..to].iter().all(u8::is_ascii_whitespace) {
        return;
    }
    // The piece ends just before its line's `&`, the next starts just after its own.
    if bytes.get(to) == Some(&b'&') {
        bytes[to] = b' ';
    }
    if next > 0 && bytes[next - 1] == b'&' {
        bytes[next - 1] = b' ';
    }
}

#[cfg(test)]
mod tests {
    use super::strip_extrinsic;

    fn strip(text: &str) -> (String, Option<String>) {
        let (out, own) = strip_extrinsic(text.to_string());
        assert_eq!(out.len(), text.len(), "offsets unchanged");
        (
            out,
            own.map(|(kind, span)| format!("{kind} {}..{}", span.start, span.end)),
        )
    }

    /// `text` with `what` blanked.
    fn blanked(text: &str, what: &str) -> String {
        text.replacen(what, &" ".repeat(what.len()), 1)
    }

    #[test]
    fn every_order_of_prefixes_and_continuation_lines() {
        let text = "extrinsic (HPF_LOCAL) subroutine s(a)\nend\n";
        assert_eq!(
            strip(text),
            (
                blanked(text, "extrinsic (HPF_LOCAL)"),
                Some("hpf_local 0..21".into())
            )
        );
        let text = "pure extrinsic(hpf_local) subroutine s(a)\nend\n";
        assert_eq!(strip(text).0, blanked(text, "extrinsic(hpf_local)"));
        let text = "extrinsic (HPF) recursive integer(kind=8) function f(a)\nend\n";
        assert_eq!(strip(text).0, blanked(text, "extrinsic (HPF)"));
        let text = "  pure extrinsic (hpf_local) &\n  &   subroutine s(a)\nend\n";
        assert_eq!(strip(text).0, blanked(text, "extrinsic (hpf_local)"));
        // Fixed form's prefix line, normalized to free form, with a comment between:
        // the statement starts on the continuation line.
        let (out, own) = strip("       extrinsic (HPF) &\n! note\n     &  subroutine s(a)\nend\n");
        assert_eq!(
            out,
            format!("{}\n! note\n        subroutine s(a)\nend\n", " ".repeat(24))
        );
        assert_eq!(own.as_deref(), Some("hpf 7..22"));
    }

    #[test]
    fn interface_bodies_are_stripped_but_not_the_units_own() {
        let text = "subroutine s\n interface\n  extrinsic (hpf_local) &\n  & subroutine t(x)\n  end subroutine\n end interface\nend\n";
        let (out, own) = strip(text);
        assert_eq!(own, None);
        assert!(!out.contains("extrinsic"), "{out}");
        assert!(out.contains("subroutine t(x)"), "{out}");
    }

    #[test]
    fn other_uses_of_the_word_are_left_alone() {
        for text in [
            "subroutine extrinsic(a)\nend\n",
            "x = extrinsic (1) + subroutine\n",
            "call extrinsic(hpf) ! subroutine\n",
            "extrinsic (hpf) :: x\n",
        ] {
            assert_eq!(strip(text), (text.to_string(), None), "{text}");
        }
    }
}
