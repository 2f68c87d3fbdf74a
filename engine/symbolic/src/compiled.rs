//! Expressions compiled for evaluation at many integer points: `e = (Σ nₖ·mₖ) / D` with
//! integer numerators nₖ, one common denominator D > 0 and monomials mₖ of integer-
//! valued nodes (variables read from a slice of values by position, ⌊·⌋, MOD, integer
//! division, MIN/MAX of integer-valued arguments) to non-negative powers. Evaluating
//! one costs a few checked machine-word operations instead of the rational arithmetic
//! and name look-ups of [`Sym::eval`]: in i64 first, in i128 when an intermediate
//! overflows i64 (i128 multiplication and division are several times slower, and
//! counting a nest evaluates its bounds at every point). It gives the same value (or
//! none where `eval` has none or an intermediate overflows i128).

use super::integer::lcm;
use super::rational::Rational;
use super::sym::{Atom, Sym};
use super::word::Word;

/// An expression compiled over slots (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    den: i128,
    terms: Vec<(i128, Vec<(Node, u32)>)>,
    /// The same expression when it is affine in the slots with i64 numerators
    /// (`Σ nₖ·slotₖ + n₀`, over `den`), evaluated without visiting nodes.
    affine: Option<Affine>,
}

#[derive(Clone, Debug, PartialEq)]
struct Affine {
    slots: Vec<(usize, i64)>,
    constant: i64,
    den: i64,
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Slot(usize),
    Floor(Box<Compiled>),
    Min(Vec<Compiled>),
    Max(Vec<Compiled>),
    Mod(Box<Compiled>, Box<Compiled>),
    IDiv(Box<Compiled>, Box<Compiled>),
}

impl Compiled {
    /// `s` compiled with every variable at the slot `slot` gives; `None` when a name has
    /// no slot or `s` has a node outside the compiled forms (a negative power, a symbolic
    /// power, an opaque value, MIN/MAX of non-integer arguments).
    pub fn new(s: &Sym, slot: &dyn Fn(&str) -> Option<usize>) -> Option<Compiled> {
        let den = s
            .terms()
            .iter()
            .try_fold(1i128, |d, t| lcm(d, t.coef.den()))?;
        let terms = s
            .terms()
            .iter()
            .map(|t| {
                let n = t.coef.num().checked_mul(den / t.coef.den())?;
                let factors = t
                    .mono
                    .factors()
                    .iter()
                    .map(|(a, e)| Some((Node::new(a, slot)?, u32::try_from(*e).ok()?)))
                    .collect::<Option<Vec<_>>>()?;
                Some((n, factors))
            })
            .collect::<Option<Vec<_>>>()?;
        let affine = Affine::new(den, &terms);
        Some(Compiled { den, terms, affine })
    }

    /// The value at `values` as (numerator, denominator > 0), not reduced.
    pub fn eval(&self, values: &[i64]) -> Option<(i128, i128)> {
        match self.eval_in::<i64>(values) {
            Some((n, d)) => Some((n.into(), d.into())),
            None => self.eval_in::<i128>(values),
        }
    }

    /// The value when it is an integer (`None` otherwise or on overflow).
    pub fn eval_int(&self, values: &[i64]) -> Option<i128> {
        let (n, d) = self.eval(values)?;
        (n % d == 0).then(|| n / d)
    }

    /// The value as an exact rational.
    pub fn eval_rational(&self, values: &[i64]) -> Option<Rational> {
        let (n, d) = self.eval(values)?;
        Rational::new(n, d)
    }

    /// [`Compiled::eval`] in the integer type `T` (`None` on overflow of `T`).
    pub fn eval_in<T: Word>(&self, values: &[i64]) -> Option<(T, T)> {
        if let Some(a) = &self.affine
            && let Some(n) = a.eval(values)
        {
            return Some((T::widen(n), T::widen(a.den)));
        }
        let mut sum = T::ZERO;
        for (n, factors) in &self.terms {
            let mut v = T::narrow(*n)?;
            for (node, e) in factors {
                v = v.mul(node.eval_in::<T>(values)?.pow(*e)?)?;
            }
            sum = sum.add(v)?;
        }
        Some((sum, T::narrow(self.den)?))
    }
}

impl Affine {
    /// The affine form of `terms` (over `den`), when they are constants and slots to
    /// the first power with numerators in i64.
    fn new(den: i128, terms: &[(i128, Vec<(Node, u32)>)]) -> Option<Affine> {
        let mut a = Affine {
            slots: Vec::new(),
            constant: 0,
            den: i64::try_from(den).ok()?,
        };
        for (n, factors) in terms {
            let n = i64::try_from(*n).ok()?;
            match factors.as_slice() {
                [] => a.constant = a.constant.checked_add(n)?,
                [(Node::Slot(k), 1)] => a.slots.push((*k, n)),
                _ => return None,
            }
        }
        Some(a)
    }

    /// The numerator at `values` (`None` on overflow of i64 or a missing slot).
    fn eval(&self, values: &[i64]) -> Option<i64> {
        self.slots.iter().try_fold(self.constant, |sum, (k, n)| {
            sum.checked_add(n.checked_mul(*values.get(*k)?)?)
        })
    }
}

impl Node {
    fn new(a: &Atom, slot: &dyn Fn(&str) -> Option<usize>) -> Option<Node> {
        let sub = |x: &Sym| Compiled::new(x, slot).map(Box::new);
        let integer_args = |args: &[Sym]| {
            args.iter()
                .map(|x| x.is_integer_valued().then(|| Compiled::new(x, slot))?)
                .collect::<Option<Vec<_>>>()
        };
        Some(match a {
            Atom::Var(n) => Node::Slot(slot(n)?),
            Atom::Floor(x) => Node::Floor(sub(x)?),
            Atom::Min(args) => Node::Min(integer_args(args)?),
            Atom::Max(args) => Node::Max(integer_args(args)?),
            Atom::Mod(a, b) => Node::Mod(sub(a)?, sub(b)?),
            Atom::IDiv(a, b) => Node::IDiv(sub(a)?, sub(b)?),
            Atom::Group(_) | Atom::Pow(..) | Atom::Opaque(_) => return None,
        })
    }

    /// The node's (integer) value in `T`: Fortran MOD and integer division truncate
    /// toward zero, as [`Sym::eval`] does.
    fn eval_in<T: Word>(&self, values: &[i64]) -> Option<T> {
        let int = |c: &Compiled| {
            let (n, d) = c.eval_in::<T>(values)?;
            n.is_multiple_of_den(d).then(|| n.exact_div(d))
        };
        match self {
            Node::Slot(k) => values.get(*k).map(|v| T::widen(*v)),
            Node::Floor(x) => {
                let (n, d) = x.eval_in::<T>(values)?;
                n.floor_div(d)
            }
            // Every argument must have a value (an overflow is no value, not a
            // smaller one).
            Node::Min(args) => args
                .iter()
                .try_fold(None, |m: Option<T>, a| {
                    let v = int(a)?;
                    Some(Some(m.map_or(v, |m| m.min(v))))
                })
                .flatten(),
            Node::Max(args) => args
                .iter()
                .try_fold(None, |m: Option<T>, a| {
                    let v = int(a)?;
                    Some(Some(m.map_or(v, |m| m.max(v))))
                })
                .flatten(),
            Node::Mod(a, b) => int(a)?.trunc_rem(int(b)?),
            Node::IDiv(a, b) => int(a)?.trunc_div(int(b)?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Num;
    use proptest::prelude::*;

    fn var(n: &str) -> Sym {
        Sym::var(n)
    }

    /// Random expressions over `i`, `j`: rational coefficients, products, floor, MOD,
    /// integer division, MIN and MAX.
    fn expr() -> impl Strategy<Value = Sym> {
        let leaf = prop_oneof![
            (-7i128..8).prop_map(Sym::int),
            Just(var("i")),
            Just(var("j")),
        ];
        leaf.prop_recursive(3, 24, 3, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| a.add(&b).unwrap()),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| a.mul(&b).unwrap()),
                (inner.clone(), 1i128..5)
                    .prop_map(|(a, d)| a.mul(&Sym::rat(Rational::new(1, d).unwrap())).unwrap()),
                inner.clone().prop_map(|a| a.floor().unwrap()),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Sym::min(&[a, b]).unwrap()),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Sym::max(&[a, b]).unwrap()),
                (inner.clone(), 1i128..5).prop_map(|(a, d)| a
                    .floor()
                    .unwrap()
                    .fmod(&Sym::int(d))
                    .unwrap()),
                (inner.clone(), 1i128..5).prop_map(|(a, d)| a
                    .floor()
                    .unwrap()
                    .idiv(&Sym::int(d))
                    .unwrap()),
            ]
        })
    }

    proptest! {
        /// Wherever the compiled form has a value it is `Sym::eval`'s exact value.
        #[test]
        fn compiled_values_equal_symbolic_ones(e in expr(), i in -9i64..10, j in -9i64..10) {
            let slot = |n: &str| match n { "i" => Some(0), "j" => Some(1), _ => None };
            let Some(c) = Compiled::new(&e, &slot) else { return Ok(()) };
            let env = |n: &str| match n { "i" => Some(i.into()), "j" => Some(j.into()), _ => None };
            if let Some(v) = c.eval_rational(&[i, j]) {
                prop_assert_eq!(e.eval(&env).ok(), Some(Num::Exact(v)));
            }
        }
    }

    #[test]
    fn a_triangular_bound_with_a_floor_compiles() {
        // n - floor(j/2) with n bound: 100 - ⌊j/2⌋
        let e = Sym::int(100)
            .sub(
                &var("j")
                    .mul(&Sym::rat(Rational::new(1, 2).unwrap()))
                    .unwrap()
                    .floor()
                    .unwrap(),
            )
            .unwrap();
        let c = Compiled::new(&e, &|n| (n == "j").then_some(0)).expect("compiles");
        assert_eq!(c.eval_int(&[7]), Some(97));
        assert_eq!(c.eval_int(&[-3]), Some(102));
    }

    #[test]
    fn past_i64_the_value_comes_from_i128() {
        // max(i·j, 5) at i = j = 2^40: i·j overflows i64, not i128, and is no smaller
        // value than 5 for overflowing.
        let e = Sym::max(&[var("i").mul(&var("j")).unwrap(), Sym::int(5)]).unwrap();
        let slot = |n: &str| match n {
            "i" => Some(0),
            "j" => Some(1),
            _ => None,
        };
        let c = Compiled::new(&e, &slot).expect("compiles");
        let big = 1i64 << 40;
        assert_eq!(c.eval_int(&[big, big]), Some(1i128 << 80));
        assert_eq!(c.eval_int(&[3, -4]), Some(5));
    }

    #[test]
    fn an_unknown_name_does_not_compile() {
        assert!(Compiled::new(&var("n"), &|_| None).is_none());
    }
}
