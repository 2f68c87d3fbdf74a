//! Expressions: tree-sitter nodes to [`Expr`]. `name(args)` is an array reference
//! when `name` is a declared array (locally, in the host or a used module) or when an
//! argument is a section (`x(1:n)` cannot be a call); otherwise a function call.

use super::Lowerer;
use crate::cst::{self, named_children};
use crate::diagnostics::Diagnostic;
use crate::ir::{Arg, ArrayRef, BinaryOp, Call, Expr, Subscript, Triplet, UnaryOp};
use tree_sitter::Node;

/// Deeper expressions than this are kept as text: real code never nests this deep,
/// and recursion must not exhaust the stack on adversarial input.
const MAX_DEPTH: usize = 200;

impl Lowerer<'_> {
    pub(super) fn expr(&mut self, node: Node) -> Expr {
        if self.depth >= MAX_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
                self.diagnostics.push(Diagnostic::warning(
                    cst::span(node),
                    "too-complex",
                    format!("expression nested deeper than {MAX_DEPTH} levels is not analyzed"),
                ));
            }
            return self.unknown(node);
        }
        self.depth += 1;
        let e = self.expr_inner(node);
        self.depth -= 1;
        e
    }

    fn unknown(&self, node: Node) -> Expr {
        let text = cst::text(node, self.src);
        let compact: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        Expr::Unknown(compact)
    }

    fn expr_inner(&mut self, node: Node) -> Expr {
        match node.kind() {
            "identifier" => {
                let name = cst::lower_text(node, self.src);
                if self.is_array(&name) {
                    Expr::Array(ArrayRef {
                        name,
                        subscripts: Vec::new(),
                        span: cst::span(node),
                    })
                } else {
                    Expr::Name(name)
                }
            }
            "number_literal" => number(cst::text(node, self.src)),
            "string_literal" => {
                let t = cst::text(node, self.src);
                Expr::Str(
                    t.get(1..t.len().saturating_sub(1))
                        .unwrap_or("")
                        .to_string(),
                )
            }
            "boolean_literal" => Expr::Logical(cst::lower_text(node, self.src).contains("true")),
            "parenthesized_expression" => match named_children(node).next() {
                Some(inner) => self.expr(inner),
                None => self.unknown(node),
            },
            "math_expression"
            | "relational_expression"
            | "logical_expression"
            | "concatenation_expression" => self.operation(node),
            "unary_expression" => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| cst::text(o, self.src));
                let Some(arg) = node.child_by_field_name("argument") else {
                    return self.unknown(node);
                };
                let op = match op {
                    Some("-") => UnaryOp::Neg,
                    Some("+") => UnaryOp::Plus,
                    _ => return self.unknown(node),
                };
                let arg = self.expr(arg);
                match (op, arg) {
                    (UnaryOp::Neg, Expr::Int(v)) if v > 0 => Expr::Int(-v),
                    (op, arg) => Expr::Unary(op, Box::new(arg)),
                }
            }
            "call_expression" => self.call_or_element(node, false),
            "derived_type_member_expression" => {
                self.component(node).unwrap_or_else(|| self.unknown(node))
            }
            _ => self.unknown(node),
        }
    }

    /// Binary operations and `.NOT.`.
    fn operation(&mut self, node: Node) -> Expr {
        let op = node
            .child_by_field_name("operator")
            .map(|o| cst::lower_text(o, self.src));
        if node.kind() == "concatenation_expression" {
            return match (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) {
                (Some(l), Some(r)) => Expr::binary(BinaryOp::Concat, self.expr(l), self.expr(r)),
                _ => self.unknown(node),
            };
        }
        if let Some(arg) = node.child_by_field_name("argument") {
            // `.not. x`: the only unary logical operator.
            return Expr::Unary(UnaryOp::Not, Box::new(self.expr(arg)));
        }
        let (Some(l), Some(r)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            return self.unknown(node);
        };
        let Some(op) = op.as_deref().and_then(|o| {
            let compact: String = o.chars().filter(|c| !c.is_whitespace()).collect();
            BinaryOp::from_token(&compact)
        }) else {
            return self.unknown(node);
        };
        Expr::binary(op, self.expr(l), self.expr(r))
    }

    /// `name(args)`: an array element or section, or a function call. On the left of
    /// an assignment (`lhs`) it is always an array reference.
    pub(super) fn call_or_element(&mut self, node: Node, lhs: bool) -> Expr {
        let mut parts = named_children(node);
        let (Some(callee), Some(args)) = (parts.next(), parts.next()) else {
            return self.unknown(node);
        };
        if callee.kind() != "identifier" || args.kind() != "argument_list" {
            return self.unknown(node);
        }
        let name = cst::lower_text(callee, self.src);
        let items: Vec<Node> = named_children(args).collect();
        let has_section = items.iter().any(|i| i.kind() == "extent_specifier");
        let symbol = self.lookup(&name);
        let declared_scalar = symbol.is_some_and(|s| !s.is_array() && !s.attrs.external);
        if declared_scalar && has_section {
            // A character substring `s(1:3)`: the variable itself.
            return Expr::Name(name);
        }
        if self.is_array(&name) || has_section || (lhs && !declared_scalar) {
            let subscripts = items
                .iter()
                .map(|i| match i.kind() {
                    "extent_specifier" => Subscript::Range(self.triplet(*i)),
                    _ => Subscript::Index(self.expr(*i)),
                })
                .collect();
            return Expr::Array(ArrayRef {
                name,
                subscripts,
                span: cst::span(node),
            });
        }
        let args = self.args(args);
        Expr::Call(Call {
            name,
            args,
            span: cst::span(node),
        })
    }

    /// Actual arguments of a call (with keywords).
    pub(super) fn args(&mut self, list: Node) -> Vec<Arg> {
        named_children(list)
            .map(|i| {
                if i.kind() == "keyword_argument" {
                    Arg {
                        keyword: i
                            .child_by_field_name("name")
                            .map(|n| cst::lower_text(n, self.src)),
                        value: match i.child_by_field_name("value") {
                            Some(v) => self.expr(v),
                            None => self.unknown(i),
                        },
                    }
                } else {
                    Arg {
                        keyword: None,
                        value: self.expr(i),
                    }
                }
            })
            .collect()
    }

    /// `lower:upper:stride`, each part optional.
    pub(super) fn triplet(&mut self, node: Node) -> Triplet {
        let mut t = Triplet::default();
        let mut colons = 0;
        for (_, c) in cst::children_with_fields(node) {
            if !c.is_named() {
                if cst::text(c, self.src) == ":" {
                    colons += 1;
                }
                continue;
            }
            if matches!(c.kind(), "comment" | "assumed_size") {
                continue;
            }
            let e = self.expr(c);
            match colons {
                0 => t.lower = Some(e),
                1 => t.upper = Some(e),
                _ => t.stride = Some(e),
            }
        }
        t
    }
}

/// A numeric literal: integers (with an optional kind suffix) exactly, reals as text.
fn number(text: &str) -> Expr {
    let digits = text.split('_').next().unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(v) = digits.parse() {
            return Expr::Int(v);
        }
        return Expr::Unknown(text.to_string());
    }
    let lower = text.to_ascii_lowercase();
    if lower.starts_with(['b', 'o', 'z']) {
        // BOZ literals: not needed as values.
        return Expr::Unknown(text.to_string());
    }
    Expr::Real(lower)
}
