//! HPF 2.0 mapping and loop directives (`!HPF$ ...`), after parsing. Combined
//! directives (`!HPF$ TEMPLATE, DISTRIBUTE(BLOCK) :: T(N)`) are split into one
//! [`Directive`] per attribute, each carrying the span of the whole directive.

use super::{ArrayRef, Expr, Triplet};
use crate::span::Span;

mod display;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Directive {
    /// The whole directive, from the sentinel to the end of its last continuation line.
    pub span: Span,
    pub kind: DirectiveKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DirectiveKind {
    /// `PROCESSORS P(4, 4)`; a scalar arrangement has an empty shape.
    Processors(Vec<ShapeDecl>),
    /// `TEMPLATE T(N, 0:M)`.
    Template(Vec<ShapeDecl>),
    /// `DISTRIBUTE A(BLOCK, *) ONTO P` or `DISTRIBUTE (BLOCK) ONTO P :: A, B`.
    Distribute(Distribute),
    /// `ALIGN A(I, J) WITH T(I, J+1)` or `ALIGN (I) WITH T(I) :: A, B`.
    Align(Align),
    /// `REDISTRIBUTE ...`: an executable remapping of a DYNAMIC array.
    Redistribute(Distribute),
    /// `REALIGN ...`: an executable realignment of a DYNAMIC array.
    Realign(Align),
    /// `INDEPENDENT [(i, j)] [, NEW(...)] [, REDUCTION(...)]`: applies to the next DO or FORALL.
    Independent(IndependentDirective),
    /// `DYNAMIC A, B`.
    Dynamic(Vec<Named>),
    /// `INHERIT A, B`.
    Inherit(Vec<Named>),
    /// `SEQUENCE [A, B]` (`sequence == true`) or `NO SEQUENCE [...]`.
    Sequence { names: Vec<Named>, sequence: bool },
    /// A recognized directive costline parses but does not model (ON, RESIDENT,
    /// TASK_REGION, SHADOW, ...): reported once as information, otherwise ignored.
    Unmodelled(String),
}

/// A name as written in a directive, with its position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Named {
    /// Lower-case. A common block named in SEQUENCE keeps its slashes (`/blk/`).
    pub name: String,
    pub span: Span,
}

/// A processor arrangement or template declaration: `name(lower:upper, ...)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShapeDecl {
    pub name: Named,
    pub shape: Vec<Extent>,
}

/// An explicit-shape spec `lower:upper` (lower defaults to 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Extent {
    pub lower: Option<Expr>,
    pub upper: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Distribute {
    pub distributees: Vec<Named>,
    pub formats: FormatClause,
    pub onto: Option<Onto>,
}

/// The distribution format part of DISTRIBUTE.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FormatClause {
    /// No format given (`DISTRIBUTE A ONTO P`).
    Absent,
    /// `(BLOCK, CYCLIC(2), *)`: prescriptive.
    Prescriptive(Vec<DistFormat>),
    /// `*(BLOCK)`: descriptive (dummy arguments).
    Descriptive(Vec<DistFormat>),
    /// `*`: transcriptive (dummy arguments inherit the actual's distribution).
    Transcriptive,
}

/// One dimension's distribution format.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DistFormat {
    /// `BLOCK` (block size ceil(n/p)) or `BLOCK(k)`.
    Block(Option<Expr>),
    /// `CYCLIC` (= `CYCLIC(1)`) or `CYCLIC(k)`.
    Cyclic(Option<Expr>),
    /// `*`: the dimension is not distributed (collapsed).
    Collapsed,
    /// `GEN_BLOCK(sizes)`: HPF 2.0 approved extension.
    GenBlock(Expr),
    /// `INDIRECT(map)`: HPF 2.0 approved extension.
    Indirect(Expr),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Onto {
    /// `ONTO P` (`descriptive`: `ONTO *P`), optionally onto a section `ONTO P(1:4)`.
    Target {
        name: Named,
        section: Vec<Triplet>,
        descriptive: bool,
    },
    /// `ONTO *`: transcriptive.
    Transcriptive,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Align {
    pub alignees: Vec<Named>,
    /// `(I, :, *)` after the alignee, or before `WITH` in the `::` form; `None` when
    /// absent (`ALIGN A WITH B`: identity alignment of the whole array).
    pub sources: Option<Vec<AlignSource>>,
    pub target: Named,
    /// `WITH *T`: descriptive alignment of a dummy argument.
    pub descriptive: bool,
    /// Subscripts of the target; `None` when absent.
    pub subscripts: Option<Vec<AlignSubscript>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AlignSource {
    /// `:`: the dimension aligns with the target's `:` dimension in order.
    Colon,
    /// `*`: the dimension is collapsed.
    Star,
    /// An align dummy (`I`), lower-case.
    Dummy(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AlignSubscript {
    /// An integer expression, usually affine in one align dummy (`2*I - 1`).
    Expr(Expr),
    /// A subscript triplet (`:` or `1:N:2`).
    Triplet(Triplet),
    /// `*`: replicated over this target dimension.
    Star,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct IndependentDirective {
    /// `INDEPENDENT (I, J)`: the FORALL indices it applies to (HPF 1 form).
    pub indices: Vec<Named>,
    pub new: Vec<Named>,
    pub reduction: Vec<Named>,
    /// `ON HOME(a(i))`: each iteration runs on the owner of this element (the approved
    /// extension's work placement).
    pub on_home: Option<ArrayRef>,
}
