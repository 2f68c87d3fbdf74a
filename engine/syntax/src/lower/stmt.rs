//! Executable statements. Array assignments, WHERE and FORALL are normalized into
//! loop nests here (see [`crate::normalize`]).

use super::{Lowerer, io_writes};
use crate::cst::{self, named_children};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Branch, Call, Case, CaseValue, Expr, If, Loop, LoopControl, LoopOrigin, Select, Stmt, StmtId,
    StmtKind,
};
use crate::normalize::{self, LoopDim};
use crate::span::Span;
use tree_sitter::Node;

/// tree-sitter-fortran's executable statement kinds.
pub(super) fn is_executable(kind: &str) -> bool {
    matches!(
        kind,
        "assignment_statement"
            | "pointer_association_statement"
            | "subroutine_call"
            | "keyword_statement"
            | "if_statement"
            | "arithmetic_if_statement"
            | "where_statement"
            | "forall_statement"
            | "select_case_statement"
            | "select_type_statement"
            | "select_rank_statement"
            | "do_loop"
            | "open_statement"
            | "close_statement"
            | "print_statement"
            | "write_statement"
            | "read_statement"
            | "inquire_statement"
            | "stop_statement"
            | "block_construct"
            | "associate_statement"
            | "file_position_statement"
            | "allocate_statement"
            | "deallocate_statement"
            | "nullify_statement"
            | "entry_statement"
            | "assign_statement"
            | "coarray_statement"
            | "coarray_team_statement"
            | "coarray_critical_statement"
    )
}

/// Constructs nested deeper than this are not lowered (real programs nest a few
/// levels; the analyses' cost grows with the depth of a nest).
pub(super) const MAX_NESTING: usize = 32;

fn stmt(span: Span, label: Option<u32>, kind: StmtKind) -> Stmt {
    Stmt {
        id: StmtId(0),
        span,
        label,
        kind,
    }
}

impl Lowerer<'_> {
    /// Lowers sibling nodes into statements; labels attach to the statement after them,
    /// declarations and comments are skipped, and the statements recovered inside an
    /// ERROR node are kept.
    pub(super) fn block<'t>(&mut self, nodes: impl IntoIterator<Item = Node<'t>>) -> Vec<Stmt> {
        if self.nesting >= MAX_NESTING {
            self.skip_too_deep(nodes);
            return Vec::new();
        }
        self.nesting += 1;
        let out = self.block_within(nodes);
        self.nesting -= 1;
        out
    }

    /// The statements of `nodes`, a block within the nesting limit.
    fn block_within<'t>(&mut self, nodes: impl IntoIterator<Item = Node<'t>>) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut label = None;
        for n in nodes {
            match n.kind() {
                "statement_label" => label = cst::text(n, self.src).trim().parse().ok(),
                "ERROR" => out.extend(self.block(named_children(n))),
                k if is_executable(k) => out.extend(self.statement(n, label.take())),
                _ => {}
            }
        }
        out
    }

    /// A block nested deeper than [`MAX_NESTING`]: its statements are not lowered but
    /// listed as unread (every figure of the unit then says it leaves them out), with
    /// one warning at the first. Iterative: the nest may be as deep as the file is long.
    fn skip_too_deep<'t>(&mut self, nodes: impl IntoIterator<Item = Node<'t>>) {
        let mut stack: Vec<Node> = nodes.into_iter().collect();
        stack.reverse();
        let first = self.too_deep.len();
        while let Some(n) = stack.pop() {
            if is_executable(n.kind()) || n.kind().ends_with("_statement") {
                let text = cst::text(n, self.src);
                let line = text.find('\n').unwrap_or(text.len());
                let start = n.start_byte();
                self.too_deep.push(Span::new(start, start + line));
            }
            let mut children: Vec<Node> = named_children(n).collect();
            children.reverse();
            stack.extend(children);
        }
        if first == 0 && self.too_deep.len() > first {
            self.diagnostics.push(Diagnostic::warning(
                self.too_deep[first],
                "too-complex",
                format!(
                    "constructs nested deeper than {MAX_NESTING} levels are not analyzed: \
                     the statements inside are left out"
                ),
            ));
        }
    }

    fn statement(&mut self, node: Node, label: Option<u32>) -> Vec<Stmt> {
        let span = cst::span(node);
        let kind = node.kind();
        if kind != "assignment_statement" {
            self.seen_executable = true;
        }
        let single = match kind {
            "assignment_statement" => return self.assignment(node, label),
            "where_statement" => return self.where_statement(node, label),
            "forall_statement" => return self.forall_statement(node, label),
            "block_construct" | "associate_statement" => {
                // Executed once where they stand: their bodies belong to the enclosing block.
                let mut body = self.block(named_children(node));
                if let Some(first) = body.first_mut() {
                    first.label = first.label.or(label);
                }
                return body;
            }
            "subroutine_call" => {
                let name = node
                    .child_by_field_name("subroutine")
                    .map(|n| cst::lower_text(n, self.src))
                    .unwrap_or_default();
                let args = match cst::child_of_kind(node, "argument_list") {
                    Some(list) => self.args(list),
                    None => Vec::new(),
                };
                StmtKind::Call(Call { name, args, span })
            }
            "keyword_statement" => self.keyword_statement(node),
            "if_statement" => StmtKind::If(self.if_statement(node)),
            "arithmetic_if_statement" => {
                let expr = match cst::child_of_kind(node, "parenthesized_expression") {
                    Some(e) => self.expr(e),
                    None => Expr::Unknown(String::new()),
                };
                StmtKind::ArithmeticIf {
                    expr,
                    targets: self.label_refs(node),
                }
            }
            "do_loop" => return vec![self.do_loop(node, label, None)],
            "select_case_statement" => StmtKind::Select(self.select_case(node)),
            "stop_statement" => StmtKind::Stop,
            other => {
                let what = other
                    .trim_end_matches("_statement")
                    .replace("_association", " assignment")
                    .replace('_', " ");
                if matches!(other, "select_type_statement" | "select_rank_statement") {
                    self.diagnostics.push(Diagnostic::info(
                        span,
                        "unsupported",
                        format!("{what} is not analyzed: its branches count as one statement"),
                    ));
                }
                let writes = io_writes::written(other, &cst::lower_text(node, self.src));
                StmtKind::Other { what, writes }
            }
        };
        vec![stmt(span, label, single)]
    }

    fn assignment(&mut self, node: Node, label: Option<u32>) -> Vec<Stmt> {
        let span = cst::span(node);
        let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            return Vec::new();
        };
        let lhs = match left.kind() {
            "call_expression" => self.call_or_element(left, true),
            _ => self.expr(left),
        };
        if let Expr::Array(r) = &lhs
            && !self.seen_executable
            && self.lookup(&r.name).is_none_or(|s| !s.is_array())
            && is_statement_function_head(r)
        {
            // `f(x, y) = ...` before the first executable statement, `f` no array: a
            // statement function definition, which executes nothing by itself.
            self.diagnostics.push(Diagnostic::info(
                span,
                "statement-function",
                format!("statement function `{}` is not analyzed", r.name),
            ));
            return Vec::new();
        }
        self.seen_executable = true;
        let rhs = self.expr(right);
        vec![self.assign(lhs, rhs, None, LoopOrigin::ArraySyntax, span, label)]
    }

    /// `lhs = rhs` under an optional mask; scalarized when `lhs` is array-valued.
    fn assign(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        mask: Option<Expr>,
        origin: LoopOrigin,
        span: Span,
        label: Option<u32>,
    ) -> Stmt {
        if let Expr::Array(r) = &lhs
            && normalize::rank(&lhs, self) > 0
        {
            match normalize::scalarize(r, &rhs, mask.as_ref(), origin, span, self) {
                Ok(mut s) => {
                    s.label = label;
                    return s;
                }
                Err(message) => self.diagnostics.push(Diagnostic::warning(
                    span,
                    "nonconformable",
                    format!("{message}; the statement is analyzed as one assignment"),
                )),
            }
        }
        let assign = stmt(span, label, StmtKind::Assign { lhs, rhs });
        match mask {
            Some(m) => {
                let mut g = normalize::guarded(m, assign, span);
                g.label = label;
                g
            }
            None => assign,
        }
    }

    fn keyword_statement(&mut self, node: Node) -> StmtKind {
        let text = cst::lower_text(node, self.src);
        let construct =
            || cst::child_of_kind(node, "identifier").map(|n| cst::lower_text(n, self.src));
        let first: String = text.chars().take_while(char::is_ascii_alphabetic).collect();
        match first.as_str() {
            "continue" => StmtKind::Continue,
            "cycle" => StmtKind::Cycle {
                construct: construct(),
            },
            "exit" => StmtKind::Exit {
                construct: construct(),
            },
            "return" => StmtKind::Return,
            "go" | "goto" => {
                let selector = named_children(node)
                    .find(|c| c.kind() != "statement_label_reference")
                    .map(|c| self.expr(c));
                StmtKind::Goto {
                    targets: self.label_refs(node),
                    selector,
                }
            }
            _ => StmtKind::Other {
                what: first,
                writes: Vec::new(),
            },
        }
    }

    fn label_refs(&self, node: Node) -> Vec<u32> {
        named_children(node)
            .filter(|c| c.kind() == "statement_label_reference")
            .filter_map(|c| cst::text(c, self.src).trim().parse().ok())
            .collect()
    }

    /// Block IF (with ELSE IF / ELSE) and the logical IF statement.
    fn if_statement(&mut self, node: Node) -> If {
        let mut cond_node = None;
        let mut first_body = Vec::new();
        let mut clauses = Vec::new();
        for c in named_children(node) {
            match c.kind() {
                "parenthesized_expression" if cond_node.is_none() => cond_node = Some(c),
                "elseif_clause" | "else_clause" => clauses.push(c),
                "block_label_start_expression" | "end_if_statement" | "block_label" => {}
                _ => first_body.push(c),
            }
        }
        let first_end = clauses.first().map_or(node.end_byte(), |c| c.start_byte());
        let mut branches = vec![Branch {
            cond: cond_node.map(|c| self.expr(c)),
            body: self.block(first_body),
            span: Span::new(node.start_byte(), first_end),
        }];
        for clause in clauses {
            let mut cond = None;
            let mut body = Vec::new();
            for c in named_children(clause) {
                match c.kind() {
                    "parenthesized_expression"
                        if cond.is_none() && clause.kind() == "elseif_clause" =>
                    {
                        cond = Some(self.expr(c));
                    }
                    "block_label" => {}
                    _ => body.push(c),
                }
            }
            branches.push(Branch {
                cond,
                body: self.block(body),
                span: cst::span(clause),
            });
        }
        If { branches }
    }

    fn select_case(&mut self, node: Node) -> Select {
        let mut selector = Expr::Unknown(String::new());
        let mut cases = Vec::new();
        for c in named_children(node) {
            match c.kind() {
                "selector" => {
                    if let Some(e) = named_children(c).next() {
                        selector = self.expr(e);
                    }
                }
                "case_statement" => {
                    let mut values = None;
                    let mut body = Vec::new();
                    for part in named_children(c) {
                        match part.kind() {
                            "case_value_range_list" => {
                                values = Some(
                                    named_children(part)
                                        .map(|v| {
                                            if v.kind() == "extent_specifier" {
                                                let t = self.triplet(v);
                                                CaseValue::Range(t.lower, t.upper)
                                            } else {
                                                CaseValue::Value(self.expr(v))
                                            }
                                        })
                                        .collect(),
                                );
                            }
                            "default" => values = None,
                            _ => body.push(part),
                        }
                    }
                    cases.push(Case {
                        values,
                        body: self.block(body),
                        span: cst::span(c),
                    });
                }
                _ => {}
            }
        }
        Select { selector, cases }
    }

    /// A DO loop. A labeled DO whose terminal statement is shared with enclosing DOs
    /// (`DO 20 J ... DO 20 I ... 20 A(I,J) = 0`) executes that statement in the
    /// innermost loop: tree-sitter hands it to the outermost, so it is passed down.
    fn do_loop(&mut self, node: Node, label: Option<u32>, terminal: Option<Node>) -> Stmt {
        let children: Vec<Node> = named_children(node).collect();
        let mut construct = None;
        let mut control = LoopControl::Forever;
        let mut do_label: Option<u32> = None;
        let mut header = cst::span(node);
        let mut body_nodes = Vec::new();
        let mut own_terminal = None;
        for &c in &children {
            match c.kind() {
                "block_label_start_expression" => {
                    construct = Some(
                        cst::lower_text(c, self.src)
                            .trim_end_matches(':')
                            .trim()
                            .to_string(),
                    );
                }
                "do_statement" => {
                    header = cst::span(c);
                    do_label = c
                        .child_by_field_name("do_label")
                        .and_then(|l| cst::text(l, self.src).trim().parse().ok());
                    control = self.loop_control(c);
                }
                "end_do_label_loop_statement" => {
                    own_terminal = named_children(c).find(|t| is_executable(t.kind()));
                }
                "end_do_loop_statement" => {}
                _ => body_nodes.push(c),
            }
        }
        let mut terminal = terminal.or(own_terminal);
        // Hand the terminal statement down to an inner loop sharing the label.
        let last_inner = body_nodes
            .iter()
            .rposition(|n| n.kind() != "comment")
            .filter(|&i| {
                let n = body_nodes[i];
                n.kind() == "do_loop" && terminal.is_some() && shares_label(n, do_label, self.src)
            });
        let mut body = match last_inner {
            Some(i) => {
                let mut b = self.block(body_nodes[..i].iter().copied());
                b.push(self.do_loop(body_nodes[i], None, terminal.take()));
                b
            }
            None => self.block(body_nodes),
        };
        // The terminal statement runs in every iteration (a labeled CONTINUE stays too:
        // GO TO it is how old code writes CYCLE).
        if let Some(t) = terminal {
            body.extend(self.statement(t, do_label));
        }
        stmt(
            cst::span(node),
            label,
            StmtKind::Loop(Loop {
                origin: LoopOrigin::Do,
                control,
                body,
                construct,
                independent: None,
                header,
            }),
        )
    }

    /// The control of a DO statement: counted, WHILE, CONCURRENT or none.
    fn loop_control(&mut self, do_statement: Node) -> LoopControl {
        for c in named_children(do_statement) {
            match c.kind() {
                "loop_control_expression" => {
                    let parts: Vec<Node> = named_children(c).collect();
                    if let [var, lower, upper, rest @ ..] = parts.as_slice() {
                        return LoopControl::Counted {
                            var: cst::lower_text(*var, self.src),
                            lower: self.expr(*lower),
                            upper: self.expr(*upper),
                            step: rest.first().map(|s| self.expr(*s)),
                        };
                    }
                }
                "while_statement" => {
                    if let Some(cond) = named_children(c).next() {
                        return LoopControl::While(self.expr(cond));
                    }
                }
                "concurrent_statement" => return self.concurrent(c),
                _ => {}
            }
        }
        LoopControl::Forever
    }

    /// `DO CONCURRENT (i = 1:n)`: a counted loop over its (first) index. Several indices
    /// or a mask are reported; only the first index is modelled.
    fn concurrent(&mut self, node: Node) -> LoopControl {
        let header = cst::child_of_kind(node, "concurrent_header");
        let controls: Vec<Node> = header
            .map(|h| {
                named_children(h)
                    .filter(|c| c.kind() == "concurrent_control")
                    .collect()
            })
            .unwrap_or_default();
        let Some(first) = controls.first() else {
            return LoopControl::Forever;
        };
        if controls.len() > 1
            || header.is_some_and(|h| cst::child_of_kind(h, "concurrent_mask").is_some())
        {
            self.diagnostics.push(Diagnostic::info(
                cst::span(node),
                "unsupported",
                "DO CONCURRENT with several indices or a mask: only its first index is modelled",
            ));
        }
        let var = cst::child_of_kind(*first, "identifier")
            .map(|n| cst::lower_text(n, self.src))
            .unwrap_or_default();
        let field = |f: &str| first.child_by_field_name(f);
        LoopControl::Counted {
            var,
            lower: field("initial").map_or(Expr::Int(1), |e| self.expr(e)),
            upper: field("final").map_or(Expr::Int(0), |e| self.expr(e)),
            step: field("step").map(|e| self.expr(e)),
        }
    }

    /// WHERE statement or construct: one masked loop nest per assignment.
    fn where_statement(&mut self, node: Node, label: Option<u32>) -> Vec<Stmt> {
        let mut clauses: Vec<(Option<Node>, Vec<Node>)> = vec![(None, Vec::new())];
        for c in named_children(node) {
            match c.kind() {
                "parenthesized_expression" if clauses[0].0.is_none() => clauses[0].0 = Some(c),
                "elsewhere_clause" => {
                    let mut mask = None;
                    let mut body = Vec::new();
                    for part in named_children(c) {
                        if part.kind() == "parenthesized_expression"
                            && mask.is_none()
                            && body.is_empty()
                        {
                            mask = Some(part);
                        } else {
                            body.push(part);
                        }
                    }
                    clauses.push((mask, body));
                }
                "end_where_statement" | "block_label_start_expression" => {}
                _ => clauses[0].1.push(c),
            }
        }
        let masks: Vec<Option<Expr>> = clauses
            .iter()
            .map(|(m, _)| m.map(|m| self.expr(m)))
            .collect();
        let combined = normalize::where_masks(&masks);
        let mut out = Vec::new();
        let mut label = label;
        for ((_, body), mask) in clauses.into_iter().zip(combined) {
            for n in body {
                match n.kind() {
                    "assignment_statement" => {
                        let (Some(l), Some(r)) = (
                            n.child_by_field_name("left"),
                            n.child_by_field_name("right"),
                        ) else {
                            continue;
                        };
                        let lhs = match l.kind() {
                            "call_expression" => self.call_or_element(l, true),
                            _ => self.expr(l),
                        };
                        let rhs = self.expr(r);
                        let span = cst::span(n);
                        out.push(self.assign(
                            lhs,
                            rhs,
                            Some(mask.clone()),
                            LoopOrigin::Where,
                            span,
                            label.take(),
                        ));
                    }
                    k if is_executable(k) => {
                        self.diagnostics.push(Diagnostic::info(
                            cst::span(n),
                            "unsupported",
                            "only assignments are analyzed inside WHERE",
                        ));
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// FORALL statement or construct: each body statement in its own loop nest over the
    /// FORALL indices (first index outermost), masked when the header has a mask.
    fn forall_statement(&mut self, node: Node, label: Option<u32>) -> Vec<Stmt> {
        let span = cst::span(node);
        let mut space = Vec::new();
        let mut mask = None;
        let mut body = Vec::new();
        for c in named_children(node) {
            match c.kind() {
                "triplet_spec" => {
                    let parts: Vec<Node> = named_children(c).collect();
                    if let [var, lower, upper, rest @ ..] = parts.as_slice() {
                        space.push(LoopDim {
                            var: cst::lower_text(*var, self.src),
                            lower: self.expr(*lower),
                            upper: self.expr(*upper),
                            stride: rest.first().map(|s| self.expr(*s)),
                        });
                    }
                }
                "logical_expression" | "relational_expression" if body.is_empty() => {
                    mask = Some(self.expr(c));
                }
                "end_forall_statement" | "block_label_start_expression" => {}
                _ => body.push(c),
            }
        }
        let mut out = Vec::new();
        let mut label = label;
        for s in self.block(body) {
            let inner = match &mask {
                Some(m) => normalize::guarded(m.clone(), s, span),
                None => s,
            };
            let mut nest = normalize::nest(&space, LoopOrigin::Forall, inner, span, false);
            nest.label = label.take();
            out.push(nest);
        }
        out
    }
}

/// `f(a, b)` with distinct plain names as arguments: the only form a statement
/// function definition can take.
fn is_statement_function_head(r: &crate::ir::ArrayRef) -> bool {
    let mut seen = Vec::new();
    r.subscripts.iter().all(|s| match s {
        crate::ir::Subscript::Index(Expr::Name(n)) if !seen.contains(&n) => {
            seen.push(n);
            true
        }
        _ => false,
    })
}

/// Whether `inner` (a do_loop node) is a labeled DO ending on the same label as its
/// enclosing loop, without a terminal statement of its own.
fn shares_label(inner: Node, label: Option<u32>, src: &str) -> bool {
    let Some(label) = label else { return false };
    let mut inner_label = None;
    let mut virtual_end = false;
    for c in named_children(inner) {
        match c.kind() {
            "do_statement" => {
                inner_label = c
                    .child_by_field_name("do_label")
                    .and_then(|l| cst::text(l, src).trim().parse::<u32>().ok());
            }
            "end_do_label_loop_statement" => {
                virtual_end = c
                    .child_by_field_name("do_label")
                    .is_some_and(|l| l.kind() == "do_label_virtual");
            }
            _ => {}
        }
    }
    inner_label == Some(label) && virtual_end
}
