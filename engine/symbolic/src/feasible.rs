//! Whether a conjunction of constraints over the integer unknowns can hold: a sound
//! Fourier–Motzkin test that answers "empty" only when no point satisfies it.
//!
//! Every monomial (`n`, `p·m`, `⌊3m/4⌋`) is a variable of its own, so the test is run on
//! a relaxation; each step eliminates one variable `x` by adding every lower bound
//! `a·x + e ≥ 0` (a > 0) to every upper bound `-b·x + f ≥ 0` (b > 0) as
//! `b·e + a·f ≥ 0`. Rows are divided by the gcd of their coefficients and, when every
//! monomial they use is integer-valued, their constant rounded down (`2n - 3 ≥ 0` →
//! `n - 2 ≥ 0`): sound over the integers, and exact for the bounds of a single unknown.
//! A floor atom `x = ⌊e⌋` brings its defining bounds `q·x ≤ q·e ≤ q·x + q - 1` (q the
//! denominator of `e`), an integer quotient `x = int(a/b)` by a positive constant
//! `a - b + 1 ≤ b·x ≤ a + b - 1`, a remainder `x = MOD(a, b)` by a constant `|x| < |b|`. Strict constraints of non-integer values are relaxed to
//! non-strict ones. Past [`MAX_ROWS`] rows the test gives up and answers "maybe
//! feasible".

use super::constraint::{Constraint, Rel};
use super::integer::gcd;
use super::rational::Rational;
use super::sym::{Atom, Monomial, Sym, Term};
use rustc_hash::FxHashMap;

/// The most rows one elimination step may leave before the test gives up.
const MAX_ROWS: usize = 64;

/// The most eliminations one [`Feasibility`] runs; past it, [`Feasibility::exhausted`]
/// (a budget in work, not time, so that the answer does not depend on the machine).
const MAX_CHECKS: usize = 1_000;

/// The test over a growing table of monomials, with each constraint's rows and the
/// answers remembered (the refinement of `cases` asks the same questions many times).
#[derive(Default)]
pub(crate) struct Feasibility {
    table: Table,
    /// Each constraint seen, numbered...
    ids: FxHashMap<Constraint, u32>,
    /// ...its rows (`None` on an overflow)...
    rows: Vec<Option<Vec<Row>>>,
    /// ...and the answers for sets of constraint numbers.
    memo: FxHashMap<Vec<u32>, bool>,
    checks: usize,
}

impl Feasibility {
    /// Whether no integer point satisfies every constraint of `cs` (`false`: maybe some
    /// does).
    pub(crate) fn infeasible(&mut self, cs: &[Constraint]) -> bool {
        if cs.iter().any(|c| c.truth() == Some(false)) {
            return true;
        }
        let mut key: Vec<u32> = cs.iter().map(|c| self.id(c)).collect();
        key.sort_unstable();
        key.dedup();
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        self.checks += 1;
        let answer = self.system(&key).is_some_and(|rows| self.table.empty(rows));
        self.memo.insert(key, answer);
        answer
    }

    /// The number of a constraint, its rows made on first sight.
    fn id(&mut self, c: &Constraint) -> u32 {
        if let Some(&id) = self.ids.get(c) {
            return id;
        }
        let id = self.rows.len() as u32;
        let rows = self.table.constraint(c);
        self.rows.push(rows);
        self.ids.insert(c.clone(), id);
        id
    }

    /// Whether every integer point satisfying `hyp` satisfies `c` (`false`: maybe not).
    pub(crate) fn implies(&mut self, hyp: &[Constraint], c: &Constraint) -> bool {
        if hyp.contains(c) || c.truth() == Some(true) {
            return true;
        }
        let Ok(negations) = c.negated() else {
            return false;
        };
        negations.into_iter().all(|n| {
            let mut all = hyp.to_vec();
            all.push(n);
            self.infeasible(&all)
        })
    }

    /// Whether the eliminations run so far exceed [`MAX_CHECKS`].
    pub(crate) fn exhausted(&self) -> bool {
        self.checks > MAX_CHECKS
    }

    /// The rows of the constraints and of the bounds of the atoms they use (`None` on an
    /// overflow).
    /// Every row has the table's full width (a row made before a column existed is
    /// widened here, once, not at each elimination step).
    fn system(&self, ids: &[u32]) -> Option<Vec<Row>> {
        let width = self.table.monos.len();
        let mut out = Vec::with_capacity(ids.len() + 2);
        for &id in ids {
            out.extend(
                self.rows[id as usize]
                    .as_ref()?
                    .iter()
                    .map(|r| r.widened(width)),
            );
        }
        // The bounds of every floor, quotient or remainder column in use, and of those
        // they use.
        let mut used = vec![false; width];
        let mut k = 0;
        while k < out.len() {
            for (j, seen) in used.iter_mut().enumerate() {
                if out[k].coef[j] != 0 && !*seen {
                    *seen = true;
                    out.extend(self.table.bounds[j].iter().map(|r| r.widened(width)));
                }
            }
            k += 1;
        }
        Some(out)
    }
}

/// A row `Σ coef_j·x_j + constant ≥ 0` over the columns of a [`Table`] (a row made
/// before a column existed is shorter: its coefficient there is 0).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    coef: Vec<i128>,
    constant: i128,
}

impl Row {
    /// The row with `width` coefficients, the columns it did not have 0.
    fn widened(&self, width: usize) -> Row {
        let mut coef = Vec::with_capacity(width.max(self.coef.len()));
        coef.extend_from_slice(&self.coef);
        coef.resize(width.max(self.coef.len()), 0);
        Row {
            coef,
            constant: self.constant,
        }
    }
}

/// The columns: one per monomial, whether its values are integers, and the rows that
/// bound a floor, a quotient or a remainder.
#[derive(Default)]
struct Table {
    monos: Vec<Monomial>,
    integer: Vec<bool>,
    bounds: Vec<Vec<Row>>,
}

impl Table {
    /// The rows of a constraint: one, or two for an equality.
    fn constraint(&mut self, c: &Constraint) -> Option<Vec<Row>> {
        let row = self.row(&c.expr)?;
        Some(match c.rel {
            Rel::Ge | Rel::Gt => vec![row],
            Rel::Eq => {
                let neg = Row {
                    coef: row.coef.iter().map(|x| -x).collect(),
                    constant: -row.constant,
                };
                vec![row, neg]
            }
        })
    }

    /// `s ≥ 0` as a row with integer coefficients (`None` on an overflow).
    fn row(&mut self, s: &Sym) -> Option<Row> {
        let (_, den) = s.content();
        let s = s.scale(Rational::int(den)).ok()?;
        let mut coef = vec![0; self.monos.len()];
        let mut constant = 0;
        for t in s.terms() {
            let c = t.coef.as_integer()?;
            if t.mono.is_one() {
                constant = c;
                continue;
            }
            let j = match self.monos.iter().position(|m| *m == t.mono) {
                Some(j) => j,
                None => self.column(&t.mono)?,
            };
            if j >= coef.len() {
                coef.resize(j + 1, 0);
            }
            coef[j] = c;
        }
        Some(Row { coef, constant })
    }

    /// A new column for `mono`, with its bounds if it is a floor, a quotient or a
    /// remainder.
    fn column(&mut self, mono: &Monomial) -> Option<usize> {
        self.monos.push(mono.clone());
        let unit = Term {
            mono: mono.clone(),
            coef: Rational::ONE,
        };
        self.integer.push(Sym::from_term(&unit).is_integer_valued());
        self.bounds.push(Vec::new());
        let j = self.monos.len() - 1;
        let x = Sym::from_term(&unit);
        let bounds = match mono.factors() {
            // x = ⌊e⌋: q·e - q·x ≥ 0 and q·x - q·e + q - 1 ≥ 0, when q·e is
            // integer-valued.
            [(Atom::Floor(e), 1)] => {
                let (_, q) = e.content();
                let qe = e.scale(Rational::int(q)).ok()?;
                if qe.is_integer_valued() {
                    let qx = x.scale(Rational::int(q)).ok()?;
                    vec![qe.sub(&qx).ok()?, qx.sub(&qe).ok()?.add_int(q - 1).ok()?]
                } else {
                    Vec::new()
                }
            }
            // x = int(a/b), b > 0 a constant: truncation moves less than 1, so
            // a - b + 1 ≤ b·x ≤ a + b - 1.
            [(Atom::IDiv(a, b), 1)] => match b.as_int() {
                Some(b) if b > 0 && a.is_integer_valued() => {
                    let bx = x.scale(Rational::int(b)).ok()?;
                    vec![
                        bx.sub(a).ok()?.add_int(b - 1).ok()?,
                        a.sub(&bx).ok()?.add_int(b - 1).ok()?,
                    ]
                }
                _ => Vec::new(),
            },
            // x = MOD(a, b), b a nonzero constant: |x| ≤ |b| - 1.
            [(Atom::Mod(_, b), 1)] => match b.as_int() {
                Some(b) if b != 0 => {
                    let k = i128::try_from(b.unsigned_abs() - 1).ok()?;
                    vec![x.add_int(k).ok()?, x.neg().ok()?.add_int(k).ok()?]
                }
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        let rows = bounds
            .iter()
            .map(|b| self.row(b))
            .collect::<Option<Vec<_>>>()?;
        self.bounds[j] = rows;
        Some(j)
    }

    /// The row (of the table's full width) divided by the gcd of its coefficients, the
    /// constant rounded down when every column it uses is integer-valued (`2n - 3 ≥ 0`
    /// → `n - 2 ≥ 0`).
    fn normalized(&self, mut r: Row) -> Row {
        let mut g = 0;
        let mut integer = true;
        for (j, c) in r.coef.iter().enumerate() {
            if *c != 0 {
                g = gcd(g, *c);
                integer &= self.integer[j];
            }
        }
        if !integer {
            g = gcd(g, r.constant);
        }
        if g > 1 {
            r.coef.iter_mut().for_each(|c| *c /= g);
            r.constant = r.constant.div_euclid(g);
        }
        r
    }

    /// Whether the rows (of the table's full width) have no common solution (`false`
    /// also when the test gave up: too many rows, an overflow).
    fn empty(&self, mut rows: Vec<Row>) -> bool {
        let width = self.monos.len();
        // Per column, how many rows bound it from below and from above.
        let (mut lows, mut highs) = (vec![0usize; width], vec![0usize; width]);
        loop {
            let mut kept: Vec<Row> = Vec::with_capacity(rows.len());
            for r in rows {
                let r = self.normalized(r);
                if r.coef.iter().all(|c| *c == 0) {
                    if r.constant < 0 {
                        return true;
                    }
                } else {
                    kept.push(r);
                }
            }
            // Of parallel rows only the tightest (least constant) counts.
            kept.sort();
            kept.dedup_by(|later, first| later.coef == first.coef);
            if kept.len() > MAX_ROWS {
                return false;
            }
            // The column with the fewest new rows.
            lows.fill(0);
            highs.fill(0);
            for r in &kept {
                for (j, c) in r.coef.iter().enumerate() {
                    match c.signum() {
                        1 => lows[j] += 1,
                        -1 => highs[j] += 1,
                        _ => {}
                    }
                }
            }
            let mut best: Option<(usize, isize)> = None;
            for j in 0..width {
                let (lo, hi) = (lows[j], highs[j]);
                if lo + hi == 0 {
                    continue;
                }
                let cost = (lo * hi) as isize - (lo + hi) as isize;
                if best.is_none_or(|(_, c)| cost < c) {
                    best = Some((j, cost));
                }
            }
            let Some((x, _)) = best else {
                return false;
            };
            let (mut lower, mut upper, mut next) = (Vec::new(), Vec::new(), Vec::new());
            for r in kept {
                match r.coef[x].signum() {
                    1 => lower.push(r),
                    -1 => upper.push(r),
                    _ => next.push(r),
                }
            }
            for l in &lower {
                for u in &upper {
                    // b·l + a·u with a = l[x] > 0, b = -u[x] > 0: x cancels.
                    let (a, b) = (l.coef[x], -u.coef[x]);
                    let g = gcd(a, b);
                    let (a, b) = (a / g, b / g);
                    let combine =
                        |p: i128, q: i128| p.checked_mul(b)?.checked_add(q.checked_mul(a)?);
                    let mut coef = Vec::with_capacity(width);
                    for (p, q) in l.coef.iter().zip(&u.coef) {
                        let Some(c) = combine(*p, *q) else {
                            return false;
                        };
                        coef.push(c);
                    }
                    let Some(constant) = combine(l.constant, u.constant) else {
                        return false;
                    };
                    next.push(Row { coef, constant });
                }
            }
            rows = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infeasible(cs: &[Constraint]) -> bool {
        Feasibility::default().infeasible(cs)
    }

    fn implies(hyp: &[Constraint], c: &Constraint) -> bool {
        Feasibility::default().implies(hyp, c)
    }

    fn v(s: &str) -> Sym {
        Sym::var(s)
    }

    fn ge(a: &Sym, b: i128) -> Constraint {
        Constraint::ge(a, &Sym::int(b)).unwrap()
    }

    fn le(a: &Sym, b: i128) -> Constraint {
        Constraint::le(a, &Sym::int(b)).unwrap()
    }

    #[test]
    fn bounds_on_one_unknown_are_decided_exactly() {
        let n = v("n");
        assert!(infeasible(&[ge(&n, 4), le(&n, 3)]));
        assert!(!infeasible(&[ge(&n, 3), le(&n, 3)]));
        // 2n >= 3 and 2n <= 3: no integer.
        let two_n = n.scale(Rational::int(2)).unwrap();
        assert!(infeasible(&[ge(&two_n, 3), le(&two_n, 3)]));
        // 2n = 3
        let eq = Constraint::eq(&two_n, &Sym::int(3))
            .unwrap()
            .normalized()
            .unwrap();
        assert!(infeasible(&[eq]));
    }

    #[test]
    fn chains_over_several_unknowns() {
        let (n, m) = (v("n"), v("m"));
        // n >= m + 1, m >= 5, n <= 5
        let c = Constraint::ge(&n, &m.add_int(1).unwrap()).unwrap();
        assert!(infeasible(&[c.clone(), ge(&m, 5), le(&n, 5)]));
        assert!(!infeasible(&[c.clone(), ge(&m, 5), le(&n, 6)]));
        assert!(implies(&[c, ge(&m, 5)], &ge(&n, 6)));
        assert!(!implies(&[ge(&m, 5)], &ge(&n, 6)));
    }

    #[test]
    fn floors_quotients_and_remainders_are_bounded() {
        // floor(n/2) >= 3 and n <= 5: floor(n/2) <= n/2 <= 5/2.
        let n = v("n");
        let half = n
            .scale(Rational::new(1, 2).unwrap())
            .unwrap()
            .floor()
            .unwrap();
        assert!(infeasible(&[ge(&half, 3), le(&n, 5)]));
        assert!(!infeasible(&[ge(&half, 3), le(&n, 6)]));
        // int(n/2) >= n and n >= 4: 2·int(n/2) <= n + 1.
        let quotient = n.idiv(&Sym::int(2)).unwrap();
        let c = Constraint::ge(&quotient, &n).unwrap();
        assert!(infeasible(&[c.clone(), ge(&n, 4)]));
        assert!(!infeasible(&[c, ge(&n, -3)]));
        // mod(n, 3) >= 3
        let rem = n.fmod(&Sym::int(3)).unwrap();
        assert!(infeasible(&[ge(&rem, 3)]));
    }
}
