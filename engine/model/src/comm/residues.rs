//! A count's term split on the residue classes of its loop variables: where the
//! subscripts or bounds hold `MOD(v, c)` (the red points' `DO I = 2 + MOD(J, 2), N - 1, 2`),
//! each class `v = c·v' + r` gives a piece in which `MOD(v, c)` is the number `r`. The
//! pieces are disjoint and cover the term; each is affine where the term was affine but
//! for the modulus, so the symbolic route ([`super::records`]) counts them per pair of
//! processors instead of enumerating the term element by element.

use super::CommTerm;
use costline_symbolic::{Constraint, Name, Rel, Sym, lcm};

/// The most pieces a term is split into.
const MAX_PIECES: i128 = 16;

/// The term's pieces on the residue classes of every loop variable that occurs under a
/// constant modulus (the least common multiple of its moduli, when the pieces number at
/// most [`MAX_PIECES`] and the variable is non-negative, where Fortran's truncating MOD
/// is the residue); `None` when there is nothing to split.
pub(super) fn split(t: &CommTerm) -> Option<Vec<CommTerm>> {
    let mut pieces = vec![t.clone()];
    for v in t.vars.iter().filter(|v| !v.starts_with('$')) {
        let c = modulus(t, v)?;
        let Some(c) = c else { continue };
        if (pieces.len() as i128).saturating_mul(c) > MAX_PIECES || !non_negative(t, v) {
            continue;
        }
        pieces = pieces
            .iter()
            .flat_map(|p| (0..c).map(move |r| on_residue(p, v, c, r)))
            .collect::<Option<_>>()?;
    }
    (pieces.len() > 1).then_some(pieces)
}

/// The least common multiple of the constant moduli `v` occurs under, if any (`None`
/// when it overflows).
fn modulus(t: &CommTerm, v: &Name) -> Option<Option<i128>> {
    let moduli = t
        .subscripts
        .iter()
        .chain(t.constraints.iter().map(|c| &c.expr))
        .flat_map(|s| s.moduli_of(v));
    let mut c = None;
    for m in moduli {
        c = Some(lcm(c.unwrap_or(1), m)?);
    }
    Some(c)
}

/// Whether a constraint says `v ≥ k` for a number `k ≥ 0`.
fn non_negative(t: &CommTerm, v: &Name) -> bool {
    t.constraints.iter().any(|c| {
        matches!(c.rel, Rel::Ge | Rel::Gt)
            && match c.expr.poly_in(v).as_deref() {
                Some([rest, one]) => {
                    one.as_int() == Some(1) && rest.as_const().is_some_and(|k| k.signum() <= 0)
                }
                _ => false,
            }
    })
}

/// The piece of `t` on the class `v = c·v' + r`.
fn on_residue(t: &CommTerm, v: &Name, c: i128, r: i128) -> Option<CommTerm> {
    Some(CommTerm {
        weight: t.weight,
        constraints: t
            .constraints
            .iter()
            .map(|k| k.on_residue(v, c, r))
            .collect::<Result<Vec<Constraint>, _>>()
            .ok()?,
        vars: t.vars.clone(),
        subscripts: t
            .subscripts
            .iter()
            .map(|s| s.on_residue(v, c, r))
            .collect::<Result<Vec<Sym>, _>>()
            .ok()?,
    })
}
