//! Guarded solutions of the symbolic sum: the value is `Σ_i γ(C_i)·E_i` (P^3T+
//! equations (2) and (3)), `γ(C) = 1` when every constraint of `C` holds, else 0.

use super::compiled::Compiled;
use super::constraint::{Constraint, Rel};
use super::display::Notation;
use super::eval::{Env, EvalError, Num};
use super::rational::Rational;
use super::sym::{Sym, SymError};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// A conjunction of constraints over the parameters.
    pub guard: Vec<Constraint>,
    pub value: Sym,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Piecewise {
    pub pieces: Vec<Piece>,
}

/// Drops constraints `a >= 0` implied by two others: `a = b + c + k` with `k >= 0`
/// (transitivity: `n2 >= n1` and `n1 >= 1` imply `n2 >= 1`).
fn drop_implied(guard: &mut Vec<Constraint>) -> Result<(), SymError> {
    let mut k = 0;
    while k < guard.len() {
        let mut implied = false;
        if guard[k].rel == Rel::Ge {
            'pairs: for i in 0..guard.len() {
                for j in (i + 1)..guard.len() {
                    if i == k || j == k || guard[i].rel != Rel::Ge || guard[j].rel != Rel::Ge {
                        continue;
                    }
                    let rest = guard[k].expr.sub(&guard[i].expr)?.sub(&guard[j].expr)?;
                    if rest.as_const().is_some_and(|d| d.signum() >= 0) {
                        implied = true;
                        break 'pairs;
                    }
                }
            }
        }
        if implied {
            guard.remove(k);
        } else {
            k += 1;
        }
    }
    Ok(())
}

impl Piecewise {
    /// The same value for every parameter value.
    pub fn constant(value: Sym) -> Piecewise {
        Piecewise {
            pieces: vec![Piece {
                guard: Vec::new(),
                value,
            }],
        }
    }

    pub fn zero() -> Piecewise {
        Piecewise::default()
    }

    /// `Σ γ(C_i)·E_i` under `env`. Unknowns of guards that do not hold need no value
    /// beyond what deciding the guard takes.
    pub fn eval(&self, env: Env) -> Result<Num, EvalError> {
        let mut total = Num::Exact(Rational::ZERO);
        for p in &self.pieces {
            let mut holds = true;
            for c in &p.guard {
                if !c.eval(env)? {
                    holds = false;
                    break;
                }
            }
            if holds {
                total = total + p.value.eval(env)?;
            }
        }
        Ok(total)
    }

    /// Every value multiplied by `k`.
    pub fn scale(&self, k: &Sym) -> Result<Piecewise, SymError> {
        if k.is_zero() {
            return Ok(Piecewise::zero());
        }
        let pieces = self
            .pieces
            .iter()
            .map(|p| {
                Ok(Piece {
                    guard: p.guard.clone(),
                    value: p.value.mul(k)?,
                })
            })
            .collect::<Result<_, SymError>>()?;
        Ok(Piecewise { pieces })
    }

    /// The product of two piecewise values: every pair of pieces, guards joined.
    pub fn times(&self, other: &Piecewise) -> Result<Piecewise, SymError> {
        let mut pieces = Vec::with_capacity(self.pieces.len() * other.pieces.len());
        for a in &self.pieces {
            for b in &other.pieces {
                let mut guard = a.guard.clone();
                guard.extend(b.guard.iter().cloned());
                pieces.push(Piece {
                    guard,
                    value: a.value.mul(&b.value)?,
                });
            }
        }
        Piecewise { pieces }.simplified()
    }

    /// The sum of two piecewise values.
    pub fn plus(mut self, other: Piecewise) -> Piecewise {
        self.pieces.extend(other.pieces);
        self
    }

    /// Pieces with the same guard merged, zero pieces dropped, guards sorted.
    pub fn simplified(self) -> Result<Piecewise, SymError> {
        let mut pieces: Vec<Piece> = Vec::new();
        for mut p in self.pieces {
            p.guard.sort();
            p.guard.dedup();
            drop_implied(&mut p.guard)?;
            match pieces.iter_mut().find(|q| q.guard == p.guard) {
                Some(q) => q.value = q.value.add(&p.value)?,
                None => pieces.push(p),
            }
        }
        pieces.retain(|p| !p.value.is_zero());
        Ok(Piecewise { pieces })
    }

    /// The expression when the value needs no case distinction.
    pub fn as_single(&self) -> Option<&Sym> {
        match self.pieces.as_slice() {
            [p] if p.guard.is_empty() => Some(&p.value),
            _ => None,
        }
    }

    /// The value as disjoint cases, `value if c1, c2; value if ...` (Fortran-like or
    /// mathematical notation; `0` for none): [`Piecewise::cases`] printed by
    /// [`crate::Cases::display`], or, where the cases would be too many, the sum of the pieces,
    /// `(value if c1, c2) + (value if ...)`.
    pub fn display(&self, n: Notation) -> String {
        self.cases().display(n)
    }
}

/// A [`Piecewise`] compiled for evaluation at many integer points ([`Compiled`]): the
/// guards and values read the parameters from a slice of values by position.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledPiecewise {
    pieces: Vec<(Vec<(Compiled, Rel)>, Compiled)>,
}

impl CompiledPiecewise {
    /// `p` compiled with every name at the slot `slot` gives; `None` when a guard or
    /// value has no compiled form ([`Compiled::new`]).
    pub fn new(p: &Piecewise, slot: &dyn Fn(&str) -> Option<usize>) -> Option<CompiledPiecewise> {
        let pieces = p
            .pieces
            .iter()
            .map(|piece| {
                let guard = piece
                    .guard
                    .iter()
                    .map(|c| Some((Compiled::new(&c.expr, slot)?, c.rel)))
                    .collect::<Option<Vec<_>>>()?;
                Some((guard, Compiled::new(&piece.value, slot)?))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(CompiledPiecewise { pieces })
    }

    /// `Σ γ(C_i)·E_i` at `values`, the same as [`Piecewise::eval`] (`None` on overflow).
    pub fn eval(&self, values: &[i64]) -> Option<Rational> {
        let mut total = Rational::ZERO;
        'pieces: for (guard, value) in &self.pieces {
            for (c, rel) in guard {
                // The denominator is positive: the sign is the numerator's.
                let sign = c.eval(values)?.0.signum();
                let holds = match rel {
                    Rel::Ge => sign >= 0,
                    Rel::Gt => sign > 0,
                    Rel::Eq => sign == 0,
                };
                if !holds {
                    continue 'pieces;
                }
            }
            total = total.checked_add(value.eval_rational(values)?).ok()?;
        }
        Some(total)
    }
}
