//! Normalization of Fortran 90 / HPF data-parallel statements into equivalent loop
//! nests over elemental assignments, as the HPF/Fortran 90D interpreter does (array
//! assignments and WHERE become FORALLs, FORALLs become loop nests):
//!
//! - `a(2:n) = b(1:n-1) + c` → `do $1 = 2, n: a($1) = b($1 - 1) + c`
//! - `where (x > 0) x = 1/x` → `do $1: if (x($1) > 0) x($1) = 1/x($1)`
//! - `forall (i = 1:n, j = 1:m, m(i,j) /= 0) a(i,j) = b(j,i)` → a two-deep nest with an IF.
//!
//! Array-syntax loops run the first dimension innermost (the scalarization order of
//! Fortran compilers, which follows column-major storage); FORALL loops nest in the
//! order their indices are written. Every synthetic loop carries the source range of
//! the construct it came from. TRANSPOSE, SPREAD, CSHIFT and EOSHIFT only move
//! elements: they become the element they move ([`reindex`]). Array arguments of the
//! other transformational intrinsics (`SUM(a(1:n))`, `MATMUL(x, y)`) are left as
//! sections.

pub mod affine;
mod reindex;

use crate::ir::intrinsics::{IntrinsicClass, intrinsic_class};
use crate::ir::{
    ArrayRef, BinaryOp, Bound, Branch, Dim, Expr, If, Loop, LoopControl, LoopOrigin, Stmt, StmtId,
    StmtKind, Subscript, Triplet, UnaryOp,
};
use crate::span::Span;
use affine::Affine;
use reindex::Reindex;

/// Declared array shapes, as far as the unit knows them.
pub trait Shapes {
    /// The declared dimensions of `name`, if it is a known array.
    fn dims(&self, name: &str) -> Option<&[Dim]>;
}

/// One loop of a scalarized statement: `var = lower, upper, stride`.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopDim {
    pub var: String,
    pub lower: Expr,
    pub upper: Expr,
    pub stride: Option<Expr>,
}

/// How one subscript of a reference behaves under scalarization.
enum Sub {
    /// A scalar subscript: stays as it is.
    Fixed(Expr),
    /// A triplet with the declaration's bounds filled in.
    Section(LoopDim),
    /// A vector subscript (an integer array expression of rank 1).
    Vector(Expr),
}

/// The rank of an array-valued expression (0 for scalars).
pub fn rank(e: &Expr, shapes: &dyn Shapes) -> usize {
    match e {
        Expr::Array(r) => subscripts(r, shapes)
            .iter()
            .filter(|s| !matches!(s, Sub::Fixed(_)))
            .count(),
        Expr::Call(c) if let Some(r) = Reindex::of(c, shapes) => r.rank(shapes),
        Expr::Call(c) if is_elemental(&c.name) => c
            .args
            .iter()
            .map(|a| rank(&a.value, shapes))
            .max()
            .unwrap_or(0),
        Expr::Unary(_, a) => rank(a, shapes),
        Expr::Binary(_, a, b) => rank(a, shapes).max(rank(b, shapes)),
        _ => 0,
    }
}

fn is_elemental(name: &str) -> bool {
    intrinsic_class(name) == Some(IntrinsicClass::Elemental)
}

/// The subscripts of `r` with whole-array and defaulted bounds made explicit.
fn subscripts(r: &ArrayRef, shapes: &dyn Shapes) -> Vec<Sub> {
    let dims = shapes.dims(&r.name);
    if r.subscripts.is_empty() {
        // A whole array: every declared dimension is a full section.
        let rank = dims.map_or(0, <[Dim]>::len);
        return (0..rank)
            .map(|k| Sub::Section(full_dim(r, dims, k, &Triplet::default())))
            .collect();
    }
    r.subscripts
        .iter()
        .enumerate()
        .map(|(k, s)| match s {
            Subscript::Range(t) => Sub::Section(full_dim(r, dims, k, t)),
            Subscript::Index(e) if rank(e, shapes) > 0 => Sub::Vector(e.clone()),
            Subscript::Index(e) => Sub::Fixed(e.clone()),
        })
        .collect()
}

/// A triplet of dimension `k` of `r` with omitted bounds taken from the declaration
/// (or `LBOUND`/`UBOUND` when the declaration does not give them).
fn full_dim(r: &ArrayRef, dims: Option<&[Dim]>, k: usize, t: &Triplet) -> LoopDim {
    let dim = dims.and_then(|d| d.get(k));
    let inquiry = |f: &str| {
        Expr::Call(crate::ir::Call {
            name: f.into(),
            args: vec![
                crate::ir::Arg {
                    keyword: None,
                    value: Expr::name(r.name.clone()),
                },
                crate::ir::Arg {
                    keyword: None,
                    value: Expr::Int(k as i64 + 1),
                },
            ],
            span: r.span,
        })
    };
    let lower = t.lower.clone().unwrap_or_else(|| match dim {
        Some(d) => d.lower_expr(),
        None => inquiry("lbound"),
    });
    let upper = t
        .upper
        .clone()
        .unwrap_or_else(|| match dim.map(|d| &d.upper) {
            Some(Bound::Explicit(e)) => e.clone(),
            _ => inquiry("ubound"),
        });
    LoopDim {
        var: String::new(),
        lower,
        upper,
        stride: t.stride.clone(),
    }
}

/// Scalarizes `lhs = rhs` (under `mask`, for WHERE) where `lhs` is an array section
/// or a whole array: a loop nest over the left-hand side's index space whose body
/// assigns one element. Errors (as a message) when the operands do not conform.
pub fn scalarize(
    lhs: &ArrayRef,
    rhs: &Expr,
    mask: Option<&Expr>,
    origin: LoopOrigin,
    span: Span,
    shapes: &dyn Shapes,
) -> Result<Stmt, String> {
    let mut space = Vec::new();
    let mut subs = Vec::new();
    for sub in subscripts(lhs, shapes) {
        match sub {
            Sub::Fixed(e) => subs.push(Subscript::Index(e)),
            Sub::Section(mut d) => {
                d.var = format!("${}", space.len() + 1);
                subs.push(Subscript::Index(Expr::name(d.var.clone())));
                space.push(d);
            }
            Sub::Vector(v) => {
                // Loop over the vector's own index space; the subscript is its element.
                let Some(Sub::Section(mut d)) = vector_dim(&v, shapes) else {
                    return Err(format!(
                        "vector subscript `{v}` is not a rank-1 array section"
                    ));
                };
                d.var = format!("${}", space.len() + 1);
                let dim = std::slice::from_ref(&d);
                subs.push(Subscript::Index(elemental(&v, dim, shapes)?));
                space.push(d);
            }
        }
    }
    let element = Expr::Array(ArrayRef {
        name: lhs.name.clone(),
        subscripts: subs,
        span: lhs.span,
    });
    let mut body = stmt(
        span,
        StmtKind::Assign {
            lhs: element,
            rhs: elemental(rhs, &space, shapes)?,
        },
    );
    if let Some(m) = mask {
        body = guarded(elemental(m, &space, shapes)?, body, span);
    }
    Ok(nest(&space, origin, body, span, true))
}

/// The loop dimension of a rank-1 vector subscript (the section of its one array).
fn vector_dim(v: &Expr, shapes: &dyn Shapes) -> Option<Sub> {
    let mut found = None;
    v.visit(&mut |e| {
        if found.is_none()
            && let Expr::Array(r) = e
        {
            found = subscripts(r, shapes)
                .into_iter()
                .find(|s| matches!(s, Sub::Section(_)));
        }
    });
    found
}

/// Rewrites an array-valued expression as its element at the loop indices of
/// `space`: each section dimension of each operand maps, in order, to one loop.
pub fn elemental(e: &Expr, space: &[LoopDim], shapes: &dyn Shapes) -> Result<Expr, String> {
    Ok(match e {
        Expr::Array(r) => {
            let subs = subscripts(r, shapes);
            let sections = subs.iter().filter(|s| !matches!(s, Sub::Fixed(_))).count();
            if sections == 0 {
                return Ok(e.clone());
            }
            if sections != space.len() {
                return Err(format!(
                    "`{r}` has rank {sections} but the assignment has rank {}",
                    space.len()
                ));
            }
            let mut loops = space.iter();
            let mut out = Vec::with_capacity(subs.len());
            for s in subs {
                out.push(Subscript::Index(match s {
                    Sub::Fixed(e) => e,
                    Sub::Section(d) => map_index(&d, loops.next().expect("counted above")),
                    Sub::Vector(v) => {
                        let l = loops.next().expect("counted above");
                        elemental(&v, std::slice::from_ref(l), shapes)?
                    }
                }));
            }
            Expr::Array(ArrayRef {
                name: r.name.clone(),
                subscripts: out,
                span: r.span,
            })
        }
        Expr::Call(c) if let Some(r) = Reindex::of(c, shapes) => r.element(space, shapes)?,
        Expr::Call(c) if is_elemental(&c.name) => {
            let mut c = c.clone();
            for a in &mut c.args {
                a.value = elemental(&a.value, space, shapes)?;
            }
            Expr::Call(c)
        }
        Expr::Unary(op, a) => Expr::Unary(*op, Box::new(elemental(a, space, shapes)?)),
        Expr::Binary(op, a, b) => Expr::binary(
            *op,
            elemental(a, space, shapes)?,
            elemental(b, space, shapes)?,
        ),
        _ => e.clone(),
    })
}

/// The subscript of section dimension `d` when the loop `l` is at its index:
/// `d.lower + (l.var - l.lower) / l.stride * d.stride` (the division is exact: the
/// loop only visits `l.lower + t * l.stride`).
fn map_index(d: &LoopDim, l: &LoopDim) -> Expr {
    let var = Expr::name(l.var.clone());
    let offset = Affine::of(&var).plus(&Affine::of(&l.lower), -1);
    let int_stride = |s: &Option<Expr>| s.as_ref().map_or(Some(1), Expr::as_int);
    let (ls, ds) = (int_stride(&l.stride), int_stride(&d.stride));
    let steps = if l.stride == d.stride || (ls.is_some() && ls == ds) {
        offset
    } else if ls == Some(1) {
        match (offset, ds) {
            (Some(o), Some(b)) => o.scaled(b),
            (o, _) => {
                let o = o.map_or_else(
                    || Expr::binary(BinaryOp::Sub, var, l.lower.clone()),
                    |o| o.to_expr(),
                );
                Some(Affine::of(&times(o, &d.stride)))
            }
        }
    } else {
        let o = offset.map_or_else(
            || Expr::binary(BinaryOp::Sub, var, l.lower.clone()),
            |o| o.to_expr(),
        );
        let count = Expr::binary(BinaryOp::Div, o, l.stride.clone().unwrap_or(Expr::Int(1)));
        Some(Affine::of(&times(count, &d.stride)))
    };
    match steps.and_then(|s| Affine::of(&d.lower).plus(&s, 1)) {
        Some(a) => a.to_expr(),
        // Only on overflow of a constant: the unsimplified formula.
        None => {
            let offset = Expr::binary(BinaryOp::Sub, Expr::name(l.var.clone()), l.lower.clone());
            let count = Expr::binary(
                BinaryOp::Div,
                offset,
                l.stride.clone().unwrap_or(Expr::Int(1)),
            );
            Expr::binary(BinaryOp::Add, d.lower.clone(), times(count, &d.stride))
        }
    }
}

/// `e * stride`, or just `e` for a unit stride.
fn times(e: Expr, stride: &Option<Expr>) -> Expr {
    match stride {
        None => e,
        Some(s) if s.as_int() == Some(1) => e,
        Some(s) => Expr::binary(BinaryOp::Mul, e, s.clone()),
    }
}

/// `body` inside counted loops over `space`. With `first_innermost` the first dimension
/// is the innermost loop (array syntax), otherwise the outermost (FORALL).
pub fn nest(
    space: &[LoopDim],
    origin: LoopOrigin,
    body: Stmt,
    span: Span,
    first_innermost: bool,
) -> Stmt {
    let order: Box<dyn Iterator<Item = &LoopDim>> = if first_innermost {
        Box::new(space.iter())
    } else {
        Box::new(space.iter().rev())
    };
    order.fold(body, |inner, d| {
        stmt(
            span,
            StmtKind::Loop(Loop {
                origin,
                control: LoopControl::Counted {
                    var: d.var.clone(),
                    lower: d.lower.clone(),
                    upper: d.upper.clone(),
                    step: d.stride.clone(),
                },
                body: vec![inner],
                construct: None,
                independent: None,
                header: span,
            }),
        )
    })
}

/// `IF (cond) body`.
pub fn guarded(cond: Expr, body: Stmt, span: Span) -> Stmt {
    stmt(
        span,
        StmtKind::If(If {
            branches: vec![Branch {
                cond: Some(cond),
                body: vec![body],
                span,
            }],
        }),
    )
}

/// The masks of a WHERE construct's clauses, combined so that each clause runs where
/// no earlier clause did: `m1`, `.not. m1 .and. m2`, ..., and `.not. (m1 .or. m2)`
/// for a final ELSEWHERE without mask.
pub fn where_masks(masks: &[Option<Expr>]) -> Vec<Expr> {
    let mut out = Vec::with_capacity(masks.len());
    let mut earlier: Option<Expr> = None;
    for m in masks {
        let negated = earlier
            .clone()
            .map(|e| Expr::Unary(UnaryOp::Not, Box::new(e)));
        let this = match (negated, m.clone()) {
            (None, Some(m)) => m,
            (Some(n), Some(m)) => Expr::binary(BinaryOp::And, n, m),
            (Some(n), None) => n,
            (None, None) => Expr::Logical(true),
        };
        out.push(this);
        if let Some(m) = m {
            earlier = Some(match earlier {
                None => m.clone(),
                Some(e) => Expr::binary(BinaryOp::Or, e, m.clone()),
            });
        }
    }
    out
}

fn stmt(span: Span, kind: StmtKind) -> Stmt {
    Stmt {
        id: StmtId(0),
        span,
        label: None,
        kind,
    }
}

#[cfg(test)]
mod tests;
