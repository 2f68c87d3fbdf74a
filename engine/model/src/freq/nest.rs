//! A constraint set prepared for counting or visiting its integer points many times: the
//! variables in an order where each has lower and upper bounds from the ones before it
//! (outermost first), every constraint assigned to the level of its innermost variable,
//! and bounds and checks compiled over value slots ([`Compiled`]): the parameters first
//! (say a processor's grid coordinates, given per call), then the variables in order.
//! A bound or check that does not compile is evaluated symbolically at that point.
//! When every bound of the last variable is affine in the one before it (constant
//! coefficients), the last two levels are counted in closed form ([`planar`]) instead of
//! stepping through the next to last variable.

use super::planar::{self, Line};
use costline_symbolic::interrupt;
use costline_symbolic::{Compiled, Constraint, EvalError, Name, Num, Rational, Rel, Sym, Word};

/// See the module doc.
pub struct Nest {
    /// The slots' names: parameters, then variables outermost first.
    names: Vec<Name>,
    params: usize,
    levels: Vec<Level>,
    /// The constraints on parameters only, checked before the first level.
    guards: Vec<(Value, Rel)>,
    /// A constraint without variables or parameters fails: the set is empty.
    empty: bool,
    /// The last level's bounds as lines in the level before it, when every one is
    /// (the last two levels are then counted in closed form: [`planar`]).
    sloped: Option<Vec<Sloped>>,
}

/// A bound `c1·y + α·x + β (rel) 0` of the last level's variable y, affine in the
/// variable x of the level before (α = a'/d' and c1 = a/b constants, β compiled over the
/// outer slots), with the constant products [`Sloped::line`] needs.
struct Sloped {
    /// a·d'
    ad: i128,
    /// a'·b
    ab: i128,
    /// b·d'
    bd: i128,
    beta: Compiled,
    rel: Rel,
}

/// Bounds of the last level counted in closed form at most (more: stepping).
const MAX_SLOPED: usize = 8;

/// The constraints applied once the level's variable is fixed.
struct Level {
    /// `c1·v + c0 (rel) 0` with a constant `c1`.
    bounds: Vec<(Value, Rational, Rel)>,
    checks: Vec<(Value, Rel)>,
    /// No deeper level mentions the variable: the rest counts the same for every value.
    independent: bool,
}

/// An expression at a point: compiled, or the formula with names read from the slots.
enum Value {
    Compiled(Compiled),
    Symbolic(Sym),
}

/// One point of a visit: the slots' names and values.
#[derive(Clone, Copy)]
pub struct Point<'a> {
    pub names: &'a [Name],
    pub values: &'a [i64],
}

impl Point<'_> {
    /// The value of `name` at the point.
    pub fn get(&self, name: &str) -> Option<i128> {
        let k = self.names.iter().position(|n| &**n == name)?;
        self.values.get(k).map(|v| i128::from(*v))
    }
}

impl Nest {
    /// `constraints` over `outer_first` (an order from [`order`]), every other name in
    /// them one of `params`.
    pub fn ordered(constraints: &[Constraint], outer_first: Vec<Name>, params: &[Name]) -> Nest {
        let mut names: Vec<Name> = params.to_vec();
        names.extend(outer_first);
        let slot = |n: &str| names.iter().position(|k| &**k == n);
        let value = |s: &Sym| match Compiled::new(s, &slot) {
            Some(c) => Value::Compiled(c),
            None => Value::Symbolic(s.clone()),
        };
        let vars = &names[params.len()..];
        let mut levels: Vec<Level> = vars
            .iter()
            .map(|_| Level {
                bounds: Vec::new(),
                checks: Vec::new(),
                independent: true,
            })
            .collect();
        let mut empty = false;
        let mut guards = Vec::new();
        // The last level's bounds in the variable before it, while all are sloped.
        let mut sloped = (vars.len() >= 2).then(Vec::new);
        for c in constraints {
            let mentioned: Vec<usize> = (0..vars.len()).filter(|&k| c.mentions(&vars[k])).collect();
            let Some(&deepest) = mentioned.last() else {
                match c.truth() {
                    Some(holds) => empty |= !holds,
                    None => guards.push((value(&c.expr), c.rel)),
                }
                continue;
            };
            for &k in &mentioned[..mentioned.len() - 1] {
                levels[k].independent = false;
            }
            let level = &mut levels[deepest];
            let last = deepest + 1 == vars.len();
            match c.expr.poly_in(&vars[deepest]).as_deref() {
                Some([c0, c1]) if c1.as_const().is_some() => {
                    let c1 = c1.as_const().expect("checked");
                    if last && let Some(s) = &mut sloped {
                        match Sloped::new(c0, c1, c.rel, &vars[deepest - 1], &slot) {
                            Some(b) => s.push(b),
                            None => sloped = None,
                        }
                    }
                    level.bounds.push((value(c0), c1, c.rel));
                }
                _ => {
                    if last {
                        sloped = None;
                    }
                    level.checks.push((value(&c.expr), c.rel));
                }
            }
        }
        Nest {
            params: params.len(),
            names,
            levels,
            guards,
            empty,
            sloped,
        }
    }

    /// The number of points for the parameters' values `params`; `None` for an
    /// unbounded variable, a value the bounds do not have, or past `left` values of
    /// the outer variables (each value looked at costs one, and so does each count of
    /// the last two levels in closed form).
    pub fn count(&self, params: &[i128], left: &mut u64) -> Option<i128> {
        let values = &mut self.start(params)?;
        if self.empty || !self.holds(&self.guards, values) {
            return Some(0);
        }
        self.count_from(0, values, left)
    }

    /// Calls `f` at every point for the parameters' values `params`, the point made of
    /// the first `depth` variables only (once per distinct value of them that has a
    /// point); `None` for an unbounded variable or past `left` values looked at (each
    /// point and each value of an outer variable costs one).
    pub fn visit(
        &self,
        params: &[i128],
        depth: usize,
        left: &mut u64,
        f: &mut dyn FnMut(Point),
    ) -> Option<()> {
        let values = &mut self.start(params)?;
        if self.empty || !self.holds(&self.guards, values) {
            return Some(());
        }
        self.visit_from(0, depth, values, left, f)
    }

    /// The slots' values before the first level: the parameters' (`None` when some
    /// are missing).
    fn start(&self, params: &[i128]) -> Option<Vec<i64>> {
        let mut values = Vec::with_capacity(self.names.len());
        for p in params.get(..self.params)? {
            values.push(i64::try_from(*p).ok()?);
        }
        Some(values)
    }

    fn count_from(&self, k: usize, values: &mut Vec<i64>, left: &mut u64) -> Option<i128> {
        let Some(level) = self.levels.get(k) else {
            return Some(1);
        };
        let (lo, hi) = self.range(level, values)?;
        if hi < lo {
            return Some(0);
        }
        let last = k + 1 == self.levels.len();
        if level.checks.is_empty()
            && !level.independent
            && k + 2 == self.levels.len()
            && hi > lo
            && let Some(n) = self.last_two(lo, hi, values, left)
        {
            return Some(n);
        }
        if level.checks.is_empty() && (last || level.independent) {
            // Every value passes and the rest does not depend on it.
            let rest = if last {
                1
            } else {
                values.push(lo);
                let rest = self.count_from(k + 1, values, left);
                values.pop();
                rest?
            };
            return (i128::from(hi) - i128::from(lo) + 1).checked_mul(rest);
        }
        let mut total = 0i128;
        for x in lo..=hi {
            *left = left.checked_sub(1)?;
            interrupt::point();
            values.push(x);
            if self.holds(&level.checks, values) {
                total += self.count_from(k + 1, values, left)?;
            }
            values.pop();
        }
        Some(total)
    }

    fn visit_from(
        &self,
        k: usize,
        depth: usize,
        values: &mut Vec<i64>,
        left: &mut u64,
        f: &mut dyn FnMut(Point),
    ) -> Option<()> {
        if k == depth {
            if depth < self.levels.len() && self.count_from(k, values, left)? == 0 {
                return Some(());
            }
            *left = left.checked_sub(1)?;
            interrupt::point();
            f(Point {
                names: &self.names,
                values,
            });
            return Some(());
        }
        let level = &self.levels[k];
        let (lo, hi) = self.range(level, values)?;
        for x in lo..=hi {
            // A value the checks reject is looked at too: it costs one as well.
            *left = left.checked_sub(1)?;
            interrupt::point();
            values.push(x);
            if self.holds(&level.checks, values) {
                self.visit_from(k + 1, depth, values, left, f)?;
            }
            values.pop();
        }
        Some(())
    }

    /// The points of the last two levels for x (the next to last variable) in
    /// `[lo, hi]` and the outer values `values`, in closed form ([`planar::count`], in
    /// i64 first; it costs one of `left`); `None` when the last level is not sloped, is
    /// unbounded or an intermediate overflows.
    fn last_two(&self, lo: i64, hi: i64, values: &[i64], left: &mut u64) -> Option<i128> {
        let sloped = self.sloped.as_deref()?;
        *left = left.checked_sub(1)?;
        last_two_in::<i64>(sloped, lo, hi, values)
            .or_else(|| last_two_in::<i128>(sloped, lo, hi, values))
    }

    /// Whether `checks` hold at `values` (a check without a value fails).
    fn holds(&self, checks: &[(Value, Rel)], values: &[i64]) -> bool {
        checks.iter().all(|(e, rel)| {
            self.eval(e, values).is_some_and(|(n, _)| match rel {
                Rel::Ge => n >= 0,
                Rel::Gt => n > 0,
                Rel::Eq => n == 0,
            })
        })
    }

    /// The value at `values` as (numerator, denominator > 0).
    fn eval(&self, e: &Value, values: &[i64]) -> Option<(i128, i128)> {
        match e {
            Value::Compiled(c) => c.eval(values),
            Value::Symbolic(s) => {
                let env = |n: &str| {
                    let k = self.names.iter().position(|k| &**k == n)?;
                    values.get(k).map(|v| i128::from(*v))
                };
                match s.eval(&env).ok()? {
                    Num::Exact(r) => Some((r.num(), r.den())),
                    Num::Approx(_) => None,
                }
            }
        }
    }

    /// The integer range `[lo, hi]` the level's bounds allow at `values`.
    fn range(&self, level: &Level, values: &[i64]) -> Option<(i64, i64)> {
        let (mut lo, mut hi): (Option<i64>, Option<i64>) = (None, None);
        for (c0, c1, rel) in &level.bounds {
            let (n, d) = self.eval(c0, values)?;
            let (l, h) = match solve(n, d, c1.num(), c1.den(), *rel)? {
                Solved::Range(l, h) => (l, h),
                Solved::Empty => return Some((1, 0)),
            };
            if let Some(l) = l {
                lo = Some(lo.map_or(l, |x| x.max(l)));
            }
            if let Some(h) = h {
                hi = Some(hi.map_or(h, |x| x.min(h)));
            }
        }
        Some((lo?, hi?))
    }
}

/// [`Nest::last_two`] in the word `T`.
fn last_two_in<T: Word>(sloped: &[Sloped], lo: i64, hi: i64, values: &[i64]) -> Option<i128> {
    let blank = Line {
        p: T::ZERO,
        q: T::ZERO,
        r: T::ONE,
    };
    let (mut lower, mut upper) = ([blank; MAX_SLOPED], [blank; MAX_SLOPED]);
    let (mut l, mut u) = (0, 0);
    for b in sloped {
        let (line, up) = b.line::<T>(values)?;
        if b.rel == Rel::Eq || !up {
            *lower.get_mut(l)? = line;
            l += 1;
        }
        if b.rel == Rel::Eq || up {
            *upper.get_mut(u)? = line;
            u += 1;
        }
    }
    planar::count(T::widen(lo), T::widen(hi), &lower[..l], &upper[..u]).map(T::to_i128)
}

impl Sloped {
    /// `c1·y + c0 (rel) 0` with `c0 = α·x + β`; `None` when c0 is not of that form or β
    /// does not compile.
    fn new(
        c0: &Sym,
        c1: Rational,
        rel: Rel,
        x: &str,
        slot: &dyn Fn(&str) -> Option<usize>,
    ) -> Option<Sloped> {
        let (beta, alpha) = match c0.poly_in(x)?.as_slice() {
            [] => (Sym::zero(), Rational::ZERO),
            [beta] => (beta.clone(), Rational::ZERO),
            [beta, alpha] => (beta.clone(), alpha.as_const()?),
            _ => return None,
        };
        Some(Sloped {
            ad: c1.num().checked_mul(alpha.den())?,
            ab: alpha.num().checked_mul(c1.den())?,
            bd: c1.den().checked_mul(alpha.den())?,
            beta: Compiled::new(&beta, slot)?,
            rel,
        })
    }

    /// The bound at the outer values `values` as a line in x, and whether it bounds y
    /// from above: with c1 = a/b, α = a'/d', β = n/d (denominators positive), multiplying
    /// by b·d'·d gives `A·y ≥ P·x + Q` (`≥ P·x + Q + 1` for `>`) with `A = a·d'·d`,
    /// `P = −a'·b·d`, `Q = −n·b·d'`; A > 0 makes it a lower bound `⌈(P·x + Q)/A⌉`, A < 0
    /// an upper one `⌊(−P·x − Q)/−A⌋`.
    fn line<T: Word>(&self, values: &[i64]) -> Option<(Line<T>, bool)> {
        let (n, d) = self.beta.eval_in::<T>(values)?;
        let big_a = T::narrow(self.ad)?.mul(d)?;
        let p = T::narrow(self.ab)?.mul(d)?.neg()?;
        let mut q = n.mul(T::narrow(self.bd)?)?.neg()?;
        if self.rel == Rel::Gt {
            q = q.add(T::ONE)?;
        }
        Some(match big_a.cmp(&T::ZERO) {
            std::cmp::Ordering::Greater => (Line { p, q, r: big_a }, false),
            std::cmp::Ordering::Less => (
                Line {
                    p: p.neg()?,
                    q: q.neg()?,
                    r: big_a.neg()?,
                },
                true,
            ),
            std::cmp::Ordering::Equal => return None,
        })
    }
}

/// What one bound allows of a level's variable: a lower and/or an upper end, or no
/// value.
enum Solved {
    Range(Option<i64>, Option<i64>),
    Empty,
}

/// The values of v with `(a/b)·v + n/d (rel) 0` (b, d > 0), i.e. `a·d·v (rel) -n·b`:
/// in i64 when the four fit, else in i128 (`None` when an end does not fit i64).
fn solve(n: i128, d: i128, a: i128, b: i128, rel: Rel) -> Option<Solved> {
    macro_rules! solve_in {
        ($t:ty, $n:expr, $d:expr, $a:expr, $b:expr) => {{
            let (n, d, a, b): ($t, $t, $t, $t) = ($n, $d, $a, $b);
            let (mut num, mut den) = (n.checked_mul(b)?.checked_neg()?, a.checked_mul(d)?);
            let up = den > 0;
            if !up {
                (num, den) = (num.checked_neg()?, den.checked_neg()?);
            }
            // v (rel') num/den, den > 0.
            let floor = num.div_euclid(den);
            let exact = num.rem_euclid(den) == 0;
            let ceil = if exact { floor } else { floor.checked_add(1)? };
            let end = |x: $t| i64::try_from(x).ok();
            Some(match (rel, up) {
                (Rel::Eq, _) if exact => Solved::Range(Some(end(floor)?), Some(end(floor)?)),
                (Rel::Eq, _) => Solved::Empty,
                (Rel::Ge, true) => Solved::Range(Some(end(ceil)?), None),
                (Rel::Ge, false) => Solved::Range(None, Some(end(floor)?)),
                (Rel::Gt, true) => Solved::Range(Some(end(floor.checked_add(1)?)?), None),
                (Rel::Gt, false) => Solved::Range(None, Some(end(ceil.checked_sub(1)?)?)),
            })
        }};
    }
    match (
        i64::try_from(n),
        i64::try_from(d),
        i64::try_from(a),
        i64::try_from(b),
    ) {
        (Ok(n), Ok(d), Ok(a), Ok(b)) => {
            let fast: Option<Solved> = (|| solve_in!(i64, n, d, a, b))();
            fast.or_else(|| solve_in!(i128, n.into(), d.into(), a.into(), b.into()))
        }
        _ => solve_in!(i128, n, d, a, b),
    }
}

/// The points of `constraints` over `vars` in variables that skip the values no point
/// has: for each narrow band `0 <= e <= k` (`k` a constant) that ties a variable `v`
/// with coefficient ±1 to one of the `tied` variables (a cycle number of CYCLIC
/// ownership: `m·(P·q + c) <= i - lo <= m·(P·q + c) + m - 1`), `v` is replaced by the
/// offset `r = e` in `[0, k]` (`v = ±(r - rest)`, a one-to-one change of integer
/// variables), so that an enumeration steps over the owned values only instead of
/// testing every `i`. Counts are unchanged. Each tied variable is used once.
pub fn narrow(constraints: &[Constraint], vars: &[Name], tied: &dyn Fn(&Name) -> bool) -> Narrowed {
    let mut space = Narrowed {
        constraints: constraints.to_vec(),
        vars: vars.to_vec(),
        replaced: Vec::new(),
    };
    for q in vars.iter().filter(|q| tied(q)) {
        if let Some(n) = narrow_one(&space, q, tied) {
            space = n;
        }
    }
    space
}

/// The constraints and variables of [`narrow`], and each replaced variable with its
/// value in the new ones.
pub struct Narrowed {
    pub constraints: Vec<Constraint>,
    pub vars: Vec<Name>,
    pub replaced: Vec<(Name, Sym)>,
}

impl Narrowed {
    /// `e` in the new variables.
    pub fn expr(&self, e: &Sym) -> Option<Sym> {
        self.replaced
            .iter()
            .try_fold(e.clone(), |e, (v, value)| e.subst(v, value).ok())
    }
}

/// One band of [`narrow`], tied to `q`.
fn narrow_one(space: &Narrowed, q: &Name, tied: &dyn Fn(&Name) -> bool) -> Option<Narrowed> {
    let (constraints, vars) = (&space.constraints, &space.vars);
    let ge: Vec<&Constraint> = constraints.iter().filter(|c| c.rel == Rel::Ge).collect();
    for a in ge.iter().filter(|a| a.mentions(q)) {
        let band = ge.iter().any(|b| {
            b.mentions(q)
                && a.expr
                    .add(&b.expr)
                    .ok()
                    .and_then(|w| w.as_const())
                    .is_some_and(|k| k.signum() >= 0)
        });
        if !band {
            continue;
        }
        for (k, v) in vars.iter().enumerate() {
            if tied(v) {
                continue;
            }
            let Some(poly) = a.expr.poly_in(v) else {
                continue;
            };
            let [rest, c1] = poly.as_slice() else {
                continue;
            };
            let Some(sign) = c1.as_int().filter(|s| s.abs() == 1) else {
                continue;
            };
            if !rest.is_integer_valued() || rest.mentions(v) {
                continue;
            }
            let r: Name = format!("$band{}", space.replaced.len()).as_str().into();
            // e = sign·v + rest = r  →  v = sign·(r - rest)
            let value = Sym::var(&r).sub(rest).ok()?.mul(&Sym::int(sign)).ok()?;
            let substituted = constraints
                .iter()
                .map(|c| c.subst(v, &value))
                .collect::<Result<Vec<_>, _>>()
                .ok()?;
            let mut renamed = vars.to_vec();
            renamed[k] = r;
            let mut replaced: Vec<(Name, Sym)> = space
                .replaced
                .iter()
                .map(|(w, e)| Some((w.clone(), e.subst(v, &value).ok()?)))
                .collect::<Option<_>>()?;
            replaced.push((v.clone(), value));
            return Some(Narrowed {
                constraints: substituted,
                vars: renamed,
                replaced,
            });
        }
    }
    None
}

/// An order to enumerate `vars`, outermost first: each next variable has a lower and an
/// upper bound (linear, constant coefficient) from constraints on itself and the
/// variables before it (any other name is a parameter). Innermost-first loop order
/// reversed is tried first.
pub fn order(cons: &[Constraint], vars: &[Name]) -> Option<Vec<Name>> {
    order_last(cons, vars, &|_| false)
}

/// [`order`] with the variables `last` accepts taken only when no other can be.
pub fn order_last(
    cons: &[Constraint],
    vars: &[Name],
    last: &dyn Fn(&Name) -> bool,
) -> Option<Vec<Name>> {
    let mut order: Vec<Name> = Vec::with_capacity(vars.len());
    let mut left: Vec<Name> = vars.iter().rev().cloned().collect();
    while !left.is_empty() {
        let bounded = |v: &Name| {
            let (mut lower, mut upper) = (false, false);
            for c in cons {
                if !c.mentions(v) || left.iter().any(|n| n != v && c.mentions(n)) {
                    continue;
                }
                if let Some([_, c1]) = c.expr.poly_in(v).as_deref()
                    && let Some(k) = c1.as_const()
                {
                    match c.rel {
                        Rel::Eq => (lower, upper) = (true, true),
                        _ if k.signum() > 0 => lower = true,
                        _ => upper = true,
                    }
                }
            }
            lower && upper
        };
        let next = left
            .iter()
            .position(|v| !last(v) && bounded(v))
            .or_else(|| left.iter().position(bounded))?;
        order.push(left.remove(next));
    }
    Some(order)
}

/// `EvalError` for a variable without constant-coefficient bounds.
pub fn unordered() -> EvalError {
    EvalError::Opaque("a loop variable without constant-coefficient bounds".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn var(n: &str) -> Sym {
        Sym::var(n)
    }

    fn rat(n: i128, d: i128) -> Sym {
        Sym::rat(Rational::new(n, d).expect("d > 0"))
    }

    /// `c1·y + α·x + β (rel) 0` with β = b0 + b1·p + ⌊p/2⌋·b2: a bound of the last
    /// level, sloped in x.
    fn bound() -> impl Strategy<Value = Constraint> {
        let coef = prop_oneof![
            Just((1, 1)),
            Just((-1, 1)),
            Just((2, 1)),
            Just((-3, 1)),
            Just((1, 2)),
            Just((-2, 3))
        ];
        let rel = prop_oneof![4 => Just(Rel::Ge), 2 => Just(Rel::Gt), 1 => Just(Rel::Eq)];
        (
            coef,
            -5i128..6,
            1i128..4,
            -15i128..16,
            -2i128..3,
            -1i128..2,
            rel,
        )
            .prop_map(|((a, b), an, ad, b0, b1, b2, rel)| {
                let expr = var("y")
                    .mul(&rat(a, b))
                    .and_then(|e| e.add(&var("x").mul(&rat(an, ad))?))
                    .and_then(|e| e.add(&Sym::int(b0)))
                    .and_then(|e| e.add(&var("p").mul(&Sym::int(b1))?))
                    .and_then(|e| e.add(&var("p").mul(&rat(1, 2))?.floor()?.mul(&Sym::int(b2))?))
                    .expect("small");
                Constraint { expr, rel }
            })
    }

    proptest! {
        /// The last two levels counted in closed form equal the points of a box that
        /// satisfy every constraint.
        #[test]
        fn sloped_last_levels_count_the_points(
            bounds in prop::collection::vec(bound(), 0..5),
            x0 in -8i128..2,
            x1 in -2i128..8,
            p in -4i128..5,
        ) {
            let box_ = [
                Constraint::ge(&var("x"), &Sym::int(x0)).unwrap(),
                Constraint::le(&var("x"), &Sym::int(x1)).unwrap(),
                Constraint::ge(&var("y"), &Sym::int(-30)).unwrap(),
                Constraint::le(&var("y"), &Sym::int(30)).unwrap(),
            ];
            let all: Vec<Constraint> = box_.into_iter().chain(bounds).collect();
            let nest = Nest::ordered(&all, vec!["x".into(), "y".into()], &["p".into()]);
            prop_assert!(nest.sloped.is_some());
            let mut brute = 0;
            for x in x0..=x1 {
                for y in -30..=30 {
                    let env = |n: &str| match n { "x" => Some(x), "y" => Some(y), "p" => Some(p), _ => None };
                    brute += i128::from(all.iter().all(|c| c.eval(&env) == Ok(true)));
                }
            }
            prop_assert_eq!(nest.count(&[p], &mut u64::MAX.clone()), Some(brute));
        }
    }
}
