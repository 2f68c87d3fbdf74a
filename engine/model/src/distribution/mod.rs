//! HPF data distribution semantics: which processors own which array elements.
//!
//! A PROCESSORS arrangement is a grid with (symbolic) extents; a template (or an array
//! distributed directly) has one format per dimension — BLOCK (block size ⌈n/P⌉, so
//! the last processors may own less or nothing), BLOCK(k), CYCLIC(k) (blocks of k dealt
//! round-robin), or `*` (not distributed) — its distributed dimensions mapped in order
//! onto the grid's. An array ALIGNed with a template (or another array, followed to the
//! end of the chain) maps each template dimension to an affine function of one of its
//! indices, to a constant, or replicates along it. Processors are numbered 1..|P| in
//! Fortran column-major order of their grid coordinates (DESIGN.md section 3).
//!
//! The ownership rule is written once, in [`ownership`]: as constraints on a processor's
//! grid coordinates (P^3T+ equation (4) and its cyclic counterparts), so the symbolic sum
//! can count the iterations a processor executes, and numerically, the owners of one
//! element of a [`Layout`] (the mapping valued).

pub mod dynamic;
pub mod layout;
mod local;
pub mod ownership;
mod remap;
mod resolve;
mod visible;

pub(crate) use layout::exact_int;
pub use layout::{Layout, LayoutDim};
pub use local::{LOCAL_BUDGET, local_extents, local_parts};
pub use ownership::{Deal, Owners, Ownership};
pub use remap::Remap;
pub use resolve::{DummyMapping, UnitMappings, mappings, mappings_with, transcriptive_dummies};
pub use visible::Visible;

use costline_symbolic::{Name, Rational, Sym, SymError};
use num_integer::Integer;
use std::sync::Arc;

/// A processor arrangement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrangement {
    pub name: String,
    pub extents: Vec<Sym>,
    /// Not declared: HPF's default arrangement, with an assumed shape.
    pub default: bool,
}

impl Arrangement {
    /// Number of processors: the product of the extents.
    pub fn size(&self) -> Result<Sym, SymError> {
        self.extents
            .iter()
            .try_fold(Sym::one(), |acc, e| acc.mul(e))
    }

    /// The name of the 1-based grid coordinate `k` (0-based index) of the processor
    /// being counted: `$p` on a 1-D arrangement (the processor number), `$p1, $p2, ...`
    /// on a grid.
    pub fn coordinate(&self, k: usize) -> Name {
        if self.extents.len() == 1 {
            "$p".into()
        } else {
            format!("$p{}", k + 1).as_str().into()
        }
    }

    /// The 0-based grid coordinates of processor `p` (1-based, column-major) on a grid
    /// of `extents` (symbolic extents valued, or a [`Layout`]'s grid).
    pub fn coordinates<T: Integer + Copy>(extents: &[T], p: T) -> Vec<T> {
        let mut rest = p - T::one();
        extents
            .iter()
            .map(|&e| {
                let e = e.max(T::one());
                let c = rest.mod_floor(&e);
                rest = rest / e;
                c
            })
            .collect()
    }
}

/// The distribution format of one template dimension, with symbolic sizes (a
/// [`Mapping`]) or valued ones (a [`Layout`]); [`ownership`] gives its rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Format<V = Sym> {
    /// Blocks of the given size (`⌈n/P⌉` for BLOCK), one per processor.
    Block(V),
    /// Blocks of the given size, dealt round-robin.
    Cyclic(V),
    /// Not distributed.
    Collapsed,
}

impl<V> Format<V> {
    /// The same format with every size `f` of the old one.
    pub fn map<W>(&self, f: impl FnOnce(&V) -> W) -> Format<W> {
        match self {
            Format::Block(b) => Format::Block(f(b)),
            Format::Cyclic(k) => Format::Cyclic(f(k)),
            Format::Collapsed => Format::Collapsed,
        }
    }

    /// The same format with every size `f` of the old one; `None` when `f` has none.
    pub fn try_map<W>(&self, f: impl FnOnce(&V) -> Option<W>) -> Option<Format<W>> {
        Some(match self {
            Format::Block(b) => Format::Block(f(b)?),
            Format::Cyclic(k) => Format::Cyclic(f(k)?),
            Format::Collapsed => Format::Collapsed,
        })
    }
}

/// One dimension of a distributed template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistDim {
    pub lower: Sym,
    pub extent: Sym,
    pub format: Format,
    /// The grid dimension it is distributed over (`None` when collapsed).
    pub grid: Option<usize>,
}

/// A distributed template (or array distributed directly).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distribution {
    pub target: String,
    pub dims: Vec<DistDim>,
    pub onto: Arrangement,
    /// The DISTRIBUTE directive (unit-relative).
    pub directive: costline_syntax::span::Span,
}

/// What one template dimension's index is for an element of an aligned array, with
/// symbolic coefficients (a [`Mapping`]) or valued ones (a [`Layout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TemplateIndex<V = Sym> {
    /// `coef * i_d + offset` for array index `i_d` (0-based dimension `d`).
    Affine { dim: usize, coef: V, offset: V },
    /// The same template index for every element.
    Constant(V),
    /// Every index: the element is replicated along this template dimension.
    Replicated,
}

impl<V> TemplateIndex<V> {
    /// The same index with every coefficient `f` of the old one; `None` when `f` has
    /// none.
    pub fn try_map<W>(&self, mut f: impl FnMut(&V) -> Option<W>) -> Option<TemplateIndex<W>> {
        Some(match self {
            TemplateIndex::Affine { dim, coef, offset } => TemplateIndex::Affine {
                dim: *dim,
                coef: f(coef)?,
                offset: f(offset)?,
            },
            TemplateIndex::Constant(c) => TemplateIndex::Constant(f(c)?),
            TemplateIndex::Replicated => TemplateIndex::Replicated,
        })
    }
}

/// How an array is mapped: through which template indices onto which distribution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub distribution: Arc<Distribution>,
    /// One per template dimension.
    pub index: Vec<TemplateIndex>,
    /// The directives that determine it (DISTRIBUTE, and ALIGN if any), unit-relative.
    pub directives: Vec<costline_syntax::span::Span>,
}

impl Mapping {
    /// Whether `other` places every element on the same processors: the same
    /// distribution (whichever directive declared it) and template indices.
    pub fn same_placement(&self, other: &Mapping) -> bool {
        let (a, b) = (&*self.distribution, &*other.distribution);
        a.dims == b.dims && a.onto == b.onto && self.index == other.index
    }

    /// Whether some elements have several owners: a template dimension the array is
    /// replicated along, or a grid dimension no template dimension is distributed over.
    pub fn replicated(&self) -> bool {
        let used: Vec<usize> = self
            .distribution
            .dims
            .iter()
            .zip(&self.index)
            .filter(|(d, i)| d.format != Format::Collapsed && **i != TemplateIndex::Replicated)
            .filter_map(|(d, _)| d.grid)
            .collect();
        (0..self.distribution.onto.extents.len()).any(|k| !used.contains(&k))
    }
}

/// `⌈n/p⌉`, HPF's BLOCK size.
pub fn block_size(n: &Sym, p: &Sym) -> Result<Sym, SymError> {
    match (n.as_int(), p.as_int()) {
        (Some(n), Some(p)) if p > 0 => {
            Ok(Sym::rat(Rational::new(n, p).ok_or(SymError::DivisionByZero)?).ceil()?)
        }
        _ => n.div(p)?.ceil(),
    }
}
