//! Loop-invariant code motion, as the compiler does it (gfortran's `lim` pass, on at
//! -O1 and above): a subexpression of an assignment whose value cannot change from one
//! iteration of the innermost loop around it to the next — it reads no variable and
//! no array the loop assigns, nor the loop's index, and calls only intrinsics — is
//! computed once before the loop, not in every iteration (`a(i) = sqrt(abs(beta))`
//! stores one value n times). Its operations come off the assignment's per-execution
//! count; what it costs once per entry of the loop is left out (it is one iteration's
//! worth, against the loop's trip count).

use super::ops::{OpCounts, expr_ops};
use costline_syntax::ir::intrinsics::intrinsic_class;
use costline_syntax::ir::{Expr, LoopControl, Stmt, StmtId, StmtKind, Unit, walk};
use std::collections::BTreeSet;

/// For each assignment directly in the body of the innermost DO loop `stmt` (or in an
/// IF there), the operations of its loop-invariant subexpressions (the largest ones,
/// each distinct text once) — to take off its count.
pub fn hoisted(unit: &Unit, stmt: &Stmt) -> Vec<(StmtId, OpCounts)> {
    let StmtKind::Loop(l) = &stmt.kind else {
        return Vec::new();
    };
    if l.body.iter().any(|s| matches!(s.kind, StmtKind::Loop(_))) {
        return Vec::new();
    }
    // What the loop changes: its index and every variable or array it assigns.
    let mut changed: BTreeSet<String> = BTreeSet::new();
    let mut calls = false;
    if let LoopControl::Counted { var, .. } = &l.control {
        changed.insert(var.clone());
    }
    walk(&l.body, &mut |s, _| {
        if let StmtKind::Assign { lhs, .. } = &s.kind {
            match lhs {
                Expr::Name(n) => {
                    changed.insert(n.clone());
                }
                Expr::Array(a) => {
                    changed.insert(a.name.clone());
                }
                _ => {}
            }
        }
        // A call may change anything it is passed or can see.
        calls |= matches!(s.kind, StmtKind::Call(_));
    });
    if calls {
        return Vec::new();
    }
    let mut out = Vec::new();
    walk(&l.body, &mut |s, _| {
        let StmtKind::Assign { rhs, .. } = &s.kind else {
            return;
        };
        let mut found: Vec<&Expr> = Vec::new();
        largest_invariant(rhs, &changed, &mut found);
        let mut seen = BTreeSet::new();
        let mut ops = OpCounts::default();
        for e in found {
            if seen.insert(e.to_string()) {
                ops.absorb(&expr_ops(unit, e));
            }
        }
        if !ops.is_empty() {
            out.push((s.id, ops));
        }
    });
    out
}

/// The largest subexpressions of `e` that are invariant and compute something (an
/// operation or an array element; a lone name or literal costs nothing already).
fn largest_invariant<'e>(e: &'e Expr, changed: &BTreeSet<String>, out: &mut Vec<&'e Expr>) {
    let computes = matches!(
        e,
        Expr::Binary(..) | Expr::Unary(..) | Expr::Call(_) | Expr::Array(_)
    );
    if computes && invariant(e, changed) {
        out.push(e);
        return;
    }
    match e {
        Expr::Binary(_, l, r) => {
            largest_invariant(l, changed, out);
            largest_invariant(r, changed, out);
        }
        Expr::Unary(_, x) => largest_invariant(x, changed, out),
        Expr::Call(c) if intrinsic_class(&c.name).is_some() => {
            for a in &c.args {
                largest_invariant(&a.value, changed, out);
            }
        }
        _ => {}
    }
}

/// Whether `e` reads nothing in `changed` and calls only intrinsics.
fn invariant(e: &Expr, changed: &BTreeSet<String>) -> bool {
    let mut ok = true;
    e.visit(&mut |x| match x {
        Expr::Name(n) => ok &= !changed.contains(n),
        Expr::Array(a) => ok &= !changed.contains(&a.name),
        Expr::Call(c) => ok &= intrinsic_class(&c.name).is_some() && !changed.contains(&c.name),
        Expr::Unknown(_) => ok = false,
        _ => {}
    });
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::ops::{OpKey, OpKind, OpType};
    use crate::testing::unit;

    /// The hoisted operations of each assignment of the first loop, in order.
    fn of(body: &str) -> Vec<OpCounts> {
        let text = format!(
            "subroutine k(n, m, a, b, c, beta, s)\n  integer n, m, i\n  real(8) a(n), b(n), c(n, n), beta, s\n{body}\nend subroutine\n"
        );
        let u = unit(&text);
        let l = u
            .body
            .iter()
            .find(|s| matches!(s.kind, StmtKind::Loop(_)))
            .unwrap();
        hoisted(&u, l).into_iter().map(|(_, o)| o).collect()
    }

    fn key(k: OpKind) -> OpKey {
        OpKey::Arith(k, OpType::F64)
    }

    #[test]
    fn an_invariant_expression_leaves_the_loop() {
        let h = of("  do i = 1, n\n    a(i) = sqrt(abs(beta))\n  end do");
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].0.get(&OpKey::Intrinsic("sqrt".into())), Some(&1.0));
        assert_eq!(h[0].0.get(&OpKey::Intrinsic("abs".into())), Some(&1.0));
        // 2*beta and the element c(m, 1), not what reads a(i) or b(i).
        let h = of("  do i = 1, n\n    a(i) = b(i) * (2.0d0 * beta) + c(m, 1)\n  end do");
        assert_eq!(h[0].0.get(&key(OpKind::Mul)), Some(&1.0));
        assert_eq!(h[0].0.get(&OpKey::Load), Some(&1.0));
        assert_eq!(h[0].0.get(&key(OpKind::Add)), None);
    }

    #[test]
    fn what_the_loop_changes_stays() {
        // s changes in the loop; b is written: nothing is invariant.
        assert!(of("  do i = 1, n\n    s = s + 2.0d0 * s\n  end do").is_empty());
        assert!(
            of("  do i = 1, n\n    b(i) = b(1) * beta\n    a(i) = b(2) + 1.0d0\n  end do")
                .is_empty()
        );
        // A call may change beta.
        assert!(of("  do i = 1, n\n    a(i) = beta * beta\n    call f(beta)\n  end do").is_empty());
    }
}
