//! Conveniences over tree-sitter nodes.

use crate::span::Span;
use costline_symbolic::interrupt;
use std::cell::RefCell;
use std::ops::ControlFlow;
use tree_sitter::{Node, ParseOptions, ParseState, Parser, Tree};

thread_local! {
    /// The thread's parser, kept between parses: a new parser and language per unit
    /// took ~10 % of the parse of a twelve-line unit (8,334 of them: 0.43–0.53 s
    /// against 0.39–0.41 s with one parser).
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses free-form Fortran text. Never fails: syntax errors become ERROR and MISSING
/// nodes in the tree. The parse stops when the thread's interruption check asks
/// ([`interrupt::requested`], polled from tree-sitter's progress callback), and then
/// unwinds from here, outside tree-sitter's C frames.
pub fn parse(text: &str) -> Tree {
    PARSER.with(|cell| {
        let mut kept = cell.borrow_mut();
        let parser = kept.get_or_insert_with(|| {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_fortran::LANGUAGE.into())
                .expect("the bundled tree-sitter-fortran grammar matches the tree-sitter runtime");
            parser
        });
        // A parse stopped before (an interruption unwinds from here) would resume.
        parser.reset();
        let bytes = text.as_bytes();
        let mut input = |at: usize, _| bytes.get(at..).unwrap_or_default();
        let mut progress = |_: &ParseState| {
            if interrupt::requested() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut progress);
        if let Some(tree) = parser.parse_with_options(&mut input, None, Some(options)) {
            return tree;
        }
        parser.reset();
        interrupt::check_now();
        // Stopped, yet the check no longer unwinds: nothing of the text is read.
        parser
            .parse("", None)
            .expect("a parser with a language and no progress callback always returns a tree")
    })
}

pub fn span(node: Node) -> Span {
    Span::new(node.start_byte(), node.end_byte())
}

pub fn text<'t>(node: Node, src: &'t str) -> &'t str {
    src.get(node.byte_range()).unwrap_or("")
}

/// The node's text, lower-case.
pub fn lower_text(node: Node, src: &str) -> String {
    text(node, src).to_ascii_lowercase()
}

/// Named children that are not comments.
pub fn named_children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect();
    children.into_iter()
}

/// All children (named or not) with the field name each is attached to.
pub fn children_with_fields<'t>(node: Node<'t>) -> Vec<(Option<&'t str>, Node<'t>)> {
    let mut cursor = node.walk();
    let mut out = Vec::new();
    if cursor.goto_first_child() {
        loop {
            out.push((cursor.field_name(), cursor.node()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

pub fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    named_children(node).find(|c| c.kind() == kind)
}
