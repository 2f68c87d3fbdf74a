//! Test support: a compact HPF-like rendering of parsed directives and diagnostics, with
//! spans as `line:col` ranges, and a check that every span in a result is sound.

use super::*;
use crate::diagnostics::Diagnostic;
use crate::ir::{Expr, Triplet};
use crate::span::Span;
use std::fmt::Write;

/// `line:col` (1-based, columns in characters) of byte `offset` in `text`.
pub(super) fn position(text: &str, offset: usize) -> String {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    format!("{line}:{}", before[line_start..].chars().count() + 1)
}

/// `start-end` as positions, or a single position for an empty span.
pub(super) fn range(text: &str, span: Span) -> String {
    let (start, end) = (span.start as usize, span.end as usize);
    if start == end {
        position(text, start)
    } else {
        format!("{}-{}", position(text, start), position(text, end))
    }
}

/// Parses `text` and renders the result: one line per directive (its span, then the
/// directive in canonical HPF form), then one per diagnostic (with the covered text).
/// Panics if a span is unsound or a name's span does not cover that name.
pub(super) fn render(text: &str) -> String {
    let (directives, diagnostics) = parse_directives(text);
    assert_sound(text, &directives, &diagnostics);
    let mut out = String::new();
    for d in &directives {
        writeln!(out, "{} {}", range(text, d.span), d.kind).unwrap();
    }
    out.push_str(&render_diagnostics(text, &diagnostics));
    out
}

pub(super) fn render_diagnostics(text: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let covered = &text[d.span.start as usize..d.span.end as usize];
        let covered = if covered.is_empty() {
            String::new()
        } else {
            format!(" {covered:?}")
        };
        writeln!(
            out,
            "{}[{}] {}{covered}: {}",
            d.severity.as_str(),
            d.code,
            range(text, d.span),
            d.message
        )
        .unwrap();
    }
    out
}

/// Every span lies inside `text` on char boundaries; directive parts lie inside their
/// directive; names and references cover what they name.
pub(super) fn assert_sound(text: &str, directives: &[Directive], diagnostics: &[Diagnostic]) {
    let in_text = |span: Span| {
        let (start, end) = (span.start as usize, span.end as usize);
        assert!(
            start <= end && end <= text.len(),
            "{span:?} outside the text"
        );
        assert!(
            text.is_char_boundary(start) && text.is_char_boundary(end),
            "{span:?} not on char boundaries"
        );
        &text[start..end]
    };
    for d in diagnostics {
        in_text(d.span);
    }
    for d in directives {
        in_text(d.span);
        let inside = |span: Span| {
            assert!(
                d.span.start <= span.start && span.end <= d.span.end,
                "{span:?} outside {d:?}"
            );
        };
        for n in names(&d.kind) {
            inside(n.span);
            let written: String = in_text(n.span).split_whitespace().collect();
            assert!(
                written.eq_ignore_ascii_case(&n.name),
                "{n:?} covers {written:?}"
            );
        }
        for e in exprs(&d.kind) {
            e.visit(&mut |e| {
                let (name, span) = match e {
                    Expr::Call(c) => (&c.name, c.span),
                    Expr::Array(a) => (&a.name, a.span),
                    _ => return,
                };
                inside(span);
                let written = in_text(span).to_ascii_lowercase();
                assert!(
                    written.starts_with(name.as_str()) && written.ends_with(')'),
                    "{e:?}"
                );
            });
        }
    }
}

fn names(kind: &DirectiveKind) -> Vec<&Named> {
    match kind {
        DirectiveKind::Processors(d) | DirectiveKind::Template(d) => {
            d.iter().map(|d| &d.name).collect()
        }
        DirectiveKind::Distribute(d) | DirectiveKind::Redistribute(d) => {
            let mut names: Vec<&Named> = d.distributees.iter().collect();
            if let Some(Onto::Target { name, .. }) = &d.onto {
                names.push(name);
            }
            names
        }
        DirectiveKind::Align(a) | DirectiveKind::Realign(a) => {
            a.alignees.iter().chain([&a.target]).collect()
        }
        DirectiveKind::Independent(i) => {
            i.indices.iter().chain(&i.new).chain(&i.reduction).collect()
        }
        DirectiveKind::Dynamic(n) | DirectiveKind::Inherit(n) => n.iter().collect(),
        DirectiveKind::Sequence { names, .. } => names.iter().collect(),
        DirectiveKind::Unmodelled(_) => Vec::new(),
    }
}

fn exprs(kind: &DirectiveKind) -> Vec<&Expr> {
    fn triplet(t: &Triplet) -> impl Iterator<Item = &Expr> {
        [&t.lower, &t.upper, &t.stride].into_iter().flatten()
    }
    match kind {
        DirectiveKind::Processors(d) | DirectiveKind::Template(d) => d
            .iter()
            .flat_map(|d| &d.shape)
            .flat_map(|e| e.lower.iter().chain([&e.upper]))
            .collect(),
        DirectiveKind::Distribute(d) | DirectiveKind::Redistribute(d) => {
            let formats = match &d.formats {
                FormatClause::Prescriptive(f) | FormatClause::Descriptive(f) => f.as_slice(),
                FormatClause::Absent | FormatClause::Transcriptive => &[],
            };
            let mut exprs: Vec<&Expr> = formats
                .iter()
                .filter_map(|f| match f {
                    DistFormat::Block(e) | DistFormat::Cyclic(e) => e.as_ref(),
                    DistFormat::GenBlock(e) | DistFormat::Indirect(e) => Some(e),
                    DistFormat::Collapsed => None,
                })
                .collect();
            if let Some(Onto::Target { section, .. }) = &d.onto {
                exprs.extend(section.iter().flat_map(triplet));
            }
            exprs
        }
        DirectiveKind::Align(a) | DirectiveKind::Realign(a) => a
            .subscripts
            .iter()
            .flatten()
            .flat_map(|s| -> Vec<&Expr> {
                match s {
                    AlignSubscript::Expr(e) => vec![e],
                    AlignSubscript::Triplet(t) => triplet(t).collect(),
                    AlignSubscript::Star => Vec::new(),
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}
