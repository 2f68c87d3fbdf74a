//! Transformational intrinsics priced by their element loops: SUM, PRODUCT,
//! MAXVAL/MINVAL, COUNT, ANY, ALL, DOT_PRODUCT, NORM2, MAXLOC/MINLOC walk every element of
//! their argument (the operations of the argument's expression per element, plus the
//! reduction's own and a loop iteration; a real reduction's chain latency), and
//! TRANSPOSE, CSHIFT, EOSHIFT copy it (a store per element); a compiler inlines them as
//! loops. MATMUL computes one element of its result per execution of the scalarized
//! assignment: a row of its first argument against a column of its second, one
//! multiply-add per position (the inlined loops accumulate into the result: a load of
//! each argument, a store, no chain); beyond the compiler's inline limit (gfortran's
//! -finline-matmul-limit, 30) it calls the runtime library's blocked routine, priced at
//! the model's `matmul_fma` per multiply-add when the model has it. The elements are
//! the section the argument names (`a(1:n)`, a whole array `a`: its declared extent).
//! Where the statement runs on every processor (replicated) and the array is
//! distributed, each processor walks the elements it owns and the partial results combine in ⌈log2 P⌉ steps (the messages of
//! that combine are the reduction's communication); elsewhere the processor that
//! executes the statement walks them all.

use super::ops::{OpCounts, expr_ops, type_of};
use crate::calls::binding::declared_dims;
use crate::distribution::{Layout, exact_int, local_parts};
use crate::freq::convert::{Names, Scope};
use crate::machine::Machine;
use crate::machine::ops::{OpKey, OpKind, OpType};
use costline_symbolic::{Env, Sym};
use costline_syntax::ir::{Expr, Stmt, StmtKind, Subscript, Unit};

/// The element loops of a unit's statements priced: seconds of one execution on each
/// processor, and the loops that could not be priced (why), by statement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntrinsicTimes {
    pub seconds: std::collections::HashMap<costline_syntax::ir::StmtId, Vec<f64>>,
    pub unpriced: Vec<(costline_syntax::ir::StmtId, String)>,
}

/// One intrinsic's loop over the elements of an array section.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementLoop {
    /// The intrinsic (`sum`, ...).
    pub intrinsic: String,
    /// The operations per element.
    pub per_element: OpCounts,
    /// The operation partial results combine with (None: nothing to combine).
    pub combine: Option<OpKey>,
    /// Operations once per call (NORM2's square root).
    pub once: OpCounts,
    /// The array whose section the loop walks, and the section's subscripts (empty:
    /// the whole array).
    pub array: String,
    pub subscripts: Vec<Subscript>,
    /// A reduction along dimension `d` (0-based, DIM = d + 1) whose result the statement
    /// assigns one element per execution (`s = SUM(a, DIM=2)`, scalarized over the
    /// elements of `s`): each execution walks the section's positions along `d` only,
    /// the rest of the section over the other executions. MATMUL: `d` is the last
    /// dimension of its first argument.
    pub per_result: Option<usize>,
    /// MATMUL: the share of a `matmul_fma` one multiply-add of its type costs in the
    /// library's routine (1 for real(8); its vectors hold twice as many real(4)).
    pub library_fma: Option<f64>,
}

/// The largest extent gfortran's MATMUL inlines (`-finline-matmul-limit`'s default):
/// above it the runtime library's routine runs.
const INLINE_MATMUL_LIMIT: i64 = 30;

/// The element loops of the intrinsics statement `stmt` evaluates (its own
/// expressions, not those of the statements it contains).
pub fn element_loops(unit: &Unit, stmt: &Stmt) -> Vec<ElementLoop> {
    let mut out = Vec::new();
    // `top`: the call is not inside the argument of another element loop.
    let mut visit = |e: &Expr, per_element: bool| {
        calls(e, false, &mut |call, nested| {
            if let Some(l) = element_loop(unit, &call.name, &call.args, per_element && !nested) {
                out.push(l);
            }
        })
    };
    match &stmt.kind {
        StmtKind::Assign { lhs, rhs } => visit(rhs, scalarized(lhs)),
        StmtKind::If(i) => i
            .branches
            .iter()
            .filter_map(|b| b.cond.as_ref())
            .for_each(|c| visit(c, false)),
        StmtKind::Loop(l) => {
            if let costline_syntax::ir::LoopControl::While(c) = &l.control {
                visit(c, false);
            }
        }
        _ => {}
    }
    out
}

/// Calls `f` on every call in `e`, outermost first, with whether it is inside the
/// argument of an intrinsic priced by its element loop.
fn calls(e: &Expr, nested: bool, f: &mut dyn FnMut(&costline_syntax::ir::Call, bool)) {
    match e {
        Expr::Call(c) => {
            f(c, nested);
            let inner = nested || has_element_loop(&c.name);
            c.args.iter().for_each(|a| calls(&a.value, inner, f));
        }
        Expr::Array(r) => r.subscripts.iter().for_each(|s| match s {
            Subscript::Index(x) => calls(x, nested, f),
            Subscript::Range(t) => [&t.lower, &t.upper, &t.stride]
                .into_iter()
                .flatten()
                .for_each(|x| calls(x, nested, f)),
        }),
        Expr::Unary(_, x) => calls(x, nested, f),
        Expr::Binary(_, a, b) => {
            calls(a, nested, f);
            calls(b, nested, f);
        }
        Expr::Int(_)
        | Expr::Real(_)
        | Expr::Logical(_)
        | Expr::Str(_)
        | Expr::Name(_)
        | Expr::Unknown(_) => {}
    }
}

/// Whether an assignment stores one element of an array per execution: the
/// scalarization of an array assignment (`s($1) = ...`).
fn scalarized(lhs: &Expr) -> bool {
    let Expr::Array(r) = lhs else {
        return false;
    };
    let mut found = false;
    for s in &r.subscripts {
        if let Subscript::Index(e) = s {
            e.visit(&mut |x| found |= matches!(x, Expr::Name(n) if n.starts_with('$')));
        }
    }
    found
}

/// Whether the intrinsic `name` is priced by its element loop (and not as one call).
pub fn has_element_loop(name: &str) -> bool {
    matches!(
        name,
        "sum"
            | "product"
            | "maxval"
            | "minval"
            | "count"
            | "any"
            | "all"
            | "dot_product"
            | "norm2"
            | "maxloc"
            | "minloc"
            | "transpose"
            | "cshift"
            | "eoshift"
            | "matmul"
    )
}

/// The element loop of the intrinsic `name` called with `args`; `per_result`: a
/// reduction along a constant DIM of it gives one element of its result per execution
/// ([`ElementLoop::per_result`]).
fn element_loop(
    unit: &Unit,
    name: &str,
    args: &[costline_syntax::ir::Arg],
    per_result: bool,
) -> Option<ElementLoop> {
    if !has_element_loop(name) || unit.symbols.get(name).is_some_and(|s| s.dims.is_some()) {
        return None;
    }
    // The arguments walked per element (DIM= and the shift counts are scalars).
    let walked: Vec<&Expr> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| match a.keyword.as_deref() {
            Some(k) => matches!(
                k,
                "array"
                    | "mask"
                    | "vector_a"
                    | "vector_b"
                    | "x"
                    | "matrix"
                    | "matrix_a"
                    | "matrix_b"
            ),
            None => *i == 0 || (matches!(name, "dot_product" | "matmul") && *i == 1),
        })
        .map(|(_, a)| &a.value)
        .collect();
    let (array, subscripts) = walked.iter().find_map(|e| driving_array(unit, e))?;
    let mut per_element = OpCounts::default();
    for e in &walked {
        per_element.absorb(&expr_ops(unit, e));
    }
    let t = walked
        .first()
        .and_then(|e| type_of(unit, e))
        .unwrap_or(OpType::F64);
    let mut once = OpCounts::default();
    let (step, combine) = match name {
        "sum" => (Some(OpKey::Arith(OpKind::Add, t)), true),
        "product" => (Some(OpKey::Arith(OpKind::Mul, t)), true),
        "maxval" => (Some(OpKey::Intrinsic("max".into())), true),
        "minval" => (Some(OpKey::Intrinsic("min".into())), true),
        "count" => (Some(OpKey::Arith(OpKind::Add, OpType::I32)), true),
        "any" | "all" => (Some(OpKey::Arith(OpKind::Logic, OpType::I32)), true),
        "dot_product" => {
            per_element.add(OpKey::Arith(OpKind::Mul, t), 1.0);
            (Some(OpKey::Arith(OpKind::Add, t)), true)
        }
        "matmul" => {
            // The inlined jki loops accumulate into the result element in memory.
            per_element.add(OpKey::Arith(OpKind::Mul, t), 1.0);
            per_element.add(OpKey::Store, 1.0);
            (Some(OpKey::Arith(OpKind::Add, t)), false)
        }
        "norm2" => {
            per_element.add(OpKey::Arith(OpKind::Mul, t), 1.0);
            once.add(OpKey::Intrinsic("sqrt".into()), 1.0);
            (Some(OpKey::Arith(OpKind::Add, t)), true)
        }
        "maxloc" | "minloc" => {
            per_element.add(OpKey::Branch, 1.0);
            (Some(OpKey::Arith(OpKind::Cmp, t)), true)
        }
        // The copies: a store per element.
        _ => (Some(OpKey::Store), false),
    };
    if let Some(op) = &step {
        per_element.add(op.clone(), 1.0);
    }
    // The inlined loop's own iteration.
    per_element.add(OpKey::LoopIter, 1.0);
    // The running sum, product, maximum or minimum is a recurrence: each element's
    // operation waits for the last one (a compiler keeps the order without
    // -ffast-math).
    match (name, t) {
        ("sum" | "dot_product" | "norm2", OpType::F32 | OpType::F64) => {
            per_element.add(OpKey::Latency(OpKind::Add, t), 1.0);
        }
        ("product", OpType::F32 | OpType::F64) => {
            per_element.add(OpKey::Latency(OpKind::Mul, t), 1.0);
        }
        ("maxval" | "minval", OpType::F32 | OpType::F64) => {
            per_element.add(OpKey::Latency(OpKind::Cmp, t), 1.0);
        }
        _ => {}
    }
    // A reduction along DIM gives an array: its parts do not combine into one. A second
    // positional argument is DIM when it is an integer (else it is MASK).
    let dim = args
        .iter()
        .enumerate()
        .find(|(i, a)| match a.keyword.as_deref() {
            Some(k) => k == "dim",
            None => {
                *i == 1
                    && !matches!(name, "dot_product" | "matmul")
                    && matches!(type_of(unit, &a.value), Some(OpType::I32 | OpType::I64))
            }
        })
        .map(|(_, a)| &a.value);
    let along = match name {
        // One result element: the positions along the first argument's last dimension.
        "matmul" => declared_dims(unit, &array).map(|d| d.len().saturating_sub(1)),
        _ => dim
            .and_then(Expr::as_int)
            .and_then(|d| usize::try_from(d.checked_sub(1)?).ok()),
    };
    Some(ElementLoop {
        intrinsic: name.to_string(),
        per_element,
        combine: if combine && dim.is_none() { step } else { None },
        once,
        array,
        subscripts,
        per_result: along.filter(|_| per_result),
        library_fma: (name == "matmul").then_some(if t == OpType::F32 { 0.5 } else { 1.0 }),
    })
}

/// The first array in `e` referenced as a section or as a whole (a declared array
/// without subscripts): the one whose elements the loop walks.
fn driving_array(unit: &Unit, e: &Expr) -> Option<(String, Vec<Subscript>)> {
    let mut found = None;
    e.visit(&mut |x| {
        if found.is_some() {
            return;
        }
        if let Expr::Array(a) = x {
            let sectioned = a
                .subscripts
                .iter()
                .any(|s| matches!(s, Subscript::Range(_)));
            let whole = a.subscripts.is_empty()
                && unit.symbols.get(&a.name).is_some_and(|s| s.dims.is_some());
            if sectioned || whole {
                found = Some((a.name.clone(), a.subscripts.clone()));
            }
        } else if let Expr::Name(n) = x
            && unit.symbols.get(n).is_some_and(|s| s.dims.is_some())
        {
            found = Some((n.clone(), Vec::new()));
        }
    });
    found
}

/// The positions (0-based from the dimension's lower bound) the section takes along
/// each dimension, under `env`: (first, last, step, whether it is a single index
/// without a value — `rmsa(:, m)` in a loop over m — standing for each position of the
/// dimension in turn).
fn positions(l: &ElementLoop, unit: &Unit, env: Env) -> Result<Vec<(i64, i64, i64, bool)>, String> {
    // The declared bounds are needed only where the section leaves a bound out.
    let dims = declared_dims(unit, &l.array);
    let rank = dims
        .as_ref()
        .map_or(l.subscripts.len(), Vec::len)
        .max(l.subscripts.len());
    if rank == 0 {
        return Err(format!("the bounds of `{}` are not explicit", l.array));
    }
    let scope = Scope {
        unit,
        names: &Names::default(),
        integers: true,
    };
    let value = |e: &Expr| -> Result<i64, String> {
        let s: Sym = scope
            .sym(e)
            .map_err(|why| format!("`{e}` depends on {why}"))?;
        exact_int(&s, env).ok_or_else(|| format!("`{e}` needs a value"))
    };
    let declared = |d: usize| -> Result<(i64, i64), String> {
        let (lower, extent) = dims
            .as_ref()
            .and_then(|dims| dims.get(d))
            .ok_or_else(|| format!("the bounds of `{}` are not explicit", l.array))?;
        let v = |s: &Sym, what: &str| {
            exact_int(s, env).ok_or_else(|| format!("the {what} of `{}` needs a value", l.array))
        };
        let lower = v(lower, "lower bound")?;
        Ok((lower, lower + v(extent, "extent")? - 1))
    };
    let mut out = Vec::with_capacity(rank);
    for d in 0..rank {
        // Positions count from the declared lower bound (1 where it is not known: the
        // count does not depend on it, and a split needs declared bounds anyway).
        let lower = declared(d).map_or(1, |(lo, _)| lo);
        let (lo, hi, step, sweeps) = match l.subscripts.get(d) {
            None => {
                let (lo, hi) = declared(d)?;
                (lo, hi, 1, false)
            }
            Some(Subscript::Index(e)) => match value(e) {
                Ok(v) => (v, v, 1, false),
                Err(_) => match declared(d) {
                    Ok((lo, hi)) => (lo, hi, 1, true),
                    Err(_) => (lower, lower, 1, false),
                },
            },
            Some(Subscript::Range(t)) => {
                let bound = |part: &Option<Expr>, end: fn((i64, i64)) -> i64| match part {
                    Some(e) => value(e),
                    None => declared(d).map(end),
                };
                (
                    bound(&t.lower, |b| b.0)?,
                    bound(&t.upper, |b| b.1)?,
                    t.stride.as_ref().map_or(Ok(1), value)?,
                    false,
                )
            }
        };
        if step == 0 {
            return Err(format!("a section of `{}` has stride 0", l.array));
        }
        out.push((lo - lower, hi - lower, step, sweeps));
    }
    Ok(out)
}

/// How many positions `lo, lo + step, ...` up to `hi` are.
fn count(lo: i64, hi: i64, step: i64) -> i64 {
    let n = (hi - lo).checked_div(step).unwrap_or(0);
    if (hi - lo) * step.signum() < 0 {
        0
    } else {
        n + 1
    }
}

impl ElementLoop {
    /// Seconds of one execution on each of `processors` processors: the elements each
    /// walks times the operations per element, plus the combine when the walk is split
    /// over the owners of the array (`split`: a replicated statement over a distributed
    /// array laid out by `layout`).
    pub fn seconds(
        &self,
        unit: &Unit,
        machine: &Machine,
        env: Env,
        split: Option<&Layout>,
        processors: usize,
    ) -> Result<Vec<f64>, String> {
        let ranges = positions(self, unit, env)?;
        if self.library_fma.is_some() && self.per_result.is_none() {
            return Err("MATMUL whose result is not assigned element by element".into());
        }
        let fma = machine.op_s(&OpKey::MatmulFma);
        let each = match self.library_fma {
            Some(share)
                if fma > 0.0
                    && ranges
                        .iter()
                        .any(|&(lo, hi, step, _)| count(lo, hi, step) > INLINE_MATMUL_LIMIT) =>
            {
                share * fma
            }
            _ => self.per_element.seconds(machine),
        };
        let once = self.once.seconds(machine);
        // A single index counts one position; one without a value, where the walk is
        // split over owners, each of the dimension's positions in equal share.
        let total: f64 = ranges
            .iter()
            .map(|&(lo, hi, step, sweeps)| {
                if sweeps {
                    1.0
                } else {
                    count(lo, hi, step) as f64
                }
            })
            .product();
        // One result element per execution: the positions across `d` are the other
        // executions'.
        let across: f64 = match self.per_result {
            Some(d) if d < ranges.len() => ranges
                .iter()
                .enumerate()
                .filter(|&(k, r)| k != d && !r.3)
                .map(|(_, &(lo, hi, step, _))| count(lo, hi, step).max(1) as f64)
                .product(),
            _ => 1.0,
        };
        let total = total / across;
        let p = processors.max(1);
        let Some(layout) = split.filter(|l| l.processors() > 1) else {
            return Ok(vec![total * each + once; p]);
        };
        let lists: Vec<Vec<i64>> = ranges
            .iter()
            .map(|&(lo, hi, step, _)| {
                let n = count(lo, hi, step).max(0);
                (0..n).map(|k| lo + k * step).collect()
            })
            .collect();
        let sweeps: f64 = ranges
            .iter()
            .filter(|r| r.3)
            .map(|&(lo, hi, step, _)| count(lo, hi, step).max(1) as f64)
            .product();
        let parts = local_parts(&lists, layout)?;
        let combine = self
            .combine
            .as_ref()
            .map_or(0.0, |op| (p as f64).log2().ceil() * machine.op_s(op));
        Ok((0..p)
            .map(|q| {
                let mine: f64 = parts
                    .get(q)
                    .map_or(0.0, |d| d.iter().map(|&n| n as f64).product());
                mine / sweeps / across * each + once + combine
            })
            .collect())
    }
}
