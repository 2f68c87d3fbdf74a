//! Tokens of an HPF directive. HPF 2.0 §2.3: a directive follows the free source form
//! rules for blanks whatever the source form, keywords are case-insensitive and not
//! reserved, so the lexer only knows names, literals and punctuation; the parser decides
//! which names are keywords.
//!
//! A directive arrives as several [`Piece`]s, one per physical line; tokens never cross
//! pieces, so every token's span is its true byte range in the enclosing text.

use super::extract::Piece;
use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TokenKind {
    /// A name or keyword: a letter followed by letters, digits and `_` (`DISTRIBUTE`, `a_1`).
    Name,
    /// An integer literal, optionally with a kind (`12`, `4_8`).
    Int,
    /// A real literal (`1.5`, `2.`, `.5e-3`, `1d0`, `1.0_dp`).
    Real,
    /// A dot-delimited word: an operator or a logical literal (`.AND.`, `.true.`, `.xor.`).
    Dotted,
    LParen,
    RParen,
    Comma,
    Colon,
    DoubleColon,
    /// `=` (keyword arguments).
    Equals,
    Star,
    Slash,
    Plus,
    Minus,
    /// `**`, `//`, `==`, `/=`, `<`, `<=`, `>`, `>=`.
    Operator,
    /// Quoted text (`'x'`, `"y"`), possibly unterminated: opaque, never valid in a directive.
    Str,
    /// Any other character (`%`, `&`, `;`, `$`, non-ASCII, ...).
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Token<'a> {
    pub kind: TokenKind,
    /// The token as written.
    pub text: &'a str,
    /// Byte range in the enclosing text.
    pub span: Span,
}

/// Splits the pieces of one directive into tokens, in order.
pub(super) fn lex<'a>(pieces: &[Piece<'a>]) -> Vec<Token<'a>> {
    let mut tokens = Vec::new();
    for piece in pieces {
        lex_piece(piece, &mut tokens);
    }
    tokens
}

fn lex_piece<'a>(piece: &Piece<'a>, tokens: &mut Vec<Token<'a>>) {
    let text = piece.text;
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        let start = i;
        let kind = match c {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                i = skip_name(bytes, i + 1);
                TokenKind::Name
            }
            b'0'..=b'9' => number(bytes, &mut i),
            b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => number(bytes, &mut i),
            b'.' => match dotted_word_end(bytes, i) {
                Some(end) => {
                    i = end;
                    TokenKind::Dotted
                }
                None => {
                    i += 1;
                    TokenKind::Unknown
                }
            },
            b'\'' | b'"' => {
                i = string_end(bytes, i);
                TokenKind::Str
            }
            b'(' => punct(&mut i, 1, TokenKind::LParen),
            b')' => punct(&mut i, 1, TokenKind::RParen),
            b',' => punct(&mut i, 1, TokenKind::Comma),
            b'+' => punct(&mut i, 1, TokenKind::Plus),
            b'-' => punct(&mut i, 1, TokenKind::Minus),
            b':' if bytes.get(i + 1) == Some(&b':') => punct(&mut i, 2, TokenKind::DoubleColon),
            b':' => punct(&mut i, 1, TokenKind::Colon),
            b'*' if bytes.get(i + 1) == Some(&b'*') => punct(&mut i, 2, TokenKind::Operator),
            b'*' => punct(&mut i, 1, TokenKind::Star),
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'=')) => {
                punct(&mut i, 2, TokenKind::Operator)
            }
            b'/' => punct(&mut i, 1, TokenKind::Slash),
            b'=' if bytes.get(i + 1) == Some(&b'=') => punct(&mut i, 2, TokenKind::Operator),
            b'=' => punct(&mut i, 1, TokenKind::Equals),
            b'<' | b'>' if bytes.get(i + 1) == Some(&b'=') => punct(&mut i, 2, TokenKind::Operator),
            b'<' | b'>' => punct(&mut i, 1, TokenKind::Operator),
            _ => {
                // One whole character, so spans stay on char boundaries.
                i += text[i..].chars().next().map_or(1, char::len_utf8);
                TokenKind::Unknown
            }
        };
        tokens.push(Token {
            kind,
            text: &text[start..i],
            span: Span::new(
                piece.offset.saturating_add(start),
                piece.offset.saturating_add(i),
            ),
        });
    }
}

fn punct(i: &mut usize, len: usize, kind: TokenKind) -> TokenKind {
    *i += len;
    kind
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn skip_name(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).copied().is_some_and(is_name_byte) {
        i += 1;
    }
    i
}

fn skip_digits(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// The end of `.word.` starting at `i` (the word made of ASCII letters), if there is one.
fn dotted_word_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while bytes.get(j).is_some_and(u8::is_ascii_alphabetic) {
        j += 1;
    }
    (j > i + 1 && bytes.get(j) == Some(&b'.')).then_some(j + 1)
}

/// Whether the `.` at `i` starts one of Fortran's dotted operators or logical literals,
/// which ends a preceding integer (`1.eq.n` is `1 .eq. n`, not the real `1.`).
fn starts_dotted_operator(bytes: &[u8], i: usize) -> bool {
    const WORDS: [&str; 13] = [
        "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "eqv", "neqv", "true", "false",
    ];
    dotted_word_end(bytes, i).is_some_and(|end| {
        let word = &bytes[i + 1..end - 1];
        WORDS
            .iter()
            .any(|w| word.eq_ignore_ascii_case(w.as_bytes()))
    })
}

/// Scans an integer or real literal starting at `*i` (a digit, or `.` before a digit).
fn number(bytes: &[u8], i: &mut usize) -> TokenKind {
    let mut real = false;
    let mut j = skip_digits(bytes, *i);
    if bytes.get(j) == Some(&b'.') && !starts_dotted_operator(bytes, j) {
        real = true;
        j = skip_digits(bytes, j + 1);
    }
    if matches!(bytes.get(j), Some(b'e' | b'E' | b'd' | b'D' | b'q' | b'Q')) {
        let digits_at = if matches!(bytes.get(j + 1), Some(b'+' | b'-')) {
            j + 2
        } else {
            j + 1
        };
        if bytes.get(digits_at).is_some_and(u8::is_ascii_digit) {
            real = true;
            j = skip_digits(bytes, digits_at);
        }
    }
    if bytes.get(j) == Some(&b'_') && bytes.get(j + 1).copied().is_some_and(is_name_byte) {
        j = skip_name(bytes, j + 1);
    }
    *i = j;
    if real {
        TokenKind::Real
    } else {
        TokenKind::Int
    }
}

/// The end of the quoted text starting at `i`: after the closing quote (a doubled quote
/// stands for itself), or the end of the piece when the quote is never closed.
fn string_end(bytes: &[u8], i: usize) -> usize {
    let quote = bytes[i];
    let mut j = i + 1;
    while let Some(&b) = bytes.get(j) {
        j += 1;
        if b == quote {
            if bytes.get(j) == Some(&quote) {
                j += 1;
            } else {
                return j;
            }
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    fn check(text: &str, expect: Expect) {
        let tokens = lex(&[Piece { offset: 10, text }]);
        let mut out = String::new();
        for t in tokens {
            assert_eq!(
                &text[t.span.start as usize - 10..t.span.end as usize - 10],
                t.text
            );
            out.push_str(&format!("{:?} {:?}\n", t.kind, t.text));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn names_literals_and_punctuation() {
        check(
            "DISTRIBUTE a_1(BLOCK(4), *) :: x",
            expect![[r#"
                Name "DISTRIBUTE"
                Name "a_1"
                LParen "("
                Name "BLOCK"
                LParen "("
                Int "4"
                RParen ")"
                Comma ","
                Star "*"
                RParen ")"
                DoubleColon "::"
                Name "x"
            "#]],
        );
    }

    #[test]
    fn numbers_next_to_dotted_operators() {
        check(
            "1.eq.n 2. .5e-3 1d0 3.0_dp 4_8 1.e5 7.and..true.",
            expect![[r#"
                Int "1"
                Dotted ".eq."
                Name "n"
                Real "2."
                Real ".5e-3"
                Real "1d0"
                Real "3.0_dp"
                Int "4_8"
                Real "1.e5"
                Int "7"
                Dotted ".and."
                Dotted ".true."
            "#]],
        );
    }

    #[test]
    fn operators() {
        check(
            "a**b//c==d/=e<f<=g>h>=i/j=k",
            expect![[r#"
                Name "a"
                Operator "**"
                Name "b"
                Operator "//"
                Name "c"
                Operator "=="
                Name "d"
                Operator "/="
                Name "e"
                Operator "<"
                Name "f"
                Operator "<="
                Name "g"
                Operator ">"
                Name "h"
                Operator ">="
                Name "i"
                Slash "/"
                Name "j"
                Equals "="
                Name "k"
            "#]],
        );
    }

    #[test]
    fn strings_and_unknown_characters() {
        check(
            "'it''s' \"open é% . &",
            expect![[r#"
                Str "'it''s'"
                Str "\"open é% . &"
            "#]],
        );
        check(
            "é%.&;",
            expect![[r#"
                Unknown "é"
                Unknown "%"
                Unknown "."
                Unknown "&"
                Unknown ";"
            "#]],
        );
    }
}
