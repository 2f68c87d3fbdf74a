//! Whether a DO loop carries a flow dependence from a write of an array to one read of
//! it — the test that decides how far the read's fetch can be hoisted (placement.rs).
//!
//! Loop L carries a flow dependence from write W to read R when some instance of W
//! and a later instance of R, in the same iteration of every loop around L and in
//! iterations `l_W <= l_R` of L (in L's order), name the same element. Loop bounds are
//! ignored (so the answer holds for every binding of the unknowns); what is used:
//! - subscripts affine in the loop variables, plus `mod(v, m)` of a non-negative loop
//!   variable and invariant terms that cancel between W and R (a dimension whose
//!   invariant terms differ constrains nothing);
//! - the lattice of each loop variable: `v ≡ lower (mod step)` for a constant step,
//!   with a lower bound that may itself hold `mod(outer, m)` (the red-black sweep
//!   `do i = 2 + mod(j, 2), n - 1, 2`);
//! - the distances on L and on the loops inside it that W and R share, where a
//!   dimension fixes them (`a(i) = a(i + 1)` only reads elements written later: an
//!   anti dependence, which a fetch before L respects); W's instance comes first when
//!   the distances are lexicographically positive, or all zero and W's statement
//!   precedes R's (in one statement the read comes first).
//!
//! The residues of all loop variables modulo M (the lcm of the steps and moduli) are
//! enumerated; each combination must satisfy every lattice and, per dimension, the
//! GCD test of the equation `W's subscript = R's subscript` with `x = r + M y`. No
//! feasible combination: no flow. Anything outside this form counts as a dependence.

use costline_symbolic::{gcd, lcm};
use costline_syntax::ir::{Expr, Loop, LoopControl, LoopOrigin, Stmt, StmtId, StmtKind, Subscript};
use costline_syntax::normalize::affine::Affine;
use std::collections::{BTreeMap, HashMap};

/// The residue combinations enumerated at most; beyond, a dependence is assumed.
const MAX_COMBINATIONS: u64 = 1 << 16;

/// Whether loop `loops[level]` carries a flow dependence on the read `read` of
/// `array` (its statement and subscripts), made inside all of `loops` (outermost
/// first). `read` is None for reads that are not one element (reductions), which
/// depend on any write.
pub fn carries_flow(
    loops: &[&Loop],
    level: usize,
    array: &str,
    read: Option<(StmtId, &[Subscript])>,
) -> bool {
    let l = loops[level];
    if l.origin != LoopOrigin::Do || l.independent.is_some() {
        return false;
    }
    let mut writes = Vec::new();
    let mut opaque = false;
    collect_writes(&l.body, array, &mut Vec::new(), &mut writes, &mut opaque);
    if opaque {
        return true;
    }
    let Some((read_stmt, read)) = read else {
        return !writes.is_empty();
    };
    writes.iter().any(|(stmt, subscripts, inner)| {
        let order = match stmt.cmp(&read_stmt) {
            std::cmp::Ordering::Less => Textual::WriteFirst,
            std::cmp::Ordering::Equal => Textual::Same,
            std::cmp::Ordering::Greater => Textual::ReadFirst,
        };
        let problem = Problem::new(&loops[..level], l, inner, &loops[level + 1..], order);
        problem.is_none_or(|p| p.may_flow(subscripts, read))
    })
}

/// An element write: its statement, subscripts and the loops around it inside L.
type Write<'a> = (StmtId, &'a [Subscript], Vec<&'a Loop>);

/// Which of W's and R's statements comes first in the source.
#[derive(Clone, Copy)]
enum Textual {
    WriteFirst,
    Same,
    ReadFirst,
}

/// The element writes of `array` in `body` with the loops around each (inside the
/// body); `opaque` when the array is written whole, through a section or by a CALL.
fn collect_writes<'a>(
    body: &'a [Stmt],
    array: &str,
    loops: &mut Vec<&'a Loop>,
    out: &mut Vec<Write<'a>>,
    opaque: &mut bool,
) {
    for s in body {
        match &s.kind {
            StmtKind::Assign { lhs, .. } => match lhs {
                Expr::Array(r) if r.name == array => {
                    if r.subscripts
                        .iter()
                        .all(|x| matches!(x, Subscript::Index(_)))
                    {
                        out.push((s.id, &r.subscripts, loops.clone()));
                    } else {
                        *opaque = true;
                    }
                }
                Expr::Name(n) if n == array => *opaque = true,
                _ => {}
            },
            StmtKind::Call(c) => {
                for a in &c.args {
                    a.value.visit(&mut |x| {
                        *opaque |= matches!(x, Expr::Array(r) if r.name == array)
                            || matches!(x, Expr::Name(n) if n == array);
                    });
                }
            }
            StmtKind::Loop(inner) => {
                loops.push(inner);
                collect_writes(&inner.body, array, loops, out, opaque);
                loops.pop();
            }
            _ => {
                for c in s.children() {
                    collect_writes(std::slice::from_ref(c), array, loops, out, opaque);
                }
            }
        }
    }
}

/// `sum(coef * x) + sum(coef * mod(x, m)) + constant`, with terms free of loop
/// variables kept apart by their text.
#[derive(Clone, Debug, Default)]
struct Lin {
    vars: BTreeMap<usize, i64>,
    mods: Vec<(i64, usize, i64)>,
    invariant: BTreeMap<String, i64>,
    constant: i64,
}

impl Lin {
    fn minus(mut self, other: &Lin) -> Lin {
        for (v, k) in &other.vars {
            *self.vars.entry(*v).or_default() -= k;
        }
        self.vars.retain(|_, k| *k != 0);
        self.mods
            .extend(other.mods.iter().map(|(k, v, m)| (-k, *v, *m)));
        for (t, k) in &other.invariant {
            *self.invariant.entry(t.clone()).or_default() -= k;
        }
        self.invariant.retain(|_, k| *k != 0);
        self.constant -= other.constant;
        self
    }

    /// The value modulo nothing of the mod terms and constant, with the variables at
    /// their residues (`Σ a r + Σ b mod(r, m) + c`).
    fn at(&self, r: &[i64]) -> i64 {
        let vars: i64 = self.vars.iter().map(|(v, k)| k * r[*v]).sum();
        let mods: i64 = self
            .mods
            .iter()
            .map(|(k, v, m)| k * r[*v].rem_euclid(*m))
            .sum();
        vars + mods + self.constant
    }
}

/// One loop variable of the problem.
struct Var {
    /// The lattice `v ≡ lower (mod step)`, when the step is a constant other than ±1
    /// and the lower bound has the form of [`Lin`] without invariant terms.
    lattice: Option<(Lin, i64)>,
    /// Its step when constant (for the order of L's iterations).
    step: Option<i64>,
}

/// The variables of W's and R's iterations: the loops around L shared, L's and the
/// inner loops' variables once per side.
struct Problem {
    vars: Vec<Var>,
    w: HashMap<String, usize>,
    r: HashMap<String, usize>,
    /// (W's variable, R's variable) of L and of the loops inside L around both.
    levels: Vec<(usize, usize)>,
    order: Textual,
    nonnegative: Vec<bool>,
}

impl Problem {
    fn new(
        outer: &[&Loop],
        l: &Loop,
        w_inner: &[&Loop],
        r_inner: &[&Loop],
        order: Textual,
    ) -> Option<Problem> {
        let mut p = Problem {
            vars: Vec::new(),
            w: HashMap::new(),
            r: HashMap::new(),
            levels: Vec::new(),
            order,
            nonnegative: Vec::new(),
        };
        for o in outer {
            p.add(o, Side::Both)?;
        }
        let common = w_inner
            .iter()
            .zip(r_inner)
            .take_while(|(a, b)| std::ptr::eq(**a, **b))
            .count();
        for shared in std::iter::once(l).chain(w_inner[..common].iter().copied()) {
            let w = p.add(shared, Side::W)?;
            let r = p.add(shared, Side::R)?;
            p.levels.push((w, r));
        }
        for i in &w_inner[common..] {
            p.add(i, Side::W)?;
        }
        for i in &r_inner[common..] {
            p.add(i, Side::R)?;
        }
        Some(p)
    }

    /// Adds the variable of loop `l` on `side`; None when `l` has no counted control.
    fn add(&mut self, l: &Loop, side: Side) -> Option<usize> {
        let LoopControl::Counted {
            var, lower, step, ..
        } = &l.control
        else {
            return None;
        };
        let step = match step {
            None => Some(1),
            Some(e) => {
                let a = Affine::of(e);
                a.terms().is_empty().then_some(a.constant())
            }
        };
        let names = match side {
            Side::W | Side::Both => &self.w,
            Side::R => &self.r,
        };
        let lower_lin = self.lin(lower, names);
        let id = self.vars.len();
        let nonnegative = step.is_some_and(|s| s > 0)
            && lower_lin.as_ref().is_some_and(|b| {
                b.invariant.is_empty()
                    && b.constant >= 0
                    && b.vars.iter().all(|(v, k)| *k >= 0 && self.nonnegative[*v])
                    && b.mods.iter().all(|(k, _, _)| *k >= 0)
            });
        let lattice = match (step, lower_lin) {
            (Some(s), Some(b)) if s.abs() > 1 && b.invariant.is_empty() => Some((b, s.abs())),
            _ => None,
        };
        self.vars.push(Var { lattice, step });
        self.nonnegative.push(nonnegative);
        match side {
            Side::W => {
                self.w.insert(var.clone(), id);
            }
            Side::R => {
                self.r.insert(var.clone(), id);
            }
            Side::Both => {
                self.w.insert(var.clone(), id);
                self.r.insert(var.clone(), id);
            }
        }
        Some(id)
    }

    /// `e` over the variables `names`; None when it is not of the form of [`Lin`].
    fn lin(&self, e: &Expr, names: &HashMap<String, usize>) -> Option<Lin> {
        let a = Affine::of(e);
        let mut out = Lin {
            constant: a.constant(),
            ..Lin::default()
        };
        for (atom, k) in a.terms() {
            match atom {
                Expr::Name(n) if names.contains_key(n) => {
                    *out.vars.entry(names[n]).or_default() += k;
                }
                Expr::Call(c) if c.name == "mod" && c.args.len() == 2 => {
                    let Expr::Name(n) = &c.args[0].value else {
                        return None;
                    };
                    let v = *names.get(n)?;
                    let m = c.args[1].value.as_int().filter(|m| *m > 0)?;
                    if !self.nonnegative[v] {
                        return None;
                    }
                    out.mods.push((*k, v, m));
                }
                other => {
                    if names.keys().any(|n| other.mentions(n)) {
                        return None;
                    }
                    *out.invariant.entry(other.to_string()).or_default() += k;
                }
            }
        }
        out.vars.retain(|_, k| *k != 0);
        Some(out)
    }

    /// Whether some W instance at `w` may write the element some later R instance at
    /// `r` reads.
    fn may_flow(&self, w: &[Subscript], r: &[Subscript]) -> bool {
        if w.len() != r.len() {
            return true;
        }
        let mut equations = Vec::new();
        for (a, b) in w.iter().zip(r) {
            let (Subscript::Index(a), Subscript::Index(b)) = (a, b) else {
                continue;
            };
            let (Some(a), Some(b)) = (self.lin(a, &self.w), self.lin(b, &self.r)) else {
                return true;
            };
            let eq = a.minus(&b);
            if eq.invariant.is_empty() {
                equations.push(eq);
            }
        }
        let mut modulus: i64 = 1;
        let moduli = self
            .vars
            .iter()
            .filter_map(|v| v.lattice.as_ref().map(|(_, s)| *s))
            .chain(equations.iter().flat_map(|e| e.mods.iter().map(|m| m.2)))
            .chain(
                self.vars
                    .iter()
                    .filter_map(|v| v.lattice.as_ref())
                    .flat_map(|(b, _)| b.mods.iter().map(|m| m.2)),
            );
        for m in moduli {
            match lcm(modulus.into(), m.into()).map(i64::try_from) {
                Some(Ok(l)) if l <= 64 => modulus = l,
                _ => return true,
            }
        }
        let n = self.vars.len() as u32;
        let Some(combinations) = (modulus as u64).checked_pow(n) else {
            return true;
        };
        if combinations > MAX_COMBINATIONS {
            return true;
        }
        let mut r = vec![0i64; self.vars.len()];
        for code in 0..combinations {
            let mut c = code;
            for slot in r.iter_mut() {
                *slot = (c % modulus as u64) as i64;
                c /= modulus as u64;
            }
            if self.feasible(&r, modulus, &equations) {
                return true;
            }
        }
        false
    }

    /// Whether residues `r` (mod `m`) satisfy every lattice and admit a solution of
    /// every equation with W's iteration of L not after R's.
    fn feasible(&self, r: &[i64], m: i64, equations: &[Lin]) -> bool {
        for (v, var) in self.vars.iter().enumerate() {
            if let Some((lower, step)) = &var.lattice
                && (r[v] - lower.at(r)).rem_euclid(*step) != 0
            {
                return false;
            }
        }
        for eq in equations {
            // Σ a (r + m y) + rest = 0  ⇔  Σ (a m) y = -(Σ a r + rest).
            let rest = eq.at(r);
            let g = eq
                .vars
                .values()
                .fold(0, |g, &a| gcd(g, i128::from(a) * i128::from(m)));
            if g == 0 {
                if rest != 0 {
                    return false;
                }
                continue;
            }
            if i128::from(rest) % g != 0 {
                return false;
            }
        }
        self.flow_in_order(r, equations)
    }

    /// Whether W's instance may come before R's: the distances on L and the shared
    /// loops inside it, where an equation `a (x_W - x_R) + k = 0` fixes them, are
    /// compared in order; an unknown distance may be positive.
    fn flow_in_order(&self, r: &[i64], equations: &[Lin]) -> bool {
        for &(w, rd) in &self.levels {
            let Some(step) = self.vars[w].step else {
                return true;
            };
            let fixed = equations.iter().find_map(|eq| {
                let (&a, &b) = (eq.vars.get(&w)?, eq.vars.get(&rd)?);
                (eq.vars.len() == 2 && a == -b).then(|| {
                    // With the mod terms fixed by the residues the equation reads
                    // a (x_W - x_R) + k = 0, k = rest - a (r_W - r_R).
                    let k = eq.at(r) - a * (r[w] - r[rd]);
                    (k % a == 0).then_some(k / a)
                })
            });
            match fixed {
                None => return true,
                Some(None) => return false,
                Some(Some(read_minus_write)) => match (read_minus_write * step.signum()).signum() {
                    1 => return true,
                    -1 => return false,
                    _ => {}
                },
            }
        }
        matches!(self.order, Textual::WriteFirst)
    }
}

#[derive(Clone, Copy)]
enum Side {
    W,
    R,
    Both,
}
