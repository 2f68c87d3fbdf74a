use super::*;

fn v(s: &str) -> Sym {
    Sym::var(s)
}

fn env(pairs: &[(&str, i128)]) -> impl Fn(&str) -> Option<i128> {
    let pairs: Vec<(String, i128)> = pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    move |n| pairs.iter().find(|(k, _)| k == n).map(|(_, v)| *v)
}

#[test]
fn canonical_forms_make_equal_expressions_equal() {
    let (n, m) = (v("n"), v("m"));
    // (n + m)^2 = n^2 + 2nm + m^2
    let a = n.add(&m).unwrap().pow(2).unwrap();
    let b = n
        .pow(2)
        .unwrap()
        .add(&n.mul(&m).unwrap().scale(Rational::int(2)).unwrap())
        .unwrap()
        .add(&m.pow(2).unwrap())
        .unwrap();
    assert_eq!(a, b);
    assert!(a.sub(&b).unwrap().is_zero());
    // n/p * p = n
    let p = v("p");
    assert_eq!(n.div(&p).unwrap().mul(&p).unwrap(), n);
}

#[test]
fn floor_pulls_out_integer_parts() {
    let (n, i) = (v("n"), v("i"));
    let half = Rational::new(1, 2).unwrap();
    // floor(n/2 + i - 1) = i - 1 + floor(n/2)
    let e = n
        .scale(half)
        .unwrap()
        .add(&i)
        .unwrap()
        .add_int(-1)
        .unwrap()
        .floor()
        .unwrap();
    let expected = i
        .add_int(-1)
        .unwrap()
        .add(&n.scale(half).unwrap().floor().unwrap())
        .unwrap();
    assert_eq!(e, expected);
    // floor of an integer-valued expression is itself; of a constant, folded.
    assert_eq!(n.add(&i).unwrap().floor().unwrap(), n.add(&i).unwrap());
    assert_eq!(
        Sym::rat(Rational::new(-7, 2).unwrap()).floor().unwrap(),
        Sym::int(-4)
    );
    // floor(3n/2) = n + floor(n/2)
    let e = n
        .scale(Rational::new(3, 2).unwrap())
        .unwrap()
        .floor()
        .unwrap();
    assert_eq!(e, n.add(&n.scale(half).unwrap().floor().unwrap()).unwrap());
}

#[test]
fn evaluation_is_exact_and_follows_fortran_semantics() {
    let (n, p) = (v("n"), v("p"));
    let e = n.idiv(&p).unwrap().add(&n.fmod(&p).unwrap()).unwrap();
    assert_eq!(
        e.eval(&env(&[("n", -7), ("p", 2)])).unwrap(),
        Num::Exact(Rational::int(-4))
    );
    let e = n.div(&p).unwrap().ceil().unwrap();
    assert_eq!(
        e.eval(&env(&[("n", 7), ("p", 2)])).unwrap(),
        Num::Exact(Rational::int(4))
    );
    assert_eq!(
        e.eval(&env(&[("n", 7)])),
        Err(EvalError::Unbound("p".into()))
    );
    // Overflow falls back to an approximate float.
    let big = n.pow(6).unwrap();
    match big.eval(&env(&[("n", 10_000_000)])).unwrap() {
        Num::Approx(x) => assert!((x / 1e42 - 1.0).abs() < 1e-9),
        other => panic!("{other:?}"),
    }
}

#[test]
fn substitution_resimplifies_atoms() {
    let (n, i) = (v("n"), v("i"));
    let e = Sym::min(&[i.clone(), n.clone()]).unwrap();
    assert_eq!(e.subst("i", &n.add_int(2).unwrap()).unwrap(), n);
    let f = i
        .scale(Rational::new(1, 2).unwrap())
        .unwrap()
        .floor()
        .unwrap();
    // i = 2t + 1: floor((2t + 1)/2) = t
    let t = v("t");
    let sub = t.scale(Rational::int(2)).unwrap().add_int(1).unwrap();
    assert_eq!(f.subst("i", &sub).unwrap(), t);
}

#[test]
fn polynomial_coefficients_in_a_variable() {
    let (n, i) = (v("n"), v("i"));
    let e = i
        .pow(2)
        .unwrap()
        .mul(&n)
        .unwrap()
        .add(&i)
        .unwrap()
        .add_int(3)
        .unwrap();
    let c = e.poly_in("i").unwrap();
    assert_eq!(c, vec![Sym::int(3), Sym::one(), n.clone()]);
    let inside = i
        .scale(Rational::new(1, 2).unwrap())
        .unwrap()
        .floor()
        .unwrap();
    assert!(inside.poly_in("i").is_none());
}
