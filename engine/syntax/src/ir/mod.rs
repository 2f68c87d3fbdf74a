//! The lowered intermediate representation of one program unit: what every analysis
//! reads. Names are lower-case; spans are relative to the unit's text.

pub mod consteval;
pub mod directive;
mod expr;
pub mod intrinsics;
pub mod pretty;
mod stmt;
mod symbols;

pub use expr::{Arg, ArrayRef, BinaryOp, Call, Expr, Subscript, Triplet, UnaryOp};
pub use stmt::{
    Branch, Case, CaseValue, If, Independent, Loop, LoopControl, LoopOrigin, Select, Stmt, StmtId,
    StmtKind, Written, enclosing_loops, walk,
};
pub use symbols::{
    Attrs, BaseType, Bound, Dim, ImplicitRules, Intent, Symbol, SymbolTable, TypeSpec,
};

use crate::diagnostics::Diagnostic;
use crate::span::Span;
use costline_symbolic::Rational;
use directive::Directive;

/// What a `!costline:` pragma tells about its statement (`crate::pragma`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PragmaKind {
    /// `probability P` on an IF: of its data-dependent condition.
    Probability(Rational),
    /// `trips N` on a loop whose trip count cannot be derived.
    Trips(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnitKind {
    Program,
    Subroutine,
    Function,
    Module,
    Submodule,
    BlockData,
}

impl UnitKind {
    /// The name used in reports (DESIGN.md section 5).
    pub fn as_str(self) -> &'static str {
        match self {
            UnitKind::Program => "program",
            UnitKind::Subroutine => "subroutine",
            UnitKind::Function => "function",
            UnitKind::Module => "module",
            UnitKind::Submodule => "submodule",
            UnitKind::BlockData => "block_data",
        }
    }
}

/// `USE module [, only: ...] [, local => remote ...]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    pub module: String,
    /// `Some` for `ONLY:` lists: the (local, remote) names made visible.
    pub only: Option<Vec<(String, String)>>,
    /// Renames outside an ONLY list: (local, remote).
    pub renames: Vec<(String, String)>,
    pub span: Span,
}

impl Use {
    /// The local name under which `remote` is visible through this USE, if it is.
    pub fn local_name<'a>(&'a self, remote: &'a str) -> Option<&'a str> {
        match &self.only {
            Some(only) => only
                .iter()
                .find(|(_, r)| r == remote)
                .map(|(l, _)| l.as_str()),
            None => Some(
                self.renames
                    .iter()
                    .find(|(_, r)| r == remote)
                    .map_or(remote, |(l, _)| l.as_str()),
            ),
        }
    }
}

/// One lowered program unit (program, subroutine, function, module, ...).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    pub kind: UnitKind,
    /// Lower-case; `main` for a main program without a PROGRAM statement.
    pub name: String,
    /// The host of a contained or module procedure.
    pub host: Option<String>,
    /// Dummy arguments, in order.
    pub dummies: Vec<String>,
    pub uses: Vec<Use>,
    pub implicit: ImplicitRules,
    pub symbols: SymbolTable,
    /// The entities of the host and the USEd modules the unit's text mentions (its
    /// lowering scope: kinds, types and shapes, no values). A local declaration of the
    /// same name hides one here.
    pub outer: SymbolTable,
    /// HPF directives of the unit, in source order.
    pub directives: Vec<Directive>,
    /// `!costline:` pragmas and the statements they apply to.
    pub pragmas: Vec<(StmtId, PragmaKind)>,
    pub body: Vec<Stmt>,
    /// The unit statement (`subroutine foo(a, n)`).
    pub header: Span,
    /// The `EXTRINSIC(kind)` prefix of the unit statement: the kind, lower-case, and
    /// where it is written.
    pub extrinsic: Option<(String, Span)>,
    /// Statements that could not be read (the first line of each): every figure of the
    /// unit leaves them out.
    pub unread: Vec<Span>,
    /// The whole unit.
    pub span: Span,
    /// Parse, directive and lowering findings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Unit {
    /// Whether the unit is an `EXTRINSIC(HPF_LOCAL)` procedure: each processor runs it
    /// on its own part of the actual arguments, without communication.
    pub fn is_hpf_local(&self) -> bool {
        self.extrinsic
            .as_ref()
            .is_some_and(|(k, _)| k == "hpf_local")
    }

    /// The entity `name` refers to: the unit's own declaration, else its host's or a
    /// USEd module's.
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.get(name).or_else(|| self.outer.get(name))
    }

    /// Visits every statement in pre-order with its loop nesting level.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Stmt, usize)) {
        walk(&self.body, f);
    }
}
