//! The greatest common divisor and least common multiple, one definition for the whole
//! engine: num-integer's binary (Stein) GCD on the magnitudes, so that signs never
//! matter and no input overflows.

use num_integer::Integer;

/// gcd(|a|, |b|), with gcd(0, 0) = 0.
///
/// Most coefficients are small: when both magnitudes fit in 64 bits the GCD runs on
/// `u64` (no 128-bit shifts). The one value that does not fit back in `i128`,
/// gcd(i128::MIN, i128::MIN) = 2^127 (or with 0), gives 1: a divisor still, so a
/// fraction reduced by it stays exact (only not in lowest terms).
pub fn gcd(a: i128, b: i128) -> i128 {
    let (a, b) = (a.unsigned_abs(), b.unsigned_abs());
    let g = match (u64::try_from(a), u64::try_from(b)) {
        (Ok(a), Ok(b)) => u128::from(a.gcd(&b)),
        _ => a.gcd(&b),
    };
    i128::try_from(g).unwrap_or(1)
}

/// lcm(|a|, |b|), 0 when either is 0; `None` when it does not fit in `i128`.
pub fn lcm(a: i128, b: i128) -> Option<i128> {
    if a == 0 || b == 0 {
        return Some(0);
    }
    (a / gcd(a, b)).checked_mul(b).map(i128::abs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn euclid(a: i128, b: i128) -> i128 {
        let (mut a, mut b) = (a.abs(), b.abs());
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }

    #[test]
    fn gcd_agrees_with_euclid_on_small_and_large_values() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..10_000 {
            let shift = next() % 100;
            let a = (i128::from(next()) << (shift % 60)) * if next() % 2 == 0 { 1 } else { -1 };
            let b = i128::from(next() % 1_000_000) << (shift % 40);
            assert_eq!(gcd(a, b), euclid(a, b), "gcd({a}, {b})");
            assert_eq!(gcd(b, 0), euclid(b, 0));
            assert_eq!(gcd(-b, a), euclid(b, a));
        }
        assert_eq!(gcd(0, 0), 0);
        assert_eq!(gcd(i128::MIN, i128::MIN), 1);
        assert_eq!(gcd(i128::MIN, 6), 2);
        assert_eq!(gcd(i64::MIN.into(), 0), 1 << 63);
    }

    #[test]
    fn lcm_of_signs_zero_and_overflow() {
        assert_eq!(lcm(4, 6), Some(12));
        assert_eq!(lcm(-4, 6), Some(12));
        assert_eq!(lcm(4, -6), Some(12));
        assert_eq!(lcm(0, 6), Some(0));
        assert_eq!(lcm(i128::MAX, i128::MAX - 1), None);
        assert_eq!(lcm(1 << 100, 1 << 90), Some(1 << 100));
    }
}
