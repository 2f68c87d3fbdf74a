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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LayoutDim {
    pub lower: i64,
    pub extent: i64,
    pub format: LayoutFormat,
    /// The grid dimension it is distributed over (`None`: collapsed).
    pub grid: Option<usize>,
    pub index: LayoutIndex,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutFormat {
    Block(i64),
    Cyclic(i64),
    Collapsed,
}

/// Where an element falls in a template dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutIndex {
    /// `coef · index[dim] + offset` (0-based array dimension `dim`).
    Affine {
        dim: usize,
        coef: i64,
        offset: i64,
    },
    Constant(i64),
    Replicated,
}

fn int(e: &Sym, env: Env) -> Option<i64> {
    match e.eval(env).ok()? {
        Num::Exact(r) => r.as_integer().and_then(|v| i64::try_from(v).ok()),
        Num::Approx(_) => None,
    }
}

impl Layout {
    /// `m` (the mapping of an array whose dimensions start at `lowers`) valued under
    /// `env`; `None` when a size, bound or offset has no value.
    pub fn of(m: &Mapping, lowers: &[Sym], env: Env) -> Option<Layout> {
        let grid = m
            .distribution
            .onto
            .extents
            .iter()
            .map(|e| int(e, env).filter(|v| *v >= 1))
            .collect::<Option<Vec<_>>>()?;
        let dims = m
            .distribution
            .dims
            .iter()
            .zip(&m.index)
            .map(|(d, ti)| {
                Some(LayoutDim {
                    lower: int(&d.lower, env)?,
                    extent: int(&d.extent, env)?,
                    format: match &d.format {
                        Format::Block(b) => LayoutFormat::Block(int(b, env)?),
                        Format::Cyclic(k) => LayoutFormat::Cyclic(int(k, env)?),
                        Format::Collapsed => LayoutFormat::Collapsed,
                    },
                    grid: d.grid,
                    index: match ti {
                        TemplateIndex::Affine { dim, coef, offset } => LayoutIndex::Affine {
                            dim: *dim,
                            coef: int(coef, env)?,
                            offset: int(offset, env)?,
                        },
                        TemplateIndex::Constant(c) => LayoutIndex::Constant(int(c, env)?),
                        TemplateIndex::Replicated => LayoutIndex::Replicated,
                    },
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let lowers = lowers
            .iter()
            .map(|l| int(l, env))
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
                format: match d.format {
                    LayoutFormat::Block(b) => Format::Block(s(b)),
                    LayoutFormat::Cyclic(k) => Format::Cyclic(s(k)),
                    LayoutFormat::Collapsed => Format::Collapsed,
                },
                grid: d.grid,
            })
            .collect();
        let index = self
            .dims
            .iter()
            .map(|d| match d.index {
                LayoutIndex::Affine { dim, coef, offset } => {
                    // Dummy index i is the actual's i - lower_dummy + lower_actual.
                    let shift = self.lowers.get(dim).copied().unwrap_or(1)
                        - lowers.get(dim).copied().unwrap_or(1);
                    TemplateIndex::Affine {
                        dim,
                        coef: s(coef),
                        offset: s(offset + coef * shift),
                    }
                }
                LayoutIndex::Constant(c) => TemplateIndex::Constant(s(c)),
                LayoutIndex::Replicated => TemplateIndex::Replicated,
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
                (_, LayoutIndex::Replicated) | (LayoutFormat::Collapsed, _) => "*".to_string(),
                (LayoutFormat::Block(b), _) => format!("BLOCK({b})"),
                (LayoutFormat::Cyclic(1), _) => "CYCLIC".to_string(),
                (LayoutFormat::Cyclic(k), _) => format!("CYCLIC({k})"),
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

    /// The 0-based grid coordinate template dimension `d` puts element `index` (0-based
    /// dimension `dim`'s index `i`) on, when its index is affine in `dim`: BLOCK b puts
    /// template index x on ⌊(x - lo)/b⌋, CYCLIC(k) on ⌊(x - lo)/k⌋ mod P. `None` when
    /// the element falls outside the template.
    pub fn coordinate(&self, d: &LayoutDim, x: i64) -> Option<i64> {
        let k = d.grid?;
        let p = *self.grid.get(k)?;
        let rel = x - d.lower;
        if rel < 0 {
            return None;
        }
        let c = match d.format {
            LayoutFormat::Block(b) if b > 0 => rel / b,
            LayoutFormat::Cyclic(m) if m > 0 => (rel / m).rem_euclid(p),
            _ => return None,
        };
        (c < p).then_some(c)
    }

    /// The coordinates every element has: template dimensions with a constant index; the
    /// rest free (`None`).
    pub fn constant_coordinates(&self) -> Result<Coords, String> {
        let l = self;
        let mut out = vec![None; l.grid.len()];
        for d in &l.dims {
            if let (Some(g), LayoutIndex::Constant(x)) = (d.grid, d.index) {
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
                LayoutIndex::Affine {
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

/// The 0-based coordinates of processor `p` (1-based) on `grid`.
pub fn coordinates_of(grid: &[i64], p: usize) -> Vec<i64> {
    let mut rest = p as i64 - 1;
    grid.iter()
        .map(|&e| {
            let c = rest.rem_euclid(e.max(1));
            rest /= e.max(1);
            c
        })
        .collect()
}
