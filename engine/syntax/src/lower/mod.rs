//! Lowering one parsed unit into the IR: declarations first (they decide which
//! `name(...)` are array references), then executable statements, then the HPF
//! directives checked against the declarations.

mod data;
mod decl;
mod derived;
mod directives;
mod expr;
mod handoff;
mod io_writes;
mod prefix;
mod stmt;
mod unread;

use super::blocks::check_blocks;
use super::cst::{self, named_children};
use super::pragma::{Pragma, find_pragmas};
use super::repair::{MAX_LINE_CHARS, Renamed, parse_repaired, rename};
use crate::diagnostics::Diagnostic;
use crate::hpf;
use crate::ir::PragmaKind;
use crate::ir::directive::{DirectiveKind, IndependentDirective};
use crate::ir::{
    ArrayRef, Dim, Expr, ImplicitRules, Independent, Stmt, StmtId, StmtKind, Symbol, SymbolTable,
    TypeSpec, Unit, UnitKind, Use,
};
use crate::normalize::Shapes;
use crate::span::Span;
use handoff::Handoff;
pub use prefix::strip_extrinsic;
use std::collections::{BTreeMap, HashMap};
use tree_sitter::{Node, Tree};

/// What a unit sees from outside: the entities of its host and of the modules it uses
/// (their kinds and shapes; lowering needs no values).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    pub symbols: SymbolTable,
    /// The host's and modules' PROCESSORS arrangements the unit names, with their ranks.
    pub processors: BTreeMap<String, usize>,
    /// The host's and modules' TEMPLATEs the unit names, with their ranks.
    pub templates: BTreeMap<String, usize>,
}

/// One unit's own text, parsed.
pub struct ParsedUnit {
    pub kind: UnitKind,
    pub name: String,
    /// The text the tree was parsed from, as the lowering reads it (keywords assigned
    /// to as written, see `renamed`; statements that could not be parsed are
    /// blanked, every offset unchanged).
    pub text: String,
    pub tree: Tree,
    /// Statements left out because they could not be parsed: their first line's span
    /// and text.
    pub left_out: Vec<(Span, String)>,
    /// Statements left out for a line longer than [`MAX_LINE_CHARS`]: their first
    /// line's span and the long line's length in characters.
    pub too_long: Vec<(Span, usize)>,
    /// Keywords the unit assigns to, renamed for the parser only ([`rename`]): `text`
    /// has them as written.
    pub renamed: Vec<Renamed>,
    /// The `EXTRINSIC(kind)` prefix of the unit statement (blanked before parsing: the
    /// grammar has no HPF prefixes), lower-case, with its span.
    pub extrinsic: Option<(String, Span)>,
}

impl ParsedUnit {
    pub fn parse(kind: UnitKind, name: String, text: String) -> ParsedUnit {
        let original = text.clone();
        let (text, extrinsic) = strip_extrinsic(text);
        let mut repaired = parse_repaired(text);
        rename(&mut repaired.text, &repaired.renamed, false);
        let left_out = repaired
            .left_out
            .iter()
            .map(|s| (*s, original[s.start as usize..s.end as usize].to_string()))
            .collect();
        ParsedUnit {
            kind,
            name,
            text: repaired.text,
            tree: repaired.tree,
            left_out,
            too_long: repaired.too_long,
            renamed: repaired.renamed,
            extrinsic,
        }
    }

    /// The USE statements of the unit, found without lowering it (the driver needs them
    /// to build the unit's [`Scope`] first).
    pub fn uses(&self) -> Vec<Use> {
        let scope = Scope::default();
        let mut l = Lowerer::new(&self.text, &scope);
        if let Some(unit) = unit_node(&self.tree) {
            for c in named_children(unit).filter(|c| c.kind() == "use_statement") {
                l.declaration(c);
            }
        }
        l.uses
    }

    /// What is worth keeping of the parse: everything but the tree (which takes ~2 KB
    /// per line, ten times the text), which waits for the lowering to take it.
    pub fn into_repaired(self) -> RepairedUnit {
        let uses = self.uses();
        RepairedUnit {
            tree: Handoff::new(self.tree),
            kind: self.kind,
            name: self.name,
            text: self.text,
            left_out: self.left_out,
            too_long: self.too_long,
            renamed: self.renamed,
            extrinsic: self.extrinsic,
            uses,
        }
    }
}

/// A unit's text made parseable, with what repairing it found and its USE statements:
/// a [`ParsedUnit`] whose tree [`RepairedUnit::reparse`] hands to the first lowering
/// and rebuilds for any other (the repaired text parses at the first attempt).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepairedUnit {
    pub kind: UnitKind,
    pub name: String,
    /// The text as parsed (statements that could not be parsed blanked).
    pub text: String,
    pub left_out: Vec<(Span, String)>,
    pub too_long: Vec<(Span, usize)>,
    pub renamed: Vec<Renamed>,
    pub extrinsic: Option<(String, Span)>,
    pub uses: Vec<Use>,
    tree: Handoff,
}

impl RepairedUnit {
    /// The unit with its tree, for lowering: the parse's own tree the first time, the
    /// repaired text parsed again after that.
    pub fn reparse(&self) -> ParsedUnit {
        let tree = self.tree.take().unwrap_or_else(|| {
            let mut parsed = self.text.clone();
            rename(&mut parsed, &self.renamed, true);
            cst::parse(&parsed)
        });
        ParsedUnit {
            kind: self.kind,
            name: self.name.clone(),
            text: self.text.clone(),
            tree,
            left_out: self.left_out.clone(),
            too_long: self.too_long.clone(),
            renamed: self.renamed.clone(),
            extrinsic: self.extrinsic.clone(),
        }
    }
}

/// The lowering state of one unit.
struct Lowerer<'a> {
    src: &'a str,
    scope: &'a Scope,
    symbols: SymbolTable,
    implicit: ImplicitRules,
    uses: Vec<Use>,
    diagnostics: Vec<Diagnostic>,
    /// Set at the first executable statement (statement functions come before it).
    seen_executable: bool,
    /// Expression recursion depth.
    depth: usize,
    too_deep_reported: bool,
    /// How many blocks (DO, IF, SELECT, ... bodies) enclose the one being lowered.
    nesting: usize,
    /// Statements inside constructs nested deeper than [`stmt::MAX_NESTING`]: not
    /// lowered, so unread.
    too_deep: Vec<Span>,
    /// The scalar components of intrinsic type of the derived types the unit defines,
    /// by type name (`loopcontrolstruct` → `first: integer`, ...).
    components: HashMap<String, Vec<(String, TypeSpec)>>,
}

impl<'a> Lowerer<'a> {
    fn new(src: &'a str, scope: &'a Scope) -> Lowerer<'a> {
        Lowerer {
            src,
            scope,
            symbols: SymbolTable::new(),
            implicit: ImplicitRules::default(),
            uses: Vec::new(),
            diagnostics: Vec::new(),
            seen_executable: false,
            depth: 0,
            too_deep_reported: false,
            nesting: 0,
            too_deep: Vec::new(),
            components: HashMap::new(),
        }
    }

    /// A name's entity: the unit's own declaration, else the host's or a module's.
    fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.symbols
            .get(name)
            .or_else(|| self.scope.symbols.get(name))
    }

    fn is_array(&self, name: &str) -> bool {
        self.lookup(name).is_some_and(Symbol::is_array)
    }
}

impl Shapes for Lowerer<'_> {
    fn dims(&self, name: &str) -> Option<&[Dim]> {
        self.lookup(name).and_then(|s| s.dims.as_deref())
    }
}

/// The node of the unit in a unit's tree: the first program unit at top level, or an
/// ERROR node when tree-sitter could not parse the unit as a whole (its recovered
/// children are still lowered).
fn unit_node(tree: &Tree) -> Option<Node<'_>> {
    named_children(tree.root_node()).find(|n| {
        matches!(
            n.kind(),
            "program" | "subroutine" | "function" | "module" | "submodule" | "block_data" | "ERROR"
        )
    })
}

/// The unit statement (`subroutine foo(a, n)`) among the unit node's children.
fn header_node(unit: Node<'_>) -> Option<Node<'_>> {
    named_children(unit).find(|c| {
        matches!(
            c.kind(),
            "program_statement"
                | "subroutine_statement"
                | "function_statement"
                | "module_statement"
                | "submodule_statement"
                | "block_data_statement"
        )
    })
}

/// Lowers `parsed` (whose host, if any, is `host`) seeing `scope` from outside.
pub fn lower(parsed: &ParsedUnit, host: Option<&str>, scope: &Scope) -> Unit {
    let src = parsed.text.as_str();
    let mut l = Lowerer::new(src, scope);
    let node = unit_node(&parsed.tree);
    let header = node.and_then(header_node);
    let children: Vec<Node> = node
        .map(|n| named_children(n).collect())
        .unwrap_or_default();

    for &c in &children {
        l.declaration(c);
    }
    let dummies = header.map(|h| dummy_arguments(h, src)).unwrap_or_default();
    l.declare_dummies(&dummies);

    let body_nodes = children
        .iter()
        .copied()
        .filter(|c| !matches!(c.kind(), "internal_procedures") && !c.kind().starts_with("end_"));
    let mut body = l.block(body_nodes);

    let (mut directives, directive_diagnostics) = hpf::parse_directives(src);
    // An interface body's directives are the interface's, not the unit's.
    let interfaces: Vec<Span> = children
        .iter()
        .filter(|c| c.kind() == "interface")
        .map(|c| cst::span(*c))
        .collect();
    directives.retain(|d| {
        !interfaces
            .iter()
            .any(|i| i.start <= d.span.start && d.span.end <= i.end)
    });
    l.diagnostics.extend(directive_diagnostics);
    l.check_directives(&directives);
    for d in &directives {
        if let DirectiveKind::Independent(ind) = &d.kind {
            attach_independent(&mut body, d.span, ind, &mut l.diagnostics);
        }
    }
    for (k, d) in directives.iter().enumerate() {
        if matches!(
            d.kind,
            DirectiveKind::Redistribute(_) | DirectiveKind::Realign(_)
        ) {
            place_remap(&mut body, k, d.span);
        }
    }
    renumber(&mut body, &mut 0);
    let (found, pragma_diagnostics) = find_pragmas(src);
    l.diagnostics.extend(pragma_diagnostics);
    let pragmas = attach_pragmas(&body, src, found, &mut l.diagnostics);

    for (span, text) in &parsed.left_out {
        let shown: String = text.trim().chars().take(60).collect();
        let ellipsis = if shown.len() < text.trim().len() {
            "…"
        } else {
            ""
        };
        l.diagnostics.push(Diagnostic::warning(
            *span,
            "syntax",
            format!("costline could not parse `{shown}{ellipsis}`; this statement is left out of the analysis"),
        ));
    }
    for (span, chars) in &parsed.too_long {
        l.diagnostics.push(Diagnostic::warning(
            *span,
            "syntax",
            format!(
                "a line of {chars} characters, longer than Fortran's limit of {MAX_LINE_CHARS}: \
                 this statement is left out of the analysis"
            ),
        ));
    }
    let structure = check_blocks(src);
    if structure.is_empty() {
        tree_diagnostics(&parsed.tree, src, &mut l.diagnostics);
    } else {
        // tree-sitter's errors would only repeat these, less precisely.
        l.diagnostics.extend(structure);
    }

    let header_span = header
        .map(cst::span)
        .or_else(|| body.first().map(|s| s.span))
        .unwrap_or_default();
    let mut diagnostics = l.diagnostics;
    let extrinsic = parsed
        .extrinsic
        .as_ref()
        .map(|(kind, span)| (kind.to_ascii_lowercase(), *span));
    // EXTRINSIC(HPF) is plain HPF: global work, owner computes, as analysed.
    if let Some((kind, span)) = &extrinsic
        && kind != "hpf_local"
        && kind != "hpf"
    {
        diagnostics.push(Diagnostic::warning(
            *span,
            "not-modelled",
            format!(
                "EXTRINSIC({kind}) is not modelled: `{}` is analysed as an HPF procedure \
                 (global work over its dummies' whole extents, owner computes)",
                parsed.name
            ),
        ));
    }
    let (mut unread, statements) = unread::unread_statements(parsed);
    unread.append(&mut l.too_deep);
    unread.sort_by_key(|s| s.start);
    unread.dedup();
    if !unread.is_empty() {
        let trimmed = src
            .get(header_span.start as usize..header_span.end as usize)
            .map_or(0, |t| t.trim_end().len());
        diagnostics.push(Diagnostic::error(
            Span::new(
                header_span.start as usize,
                header_span.start as usize + trimmed,
            ),
            "unread-statements",
            format!(
                "{} of the {statements} statements of `{}` could not be read: every figure \
                 of it leaves them out (incomplete)",
                unread.len(),
                parsed.name
            ),
        ));
    }
    Unit {
        kind: parsed.kind,
        name: parsed.name.clone(),
        host: host.map(str::to_string),
        dummies: dummies.into_iter().map(|(n, _)| n).collect(),
        uses: l.uses,
        implicit: l.implicit,
        symbols: l.symbols,
        outer: scope.symbols.clone(),
        directives,
        pragmas,
        body,
        header: header_span,
        extrinsic,
        unread,
        span: Span::new(0, src.len()),
        diagnostics,
    }
}

/// Dummy arguments of a SUBROUTINE or FUNCTION statement, in order.
fn dummy_arguments(header: Node, src: &str) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    if let Some(params) = header.child_by_field_name("parameters") {
        for p in named_children(params).filter(|p| p.kind() == "identifier") {
            out.push((cst::lower_text(p, src), cst::span(p)));
        }
    }
    out
}

/// Marks the loop right after an INDEPENDENT directive; warns when the next statement
/// is not a DO or FORALL.
fn attach_independent(
    body: &mut [Stmt],
    directive: Span,
    ind: &IndependentDirective,
    diagnostics: &mut Vec<Diagnostic>,
) {
    fn first_after(stmts: &mut [Stmt], at: u32) -> Option<&mut Stmt> {
        for s in stmts {
            if s.span.start >= at {
                return Some(s);
            }
            if s.span.end > at {
                let inner = match &mut s.kind {
                    StmtKind::Loop(l) => first_after(&mut l.body, at),
                    StmtKind::If(i) => i
                        .branches
                        .iter_mut()
                        .find_map(|b| first_after(&mut b.body, at)),
                    StmtKind::Select(sel) => sel
                        .cases
                        .iter_mut()
                        .find_map(|c| first_after(&mut c.body, at)),
                    _ => None,
                };
                if inner.is_some() {
                    return inner;
                }
            }
        }
        None
    }
    match first_after(body, directive.end).map(|s| &mut s.kind) {
        Some(StmtKind::Loop(l)) => {
            l.independent = Some(Independent {
                new: ind.new.iter().map(|n| n.name.clone()).collect(),
                reduction: ind.reduction.iter().map(|n| n.name.clone()).collect(),
            });
            if let Some(home) = &ind.on_home {
                note_other_homes(&l.body, home, diagnostics);
            }
        }
        _ => diagnostics.push(Diagnostic::warning(
            directive,
            "hpf-independent",
            "INDEPENDENT applies to the DO or FORALL that follows it, and none follows",
        )),
    }
}

/// ON HOME places each iteration on the owner of its home element; the model places
/// each assignment on the owner of the element it assigns (owner computes). The two
/// agree when the loop assigns the home array (or one aligned with it); a note names
/// the arrays it assigns otherwise.
fn note_other_homes(body: &[Stmt], home: &ArrayRef, diagnostics: &mut Vec<Diagnostic>) {
    let mut others: Vec<&str> = Vec::new();
    crate::ir::walk(body, &mut |s, _| {
        if let StmtKind::Assign {
            lhs: Expr::Array(a),
            ..
        } = &s.kind
            && a.name != home.name
            && !others.contains(&a.name.as_str())
        {
            others.push(&a.name);
        }
    });
    if !others.is_empty() {
        diagnostics.push(Diagnostic::info(
            home.span,
            "on-home",
            format!(
                "ON HOME({}) is read as owner computes: each assignment runs on the owner \
                 of the element it assigns ({}), which is the home's owner when they are \
                 aligned with `{}`",
                Expr::Array(home.clone()),
                others.join(", "),
                home.name
            ),
        ));
    }
}

/// Puts the executable remapping of directive `k` (REDISTRIBUTE, REALIGN) among the
/// statements where it stands: before the first statement that starts after it, in the
/// innermost loop body, IF branch or CASE block around it.
fn place_remap(body: &mut Vec<Stmt>, k: usize, at: Span) {
    let remap = Stmt {
        id: StmtId(0),
        span: at,
        label: None,
        kind: StmtKind::Remap { directive: k },
    };
    fn go(stmts: &mut Vec<Stmt>, remap: Stmt) {
        let at = remap.span.start;
        let Some(k) = stmts.iter().position(|s| s.span.end > at) else {
            stmts.push(remap);
            return;
        };
        if stmts[k].span.start >= at {
            stmts.insert(k, remap);
            return;
        }
        // The last block that starts before the directive.
        let inner = match &mut stmts[k].kind {
            StmtKind::Loop(l) => Some(&mut l.body),
            StmtKind::If(i) => i
                .branches
                .iter_mut()
                .rev()
                .find(|b| b.span.start <= at)
                .map(|b| &mut b.body),
            StmtKind::Select(sel) => sel
                .cases
                .iter_mut()
                .rev()
                .find(|c| c.span.start <= at)
                .map(|c| &mut c.body),
            _ => None,
        };
        match inner {
            Some(block) => go(block, remap),
            None => stmts.insert(k + 1, remap),
        }
    }
    go(body, remap);
}

/// Each pragma applies to the statement on its line, or to the next statement; one of
/// the wrong kind (a probability not on an IF, trips not on a loop) is a warning.
fn attach_pragmas(
    body: &[Stmt],
    src: &str,
    pragmas: Vec<Pragma>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<(StmtId, PragmaKind)> {
    let mut order: Vec<&Stmt> = Vec::new();
    crate::ir::walk(body, &mut |s, _| order.push(s));
    let mut out = Vec::new();
    for p in pragmas {
        let line_start = src[..p.span.start as usize]
            .rfind('\n')
            .map_or(0, |i| i + 1) as u32;
        let target = order
            .iter()
            .find(|s| line_start <= s.span.start && s.span.start < p.span.start)
            .or_else(|| order.iter().find(|s| s.span.start >= p.span.end));
        let fits = |s: &Stmt| {
            matches!(
                (&p.kind, &s.kind),
                (PragmaKind::Probability(_), StmtKind::If(_))
                    | (PragmaKind::Trips(_), StmtKind::Loop(_))
            ) || (matches!(p.kind, PragmaKind::Trips(_)) && s.label.is_some())
        };
        match target {
            Some(s) if fits(s) => out.push((s.id, p.kind)),
            _ => {
                let wanted = match p.kind {
                    PragmaKind::Probability(_) => "an IF statement",
                    PragmaKind::Trips(_) => {
                        "a DO loop (or the labelled statement a backward GO TO returns to)"
                    }
                };
                diagnostics.push(Diagnostic::warning(
                    p.span,
                    "pragma",
                    format!("this pragma applies to {wanted} on its line or right after it, and there is none"),
                ));
            }
        }
    }
    out
}

/// Numbers statements in pre-order.
fn renumber(stmts: &mut [Stmt], next: &mut u32) {
    for s in stmts {
        s.id = StmtId(*next);
        *next += 1;
        match &mut s.kind {
            StmtKind::Loop(l) => renumber(&mut l.body, next),
            StmtKind::If(i) => i
                .branches
                .iter_mut()
                .for_each(|b| renumber(&mut b.body, next)),
            StmtKind::Select(sel) => sel
                .cases
                .iter_mut()
                .for_each(|c| renumber(&mut c.body, next)),
            _ => {}
        }
    }
}

/// At most this many raw syntax errors per unit; the rest are summarized.
const MAX_SYNTAX_ERRORS: usize = 20;

/// tree-sitter's ERROR and MISSING nodes as diagnostics: the innermost ERROR nodes
/// (outer ones only wrap them) and every MISSING token.
fn tree_diagnostics(tree: &Tree, src: &str, out: &mut Vec<Diagnostic>) {
    let mut found = Vec::new();
    collect_errors(tree.root_node(), src, &mut found);
    let extra = found.len().saturating_sub(MAX_SYNTAX_ERRORS);
    out.extend(found.into_iter().take(MAX_SYNTAX_ERRORS));
    if extra > 0 {
        out.push(Diagnostic::warning(
            Span::default(),
            "syntax",
            format!("{extra} more syntax problems in this unit are not shown"),
        ));
    }
}

fn collect_errors(node: Node, src: &str, out: &mut Vec<Diagnostic>) {
    if node.is_missing() {
        if matches!(
            node.kind(),
            "end"
                | "end_program_statement"
                | "end_subroutine_statement"
                | "end_function_statement"
                | "end_module_statement"
                | "end_submodule_statement"
                | "end_block_data_statement"
        ) {
            // A unit without END: the unit splitter already says so, naming the unit.
            return;
        }
        let what = node.kind().trim_end_matches("_statement").replace('_', " ");
        out.push(Diagnostic::error(
            Span::at(node.start_byte()),
            "syntax",
            format!("expected `{what}`"),
        ));
        return;
    }
    if !node.has_error() {
        return;
    }
    let before = out.len();
    for (_, c) in cst::children_with_fields(node) {
        collect_errors(c, src, out);
    }
    if node.is_error() && out.len() == before {
        // tree-sitter often wraps a whole unit in one ERROR node and recovers the
        // statements inside it: the problem is at its first child that is not one.
        let at = named_children(node)
            .find(|c| !is_statement_level(c.kind()))
            .unwrap_or(node);
        let start = at.start_byte();
        let rest = src.get(start..node.end_byte()).unwrap_or("");
        let line = rest.lines().next().unwrap_or("").trim_end();
        let shown: String = line.chars().take(40).collect();
        let ellipsis = if shown.len() < line.len() { "…" } else { "" };
        out.push(Diagnostic::warning(
            Span::new(start, start + line.len()),
            "syntax",
            format!("costline could not parse `{shown}{ellipsis}`; it is left out of the analysis"),
        ));
    }
}

/// Node kinds that are whole statements (or comments and labels between them).
pub(super) fn is_statement_level(kind: &str) -> bool {
    stmt::is_executable(kind)
        || kind.ends_with("_statement")
        || matches!(
            kind,
            "comment"
                | "statement_label"
                | "variable_declaration"
                | "variable_modification"
                | "interface"
                | "derived_type_definition"
                | "internal_procedures"
                | "ERROR"
        )
}

#[cfg(test)]
mod tests;
