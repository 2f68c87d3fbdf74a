use super::*;
use crate::{Notation, Num};

fn v(s: &str) -> Sym {
    Sym::var(s)
}

fn c(s: Result<Constraint, SymError>) -> Constraint {
    s.unwrap()
}

fn budget() -> Budget {
    Budget::new(10_000, 100_000)
}

fn names(ns: &[&str]) -> Vec<Name> {
    ns.iter().map(|n| Name::from(*n)).collect()
}

/// Brute-force count of the integer points of `cons` over `vars` in `[-r, r]^k`.
fn brute(cons: &[Constraint], vars: &[Name], params: &[(&str, i128)], r: i128) -> i128 {
    fn rec(cons: &[Constraint], vars: &[Name], env: &mut Vec<(String, i128)>, r: i128) -> i128 {
        let Some((v, rest)) = vars.split_first() else {
            let look = |n: &str| env.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
            return i128::from(cons.iter().all(|c| c.eval(&look).unwrap()));
        };
        let mut total = 0;
        for x in -r..=r {
            env.push((v.to_string(), x));
            total += rec(cons, rest, env, r);
            env.pop();
        }
        total
    }
    let mut env: Vec<(String, i128)> = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    rec(cons, vars, &mut env, r)
}

/// The count at `params`, by [`Piecewise::eval`] and by its compiled form, which must
/// agree.
fn eval(p: &Piecewise, params: &[(&str, i128)]) -> i128 {
    let look = |n: &str| params.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
    let exact = match p.eval(&look).unwrap() {
        Num::Exact(r) => r.as_integer().expect("an integer count"),
        Num::Approx(f) => panic!("approximate {f}"),
    };
    let slot = |n: &str| params.iter().position(|(k, _)| *k == n);
    let compiled = crate::CompiledPiecewise::new(p, &slot).expect("a compiled form");
    let values: Vec<i64> = params.iter().map(|(_, v)| *v as i64).collect();
    assert_eq!(
        compiled.eval(&values),
        Some(Rational::int(exact)),
        "compiled at {params:?}"
    );
    exact
}

#[test]
fn p3t_plus_first_example_reproduces_the_papers_piecewise_count() {
    // DO J1=1,N1; DO J2=1,N2*J1; IF (J1 <= N2) S
    let (j1, j2, n1, n2) = (v("j1"), v("j2"), v("n1"), v("n2"));
    let cons = vec![
        c(Constraint::ge(&j1, &Sym::one())),
        c(Constraint::le(&j1, &n1)),
        c(Constraint::ge(&j2, &Sym::one())),
        c(Constraint::le(&j2, &n2.mul(&j1).unwrap())),
        c(Constraint::le(&j1, &n2)),
    ];
    let vars = names(&["j2", "j1"]);
    let p = symbolic_sum(cons.clone(), &vars, Sym::one(), &mut budget()).unwrap();
    // The paper: N1²N2/2 + N1N2/2 if 1 <= N1 <= N2; N2³/2 + N2²/2 if 1 <= N2 < N1.
    assert_eq!(
        p.display(Notation::Fortran),
        "(n1**2*n2 + n1*n2)/2 if n1 >= 1, n2 >= n1; (n2**3 + n2**2)/2 if n1 >= n2 + 1, n2 >= 1"
    );
    for a in -2..8 {
        for b in -2..8 {
            let params = [("n1", a), ("n2", b)];
            // J2 ranges up to N2*J1 <= 64; brute force over a box that holds it.
            assert_eq!(
                eval(&p, &params),
                brute(&cons, &vars, &params, 70),
                "n1={a} n2={b}"
            );
        }
    }
}

#[test]
fn triangular_banded_and_min_bounds() {
    let (i, j, n, w) = (v("i"), v("j"), v("n"), v("w"));
    // do i = 1, n; do j = max(1, i - w), min(n, i + w)
    let cons = vec![
        c(Constraint::ge(&i, &Sym::one())),
        c(Constraint::le(&i, &n)),
        c(Constraint::ge(&j, &Sym::one())),
        c(Constraint::ge(&j, &i.sub(&w).unwrap())),
        c(Constraint::le(&j, &n)),
        c(Constraint::le(&j, &i.add(&w).unwrap())),
    ];
    let vars = names(&["j", "i"]);
    let p = symbolic_sum(cons.clone(), &vars, Sym::one(), &mut budget()).unwrap();
    for nn in 0..9 {
        for ww in 0..5 {
            let params = [("n", nn), ("w", ww)];
            assert_eq!(
                eval(&p, &params),
                brute(&cons, &vars, &params, 12),
                "n={nn} w={ww}"
            );
        }
    }
}

#[test]
fn steps_and_integer_division_are_exact() {
    // do i = 1, n; do j = i, n, 3  →  j = i + 3t, 0 <= 3t <= n - i
    let (i, t, n) = (v("i"), v("t"), v("n"));
    let cons = vec![
        c(Constraint::ge(&i, &Sym::one())),
        c(Constraint::le(&i, &n)),
        c(Constraint::ge(&t, &Sym::zero())),
        c(Constraint::le(
            &t.scale(Rational::int(3)).unwrap(),
            &n.sub(&i).unwrap(),
        )),
    ];
    let vars = names(&["t", "i"]);
    let p = symbolic_sum(cons.clone(), &vars, Sym::one(), &mut budget()).unwrap();
    for nn in -2..15 {
        let params = [("n", nn)];
        assert_eq!(
            eval(&p, &params),
            brute(&cons, &vars, &params, 16),
            "n={nn}"
        );
    }
    // do i = 1, n/2 (Fortran integer division of a nonnegative n)
    let cons = vec![
        c(Constraint::ge(&i, &Sym::one())),
        c(Constraint::le(&i, &n.idiv(&Sym::int(2)).unwrap())),
        c(Constraint::ge(&n, &Sym::zero())),
    ];
    let vars = names(&["i"]);
    let p = symbolic_sum(cons, &vars, i.clone(), &mut budget()).unwrap();
    for nn in 0..12 {
        let h = nn / 2;
        assert_eq!(eval(&p, &[("n", nn)]), h * (h + 1) / 2, "n={nn}");
    }
}

#[test]
fn budget_stops_runaway_splits() {
    let (i, n) = (v("i"), v("n"));
    let mut cons = vec![c(Constraint::ge(&i, &Sym::one()))];
    for k in 0..12 {
        cons.push(c(Constraint::le(
            &i,
            &n.add_int(k).unwrap().mul(&v(&format!("p{k}"))).unwrap(),
        )));
    }
    let mut tight = Budget::new(5, 50);
    assert_eq!(
        symbolic_sum(cons, &names(&["i"]), Sym::one(), &mut tight),
        Err(SumError::OverBudget)
    );
}

#[test]
fn a_remembered_sum_is_the_computed_one_and_costs_the_same_budget() {
    // 1 <= j <= n, j <= i <= n: a triangle, summed twice, then under a budget too small.
    let (i, j, n) = (v("i"), v("j"), v("n"));
    let cons = vec![
        c(Constraint::ge(&j, &Sym::one())),
        c(Constraint::le(&j, &n)),
        c(Constraint::ge(&i, &j)),
        c(Constraint::le(&i, &n)),
    ];
    let vars = names(&["i", "j"]);
    let mut first = budget();
    let computed = symbolic_sum(cons.clone(), &vars, Sym::one(), &mut first).unwrap();
    let mut second = budget();
    let remembered = symbolic_sum(cons.clone(), &vars, Sym::one(), &mut second).unwrap();
    assert_eq!(computed, remembered);
    assert_eq!(first.steps(), second.steps());
    assert_eq!(eval(&remembered, &[("n", 5)]), 15);
    // The same sum with less budget left is another question, with its own answer.
    for _ in 0..2 {
        let mut small = Budget::new(10_000, first.steps() - 1);
        let result = symbolic_sum(cons.clone(), &vars, Sym::one(), &mut small);
        assert_eq!(result, Err(SumError::OverBudget));
        assert_eq!(small.steps(), first.steps());
    }
}
