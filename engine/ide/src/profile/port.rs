//! The copy of an HPF program both profile builds compile: the program as costline
//! reads it, made a Fortran 90 program that a Fortran compiler (gfortran) accepts and
//! runs serially (HPF directives are comments to it), without adding, removing or
//! moving a statement the analysis counts. Edits of the original texts:
//!
//! - an `EXTRINSIC(kind)` prefix is blanked, as costline's parser strips it
//!   ([`costline_syntax::lower::strip_extrinsic`]); a fixed-form continuation line
//!   that then starts the statement loses its continuation mark;
//! - `NUMBER_OF_PROCESSORS()` becomes `1` (the run is serial);
//! - a name given a type twice in one scope (HPF compilers accepted it) keeps its
//!   first declaration: the later one, in a declaration without `::`, is blanked;
//! - a procedure with assumed-shape dummies called from a unit of the same file
//!   without an explicit interface gets one there (its header and specification part,
//!   before the caller's first executable statement), and leaves the caller's
//!   EXTERNAL statement.
//!
//! Blanking keeps every offset; an interface is an insertion on lines of its own.

use super::edit::{Edit, apply, line};
use super::plan::UnitPlace;
use costline_syntax::ir::{Bound, StmtKind, UnitKind};
use costline_syntax::logical_statements;
use costline_syntax::lower::strip_extrinsic;
use costline_syntax::source::{SourceFile, SourceForm};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The port's edits of the units of one file (`units`, in text order), by the file
/// they change (the unit's, or an included one).
pub(super) fn edits(units: &[UnitPlace]) -> Vec<(Arc<SourceFile>, Edit)> {
    let mut out = Vec::new();
    for at in units {
        out.extend(extrinsic(at));
        out.extend(processors(at));
        out.extend(retyped(at));
    }
    out.extend(interfaces(units, &out));
    out
}

/// A blank of `len` bytes at `offset` of `src`'s original text.
fn blank(src: &Arc<SourceFile>, offset: usize, len: usize) -> (Arc<SourceFile>, Edit) {
    (
        src.clone(),
        Edit {
            start: offset,
            end: offset + len,
            text: " ".repeat(len),
        },
    )
}

/// Where the unit-text range `start..end` (on one line) was written, when it is
/// there as it is: the file and its original offset.
fn contiguous(at: &UnitPlace, start: usize, end: usize) -> Option<(Arc<SourceFile>, usize)> {
    if end <= start || at.text[start..end].contains('\n') {
        return None;
    }
    let (first, last) = (at.locate(start), at.locate(end - 1));
    let same = Arc::ptr_eq(&first.src, &last.src) && last.offset + 1 == first.offset + end - start;
    (same && first.text().get(first.offset..last.offset + 1) == Some(&at.text[start..end]))
        .then_some((first.src, first.offset))
}

/// The blanks of the unit's EXTRINSIC prefixes (its own and its interface bodies').
fn extrinsic(at: &UnitPlace) -> Vec<(Arc<SourceFile>, Edit)> {
    let (stripped, _) = strip_extrinsic(at.text.to_string());
    let mut out = Vec::new();
    for (i, (a, b)) in at.text.bytes().zip(stripped.bytes()).enumerate() {
        if a == b {
            continue;
        }
        let loc = at.locate(i);
        let Some(&o) = loc.text().as_bytes().get(loc.offset) else {
            continue;
        };
        // The byte as written, or a fixed-form continuation mark (column 6), which
        // normalization turned into `&`.
        let continuation =
            matches!(loc.form(), SourceForm::Fixed { .. }) && loc.offset - loc.line_start() == 5;
        if !o.is_ascii_whitespace() && (o == a || continuation) {
            out.push(blank(&loc.src, loc.offset, 1));
        }
    }
    out
}

/// `NUMBER_OF_PROCESSORS()` as `1`, unless the unit declares the name itself.
fn processors(at: &UnitPlace) -> Vec<(Arc<SourceFile>, Edit)> {
    const NAME: &str = "number_of_processors";
    if at.ir.symbols.contains_key(NAME) {
        return Vec::new();
    }
    let lower = at.text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut out = Vec::new();
    for (start, _) in lower.match_indices(NAME) {
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        if start > 0 && word(bytes[start - 1]) {
            continue;
        }
        let line_start = lower[..start].rfind('\n').map_or(0, |p| p + 1);
        if lower[line_start..start].contains(['!', '\'', '"']) {
            continue;
        }
        let rest = &lower[start + NAME.len()..];
        let open = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        if !rest[open..].starts_with('(') {
            continue;
        }
        let inner = &rest[open + 1..];
        let close = inner.len() - inner.trim_start_matches([' ', '\t']).len();
        if !inner[close..].starts_with(')') {
            continue;
        }
        let end = start + NAME.len() + open + 1 + close + 1;
        if let Some((src, offset)) = contiguous(at, start, end) {
            let len = end - start;
            out.push((
                src,
                Edit {
                    start: offset,
                    end: offset + len,
                    text: format!("1{}", " ".repeat(len - 1)),
                },
            ));
        }
    }
    out
}

/// The type keywords that start a type declaration statement.
const TYPES: &[&str] = &[
    "integer",
    "real",
    "doubleprecision",
    "double precision",
    "logical",
    "complex",
    "character",
];

/// The statements of the unit's own scope (not in an interface body, before any
/// CONTAINS): their start and end in the unit's text.
fn own_statements(text: &str) -> Vec<(usize, usize)> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for s in logical_statements(text) {
        let head = s.head.as_str();
        let word = |w: &str| {
            head.strip_prefix(w).is_some_and(|r| {
                r.is_empty() || !r.starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        };
        if word("interface") || word("abstract interface") {
            depth += 1;
        } else if word("end interface") || word("endinterface") {
            depth = depth.saturating_sub(1);
        } else if word("contains") {
            break;
        } else if depth == 0 {
            out.push((s.start, s.line_end));
        }
    }
    out
}

/// An entity of a list: its name (lower-case), start and end in the unit's text.
type Entity = (String, usize, usize);

/// A declaration's type (blanks left out), whether it has `::`, and its entities after
/// the type (or `::`), each ending after any parenthesized part; `None` when the
/// statement is not a declaration of the simple kind this reads.
fn entities(text: &str, start: usize, end: usize) -> Option<(String, bool, Vec<Entity>)> {
    let stmt = &text[start..end];
    let lower = stmt.to_ascii_lowercase();
    let ty = TYPES.iter().find(|t| {
        lower.starts_with(**t)
            && !lower[t.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    })?;
    let colons = lower.find("::");
    let mut i = match colons {
        Some(c) => c + 2,
        None => {
            // After the type: a `*len` or a `(kind)` selector.
            let mut i = ty.len();
            let rest = lower[i..].trim_start();
            i = lower.len() - rest.len();
            if rest.starts_with('*') {
                i += 1;
                let r = lower[i..].trim_start();
                i = lower.len() - r.len();
                if r.starts_with('(') {
                    i += group_end(&lower[i..])?;
                } else {
                    i += r.bytes().take_while(u8::is_ascii_digit).count();
                }
            } else if rest.starts_with('(') {
                i += group_end(rest)?;
            }
            i
        }
    };
    let bytes = lower.as_bytes();
    let mut out = Vec::new();
    loop {
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'&' | b'\n' | b'\r') {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b'!' {
            break;
        }
        let name_start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if i == name_start {
            return None;
        }
        let name = lower[name_start..i].to_string();
        let mut j = i;
        while j < bytes.len() && bytes[j] == b' ' {
            j += 1;
        }
        if j < bytes.len() && bytes[j] == b'(' {
            i = j + group_end(&lower[j..])?;
        }
        out.push((name, start + name_start, start + i));
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
        match bytes.get(i) {
            Some(b',') => i += 1,
            Some(b'\n' | b'\r' | b'!') | None => break,
            // An initializer, a `*len` after a name: not read.
            _ => return None,
        }
    }
    Some((ty.replace(' ', ""), colons.is_some(), out))
}

/// The length of the parenthesized group `text` starts with.
fn group_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'\n' => return None,
            _ => {}
        }
    }
    None
}

/// Blanks of `dropped` (indexes into `entities`) in the entity list `entities` of
/// the statement `start..end`: each run of dropped entities with the comma that
/// joins it to a kept one; the whole statement when none is kept.
fn drop_entities(
    at: &UnitPlace,
    (start, end): (usize, usize),
    entities: &[Entity],
    dropped: &BTreeSet<usize>,
) -> Vec<(Arc<SourceFile>, Edit)> {
    let mut ranges = Vec::new();
    if dropped.len() == entities.len() {
        let last = entities.last().map_or(end, |e| e.2);
        ranges.push((start, last));
    } else {
        let mut k = 0;
        while k < entities.len() {
            if !dropped.contains(&k) {
                k += 1;
                continue;
            }
            let first = k;
            while k < entities.len() && dropped.contains(&k) {
                k += 1;
            }
            ranges.push(match entities.get(k) {
                Some(next) => (entities[first].1, next.1),
                None => (entities[first - 1].2, entities[k - 1].2),
            });
        }
    }
    let mut out = Vec::new();
    for (s, e) in ranges {
        // Only text of the unit's own file, on one line, is blanked.
        if let Some((src, offset)) = contiguous(at, s, e)
            && Arc::ptr_eq(&src, at.source)
        {
            out.push(blank(&src, offset, e - s));
        }
    }
    out
}

/// The blanks of names typed again in a later declaration without `::`.
fn retyped(at: &UnitPlace) -> Vec<(Arc<SourceFile>, Edit)> {
    let mut typed: BTreeMap<String, String> = BTreeMap::new();
    let mut out = Vec::new();
    for (start, end) in own_statements(at.text) {
        let Some((ty, colons, list)) = entities(at.text, start, end) else {
            continue;
        };
        let dropped: BTreeSet<usize> = list
            .iter()
            .enumerate()
            .filter(|(_, (name, ..))| !colons && typed.get(name) == Some(&ty))
            .map(|(k, _)| k)
            .collect();
        for (name, ..) in &list {
            typed.entry(name.clone()).or_insert_with(|| ty.clone());
        }
        if !dropped.is_empty() {
            out.extend(drop_entities(at, (start, end), &list, &dropped));
        }
    }
    out
}

/// The explicit interfaces of procedures with assumed-shape dummies, in the units of
/// the same file that call them without one; `done` are the other edits of the port
/// (the interface copies the procedure's specification as ported).
fn interfaces(
    units: &[UnitPlace],
    done: &[(Arc<SourceFile>, Edit)],
) -> Vec<(Arc<SourceFile>, Edit)> {
    // The procedures that need an explicit interface: name -> their interface body.
    let mut needing: BTreeMap<&str, String> = BTreeMap::new();
    for at in units {
        let assumed_shape = at.ir.dummies.iter().any(|d| {
            at.ir.symbols.get(d).is_some_and(|s| {
                !s.attrs.allocatable
                    && !s.attrs.pointer
                    && s.dims
                        .as_ref()
                        .is_some_and(|dims| dims.iter().any(|d| matches!(d.upper, Bound::Deferred)))
            })
        });
        if !assumed_shape || at.ir.host.is_some() || at.ir.kind != UnitKind::Subroutine {
            continue;
        }
        if let Some(body) = interface_body(at, done) {
            needing.insert(at.ir.name.as_str(), body);
        }
    }
    let mut out = Vec::new();
    for at in units {
        let mut called = BTreeSet::new();
        at.ir.walk(&mut |s, _| {
            if let StmtKind::Call(c) = &s.kind
                && needing.contains_key(c.name.as_str())
                && c.name != at.ir.name
            {
                called.insert(c.name.clone());
            }
        });
        let Some(first) = at.ir.body.first() else {
            continue;
        };
        let place = at.locate(first.span.start as usize);
        if called.is_empty() || !Arc::ptr_eq(&place.src, at.source) {
            continue;
        }
        let declared = interface_names(at.text);
        let mut text = String::new();
        for name in called.iter().filter(|n| !declared.contains(*n)) {
            text.push_str(&line(place.form(), "interface"));
            text.push_str(&needing[name.as_str()]);
            text.push_str(&line(place.form(), "end subroutine"));
            text.push_str(&line(place.form(), "end interface"));
            out.extend(unexternal(at, name));
        }
        if !text.is_empty() {
            let start = place.line_start();
            out.push((
                place.src.clone(),
                Edit {
                    start,
                    end: start,
                    text,
                },
            ));
        }
    }
    out
}

/// The header and specification part of the subroutine `at` as ported by `done`
/// (the lines from its header to its first executable statement), when both are in
/// its own file.
fn interface_body(at: &UnitPlace, done: &[(Arc<SourceFile>, Edit)]) -> Option<String> {
    let header = at
        .ir
        .extrinsic
        .as_ref()
        .map_or(at.ir.header.start, |(_, s)| s.start.min(at.ir.header.start));
    let from = at.locate(header as usize);
    let to = at.locate(at.ir.body.first()?.span.start as usize);
    if !Arc::ptr_eq(&from.src, at.source) || !Arc::ptr_eq(&to.src, at.source) {
        return None;
    }
    let mine: Vec<Edit> = done
        .iter()
        .filter(|(src, _)| Arc::ptr_eq(src, at.source))
        .map(|(_, e)| e.clone())
        .collect();
    let ported = apply(at.source.original(), &mine)?;
    ported
        .get(from.line_start()..to.line_start())
        .map(str::to_string)
}

/// The names of the procedures the unit's interface bodies declare.
fn interface_names(text: &str) -> BTreeSet<String> {
    let mut depth = 0usize;
    let mut out = BTreeSet::new();
    for s in logical_statements(text) {
        let head = s.head.as_str();
        if head.starts_with("interface") || head.starts_with("abstract interface") {
            depth += 1;
        } else if head.starts_with("end interface") || head.starts_with("endinterface") {
            depth = depth.saturating_sub(1);
        } else if depth > 0 {
            let words: Vec<&str> = head
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            if let Some(k) = words
                .iter()
                .position(|w| *w == "subroutine" || *w == "function")
                && let Some(name) = words.get(k + 1)
            {
                out.insert(name.to_string());
            }
        }
    }
    out
}

/// The blanks that take `name` out of the unit's EXTERNAL statements.
fn unexternal(at: &UnitPlace, name: &str) -> Vec<(Arc<SourceFile>, Edit)> {
    let mut out = Vec::new();
    for (start, end) in own_statements(at.text) {
        let stmt = at.text[start..end].to_ascii_lowercase();
        let Some(rest) = stmt.strip_prefix("external") else {
            continue;
        };
        let list_start =
            start + "external".len() + rest.len() - rest.trim_start_matches([' ', ':']).len();
        // The names as (name, start, end), split at commas.
        let mut names = Vec::new();
        let mut i = list_start;
        for piece in at.text[list_start..end].split(',') {
            let lead = piece.len() - piece.trim_start().len();
            let word = piece.trim().split(['!', ' ', '\n']).next().unwrap_or("");
            names.push((word.to_ascii_lowercase(), i + lead, i + lead + word.len()));
            i += piece.len() + 1;
        }
        let dropped: BTreeSet<usize> = names
            .iter()
            .enumerate()
            .filter(|(_, (n, ..))| n == name)
            .map(|(k, _)| k)
            .collect();
        if !dropped.is_empty() {
            out.extend(drop_entities(at, (start, end), &names, &dropped));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::{AnalysisHost, Options};
    use expect_test::{Expect, expect};

    /// The ported text of the one file `path` holding `text`, trailing blanks shown
    /// as `·` (a blanked word leaves them).
    fn check(path: &str, text: &str, want: Expect) {
        let mut host = AnalysisHost::new(&Options::default());
        host.add_file(path, text.as_bytes().to_vec());
        let program = host.snapshot().instrument().unwrap();
        let mut out = String::new();
        for (_, t) in &program.ported {
            for line in t.lines() {
                let kept = line.trim_end();
                out.push_str(kept);
                out.push_str(&"·".repeat(line.len() - kept.len()));
                out.push('\n');
            }
        }
        want.assert_eq(&out);
    }

    #[test]
    fn an_hpf_program_made_fortran_90_with_its_statements_in_place() {
        check(
            "p.f",
            "      program p
      implicit none
      interface
        extrinsic (HPF)
     >    subroutine t(x)
          double precision x(:)
        end subroutine
      end interface
      integer n, k
      integer n
      double precision a(10)
      external s, t
      n = number_of_processors( )
      call s(a, n)
      end
      extrinsic(HPF) subroutine t(x)
      double precision x(:)
      x = 0
      end
      subroutine s(a, n)
      integer n
      double precision a(:)
      a(1:n) = 1
      end
",
            expect![[r#"
                      program p
                      implicit none
                      interface
                ·······················
                          subroutine t(x)
                          double precision x(:)
                        end subroutine
                      end interface
                      integer n, k
                ···············
                      double precision a(10)
                      external    t
                      interface
                      subroutine s(a, n)
                      integer n
                      double precision a(:)
                      end subroutine
                      end interface
                      n = 1······················
                      call s(a, n)
                      end
                                     subroutine t(x)
                      double precision x(:)
                      x = 0
                      end
                      subroutine s(a, n)
                      integer n
                      double precision a(:)
                      a(1:n) = 1
                      end
            "#]],
        );
    }
}
