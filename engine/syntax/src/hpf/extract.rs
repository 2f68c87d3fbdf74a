//! Finding HPF directives in free-form source (HPF 2.0 §2.3, rules H201–H202): a
//! directive line starts, after optional blanks, with the sentinel `!HPF$` in any case.
//! Continuation follows free-form rules: a payload ending in `&` continues on the next
//! directive line, whose optional leading `&` is skipped; the fixed-form habit of a
//! sentinel immediately followed by `+` or `&` also continues the previous directive.
//! Comment and blank lines may sit between continued lines; a `!` in the payload starts
//! commentary.

use super::CODE_SYNTAX;
use crate::diagnostics::Diagnostic;
use crate::span::Span;

/// The length of the sentinel `!HPF$`.
const SENTINEL_LEN: usize = 5;

/// The payload of one physical directive line: what the lexer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Piece<'a> {
    /// Byte offset of `text` in the enclosing source.
    pub offset: usize,
    pub text: &'a str,
}

/// One directive, possibly continued over several lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RawDirective<'a> {
    /// From the sentinel of the first line to the last non-blank payload character of
    /// the last line (trailing commentary excluded).
    pub span: Span,
    /// One piece per line, without sentinel, continuation marks and commentary.
    pub pieces: Vec<Piece<'a>>,
}

/// How a physical line takes part in directive extraction.
enum Line<'a> {
    /// `!HPF$...`: `sentinel` is the offset of `!`, `payload` follows the sentinel.
    Directive { sentinel: usize, payload: Piece<'a> },
    /// A comment or blank line: may sit inside a continued directive.
    Ignorable,
    /// Anything else: ends any directive in progress.
    Code,
}

fn classify(line: &str, offset: usize) -> Line<'_> {
    let rest = line.trim_start_matches([' ', '\t']);
    let indent = line.len() - rest.len();
    if rest
        .get(..SENTINEL_LEN)
        .is_some_and(|s| s.eq_ignore_ascii_case("!hpf$"))
    {
        Line::Directive {
            sentinel: offset + indent,
            payload: Piece {
                offset: offset + indent + SENTINEL_LEN,
                text: &rest[SENTINEL_LEN..],
            },
        }
    } else if rest.is_empty() || rest.starts_with('!') {
        Line::Ignorable
    } else {
        Line::Code
    }
}

/// The directive being assembled, and where its continuation `&` is when it asks for one.
struct Open<'a> {
    raw: RawDirective<'a>,
    pending_amp: Option<usize>,
}

/// Finds every directive in `text`, in source order, with continuation errors.
pub(super) fn extract(text: &str) -> (Vec<RawDirective<'_>>, Vec<Diagnostic>) {
    let mut directives = Vec::new();
    let mut diagnostics = Vec::new();
    let mut open: Option<Open<'_>> = None;
    let mut line_start = 0;
    for raw_line in text.split('\n') {
        let offset = line_start;
        line_start += raw_line.len() + 1;
        let line = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        match classify(line, offset) {
            Line::Directive { sentinel, payload } => {
                let marker = matches!(payload.text.as_bytes().first(), Some(b'+' | b'&'));
                let continues = open
                    .as_ref()
                    .is_some_and(|o| marker || o.pending_amp.is_some());
                let mut body = payload;
                if marker {
                    body = advance(body, 1);
                } else if continues {
                    let blanks = body.text.len() - body.text.trim_start_matches([' ', '\t']).len();
                    body = advance(body, blanks);
                    if body.text.starts_with('&') {
                        body = advance(body, 1);
                    }
                }
                let current = match open.take() {
                    Some(o) if continues => o,
                    previous => {
                        directives.extend(previous.map(|o| o.raw));
                        if marker {
                            diagnostics.push(Diagnostic::error(
                                Span::new(sentinel, body.offset),
                                CODE_SYNTAX,
                                format!(
                                    "`{}` marks a continuation line, but no directive precedes it",
                                    &line[sentinel - offset..body.offset - offset]
                                ),
                            ));
                        }
                        Open {
                            raw: RawDirective {
                                span: Span::at(sentinel),
                                pieces: Vec::new(),
                            },
                            pending_amp: None,
                        }
                    }
                };
                open = Some(add_line(current, body));
            }
            Line::Ignorable => {}
            Line::Code => {
                if let Some(o) = open.take() {
                    report_dangling(
                        &o,
                        "the next statement is not an `!HPF$` line",
                        &mut diagnostics,
                    );
                    directives.push(o.raw);
                }
            }
        }
    }
    if let Some(o) = open {
        report_dangling(&o, "no `!HPF$` line follows", &mut diagnostics);
        directives.push(o.raw);
    }
    (directives, diagnostics)
}

fn advance(piece: Piece<'_>, by: usize) -> Piece<'_> {
    Piece {
        offset: piece.offset + by,
        text: &piece.text[by..],
    }
}

/// Appends one line's payload (`body`, after any continuation mark) to `open`.
fn add_line<'a>(mut open: Open<'a>, body: Piece<'a>) -> Open<'a> {
    let content = &body.text[..comment_start(body.text)];
    let trimmed = content.trim_end_matches([' ', '\t']);
    let (text, pending_amp) = match trimmed.strip_suffix('&') {
        Some(before) => (before, Some(body.offset + before.len())),
        None => (trimmed, None),
    };
    open.raw.pieces.push(Piece {
        offset: body.offset,
        text,
    });
    open.raw.span = open.raw.span.cover(Span::at(body.offset + trimmed.len()));
    open.pending_amp = pending_amp;
    open
}

/// Where commentary starts in a payload: the first `!` outside quoted text.
fn comment_start(payload: &str) -> usize {
    let mut quote = None;
    for (i, c) in payload.char_indices() {
        match (quote, c) {
            (None, '!') => return i,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            _ => {}
        }
    }
    payload.len()
}

fn report_dangling(open: &Open<'_>, why: &str, diagnostics: &mut Vec<Diagnostic>) {
    if let Some(amp) = open.pending_amp {
        diagnostics.push(Diagnostic::error(
            Span::new(amp, amp + 1),
            CODE_SYNTAX,
            format!("`&` continues this directive on the next line, but {why}"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hpf::testing::{position, range};
    use expect_test::{Expect, expect};

    fn check(text: &str, expect: Expect) {
        let (directives, diagnostics) = extract(text);
        let mut out = String::new();
        for d in &directives {
            let pieces: Vec<String> = d
                .pieces
                .iter()
                .map(|p| {
                    assert_eq!(&text[p.offset..p.offset + p.text.len()], p.text);
                    format!("{}{:?}", position(text, p.offset), p.text)
                })
                .collect();
            out.push_str(&format!("{} {}\n", range(text, d.span), pieces.join(" ")));
        }
        for d in &diagnostics {
            out.push_str(&format!(
                "{} {}: {}\n",
                d.code,
                range(text, d.span),
                d.message
            ));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn finds_directive_lines_in_any_case_with_indentation() {
        check(
            "program p\n  !HPF$ PROCESSORS P(4)\n!hpf$ template t(8) ! comment\r\n\t!Hpf$ INDEPENDENT\nx = 1 !HPF$ not a directive\n! !HPF$ nor this\n",
            expect![[r#"
                2:3-2:24 2:8" PROCESSORS P(4)"
                3:1-3:20 3:6" template t(8)"
                4:2-4:19 4:7" INDEPENDENT"
            "#]],
        );
    }

    #[test]
    fn ampersand_continuation_skips_comments_and_blank_lines() {
        check(
            "!HPF$ ALIGN A(I, J) & ! first\n! a comment\n\n!HPF$   & WITH T(J, I)\n!HPF$ DYNAMIC A\n",
            expect![[r#"
                1:1-4:23 1:6" ALIGN A(I, J) " 4:10" WITH T(J, I)"
                5:1-5:16 5:6" DYNAMIC A"
            "#]],
        );
    }

    #[test]
    fn column_six_continuation() {
        check(
            "!HPF$ DISTRIBUTE A(BLOCK)\n!HPF$+ ONTO P\n!HPF$&, B\n!HPF$ INHERIT X\n",
            expect![[r#"
                1:1-3:10 1:6" DISTRIBUTE A(BLOCK)" 2:7" ONTO P" 3:7", B"
                4:1-4:16 4:6" INHERIT X"
            "#]],
        );
    }

    #[test]
    fn dangling_continuations() {
        check(
            "!HPF$ DYNAMIC A, &\nreal x\n!HPF$+ B\n!HPF$ INHERIT C &   ",
            expect![[r#"
                1:1-1:19 1:6" DYNAMIC A, "
                3:1-3:9 3:7" B"
                4:1-4:18 4:6" INHERIT C "
                hpf-syntax 1:18-1:19: `&` continues this directive on the next line, but the next statement is not an `!HPF$` line
                hpf-syntax 3:1-3:7: `!HPF$+` marks a continuation line, but no directive precedes it
                hpf-syntax 4:17-4:18: `&` continues this directive on the next line, but no `!HPF$` line follows
            "#]],
        );
    }

    #[test]
    fn quoted_text_hides_comment_marks() {
        check(
            "!HPF$ ON 'a!b' ! real comment\n!HPF$ X \"unterminated ! &\n",
            expect![[r#"
                1:1-1:15 1:6" ON 'a!b'"
                2:1-2:26 2:6" X \"unterminated ! "
                hpf-syntax 2:25-2:26: `&` continues this directive on the next line, but no `!HPF$` line follows
            "#]],
        );
    }

    #[test]
    fn sentinel_detection_is_safe_on_non_ascii() {
        check(
            "!HP€ x\n!HPF€\n€!HPF$ y\n!HPF$ é\n",
            expect![[r#"
                4:1-4:8 4:6" é"
            "#]],
        );
    }
}
