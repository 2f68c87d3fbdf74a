//! Evaluating a symbolic expression under bindings of its unknowns: exactly in
//! rationals, or, when an exact value overflows `i128`, in `f64` (said so).

use super::rational::Rational;
use super::sym::{Atom, Sym};
use std::fmt;

/// A value: exact, or a float when the exact value did not fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Exact(Rational),
    Approx(f64),
}

impl Num {
    pub fn to_f64(self) -> f64 {
        match self {
            Num::Exact(r) => r.to_f64(),
            Num::Approx(f) => f,
        }
    }

    pub fn is_exact(self) -> bool {
        matches!(self, Num::Exact(_))
    }
}

impl std::ops::Add for Num {
    type Output = Num;

    /// Exact while the sum fits, a float after.
    fn add(self, o: Num) -> Num {
        if let (Num::Exact(a), Num::Exact(b)) = (self, o)
            && let Ok(c) = a.checked_add(b)
        {
            return Num::Exact(c);
        }
        Num::Approx(self.to_f64() + o.to_f64())
    }
}

impl std::ops::Mul for Num {
    type Output = Num;

    /// Exact while the product fits, a float after.
    fn mul(self, o: Num) -> Num {
        if let (Num::Exact(a), Num::Exact(b)) = (self, o)
            && let Ok(c) = a.checked_mul(b)
        {
            return Num::Exact(c);
        }
        Num::Approx(self.to_f64() * o.to_f64())
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Exact(r) => write!(f, "{r}"),
            Num::Approx(x) => write!(f, "≈{x:e}"),
        }
    }
}

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// An unknown without a binding.
    Unbound(String),
    /// A value outside the model (an array element, a function result).
    Opaque(String),
    DivisionByZero,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Unbound(n) => write!(f, "`{n}` has no value (bind it with --param {n}=...)"),
            EvalError::Opaque(t) => write!(f, "`{t}` is only known at run time"),
            EvalError::DivisionByZero => f.write_str("division by zero"),
        }
    }
}

/// The values of unknowns.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<i128>;

impl Sym {
    /// The value under `env`: exact unless an intermediate overflows `i128`.
    pub fn eval(&self, env: Env) -> Result<Num, EvalError> {
        match self.eval_exact(env) {
            Ok(Some(r)) => Ok(Num::Exact(r)),
            Ok(None) => Ok(Num::Approx(self.eval_f64(env)?)),
            Err(e) => Err(e),
        }
    }

    /// `Ok(None)` on overflow.
    fn eval_exact(&self, env: Env) -> Result<Option<Rational>, EvalError> {
        let mut sum = Rational::ZERO;
        for t in self.terms() {
            let mut v = t.coef;
            for (a, e) in t.mono.factors() {
                let Some(base) = a.eval_exact(env)? else {
                    return Ok(None);
                };
                let p = if *e >= 0 {
                    base.checked_pow(*e as u32)
                } else {
                    let inv = base.recip().ok_or(EvalError::DivisionByZero)?;
                    inv.and_then(|inv| inv.checked_pow(e.unsigned_abs()))
                };
                let Ok(p) = p else { return Ok(None) };
                let Ok(next) = v.checked_mul(p) else {
                    return Ok(None);
                };
                v = next;
            }
            let Ok(next) = sum.checked_add(v) else {
                return Ok(None);
            };
            sum = next;
        }
        Ok(Some(sum))
    }

    fn eval_f64(&self, env: Env) -> Result<f64, EvalError> {
        let mut sum = 0.0;
        for t in self.terms() {
            let mut v = t.coef.to_f64();
            for (a, e) in t.mono.factors() {
                let base = a.eval_f64(env)?;
                if base == 0.0 && *e < 0 {
                    return Err(EvalError::DivisionByZero);
                }
                v *= base.powi(*e);
            }
            sum += v;
        }
        Ok(sum)
    }
}

impl Atom {
    fn eval_exact(&self, env: Env) -> Result<Option<Rational>, EvalError> {
        let sub = |x: &Sym| x.eval_exact(env);
        let int = |r: Rational| r.as_integer();
        Ok(match self {
            Atom::Var(n) => Some(Rational::int(
                env(n).ok_or_else(|| EvalError::Unbound(n.to_string()))?,
            )),
            Atom::Opaque(t) => return Err(EvalError::Opaque(t.to_string())),
            Atom::Floor(x) => sub(x)?.map(|r| Rational::int(r.floor())),
            Atom::Group(x) => sub(x)?,
            Atom::Min(args) | Atom::Max(args) => {
                let mut best: Option<Rational> = None;
                for a in args.iter() {
                    let Some(v) = sub(a)? else { return Ok(None) };
                    best = Some(match best {
                        None => v,
                        Some(b) if matches!(self, Atom::Min(_)) => b.min(v),
                        Some(b) => b.max(v),
                    });
                }
                best
            }
            Atom::Mod(a, b) | Atom::IDiv(a, b) => {
                let (Some(a), Some(b)) = (sub(a)?, sub(b)?) else {
                    return Ok(None);
                };
                // Fortran MOD and integer division apply to integers; a non-integer
                // operand means the expression is outside the model.
                let (Some(a), Some(b)) = (int(a), int(b)) else {
                    return Err(EvalError::Opaque(format!("{self:?}")));
                };
                if b == 0 {
                    return Err(EvalError::DivisionByZero);
                }
                Some(Rational::int(if matches!(self, Atom::Mod(..)) {
                    a % b
                } else {
                    a / b
                }))
            }
            Atom::Pow(a, b) => {
                let (Some(a), Some(b)) = (sub(a)?, sub(b)?) else {
                    return Ok(None);
                };
                match int(b) {
                    Some(k) if k >= 0 => u32::try_from(k).ok().and_then(|k| a.checked_pow(k).ok()),
                    Some(k) => {
                        let inv = a.recip().ok_or(EvalError::DivisionByZero)?.ok();
                        let e = u32::try_from(k.unsigned_abs()).ok();
                        inv.zip(e).and_then(|(inv, e)| inv.checked_pow(e).ok())
                    }
                    None => None,
                }
            }
        })
    }

    fn eval_f64(&self, env: Env) -> Result<f64, EvalError> {
        let sub = |x: &Sym| x.eval_f64(env);
        Ok(match self {
            Atom::Var(n) => env(n).ok_or_else(|| EvalError::Unbound(n.to_string()))? as f64,
            Atom::Opaque(t) => return Err(EvalError::Opaque(t.to_string())),
            Atom::Floor(x) => sub(x)?.floor(),
            Atom::Group(x) => sub(x)?,
            Atom::Min(args) => args
                .iter()
                .map(sub)
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .fold(f64::INFINITY, f64::min),
            Atom::Max(args) => args
                .iter()
                .map(sub)
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .fold(f64::NEG_INFINITY, f64::max),
            Atom::Mod(a, b) => {
                let (a, b) = (sub(a)?, sub(b)?);
                if b == 0.0 {
                    return Err(EvalError::DivisionByZero);
                }
                a % b
            }
            Atom::IDiv(a, b) => {
                let (a, b) = (sub(a)?, sub(b)?);
                if b == 0.0 {
                    return Err(EvalError::DivisionByZero);
                }
                (a / b).trunc()
            }
            Atom::Pow(a, b) => sub(a)?.powf(sub(b)?),
        })
    }
}
