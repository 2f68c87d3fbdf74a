//! A mapping with every size, bound and offset valued: what a call site hands a
//! transcriptive dummy (INHERIT, `DISTRIBUTE x *`), and what the implicit remapping at a
//! call compares. Hashable, so that a procedure analysed "as called with" a layout is
//! keyed by it (a salsa variant), and free of the caller's unknowns.

use super::{Arrangement, DistDim, Distribution, Format, Mapping, TemplateIndex};
use costline_symbolic::{Env, Num, Sym};
use costline_syntax::span::Span;
use std::sync::Arc;

/// Grid coordinates, `None` where free (any).
pub type Coords = Vec<Option<i64>>;

/// The coordinates one array position determines: (grid dimension, coordinate).
pub type Partial = Vec<(usize, i64)>;

/// A valued mapping of an array: its processor grid, and per template dimension the
/// format and where the array's elements fall in it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Layout {
    /// The arrangement's name (for messages) and extents.
    pub arrangement: String,
    pub grid: Vec<i64>,
    pub dims: Vec<LayoutDim>,
    /// The lower bound of each dimension of the array the layout was taken from: a
    /// dummy with other lower bounds sees element `i` of its own as the actual's
    /// `i - lower_dummy + lower_actual`.
    pub lowers: Vec<i64>,
}

/// One template dimension of a [`Layout`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct LayoutDim {
    pub lower: i64,
    pub extent: i64,
    pub format: Format<i64>,
    /// The grid dimension it is distributed over (`None`: collapsed).
    pub grid: Option<usize>,
    /// Where an element falls in this template dimension.
    pub index: TemplateIndex<i64>,
}

/// The value of `e` under `env` when it is an integer that fits in 64 bits.
pub(crate) fn exact_int(e: &Sym, env: Env) -> Option<i64> {
    match e.eval(env).ok()? {
        Num::Exact(r) => r.as_integer().and_then(|v| i64::try_from(v).ok()),
        Num::Approx(_) => None,
    }
}

impl Layout {
    /// `m` (the mapping of an array whose dimensions start at `lowers`) valued under
    /// `env`; `None` when a size, bound or offset has no value. `lowers` may be empty
    /// when only the owners of elements are asked ([`Layout::owners`]).
    pub fn of(m: &Mapping, lowers: &[Sym], env: Env) -> Option<Layout> {
        let grid = m
            .distribution
            .onto
            .extents
            .iter()
            .map(|e| exact_int(e, env).filter(|v| *v >= 1))
            .collect::<Option<Vec<_>>>()?;
        let dims = m
            .distribution
            .dims
            .iter()
            .zip(&m.index)
            .map(|(d, ti)| {
                Some(LayoutDim {
                    lower: exact_int(&d.lower, env)?,
                    extent: exact_int(&d.extent, env)?,
                    format: d.format.try_map(|v| exact_int(v, env))?,
                    grid: d.grid,
                    index: ti.try_map(|v| exact_int(v, env))?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let lowers = lowers
            .iter()
            .map(|l| exact_int(l, env))
            .collect::<Option<Vec<_>>>()?;
        Some(Layout {
            arrangement: m.distribution.onto.name.clone(),
            grid,
            dims,
            lowers,
        })
    }

    /// The mapping of an array with lower bounds `lowers` that takes this layout (a
    /// dummy associated with the actual the layout was taken from), as the directive at
    /// `span` of the array `target` says.
    pub fn mapping(&self, target: &str, lowers: &[i64], span: Span) -> Mapping {
        let s = |v: i64| Sym::int(v as i128);
        let dims = self
            .dims
            .iter()
            .map(|d| DistDim {
                lower: s(d.lower),
                extent: s(d.extent),
                format: d.format.map(|&v| s(v)),
                grid: d.grid,
            })
            .collect();
        let index = self
            .dims
            .iter()
            .map(|d| match d.index {
                TemplateIndex::Affine { dim, coef, offset } => {
                    // Dummy index i is the actual's i - lower_dummy + lower_actual.
                    let shift = self.lowers.get(dim).copied().unwrap_or(1)
                        - lowers.get(dim).copied().unwrap_or(1);
                    TemplateIndex::Affine {
                        dim,
                        coef: s(coef),
                        offset: s(offset + coef * shift),
                    }
                }
                TemplateIndex::Constant(c) => TemplateIndex::Constant(s(c)),
                TemplateIndex::Replicated => TemplateIndex::Replicated,
            })
            .collect();
        Mapping {
            distribution: Arc::new(Distribution {
                target: target.to_string(),
                dims,
                onto: Arrangement {
                    name: self.arrangement.clone(),
                    extents: self.grid.iter().map(|&e| s(e)).collect(),
                    default: false,
                },
                directive: span,
            }),
            index,
            directives: vec![span],
        }
    }

    /// The layout as a reader writes it: the formats of the template dimensions the
    /// array is aligned with, and the grid, e.g. `(BLOCK(16), *) onto pr(4)`.
    pub fn describe(&self) -> String {
        let formats: Vec<String> = self
            .dims
            .iter()
            .map(|d| match (d.format, d.index) {
                (_, TemplateIndex::Replicated) | (Format::Collapsed, _) => "*".to_string(),
                (Format::Block(b), _) => format!("BLOCK({b})"),
                (Format::Cyclic(1), _) => "CYCLIC".to_string(),
                (Format::Cyclic(k), _) => format!("CYCLIC({k})"),
            })
            .collect();
        let grid: Vec<String> = self.grid.iter().map(i64::to_string).collect();
        format!(
            "({}) onto {}({})",
            formats.join(", "),
            self.arrangement,
            grid.join(", ")
        )
    }

    /// The number of processors of the grid.
    pub fn processors(&self) -> i64 {
        self.grid.iter().product()
    }

    /// The coordinates every element has: template dimensions with a constant index; the
    /// rest free (`None`).
    pub fn constant_coordinates(&self) -> Result<Coords, String> {
        let l = self;
        let mut out = vec![None; l.grid.len()];
        for d in &l.dims {
            if let (Some(g), TemplateIndex::Constant(x)) = (d.grid, d.index) {
                out[g] = Some(
                    l.coordinate(d, x)
                        .ok_or("an alignment places elements outside the template")?,
                );
            }
        }
        Ok(out)
    }

    /// The grid coordinates position `j` of array dimension `dim` determines.
    pub fn coordinates_along(&self, dim: usize, j: i64) -> Result<Partial, String> {
        let l = self;
        let mut out = Vec::new();
        for d in &l.dims {
            let (
                Some(g),
                TemplateIndex::Affine {
                    dim: a,
                    coef,
                    offset,
                },
            ) = (d.grid, d.index)
            else {
                continue;
            };
            if a != dim {
                continue;
            }
            let i = l.lowers.get(dim).copied().unwrap_or(1) + j;
            let c = l
                .coordinate(d, coef * i + offset)
                .ok_or("an element falls outside its template")?;
            out.push((g, c));
        }
        Ok(out)
    }
}
