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
//! Ownership is expressed as constraints on a processor's (0-based) grid coordinates
//! `$c1, $c2, ...` (P^3T+ equation (4) and its cyclic counterparts), so the symbolic sum
//! can count the iterations a processor executes.

pub mod dynamic;
pub mod layout;
mod local;
mod remap;
mod resolve;
mod visible;

pub use layout::{Layout, LayoutDim, LayoutFormat, LayoutIndex};
pub use local::{LOCAL_BUDGET, local_extents};
pub use remap::Remap;
pub use resolve::{DummyMapping, UnitMappings, mappings, mappings_with, transcriptive_dummies};
pub use visible::Visible;

use costline_symbolic::{Constraint, Name, Rational, Sym, SymError};
use smallvec::{SmallVec, smallvec};
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

    /// The 0-based grid coordinates of processor `p` (1-based, column-major).
    pub fn coordinates(extents: &[i128], p: i128) -> Vec<i128> {
        let mut rest = p - 1;
        extents
            .iter()
            .map(|&e| {
                let c = rest.rem_euclid(e.max(1));
                rest /= e.max(1);
                c
            })
            .collect()
    }
}

/// The distribution format of one template dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Blocks of the given size (`⌈n/P⌉` for BLOCK), one per processor.
    Block(Sym),
    /// Blocks of the given size, dealt round-robin.
    Cyclic(Sym),
    /// Not distributed.
    Collapsed,
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

/// What one template dimension's index is for an element of an aligned array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateIndex {
    /// `coef * i_d + offset` for array index `i_d` (0-based dimension `d`).
    Affine { dim: usize, coef: Sym, offset: Sym },
    /// The same template index for every element.
    Constant(Sym),
    /// Every index: the element is replicated along this template dimension.
    Replicated,
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

/// The constraints under which the processor with grid coordinates `$p1, $p2, ...` owns
/// element `subscripts` of an array mapped by `m`, and the auxiliary variables (one per
/// cyclic dimension: the cycle number) they introduce, to be summed over.
pub struct Ownership {
    pub constraints: Vec<Constraint>,
    pub aux: Vec<Name>,
}

impl Mapping {
    /// Owner constraints of the element `subscripts` (expressions in loop variables).
    /// BLOCK with block size b: `b·c <= x - lo <= b·c + b - 1`; CYCLIC(k) over P
    /// processors: `x - lo = k·(P·q + c) + r`, `0 <= r < k`, with q the cycle number.
    pub fn ownership(&self, subscripts: &[Sym]) -> Result<Ownership, SymError> {
        let mut constraints = Vec::new();
        let mut aux = Vec::new();
        for (t, (dim, index)) in self.distribution.dims.iter().zip(&self.index).enumerate() {
            let Some(k) = dim.grid else { continue };
            let x = match index {
                TemplateIndex::Replicated => continue,
                TemplateIndex::Constant(e) => e.clone(),
                TemplateIndex::Affine {
                    dim: d,
                    coef,
                    offset,
                } => {
                    let Some(s) = subscripts.get(*d) else {
                        continue;
                    };
                    coef.mul(s)?.add(offset)?
                }
            };
            // The 0-based coordinate.
            let c = Sym::var(&self.distribution.onto.coordinate(k)).add_int(-1)?;
            let rel = x.sub(&dim.lower)?;
            match &dim.format {
                Format::Collapsed => {}
                Format::Block(b) => {
                    let start = b.mul(&c)?;
                    constraints.push(Constraint::ge(&rel, &start)?);
                    constraints.push(Constraint::le(&rel, &start.add(b)?.add_int(-1)?)?);
                }
                Format::Cyclic(m) => {
                    let q: Name = format!("$q{}", t + 1).as_str().into();
                    let p = &self.distribution.onto.extents[k];
                    let start = m.mul(&p.mul(&Sym::var(&q))?.add(&c)?)?;
                    constraints.push(Constraint::ge(&rel, &start)?);
                    constraints.push(Constraint::le(&rel, &start.add(m)?.add_int(-1)?)?);
                    aux.push(q);
                }
            }
        }
        Ok(Ownership { constraints, aux })
    }
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

    /// The mapping with every size, bound and offset valued under `env`, for asking
    /// the owners of many elements ([`ValuedMapping::owners`]); `None` when a value is
    /// missing.
    pub fn valued(&self, env: costline_symbolic::Env) -> Option<ValuedMapping> {
        let int = |e: &Sym| match e.eval(env).ok()? {
            costline_symbolic::Num::Exact(r) => r.as_integer(),
            costline_symbolic::Num::Approx(_) => None,
        };
        let extents: Vec<i128> = self
            .distribution
            .onto
            .extents
            .iter()
            .map(int)
            .collect::<Option<_>>()?;
        let mut dims = Vec::new();
        for (dim, ti) in self.distribution.dims.iter().zip(&self.index) {
            let Some(grid) = dim.grid else { continue };
            let at = match ti {
                TemplateIndex::Replicated => continue,
                TemplateIndex::Constant(e) => Place::Constant(int(e)?),
                TemplateIndex::Affine {
                    dim: d,
                    coef,
                    offset,
                } => Place::Affine {
                    dim: *d,
                    coef: int(coef)?,
                    offset: int(offset)?,
                },
            };
            let format = match &dim.format {
                Format::Collapsed => continue,
                Format::Block(b) => Deal::Block(int(b)?),
                Format::Cyclic(m) => Deal::Cyclic(int(m)?),
            };
            dims.push(ValuedDim {
                grid,
                at,
                lower: int(&dim.lower)?,
                format,
            });
        }
        Some(ValuedMapping { extents, dims })
    }
}

/// A [`Mapping`] valued under some bindings: owners by integer arithmetic alone.
#[derive(Clone, Debug)]
pub struct ValuedMapping {
    extents: Vec<i128>,
    /// The distributed template dimensions the array is aligned with.
    dims: Vec<ValuedDim>,
}

#[derive(Clone, Debug)]
struct ValuedDim {
    grid: usize,
    at: Place,
    lower: i128,
    format: Deal,
}

/// Where an array element falls in a template dimension.
#[derive(Clone, Debug)]
enum Place {
    Constant(i128),
    /// `coef · index[dim] + offset`.
    Affine {
        dim: usize,
        coef: i128,
        offset: i128,
    },
}

#[derive(Clone, Debug)]
enum Deal {
    Block(i128),
    Cyclic(i128),
}

impl ValuedMapping {
    /// The processors (1-based, ascending) owning element `index` — the numeric
    /// counterpart of [`Mapping::ownership`]: BLOCK b puts template index x on coordinate
    /// ⌊(x - lo)/b⌋, CYCLIC(k) on ⌊(x - lo)/k⌋ mod P; a replicated dimension (or a grid
    /// dimension no template dimension is distributed over) on every coordinate. `None`
    /// when the element lies outside the template.
    pub fn owners(&self, index: &[i128]) -> Option<Owners> {
        let extents = &self.extents;
        let mut choices: SmallVec<[Option<i128>; 4]> = smallvec![None; extents.len()];
        for d in &self.dims {
            let x = match d.at {
                Place::Constant(x) => x,
                Place::Affine { dim, coef, offset } => {
                    coef.checked_mul(*index.get(dim)?)?.checked_add(offset)?
                }
            };
            let rel = x - d.lower;
            let p = *extents.get(d.grid)?;
            let c = match d.format {
                Deal::Block(b) => (b > 0 && rel >= 0).then(|| rel / b)?,
                Deal::Cyclic(m) => (m > 0 && rel >= 0).then(|| (rel / m).rem_euclid(p.max(1)))?,
            };
            if c >= p {
                return None;
            }
            choices[d.grid] = Some(c);
        }
        // Column-major numbering over every combination of the free coordinates.
        let mut out: Owners = smallvec![0];
        let mut stride = 1i128;
        for (k, e) in extents.iter().enumerate() {
            match choices[k] {
                Some(c) => out.iter_mut().for_each(|n| *n += (c * stride) as usize),
                None => {
                    out = out
                        .iter()
                        .flat_map(|n| (0..*e).map(move |c| n + (c * stride) as usize))
                        .collect()
                }
            }
            stride = stride.checked_mul(*e)?;
        }
        out.iter_mut().for_each(|n| *n += 1);
        out.sort_unstable();
        Some(out)
    }
}

/// The processors owning one element, 1-based, ascending (inline up to four).
pub type Owners = SmallVec<[usize; 4]>;

/// `⌈n/p⌉`, HPF's BLOCK size.
pub fn block_size(n: &Sym, p: &Sym) -> Result<Sym, SymError> {
    match (n.as_int(), p.as_int()) {
        (Some(n), Some(p)) if p > 0 => {
            Ok(Sym::rat(Rational::new(n, p).ok_or(SymError::DivisionByZero)?).ceil()?)
        }
        _ => n.div(p)?.ceil(),
    }
}
