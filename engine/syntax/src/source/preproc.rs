//! C preprocessor lines (`#include`, `#define`, `#if` ...): kept away from the parser.
//! Every byte of a preprocessor line becomes a space, and of each conditional group only
//! the branch cpp takes is analyzed: the code lines of the others are blanked too. The
//! conditions are evaluated as cpp evaluates them ([`super::cpp_expr`]) with the macros
//! the settings define (`--define`, `defines`) and the file's own `#define` and `#undef`
//! lines before them; an undefined macro is 0. Macros in Fortran lines are not expanded.
//! Blanking keeps lengths and line terminators, so offsets do not move.

use crate::diagnostics::Diagnostic;
use crate::span::Span;
use std::collections::BTreeMap;

use super::cpp_expr::{Macros, evaluate, strip_comments};
use super::include::{IncludeLine, cpp_include};
use super::line_index::lines;

/// Macros defined for the preprocessor from outside the file (`--define NAME[=VALUE]`,
/// `defines` in costline.toml and the editor's settings): names and values (`1` for a
/// name given alone).
pub type Defines = BTreeMap<String, String>;

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
    /// Whether a branch of this group has been taken.
    chosen: bool,
    /// Whether the current branch is analyzed.
    active: bool,
}

/// Blanks preprocessor lines and the code lines of the branches cpp would not take.
///
/// A preprocessor line has `#` as its first non-blank character; a line ending in `\`
/// continues it onto the next line. Of each `#if`/`#ifdef`/`#ifndef` group the first
/// branch whose condition holds is analyzed (`#else` when none does); groups nest. The
/// macros start as `defines` and follow the `#define` and `#undef` lines of analyzed
/// branches. The `#include` lines of analyzed branches are collected for the splice
/// (`#include NAME` where the macro NAME is a quoted or bracketed file name too).
/// Diagnostics: an `Info` for the whole file at its first conditional and for each
/// `#include` that names no file (code `preprocessor`); a `Warning` for each `#if` left
/// open at the end of the file, each `#elif`/`#else`/`#endif` without an open group and
/// each condition that cannot be evaluated (its branch is not taken).
pub(crate) fn preprocess(text: &str, defines: &Defines) -> Preprocessed {
    // Without a `#` there is no directive (the common case, found at memory speed).
    if !text.contains('#') {
        return Preprocessed {
            text: text.to_string(),
            diagnostics: Vec::new(),
            includes: Vec::new(),
        };
    }
    let mut macros = Macros {
        object: defines.clone(),
        function: Default::default(),
    };
    let mut out = String::with_capacity(text.len());
    let mut diagnostics = Vec::new();
    let mut includes = Vec::new();
    let mut stack: Vec<Group> = Vec::new();
    let mut groups = 0usize;
    let mut first_conditional: Option<Span> = None;
    // The directive being continued (`\` at the end of its lines) and its text so far.
    let mut pending: Option<(Span, String)> = None;
    for line in lines(text) {
        let content = &text[line.start..line.end];
        let span = Span::new(line.start, line.end);
        let starts = content.trim_start_matches([' ', '\t']).starts_with('#');
        if pending.is_some() || starts {
            let (start_span, mut joined) = pending.take().unwrap_or((span, String::new()));
            let trimmed = content.trim_end();
            if let Some(head) = trimmed.strip_suffix('\\') {
                joined.push_str(head);
                joined.push(' ');
                pending = Some((start_span, joined));
            } else {
                joined.push_str(content);
                let whole = Span {
                    start: start_span.start,
                    end: span.end,
                };
                directive(
                    &joined,
                    start_span,
                    whole,
                    line.next,
                    &mut State {
                        macros: &mut macros,
                        stack: &mut stack,
                        groups: &mut groups,
                        first_conditional: &mut first_conditional,
                        diagnostics: &mut diagnostics,
                        includes: &mut includes,
                    },
                );
            }
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
                "preprocessor conditionals: the branches cpp takes in {groups} group{plural}, with {}; \
                 macros in Fortran lines are not expanded",
                defined_list(defines)
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

/// `no macros defined` or `USE_MPI, NX=100 defined` (the first few, then a count).
fn defined_list(defines: &Defines) -> String {
    const SHOWN: usize = 6;
    if defines.is_empty() {
        return "no macros defined".to_string();
    }
    let mut words: Vec<String> = defines
        .iter()
        .take(SHOWN)
        .map(|(k, v)| {
            if v == "1" {
                k.clone()
            } else {
                format!("{k}={v}")
            }
        })
        .collect();
    if defines.len() > SHOWN {
        words.push(format!("{} more", defines.len() - SHOWN));
    }
    format!("{} defined", words.join(", "))
}

/// What the directives of a file change as they are read.
struct State<'a> {
    macros: &'a mut Macros,
    stack: &'a mut Vec<Group>,
    groups: &'a mut usize,
    first_conditional: &'a mut Option<Span>,
    diagnostics: &'a mut Vec<Diagnostic>,
    includes: &'a mut Vec<IncludeLine>,
}

/// Applies one directive (`text`, its continuation lines joined): `span` is its first
/// line, `whole` all of its lines, `next` where the line after it starts.
fn directive(text: &str, span: Span, whole: Span, next: usize, s: &mut State) {
    let (name, rest) = split_directive(text);
    let active = s.stack.last().is_none_or(|g| g.active);
    match name {
        "if" | "ifdef" | "ifndef" => {
            *s.groups += 1;
            s.first_conditional.get_or_insert(span);
            let take = active && holds(name, rest, span, s);
            s.stack.push(Group {
                name: name.to_owned(),
                span,
                parent_active: active,
                chosen: take,
                active: take,
            });
        }
        "elif" | "elifdef" | "elifndef" | "else" => {
            let Some(group) = s.stack.last() else {
                s.diagnostics.push(stray(name, span));
                return;
            };
            let open = group.parent_active && !group.chosen;
            let take = open && (name == "else" || holds(name, rest, span, s));
            if let Some(group) = s.stack.last_mut() {
                group.active = take;
                group.chosen |= take;
            }
        }
        // The guard closes the open group; without one the `#endif` is stray.
        "endif" if s.stack.pop().is_none() => s.diagnostics.push(stray(name, span)),
        "define" if active => define(rest, s.macros),
        "undef" if active => {
            if let Some(n) = macro_name(rest) {
                s.macros.undefine(n);
            }
        }
        "include" if active => {
            let named = cpp_include(rest).or_else(|| {
                let n = macro_name(rest)?;
                cpp_include(s.macros.object.get(n)?)
            });
            match named {
                Some(name) => s.includes.push(IncludeLine {
                    name,
                    span,
                    next: u32::try_from(next).unwrap_or(u32::MAX),
                }),
                None => s.diagnostics.push(Diagnostic::info(
                    whole,
                    "preprocessor",
                    format!(
                        "#include {} names no file (nor does a macro it names): not followed",
                        rest.trim()
                    ),
                )),
            }
        }
        _ => {}
    }
}

/// Whether the condition of an `#if`, `#ifdef`, ... holds; a condition that cannot be
/// evaluated does not (with a warning).
fn holds(name: &str, rest: &str, span: Span, s: &mut State) -> bool {
    match name {
        "ifdef" | "elifdef" | "ifndef" | "elifndef" => {
            let defined = macro_name(rest).is_some_and(|n| s.macros.is_defined(n));
            defined != name.ends_with("ndef")
        }
        _ => match evaluate(rest, s.macros) {
            Ok(v) => v != 0,
            Err(why) => {
                s.diagnostics.push(Diagnostic::warning(
                    span,
                    "preprocessor",
                    format!(
                        "cannot evaluate `#{name} {}`: {why}; its branch is not analyzed",
                        strip_comments(rest).trim()
                    ),
                ));
                false
            }
        },
    }
}

/// `#define NAME VALUE` (a function-like `NAME(ARGS) BODY` is only defined).
fn define(rest: &str, macros: &mut Macros) {
    let rest = rest.trim_start_matches([' ', '\t']);
    let Some(name) = macro_name(rest) else {
        return;
    };
    let after = &rest[name.len()..];
    macros.undefine(name);
    if after.starts_with('(') {
        macros.function.insert(name.to_string());
    } else {
        macros
            .object
            .insert(name.to_string(), strip_comments(after).trim().to_string());
    }
}

/// The identifier at the start of `text` (blanks before it skipped).
fn macro_name(text: &str) -> Option<&str> {
    let text = text.trim_start_matches([' ', '\t']);
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let name = &text[..end];
    (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
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

    fn show_with(text: &str, defines: &[(&str, &str)]) -> String {
        let defines: Defines = defines
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let p = preprocess(text, &defines);
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
        for i in &p.includes {
            s.push_str(&format!("\ninclude {} at {}", i.name.name, i.span.start));
        }
        s
    }

    fn show(text: &str) -> String {
        show_with(text, &[])
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
            ·
            ·····
            e
            ······
            ······

            info 0..5: preprocessor conditionals: the branches cpp takes in 2 groups, with no macros defined; macros in Fortran lines are not expanded"#]]
        .assert_eq(&show(text));
    }

    /// `--define` picks the branches: defined names, values compared, the file's own
    /// `#define` and `#undef` in order, and only in the branches taken.
    #[test]
    fn the_defines_choose_the_branches() {
        let text = "#ifdef MPI\nm\n#else\ns\n#endif\n#if NX > 64\nbig\n#elif NX\nsmall\n#else\nnone\n#endif\n#if 0\n#define MPI\n#endif\n#undef MPI\n#ifndef MPI\nu\n#endif\n";
        expect_test::expect![[r#"
            ··········
            m
            ·····
            ·
            ······
            ···········
            ···
            ········
            small
            ·····
            ····
            ······
            ·····
            ···········
            ······
            ··········
            ···········
            u
            ······

            info 0..10: preprocessor conditionals: the branches cpp takes in 4 groups, with MPI, NX=32 defined; macros in Fortran lines are not expanded"#]]
        .assert_eq(&show_with(text, &[("MPI", "1"), ("NX", "32")]));
        let plain = show(text);
        assert!(plain.starts_with("··········\n·\n·····\ns\n"), "{plain}");
        assert!(plain.contains("\nnone\n"), "{plain}");
    }

    #[test]
    fn a_condition_that_cannot_be_evaluated_is_not_taken_with_a_warning() {
        let text = "#define F(x) x\n#if F(1)\na\n#elif 1 / 0\nb\n#else\nc\n#endif\n";
        expect_test::expect![[r#"
            ··············
            ········
            ·
            ···········
            ·
            ·····
            c
            ······

            warning 15..23: cannot evaluate `#if F(1)`: `F(...)` is a function-like macro, which costline does not expand; its branch is not analyzed
            info 15..23: preprocessor conditionals: the branches cpp takes in 1 group, with no macros defined; macros in Fortran lines are not expanded
            warning 26..37: cannot evaluate `#elif 1 / 0`: division by zero; its branch is not analyzed"#]]
        .assert_eq(&show(text));
    }

    #[test]
    fn includes_of_the_branches_taken_and_through_macros() {
        let text = "#ifdef MPI\n#include \"mpi.h\"\n#else\n#include <serial.h>\n#endif\n#define H \"h.inc\"\n#include H\n#include NOPE\n";
        let shown = show_with(text, &[("MPI", "1")]);
        assert!(shown.contains("\ninclude mpi.h at 11"), "{shown}");
        assert!(!shown.contains("serial.h at"), "{shown}");
        assert!(shown.contains("\ninclude h.inc at"), "{shown}");
        assert!(shown.contains("#include NOPE names no file"), "{shown}");
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
            info 37..50: preprocessor conditionals: the branches cpp takes in 1 group, with no macros defined; macros in Fortran lines are not expanded"#]]
        .assert_eq(&show(text));
    }

    #[test]
    fn blanking_keeps_byte_length_of_non_ascii() {
        let p = preprocess("#define S \"é\"\r\nx\r\n", &Defines::new());
        assert_eq!(p.text, "              \r\nx\r\n");
    }
}
