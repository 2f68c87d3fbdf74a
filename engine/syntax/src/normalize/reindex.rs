//! Transformational intrinsics that only move elements: TRANSPOSE, SPREAD, CSHIFT and
//! EOSHIFT. Inside an array expression each becomes the element of its argument that
//! lands at the loop indices, so the statement stays one loop nest and the
//! communication analysis sees the transpose or shift as an ordinary reference
//! (Fortran 2008 13.7.43, 13.7.53, 13.7.159, 13.7.171):
//!
//! - `transpose(m)` at `(i, j)` is `m(j, i)`;
//! - `spread(s, d, n)` at `(…, i_d, …)` is `s` at the indices without `i_d`;
//! - `cshift(a, s, d)` at `i` (dimension `d`, loop `lo:hi:st` of extent `ext`) is `a` at
//!   `lo + modulo(i - lo + s·st, ext·st)`;
//! - `eoshift(a, s, b, d)` at `i` is `merge(a(i + s·st), b, lo <= i + s·st <= hi)`
//!   (`b` defaults to zero).
//!
//! The shift and the dimension must be scalars (the dimension a constant); otherwise
//! the call stays a whole-array operation.

use super::affine::Affine;
use super::{LoopDim, Shapes, elemental, rank};
use crate::ir::{BinaryOp, Call, Expr, Subscript};

/// A call of one of the element-moving intrinsics, its arguments matched.
pub enum Reindex<'a> {
    Transpose {
        matrix: &'a Expr,
    },
    Spread {
        source: &'a Expr,
        /// 0-based.
        dim: usize,
    },
    Cshift {
        array: &'a Expr,
        shift: &'a Expr,
        dim: usize,
    },
    Eoshift {
        array: &'a Expr,
        shift: &'a Expr,
        boundary: Option<&'a Expr>,
        dim: usize,
    },
}

/// The actual argument for dummy `keyword` at position `pos` (0-based): by keyword, or
/// positional when it comes before every keyword argument.
fn arg<'a>(c: &'a Call, pos: usize, keyword: &str) -> Option<&'a Expr> {
    c.args
        .iter()
        .find(|a| a.keyword.as_deref() == Some(keyword))
        .or_else(|| c.args.get(pos).filter(|a| a.keyword.is_none()))
        .map(|a| &a.value)
}

/// A constant DIM argument as a 0-based dimension (1 when omitted).
fn dim(c: &Call, pos: usize) -> Option<usize> {
    match arg(c, pos, "dim") {
        None => Some(0),
        Some(e) => usize::try_from(e.as_int()?).ok()?.checked_sub(1),
    }
}

impl<'a> Reindex<'a> {
    /// The call as an element-moving intrinsic, if it is one this module rewrites.
    pub fn of(c: &'a Call, shapes: &dyn Shapes) -> Option<Reindex<'a>> {
        let scalar = |e: &Expr| rank(e, shapes) == 0;
        Some(match c.name.as_str() {
            "transpose" => Reindex::Transpose {
                matrix: arg(c, 0, "matrix")?,
            },
            "spread" => Reindex::Spread {
                source: arg(c, 0, "source")?,
                dim: dim(c, 1)?,
            },
            "cshift" => Reindex::Cshift {
                array: arg(c, 0, "array")?,
                shift: arg(c, 1, "shift").filter(|s| scalar(s))?,
                dim: dim(c, 2)?,
            },
            "eoshift" => Reindex::Eoshift {
                array: arg(c, 0, "array")?,
                shift: arg(c, 1, "shift").filter(|s| scalar(s))?,
                boundary: arg(c, 2, "boundary"),
                dim: dim(c, 3)?,
            },
            _ => return None,
        })
    }

    /// The rank of the result.
    pub fn rank(&self, shapes: &dyn Shapes) -> usize {
        match self {
            Reindex::Transpose { .. } => 2,
            Reindex::Spread { source, .. } => rank(source, shapes) + 1,
            Reindex::Cshift { array, .. } | Reindex::Eoshift { array, .. } => rank(array, shapes),
        }
    }

    /// The result's element at the loop indices of `space`.
    pub fn element(&self, space: &[LoopDim], shapes: &dyn Shapes) -> Result<Expr, String> {
        match self {
            Reindex::Transpose { matrix } => match space {
                [i, j] => elemental(matrix, &[j.clone(), i.clone()], shapes),
                _ => Err(format!(
                    "TRANSPOSE has rank 2, the assignment {}",
                    space.len()
                )),
            },
            Reindex::Spread { source, dim } => {
                if *dim >= space.len() {
                    return Err(format!(
                        "SPREAD along dimension {} of {}",
                        dim + 1,
                        space.len()
                    ));
                }
                let mut rest = space.to_vec();
                rest.remove(*dim);
                elemental(source, &rest, shapes)
            }
            Reindex::Cshift { array, shift, dim } => {
                let l = loop_of(space, *dim, "CSHIFT")?;
                let offset = Affine::of(&Expr::name(l.var.clone()))
                    .plus(&Affine::of(&l.lower), -1)
                    .and_then(|a| a.plus(&Affine::of(&steps(shift, l)), 1))
                    .ok_or("a shift too large")?;
                let wrapped = Expr::call("modulo", vec![offset.to_expr(), period(l)]);
                let at = Expr::binary(BinaryOp::Add, l.lower.clone(), wrapped);
                Ok(moved(elemental(array, space, shapes)?, &l.var, &at))
            }
            Reindex::Eoshift {
                array,
                shift,
                boundary,
                dim,
            } => {
                let l = loop_of(space, *dim, "EOSHIFT")?;
                let at = Affine::of(&Expr::name(l.var.clone()))
                    .plus(&Affine::of(&steps(shift, l)), 1)
                    .ok_or("a shift too large")?
                    .to_expr();
                let moved = moved(elemental(array, space, shapes)?, &l.var, &at);
                let (first, last) = match l.stride.as_ref().and_then(Expr::as_int) {
                    Some(s) if s < 0 => (&l.upper, &l.lower),
                    _ => (&l.lower, &l.upper),
                };
                let inside = Expr::binary(
                    BinaryOp::And,
                    Expr::binary(BinaryOp::Le, first.clone(), at.clone()),
                    Expr::binary(BinaryOp::Le, at, last.clone()),
                );
                let fill = match boundary {
                    Some(b) => elemental(b, space, shapes)?,
                    None => Expr::Int(0),
                };
                Ok(Expr::call("merge", vec![moved, fill, inside]))
            }
        }
    }
}

/// `e` with the loop variable `var` moved to `at`, subscripts simplified again
/// (`a($1 - 1)` moved by −1 is `a($1 - 2)`).
fn moved(e: Expr, var: &str, at: &Expr) -> Expr {
    e.replace(&Expr::name(var), at).map(&mut |x| match x {
        Expr::Array(mut a) => {
            for s in &mut a.subscripts {
                if let Subscript::Index(i) = s {
                    *i = Affine::of(i).to_expr();
                }
            }
            Expr::Array(a)
        }
        x => x,
    })
}

/// The loop of dimension `dim` of the result.
fn loop_of<'s>(space: &'s [LoopDim], dim: usize, what: &str) -> Result<&'s LoopDim, String> {
    space.get(dim).ok_or_else(|| {
        format!(
            "{what} along dimension {} of a rank-{} assignment",
            dim + 1,
            space.len()
        )
    })
}

/// `shift · stride`: how far the loop variable moves.
fn steps(shift: &Expr, l: &LoopDim) -> Expr {
    match &l.stride {
        Some(st) if st.as_int() != Some(1) => {
            Expr::binary(BinaryOp::Mul, shift.clone(), st.clone())
        }
        _ => shift.clone(),
    }
}

/// The loop's extent times its stride: `hi - lo + 1` for unit stride, else
/// `((hi - lo)/st + 1)·st`.
fn period(l: &LoopDim) -> Expr {
    let span = Affine::of(&l.upper).plus(&Affine::of(&l.lower), -1);
    match &l.stride {
        Some(st) if st.as_int() != Some(1) => {
            let diff = span.map_or_else(
                || Expr::binary(BinaryOp::Sub, l.upper.clone(), l.lower.clone()),
                |a| a.to_expr(),
            );
            let ext = Expr::binary(
                BinaryOp::Add,
                Expr::binary(BinaryOp::Div, diff, st.clone()),
                Expr::Int(1),
            );
            Expr::binary(BinaryOp::Mul, ext, st.clone())
        }
        _ => span
            .and_then(|a| a.plus(&Affine::of(&Expr::Int(1)), 1))
            .map_or_else(
                || {
                    Expr::binary(
                        BinaryOp::Add,
                        Expr::binary(BinaryOp::Sub, l.upper.clone(), l.lower.clone()),
                        Expr::Int(1),
                    )
                },
                |a| a.to_expr(),
            ),
    }
}
