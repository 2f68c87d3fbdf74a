//! The symbolic engine on arbitrary expressions (a fuzz target, proptest-driven, issue
//! 25): random trees over a few unknowns and constants up to the ends of i64 and i128,
//! combined by every operation, summed over random bounds with a small budget,
//! evaluated, compiled and printed. Nothing may panic or loop; an operation that cannot
//! be done says so (`Err`), and a value that overflows becomes approximate or an error.
//! A substitution is checked against evaluation: the substituted expression's value is
//! the original's at the substituted value.

use costline_symbolic::{
    Budget, Compiled, Constraint, Name, Notation, Num, Rational, Sym, symbolic_sum,
};
use proptest::prelude::*;

const VARS: [&str; 4] = ["i", "j", "n", "p"];

fn constant() -> impl Strategy<Value = i128> {
    prop_oneof![
        6 => -3i128..=3,
        1 => prop::sample::select(vec![
            63,
            1 << 31,
            1 << 62,
            i128::from(i64::MAX),
            i128::from(i64::MIN),
            1 << 100,
            -(1 << 100),
            i128::MAX,
            i128::MIN + 1,
            i128::MIN,
        ]),
    ]
}

#[derive(Clone, Debug)]
enum Tree {
    Var(usize),
    Int(i128),
    Ratio(i128, i128),
    Add(Box<Tree>, Box<Tree>),
    Sub(Box<Tree>, Box<Tree>),
    Mul(Box<Tree>, Box<Tree>),
    Div(Box<Tree>, Box<Tree>),
    Min(Box<Tree>, Box<Tree>),
    Max(Box<Tree>, Box<Tree>),
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        (0..VARS.len()).prop_map(Tree::Var),
        constant().prop_map(Tree::Int),
        (constant(), constant()).prop_map(|(a, b)| Tree::Ratio(a, b)),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        let pair = (inner.clone(), inner);
        prop_oneof![
            pair.clone()
                .prop_map(|(a, b)| Tree::Add(Box::new(a), Box::new(b))),
            pair.clone()
                .prop_map(|(a, b)| Tree::Sub(Box::new(a), Box::new(b))),
            pair.clone()
                .prop_map(|(a, b)| Tree::Mul(Box::new(a), Box::new(b))),
            pair.clone()
                .prop_map(|(a, b)| Tree::Div(Box::new(a), Box::new(b))),
            pair.clone()
                .prop_map(|(a, b)| Tree::Min(Box::new(a), Box::new(b))),
            pair.prop_map(|(a, b)| Tree::Max(Box::new(a), Box::new(b))),
        ]
    })
}

/// The expression a tree builds; `None` where an operation declined (overflow,
/// division by zero), which is an answer, not a failure.
fn build(t: &Tree) -> Option<Sym> {
    let two = |a: &Tree, b: &Tree| Some((build(a)?, build(b)?));
    match t {
        Tree::Var(k) => Some(Sym::var(VARS[*k])),
        Tree::Int(v) => Some(Sym::int(*v)),
        Tree::Ratio(a, b) => Rational::new(*a, *b).map(Sym::rat),
        Tree::Add(a, b) => two(a, b).and_then(|(x, y)| x.add(&y).ok()),
        Tree::Sub(a, b) => two(a, b).and_then(|(x, y)| x.sub(&y).ok()),
        Tree::Mul(a, b) => two(a, b).and_then(|(x, y)| x.mul(&y).ok()),
        Tree::Div(a, b) => two(a, b).and_then(|(x, y)| x.div(&y).ok()),
        Tree::Min(a, b) => two(a, b).and_then(|(x, y)| Sym::min(&[x, y]).ok()),
        Tree::Max(a, b) => two(a, b).and_then(|(x, y)| Sym::max(&[x, y]).ok()),
    }
}

fn env(values: [i128; 4]) -> impl Fn(&str) -> Option<i128> {
    move |v| VARS.iter().position(|x| *x == v).map(|k| values[k])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_expressions_are_built_evaluated_compiled_and_printed(
        t in tree(),
        values in prop::array::uniform4(constant()),
    ) {
        if let Some(e) = build(&t) {
            let _ = e.eval(&env(values));
            let _ = e.to_string();
            let slot = |v: &str| VARS.iter().position(|x| *x == v);
            if let Some(c) = Compiled::new(&e, &slot) {
                let small: Vec<i64> = values.iter().map(|v| *v as i64).collect();
                let _ = c.eval(&small);
            }
            let _ = e.subst("n", &Sym::int(values[2]));
        }
    }

    #[test]
    fn a_substitution_has_the_value_of_the_expression_at_the_substituted_value(
        t in tree(),
        values in prop::array::uniform4(-6i128..=6),
        var in 0..VARS.len(),
        by_constant in any::<bool>(),
        shift in -3i128..=3,
    ) {
        let Some(e) = build(&t) else { return Ok(()) };
        // `var` := a constant, or := 2·j + shift (j the next unknown).
        let other = VARS[(var + 1) % VARS.len()];
        let (value, at) = if by_constant {
            (Sym::int(shift), shift)
        } else {
            let value = Sym::var(other).scale(Rational::int(2)).and_then(|s| s.add_int(shift));
            let Ok(value) = value else { return Ok(()) };
            let k = VARS.iter().position(|x| *x == other).unwrap();
            (value, 2 * values[k] + shift)
        };
        let Ok(s) = e.subst(VARS[var], &value) else { return Ok(()) };
        let mut moved = values;
        moved[var] = at;
        if let (Ok(Num::Exact(want)), Ok(Num::Exact(got))) =
            (e.eval(&env(moved)), s.eval(&env(values)))
        {
            prop_assert_eq!(want, got, "{} with {} := {}: {}", e, VARS[var], value, s);
        }
    }

    #[test]
    fn arbitrary_sums_end_within_their_budget(
        lo in tree(),
        hi in tree(),
        summand in tree(),
        values in prop::array::uniform4(-50i128..50),
    ) {
        let (Some(lo), Some(hi), Some(summand)) = (build(&lo), build(&hi), build(&summand)) else {
            return Ok(());
        };
        let i = Sym::var("i");
        let (Ok(above), Ok(below)) = (Constraint::ge(&i, &lo), Constraint::le(&i, &hi)) else {
            return Ok(());
        };
        let vars: Vec<Name> = vec![Name::from("i")];
        let mut budget = Budget::new(16, 2_000);
        if let Ok(sum) = symbolic_sum(vec![above, below], &vars, summand, &mut budget) {
            prop_assert!(budget.steps() <= 2_000 + 1);
            let _ = sum.eval(&env(values));
            let _ = sum.display(Notation::Fortran);
        }
    }
}
