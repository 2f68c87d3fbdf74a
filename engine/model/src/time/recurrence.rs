//! The longest loop-carried dependence cycle through one iteration of a loop's body:
//! the latency bound of an out-of-order core. Iterations overlap except along a value
//! one iteration computes and the next reads — a scalar updated from its own value
//! through several statements (`b5(k) = sa(k) + stb5*sb(k); stb5 = b5(k) - stb5`,
//! Livermore loop 19), an element written one step ahead of where it is read
//! (`xx(k+1) = f(xx(k))`, loop 20) — so an iteration takes at least the latencies of
//! the operations on that cycle, summed along the longest one.
//!
//! For each candidate (a scalar the body assigns; an element the loop index does not
//! move, `w(j)` summed over the loop's k, read again as it is; an element `a(…, i+c, …)`
//! the body writes, read one step later as `a(…, i+c−step, …)`) the body is evaluated once as
//! a dataflow: the candidate's value at the start of the iteration is ready at time 0,
//! every other input is independent of it; an operation is ready at the latest of its
//! operands plus its latency (`latency_<kind>_<type>`); an assignment makes its
//! target ready when its value is (or independent of the candidate when the value is);
//! the branches of an IF are evaluated apart and the later of their results taken
//! (the condition is predicted, not waited for). The cycle is the time at which the
//! candidate's next value is ready.

use super::ops::{division_ops, idempotent_select, integer_select_ops, multiplication_op, type_of};
use crate::machine::Machine;
use crate::machine::ops::{OpKey, OpKind, OpType, generic_intrinsic};
use costline_syntax::ir::{BinaryOp, Expr, LoopControl, Stmt, StmtKind, Subscript, UnaryOp, Unit};
use std::collections::HashMap;

/// A subscript relative to the loop index: `i + c + rest` (`rest` the terms free of
/// `i`, e.g. `k + kb5i`), or one that does not mention it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Sub {
    Rel(i64, Vec<String>),
    Fixed(String),
}

/// A value of the body: a scalar (no subscripts) or an array element.
type Key = (String, Vec<Sub>);

/// The longest loop-carried cycles through one iteration of a loop, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cycles {
    /// Through a scalar: it goes on from one entry of the loop to the next.
    pub continuing_s: f64,
    /// Through array elements: each entry of the loop starts a chain of its own (the
    /// first element it reads is not one the previous entry's chain wrote), so the
    /// chains of consecutive entries are independent of each other.
    pub per_entry_s: f64,
}

impl Cycles {
    /// The longest of the two.
    pub fn longest_s(&self) -> f64 {
        self.continuing_s.max(self.per_entry_s)
    }
}

/// Seconds of the longest loop-carried cycle through one iteration of the counted DO
/// loop `stmt` (0 when it has none, or is not such a loop).
pub fn carried_cycle_s(unit: &Unit, stmt: &Stmt, machine: &Machine) -> f64 {
    carried_cycles(unit, stmt, machine).longest_s()
}

/// The longest loop-carried cycles through one iteration of the counted DO loop
/// `stmt`, through scalars and through array elements (0 when there are none).
pub fn carried_cycles(unit: &Unit, stmt: &Stmt, machine: &Machine) -> Cycles {
    let none = Cycles::default();
    let StmtKind::Loop(l) = &stmt.kind else {
        return none;
    };
    let LoopControl::Counted { var, step, .. } = &l.control else {
        return none;
    };
    let Some(step) = step.as_ref().map_or(Some(1), Expr::as_int) else {
        return none;
    };
    let eval = Eval { unit, machine, var };
    let mut candidates: Vec<(Key, Key)> = Vec::new();
    for (lhs, _) in assignments(&l.body) {
        let Some(written) = eval.key(lhs) else {
            continue;
        };
        // The element the next iteration reads where this one wrote.
        let read: Key = (
            written.0.clone(),
            written
                .1
                .iter()
                .map(|s| match s {
                    Sub::Rel(c, rest) => Sub::Rel(c - step, rest.clone()),
                    fixed => fixed.clone(),
                })
                .collect(),
        );
        // Every target carries: a scalar, and an element the loop index does not move
        // (`w(i) = w(i) + b(i,k)*w(i-k)` in a loop over k, a sum into one element that
        // gfortran keeps in a register), are read by the next iteration as they are;
        // an element the index moves is read one step later.
        if !candidates.contains(&(read.clone(), written.clone())) {
            candidates.push((read, written));
        }
    }
    let mut out = none;
    for (read, written) in candidates {
        let mut state = HashMap::from([(read.clone(), 0.0)]);
        eval.body(&l.body, &mut state);
        let Some(t) = state.get(&written).copied() else {
            continue;
        };
        // A scalar's chain goes on from one entry of the loop to the next, and so does
        // a fixed element's when the body reads the array elsewhere (lfk06 reads the
        // w(i-k) earlier entries summed into); one the index moves, or a fixed element
        // the next entry does not read (y(i) of a matrix-vector product), starts again
        // at each entry.
        let continuing =
            written.1.is_empty() || (read == written && eval.reads_other(&l.body, &written));
        let longest = if continuing {
            &mut out.continuing_s
        } else {
            &mut out.per_entry_s
        };
        *longest = longest.max(t);
    }
    out
}

/// The assignments of `body` and of the IFs in it (not of inner loops), in order.
fn assignments(body: &[Stmt]) -> Vec<(&Expr, &Expr)> {
    let mut out = Vec::new();
    for s in body {
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => out.push((lhs, rhs)),
            StmtKind::If(i) => {
                for b in &i.branches {
                    out.extend(assignments(&b.body));
                }
            }
            _ => {}
        }
    }
    out
}

struct Eval<'a> {
    unit: &'a Unit,
    machine: &'a Machine,
    var: &'a str,
}

impl Eval<'_> {
    /// The value an assignment target or an operand names (None for an element whose
    /// subscript is not `i + c` or free of `i`).
    fn key(&self, e: &Expr) -> Option<Key> {
        match e {
            Expr::Name(n) if n != self.var => Some((n.clone(), Vec::new())),
            Expr::Array(a) if !a.subscripts.is_empty() => {
                let subs = a
                    .subscripts
                    .iter()
                    .map(|s| match s {
                        Subscript::Index(e) if e.mentions(self.var) => {
                            let (c, mut rest, coef) = self.terms(e)?;
                            rest.sort();
                            (coef == 1).then_some(Sub::Rel(c, rest))
                        }
                        Subscript::Index(e) => Some(Sub::Fixed(e.to_string())),
                        Subscript::Range(_) => None,
                    })
                    .collect::<Option<Vec<Sub>>>()?;
                Some((a.name.clone(), subs))
            }
            _ => None,
        }
    }

    /// Whether `body` reads `key`'s array at an element other than `key` (or at one
    /// [`Eval::key`] cannot name).
    fn reads_other(&self, body: &[Stmt], key: &Key) -> bool {
        let mut found = false;
        let mut visit = |e: &Expr| {
            e.visit(&mut |x| {
                if let Expr::Array(a) = x
                    && a.name == key.0
                    && self.key(x).as_ref() != Some(key)
                {
                    found = true;
                }
            })
        };
        for (lhs, rhs) in assignments(body) {
            visit(rhs);
            if let Expr::Array(a) = lhs {
                for s in &a.subscripts {
                    if let Subscript::Index(e) = s {
                        visit(e);
                    }
                }
            }
        }
        found
    }

    /// A subscript as `coef·i + c + rest`: (c, the terms of rest, coef), through
    /// additions and subtractions (a negated term of rest is kept as `-term`).
    fn terms(&self, e: &Expr) -> Option<(i64, Vec<String>, i64)> {
        match e {
            Expr::Name(n) if n == self.var => Some((0, Vec::new(), 1)),
            _ if !e.mentions(self.var) => Some(match e.as_int() {
                Some(c) => (c, Vec::new(), 0),
                None => (0, vec![e.to_string()], 0),
            }),
            Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), l, r) => {
                let (c1, mut r1, k1) = self.terms(l)?;
                let (c2, r2, k2) = self.terms(r)?;
                let sign = if *op == BinaryOp::Sub { -1 } else { 1 };
                r1.extend(
                    r2.into_iter()
                        .map(|t| if sign < 0 { format!("-{t}") } else { t }),
                );
                Some((c1 + sign * c2, r1, k1 + sign * k2))
            }
            _ => None,
        }
    }

    /// Runs the statements over `state` (ready times of the values that depend on the
    /// candidate).
    fn body(&self, body: &[Stmt], state: &mut HashMap<Key, f64>) {
        for s in body {
            match &s.kind {
                StmtKind::Assign { lhs, rhs } => {
                    let t = match type_of(self.unit, lhs) {
                        Some(to) => self.converted(rhs, to, state),
                        None => self.ready(rhs, state),
                    };
                    if let Some(k) = self.key(lhs) {
                        match t {
                            Some(t) => state.insert(k, t),
                            None => state.remove(&k),
                        };
                    }
                }
                StmtKind::If(i) => {
                    let mut merged = state.clone();
                    let has_else = i.branches.iter().any(|b| b.cond.is_none());
                    let mut outcomes = Vec::new();
                    for b in &i.branches {
                        let mut branch = state.clone();
                        self.body(&b.body, &mut branch);
                        outcomes.push(branch);
                    }
                    if has_else {
                        merged.clear();
                    }
                    for o in outcomes {
                        for (k, t) in o {
                            let e = merged.entry(k).or_insert(t);
                            *e = e.max(t);
                        }
                    }
                    *state = merged;
                }
                _ => {}
            }
        }
    }

    /// When `e`'s value is ready, if it depends on the candidate.
    fn ready(&self, e: &Expr, state: &HashMap<Key, f64>) -> Option<f64> {
        let after = |operands: Option<f64>, key: OpKey| operands.map(|t| t + self.latency(&key));
        let ty = || type_of(self.unit, e).unwrap_or(OpType::F64);
        match e {
            Expr::Name(_) | Expr::Array(_) => self.key(e).and_then(|k| state.get(&k).copied()),
            Expr::Unary(UnaryOp::Neg, x) => {
                after(self.ready(x, state), OpKey::Latency(OpKind::Add, ty()))
            }
            Expr::Unary(_, x) => self.ready(x, state),
            Expr::Binary(op, l, r) => {
                let operands = max_opt(
                    self.converted(l, ty(), state),
                    self.converted(r, ty(), state),
                );
                let kinds = match op {
                    BinaryOp::Add | BinaryOp::Sub => vec![OpKind::Add],
                    BinaryOp::Mul => vec![multiplication_op(ty(), l, r)],
                    BinaryOp::Div => division_ops(ty(), r),
                    BinaryOp::Pow => vec![OpKind::Pow],
                    // Comparisons and logic feed branches and masks: as an addition.
                    _ => vec![OpKind::Add],
                };
                kinds
                    .into_iter()
                    .fold(operands, |t, kind| after(t, OpKey::Latency(kind, ty())))
            }
            Expr::Call(c) => {
                let args: Vec<&Expr> = c.args.iter().map(|a| &a.value).collect();
                let generic = generic_intrinsic(&c.name);
                if generic.is_some_and(|name| idempotent_select(name, &args)) {
                    return self.ready(args[0], state);
                }
                let operands = args
                    .iter()
                    .map(|a| self.converted(a, ty(), state))
                    .fold(None, max_opt);
                if let Some(kinds) = generic.and_then(|name| integer_select_ops(name, Some(ty()))) {
                    return kinds
                        .into_iter()
                        .fold(operands, |t, kind| after(t, OpKey::Latency(kind, ty())));
                }
                let key = match generic {
                    Some("abs" | "min" | "max" | "sign" | "dim") => {
                        OpKey::Latency(OpKind::Add, ty())
                    }
                    Some("sqrt") => OpKey::Latency(OpKind::Div, ty()),
                    Some(name) => OpKey::Intrinsic(name.to_string()),
                    None => OpKey::Call,
                };
                after(operands, key)
            }
            _ => None,
        }
    }

    /// When `e` is ready as an operand of type `to`: a real operand of the other
    /// precision is converted first (`min(s, x)` with `s` real(4) and `x` real(8)
    /// converts `s` on the way in).
    fn converted(&self, e: &Expr, to: OpType, state: &HashMap<Key, f64>) -> Option<f64> {
        let t = self.ready(e, state)?;
        let from = type_of(self.unit, e);
        let real = |t: Option<OpType>| matches!(t, Some(OpType::F32 | OpType::F64));
        Some(if real(from) && real(Some(to)) && from != Some(to) {
            t + self.latency(&OpKey::Latency(OpKind::Cvt, to))
        } else {
            t
        })
    }

    /// Seconds from an operation's operands to its result: its `latency_*` entry, else
    /// (a division's or a power's) its cost per operation, a lower bound; a conversion
    /// or comparison without an entry as an addition (both a few cycles on the adders).
    fn latency(&self, key: &OpKey) -> f64 {
        let s = self.machine.op_s(key);
        match key {
            OpKey::Latency(kind @ (OpKind::Div | OpKind::Pow), t) if s == 0.0 => {
                self.machine.op_s(&OpKey::Arith(*kind, *t))
            }
            OpKey::Latency(OpKind::Cvt | OpKind::Cmp, t) if s == 0.0 => {
                self.machine.op_s(&OpKey::Latency(OpKind::Add, *t))
            }
            _ => s,
        }
    }
}

fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::unit;

    /// Latencies: add 2, mul 3, div 13 (seconds, for round numbers).
    fn machine() -> Machine {
        let mut m = crate::machine::Catalog::default_machine();
        for (k, v) in [
            ("latency_add_f64", 2.0),
            ("latency_mul_f64", 3.0),
            ("latency_div_f64", 13.0),
        ] {
            m.processor.ops.insert(k.into(), v);
        }
        m
    }

    /// The cycle of the first loop of `body` (declarations: real(8) everything).
    fn cycle(body: &str) -> f64 {
        let text = format!(
            "subroutine k(n, a, b, c, x, s, t)\n  integer n, i, kk\n  real(8) a(n), b(n), c(n), x(n), s, t, u\n{body}\nend subroutine\n"
        );
        let u = unit(&text);
        let l = u
            .body
            .iter()
            .find(|s| matches!(s.kind, StmtKind::Loop(_)))
            .unwrap();
        carried_cycle_s(&u, l, &machine())
    }

    #[test]
    fn a_scalar_through_two_statements() {
        // Livermore 19: stb5 → mul → add → b5(i) → sub → stb5.
        let body = "  do i = 1, n\n    a(i + kk) = b(i) + s*c(i)\n    s = a(i + kk) - s\n  end do";
        assert_eq!(cycle(body), 3.0 + 2.0 + 2.0);
    }

    #[test]
    fn an_element_one_step_ahead_with_a_division() {
        // Livermore 20's shape: x(i+1) = f(x(i)) through a division.
        let body =
            "  do i = 1, n\n    t = b(i) / (x(i) + s)\n    x(i + 1) = t * c(i) + x(i)\n  end do";
        assert_eq!(cycle(body), 2.0 + 13.0 + 3.0 + 2.0);
        // Backwards (step -1): the element written as x(i - 1) is the next
        // iteration's x(i).
        let body = "  do i = n, 2, -1\n    x(i - 1) = x(i) * s\n  end do";
        assert_eq!(cycle(body), 3.0);
    }

    #[test]
    fn a_sum_into_an_element_the_loop_does_not_move() {
        // Livermore 6's inner loop: w(i) summed over k, reading earlier entries' sums.
        let body = "  do kk = 1, n\n    x(n) = x(n) + b(kk)*x(n - kk)\n  end do";
        assert_eq!(cycle(body), 2.0);
        // A matrix-vector product's y(i): each entry of the loop sums its own element.
        let text = "subroutine k(n, a, x, y)\n  integer n, i, j\n  real(8) a(n, n), x(n), y(n)\n  do i = 1, n\n    do j = 1, n\n      y(i) = y(i) + a(i, j)*x(j)\n    end do\n  end do\nend subroutine\n";
        let u = unit(text);
        let StmtKind::Loop(outer) = &u
            .body
            .iter()
            .find(|s| matches!(s.kind, StmtKind::Loop(_)))
            .unwrap()
            .kind
        else {
            unreachable!()
        };
        let cycles = carried_cycles(&u, &outer.body[0], &machine());
        assert_eq!((cycles.continuing_s, cycles.per_entry_s), (0.0, 2.0));
        // A store of one value to a fixed element is no chain.
        let body = "  do i = 1, n\n    x(n) = b(i)*s\n  end do";
        assert_eq!(cycle(body), 0.0);
    }

    #[test]
    fn independent_iterations_have_no_cycle() {
        let body = "  do i = 1, n\n    t = b(i) * s\n    a(i) = t + c(i)\n  end do";
        assert_eq!(cycle(body), 0.0);
        // Distance 2 is not one iteration's cycle (two chains interleave).
        let body = "  do i = 3, n\n    a(i) = a(i - 2) * s\n  end do";
        assert_eq!(cycle(body), 0.0);
    }

    #[test]
    fn a_mixed_precision_chain_converts_both_ways() {
        let text = "subroutine k(n, a, s)\n  integer n, i\n  real(8) a(n)\n  real(4) s\n  do i = 1, n\n    s = min(s, a(i))\n  end do\nend subroutine\n";
        let u = unit(text);
        let l = u
            .body
            .iter()
            .find(|s| matches!(s.kind, StmtKind::Loop(_)))
            .unwrap();
        // s converted to real(8) (2), min (2), back to real(4) (2, an addition's
        // latency of real(8)'s other precision).
        assert_eq!(carried_cycle_s(&u, l, &machine()), 6.0);
    }

    #[test]
    fn the_later_branch_decides() {
        let body = "  do i = 1, n\n    if (b(i) > 0) then\n      s = s / c(i)\n    else\n      s = s + c(i)\n    end if\n  end do";
        assert_eq!(cycle(body), 13.0);
        // Two sums: the longer one.
        let body = "  do i = 1, n\n    s = s + b(i)\n    t = t * c(i) + b(i)\n  end do";
        assert_eq!(cycle(body), 5.0);
    }
}
