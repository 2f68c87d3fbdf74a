//! The symbolic sum algorithm of P^3T+ (Figure 2): counts the integer solutions of a
//! set of constraints — more generally sums a polynomial over them — as guarded
//! closed forms in the parameters.
//!
//! SUM(I, V, E): simplify I and stop if it is infeasible (S1, S2); with no variable left
//! the pair (I, E) is a solution (S3); otherwise eliminate one variable v (S4): for each
//! pair of a lower bound l_i and an upper bound u_j of v, assume l_i is the maximum lower
//! and u_j the minimum upper bound (ties broken by position, so that the cases
//! partition the space) and `l_i <= u_j`, sum E over v from l_i to u_j with
//! Faulhaber's formulas, and recurse.
//!
//! Beyond the figure, and still exact:
//! - a coefficient of v that is a polynomial in the parameters is split on its sign;
//! - v inside `⌊(a·v + b)/m⌋` (from steps, integer division, MOD) is split by residue,
//!   `v = M·v' + r`, which takes it out of the floor;
//! - an equality `v = e` substitutes v;
//! - constraints are decided from interval bounds of the unknowns, which prunes
//!   infeasible cases and drops implied constraints.
//!
//! Work is bounded by a [`Budget`]; past it the caller falls back to a numeric count.

use super::constraint::{Constraint, Rel};
use super::faulhaber::sum_over;
use super::integer::lcm;
use super::interval::{Ext, Interval};
use super::piecewise::{Piece, Piecewise};
use super::rational::Rational;
use super::sym::{Atom, Name, Sym, SymError};
use std::collections::HashMap;
use std::sync::Arc;

/// Why the symbolic sum gave up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SumError {
    /// More pieces, steps or time than the budget allows.
    OverBudget,
    /// A variable occurs in a way the algorithm cannot sum exactly.
    NonLinear(String),
    /// A variable has no lower or no upper bound.
    Unbounded(String),
    Sym(SymError),
}

impl From<SymError> for SumError {
    fn from(e: SymError) -> SumError {
        SumError::Sym(e)
    }
}

impl From<super::rational::Overflow> for SumError {
    fn from(_: super::rational::Overflow) -> SumError {
        SumError::Sym(SymError::Overflow)
    }
}

impl std::fmt::Display for SumError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SumError::OverBudget => f.write_str("the symbolic count exceeded its budget"),
            SumError::NonLinear(what) => write!(f, "{what} is not a form the symbolic sum handles"),
            SumError::Unbounded(v) => write!(f, "`{v}` has no lower or upper bound"),
            SumError::Sym(SymError::Overflow) => f.write_str("a coefficient overflowed"),
            SumError::Sym(SymError::DivisionByZero) => f.write_str("division by zero"),
        }
    }
}

/// Limits on the work of one symbolic sum: counted steps, never the clock, so the
/// same input gives the same answer on any machine and under any load.
#[derive(Clone, Debug)]
pub struct Budget {
    pub max_pieces: usize,
    pub max_steps: usize,
    steps: usize,
    pieces: usize,
}

impl Budget {
    pub fn new(max_pieces: usize, max_steps: usize) -> Budget {
        Budget {
            max_pieces,
            max_steps,
            steps: 0,
            pieces: 0,
        }
    }

    /// Steps taken so far (recursive calls).
    pub fn steps(&self) -> usize {
        self.steps
    }

    fn step(&mut self) -> Result<(), SumError> {
        crate::interrupt::point();
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(SumError::OverBudget);
        }
        Ok(())
    }
}

/// Largest modulus of a residue split (`v = M·v' + r`, M cases).
const MAX_MODULUS: i128 = 64;

/// `Σ summand` over the integer points of `constraints`, summing over `vars` in order
/// (the first is eliminated first: innermost loop first). Unknowns not in `vars` are
/// parameters and appear in the guards and values.
pub fn symbolic_sum(
    constraints: Vec<Constraint>,
    vars: &[Name],
    summand: Sym,
    budget: &mut Budget,
) -> Result<Piecewise, SumError> {
    symbolic_sum_shared(constraints, vars, summand, budget).map(Arc::unwrap_or_clone)
}

/// [`symbolic_sum`], the formula shared with every other asker of the same sum (while
/// it is remembered) instead of copied: a count or work formula of tens of kilobytes
/// recurs in every statement of a nest and every unit alike, and the shared one is
/// printed once ([`Piecewise::display_shared`]).
pub fn symbolic_sum_shared(
    constraints: Vec<Constraint>,
    vars: &[Name],
    summand: Sym,
    budget: &mut Budget,
) -> Result<Arc<Piecewise>, SumError> {
    memo::remembered(
        constraints,
        vars,
        summand,
        budget,
        |constraints, vars, summand, budget| {
            let mut s = Summer {
                budget,
                out: Vec::new(),
            };
            s.go(constraints, vars, summand, &Assumed::default())?;
            Ok(Arc::new(Piecewise { pieces: s.out }.simplified()?))
        },
    )
}

struct Summer<'b> {
    budget: &'b mut Budget,
    out: Vec<Piece>,
}

/// What a branch of the recursion assumes beyond its constraints.
#[derive(Clone, Default)]
struct Assumed {
    /// Residue splits taken so far (nested floors need a few).
    splits: usize,
    /// Signs of parametric coefficients split on (-1, 0 or 1).
    signs: Vec<(Sym, i128)>,
}

impl Summer<'_> {
    fn go(
        &mut self,
        cons: Vec<Constraint>,
        vars: &[Name],
        e: Sym,
        ctx: &Assumed,
    ) -> Result<(), SumError> {
        self.budget.step()?;
        // S1, S2
        let Some(cons) = simplify(split_extrema_conjunctions(cons)?)? else {
            return Ok(());
        };
        // A MIN or MAX that makes a constraint a disjunction: one case per argument.
        if let Some(cases) = extremum_cases(&cons)? {
            for case in cases {
                self.go(case, vars, e.clone(), ctx)?;
            }
            return Ok(());
        }
        if e.is_zero() {
            return Ok(());
        }
        // S3
        let Some((v, rest)) = vars.split_first() else {
            self.budget.pieces += 1;
            if self.budget.pieces > self.budget.max_pieces {
                return Err(SumError::OverBudget);
            }
            self.out.push(Piece {
                guard: cons,
                value: e,
            });
            return Ok(());
        };
        let bounds = single_bounds(&cons);
        let lookup = |a: &Atom| match a {
            Atom::Var(n) => bounds.get(n).copied().unwrap_or(Interval::ALL),
            _ => Interval::ALL,
        };

        // v inside a floor (or a Fortran MOD / integer division of a nonnegative value):
        // split by residue.
        let (cons, e) = (as_floors(v, &cons, &lookup)?, as_floor_sym(v, &e, &lookup)?);
        if let Some(m) = residue_modulus(v, &cons, &e)? {
            if ctx.splits > 4 || m > MAX_MODULUS {
                return Err(SumError::NonLinear(format!(
                    "`{v}` under a division by {m}"
                )));
            }
            for r in 0..m {
                let value = Sym::var(v).scale(Rational::int(m))?.add_int(r)?;
                let cs = cons
                    .iter()
                    .map(|c| c.subst(v, &value))
                    .collect::<Result<Vec<_>, _>>()?;
                let deeper = Assumed {
                    splits: ctx.splits + 1,
                    ..ctx.clone()
                };
                self.go(cs, vars, e.subst(v, &value)?, &deeper)?;
            }
            return Ok(());
        }

        // S4: partition the constraints.
        let mut lowers: Vec<Sym> = Vec::new();
        let mut uppers: Vec<Sym> = Vec::new();
        let mut others: Vec<Constraint> = Vec::new();
        for c in &cons {
            if !c.mentions(v) {
                others.push(c.clone());
                continue;
            }
            let coefs = c
                .expr
                .poly_in(v)
                .filter(|k| k.len() == 2)
                .ok_or_else(|| SumError::NonLinear(format!("constraint `{c}` in `{v}`")))?;
            let (c0, c1) = (&coefs[0], &coefs[1]);
            let known = c1.as_const().map(|k| k.signum()).or_else(|| {
                let assumed = ctx.signs.iter().find(|(s, _)| s == c1).map(|(_, sg)| *sg);
                assumed.or_else(|| {
                    let iv = c1.interval(&lookup);
                    if iv.lo.signum() > 0 {
                        Some(1)
                    } else if iv.hi.signum() < 0 {
                        Some(-1)
                    } else {
                        None
                    }
                })
            });
            let Some(sign) = known else {
                // Split on the sign of a parametric coefficient (P^3T+'s `J2 <= N2*J1`).
                for (extra, sign) in [
                    (Constraint::ge(c1, &Sym::one())?, 1),
                    (Constraint::le(c1, &Sym::int(-1))?, -1),
                    (Constraint::eq(c1, &Sym::zero())?, 0),
                ] {
                    let mut cs = cons.clone();
                    cs.push(extra);
                    let mut branch = ctx.clone();
                    branch.signs.push((c1.clone(), sign));
                    self.go(cs, vars, e.clone(), &branch)?;
                }
                return Ok(());
            };
            if sign == 0 {
                // The coefficient vanishes: the constraint bounds only the parameters.
                others.push(Constraint {
                    expr: c0.clone(),
                    rel: c.rel,
                });
                continue;
            }
            match (c.rel, sign) {
                (Rel::Eq, _) => {
                    // c1·v + c0 = 0: v = -c0/c1, and c1 must divide c0.
                    let value = c0.neg()?.div(c1)?;
                    let mut cs: Vec<Constraint> = cons
                        .iter()
                        .filter(|d| *d != c)
                        .map(|d| d.subst(v, &value))
                        .collect::<Result<_, _>>()?;
                    if !value.is_integer_valued() {
                        cs.push(Constraint::eq(&value.floor()?, &value)?);
                    }
                    return self.go(cs, rest, e.subst(v, &value)?, ctx);
                }
                // c1·v + c0 >= 0 with c1 > 0: v >= -c0/c1.
                (Rel::Ge, 1) => lowers.push(c0.neg()?.div(c1)?.ceil()?),
                (Rel::Ge, _) => uppers.push(c0.div(&c1.neg()?)?.floor()?),
                (Rel::Gt, 1) => lowers.push(c0.neg()?.div(c1)?.floor()?.add_int(1)?),
                (Rel::Gt, _) => uppers.push(c0.div(&c1.neg()?)?.ceil()?.add_int(-1)?),
            }
        }
        lowers.sort();
        lowers.dedup();
        uppers.sort();
        uppers.dedup();
        if lowers.is_empty() || uppers.is_empty() {
            return Err(SumError::Unbounded(v.to_string()));
        }
        // S4.3: one case per (maximum lower, minimum upper) pair.
        for (i, l) in lowers.iter().enumerate() {
            for (j, u) in uppers.iter().enumerate() {
                let mut cs = others.clone();
                for (k, lk) in lowers.iter().enumerate() {
                    if k < i {
                        cs.push(Constraint::gt(l, lk)?);
                    } else if k > i {
                        cs.push(Constraint::ge(l, lk)?);
                    }
                }
                for (k, uk) in uppers.iter().enumerate() {
                    if k < j {
                        cs.push(Constraint::gt(uk, u)?);
                    } else if k > j {
                        cs.push(Constraint::ge(uk, u)?);
                    }
                }
                cs.push(Constraint::le(l, u)?);
                let sum = sum_over(&e, v, l, u)
                    .ok_or_else(|| SumError::NonLinear(format!("the summand `{e}` in `{v}`")))??;
                self.go(cs, rest, sum, ctx)?;
            }
        }
        Ok(())
    }
}

/// A MIN or MAX occurring linearly in a constraint: the constraint is `rest + k·m >= 0`
/// with `m` the atom's expression. Returns (index of the constraint, k, rest, args, is_min).
fn linear_extremum(c: &Constraint) -> Option<(Sym, Rational, Vec<Sym>, bool)> {
    if c.rel != Rel::Ge {
        return None;
    }
    for t in c.expr.terms() {
        if let [(a @ (Atom::Min(args) | Atom::Max(args)), 1)] = t.mono.factors() {
            let rest = c.expr.sub(&Sym::from_term(t)).ok()?;
            return Some((rest, t.coef, args.to_vec(), matches!(a, Atom::Min(_))));
        }
    }
    None
}

/// `rest + k·min(a, b) >= 0` with k > 0 holds when it holds for every argument (and
/// likewise `rest - k·max(a, b) >= 0`): such constraints become one per argument.
fn split_extrema_conjunctions(cons: Vec<Constraint>) -> Result<Vec<Constraint>, SumError> {
    let mut out = Vec::with_capacity(cons.len());
    let mut work = cons;
    while let Some(c) = work.pop() {
        match linear_extremum(&c) {
            Some((rest, k, args, is_min)) if (k.signum() > 0) == is_min => {
                for a in args {
                    work.push(Constraint {
                        expr: rest.add(&a.scale(k)?)?,
                        rel: Rel::Ge,
                    });
                }
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// `rest - k·min(a, b) >= 0` (k > 0) holds when it holds for some argument (and
/// likewise `rest + k·max(...)`): disjoint cases, the first argument, else the second
/// (the first failing), ... `None` when no constraint is such a disjunction.
fn extremum_cases(cons: &[Constraint]) -> Result<Option<Vec<Vec<Constraint>>>, SumError> {
    for (i, c) in cons.iter().enumerate() {
        let Some((rest, k, args, _)) = linear_extremum(c) else {
            continue;
        };
        let others: Vec<Constraint> = cons
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, c)| c.clone())
            .collect();
        let mut cases = Vec::with_capacity(args.len());
        let mut failed: Vec<Constraint> = Vec::new();
        for a in &args {
            let this = Constraint {
                expr: rest.add(&a.scale(k)?)?,
                rel: Rel::Ge,
            };
            let mut case = others.clone();
            case.extend(failed.iter().cloned());
            case.push(this.clone());
            cases.push(case);
            failed.extend(this.negated()?);
        }
        return Ok(Some(cases));
    }
    Ok(None)
}

/// S1: normalize, drop constraints that hold, detect infeasibility (`None`).
fn simplify(cons: Vec<Constraint>) -> Result<Option<Vec<Constraint>>, SumError> {
    let mut cs = Vec::with_capacity(cons.len());
    for c in cons {
        let c = c.normalized()?;
        match c.truth() {
            Some(true) => {}
            Some(false) => return Ok(None),
            None => cs.push(c),
        }
    }
    cs.sort();
    cs.dedup();
    let bounds = single_bounds(&cs);
    if bounds.values().any(|iv| iv.is_empty()) {
        return Ok(None);
    }
    let lookup = |a: &Atom| match a {
        Atom::Var(n) => bounds.get(n).copied().unwrap_or(Interval::ALL),
        _ => Interval::ALL,
    };
    let mut kept = Vec::with_capacity(cs.len());
    for c in cs {
        if single_var_bound(&c).is_some() {
            // A bound of one unknown defines the intervals: keep the tightest only.
            if is_tightest(&c, &bounds) {
                kept.push(c);
            }
            continue;
        }
        match c.decide(&lookup) {
            Some(true) => {}
            Some(false) => return Ok(None),
            None => kept.push(c),
        }
    }
    // Pairs: a + b a negative constant is infeasible; a = b + k (k >= 0) makes a redundant.
    let mut i = 0;
    while i < kept.len() {
        let mut redundant = false;
        for j in 0..kept.len() {
            if i == j || kept[i].rel != Rel::Ge || kept[j].rel != Rel::Ge {
                continue;
            }
            if let Some(s) = kept[i].expr.add(&kept[j].expr)?.as_const()
                && s.signum() < 0
            {
                return Ok(None);
            }
            if let Some(d) = kept[i].expr.sub(&kept[j].expr)?.as_const()
                && (d.signum() > 0 || (d.is_zero() && j < i))
            {
                redundant = true;
                break;
            }
        }
        if redundant {
            kept.remove(i);
        } else {
            i += 1;
        }
    }
    Ok(Some(kept))
}

/// For `±x + c >= 0` or `x + c = 0`: the unknown, and its bound as an interval.
fn single_var_bound(c: &Constraint) -> Option<(Name, Interval)> {
    let mut name = None;
    let mut coef = Rational::ZERO;
    for t in c.expr.terms() {
        if t.mono.is_one() {
            continue;
        }
        match t.mono.factors() {
            [(Atom::Var(n), 1)] if name.is_none() => {
                name = Some(n.clone());
                coef = t.coef;
            }
            _ => return None,
        }
    }
    let name = name?;
    let k = c.expr.constant();
    // coef·x + k (rel) 0  →  x (rel) -k/coef
    let at = k
        .checked_neg()
        .ok()?
        .checked_mul(coef.recip()?.ok()?)
        .ok()?;
    let iv = match (c.rel, coef.signum()) {
        (Rel::Eq, _) => Interval::point(at),
        (Rel::Ge, 1) => Interval {
            lo: Ext::Fin(Rational::int(at.ceil())),
            hi: Ext::PosInf,
        },
        (Rel::Ge, _) => Interval {
            lo: Ext::NegInf,
            hi: Ext::Fin(Rational::int(at.floor())),
        },
        (Rel::Gt, 1) => Interval {
            lo: Ext::Fin(Rational::int(at.floor() + 1)),
            hi: Ext::PosInf,
        },
        (Rel::Gt, _) => Interval {
            lo: Ext::NegInf,
            hi: Ext::Fin(Rational::int(at.ceil() - 1)),
        },
    };
    Some((name, iv))
}

/// Intervals of the unknowns from the constraints on a single unknown.
fn single_bounds(cs: &[Constraint]) -> HashMap<Name, Interval> {
    let mut bounds: HashMap<Name, Interval> = HashMap::new();
    for c in cs {
        if let Some((n, iv)) = single_var_bound(c) {
            let e = bounds.entry(n).or_insert(Interval::ALL);
            *e = e.meet(iv);
        }
    }
    bounds
}

/// Whether a single-unknown bound is as tight as the combined interval (the first of
/// equally tight ones is kept by the caller's dedup).
fn is_tightest(c: &Constraint, bounds: &HashMap<Name, Interval>) -> bool {
    let Some((n, iv)) = single_var_bound(c) else {
        return true;
    };
    let all = bounds[&n];
    match c.rel {
        Rel::Eq => true,
        _ => (iv.lo != Ext::NegInf && iv.lo == all.lo) || (iv.hi != Ext::PosInf && iv.hi == all.hi),
    }
}

/// The modulus `M` of the residue split `v` needs: the lcm of the denominators of v's
/// coefficients inside the innermost floors holding v (Fortran MOD and integer division
/// by a positive constant count as floors once [`as_floors`] rewrote them). After the
/// split those floors lose v; floors they were nested in are split next. `None` when v
/// is under no division.
fn residue_modulus(v: &str, cons: &[Constraint], e: &Sym) -> Result<Option<i128>, SumError> {
    fn visit(v: &str, s: &Sym, m: &mut Option<i128>) -> Result<(), SumError> {
        for t in s.terms() {
            for (a, _) in t.mono.factors() {
                if matches!(a, Atom::Var(_)) || !a.mentions(v) {
                    continue;
                }
                let Atom::Floor(x) = a else {
                    return Err(SumError::NonLinear(format!(
                        "`{v}` inside {}",
                        Sym::atom(a.clone())
                    )));
                };
                match x.poly_in(v) {
                    Some(c) if c.len() <= 2 => {
                        let k = c
                            .get(1)
                            .map_or(Some(Rational::ZERO), Sym::as_const)
                            .ok_or_else(|| {
                                SumError::NonLinear(format!(
                                    "`{v}` with a symbolic coefficient in a floor"
                                ))
                            })?;
                        *m = Some(lcm(m.unwrap_or(1), k.den()).unwrap_or(i128::MAX));
                    }
                    Some(_) => {
                        return Err(SumError::NonLinear(format!("`{v}` squared in a floor")));
                    }
                    // v is deeper: split on the inner floors first.
                    None => visit(v, x, m)?,
                }
            }
        }
        Ok(())
    }
    let mut m = None;
    for c in cons {
        visit(v, &c.expr, &mut m)?;
    }
    visit(v, e, &mut m)?;
    Ok(m)
}

/// Rewrites, at any depth, Fortran MOD and integer division of a nonnegative operand
/// by a positive constant as floors (they agree there): `a/k = ⌊a/k⌋`,
/// `MOD(a,k) = a - k⌊a/k⌋`. Only atoms holding `v` are rewritten.
fn as_floor_sym(v: &str, s: &Sym, bounds: &dyn Fn(&Atom) -> Interval) -> Result<Sym, SumError> {
    fn rewrite(
        v: &str,
        a: &Atom,
        bounds: &dyn Fn(&Atom) -> Interval,
    ) -> Option<Result<Sym, SymError>> {
        if !a.mentions(v) {
            return None;
        }
        let deep = |x: &Sym| x.map_atoms(&mut |b| rewrite(v, b, bounds));
        Some((|| match a {
            Atom::Floor(x) => deep(x)?.floor(),
            Atom::IDiv(x, k) | Atom::Mod(x, k) => {
                let x = deep(x)?;
                let k_value = k.as_const().filter(|k| k.is_integer() && k.signum() > 0);
                match k_value {
                    Some(k) if x.interval(bounds).nonneg() => {
                        let q = x
                            .scale(k.recip().ok_or(SymError::DivisionByZero)??)?
                            .floor()?;
                        match a {
                            Atom::IDiv(..) => Ok(q),
                            _ => x.sub(&q.scale(k)?),
                        }
                    }
                    _ => match a {
                        Atom::IDiv(..) => x.idiv(k),
                        _ => x.fmod(k),
                    },
                }
            }
            Atom::Min(args) => Sym::min(&args.iter().map(deep).collect::<Result<Vec<_>, _>>()?),
            Atom::Max(args) => Sym::max(&args.iter().map(deep).collect::<Result<Vec<_>, _>>()?),
            _ => Ok(Sym::atom(a.clone())),
        })())
    }
    Ok(s.map_atoms(&mut |a| rewrite(v, a, bounds))?)
}

fn as_floors(
    v: &str,
    cons: &[Constraint],
    bounds: &dyn Fn(&Atom) -> Interval,
) -> Result<Vec<Constraint>, SumError> {
    cons.iter()
        .map(|c| {
            Ok(Constraint {
                expr: as_floor_sym(v, &c.expr, bounds)?,
                rel: c.rel,
            })
        })
        .collect()
}

mod memo;
#[cfg(test)]
mod tests;
