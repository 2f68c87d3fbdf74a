//! Closed forms of sums over a variable: `Σ_{v=l}^{u} E(v)` for `E` polynomial in `v`,
//! by Faulhaber's formulas. `F_k(n) = Σ_{v=1}^{n} v^k` is a polynomial of degree k+1
//! with `F_k(n) - F_k(n-1) = n^k` for every integer n, so `F_k(u) - F_k(l-1)` is the sum
//! for any integer range with `l <= u + 1` (an empty range gives 0).

use super::rational::{Overflow, Rational};
use super::sym::{Sym, SymResult};

/// Highest power summed: deeper polynomials mean a runaway nest, not a real program.
pub const MAX_DEGREE: usize = 40;

/// Bernoulli numbers `B_0..=B_n` with `B_1 = +1/2`.
fn bernoulli(n: usize) -> Result<Vec<Rational>, Overflow> {
    let mut b = vec![Rational::ONE];
    for m in 1..=n {
        // Σ_{j=0}^{m} C(m+1, j) B_j = 0  (with B_1 = -1/2)
        let mut s = Rational::ZERO;
        for (j, bj) in b.iter().enumerate() {
            s = s.checked_add(Rational::int(binomial(m + 1, j)?).checked_mul(*bj)?)?;
        }
        b.push(s.checked_mul(Rational::new(-1, m as i128 + 1).ok_or(Overflow)?)?);
    }
    if n >= 1 {
        b[1] = Rational::new(1, 2).ok_or(Overflow)?;
    }
    Ok(b)
}

fn binomial(n: usize, k: usize) -> Result<i128, Overflow> {
    let mut r: i128 = 1;
    for i in 0..k.min(n - k.min(n)) {
        r = r.checked_mul((n - i) as i128).ok_or(Overflow)? / (i as i128 + 1);
    }
    Ok(r)
}

/// Coefficients `a_0..=a_{k+1}` of `F_k(n) = Σ a_i n^i`.
fn power_sum(k: usize, b: &[Rational]) -> Result<Vec<Rational>, Overflow> {
    let mut a = vec![Rational::ZERO; k + 2];
    let scale = Rational::new(1, k as i128 + 1).ok_or(Overflow)?;
    for (j, bj) in b.iter().enumerate().take(k + 1) {
        let c = Rational::int(binomial(k + 1, j)?)
            .checked_mul(*bj)?
            .checked_mul(scale)?;
        a[k + 1 - j] = c;
    }
    Ok(a)
}

/// `Σ a_i x^i` by Horner's rule.
fn horner(a: &[Rational], x: &Sym) -> SymResult {
    let mut acc = Sym::zero();
    for c in a.iter().rev() {
        acc = acc.mul(x)?.add(&Sym::rat(*c))?;
    }
    Ok(acc)
}

/// `Σ_{v=lower}^{upper} e`, `e` polynomial in `v` (`None` if it is not, or its degree
/// exceeds [`MAX_DEGREE`]). Exact for `lower <= upper + 1`.
pub fn sum_over(e: &Sym, v: &str, lower: &Sym, upper: &Sym) -> Option<SymResult> {
    let coefs = e.poly_in(v)?;
    if coefs.len() > MAX_DEGREE {
        return None;
    }
    Some(sum_coefs(&coefs, lower, upper))
}

fn sum_coefs(coefs: &[Sym], lower: &Sym, upper: &Sym) -> SymResult {
    let b = bernoulli(coefs.len())?;
    let before = lower.add_int(-1)?;
    let mut out = Sym::zero();
    for (k, c) in coefs.iter().enumerate() {
        if c.is_zero() {
            continue;
        }
        let a = power_sum(k, &b)?;
        let mut s = horner(&a, upper)?;
        if !before.is_zero() {
            s = s.sub(&horner(&a, &before)?)?;
        }
        out = out.add(&c.mul(&s)?)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(k: u32, l: i128, u: i128) -> i128 {
        (l..=u).map(|v| v.pow(k)).sum()
    }

    #[test]
    fn power_sums_match_brute_force_on_any_integer_range() {
        let v = Sym::var("v");
        for k in 0..7u32 {
            let e = v.pow(k).unwrap();
            let s = sum_over(&e, "v", &Sym::var("l"), &Sym::var("u"))
                .unwrap()
                .unwrap();
            for l in -6..6 {
                for u in (l - 1)..8 {
                    let env = |n: &str| match n {
                        "l" => Some(l),
                        "u" => Some(u),
                        _ => None,
                    };
                    let got = s.eval(&env).unwrap();
                    assert_eq!(
                        got,
                        super::super::Num::Exact(Rational::int(brute(k, l, u))),
                        "k={k} l={l} u={u}"
                    );
                }
            }
        }
    }

    #[test]
    fn triangular_sum_in_closed_form() {
        // Σ_{i=1}^{n} Σ_{j=1}^{i} 1 = Σ_{i=1}^{n} i = n(n+1)/2
        let inner = sum_over(&Sym::one(), "j", &Sym::one(), &Sym::var("i"))
            .unwrap()
            .unwrap();
        let outer = sum_over(&inner, "i", &Sym::one(), &Sym::var("n"))
            .unwrap()
            .unwrap();
        assert_eq!(outer.to_string(), "(n**2 + n)/2");
    }
}
