//! HPF's ownership rule, written once (HPF 2.0 section 3.3; P^3T+ equation (4) and its
//! cyclic counterpart), and evaluated two ways from the same description ([`Format`],
//! [`TemplateIndex`]):
//! - symbolically, as constraints on the grid coordinates of the processor being
//!   counted, for the symbolic sum ([`Mapping::ownership`]);
//! - numerically, the owners of one element of a valued mapping ([`Layout::owners`],
//!   [`Layout::coordinate`]), for the element-by-element counts and call layouts.
//!
//! A distributed template dimension deals its indices out in blocks of `size`
//! consecutive indices from its lower bound `lo`: template index x lies in block
//! j = ⌊(x − lo)/size⌋, and block j goes to grid coordinate j mod P. BLOCK(b) has at
//! most P blocks (a block j >= P is outside the template); CYCLIC(k) deals them round
//! robin, block j in cycle q = ⌊j/P⌋ (j = P·q + c).

use super::{Format, Layout, LayoutDim, Mapping, TemplateIndex};
use costline_symbolic::{Constraint, Name, Sym, SymError};
use smallvec::{SmallVec, smallvec};

/// How a distributed template dimension deals its indices out (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deal<V> {
    /// Consecutive template indices per block.
    pub size: V,
    /// Whether blocks past the last coordinate wrap around (CYCLIC) rather than lie
    /// outside the template (BLOCK).
    pub wraps: bool,
}

impl<V> Format<V> {
    /// The format's rule; `None` when the dimension is not distributed.
    pub fn deal(&self) -> Option<Deal<&V>> {
        match self {
            Format::Block(b) => Some(Deal {
                size: b,
                wraps: false,
            }),
            Format::Cyclic(k) => Some(Deal {
                size: k,
                wraps: true,
            }),
            Format::Collapsed => None,
        }
    }
}

impl Deal<&Sym> {
    /// The constraints under which template index `rel` (relative to the lower bound)
    /// lies on 0-based grid coordinate `c` of `p`: size·j <= rel <= size·j + size − 1,
    /// with j = c, or j = p·q + c when the blocks wrap (q the cycle number `cycle`, a
    /// variable the caller sums over).
    pub fn owned(
        &self,
        rel: &Sym,
        c: &Sym,
        p: &Sym,
        cycle: &Name,
    ) -> Result<[Constraint; 2], SymError> {
        let block = if self.wraps {
            p.mul(&Sym::var(cycle))?.add(c)?
        } else {
            c.clone()
        };
        let start = self.size.mul(&block)?;
        Ok([
            Constraint::ge(rel, &start)?,
            Constraint::le(rel, &start.add(self.size)?.add_int(-1)?)?,
        ])
    }
}

impl Deal<&i64> {
    /// The 0-based grid coordinate of template index `rel` (relative to the lower bound)
    /// on `p` coordinates: j = ⌊rel/size⌋, then j (j < p) or j mod p when the blocks
    /// wrap; `None` when `rel` falls outside the template.
    pub fn coordinate(&self, rel: i128, p: i128) -> Option<i128> {
        let size = i128::from(*self.size);
        if size <= 0 || rel < 0 {
            return None;
        }
        let j = rel / size;
        let c = if self.wraps {
            j.rem_euclid(p.max(1))
        } else {
            j
        };
        (c < p).then_some(c)
    }
}

/// The constraints under which the processor with grid coordinates `$p1, $p2, ...` owns
/// element `subscripts` of an array mapped by `m`, and the auxiliary variables (one per
/// cyclic dimension: the cycle number) they introduce, to be summed over.
pub struct Ownership {
    pub constraints: Vec<Constraint>,
    pub aux: Vec<Name>,
}

impl Mapping {
    /// Owner constraints of the element `subscripts` (expressions in loop variables),
    /// by [`Deal::owned`] per distributed template dimension: BLOCK with block size b,
    /// `b·c <= x - lo <= b·c + b - 1`; CYCLIC(k) over P processors,
    /// `k·(P·q + c) <= x - lo <= k·(P·q + c) + k - 1` with q the cycle number `$q<t>`.
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
            let Some(deal) = dim.format.deal() else {
                continue;
            };
            // The 0-based coordinate.
            let c = Sym::var(&self.distribution.onto.coordinate(k)).add_int(-1)?;
            let rel = x.sub(&dim.lower)?;
            let cycle: Name = format!("$q{}", t + 1).as_str().into();
            constraints.extend(deal.owned(&rel, &c, &self.distribution.onto.extents[k], &cycle)?);
            if deal.wraps {
                aux.push(cycle);
            }
        }
        Ok(Ownership { constraints, aux })
    }

    /// The array dimensions (0-based) whose subscripts decide an element's owner: those
    /// an affine template index of a distributed dimension reads. A subscript in any
    /// other dimension leaves [`Mapping::ownership`] unchanged.
    pub fn owner_dims(&self) -> Vec<usize> {
        let mut dims: Vec<usize> = self
            .distribution
            .dims
            .iter()
            .zip(&self.index)
            .filter(|(d, _)| d.grid.is_some() && d.format.deal().is_some())
            .filter_map(|(_, i)| match i {
                TemplateIndex::Affine { dim, .. } => Some(*dim),
                _ => None,
            })
            .collect();
        dims.sort_unstable();
        dims.dedup();
        dims
    }

    /// Whether every processor of the arrangement owns every element: no distributed
    /// template dimension places the array on part of the grid.
    pub fn everywhere(&self) -> bool {
        self.distribution
            .dims
            .iter()
            .zip(&self.index)
            .all(|(d, i)| {
                d.grid.is_none() || d.format.deal().is_none() || *i == TemplateIndex::Replicated
            })
    }
}

/// The processors owning one element, 1-based, ascending (inline up to four).
pub type Owners = SmallVec<[usize; 4]>;

impl Layout {
    /// The 0-based grid coordinate template dimension `d` puts template index `x` on,
    /// by [`Deal::coordinate`]; `None` when `d` is not distributed or `x` falls outside
    /// the template.
    pub fn coordinate(&self, d: &LayoutDim, x: i64) -> Option<i64> {
        let p = *self.grid.get(d.grid?)?;
        let c = d
            .format
            .deal()?
            .coordinate(i128::from(x) - i128::from(d.lower), p.into())?;
        i64::try_from(c).ok()
    }

    /// The processors (1-based, ascending) owning element `index` — the numeric
    /// counterpart of [`Mapping::ownership`]: each distributed template dimension the
    /// array is aligned with fixes one grid coordinate ([`Deal::coordinate`]); a
    /// replicated dimension, or a grid dimension no template dimension is distributed
    /// over, leaves it free (every coordinate). `None` when the element lies outside
    /// the template.
    pub fn owners(&self, index: &[i128]) -> Option<Owners> {
        let grid = &self.grid;
        let mut choices: SmallVec<[Option<i128>; 4]> = smallvec![None; grid.len()];
        for d in &self.dims {
            let (Some(k), Some(deal)) = (d.grid, d.format.deal()) else {
                continue;
            };
            let x = match d.index {
                TemplateIndex::Replicated => continue,
                TemplateIndex::Constant(x) => i128::from(x),
                TemplateIndex::Affine { dim, coef, offset } => i128::from(coef)
                    .checked_mul(*index.get(dim)?)?
                    .checked_add(offset.into())?,
            };
            let p = i128::from(*grid.get(k)?);
            choices[k] = Some(deal.coordinate(x - i128::from(d.lower), p)?);
        }
        // Column-major numbering over every combination of the free coordinates.
        let mut out: Owners = smallvec![0];
        let mut stride = 1i128;
        for (k, &e) in grid.iter().enumerate() {
            let e = i128::from(e);
            match choices[k] {
                Some(c) => out.iter_mut().for_each(|n| *n += (c * stride) as usize),
                None => {
                    out = out
                        .iter()
                        .flat_map(|n| (0..e).map(move |c| n + (c * stride) as usize))
                        .collect()
                }
            }
            stride = stride.checked_mul(e)?;
        }
        out.iter_mut().for_each(|n| *n += 1);
        out.sort_unstable();
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two evaluations of the rule agree: for every format, block size, processor
    /// count and template index, the symbolic constraints hold for coordinate c (and
    /// some cycle number) exactly when the numeric rule gives c.
    #[test]
    fn symbolic_and_numeric_rules_agree() {
        let cycle: Name = "$q".into();
        for size in 1..=4i64 {
            for p in 1..=4i64 {
                for format in [Format::Block(size), Format::Cyclic(size)] {
                    let deal = format.deal().unwrap();
                    let sym_size = Sym::int(size.into());
                    let sym_deal = Deal {
                        size: &sym_size,
                        wraps: deal.wraps,
                    };
                    let (rel, c) = (Sym::var("rel"), Sym::var("c"));
                    let owned = sym_deal
                        .owned(&rel, &c, &Sym::int(p.into()), &cycle)
                        .unwrap();
                    for x in -3..(size * p * 3) as i128 {
                        let numeric = deal.coordinate(x, p.into());
                        for coord in 0..i128::from(p) {
                            let holds = (0..8).any(|q: i128| {
                                let env = |n: &str| match n {
                                    "rel" => Some(x),
                                    "c" => Some(coord),
                                    "$q" => Some(q),
                                    _ => None,
                                };
                                owned.iter().all(|k| k.eval(&env).unwrap())
                            });
                            assert_eq!(
                                holds,
                                numeric == Some(coord),
                                "{format:?} on {p}: index {x}, coordinate {coord}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn owners_of_a_replicated_and_a_distributed_dimension() {
        // A(BLOCK) aligned along the first dimension of a 2 x 3 grid, replicated along
        // the second: element 5 (block 4 from 1) is on coordinate 1 of the first.
        let layout = Layout {
            arrangement: "pr".into(),
            grid: vec![2, 3],
            dims: vec![
                LayoutDim {
                    lower: 1,
                    extent: 8,
                    format: Format::Block(4),
                    grid: Some(0),
                    index: TemplateIndex::Affine {
                        dim: 0,
                        coef: 1,
                        offset: 0,
                    },
                },
                LayoutDim {
                    lower: 1,
                    extent: 3,
                    format: Format::Block(1),
                    grid: Some(1),
                    index: TemplateIndex::Replicated,
                },
            ],
            lowers: vec![1],
        };
        assert_eq!(layout.owners(&[5]).unwrap().as_slice(), [2, 4, 6]);
        assert_eq!(layout.owners(&[4]).unwrap().as_slice(), [1, 3, 5]);
        assert_eq!(layout.owners(&[9]), None);
        assert_eq!(layout.owners(&[0]), None);
    }
}
