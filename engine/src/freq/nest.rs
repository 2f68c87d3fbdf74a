//! A constraint set prepared for counting or visiting its integer points many times: the
//! variables in an order where each has lower and upper bounds from the ones before it
//! (outermost first), every constraint assigned to the level of its innermost variable,
//! and bounds and checks compiled over value slots ([`Compiled`]): the parameters first
//! (say a processor's grid coordinates, given per call), then the variables in order.
//! A bound or check that does not compile is evaluated symbolically at that point.

use crate::symbolic::{Compiled, Constraint, EvalError, Name, Num, Rational, Rel, Sym};

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
}

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
            match c.expr.poly_in(&vars[deepest]).as_deref() {
                Some([c0, c1]) if c1.as_const().is_some() => {
                    level
                        .bounds
                        .push((value(c0), c1.as_const().expect("checked"), c.rel));
                }
                _ => level.checks.push((value(&c.expr), c.rel)),
            }
        }
        Nest {
            params: params.len(),
            names,
            levels,
            guards,
            empty,
        }
    }

    /// The number of points for the parameters' values `params`; `None` for an
    /// unbounded variable, a value the bounds do not have, or past `left` values of
    /// the outer variables (each value looked at costs one).
    pub fn count(&self, params: &[i128], left: &mut u64) -> Option<i128> {
        let values = &mut self.start(params)?;
        if self.empty || !self.holds(&self.guards, values) {
            return Some(0);
        }
        self.count_from(0, values, left)
    }

    /// Calls `f` at every point for the parameters' values `params`, the point made of
    /// the first `depth` variables only (once per distinct value of them that has a
    /// point); `None` for an unbounded variable or past `left` points.
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
            f(Point {
                names: &self.names,
                values,
            });
            return Some(());
        }
        let level = &self.levels[k];
        let (lo, hi) = self.range(level, values)?;
        for x in lo..=hi {
            values.push(x);
            if self.holds(&level.checks, values) {
                self.visit_from(k + 1, depth, values, left, f)?;
            }
            values.pop();
        }
        Some(())
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
