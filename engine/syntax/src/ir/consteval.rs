//! Folding of Fortran integer constant expressions: PARAMETER values, kind selectors,
//! array bounds and processor counts known at compile time. Exact and overflow-checked;
//! anything it cannot fold is `None`, never a guess.

use super::expr::{BinaryOp, Expr, UnaryOp};
use super::symbols::BaseType;
use super::{StmtKind, Unit, UnitKind};
use std::collections::{BTreeMap, BTreeSet};

/// The values of a unit's integer named constants (PARAMETERs), folded in whatever
/// order they refer to each other; `outer` supplies constants from the host and used
/// modules (a local declaration of the same name hides them); `bindings` (the user's
/// `--param`s) override any of them, and constants derived from a bound one follow it.
pub fn fold_constants(
    unit: &Unit,
    outer: &dyn Fn(&str) -> Option<i64>,
    bindings: &BTreeMap<String, i64>,
) -> BTreeMap<String, i64> {
    let integer = |name: &str| {
        let sym = &unit.symbols[name];
        sym.ty
            .as_ref()
            .or_else(|| unit.implicit.type_of(name))
            .is_some_and(|t| t.base == BaseType::Integer)
    };
    let unchanged = initialised_and_unchanged(unit);
    let pending: Vec<&str> = unit
        .symbols
        .values()
        .filter(|s| {
            s.value.is_some()
                && integer(&s.name)
                && (s.attrs.parameter || unchanged.contains(s.name.as_str()))
        })
        .map(|s| s.name.as_str())
        .collect();
    let mut known: BTreeMap<String, i64> = pending
        .iter()
        .filter_map(|&n| Some((n.to_string(), *bindings.get(n)?)))
        .collect();
    // Each round folds at least one more constant, or nothing more can be folded.
    loop {
        let before = known.len();
        for &name in &pending {
            if known.contains_key(name) {
                continue;
            }
            let lookup = |n: &str| match known.get(n).or_else(|| bindings.get(n)) {
                Some(v) => Some(*v),
                None if unit.symbols.contains_key(n) => None,
                None => outer(n),
            };
            let value = unit.symbols[name]
                .value
                .as_ref()
                .and_then(|e| eval_int(e, &lookup));
            if let Some(v) = value {
                known.insert(name.to_string(), v);
            }
        }
        if known.len() == before {
            return known;
        }
    }
}

/// The local scalars of a program or procedure given an initial value (DATA or an
/// initializer) that nothing in the unit changes: no assignment, loop, input item or
/// call argument names them. They keep their initial value, as a PARAMETER does.
/// A module's variables are left out (any unit using the module may change them).
fn initialised_and_unchanged(unit: &Unit) -> BTreeSet<&str> {
    if matches!(
        unit.kind,
        UnitKind::Module | UnitKind::Submodule | UnitKind::BlockData
    ) {
        return BTreeSet::new();
    }
    let mut out: BTreeSet<&str> = unit
        .symbols
        .values()
        .filter(|s| {
            s.value.is_some()
                && !s.attrs.parameter
                && !s.attrs.dummy
                && s.common.is_none()
                && !s.is_array()
        })
        .map(|s| s.name.as_str())
        .collect();
    if out.is_empty() {
        return out;
    }
    let named = |e: &Expr| match e {
        Expr::Name(n) => Some(n.clone()),
        Expr::Array(r) => Some(r.name.clone()),
        _ => None,
    };
    let mut changed: Vec<String> = Vec::new();
    unit.walk(&mut |s, _| match &s.kind {
        StmtKind::Assign { lhs, .. } => changed.extend(named(lhs)),
        StmtKind::Loop(l) => changed.extend(l.var().map(str::to_string)),
        StmtKind::Call(c) => changed.extend(c.args.iter().filter_map(|a| named(&a.value))),
        StmtKind::Other { writes, .. } => {
            changed.extend(writes.iter().map(|w| w.name().to_string()))
        }
        _ => {}
    });
    for n in &changed {
        out.remove(n.as_str());
    }
    out
}

/// Evaluates an integer constant expression with Fortran semantics (`/` truncates
/// toward zero, `MOD` takes the sign of the dividend, `MODULO` the sign of the
/// divisor). `lookup` supplies the values of named constants.
pub fn eval_int(e: &Expr, lookup: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
    eval(e, lookup, 0)
}

/// Deep enough for any real constant expression, shallow enough for the stack.
const MAX_DEPTH: usize = 256;

fn eval(e: &Expr, lookup: &dyn Fn(&str) -> Option<i64>, depth: usize) -> Option<i64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let ev = |x: &Expr| eval(x, lookup, depth + 1);
    match e {
        Expr::Int(v) => Some(*v),
        Expr::Name(n) => lookup(n),
        Expr::Unary(UnaryOp::Neg, x) => ev(x)?.checked_neg(),
        Expr::Unary(UnaryOp::Plus, x) => ev(x),
        Expr::Binary(op, a, b) => {
            let (a, b) = (ev(a)?, ev(b)?);
            match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                BinaryOp::Mul => a.checked_mul(b),
                BinaryOp::Div => a.checked_div(b),
                BinaryOp::Pow => int_pow(a, b),
                _ => None,
            }
        }
        Expr::Call(call) => {
            let args: Vec<&Expr> = call.args.iter().map(|a| &a.value).collect();
            let ints = || args.iter().map(|a| ev(a)).collect::<Option<Vec<i64>>>();
            match (call.name.as_str(), args.as_slice()) {
                ("min" | "min0", [_, _, ..]) => ints()?.into_iter().min(),
                ("max" | "max0", [_, _, ..]) => ints()?.into_iter().max(),
                ("mod", [a, p]) => ev(a)?.checked_rem(ev(p)?),
                ("modulo", [a, p]) => {
                    let (a, p) = (ev(a)?, ev(p)?);
                    let r = a.checked_rem(p)?;
                    Some(if r != 0 && (r < 0) != (p < 0) {
                        r + p
                    } else {
                        r
                    })
                }
                ("abs" | "iabs", [a]) => ev(a)?.checked_abs(),
                ("int", [a]) => ev(a),
                ("kind", [a]) => literal_kind(a, lookup),
                ("selected_int_kind", [r]) => Some(selected_int_kind(ev(r)?)),
                ("selected_real_kind", [p]) => Some(selected_real_kind(ev(p)?, 0)),
                ("selected_real_kind", [p, r]) => Some(selected_real_kind(ev(p)?, ev(r)?)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn int_pow(base: i64, exp: i64) -> Option<i64> {
    if exp >= 0 {
        base.checked_pow(u32::try_from(exp).ok()?)
    } else {
        // An integer raised to a negative power: 1/(base**|exp|), truncated.
        match base {
            0 => None,
            1 => Some(1),
            -1 => Some(if exp % 2 == 0 { 1 } else { -1 }),
            _ => Some(0),
        }
    }
}

/// The kind of a literal in `KIND(x)`: `1.0d0` is 8, `1.0_8` is 8, `1.0_dp` is the
/// value of `dp`, other reals 4, integers 4 (gfortran's default kinds).
fn literal_kind(e: &Expr, lookup: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
    match e {
        Expr::Int(_) => Some(4),
        Expr::Real(text) => {
            let t = text.to_ascii_lowercase();
            if let Some((_, suffix)) = t.rsplit_once('_') {
                suffix.parse().ok().or_else(|| lookup(suffix))
            } else if t.contains('d') {
                Some(8)
            } else {
                Some(4)
            }
        }
        Expr::Unary(_, x) => literal_kind(x, lookup),
        _ => None,
    }
}

/// gfortran's integer kinds by decimal range.
fn selected_int_kind(r: i64) -> i64 {
    match r {
        ..=2 => 1,
        3..=4 => 2,
        5..=9 => 4,
        10..=18 => 8,
        19..=38 => 16,
        _ => -1,
    }
}

/// gfortran's real kinds by precision and exponent range.
fn selected_real_kind(p: i64, r: i64) -> i64 {
    match (p, r) {
        (..=6, ..=37) => 4,
        (..=15, ..=307) => 8,
        (..=18, ..=4931) => 10,
        (..=33, ..=4931) => 16,
        _ => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<i64> {
        None
    }

    #[test]
    fn fortran_integer_semantics() {
        use BinaryOp::*;
        let div = Expr::binary(Div, Expr::Int(-7), Expr::Int(2));
        assert_eq!(eval_int(&div, &none), Some(-3));
        assert_eq!(
            eval_int(&Expr::call("mod", vec![Expr::Int(-7), Expr::Int(3)]), &none),
            Some(-1)
        );
        assert_eq!(
            eval_int(
                &Expr::call("modulo", vec![Expr::Int(-7), Expr::Int(3)]),
                &none
            ),
            Some(2)
        );
        assert_eq!(
            eval_int(
                &Expr::call("modulo", vec![Expr::Int(7), Expr::Int(-3)]),
                &none
            ),
            Some(-2)
        );
        let pow = Expr::binary(Pow, Expr::Int(2), Expr::Int(-1));
        assert_eq!(eval_int(&pow, &none), Some(0));
        let big = Expr::binary(Pow, Expr::Int(10), Expr::Int(30));
        assert_eq!(
            eval_int(&big, &none),
            None,
            "overflow is unknown, not wrapped"
        );
        assert_eq!(
            eval_int(&Expr::binary(Div, Expr::Int(1), Expr::Int(0)), &none),
            None
        );
    }

    #[test]
    fn names_and_kinds() {
        let lookup = |n: &str| (n == "n").then_some(100);
        let e = Expr::binary(BinaryOp::Mul, Expr::Int(2), Expr::name("n"));
        assert_eq!(eval_int(&e, &lookup), Some(200));
        assert_eq!(eval_int(&Expr::name("m"), &lookup), None);
        assert_eq!(
            eval_int(&Expr::call("kind", vec![Expr::Real("1.0d0".into())]), &none),
            Some(8)
        );
        assert_eq!(
            eval_int(
                &Expr::call("selected_real_kind", vec![Expr::Int(15), Expr::Int(307)]),
                &none
            ),
            Some(8)
        );
        assert_eq!(
            eval_int(
                &Expr::call("max", vec![Expr::Int(3), Expr::Int(9), Expr::Int(4)]),
                &none
            ),
            Some(9)
        );
    }
}
