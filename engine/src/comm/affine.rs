//! Subscripts compiled to integer affine forms, for the element-by-element count of
//! communication (`records::Job::enumerate`): `s = c0 + Σ cᵥ·v` over the enumerated
//! variables v with integer constants, c0 valued once under the bindings, so that each
//! visited point costs a few integer operations instead of a symbolic evaluation.

use crate::symbolic::{Env, Name, Num, Sym};

/// One subscript as `constant + Σ coef·var`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Affine {
    constant: i128,
    terms: Vec<(Name, i128)>,
}

/// The subscripts as affine forms in `vars` (everything else valued by `env`), or
/// `None` when one is not affine with integer coefficients (a floor, a MOD, a product
/// of variables) or has no value: then they are evaluated symbolically per point.
pub(super) fn compile(subscripts: &[Sym], vars: &[Name], env: Env) -> Option<Vec<Affine>> {
    subscripts
        .iter()
        .map(|s| {
            let mut terms = Vec::new();
            for v in vars.iter().filter(|v| s.mentions(v)) {
                let coef = match s.poly_in(v)?.as_slice() {
                    [_, c1] => c1.as_const()?.as_integer()?,
                    _ => return None,
                };
                terms.push((v.clone(), coef));
            }
            let at_zero = |n: &str| {
                if vars.iter().any(|v| &**v == n) {
                    Some(0)
                } else {
                    env(n)
                }
            };
            let constant = match s.eval(&at_zero).ok()? {
                Num::Exact(r) => r.as_integer()?,
                Num::Approx(_) => return None,
            };
            Some(Affine { constant, terms })
        })
        .collect()
}

/// Where each affine form's variables sit in the points of one enumeration (whose
/// variable order is fixed): found at the first point, used for the rest.
#[derive(Default)]
pub(super) struct Slots(Option<Vec<Vec<(usize, i128)>>>);

impl Slots {
    /// The element `forms` give at `point`; `None` when a variable is not in the point.
    pub(super) fn element(
        &mut self,
        forms: &[Affine],
        point: &[(Name, i128)],
    ) -> Option<Vec<i128>> {
        if self.0.is_none() {
            let slots = forms
                .iter()
                .map(|f| {
                    f.terms
                        .iter()
                        .map(|(v, c)| Some((point.iter().position(|(k, _)| k == v)?, *c)))
                        .collect::<Option<Vec<_>>>()
                })
                .collect::<Option<Vec<_>>>()?;
            self.0 = Some(slots);
        }
        let slots = self.0.as_ref()?;
        forms
            .iter()
            .zip(slots)
            .map(|(f, s)| {
                s.iter().try_fold(f.constant, |acc, (k, c)| {
                    acc.checked_add(c.checked_mul(point.get(*k)?.1)?)
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::Name;

    fn name(s: &str) -> Name {
        Name::from(s)
    }

    #[test]
    fn affine_subscripts_evaluate_like_the_formulas() {
        let (i, j, n) = (Sym::var("i"), Sym::var("j"), Sym::var("n"));
        let subs = vec![
            i.add(&Sym::int(-1)).unwrap(),
            j.mul(&Sym::int(2)).unwrap().add(&n).unwrap(),
        ];
        let vars = vec![name("i"), name("j")];
        let env = |v: &str| (v == "n").then_some(100);
        let forms = compile(&subs, &vars, &env).expect("affine");
        let mut slots = Slots::default();
        for (x, y) in [(1, 1), (5, 7), (-3, 40)] {
            // The enumeration's order: j outermost.
            let point = vec![(name("j"), y), (name("i"), x)];
            let at = |v: &str| {
                point
                    .iter()
                    .find(|(k, _)| &**k == v)
                    .map(|p| p.1)
                    .or(env(v))
            };
            let expected: Vec<i128> = subs
                .iter()
                .map(|s| match s.eval(&at).unwrap() {
                    Num::Exact(r) => r.as_integer().unwrap(),
                    Num::Approx(_) => unreachable!(),
                })
                .collect();
            assert_eq!(slots.element(&forms, &point), Some(expected));
        }
    }

    #[test]
    fn other_subscripts_stay_symbolic() {
        let i = Sym::var("i");
        let vars = vec![name("i")];
        let env = |_: &str| None;
        assert_eq!(compile(&[i.mul(&i).unwrap()], &vars, &env), None);
        assert_eq!(
            compile(
                &[i.div(&Sym::int(2)).unwrap().floor().unwrap()],
                &vars,
                &env
            ),
            None
        );
        // A size without a value.
        assert_eq!(
            compile(&[i.add(&Sym::var("m")).unwrap()], &vars, &env),
            None
        );
    }
}
