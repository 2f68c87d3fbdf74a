//! The element a read fetches at each point of the element-by-element count of
//! communication (`records::Job::enumerate`): its subscripts, valued under the bindings
//! once, compiled at the first point against the enumeration's slots ([`Compiled`]), so
//! that each visited point costs a few integer operations instead of a symbolic
//! evaluation. A subscript that does not compile is evaluated from its formula.

use crate::freq::nest::Point;
use costline_symbolic::{Compiled, Env, Num, Sym};
use smallvec::SmallVec;

/// The subscripts of one read (see the module doc).
pub(super) struct Element {
    subscripts: Vec<Sym>,
    /// Compiled at the first point; `None` inside when one does not compile.
    compiled: Option<Option<Vec<Compiled>>>,
}

impl Element {
    /// `subscripts` with every name `keep` refuses valued by `env`; `None` when one has
    /// no value.
    pub(super) fn new(
        subscripts: &[Sym],
        keep: &dyn Fn(&str) -> bool,
        env: Env,
    ) -> Option<Element> {
        let subscripts = subscripts
            .iter()
            .map(|s| {
                s.vars().into_iter().try_fold(s.clone(), |s, n| {
                    if keep(&n) {
                        Some(s)
                    } else {
                        s.subst(&n, &Sym::int(env(&n)?)).ok()
                    }
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Element {
            subscripts,
            compiled: None,
        })
    }

    /// The element at `point`; `None` when a subscript has no integer value there.
    pub(super) fn at(&mut self, point: Point) -> Option<SmallVec<[i128; 4]>> {
        let subscripts = &self.subscripts;
        let compiled = self.compiled.get_or_insert_with(|| {
            let slot = |n: &str| point.names.iter().position(|k| &**k == n);
            subscripts.iter().map(|s| Compiled::new(s, &slot)).collect()
        });
        match compiled {
            Some(forms) => forms.iter().map(|f| f.eval_int(point.values)).collect(),
            None => subscripts
                .iter()
                .map(|s| match s.eval(&|n| point.get(n)).ok()? {
                    Num::Exact(r) => r.as_integer(),
                    Num::Approx(_) => None,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costline_symbolic::Name;

    #[test]
    fn subscripts_evaluate_like_the_formulas() {
        let (i, j, n) = (Sym::var("i"), Sym::var("j"), Sym::var("n"));
        let subs = vec![
            i.add(&Sym::int(-1)).unwrap(),
            j.mul(&Sym::int(2)).unwrap().add(&n).unwrap(),
            i.mul(&i).unwrap(),
        ];
        let env = |v: &str| (v == "n").then_some(100);
        let keep = |v: &str| v == "i" || v == "j";
        let mut element = Element::new(&subs, &keep, &env).expect("valued");
        // The enumeration's order: j outermost.
        let names: Vec<Name> = vec!["j".into(), "i".into()];
        for (x, y) in [(1i64, 1i64), (5, 7), (-3, 40)] {
            let values = [y, x];
            let (x, y) = (i128::from(x), i128::from(y));
            let point = Point {
                names: &names,
                values: &values,
            };
            assert_eq!(
                element.at(point).as_deref(),
                Some(&[x - 1, 2 * y + 100, x * x][..])
            );
        }
    }

    #[test]
    fn a_size_without_a_value_has_no_element() {
        let i = Sym::var("i");
        let env = |_: &str| None;
        let keep = |v: &str| v == "i";
        assert!(Element::new(&[i.add(&Sym::var("m")).unwrap()], &keep, &env).is_none());
    }
}
