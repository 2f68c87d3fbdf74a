//! Which statements of a unit were not read: the ones repair left out, and the ones
//! tree-sitter could only wrap in an ERROR node (or that lie outside the node the unit
//! is lowered from, so lowering never sees them). Every figure of the unit leaves
//! these out; the count makes that visible instead of a silently shorter unit.

use super::{ParsedUnit, is_statement_level, unit_node};
use crate::span::Span;
use crate::statements::logical_statements;
use tree_sitter::Node;

/// The statements of `parsed` that lowering does not read, as the spans of their first
/// lines (in order), and how many statements the unit has in all.
pub fn unread_statements(parsed: &ParsedUnit) -> (Vec<Span>, usize) {
    let statements = logical_statements(&parsed.text);
    let unit = unit_node(&parsed.tree);
    let mut unread: Vec<Span> = parsed.left_out.iter().map(|(s, _)| *s).collect();
    unread.extend(parsed.too_long.iter().map(|(s, _)| *s));
    for stmt in &statements {
        if !is_read(unit, stmt.start) {
            let line = parsed.text[stmt.start..]
                .find('\n')
                .map_or(parsed.text.len(), |k| stmt.start + k);
            unread.push(Span::new(stmt.start, line));
        }
    }
    unread.sort_by_key(|s| s.start);
    unread.dedup();
    (
        unread,
        statements.len() + parsed.left_out.len() + parsed.too_long.len(),
    )
}

/// Whether the statement starting at `at` is a statement node inside the unit's node:
/// going up from the token at `at`, a statement-level node comes before any ERROR
/// node, and the unit's node contains it.
fn is_read(unit: Option<Node>, at: usize) -> bool {
    let Some(unit) = unit else { return false };
    if at < unit.start_byte() || at >= unit.end_byte() {
        return false;
    }
    let Some(mut node) = unit.descendant_for_byte_range(at, at) else {
        return false;
    };
    loop {
        if node.is_error() {
            return false;
        }
        if is_statement_level(node.kind()) || node.id() == unit.id() {
            return node.id() != unit.id() || !unit.is_error();
        }
        match node.parent() {
            Some(p) => node = p,
            None => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::UnitKind;

    fn unread(text: &str) -> (usize, usize) {
        let parsed = ParsedUnit::parse(UnitKind::Subroutine, "s".into(), text.into());
        let (spans, total) = unread_statements(&parsed);
        (spans.len(), total)
    }

    #[test]
    fn a_unit_that_parses_reads_every_statement() {
        let text = "subroutine s(a, n)\n  integer n, i\n  real a(n)\n  do i = 1, n\n    a(i) = 0\n  end do\nend subroutine\n";
        assert_eq!(unread(text), (0, 7));
    }

    #[test]
    fn a_statement_left_out_is_unread() {
        let text = "subroutine s(a, n)\n  integer n, i\n  real a(n)\n  a(1) = (1 +\n  do i = 1, n\n    a(i) = 0\n  end do\nend subroutine\n";
        let (n, _) = unread(text);
        assert!(n >= 1, "{n}");
    }

    #[test]
    fn a_prefix_the_grammar_lacks_loses_the_body_visibly() {
        // A prefix neither the grammar nor `lower::prefix` knows, on a continuation.
        let text = "global (HPF) &\n& subroutine s(a, n)\n  integer n, i\n  real a(n)\n  do i = 1, n\n    a(i) = 0\n  end do\nend\n";
        let (n, total) = unread(text);
        assert!(n > 0, "{n} of {total}");
    }

    #[test]
    fn extrinsic_prefixes_in_any_order_and_on_continuations_are_read() {
        for header in [
            "extrinsic (HPF) &\n& subroutine s(a, n)",
            "pure extrinsic (hpf_local) &\n     &  subroutine s(a, n)",
            "extrinsic(hpf_local) pure subroutine s(a, n)",
        ] {
            let text = format!(
                "{header}\n  integer n, i\n  real a(n)\n  do i = 1, n\n    a(i) = 0\n  end do\nend\n"
            );
            let (n, total) = unread(&text);
            assert_eq!(n, 0, "{n} of {total}: {header}");
        }
    }
}
