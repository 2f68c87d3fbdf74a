//! C preprocessor lines (`#include`, `#define`, `#ifdef` ...): kept away from the parser
//! without expanding anything. Every byte of a preprocessor line becomes a space, and of
//! each conditional group only one branch is analyzed: the code lines of the others are
//! blanked too. Blanking keeps lengths and line terminators, so offsets do not move.

use crate::diagnostics::Diagnostic;
use crate::span::Span;

use super::include::{IncludeLine, cpp_include};
use super::line_index::lines;

/// Preprocessor-free text (same length as the input) and the notes about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Preprocessed {
    pub text: String,
    /// Spans are byte offsets in the input (which are also offsets in `text`).
    pub diagnostics: Vec<Diagnostic>,
    /// The `#include` lines of the analyzed branches (offsets in the input).
    pub includes: Vec<IncludeLine>,
}

/// One open `#if`/`#ifdef`/`#ifndef` group.
#[derive(Clone, Debug)]
struct Group {
    /// `if`, `ifdef` or `ifndef`, for messages.
    name: String,
    span: Span,
    /// Whether the code around the group is analyzed.
    parent_active: bool,
    /// Whether a branch of this group has been chosen for analysis.
    chosen: bool,
    /// Whether the current branch is analyzed.
    active: bool,
}

/// Blanks preprocessor lines and the code lines of unanalyzed branches.
///
/// A preprocessor line has `#` as its first non-blank character; a line ending in `\`
/// continues it onto the next line. Of each `#if`/`#ifdef`/`#ifndef` group the first
/// branch is analyzed, except that a branch whose condition is literally `0`
/// (`#if 0`, `#elif 0`) is skipped for the next one; groups nest. The `#include` lines
/// of analyzed branches are collected for the splice. Diagnostics: an `Info` for the
/// whole file at its first conditional and for each `#include` of a macro (code
/// `preprocessor`); a `Warning` for each `#if` left open at the end of the file and
/// for each `#elif`/`#else`/`#endif` without an open group.
pub(crate) fn preprocess(text: &str) -> Preprocessed {
    // Without a `#` there is no directive (the common case, found at memory speed).
    if !text.contains('#') {
        return Preprocessed {
            text: text.to_string(),
            diagnostics: Vec::new(),
            includes: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut diagnostics = Vec::new();
    let mut includes = Vec::new();
    let mut stack: Vec<Group> = Vec::new();
    let mut groups = 0usize;
    let mut first_conditional: Option<Span> = None;
    let mut continued = false;
    for line in lines(text) {
        let content = &text[line.start..line.end];
        let span = Span::new(line.start, line.end);
        let directive = continued || content.trim_start_matches([' ', '\t']).starts_with('#');
        if directive {
            if !continued {
                let (name, rest) = split_directive(content);
                let active = stack.last().is_none_or(|g| g.active);
                match name {
                    "if" | "ifdef" | "ifndef" => {
                        groups += 1;
                        first_conditional.get_or_insert(span);
                        let take = active && !(name == "if" && is_zero(rest));
                        stack.push(Group {
                            name: name.to_owned(),
                            span,
                            parent_active: active,
                            chosen: take,
                            active: take,
                        });
                    }
                    "elif" | "else" => match stack.last_mut() {
                        Some(group) => {
                            let take = group.parent_active
                                && !group.chosen
                                && !(name == "elif" && is_zero(rest));
                            group.active = take;
                            group.chosen |= take;
                        }
                        None => diagnostics.push(stray(name, span)),
                    },
                    "endif" => match stack.pop() {
                        Some(_) => {}
                        None => diagnostics.push(stray(name, span)),
                    },
                    "include" if active => match cpp_include(rest) {
                        Some(name) => includes.push(IncludeLine {
                            name,
                            span,
                            next: u32::try_from(line.next).unwrap_or(u32::MAX),
                        }),
                        None => diagnostics.push(Diagnostic::info(
                            span,
                            "preprocessor",
                            format!(
                                "#include {} names no file (macros are not expanded): not followed",
                                rest.trim()
                            ),
                        )),
                    },
                    _ => {}
                }
            }
            continued = content.trim_end().ends_with('\\');
            blank(&mut out, content);
        } else if stack.last().is_none_or(|g| g.active) {
            out.push_str(content);
        } else {
            blank(&mut out, content);
        }
        out.push_str(&text[line.end..line.next]);
    }
    for group in stack {
        diagnostics.push(Diagnostic::warning(
            group.span,
            "preprocessor",
            format!(
                "#{} without a matching #endif: the group runs to the end of the file",
                group.name
            ),
        ));
    }
    if let Some(span) = first_conditional {
        let plural = if groups == 1 { "" } else { "s" };
        diagnostics.push(Diagnostic::info(
            span,
            "preprocessor",
            format!(
                "preprocessor conditionals: analyzing the first branch of {groups} group{plural}; macros are not expanded"
            ),
        ));
    }
    diagnostics.sort_by_key(|d| d.span.start);
    Preprocessed {
        text: out,
        diagnostics,
        includes,
    }
}

/// The directive name (`include`, `ifdef` ...) of a preprocessor line and the text after it.
fn split_directive(line: &str) -> (&str, &str) {
    let after_hash = line
        .trim_start_matches([' ', '\t'])
        .strip_prefix('#')
        .unwrap_or("")
        .trim_start_matches([' ', '\t']);
    let name_len = after_hash
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(after_hash.len());
    after_hash.split_at(name_len)
}

/// Whether a condition is literally `0` (comments aside).
fn is_zero(condition: &str) -> bool {
    let end = [condition.find("/*"), condition.find("//")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(condition.len());
    condition[..end].trim() == "0"
}

fn stray(name: &str, span: Span) -> Diagnostic {
    Diagnostic::warning(
        span,
        "preprocessor",
        format!("#{name} without a matching #if"),
    )
}

/// Appends `text` with every character replaced by as many spaces as it has bytes.
fn blank(out: &mut String, text: &str) {
    out.extend(std::iter::repeat_n(' ', text.len()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        let p = preprocess(text);
        assert_eq!(p.text.len(), text.len());
        let mut s = p.text.replace(' ', "·");
        for d in &p.diagnostics {
            s.push_str(&format!(
                "\n{} {}..{}: {}",
                d.severity.as_str(),
                d.span.start,
                d.span.end,
                d.message
            ));
        }
        s
    }

    #[test]
    fn nested_and_zero_groups() {
        let text =
            "#if 0\na\n#elif 0 /* no */\nb\n#else\nc\n#ifdef X\nd\n#else\ne\n#endif\n#endif\n";
        expect_test::expect![[r#"
            ·····
            ·
            ················
            ·
            ·····
            c
            ········
            d
            ·····
            ·
            ······
            ······

            info 0..5: preprocessor conditionals: analyzing the first branch of 2 groups; macros are not expanded"#]]
        .assert_eq(&show(text));
    }

    #[test]
    fn continuation_and_strays() {
        let text = "#define F(x) \\\n   (x)\ny\n#endif\n#else\n  #  ifndef Y\nz\n";
        expect_test::expect![[r#"
            ··············
            ······
            y
            ······
            ·····
            ·············
            z

            warning 24..30: #endif without a matching #if
            warning 31..36: #else without a matching #if
            warning 37..50: #ifndef without a matching #endif: the group runs to the end of the file
            info 37..50: preprocessor conditionals: analyzing the first branch of 1 group; macros are not expanded"#]]
        .assert_eq(&show(text));
    }

    #[test]
    fn blanking_keeps_byte_length_of_non_ascii() {
        let p = preprocess("#define S \"é\"\r\nx\r\n");
        assert_eq!(p.text, "              \r\nx\r\n");
    }
}
