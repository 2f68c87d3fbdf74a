//! A piecewise value written as disjoint cases, the way it reads: `7*n - 12 if n >= 7;
//! 15 if n = 6; ...`.
//!
//! A [`Piecewise`] adds its pieces up, `v = Σ_i γ(C_i)·E_i`; its cases are cells `D_j`
//! with values `F_j` such that `v = F_j` on `D_j`, the cells are pairwise disjoint, and
//! `v = 0` outside them. They are found by refinement: start from one cell (no
//! constraint, value 0); for every piece `(C, E)` split every cell `D` into `D ∧ C`
//! (value + E) and the parts of `D ∧ ¬C`, `¬(c_1 ∧ ... ∧ c_k) = ¬c_1 ∨ (c_1 ∧ ¬c_2) ∨
//! ...` (over the integers `¬(e ≥ 0)` is `-e - 1 ≥ 0`, `¬(e = 0)` is `e ≥ 1 ∨ -e ≥ 1`:
//! `Constraint::negated`); cells that no integer point satisfies are dropped
//! (`feasible`). Then cells of value 0 are left out, cells of equal value are merged
//! where their union is a conjunction again (the constraints each implies of the other,
//! when those admit no point outside both), and constraints implied by the rest of their
//! guard are dropped (`e ≥ 0` with `-e ≥ 0` becomes `e = 0`; an unknown an equality
//! fixes is substituted into the value when that shortens it).
//!
//! The refinement can take up to `(k + 1)^pieces` cells; past [`MAX_CELLS`] cells, or
//! past the feasibility test's budget (a number of eliminations, so the output does not
//! depend on the machine), the value is kept as the sum of its pieces ([`Cases::Sum`])
//! and printed as one, `(a if c) + (b if d)`, never as cases. (Merging and guard
//! simplification stop where the budget runs out; the cases stay exact.)

use super::constraint::{Constraint, Rel};
use super::display::Notation;
use super::eval::{Env, EvalError, Num};
use super::feasible::Feasibility;
use super::memo::SharedMemo;
use super::piecewise::{Piece, Piecewise};
use super::rational::Rational;
use super::sym::{Atom, Sym};
use std::collections::HashSet;

/// The most cells the refinement may hold; beyond, the value stays a sum of pieces.
pub const MAX_CELLS: usize = 48;

/// `value` where every constraint of `guard` holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Case {
    /// A conjunction of constraints over the parameters.
    pub guard: Vec<Constraint>,
    pub value: Sym,
}

/// A piecewise value as disjoint cases, or as the sum of its pieces where the cases
/// would be too many.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cases {
    /// At most one guard holds at any point: the value is that case's value, or 0 where
    /// none holds.
    Disjoint(Vec<Case>),
    /// The value is the sum of the values of the pieces whose guards hold
    /// (`Σ γ(C_i)·E_i`).
    Sum(Vec<Piece>),
}

impl Cases {
    /// The value under `env`: the value of the case whose guard holds (0 if none), or the
    /// sum of the pieces whose guards hold.
    pub fn eval(&self, env: Env) -> Result<Num, EvalError> {
        match self {
            Cases::Disjoint(cases) => {
                for c in cases {
                    if holds(&c.guard, env)? {
                        return c.value.eval(env);
                    }
                }
                Ok(Num::Exact(Rational::ZERO))
            }
            Cases::Sum(pieces) => Piecewise {
                pieces: pieces.clone(),
            }
            .eval(env),
        }
    }

    /// How many cases (or pieces of the sum) there are.
    pub fn len(&self) -> usize {
        match self {
            Cases::Disjoint(c) => c.len(),
            Cases::Sum(p) => p.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Disjoint cases as `value if c1, c2; value if ...` (`0` for none; a value alone
    /// when it needs no guard); a sum as `(value if c1, c2) + (value if ...)`.
    pub fn display(&self, n: Notation) -> String {
        let guarded = |value: &Sym, guard: &[Constraint]| {
            let value = value.display(n);
            if guard.is_empty() {
                value
            } else {
                let guard: Vec<String> = guard.iter().map(|c| c.display(n)).collect();
                format!("{value} if {}", guard.join(", "))
            }
        };
        match self {
            Cases::Disjoint(cases) if cases.is_empty() => "0".into(),
            Cases::Disjoint(cases) => cases
                .iter()
                .map(|c| guarded(&c.value, &c.guard))
                .collect::<Vec<_>>()
                .join("; "),
            Cases::Sum(pieces) => pieces
                .iter()
                .map(|p| format!("({})", guarded(&p.value, &p.guard)))
                .collect::<Vec<_>>()
                .join(" + "),
        }
    }
}

/// Whether every constraint of `guard` holds under `env` (deciding them in order).
fn holds(guard: &[Constraint], env: Env) -> Result<bool, EvalError> {
    for c in guard {
        if !c.eval(env)? {
            return Ok(false);
        }
    }
    Ok(true)
}

impl Piecewise {
    /// The value as disjoint cases (see the module's documentation), or as the sum of its
    /// pieces when the cases would take more than [`MAX_CELLS`] cells or more work than
    /// the budget allows.
    pub fn cases(&self) -> Cases {
        // Shared: the threads of a cold analysis print the same counts.
        static CASES: SharedMemo<Piecewise, Cases> = SharedMemo::new(1024);
        if let Some(cases) = CASES.get(self) {
            return cases;
        }
        let cases = self.compute_cases();
        CASES.insert(self.clone(), cases.clone());
        cases
    }

    /// [`Piecewise::cases`], computed.
    fn compute_cases(&self) -> Cases {
        // Pieces of the same guard added up, zero pieces left out.
        let mut pieces: Vec<Piece> = Vec::with_capacity(self.pieces.len());
        for p in &self.pieces {
            let mut guard = p.guard.clone();
            guard.sort();
            guard.dedup();
            match pieces.iter_mut().find(|q| q.guard == guard) {
                Some(q) => match q.value.add(&p.value) {
                    Ok(v) => q.value = v,
                    Err(_) => return Cases::Sum(self.pieces.clone()),
                },
                None => pieces.push(Piece {
                    guard,
                    value: p.value.clone(),
                }),
            }
        }
        pieces.retain(|p| !p.value.is_zero());
        match disjoint(&pieces) {
            Some(cases) => Cases::Disjoint(cases),
            None => Cases::Sum(pieces),
        }
    }
}

/// The disjoint cases of `Σ γ(C_i)·E_i`, or `None` past [`MAX_CELLS`] cells, past the
/// feasibility budget, or on an overflow.
fn disjoint(pieces: &[Piece]) -> Option<Vec<Case>> {
    let mut f = Feasibility::default();
    let mut cells = vec![Case {
        guard: Vec::new(),
        value: Sym::zero(),
    }];
    for p in pieces {
        let Some(guard) = normalized(&p.guard) else {
            continue; // never holds
        };
        let mut next = Vec::with_capacity(cells.len() * 2);
        for cell in cells {
            split(&mut f, cell, &guard, &p.value, &mut next)?;
            if next.len() > MAX_CELLS {
                return None;
            }
        }
        cells = next;
        if f.exhausted() {
            return None;
        }
    }
    cells.retain(|c| !c.value.is_zero());
    for c in &mut cells {
        c.guard = simplified(&mut f, std::mem::take(&mut c.guard));
    }
    let mut cases = merged(&mut f, cells);
    for c in &mut cases {
        if let Some(v) = pinned(&c.value, &c.guard) {
            c.value = v;
        }
    }
    Some(cases)
}

/// The value with the unknowns that equalities of its guard fix substituted, when that
/// leaves fewer terms (`n - 4 if n = 5` → `1 if n = 5`).
fn pinned(value: &Sym, guard: &[Constraint]) -> Option<Sym> {
    let mut eqs: Vec<Sym> = guard
        .iter()
        .filter(|c| c.rel == Rel::Eq)
        .map(|c| c.expr.clone())
        .collect();
    let mut v = value.clone();
    while let Some(e) = eqs.pop() {
        let Some((x, solution)) = solved(&e) else {
            continue;
        };
        v = v.subst(&x, &solution).ok()?;
        for e in &mut eqs {
            *e = e.subst(&x, &solution).ok()?;
        }
    }
    let size = |s: &Sym| (s.terms().len(), s.vars().len());
    (size(&v) < size(value)).then_some(v)
}

/// The constraints normalized, those that always hold dropped; `None` when one never
/// holds.
fn normalized(guard: &[Constraint]) -> Option<Vec<Constraint>> {
    let mut out = Vec::with_capacity(guard.len());
    for c in guard {
        let c = c.clone().normalized().unwrap_or_else(|_| c.clone());
        match c.truth() {
            Some(true) => {}
            Some(false) => return None,
            None => {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
    }
    Some(out)
}

/// Splits `cell` by a piece (`guard`, `value`) into `cell ∧ guard` (its value plus
/// `value`) and the disjoint parts of `cell ∧ ¬guard`, pushing the feasible ones.
fn split(
    f: &mut Feasibility,
    cell: Case,
    guard: &[Constraint],
    value: &Sym,
    out: &mut Vec<Case>,
) -> Option<()> {
    let fresh: Vec<&Constraint> = guard.iter().filter(|c| !cell.guard.contains(c)).collect();
    let mut inside = cell.guard.clone();
    inside.extend(fresh.iter().map(|c| (*c).clone()));
    if fresh.is_empty() || !f.infeasible(&inside) {
        out.push(Case {
            guard: inside,
            value: cell.value.add(value).ok()?,
        });
    } else {
        // The piece misses the cell entirely.
        out.push(cell);
        return Some(());
    }
    // ¬(c1 ∧ ... ∧ ck) = ¬c1 ∨ (c1 ∧ ¬c2) ∨ ... within the cell.
    let mut prefix = cell.guard;
    for c in fresh {
        for neg in c.negated().ok()? {
            let mut part = prefix.clone();
            part.push(neg);
            if !f.infeasible(&part) {
                out.push(Case {
                    guard: part,
                    value: cell.value.clone(),
                });
            }
        }
        prefix.push(c.clone());
    }
    Some(())
}

/// Cells merged where their union is a conjunction and one value holds on both: equal
/// values, or one that the other cell's equalities turn into the other's (`n² = 7n - 12`
/// where `n = 4`).
fn merged(f: &mut Feasibility, cells: Vec<Case>) -> Vec<Case> {
    // Each cell with a number, so that a pair found not to merge is not tried again.
    let mut cells: Vec<(usize, Case)> = cells.into_iter().enumerate().collect();
    let mut fresh = cells.len();
    let mut tried: HashSet<(usize, usize)> = HashSet::new();
    'again: loop {
        if f.exhausted() {
            break;
        }
        for i in 0..cells.len() {
            for j in (i + 1)..cells.len() {
                let ((ia, a), (ib, b)) = (&cells[i], &cells[j]);
                if !tried.insert((*ia, *ib)) {
                    continue;
                }
                let value = if agrees(&a.value, &b.value, &b.guard) {
                    a.value.clone()
                } else if agrees(&b.value, &a.value, &a.guard) {
                    b.value.clone()
                } else {
                    continue;
                };
                if let Some(hull) = union(f, &inequalities(&a.guard), &inequalities(&b.guard)) {
                    let guard = simplified(f, hull);
                    cells[i] = (fresh, Case { guard, value });
                    fresh += 1;
                    cells.remove(j);
                    continue 'again;
                }
            }
        }
        break;
    }
    cells.into_iter().map(|(_, c)| c).collect()
}

/// Whether `value` equals `other` wherever `guard` holds, as far as the equalities of
/// `guard` show (each solved for an unknown of coefficient ±1 and substituted).
fn agrees(value: &Sym, other: &Sym, guard: &[Constraint]) -> bool {
    let mut eqs: Vec<Sym> = guard
        .iter()
        .filter(|c| c.rel == Rel::Eq)
        .map(|c| c.expr.clone())
        .collect();
    if eqs.is_empty() {
        return value == other;
    }
    let Ok(mut d) = value.sub(other) else {
        return false;
    };
    while let Some(e) = eqs.pop() {
        if d.is_zero() {
            break;
        }
        let Some((x, solution)) = solved(&e) else {
            continue;
        };
        let Ok(next) = d.subst(&x, &solution) else {
            return false;
        };
        d = next;
        for e in &mut eqs {
            match e.subst(&x, &solution) {
                Ok(s) => *e = s,
                Err(_) => return false,
            }
        }
    }
    d.is_zero()
}

/// `e = 0` solved for an unknown `x` of coefficient ±1 that occurs nowhere else in `e`:
/// `(x, value)`.
fn solved(e: &Sym) -> Option<(String, Sym)> {
    for t in e.terms() {
        let [(Atom::Var(x), 1)] = t.mono.factors() else {
            continue;
        };
        if t.coef != Rational::ONE && t.coef != Rational::int(-1) {
            continue;
        }
        let rest = e.sub(&Sym::from_term(t)).ok()?;
        if rest.mentions(x) {
            continue;
        }
        // c·x + rest = 0 → x = -rest/c = -c·rest (c = ±1)
        let value = rest.scale(t.coef.checked_neg().ok()?).ok()?;
        return Some((x.to_string(), value));
    }
    None
}

/// The guard with every equality `e = 0` as `e ≥ 0` and `-e ≥ 0`.
fn inequalities(guard: &[Constraint]) -> Vec<Constraint> {
    let mut out = Vec::with_capacity(guard.len() + 1);
    for c in guard {
        match (c.rel, c.expr.neg()) {
            (Rel::Eq, Ok(neg)) => {
                out.push(Constraint {
                    expr: c.expr.clone(),
                    rel: Rel::Ge,
                });
                out.push(Constraint {
                    expr: neg,
                    rel: Rel::Ge,
                });
            }
            _ => out.push(c.clone()),
        }
    }
    out
}

/// The union of two conjunctions as one, when it is one: the constraints of each that
/// the other implies, when every point they admit satisfies `a` or `b`.
fn union(f: &mut Feasibility, a: &[Constraint], b: &[Constraint]) -> Option<Vec<Constraint>> {
    let mut hull: Vec<Constraint> = a.iter().filter(|c| f.implies(b, c)).cloned().collect();
    for c in b {
        if !hull.contains(c) && f.implies(a, c) {
            hull.push(c.clone());
        }
    }
    // hull ∧ ¬a ∧ ¬b must be empty: for every constraint of a and of b outside the hull,
    // every part of their negations.
    let outside = |g: &[Constraint]| -> Option<Vec<Constraint>> {
        let mut negs = Vec::new();
        for c in g.iter().filter(|c| !hull.contains(c)) {
            negs.extend(c.negated().ok()?);
        }
        Some(negs)
    };
    let (na, nb) = (outside(a)?, outside(b)?);
    for x in &na {
        for y in &nb {
            let mut all = hull.clone();
            all.push(x.clone());
            all.push(y.clone());
            if !f.infeasible(&all) {
                return None;
            }
        }
    }
    Some(hull)
}

/// A guard without the constraints the others imply, `e ≥ 0` and `-e ≥ 0` joined into
/// `e = 0`, sorted.
fn simplified(f: &mut Feasibility, mut guard: Vec<Constraint>) -> Vec<Constraint> {
    guard.sort();
    guard.dedup();
    let mut k = if f.exhausted() { 0 } else { guard.len() };
    while k > 0 {
        k -= 1;
        let rest: Vec<Constraint> = guard
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != k)
            .map(|(_, c)| c.clone())
            .collect();
        if f.implies(&rest, &guard[k]) {
            guard.remove(k);
        }
    }
    let mut out: Vec<Constraint> = Vec::with_capacity(guard.len());
    let mut used = vec![false; guard.len()];
    for i in 0..guard.len() {
        if used[i] {
            continue;
        }
        let c = &guard[i];
        let opposite = (c.rel == Rel::Ge)
            .then(|| {
                (i + 1..guard.len()).find(|&j| {
                    !used[j]
                        && guard[j].rel == Rel::Ge
                        && c.expr.add(&guard[j].expr).is_ok_and(|s| s.is_zero())
                })
            })
            .flatten();
        match opposite {
            Some(j) => {
                used[j] = true;
                out.push(equality(c));
            }
            None => out.push(c.clone()),
        }
    }
    out.sort();
    out
}

/// `e = 0` for `e ≥ 0`, signed so that its first non-constant term is positive (`n = 5`
/// rather than `5 = n`).
fn equality(c: &Constraint) -> Constraint {
    let first = c.expr.terms().iter().find(|t| !t.mono.is_one());
    let expr = match first {
        Some(t) if t.coef.signum() < 0 => c.expr.neg().unwrap_or_else(|_| c.expr.clone()),
        _ => c.expr.clone(),
    };
    Constraint { expr, rel: Rel::Eq }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Budget, Name, symbolic_sum};
    use proptest::prelude::*;

    fn v(s: &str) -> Sym {
        Sym::var(s)
    }

    fn at(n: i128, m: i128) -> impl Fn(&str) -> Option<i128> {
        move |x| match x {
            "n" => Some(n),
            "m" => Some(m),
            _ => None,
        }
    }

    fn exact(x: Num) -> Rational {
        match x {
            Num::Exact(r) => r,
            Num::Approx(f) => panic!("approximate {f}"),
        }
    }

    /// The band `|i - j| <= 3` on `1..n`, the example barvinok prints as
    /// `-12 + 7n : n >= 5; n^2 : 0 < n <= 4`.
    fn band() -> Piecewise {
        let (i, j, n) = (v("i"), v("j"), v("n"));
        let c = |r: Result<Constraint, _>| r.unwrap();
        let cons = vec![
            c(Constraint::ge(&i, &Sym::one())),
            c(Constraint::le(&i, &n)),
            c(Constraint::ge(&j, &Sym::one())),
            c(Constraint::le(&j, &n)),
            c(Constraint::le(&i.sub(&j).unwrap(), &Sym::int(3))),
            c(Constraint::le(&j.sub(&i).unwrap(), &Sym::int(3))),
        ];
        let vars: Vec<Name> = vec!["j".into(), "i".into()];
        symbolic_sum(cons, &vars, Sym::one(), &mut Budget::new(10_000, 100_000)).unwrap()
    }

    #[test]
    fn the_band_reads_as_cases() {
        let p = band();
        let cases = p.cases();
        let Cases::Disjoint(list) = &cases else {
            panic!("not disjoint: {cases:?}")
        };
        for n in -3..15 {
            let env = at(n, 0);
            let expected = exact(p.eval(&env).unwrap());
            assert_eq!(exact(cases.eval(&env).unwrap()), expected, "n = {n}");
            let holding = list
                .iter()
                .filter(|c| holds(&c.guard, &env).unwrap())
                .count();
            assert!(
                holding <= 1,
                "n = {n}: {}",
                cases.display(Notation::Fortran)
            );
        }
        // barvinok: `-12 + 7n : n >= 5; n^2 : 0 < n <= 4` (both formulas give 9 at n = 3 and
        // 16 at n = 4); for n = 10 the first case gives the count, 58.
        assert_eq!(
            p.display(Notation::Fortran),
            "7*n - 12 if n >= 3; n**2 if n >= 1, 2 >= n"
        );
        assert_eq!(exact(cases.eval(&at(10, 0)).unwrap()), Rational::int(58));
    }

    #[test]
    fn additive_pieces_become_cases() {
        let n = v("n");
        let ge = |k: i128| Constraint::ge(&n, &Sym::int(k)).unwrap();
        // (n if n >= 1) + (1 if n >= 3): n + 1 from 3 on, n on 1..2.
        let p = Piecewise {
            pieces: vec![
                Piece {
                    guard: vec![ge(1)],
                    value: n.clone(),
                },
                Piece {
                    guard: vec![ge(3)],
                    value: Sym::one(),
                },
            ],
        };
        assert_eq!(
            p.display(Notation::Fortran),
            "n + 1 if n >= 3; n if n >= 1, 2 >= n"
        );
        // Equal values on adjacent intervals merge: (1 if n >= 1) + (1 if 0 >= n) = 1.
        let p = Piecewise {
            pieces: vec![
                Piece {
                    guard: vec![ge(1)],
                    value: Sym::one(),
                },
                Piece {
                    guard: vec![Constraint::le(&n, &Sym::zero()).unwrap()],
                    value: Sym::one(),
                },
            ],
        };
        assert_eq!(p.display(Notation::Fortran), "1");
        // Pieces that cancel leave no case: 0.
        let p = Piecewise {
            pieces: vec![
                Piece {
                    guard: vec![ge(1)],
                    value: Sym::one(),
                },
                Piece {
                    guard: vec![ge(1)],
                    value: Sym::int(-1),
                },
            ],
        };
        assert_eq!(p.display(Notation::Fortran), "0");
        // n >= 5 and 5 >= n is n = 5.
        let p = Piecewise {
            pieces: vec![Piece {
                guard: vec![ge(5), Constraint::le(&n, &Sym::int(5)).unwrap()],
                value: Sym::int(7),
            }],
        };
        assert_eq!(p.display(Notation::Fortran), "7 if n = 5");
        // A fixed unknown is substituted into the value: n - 4 where n = 5 is 1.
        let p = Piecewise {
            pieces: vec![Piece {
                guard: vec![ge(5), Constraint::le(&n, &Sym::int(5)).unwrap()],
                value: n.add_int(-4).unwrap(),
            }],
        };
        assert_eq!(p.display(Notation::Fortran), "1 if n = 5");
    }

    #[test]
    fn too_many_cells_print_as_a_sum() {
        // Twelve overlapping pieces over two parameters.
        let (n, m) = (v("n"), v("m"));
        let pieces: Vec<Piece> = (0..12)
            .map(|k| Piece {
                guard: vec![
                    Constraint::ge(&n, &Sym::int(k)).unwrap(),
                    Constraint::ge(&m.add_int(k).unwrap(), &n).unwrap(),
                ],
                value: n.add_int(k).unwrap(),
            })
            .collect();
        let p = Piecewise { pieces };
        let cases = p.cases();
        assert!(matches!(cases, Cases::Sum(_)));
        let text = p.display(Notation::Fortran);
        assert!(
            text.starts_with("(n if m >= n, n >= 0) + (n + 1 if "),
            "{text}"
        );
        for (a, b) in [(0, 0), (5, 3), (11, 0), (-1, 4)] {
            assert_eq!(cases.eval(&at(a, b)).unwrap(), p.eval(&at(a, b)).unwrap());
        }
    }

    /// `a·n + b·m + c` with small coefficients.
    fn affine() -> impl Strategy<Value = Sym> {
        (-2i128..=2, -2i128..=2, -6i128..=6).prop_map(|(a, b, c)| {
            v("n")
                .scale(Rational::int(a))
                .unwrap()
                .add(&v("m").scale(Rational::int(b)).unwrap())
                .unwrap()
                .add_int(c)
                .unwrap()
        })
    }

    fn constraint() -> impl Strategy<Value = Constraint> {
        let floor = affine().prop_map(|e| {
            e.scale(Rational::new(1, 2).unwrap())
                .unwrap()
                .floor()
                .unwrap()
        });
        (
            prop_oneof![4 => affine(), 1 => floor],
            prop::sample::select(vec![Rel::Ge, Rel::Ge, Rel::Ge, Rel::Eq, Rel::Gt]),
        )
            .prop_map(|(expr, rel)| Constraint { expr, rel }.normalized().unwrap())
    }

    fn piecewise() -> impl Strategy<Value = Piecewise> {
        let piece = (prop::collection::vec(constraint(), 0..=3), affine())
            .prop_map(|(guard, value)| Piece { guard, value });
        prop::collection::vec(piece, 0..=5).prop_map(|pieces| Piecewise { pieces })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The cases have the piecewise value at every point, and at most one guard holds.
        #[test]
        fn cases_are_disjoint_and_add_up(p in piecewise()) {
            let cases = p.cases();
            for n in -8..=8 {
                for m in -8..=8 {
                    let env = at(n, m);
                    let expected = p.eval(&env).unwrap();
                    prop_assert_eq!(cases.eval(&env).unwrap(), expected,
                        "at n = {}, m = {}: {}", n, m, cases.display(Notation::Fortran));
                    if let Cases::Disjoint(list) = &cases {
                        let holding = list.iter().filter(|c| holds(&c.guard, &env).unwrap()).count();
                        prop_assert!(holding <= 1, "at n = {}, m = {}: {}", n, m,
                            cases.display(Notation::Fortran));
                    }
                }
            }
        }

        /// The same with guards like those of work formulas: products of a processor
        /// coordinate `p` with `n` and with `⌊3n/4⌋`, and integer quotients.
        #[test]
        fn cases_of_products_and_quotients_add_up(pw in owned()) {
            let cases = pw.cases();
            for n in -6..=10 {
                for m in -3..=3 {
                    for p in 0..=3 {
                        let env = move |x: &str| match x {
                            "n" => Some(n),
                            "m" => Some(m),
                            "p" => Some(p),
                            _ => None,
                        };
                        prop_assert_eq!(cases.eval(&env).unwrap(), pw.eval(&env).unwrap(),
                            "at n = {}, m = {}, p = {}: {}", n, m, p,
                            cases.display(Notation::Fortran));
                        if let Cases::Disjoint(list) = &cases {
                            let holding =
                                list.iter().filter(|c| holds(&c.guard, &env).unwrap()).count();
                            prop_assert!(holding <= 1, "at n = {}, m = {}, p = {}: {}", n, m, p,
                                cases.display(Notation::Fortran));
                        }
                    }
                }
            }
        }
    }

    /// `a·p·n + b·p·⌊3n/4⌋ + c·n + d·⌊3n/4⌋ + e·int(m/2) + k`.
    fn work_like() -> impl Strategy<Value = Sym> {
        (prop::collection::vec(-2i128..=2, 5), -4i128..=4).prop_map(|(k, c)| {
            let (n, p) = (v("n"), v("p"));
            let q = n
                .scale(Rational::new(3, 4).unwrap())
                .unwrap()
                .floor()
                .unwrap();
            let d = v("m").idiv(&Sym::int(2)).unwrap();
            let monos = [p.mul(&n).unwrap(), p.mul(&q).unwrap(), n, q, d];
            let mut s = Sym::int(c);
            for (k, x) in k.iter().zip(&monos) {
                s = s.add(&x.scale(Rational::int(*k)).unwrap()).unwrap();
            }
            s
        })
    }

    fn owned() -> impl Strategy<Value = Piecewise> {
        let c = (
            work_like(),
            prop::sample::select(vec![Rel::Ge, Rel::Ge, Rel::Ge, Rel::Eq]),
        )
            .prop_map(|(expr, rel)| Constraint { expr, rel }.normalized().unwrap());
        let piece = (prop::collection::vec(c, 0..=3), work_like())
            .prop_map(|(guard, value)| Piece { guard, value });
        prop::collection::vec(piece, 0..=5).prop_map(|pieces| Piecewise { pieces })
    }
}
