//! Poor locality: an innermost loop that strides through a slow dimension of an array
//! (Fortran is column-major: `do i / do j / a(i,j)` touches a new line on every
//! iteration) while an enclosing loop runs through the first dimension, and the loop
//! interchange that fixes it when it is legal.
//!
//! Cost of a loop order: Σ over the classes of the innermost body of the lines one
//! iteration of the innermost loop moves through, min(1, |stride| / line). The finding
//! fires when some class moves a line or more per iteration, the lines one run of the
//! innermost loop touches do not fit in half the innermost cache (when the trip counts
//! are known: lines that fit are used again by the enclosing loop's next iteration),
//! and making an enclosing loop innermost costs less; it names that loop, one that runs
//! through the first dimension among equally good ones. The interchange of the innermost loop with its parent is
//! offered when the two are perfectly nested block DOs with rectangular bounds, the body
//! has no calls, I/O or jumps, and no dependence has direction (<, >) or (>, <) on the
//! pair (uniform references: distances from the subscripts' offsets; anything else, or
//! a scalar read before it is written in the body, is taken as a dependence).

use super::nest::{Class, Nest};
use costline_syntax::ir::{
    Expr, Loop, LoopControl, LoopOrigin, Stmt, StmtKind, Subscript, Unit, walk,
};
use costline_syntax::normalize::affine::Affine;
use costline_syntax::span::Span;
use std::collections::{BTreeMap, BTreeSet};

/// An innermost loop with poor locality.
#[derive(Clone, Debug, PartialEq)]
pub struct PoorLocality {
    /// The innermost loop's header (unit-relative).
    pub header: Span,
    pub message: String,
    /// The interchange with its parent, when legal: the two headers (outer, inner).
    pub interchange: Option<(Span, Span)>,
}

/// The findings of every nest of the unit; `l1_bytes` the innermost cache's capacity,
/// when the machine gives it.
pub fn poor_locality(
    unit: &Unit,
    nests: &[Nest],
    line_bytes: u64,
    l1_bytes: Option<u64>,
) -> Vec<PoorLocality> {
    let mut stmts = BTreeMap::new();
    unit.walk(&mut |s, _| {
        stmts.insert(s.id, s);
    });
    let mut out = Vec::new();
    for nest in nests.iter().filter(|n| n.outermost) {
        for (l, lp) in nest.loops.iter().enumerate() {
            let Some(&stmt) = stmts.get(&lp.id) else {
                continue;
            };
            let StmtKind::Loop(inner) = &stmt.kind else {
                continue;
            };
            if inner.origin != LoopOrigin::Do || has_loop(&inner.body) {
                continue;
            }
            if let Some(f) = finding(nest, l, stmt, inner, &stmts, line_bytes, l1_bytes) {
                out.push(f);
            }
        }
    }
    out
}

fn has_loop(body: &[Stmt]) -> bool {
    let mut found = false;
    walk(body, &mut |s, _| {
        found |= matches!(s.kind, StmtKind::Loop(_))
    });
    found
}

/// Lines one iteration of path position `k` moves `class` through (0 to 1).
fn cost(class: &Class, k: usize, step: i64, line: u64) -> f64 {
    let in_first = |k: usize| class.coefficients[0].iter().find(|(j, _)| *j == k);
    let outside_first = class.coefficients[1..]
        .iter()
        .any(|d| d.iter().any(|&(j, c)| j == k && c != 0));
    let stride = match (class.stride_bytes(k), in_first(k)) {
        (Some(s), _) => s,
        // An extent without a value: a slow dimension is taken to be a line or more.
        (None, _) if outside_first => return 1.0,
        (None, Some(&(_, c))) => c.saturating_mul(class.elem as i64),
        (None, None) => 0,
    };
    (stride.saturating_mul(step).unsigned_abs() as f64 / line as f64).min(1.0)
}

fn finding(
    nest: &Nest,
    l: usize,
    stmt: &Stmt,
    inner: &Loop,
    stmts: &BTreeMap<costline_syntax::ir::StmtId, &Stmt>,
    line: u64,
    l1_bytes: Option<u64>,
) -> Option<PoorLocality> {
    let classes: Vec<&Class> = nest
        .classes
        .iter()
        .filter(|c| c.path.last() == Some(&l) && !c.irregular)
        .collect();
    let path = classes.first()?.path.clone();
    let k = path.len() - 1;
    let order_cost = |pos: usize| -> f64 {
        let step = nest.loops[path[pos]].step;
        classes.iter().map(|c| cost(c, pos, step, line)).sum()
    };
    let now = order_cost(k);
    let worst = classes
        .iter()
        .max_by(|a, b| {
            cost(a, k, nest.loops[l].step, line).total_cmp(&cost(b, k, nest.loops[l].step, line))
        })
        .filter(|c| cost(c, k, nest.loops[l].step, line) >= 1.0)?;
    // The lines one run of the innermost loop touches stay in the innermost cache for
    // the enclosing loop's next iteration when they fit in half of it (the other half
    // left to the rest of the nest's data): the line is used again there, and the
    // order costs nothing.
    let touched = now * nest.loops[l].trips * line as f64;
    if nest.known && l1_bytes.is_some_and(|c| 2.0 * touched <= c as f64) {
        return None;
    }
    // The enclosing loop that, innermost, costs least; among equals one that runs
    // through the first dimension of the worst class, then the nearest.
    let runs_first = |pos: usize| {
        worst.coefficients[0]
            .iter()
            .any(|&(j, c)| j == pos && c != 0)
    };
    let (best, best_cost) = (0..k)
        .rev()
        .map(|pos| (pos, order_cost(pos)))
        .min_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then(runs_first(b.0).cmp(&runs_first(a.0)))
        })?;
    if best_cost >= now {
        return None;
    }
    let var = nest.loops[l].var.clone()?;
    let other = nest.loops[path[best]].var.clone()?;
    let stride = worst
        .stride_bytes(k)
        .map(|s| s.unsigned_abs() * nest.loops[l].step.unsigned_abs());
    let what_other_does = if runs_first(best) {
        format!(
            "`{other}` runs through its first dimension — with `{other}` innermost the accesses are contiguous"
        )
    } else {
        format!(
            "`{other}` does not move through it — with `{other}` innermost its lines are used again"
        )
    };
    let mut message = format!(
        "poor locality: the innermost loop `{var}` strides through a slow dimension of `{}` \
         ({}{}): a new cache line on every iteration; {what_other_does}",
        worst.array,
        worst.refs.first().cloned().unwrap_or_default(),
        stride.map_or(String::new(), |s| format!(", {s} bytes apart")),
    );
    let parent = path[k - 1..].first().copied().filter(|_| best == k - 1);
    let interchange = match parent.and_then(|p| stmts.get(&nest.loops[p].id)) {
        Some(outer) => match interchange(outer, stmt, inner) {
            Ok(spans) => Some(spans),
            Err(why) => {
                message.push_str(&format!(" (not interchanged automatically: {why})"));
                None
            }
        },
        None => None,
    };
    Some(PoorLocality {
        header: inner.header,
        message,
        interchange,
    })
}

/// The two headers to swap, or why the interchange is not offered.
fn interchange(outer: &Stmt, inner_stmt: &Stmt, inner: &Loop) -> Result<(Span, Span), String> {
    let StmtKind::Loop(o) = &outer.kind else {
        return Err("not a loop".into());
    };
    if o.body.len() != 1 || o.body[0].id != inner_stmt.id {
        return Err("the loops are not perfectly nested".into());
    }
    if o.construct.is_some() || inner.construct.is_some() {
        return Err("a loop has a construct name".into());
    }
    let (Some(ov), Some(iv)) = (o.var(), inner.var()) else {
        return Err("a loop has no counter".into());
    };
    if mentions(&o.control, iv) || mentions(&inner.control, ov) {
        return Err("the bounds of one loop depend on the other's variable".into());
    }
    let mut blocked = None;
    walk(&inner.body, &mut |s, _| match &s.kind {
        StmtKind::Assign { .. } | StmtKind::If(_) | StmtKind::Continue => {}
        _ => blocked = Some("the body has a call, I/O or a jump"),
    });
    if let Some(why) = blocked {
        return Err(why.into());
    }
    dependences(&inner.body, ov, iv)?;
    Ok((o.header, inner.header))
}

fn mentions(control: &LoopControl, var: &str) -> bool {
    let mut found = false;
    let mut look = |e: &Expr| {
        e.visit(&mut |x| found |= matches!(x, Expr::Name(n) if n == var));
    };
    match control {
        LoopControl::Counted {
            lower, upper, step, ..
        } => {
            look(lower);
            look(upper);
            step.iter().for_each(&mut look);
        }
        LoopControl::While(c) => look(c),
        LoopControl::Forever => {}
    }
    found
}

/// One array reference of the body: array, per dimension (coefficient of the outer
/// variable, of the inner, the rest of the subscript's terms, constant), written.
struct Access {
    array: String,
    dims: Option<Vec<(i64, i64, String, i64)>>,
    written: bool,
}

/// Err when a dependence forbids interchanging the loops of `outer` and `inner`.
fn dependences(body: &[Stmt], outer: &str, inner: &str) -> Result<(), String> {
    let mut accesses = Vec::new();
    let mut assigned: BTreeSet<String> = BTreeSet::new();
    walk(body, &mut |s, _| {
        if let StmtKind::Assign {
            lhs: Expr::Name(n), ..
        } = &s.kind
        {
            assigned.insert(n.clone());
        }
    });
    let mut defined: BTreeSet<String> = BTreeSet::new();
    let mut scalar_problem = None;
    walk(body, &mut |s, _| {
        let StmtKind::Assign { lhs, rhs } = &s.kind else {
            if let StmtKind::If(i) = &s.kind {
                for c in i.branches.iter().filter_map(|b| b.cond.as_ref()) {
                    c.visit(&mut |x| {
                        if let Expr::Name(n) = x
                            && assigned.contains(n)
                            && !defined.contains(n)
                        {
                            scalar_problem = Some(n.clone());
                        }
                        if let Expr::Array(_) = x {
                            accesses.push(access(x, outer, inner, false));
                        }
                    });
                }
            }
            return;
        };
        rhs.visit(&mut |x| match x {
            Expr::Name(n) if assigned.contains(n) && !defined.contains(n) => {
                scalar_problem = Some(n.clone());
            }
            Expr::Array(_) => accesses.push(access(x, outer, inner, false)),
            _ => {}
        });
        match lhs {
            Expr::Name(n) => {
                defined.insert(n.clone());
            }
            Expr::Array(_) => {
                let mut first = true;
                lhs.visit(&mut |x| {
                    if !first && matches!(x, Expr::Array(_)) {
                        accesses.push(access(x, outer, inner, false));
                    }
                    first = false;
                });
                accesses.push(access(lhs, outer, inner, true));
            }
            _ => {}
        }
    });
    if let Some(n) = scalar_problem {
        return Err(format!(
            "`{n}` carries a value from one iteration to the next (a reduction or recurrence)"
        ));
    }
    for (x, a) in accesses.iter().enumerate() {
        for b in &accesses[x..] {
            if a.array != b.array || !(a.written || b.written) {
                continue;
            }
            if !interchange_safe(a, b) {
                return Err(format!(
                    "a dependence on `{}` runs against the new loop order",
                    a.array
                ));
            }
        }
    }
    Ok(())
}

fn access(e: &Expr, outer: &str, inner: &str, written: bool) -> Access {
    let Expr::Array(a) = e else {
        unreachable!("only array references are accessed");
    };
    let dims = a
        .subscripts
        .iter()
        .map(|s| {
            let Subscript::Index(x) = s else { return None };
            let affine = Affine::of(x);
            let (mut co, mut ci, mut rest) = (0, 0, String::new());
            for (atom, k) in affine.terms() {
                match atom {
                    Expr::Name(n) if n == outer => co += k,
                    Expr::Name(n) if n == inner => ci += k,
                    other => rest.push_str(&format!("{other}*{k};")),
                }
            }
            Some((co, ci, rest, affine.constant()))
        })
        .collect();
    Access {
        array: a.name.clone(),
        dims,
        written,
    }
}

/// Possible signs of a distance: (negative, zero, positive).
type Signs = (bool, bool, bool);

/// Whether no dependence between `a` and `b` has opposite directions on the two loops.
fn interchange_safe(a: &Access, b: &Access) -> bool {
    let (Some(da), Some(db)) = (&a.dims, &b.dims) else {
        return false;
    };
    if da.len() != db.len() {
        return false;
    }
    let any: Signs = (true, true, true);
    let (mut so, mut si): (Option<i64>, Option<i64>) = (None, None);
    for ((ao, ai, ar, ac), (bo, bi, br, bc)) in da.iter().zip(db) {
        if (ao, ai, ar) != (bo, bi, br) {
            return false; // not uniform: assume a dependence in any direction
        }
        let delta = bc - ac;
        match (*ao, *ai) {
            (0, 0) => {
                if delta != 0 {
                    return true; // never the same element
                }
            }
            (c, 0) => {
                if delta % c != 0 {
                    return true;
                }
                let d = delta / c;
                if so.is_some_and(|x| x != d) {
                    return true;
                }
                so = Some(d);
            }
            (0, c) => {
                if delta % c != 0 {
                    return true;
                }
                let d = delta / c;
                if si.is_some_and(|x| x != d) {
                    return true;
                }
                si = Some(d);
            }
            _ => return false, // both variables in one subscript: not analyzed
        }
    }
    let signs = |d: Option<i64>| -> Signs {
        match d {
            None => any,
            Some(d) => (d < 0, d == 0, d > 0),
        }
    };
    let (o, i) = (signs(so), signs(si));
    !((o.2 && i.0) || (o.0 && i.2))
}
