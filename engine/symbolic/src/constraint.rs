//! Constraints over integer unknowns, normalized to `e >= 0` or `e = 0` (P^3T+
//! equation (1): coefficients may be polynomials in the parameters).

use super::interval::{AtomBounds, Interval};
use super::rational::Rational;
use super::sym::{Sym, SymError};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rel {
    /// `expr >= 0`
    Ge,
    /// `expr = 0`
    Eq,
    /// `expr > 0`, kept only when `expr` is not integer-valued (otherwise `expr - 1 >= 0`).
    Gt,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Constraint {
    pub expr: Sym,
    pub rel: Rel,
}

impl Constraint {
    /// `a >= b`
    pub fn ge(a: &Sym, b: &Sym) -> Result<Constraint, SymError> {
        Ok(Constraint {
            expr: a.sub(b)?,
            rel: Rel::Ge,
        })
    }

    /// `a <= b`
    pub fn le(a: &Sym, b: &Sym) -> Result<Constraint, SymError> {
        Constraint::ge(b, a)
    }

    /// `a > b`
    pub fn gt(a: &Sym, b: &Sym) -> Result<Constraint, SymError> {
        Constraint {
            expr: a.sub(b)?,
            rel: Rel::Gt,
        }
        .normalized()
    }

    /// `a < b`
    pub fn lt(a: &Sym, b: &Sym) -> Result<Constraint, SymError> {
        Constraint::gt(b, a)
    }

    /// `a = b`
    pub fn eq(a: &Sym, b: &Sym) -> Result<Constraint, SymError> {
        Ok(Constraint {
            expr: a.sub(b)?,
            rel: Rel::Eq,
        })
    }

    /// The negation, as a disjunction of constraints (two for `=`: `<` or `>`).
    pub fn negated(&self) -> Result<Vec<Constraint>, SymError> {
        let neg = self.expr.neg()?;
        Ok(match self.rel {
            Rel::Ge => vec![
                Constraint {
                    expr: neg,
                    rel: Rel::Gt,
                }
                .normalized()?,
            ],
            Rel::Gt => vec![Constraint {
                expr: neg,
                rel: Rel::Ge,
            }],
            Rel::Eq => vec![
                Constraint {
                    expr: self.expr.clone(),
                    rel: Rel::Gt,
                }
                .normalized()?,
                Constraint {
                    expr: neg,
                    rel: Rel::Gt,
                }
                .normalized()?,
            ],
        })
    }

    /// Integer normalization: integer coefficients with no common factor, the
    /// constant rounded toward feasibility (`2i - 3 >= 0` → `i - 2 >= 0`), strict
    /// inequalities of integers made non-strict. Equalities that no integers satisfy
    /// become the constant `-1 >= 0`.
    pub fn normalized(self) -> Result<Constraint, SymError> {
        let Constraint { expr, rel } = self;
        if !expr.is_integer_valued_after_scaling() {
            return Ok(Constraint { expr, rel });
        }
        let (_, den) = expr.content();
        let expr = expr.scale(Rational::int(den))?;
        let expr = if rel == Rel::Gt {
            expr.add_int(-1)?
        } else {
            expr
        };
        let rel = if rel == Rel::Gt { Rel::Ge } else { rel };
        // gcd of the non-constant coefficients.
        let mut g = 0i128;
        for t in expr.terms() {
            if !t.mono.is_one() {
                g = crate::integer::gcd(g, t.coef.num());
            }
        }
        if g <= 1 {
            return Ok(Constraint { expr, rel });
        }
        let c = expr.constant();
        let linear = expr
            .sub(&Sym::rat(c))?
            .scale(Rational::new(1, g).ok_or(SymError::DivisionByZero)?)?;
        let c = c.as_integer().unwrap_or(0);
        let constant = match rel {
            Rel::Ge => c.div_euclid(g),
            Rel::Eq if c % g == 0 => c / g,
            // g·x + c = 0 has no integer solution.
            Rel::Eq => {
                return Ok(Constraint {
                    expr: Sym::int(-1),
                    rel: Rel::Ge,
                });
            }
            Rel::Gt => unreachable!("made non-strict above"),
        };
        Ok(Constraint {
            expr: linear.add_int(constant)?,
            rel,
        })
    }

    /// The truth of a constraint without unknowns.
    pub fn truth(&self) -> Option<bool> {
        let c = self.expr.as_const()?;
        Some(match self.rel {
            Rel::Ge => c.signum() >= 0,
            Rel::Gt => c.signum() > 0,
            Rel::Eq => c.is_zero(),
        })
    }

    /// The truth decided from bounds of the unknowns, when the bounds decide it.
    pub fn decide(&self, bounds: AtomBounds) -> Option<bool> {
        if let Some(t) = self.truth() {
            return Some(t);
        }
        let iv: Interval = self.expr.interval(bounds);
        match self.rel {
            Rel::Ge if iv.nonneg() => Some(true),
            Rel::Ge if iv.negative() => Some(false),
            Rel::Gt if iv.lo.signum() > 0 => Some(true),
            Rel::Gt if iv.hi.signum() <= 0 => Some(false),
            Rel::Eq if iv.is_zero() => Some(true),
            Rel::Eq if !iv.contains_zero() => Some(false),
            _ => None,
        }
    }

    pub fn mentions(&self, name: &str) -> bool {
        self.expr.mentions(name)
    }

    pub fn subst(&self, v: &str, value: &Sym) -> Result<Constraint, SymError> {
        Constraint {
            expr: self.expr.subst(v, value)?,
            rel: self.rel,
        }
        .normalized()
    }

    /// Whether the constraint holds under `env`.
    pub fn eval(&self, env: super::eval::Env) -> Result<bool, super::eval::EvalError> {
        let v = self.expr.eval(env)?;
        let sign = match v {
            super::eval::Num::Exact(r) => r.signum(),
            super::eval::Num::Approx(f) => {
                if f > 0.0 {
                    1
                } else if f < 0.0 {
                    -1
                } else {
                    0
                }
            }
        };
        Ok(match self.rel {
            Rel::Ge => sign >= 0,
            Rel::Gt => sign > 0,
            Rel::Eq => sign == 0,
        })
    }

    /// `lhs op rhs` with the terms of positive sign on the left: `n - i >= 0` prints
    /// as `n >= i`.
    pub fn display(&self, n: super::display::Notation) -> String {
        let op = match (self.rel, n) {
            (Rel::Ge, super::display::Notation::Fortran) => ">=",
            (Rel::Ge, super::display::Notation::Math) => "≥",
            (Rel::Gt, _) => ">",
            (Rel::Eq, _) => "=",
        };
        let (mut pos, mut neg) = (Sym::zero(), Sym::zero());
        for t in self.expr.terms() {
            let term = Sym::from_term(t);
            // Both sums stay in range: they add the terms of one expression.
            if t.coef.signum() < 0 {
                neg = neg.sub(&term).unwrap_or(neg);
            } else {
                pos = pos.add(&term).unwrap_or(pos);
            }
        }
        format!("{} {op} {}", pos.display(n), neg.display(n))
    }
}

impl Sym {
    /// Whether a rational multiple of the expression is integer-valued (its atoms are).
    fn is_integer_valued_after_scaling(&self) -> bool {
        let (_, den) = self.content();
        self.scale(Rational::int(den.max(1)))
            .is_ok_and(|s| s.is_integer_valued())
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display(super::display::Notation::Fortran))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Sym {
        Sym::var(s)
    }

    #[test]
    fn integer_normalization_tightens() {
        // 2i - 3 >= 0  →  i - 2 >= 0
        let c = Constraint::ge(&v("i").scale(Rational::int(2)).unwrap(), &Sym::int(3))
            .unwrap()
            .normalized()
            .unwrap();
        assert_eq!(c.to_string(), "i >= 2");
        // i < n  →  n - i - 1 >= 0
        let c = Constraint::lt(&v("i"), &v("n")).unwrap();
        assert_eq!(c.to_string(), "n >= i + 1");
        // 2i = 3 has no integer solution
        let c = Constraint::eq(&v("i").scale(Rational::int(2)).unwrap(), &Sym::int(3))
            .unwrap()
            .normalized()
            .unwrap();
        assert_eq!(c.truth(), Some(false));
        // i/2 >= 1 → i - 2 >= 0
        let c = Constraint::ge(
            &v("i").scale(Rational::new(1, 2).unwrap()).unwrap(),
            &Sym::one(),
        )
        .unwrap()
        .normalized()
        .unwrap();
        assert_eq!(c.to_string(), "i >= 2");
    }

    #[test]
    fn negation_is_exact_for_integers() {
        let c = Constraint::le(&v("j"), &v("n")).unwrap();
        let n = c.negated().unwrap();
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].to_string(), "j >= n + 1");
        let e = Constraint::eq(&v("i"), &Sym::int(3))
            .unwrap()
            .negated()
            .unwrap();
        let shown: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["i >= 4", "2 >= i"]);
    }
}
