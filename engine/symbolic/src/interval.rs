//! Interval bounds of symbolic expressions from bounds of their atoms: conservative
//! (the true range always lies inside), used to decide constraints and prune the cases
//! of the symbolic sum.

use super::rational::Rational;
use super::sym::{Atom, Sym};
use std::cmp::Ordering;

/// An extended rational.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ext {
    NegInf,
    Fin(Rational),
    PosInf,
}

impl Ext {
    fn cmp(self, o: Ext) -> Ordering {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => a.cmp(&b),
            (a, b) if a == b => Ordering::Equal,
            (Ext::NegInf, _) | (_, Ext::PosInf) => Ordering::Less,
            _ => Ordering::Greater,
        }
    }

    fn min(self, o: Ext) -> Ext {
        if self.cmp(o) == Ordering::Greater {
            o
        } else {
            self
        }
    }

    fn max(self, o: Ext) -> Ext {
        if self.cmp(o) == Ordering::Less {
            o
        } else {
            self
        }
    }

    pub fn signum(self) -> i128 {
        match self {
            Ext::NegInf => -1,
            Ext::PosInf => 1,
            Ext::Fin(r) => r.signum(),
        }
    }

    /// `a + b`, rounded outward (`toward` is the infinity to use on overflow).
    fn add(self, o: Ext, toward: Ext) -> Ext {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => a.checked_add(b).map_or(toward, Ext::Fin),
            (Ext::NegInf, Ext::PosInf) | (Ext::PosInf, Ext::NegInf) => toward,
            (Ext::Fin(_), x) | (x, Ext::Fin(_)) => x,
            (x, _) => x,
        }
    }

    /// `a * b` with `0 * ∞ = 0` (right for the endpoints of closed intervals).
    fn mul(self, o: Ext, toward: Ext) -> Ext {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => a.checked_mul(b).map_or(toward, Ext::Fin),
            (a, b) => match a.signum() * b.signum() {
                0 => Ext::Fin(Rational::ZERO),
                s if s > 0 => Ext::PosInf,
                _ => Ext::NegInf,
            },
        }
    }
}

/// `[lo, hi]` over the extended rationals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: Ext,
    pub hi: Ext,
}

impl Interval {
    pub const ALL: Interval = Interval {
        lo: Ext::NegInf,
        hi: Ext::PosInf,
    };

    pub fn point(v: Rational) -> Interval {
        Interval {
            lo: Ext::Fin(v),
            hi: Ext::Fin(v),
        }
    }

    /// Whether every value is `>= 0`.
    pub fn nonneg(self) -> bool {
        self.lo.signum() >= 0
    }

    /// Whether every value is `< 0`.
    pub fn negative(self) -> bool {
        self.hi.signum() < 0
    }

    /// Whether every value is 0.
    pub fn is_zero(self) -> bool {
        self.lo == Ext::Fin(Rational::ZERO) && self.hi == Ext::Fin(Rational::ZERO)
    }

    pub fn contains_zero(self) -> bool {
        self.lo.signum() <= 0 && self.hi.signum() >= 0
    }

    /// The intersection (an empty result keeps the first interval's bounds crossed).
    pub fn meet(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.max(o.lo),
            hi: self.hi.min(o.hi),
        }
    }

    /// Whether the interval holds no value.
    pub fn is_empty(self) -> bool {
        self.lo.cmp(self.hi) == Ordering::Greater
    }

    fn add(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.add(o.lo, Ext::NegInf),
            hi: self.hi.add(o.hi, Ext::PosInf),
        }
    }

    fn mul(self, o: Interval) -> Interval {
        let ps = [
            (self.lo, o.lo),
            (self.lo, o.hi),
            (self.hi, o.lo),
            (self.hi, o.hi),
        ];
        let lo = ps
            .iter()
            .map(|&(a, b)| a.mul(b, Ext::NegInf))
            .fold(Ext::PosInf, Ext::min);
        let hi = ps
            .iter()
            .map(|&(a, b)| a.mul(b, Ext::PosInf))
            .fold(Ext::NegInf, Ext::max);
        Interval { lo, hi }
    }

    fn recip(self) -> Interval {
        if self.contains_zero() {
            return Interval::ALL;
        }
        let inv = |e: Ext| match e {
            Ext::Fin(r) => match r.recip() {
                Some(Ok(inv)) => Some(Ext::Fin(inv)),
                // 1/i128::MIN has no i128 denominator: no finite bound.
                Some(Err(_)) => None,
                None => Some(Ext::PosInf),
            },
            _ => Some(Ext::Fin(Rational::ZERO)),
        };
        let bounds = || {
            Some(Interval {
                lo: inv(self.hi)?,
                hi: inv(self.lo)?,
            })
        };
        bounds().unwrap_or(Interval::ALL)
    }

    /// `self^e` by repeated squaring (O(log e) products: exponents reach `i32::MAX`),
    /// every square clamped to `>= 0`.
    fn powi(self, e: i32) -> Interval {
        if e < 0 {
            return self.upowi(e.unsigned_abs()).recip();
        }
        self.upowi(e.unsigned_abs())
    }

    fn upowi(self, e: u32) -> Interval {
        match e {
            0 => Interval::point(Rational::ONE),
            1 => self,
            _ => {
                let half = self.upowi(e / 2);
                let mut square = half.mul(half);
                // A square is never negative.
                square.lo = square.lo.max(Ext::Fin(Rational::ZERO));
                if e % 2 == 1 { square.mul(self) } else { square }
            }
        }
    }

    fn floor(self) -> Interval {
        let f = |e: Ext| match e {
            Ext::Fin(r) => Ext::Fin(Rational::int(r.floor())),
            x => x,
        };
        Interval {
            lo: f(self.lo),
            hi: f(self.hi),
        }
    }

    /// Widened outward to integers (a conservative bound of a truncation).
    fn around(self) -> Interval {
        Interval {
            lo: match self.lo {
                Ext::Fin(r) => Ext::Fin(Rational::int(r.floor())),
                x => x,
            },
            hi: match self.hi {
                Ext::Fin(r) => Ext::Fin(Rational::int(r.ceil())),
                x => x,
            },
        }
    }
}

/// Bounds of the atoms an expression is built from.
pub type AtomBounds<'a> = &'a dyn Fn(&Atom) -> Interval;

impl Sym {
    /// A conservative interval of the expression's values, given bounds of its variables
    /// (`bounds` is asked about variables; compound atoms are bounded from their parts).
    pub fn interval(&self, bounds: AtomBounds) -> Interval {
        let mut sum = Interval::point(Rational::ZERO);
        for t in self.terms() {
            let mut term = Interval::point(t.coef);
            for (a, e) in t.mono.factors() {
                term = term.mul(a.interval(bounds).powi(*e));
            }
            sum = sum.add(term);
        }
        sum
    }
}

impl Atom {
    fn interval(&self, bounds: AtomBounds) -> Interval {
        let sub = |x: &Sym| x.interval(bounds);
        match self {
            Atom::Var(_) => bounds(self),
            Atom::Opaque(_) | Atom::Pow(..) => Interval::ALL,
            Atom::Floor(x) => sub(x).floor(),
            Atom::Group(x) => sub(x),
            Atom::Min(args) => args
                .iter()
                .map(sub)
                .reduce(|a, b| Interval {
                    lo: a.lo.min(b.lo),
                    hi: a.hi.min(b.hi),
                })
                .unwrap_or(Interval::ALL),
            Atom::Max(args) => args
                .iter()
                .map(sub)
                .reduce(|a, b| Interval {
                    lo: a.lo.max(b.lo),
                    hi: a.hi.max(b.hi),
                })
                .unwrap_or(Interval::ALL),
            Atom::IDiv(a, b) => sub(a).mul(sub(b).recip()).around(),
            Atom::Mod(a, b) => {
                // |MOD(a, b)| < |b|, with the sign of a.
                let b = sub(b);
                let m = match (b.lo, b.hi) {
                    (Ext::Fin(lo), Ext::Fin(hi)) => lo.checked_neg().map(|l| l.max(hi)).ok(),
                    _ => None,
                };
                let Some(m) = m.and_then(|m| m.checked_sub(Rational::ONE).ok()) else {
                    return Interval::ALL;
                };
                let a = sub(a);
                let lo = if a.nonneg() {
                    Ext::Fin(Rational::ZERO)
                } else {
                    Ext::Fin(m.checked_neg().unwrap_or(Rational::ZERO))
                };
                let hi = if a.hi.signum() <= 0 {
                    Ext::Fin(Rational::ZERO)
                } else {
                    Ext::Fin(m)
                };
                Interval { lo, hi }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_least(v: i128) -> Interval {
        Interval {
            lo: Ext::Fin(Rational::int(v)),
            hi: Ext::PosInf,
        }
    }

    #[test]
    fn products_of_positive_unknowns_are_positive() {
        // n2 >= 1, j1 >= 1: n2*j1 - 1 >= 0.
        let e = Sym::var("n2")
            .mul(&Sym::var("j1"))
            .unwrap()
            .add_int(-1)
            .unwrap();
        let iv = e.interval(&|_| at_least(1));
        assert!(iv.nonneg());
        // 1/n2 for n2 >= 1 lies in [0, 1] (closed bounds: 0 is not attained).
        let c = Sym::one().div(&Sym::var("n2")).unwrap();
        let iv = c.interval(&|_| at_least(1));
        assert_eq!(iv.hi, Ext::Fin(Rational::ONE));
        assert!(iv.nonneg());
    }

    #[test]
    fn floors_mins_and_mods() {
        let n = Sym::var("n");
        let bounds = |_: &Atom| Interval {
            lo: Ext::Fin(Rational::int(0)),
            hi: Ext::Fin(Rational::int(9)),
        };
        let half = n
            .scale(Rational::new(1, 2).unwrap())
            .unwrap()
            .floor()
            .unwrap();
        let iv = half.interval(&bounds);
        assert_eq!(
            (iv.lo, iv.hi),
            (Ext::Fin(Rational::int(0)), Ext::Fin(Rational::int(4)))
        );
        let m = n.fmod(&Sym::int(4)).unwrap().interval(&bounds);
        assert_eq!(
            (m.lo, m.hi),
            (Ext::Fin(Rational::int(0)), Ext::Fin(Rational::int(3)))
        );
        let mn = Sym::min(&[n.clone(), Sym::int(5)])
            .unwrap()
            .interval(&bounds);
        assert_eq!(mn.hi, Ext::Fin(Rational::int(5)));
    }
}
