//! Benchmarks of the symbolic sum (P^3T+ Figure 2) on the loop nests it is made for,
//! and of `freq::frequencies` on a unit made of such nests.
//!
//! Each symbolic sum gets a fresh `Budget::new(2048, 100_000)` (generous)
//! and must produce a formula: a benchmark of a sum that gave up would measure
//! the budget, not the algorithm.

use costline_db::project;
use costline_model::freq::{self, FreqOptions};
use costline_symbolic::{Budget, Constraint, Name, Sym, symbolic_sum};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::collections::BTreeMap;
use std::hint::black_box;

fn v(name: &str) -> Sym {
    Sym::var(name)
}

fn ge(a: &Sym, b: &Sym) -> Constraint {
    Constraint::ge(a, b).expect("small coefficients")
}

fn le(a: &Sym, b: &Sym) -> Constraint {
    Constraint::le(a, b).expect("small coefficients")
}

fn plus(a: &Sym, b: &Sym) -> Sym {
    a.add(b).expect("small coefficients")
}

fn minus(a: &Sym, b: &Sym) -> Sym {
    a.sub(b).expect("small coefficients")
}

fn names(ns: &[&str]) -> Vec<Name> {
    ns.iter().map(|n| Name::from(*n)).collect()
}

/// `do i = 1, n; do j = 1, i; do k = 1, j`: summed innermost first.
fn triangular_depth_3() -> (Vec<Constraint>, Vec<Name>) {
    let (one, n, i, j, k) = (Sym::one(), v("n"), v("i"), v("j"), v("k"));
    let cons = vec![
        ge(&i, &one),
        le(&i, &n),
        ge(&j, &one),
        le(&j, &i),
        ge(&k, &one),
        le(&k, &j),
    ];
    (cons, names(&["k", "j", "i"]))
}

/// `do i1 = 1, n` and three banded loops inside, each
/// `do iK = max(1, iJ - w), min(n, iJ + w)` on the loop around it (a MAX lower bound is
/// two lower bounds, a MIN upper bound two upper bounds).
fn banded_depth_4() -> (Vec<Constraint>, Vec<Name>) {
    let (one, n, w) = (Sym::one(), v("n"), v("w"));
    let mut cons = vec![ge(&v("i1"), &one), le(&v("i1"), &n)];
    for (outer, inner) in [("i1", "i2"), ("i2", "i3"), ("i3", "i4")] {
        let (o, i) = (v(outer), v(inner));
        cons.extend([
            ge(&i, &one),
            ge(&i, &minus(&o, &w)),
            le(&i, &n),
            le(&i, &plus(&o, &w)),
        ]);
    }
    (cons, names(&["i4", "i3", "i2", "i1"]))
}

/// `do i1 = 1, n; do i2 = 1, m; do i3 = i1, n; do i4 = i2, i3`: two rectangular and
/// two triangular loops.
fn affine_depth_4() -> (Vec<Constraint>, Vec<Name>) {
    let (one, n, m) = (Sym::one(), v("n"), v("m"));
    let (i1, i2, i3, i4) = (v("i1"), v("i2"), v("i3"), v("i4"));
    let cons = vec![
        ge(&i1, &one),
        le(&i1, &n),
        ge(&i2, &one),
        le(&i2, &m),
        ge(&i3, &i1),
        le(&i3, &n),
        ge(&i4, &i2),
        le(&i4, &i3),
    ];
    (cons, names(&["i4", "i3", "i2", "i1"]))
}

/// A subroutine with the nests above written in Fortran, a stepped loop and an IF
/// guard. (The banded nest has no formula there yet: the walker keeps `min(n, i + w)`
/// as one bound, which the symbolic sum rejects at once; see the ignored
/// `known_bug_banded_bounds_have_no_formula` in tests/freq_oracle.rs.)
const UNIT: &str = "subroutine nests(a, n, m, w)
  implicit none
  integer :: n, m, w, i, j, k, l
  real :: a(n, n)
  do i = 1, n
    do j = 1, i
      do k = 1, j
        a(i, j) = a(i, j) + a(j, k)
      end do
    end do
  end do
  do i = 1, n
    do j = max(1, i - w), min(n, i + w)
      do k = max(1, j - w), min(n, j + w)
        do l = max(1, k - w), min(n, k + w)
          a(i, l) = a(i, l) + a(j, k)
        end do
      end do
    end do
  end do
  do i = 1, n
    do j = 1, m
      do k = i, n
        do l = j, k
          a(k, l) = a(i, j)
        end do
      end do
    end do
  end do
  do i = 1, n
    do j = i, n, 2
      if (i + j <= n) then
        a(i, j) = 0
      else
        a(j, i) = 0
      end if
    end do
  end do
end subroutine
";

fn bench_sum(c: &mut Criterion, id: &str, (cons, vars): (Vec<Constraint>, Vec<Name>)) {
    let budget = || Budget::new(2048, 100_000);
    let check = symbolic_sum(cons.clone(), &vars, Sym::one(), &mut budget());
    assert!(check.is_ok(), "{id}: the symbolic sum gave up: {check:?}");
    c.bench_function(id, |b| {
        b.iter_batched(
            || (cons.clone(), budget()),
            |(cons, mut budget)| symbolic_sum(cons, black_box(&vars), Sym::one(), &mut budget),
            BatchSize::SmallInput,
        )
    });
}

fn sums(c: &mut Criterion) {
    bench_sum(c, "symbolic_sum/triangular_depth_3", triangular_depth_3());
    bench_sum(c, "symbolic_sum/banded_min_max_depth_4", banded_depth_4());
    bench_sum(c, "symbolic_sum/affine_depth_4", affine_depth_4());
}

fn frequencies(c: &mut Criterion) {
    let files = project::analyze(
        &[("nests.f90".into(), UNIT.as_bytes().to_vec())],
        &BTreeMap::new(),
    );
    let file = files.into_iter().next().expect("one file").expect("loads");
    let unit = &file.units[0].unit;
    let options = FreqOptions {
        unit_max_steps: None,
        ..FreqOptions::default()
    };
    c.bench_function("freq/frequencies_of_four_nests", |b| {
        b.iter(|| freq::frequencies(black_box(unit), &options))
    });
}

criterion_group!(benches, sums, frequencies);
criterion_main!(benches);
