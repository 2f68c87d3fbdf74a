//! INCLUDE lines: where a file asks for another file's text. Fortran's `INCLUDE 'name'`
//! (any case, either quote, a line of its own) and cpp's `#include "name"` /
//! `#include <name>`. Recognizing a line is all this module does; finding the file is
//! the host's business (`costline_db`), placing its text the splice's
//! ([`super::SourceFile::splice`]).

use crate::span::Span;
use std::collections::BTreeSet;

use super::line_index::lines;

/// The name of an included file as written, and how to search for it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IncludeName {
    /// The file name between the quotes or angle brackets.
    pub name: String,
    /// `#include <name>`: searched in the include directories only, not next to the
    /// including file.
    pub system: bool,
}

/// One INCLUDE line of a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IncludeLine {
    pub name: IncludeName,
    /// The line's text from its first non-blank character (offsets into the file's own
    /// normalized text), blanked there.
    pub span: Span,
    /// Where the next line starts: the included text goes there.
    pub next: u32,
}

/// The file named by a Fortran INCLUDE line (`INCLUDE 'dist.inc' ! comment`), if `line`
/// (without its terminator) is one. Blanks around the keyword are optional; a doubled
/// quote stands for one; anything but a comment after the name disqualifies the line
/// (it is then some other statement, left to the parser).
pub(crate) fn fortran_include(line: &str) -> Option<String> {
    let code = line.trim_start_matches([' ', '\t']);
    let keyword = code.get(..7)?;
    if !keyword.eq_ignore_ascii_case("include") {
        return None;
    }
    let rest = code[7..].trim_start_matches([' ', '\t']);
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut name = String::new();
    let mut chars = rest[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        if c != quote {
            name.push(c);
            continue;
        }
        let after = &rest[1 + i + 1..];
        if after.starts_with(quote) {
            name.push(quote);
            chars.next();
            continue;
        }
        let tail = after.trim_start_matches([' ', '\t']);
        return (tail.is_empty() || tail.starts_with('!')).then_some(name);
    }
    None
}

/// The file named by the argument of a cpp `#include` (the text after the directive
/// name): `"name"` or `<name>` (or `'name'`, which Fortran programmers write and
/// compilers' preprocessors tolerate); `None` for anything else (a macro, which is not
/// expanded).
pub(crate) fn cpp_include(argument: &str) -> Option<IncludeName> {
    let argument = argument.trim_matches([' ', '\t']);
    let (close, system) = match argument.chars().next()? {
        '"' => ('"', false),
        '\'' => ('\'', false),
        '<' => ('>', true),
        _ => return None,
    };
    let end = argument[1..].find(close)?;
    let name = &argument[1..1 + end];
    (!name.is_empty()).then(|| IncludeName {
        name: name.to_string(),
        system,
    })
}

/// Whether `bytes` hold the word `include` in any case (found by its `u`, the
/// rarest of its letters in Fortran, so that the scan runs at memory speed).
pub fn mentions_include(bytes: &[u8]) -> bool {
    memchr::memchr2_iter(b'u', b'U', bytes).any(|i| {
        i >= 4
            && bytes
                .get(i - 4..i + 3)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"include"))
    })
}

/// The names every INCLUDE line of `text` could ask for, in either source form and
/// whatever the preprocessor conditionals: a superset of what the splice will look up,
/// for the host to find those files before any query needs them. An `#include NAME` of
/// a macro names what `defines` or any `#define NAME` line of the text gives it.
pub fn include_names(text: &str, defines: &super::Defines) -> BTreeSet<IncludeName> {
    let mut out = BTreeSet::new();
    if !mentions_include(text.as_bytes()) {
        return out;
    }
    for line in lines(text) {
        let content = &text[line.start..line.end];
        let code = content.trim_start_matches([' ', '\t']);
        if let Some(directive) = code.strip_prefix('#') {
            let directive = directive.trim_start_matches([' ', '\t']);
            if let Some(argument) = directive.strip_prefix("include") {
                match cpp_include(argument) {
                    Some(name) => {
                        out.insert(name);
                    }
                    None => out.extend(through_macro(text, argument.trim(), defines)),
                }
            }
        } else if let Some(name) = fortran_include(code) {
            out.insert(IncludeName {
                name,
                system: false,
            });
        }
    }
    out
}

/// The files `#include MACRO` may name: the macro's value in `defines` and in each
/// `#define MACRO "file"` line of `text`.
fn through_macro(text: &str, name: &str, defines: &super::Defines) -> Vec<IncludeName> {
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Vec::new();
    }
    let mut out: Vec<IncludeName> = defines
        .get(name)
        .and_then(|v| cpp_include(v))
        .into_iter()
        .collect();
    for line in lines(text) {
        let code = text[line.start..line.end].trim_start_matches([' ', '\t']);
        let Some(directive) = code.strip_prefix('#') else {
            continue;
        };
        let Some(rest) = directive
            .trim_start_matches([' ', '\t'])
            .strip_prefix("define")
        else {
            continue;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        if let Some(value) = rest.strip_prefix(name)
            && value.starts_with([' ', '\t'])
        {
            out.extend(cpp_include(value));
        }
    }
    out
}

/// The Fortran INCLUDE lines of a normalized (free-form) text.
pub(crate) fn fortran_include_lines(text: &str) -> Vec<IncludeLine> {
    if !text
        .as_bytes()
        .windows(7)
        .any(|w| w.eq_ignore_ascii_case(b"include"))
    {
        return Vec::new();
    }
    lines(text)
        .filter_map(|line| {
            let content = &text[line.start..line.end];
            let name = fortran_include(content)?;
            let indent = content.len() - content.trim_start_matches([' ', '\t']).len();
            Some(IncludeLine {
                name: IncludeName {
                    name,
                    system: false,
                },
                span: Span::new(line.start + indent, line.end),
                next: u32::try_from(line.next).unwrap_or(u32::MAX),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_include_is_found_in_any_case_and_nowhere_else() {
        for text in [
            "include 'a'",
            "x\n  InClUdE",
            "#include <b>",
            "xinclude",
            "INCLUDE",
        ] {
            assert!(mentions_include(text.as_bytes()), "{text}");
        }
        for text in [
            "",
            "nclude",
            "inclu de",
            "subroutine use_it",
            "uuuu",
            "includ",
        ] {
            assert!(!mentions_include(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn fortran_include_lines_in_any_case_and_quote() {
        assert_eq!(
            fortran_include("      INCLUDE 'dist.inc'"),
            Some("dist.inc".into())
        );
        assert_eq!(
            fortran_include("include\"a b.h\"  ! why"),
            Some("a b.h".into())
        );
        assert_eq!(
            fortran_include("\tInclude 'it''s.h'"),
            Some("it's.h".into())
        );
        assert_eq!(fortran_include("include = 3"), None);
        assert_eq!(fortran_include("include 'a' // 'b'"), None);
        assert_eq!(fortran_include("include 'open"), None);
        assert_eq!(fortran_include("includes 'x'"), None);
        assert_eq!(fortran_include("! include 'x'"), None);
    }

    #[test]
    fn cpp_include_arguments() {
        let user = |n: &str| {
            Some(IncludeName {
                name: n.into(),
                system: false,
            })
        };
        assert_eq!(cpp_include(" \"dist.h\" // c"), user("dist.h"));
        assert_eq!(
            cpp_include("<mpif.h>"),
            Some(IncludeName {
                name: "mpif.h".into(),
                system: true
            })
        );
        assert_eq!(cpp_include(" HEADER"), None);
        assert_eq!(cpp_include(" \"\""), None);
        assert_eq!(cpp_include(" \"open"), None);
    }

    #[test]
    fn every_name_a_file_could_ask_for() {
        let text = "#include \"a.h\"\n# include <b.h>\n      INCLUDE 'c.inc'\nC     INCLUDE 'no.inc'\n  x = 1\n";
        let none = crate::source::Defines::new();
        let names: Vec<String> = include_names(text, &none)
            .into_iter()
            .map(|n| n.name)
            .collect();
        assert_eq!(names, ["a.h", "b.h", "c.inc"]);
        assert!(include_names("program p\nend\n", &none).is_empty());
        // Through a macro: the settings' value and the file's own definitions.
        let text = "#define HDR \"own.h\"\n#include HDR\n#include OTHER\n";
        let defines = crate::source::Defines::from([("HDR".into(), "<set.h>".into())]);
        let names: Vec<String> = include_names(text, &defines)
            .into_iter()
            .map(|n| n.name)
            .collect();
        assert_eq!(names, ["own.h", "set.h"]);
    }
}
