//! Guarded solutions of the symbolic sum: the value is `Σ_i γ(C_i)·E_i` (P^3T+
//! equations (2) and (3)), `γ(C) = 1` when every constraint of `C` holds, else 0.

use super::compiled::Compiled;
use super::constraint::{Constraint, Rel};
use super::display::Notation;
use super::eval::{Env, EvalError, Num};
use super::memo::SharedMemo;
use super::rational::Rational;
use super::sym::{Sym, SymError};
use std::sync::Arc;

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
fn drop_implied(guard: &mut Vec<Constraint>) {
    let mut k = 0;
    while k < guard.len() {
        if implied(guard, k) {
            guard.remove(k);
        } else {
            k += 1;
        }
    }
}

/// Whether constraint `k` of `guard` (`a >= 0`) follows from two others of it.
fn implied(guard: &[Constraint], k: usize) -> bool {
    if guard[k].rel != Rel::Ge {
        return false;
    }
    (0..guard.len()).any(|i| {
        ((i + 1)..guard.len()).any(|j| {
            i != k
                && j != k
                && guard[i].rel == Rel::Ge
                && guard[j].rel == Rel::Ge
                && exceeds_by_constant(&guard[k].expr, &guard[i].expr, &guard[j].expr)
        })
    })
}

/// Whether `a - b - c` is a constant `>= 0`, read off the three sorted term lists
/// without building the difference (a coefficient that overflows: no).
fn exceeds_by_constant(a: &Sym, b: &Sym, c: &Sym) -> bool {
    let (a, b, c) = (a.terms(), b.terms(), c.terms());
    let (mut x, mut y, mut z) = (0, 0, 0);
    let mut constant = Rational::ZERO;
    loop {
        let heads = [a.get(x), b.get(y), c.get(z)];
        let Some(mono) = heads.iter().flatten().map(|t| &t.mono).min() else {
            return constant.signum() >= 0;
        };
        let mut coef = Rational::ZERO;
        for (k, (head, at)) in heads.iter().zip([&mut x, &mut y, &mut z]).enumerate() {
            if let Some(t) = head.filter(|t| &t.mono == mono) {
                let next = if k == 0 {
                    coef.checked_add(t.coef)
                } else {
                    coef.checked_sub(t.coef)
                };
                let Ok(next) = next else {
                    return false;
                };
                coef = next;
                *at += 1;
            }
        }
        if mono.is_one() {
            constant = coef;
        } else if !coef.is_zero() {
            return false;
        }
    }
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

    /// Whether [`Piecewise::simplified`] would leave this as it is: every guard sorted,
    /// without repeats or implied constraints, no two pieces with the same guard, no
    /// zero piece.
    pub fn is_simplified(&self) -> bool {
        self.pieces.iter().enumerate().all(|(k, p)| {
            p.guard.windows(2).all(|w| w[0] < w[1])
                && !p.value.is_zero()
                && !(0..p.guard.len()).any(|c| implied(&p.guard, c))
                && self.pieces[..k].iter().all(|q| q.guard != p.guard)
        })
    }

    /// Pieces with the same guard merged, zero pieces dropped, guards sorted.
    pub fn simplified(self) -> Result<Piecewise, SymError> {
        let mut pieces: Vec<Piece> = Vec::new();
        for mut p in self.pieces {
            p.guard.sort();
            p.guard.dedup();
            drop_implied(&mut p.guard);
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
    ///
    /// Remembered for every thread: a report prints the same few formulas for thousands of
    /// statements (every statement of a nest shares its count), and the cases of a
    /// formula of tens of kilobytes take milliseconds to print.
    pub fn display(&self, n: Notation) -> String {
        // By notation: Fortran, mathematical.
        static PRINTED: [SharedMemo<Piecewise, String>; 2] =
            [SharedMemo::new(256), SharedMemo::new(256)];
        let printed = &PRINTED[usize::from(n == Notation::Math)];
        if let Some(text) = printed.get(self) {
            return text;
        }
        let text = self.cases().display(n);
        printed.insert(self.clone(), text.clone());
        text
    }

    /// [`Piecewise::display`] of a shared formula ([`crate::symbolic_sum_shared`]),
    /// remembered by the formula's address: a formula shared by thousands of
    /// statements is hashed and compared whole once, not at every one of them. The
    /// memo holds the formulas it remembers, so an address is not reused while it is
    /// there.
    pub fn display_shared(this: &Arc<Piecewise>, n: Notation) -> Arc<str> {
        static PRINTED: [SharedMemo<ByAddress, Arc<str>>; 2] =
            [SharedMemo::new(256), SharedMemo::new(256)];
        PRINTED[usize::from(n == Notation::Math)]
            .get_or_insert_with(ByAddress(this.clone()), || Arc::from(this.display(n)))
    }

    /// [`Piecewise::is_simplified`] of a shared formula (a remembered sum), decided once
    /// per formula, not at every statement whose count it is: remembered by address as
    /// [`Piecewise::display_shared`] remembers its text.
    pub fn is_simplified_shared(this: &Arc<Piecewise>) -> bool {
        static SIMPLIFIED: SharedMemo<ByAddress, bool> = SharedMemo::new(256);
        SIMPLIFIED.get_or_insert_with(ByAddress(this.clone()), || this.is_simplified())
    }
}

/// A shared formula compared and hashed by its address.
struct ByAddress(Arc<Piecewise>);

impl PartialEq for ByAddress {
    fn eq(&self, other: &ByAddress) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ByAddress {}

impl std::hash::Hash for ByAddress {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::ptr::hash(Arc::as_ptr(&self.0), state);
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `c0 + c1·n + c2·p + c3·⌊n/2⌋`.
    fn expr(c: [i64; 4]) -> Sym {
        let n = Sym::var("n");
        let half = n.div(&Sym::int(2)).and_then(|h| h.floor()).unwrap();
        [Sym::one(), n, Sym::var("p"), half]
            .iter()
            .zip(c)
            .map(|(x, k)| x.scale(Rational::int(i128::from(k))).unwrap())
            .fold(Sym::zero(), |a, x| a.add(&x).unwrap())
    }

    proptest! {
        /// The merge over sorted terms agrees with building `a - b - c`.
        #[test]
        fn exceeds_by_constant_is_the_difference_read_off(
            a in proptest::array::uniform4(-2i64..=2),
            b in proptest::array::uniform4(-2i64..=2),
            c in proptest::array::uniform4(-2i64..=2),
        ) {
            let (a, b, c) = (expr(a), expr(b), expr(c));
            let built = a.sub(&b).and_then(|d| d.sub(&c)).unwrap();
            let expected = built.as_const().is_some_and(|d| d.signum() >= 0);
            prop_assert_eq!(exceeds_by_constant(&a, &b, &c), expected);
        }

        /// A piecewise value is simplified exactly when simplifying leaves it as it is.
        #[test]
        fn is_simplified_means_simplifying_changes_nothing(
            guards in proptest::collection::vec(
                proptest::collection::vec(proptest::array::uniform4(-1i64..=1), 0..4),
                1..4,
            ),
            values in proptest::collection::vec(-1i64..=1, 1..4),
        ) {
            let pieces = guards
                .into_iter()
                .zip(values)
                .map(|(g, v)| Piece {
                    guard: g
                        .into_iter()
                        .map(|c| Constraint { expr: expr(c), rel: Rel::Ge })
                        .collect(),
                    value: Sym::int(i128::from(v)),
                })
                .collect();
            let p = Piecewise { pieces };
            let simplified = p.clone().simplified().unwrap();
            prop_assert_eq!(p.is_simplified(), simplified == p);
        }
    }

    /// A shared formula prints as the formula itself does, and a repeated sum gives the
    /// one shared formula (what lets `display_shared` print it once).
    #[test]
    fn a_shared_formula_prints_as_itself_and_a_repeated_sum_shares_it() {
        use crate::{Budget, Name, symbolic_sum_shared};
        let (i, n, m) = (Sym::var("i"), Sym::var("n"), Sym::var("m"));
        let sum = || {
            let cons = vec![
                Constraint::ge(&i, &Sym::one()).unwrap(),
                Constraint::le(&i, &n).unwrap(),
                Constraint::le(&i, &m).unwrap(),
            ];
            let vars: Vec<Name> = vec!["i".into()];
            symbolic_sum_shared(cons, &vars, Sym::one(), &mut Budget::new(64, 10_000)).unwrap()
        };
        let (a, b) = (sum(), sum());
        assert!(Arc::ptr_eq(&a, &b), "the remembered sum is shared");
        assert_eq!(Piecewise::is_simplified_shared(&a), a.is_simplified());
        let unsimplified = Arc::new(Piecewise {
            pieces: vec![a.pieces[0].clone(), a.pieces[0].clone()],
        });
        assert!(!Piecewise::is_simplified_shared(&unsimplified));
        assert!(
            !Piecewise::is_simplified_shared(&unsimplified),
            "remembered alike"
        );
        for notation in [Notation::Fortran, Notation::Math] {
            let own = a.display(notation);
            assert_eq!(&*Piecewise::display_shared(&a, notation), own.as_str());
            // An equal formula at another address prints the same.
            let copy = Arc::new((*a).clone());
            assert_eq!(&*Piecewise::display_shared(&copy, notation), own.as_str());
        }
    }
}
