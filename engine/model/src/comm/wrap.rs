//! Wrapped subscripts (`a(modulo(i, n) + 1)`, CSHIFT's element) as affine pieces.
//!
//! `modulo(x, m)` with `m > 0` is `x - k·m` on the piece `k·m <= x <= k·m + m - 1`;
//! Fortran's `mod(x, m)` is `x` on `-(m-1) <= x <= m-1` and `x ∓ m` one period out. The
//! pieces `k = -1, 0, 1` cover every argument within a period of the range, which is
//! all a circular shift by at most its extent produces; two remainder pieces cover
//! anything farther out with the quotient as a variable `$w` (`x - m·$w` with
//! `0 <= x - m·$w <= m - 1`), so nothing is dropped (they are counted element by
//! element, and are empty for shifts). Each piece's subscripts are affine again, so
//! the symbolic counts apply to shifts.

use crate::freq::convert::Scope;
use costline_symbolic::{Constraint, Name, Rational, Sym};
use costline_syntax::ir::{BinaryOp, Expr};

/// At most this many wrapped calls per reference are split (3⁺² pieces each); the rest
/// keep their floor form.
const MAX_WRAPS: usize = 2;

/// One piece of a reference: its subscripts and the constraints that select it.
#[derive(Clone, Debug, Default)]
pub struct Piece {
    pub subscripts: Vec<Expr>,
    pub constraints: Vec<Constraint>,
    /// The quotients a remainder piece counts over.
    pub vars: Vec<Name>,
}

/// The pieces of a reference with subscripts `subs` (the reference itself, one piece,
/// when nothing wraps).
pub fn pieces(subs: &[Expr], scope: &Scope) -> Vec<Piece> {
    let mut out = vec![Piece {
        subscripts: subs.to_vec(),
        constraints: Vec::new(),
        vars: Vec::new(),
    }];
    for w in 1..=MAX_WRAPS {
        let Some(call) = out[0].subscripts.iter().find_map(|s| wrapped(s, scope)) else {
            break;
        };
        let quotient: Name = format!("$w{w}").as_str().into();
        let Some(split) = split(&call, &quotient, scope) else {
            break;
        };
        out = out
            .into_iter()
            .flat_map(|p| {
                let call = &call;
                split.iter().map(move |(with, cons, var)| Piece {
                    subscripts: p.subscripts.iter().map(|s| s.replace(call, with)).collect(),
                    constraints: p.constraints.iter().chain(cons).cloned().collect(),
                    vars: p.vars.iter().chain(var).cloned().collect(),
                })
            })
            .collect();
    }
    out
}

/// The first `modulo(x, m)` or `mod(x, m)` in `e` whose operands are integer
/// expressions the counts understand.
fn wrapped(e: &Expr, scope: &Scope) -> Option<Expr> {
    let mut found = None;
    e.visit(&mut |x| {
        if found.is_none()
            && let Expr::Call(c) = x
            && matches!(c.name.as_str(), "modulo" | "mod")
            && c.args.len() == 2
            && c.args.iter().all(|a| scope.sym(&a.value).is_ok())
        {
            found = Some(x.clone());
        }
    });
    found
}

/// The replacements of the call `modulo(x, m)` (or `mod`), their constraints and the
/// quotient variable of the remainder pieces.
type Split = Vec<(Expr, Vec<Constraint>, Option<Name>)>;

fn split(call: &Expr, quotient: &Name, scope: &Scope) -> Option<Split> {
    let Expr::Call(c) = call else { return None };
    let (x, m) = (&c.args[0].value, &c.args[1].value);
    if m.as_int().is_some_and(|v| v <= 0) {
        return None;
    }
    let (xs, ms) = (scope.sym(x).ok()?, scope.sym(m).ok()?);
    let km = |k: i128| ms.scale(Rational::int(k));
    let at_least = |lo: Sym| Constraint::ge(&xs, &lo).ok();
    let at_most = |hi: Sym| Constraint::le(&xs, &hi).ok();
    let minus = |k: Expr| {
        Expr::binary(
            BinaryOp::Sub,
            x.clone(),
            Expr::binary(BinaryOp::Mul, k, m.clone()),
        )
    };
    let shifted = |k: i64| match k {
        0 => x.clone(),
        k => minus(Expr::Int(k)),
    };
    // (k, lowest x, highest x) of each piece, in multiples of m plus a constant.
    let modulo = c.name == "modulo";
    let mut out = Vec::with_capacity(5);
    for k in [-1i64, 0, 1] {
        let (lo, hi) = if modulo {
            (
                km(k.into()).ok()?,
                km(k as i128 + 1).ok()?.add_int(-1).ok()?,
            )
        } else {
            match k {
                -1 => (km(-2).ok()?.add_int(1).ok()?, km(-1).ok()?),
                0 => (km(-1).ok()?.add_int(1).ok()?, km(1).ok()?.add_int(-1).ok()?),
                _ => (km(1).ok()?, km(2).ok()?.add_int(-1).ok()?),
            }
        };
        out.push((shifted(k), vec![at_least(lo)?, at_most(hi)?], None));
    }
    // Farther out: x - m·$w with the remainder in range (MOD's has x's sign).
    let rem = xs.sub(&ms.mul(&Sym::var(quotient)).ok()?).ok()?;
    let zero = Sym::int(0);
    let m1 = ms.add_int(-1).ok()?;
    // m >= 1 too: a zero modulus leaves the quotient unbounded.
    let in_range = |lo: &Sym, hi: &Sym| -> Option<Vec<Constraint>> {
        Some(vec![
            Constraint::ge(&ms, &Sym::int(1)).ok()?,
            Constraint::ge(&rem, lo).ok()?,
            Constraint::le(&rem, hi).ok()?,
        ])
    };
    let with = minus(Expr::name(quotient.to_string()));
    let (below, above) = if modulo {
        (km(-1).ok()?.add_int(-1).ok()?, km(2).ok()?)
    } else {
        (km(-2).ok()?, km(2).ok()?)
    };
    let below_rem = if modulo {
        in_range(&zero, &m1)?
    } else {
        in_range(&m1.neg().ok()?, &zero)?
    };
    let mut low = vec![at_most(below)?];
    low.extend(below_rem);
    let mut high = vec![at_least(above)?];
    high.extend(in_range(&zero, &m1)?);
    out.push((with.clone(), low, Some(quotient.clone())));
    out.push((with, high, Some(quotient.clone())));
    Some(out)
}
