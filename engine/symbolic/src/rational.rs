//! Exact rationals over `i128`, every operation overflow-checked: the coefficients of
//! symbolic expressions and the exact values of counts.

use crate::integer::gcd;
use std::cmp::Ordering;
use std::fmt;

/// `num / den` in lowest terms with `den > 0`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rational {
    num: i128,
    den: i128,
}

/// An arithmetic result did not fit in `i128`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

impl Rational {
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    pub const ONE: Rational = Rational { num: 1, den: 1 };

    pub fn int(v: i128) -> Rational {
        Rational { num: v, den: 1 }
    }

    /// `num / den`; `None` when `den` is 0 or normalizing overflows.
    pub fn new(num: i128, den: i128) -> Option<Rational> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den).max(1);
        let (mut n, mut d) = (num / g, den / g);
        if d < 0 {
            n = n.checked_neg()?;
            d = d.checked_neg()?;
        }
        Some(Rational { num: n, den: d })
    }

    pub fn num(self) -> i128 {
        self.num
    }

    pub fn den(self) -> i128 {
        self.den
    }

    pub fn is_zero(self) -> bool {
        self.num == 0
    }

    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    pub fn as_integer(self) -> Option<i128> {
        self.is_integer().then_some(self.num)
    }

    pub fn signum(self) -> i128 {
        self.num.signum()
    }

    pub fn checked_add(self, o: Rational) -> Result<Rational, Overflow> {
        if self.den == 1 && o.den == 1 {
            return Ok(Rational::int(self.num.checked_add(o.num).ok_or(Overflow)?));
        }
        let g = gcd(self.den, o.den);
        let den = (self.den / g).checked_mul(o.den).ok_or(Overflow)?;
        let a = self.num.checked_mul(o.den / g).ok_or(Overflow)?;
        let b = o.num.checked_mul(self.den / g).ok_or(Overflow)?;
        Rational::new(a.checked_add(b).ok_or(Overflow)?, den).ok_or(Overflow)
    }

    pub fn checked_sub(self, o: Rational) -> Result<Rational, Overflow> {
        self.checked_add(o.checked_neg()?)
    }

    pub fn checked_neg(self) -> Result<Rational, Overflow> {
        Ok(Rational {
            num: self.num.checked_neg().ok_or(Overflow)?,
            den: self.den,
        })
    }

    pub fn checked_mul(self, o: Rational) -> Result<Rational, Overflow> {
        if self.num == 0 || o.num == 0 {
            return Ok(Rational::ZERO);
        }
        if self.den == 1 && o.den == 1 {
            return Ok(Rational::int(self.num.checked_mul(o.num).ok_or(Overflow)?));
        }
        let g1 = gcd(self.num, o.den).max(1);
        let g2 = gcd(o.num, self.den).max(1);
        let num = (self.num / g1).checked_mul(o.num / g2).ok_or(Overflow)?;
        let den = (self.den / g2).checked_mul(o.den / g1).ok_or(Overflow)?;
        // Both factors were in lowest terms and the cross factors are cancelled: so is
        // the product, and its denominator is positive.
        Ok(Rational { num, den })
    }

    /// `None` for division by zero.
    pub fn checked_div(self, o: Rational) -> Option<Result<Rational, Overflow>> {
        Some(o.recip()?.and_then(|inv| self.checked_mul(inv)))
    }

    /// `1 / self`; `None` for zero, `Overflow` for a numerator of `i128::MIN` (whose
    /// reciprocal's denominator, `2^127`, is not an `i128`).
    pub fn recip(self) -> Option<Result<Rational, Overflow>> {
        (self.num != 0).then(|| {
            if self.num < 0 {
                Ok(Rational {
                    num: -self.den,
                    den: self.num.checked_neg().ok_or(Overflow)?,
                })
            } else {
                Ok(Rational {
                    num: self.den,
                    den: self.num,
                })
            }
        })
    }

    pub fn checked_pow(self, e: u32) -> Result<Rational, Overflow> {
        Ok(Rational {
            num: self.num.checked_pow(e).ok_or(Overflow)?,
            den: self.den.checked_pow(e).ok_or(Overflow)?,
        })
    }

    /// The largest integer `<= self`.
    pub fn floor(self) -> i128 {
        self.num.div_euclid(self.den)
    }

    /// The smallest integer `>= self`.
    pub fn ceil(self) -> i128 {
        // `q + 1` cannot overflow: with a remainder, `q < self <= i128::MAX`.
        let q = self.num.div_euclid(self.den);
        if self.num.rem_euclid(self.den) == 0 {
            q
        } else {
            q + 1
        }
    }

    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl Ord for Rational {
    fn cmp(&self, o: &Rational) -> Ordering {
        match (self.num.checked_mul(o.den), o.num.checked_mul(self.den)) {
            (Some(a), Some(b)) => a.cmp(&b),
            // Beyond i128 the float order is right except for values that differ in
            // the last of ~38 digits, which no count here distinguishes.
            _ => self.to_f64().total_cmp(&o.to_f64()),
        }
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, o: &Rational) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl From<i64> for Rational {
    fn from(v: i64) -> Rational {
        Rational::int(v as i128)
    }
}

impl fmt::Debug for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_and_reductions() {
        let half = Rational::new(1, 2).unwrap();
        assert_eq!(half.checked_mul(Rational::ZERO).unwrap(), Rational::ZERO);
        assert_eq!(Rational::ZERO.checked_mul(half).unwrap(), Rational::ZERO);
        assert_eq!(
            Rational::new(2, 3)
                .unwrap()
                .checked_mul(Rational::new(9, 4).unwrap())
                .unwrap(),
            Rational::new(3, 2).unwrap()
        );
    }

    fn r(n: i128, d: i128) -> Rational {
        Rational::new(n, d).unwrap()
    }

    #[test]
    fn arithmetic_in_lowest_terms() {
        assert_eq!(r(2, 4), r(1, 2));
        assert_eq!(r(1, -2), r(-1, 2));
        assert_eq!(r(1, 2).checked_add(r(1, 3)).unwrap(), r(5, 6));
        assert_eq!(r(2, 3).checked_mul(r(9, 4)).unwrap(), r(3, 2));
        assert_eq!(
            r(1, 2).checked_div(r(-1, 4)).unwrap().unwrap(),
            Rational::int(-2)
        );
        assert!(r(1, 2).checked_div(Rational::ZERO).is_none());
        assert!(Rational::int(i128::MAX).checked_add(Rational::ONE).is_err());
    }

    #[test]
    fn floor_and_ceil_round_toward_infinities() {
        assert_eq!(r(7, 2).floor(), 3);
        assert_eq!(r(-7, 2).floor(), -4);
        assert_eq!(r(7, 2).ceil(), 4);
        assert_eq!(r(-7, 2).ceil(), -3);
        assert_eq!(Rational::int(-3).floor(), -3);
        assert_eq!(Rational::int(i128::MIN).ceil(), i128::MIN);
        assert_eq!(r(i128::MAX, 2).ceil(), i128::MAX / 2 + 1);
        assert!(r(1, 3) < r(1, 2));
    }

    #[test]
    fn the_reciprocal_of_i128_min_is_an_overflow_not_a_panic() {
        let min = Rational::int(i128::MIN);
        assert_eq!(min.recip(), Some(Err(Overflow)));
        assert_eq!(Rational::ONE.checked_div(min), Some(Err(Overflow)));
        assert_eq!(r(-2, 3).recip(), Some(Ok(r(-3, 2))));
        assert_eq!(Rational::ZERO.recip(), None);
    }
}
