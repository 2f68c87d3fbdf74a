//! Whether a read's subscripts name a different element in every iteration of the
//! loops its fetch is vectorized over: then the elements fetched number the iterations,
//! and disjoint iteration sets read disjoint elements.

use costline_symbolic::{Name, Rational, Sym};

/// Whether the map from the values of `vars` to the subscripts is one-to-one, when it
/// can be told (`None`: a coefficient is not a number).
///
/// First the variables that one subscript determines alone are peeled off: a subscript
/// `c·v + f(w)` with `c` a nonzero number and `f` anything in variables already
/// determined (e.g. `2·i − mod(j, 2)` once `j` is known) determines `v`. The variables
/// left must be fixed by the affine part: [`full_column_rank`] over them, with the
/// determined ones taken as constants.
pub(super) fn one_to_one(subs: &[Sym], vars: &[Name]) -> Option<bool> {
    let mut left: Vec<Name> = vars.to_vec();
    while let Some(k) = left
        .iter()
        .position(|v| subs.iter().any(|s| determines(s, v, &left)))
    {
        left.swap_remove(k);
    }
    full_column_rank(subs, &left)
}

/// Whether `s` is `c·v + rest` with `c` a nonzero number and `rest` free of every
/// undetermined variable (`left`, which holds `v`).
fn determines(s: &Sym, v: &Name, left: &[Name]) -> bool {
    match s.poly_in(v).as_deref() {
        Some([rest, c]) => {
            c.as_const().is_some_and(|c| c != Rational::ZERO)
                && !left.iter().any(|w| rest.mentions(w))
        }
        _ => false,
    }
}

/// Whether the linear map from `vars` to the subscripts is one-to-one: every
/// subscript affine in them with constant coefficients, and the coefficient columns
/// independent (Gaussian elimination over the rationals).
fn full_column_rank(subs: &[Sym], vars: &[Name]) -> Option<bool> {
    let mut rows: Vec<Vec<Rational>> = Vec::with_capacity(subs.len());
    for s in subs {
        let mut row = Vec::with_capacity(vars.len());
        for v in vars {
            let coef = match s.poly_in(v).as_deref() {
                None if s.mentions(v) => return Some(false),
                Some([_]) | None => Rational::ZERO,
                Some([_, c1]) => c1.as_const()?,
                Some(_) => return Some(false),
            };
            row.push(coef);
        }
        rows.push(row);
    }
    let mut rank = 0;
    for col in 0..vars.len() {
        let Some(pivot) = (rank..rows.len()).find(|&r| rows[r][col] != Rational::ZERO) else {
            continue;
        };
        rows.swap(rank, pivot);
        let lead = rows[rank][col];
        for r in 0..rows.len() {
            if r != rank && rows[r][col] != Rational::ZERO {
                let factor = rows[r][col].checked_mul(lead.recip()?.ok()?).ok()?;
                let pivot_row = rows[rank].clone();
                for (x, p) in rows[r].iter_mut().zip(&pivot_row) {
                    *x = x.checked_sub(p.checked_mul(factor).ok()?).ok()?;
                }
            }
        }
        rank += 1;
    }
    Some(rank == vars.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(name: &str) -> Sym {
        Sym::var(name)
    }

    fn k(c: i128) -> Sym {
        Sym::int(c)
    }

    fn sum(parts: &[Sym]) -> Sym {
        parts.iter().fold(Sym::zero(), |a, b| a.add(b).unwrap())
    }

    fn times(c: i128, s: Sym) -> Sym {
        s.scale(Rational::int(c)).unwrap()
    }

    fn mod2(s: Sym) -> Sym {
        s.fmod(&k(2)).unwrap()
    }

    /// Brute force: whether the subscript tuples over a box of values are distinct.
    fn distinct_over_box(subs: &[Sym], vars: &[&str]) -> bool {
        let mut seen = std::collections::HashSet::new();
        let n = vars.len() as u32;
        for code in 0..7i128.pow(n) {
            let values: Vec<i128> = (0..n).map(|d| code / 7i128.pow(d) % 7 - 3).collect();
            let env = |name: &str| vars.iter().position(|v| *v == name).map(|d| values[d]);
            let tuple: Vec<String> = subs
                .iter()
                .map(|s| format!("{:?}", s.eval(&env).unwrap()))
                .collect();
            if !seen.insert(tuple) {
                return false;
            }
        }
        true
    }

    #[test]
    fn subscripts_are_one_to_one_as_brute_force_says() {
        let cases: Vec<(Vec<Sym>, &[&str])> = vec![
            (vec![v("i"), v("j")], &["i", "j"]),
            (
                vec![sum(&[v("i"), v("j")]), v("i").sub(&v("j")).unwrap()],
                &["i", "j"],
            ),
            (
                vec![sum(&[v("i"), v("j")]), times(2, sum(&[v("i"), v("j")]))],
                &["i", "j"],
            ),
            (vec![v("i")], &["i", "j"]),
            // The red points' west neighbour: i = 2 + 2·i' − mod(j, 2), minus 1.
            (
                vec![
                    sum(&[k(4), times(2, v("i")), times(-1, mod2(v("j")))]),
                    v("j"),
                ],
                &["i", "j"],
            ),
            (
                vec![sum(&[times(2, v("i")), mod2(v("j"))]), sum(&[v("j"), k(1)])],
                &["i", "j"],
            ),
            (vec![sum(&[v("i"), mod2(v("j"))])], &["i", "j"]),
            (
                vec![
                    sum(&[v("i"), v("j"), mod2(v("k"))]),
                    v("i").sub(&v("j")).unwrap(),
                    v("k"),
                ],
                &["i", "j", "k"],
            ),
            (vec![mod2(v("i"))], &["i"]),
        ];
        for (subs, vars) in &cases {
            let names: Vec<Name> = vars.iter().map(|v| Name::from(*v)).collect();
            let brute = distinct_over_box(subs, vars);
            assert_eq!(
                one_to_one(subs, &names),
                Some(brute),
                "{subs:?} over {vars:?}"
            );
        }
        let decided: Vec<bool> = cases.iter().map(|(s, v)| distinct_over_box(s, v)).collect();
        assert_eq!(
            decided,
            [true, true, false, false, true, true, false, true, false]
        );
    }
}
