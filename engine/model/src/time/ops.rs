//! The operations a statement performs each time it executes, by kind and type — what
//! the P^3T+ kernel pattern matching (section 4.3.3, phase 2) and Balasundaram's
//! ESTIMATE price from the training set. The counting convention is the one
//! `costline train` fits the machine's operation costs with:
//! - one `load` per distinct array-element reference read (scalars live in registers;
//!   subscript arithmetic is folded into the address and free);
//! - one `store` when the left-hand side is an array element;
//! - one `add_T` per `+`, `-` (binary or unary), `mul_T`, `div_T` per `*`, `/` on the
//!   operation's Fortran result type T (an integer times a power of two: a shift,
//!   `add_T`); `x**2`, `x**3`, `x**4` as 1, 2, 2
//!   multiplications, other powers `pow_T`; a division by a constant as what the
//!   compiler turns it into (an integer by a power of two: 3 `add_T`, by another
//!   constant: `mul_T` + 3 `add_T`; a real by a power of two: `mul_T`, see
//!   [`division_ops`]);
//! - `cmp_T` per relational operator (T the operands' type), `logic_i32` per logical one;
//! - `cvt_T` per conversion of a non-constant integer operand to real type T;
//! - `intrinsic_<name>` per elemental intrinsic (MIN/MAX with k arguments: k − 1); an
//!   integer MIN, MAX, ABS, SIGN, DIM as a compare and a conditional move (2 `add_T`);
//!   what the compiler folds costs nothing (`max(x, x)` is `x`, an integer `x - x` is 0);
//! - `call` per call of a procedure (its own time comes from its analysis); the
//!   reductions and copies of whole arrays (SUM, MAXVAL, DOT_PRODUCT, TRANSPOSE, ...)
//!   are priced by their element loops instead (`super::intrinsic`);
//! - per IF/ELSE IF condition one `branch`, per DO iteration one `loop_iter`;
//! - one `latency_T` of the chain's operation when a scalar is updated from its own
//!   value (`s = s + a(i)*b(i)`): a loop-carried recurrence, whose executions cannot
//!   overlap (the machine model makes its latency a floor under the execution's time).

use super::intrinsic::has_element_loop;
use crate::machine::Machine;
use crate::machine::ops::{OpKey, OpKind, OpType, generic_intrinsic};
use costline_syntax::ir::intrinsics::{IntrinsicClass, intrinsic_class};
use costline_syntax::ir::{
    BaseType, BinaryOp, Expr, Stmt, StmtKind, Subscript, TypeSpec, UnaryOp, Unit,
};
use std::collections::{BTreeMap, BTreeSet};

/// How many operations of each kind one execution performs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpCounts(pub BTreeMap<OpKey, f64>);

impl OpCounts {
    pub fn add(&mut self, key: OpKey, n: f64) {
        *self.0.entry(key).or_default() += n;
    }

    /// These operations in a loop vectorized `lanes` wide: every element operation
    /// (arithmetic, loads, stores, intrinsics, the loop's own iteration) costs 1/lanes;
    /// a recurrence's latency, branches and calls do not shrink.
    pub fn vectorized(&self, lanes: f64) -> OpCounts {
        let lanes = lanes.max(1.0);
        OpCounts(
            self.0
                .iter()
                .map(|(k, n)| {
                    let shrinks = !matches!(k, OpKey::Latency(..) | OpKey::Branch | OpKey::Call);
                    (k.clone(), if shrinks { n / lanes } else { *n })
                })
                .collect(),
        )
    }

    /// These operations less `other`'s (none below zero).
    pub fn without(&self, other: &OpCounts) -> OpCounts {
        OpCounts(
            self.0
                .iter()
                .map(|(k, n)| (k.clone(), n - other.0.get(k).copied().unwrap_or(0.0)))
                .filter(|(_, n)| *n > 0.0)
                .collect(),
        )
    }

    /// (The `latency_*` entries, the rest.)
    pub fn split_latency(&self) -> (OpCounts, OpCounts) {
        let (latency, rest) = self
            .0
            .iter()
            .map(|(k, n)| (k.clone(), *n))
            .partition(|(k, _)| matches!(k, OpKey::Latency(..)));
        (OpCounts(latency), OpCounts(rest))
    }

    /// One more operation `key`.
    pub fn add_one(&mut self, key: OpKey) {
        self.add(key, 1.0);
    }

    /// Adds `other`'s operations to these.
    pub(crate) fn absorb(&mut self, other: &OpCounts) {
        for (k, n) in &other.0 {
            self.add(k.clone(), *n);
        }
    }

    /// Seconds for one execution on `machine` (its overlap model decides how the
    /// operations combine).
    pub fn seconds(&self, machine: &Machine) -> f64 {
        machine.execution_s(self.0.iter().map(|(k, n)| (k, *n)))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `2 load + 1 add_f64 + ...`, most frequent first (for hovers).
    pub fn describe(&self) -> String {
        let mut items: Vec<(&OpKey, &f64)> = self.0.iter().collect();
        items.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
        items
            .iter()
            .map(|(k, n)| format!("{} {k}", costline_symbolic::compact(**n)))
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// The operations of one execution of statement `stmt` itself (a loop's: one
/// iteration's overhead; an IF's: its conditions), not of the statements it contains.
pub fn stmt_ops(unit: &Unit, stmt: &Stmt) -> OpCounts {
    let mut c = Counter {
        unit,
        ops: OpCounts::default(),
        loads: BTreeSet::new(),
    };
    match &stmt.kind {
        StmtKind::Assign { lhs, rhs } => {
            c.expr(rhs);
            if let Expr::Array(a) = lhs {
                if !a.subscripts.is_empty() {
                    c.ops.add(OpKey::Store, 1.0);
                }
                for s in &a.subscripts {
                    c.subscript(s);
                }
            }
            // Assigning an integer value to a real variable converts it.
            let (to, from) = (c.type_of(lhs), c.type_of(rhs));
            if let (Expr::Name(s), Some(t)) = (lhs, to) {
                for kind in chain(s, rhs).unwrap_or_default() {
                    c.ops.add(OpKey::Latency(kind, t), 1.0);
                }
            }
            if is_real(to) && matches!(from, Some(OpType::I32 | OpType::I64)) && !is_constant(rhs) {
                c.ops.add(OpKey::Arith(OpKind::Cvt, to.unwrap()), 1.0);
            }
        }
        StmtKind::Loop(l) => {
            c.ops.add(OpKey::LoopIter, 1.0);
            if let costline_syntax::ir::LoopControl::While(cond) = &l.control {
                c.ops.add(OpKey::Branch, 1.0);
                c.expr(cond);
            }
        }
        StmtKind::If(i) => {
            for b in &i.branches {
                if let Some(cond) = &b.cond {
                    c.ops.add(OpKey::Branch, 1.0);
                    c.expr(cond);
                }
            }
        }
        StmtKind::Select(s) => {
            c.expr(&s.selector);
            c.ops.add(OpKey::Branch, s.cases.len().max(1) as f64);
        }
        StmtKind::ArithmeticIf { expr, .. } => {
            c.ops.add(OpKey::Branch, 2.0);
            c.expr(expr);
        }
        StmtKind::Goto {
            selector: Some(e), ..
        } => {
            c.ops.add(OpKey::Branch, 1.0);
            c.expr(e);
        }
        StmtKind::Call(call) if !call.name.starts_with("mpi_") => {
            c.ops.add(OpKey::Call, 1.0);
            for a in &call.args {
                // An array passed whole is passed by address.
                if !matches!(&a.value, Expr::Array(r) if r.subscripts.is_empty()) {
                    c.expr(&a.value);
                }
            }
        }
        _ => {}
    }
    c.ops
}

/// The operations of evaluating `e` once (one element of it, for an array expression):
/// what [`super::intrinsic`] charges per element of an intrinsic's loop.
pub fn expr_ops(unit: &Unit, e: &Expr) -> OpCounts {
    let mut c = Counter {
        unit,
        ops: OpCounts::default(),
        loads: BTreeSet::new(),
    };
    c.expr(e);
    c.ops
}

/// The operations on the path from `rhs`'s root to the scalar `s` it is assigned to
/// (`s + e` → [add]; `e + 2*s` → [add, mul]; `s + a + b`, evaluated left to right, →
/// [add, add]), looking through additions, subtractions and multiplications only: the
/// chain of a recurrence `s = f(s)` that a compiler keeps in a register from one
/// iteration to the next, each of whose operations waits for the one before.
fn chain(s: &str, rhs: &Expr) -> Option<Vec<OpKind>> {
    chain_to(rhs, &|e| matches!(e, Expr::Name(n) if n == s))
}

/// The operations on the path from `rhs`'s root to the first operand `target` accepts,
/// through additions, subtractions, multiplications and MAX/MIN (see [`chain`]): an
/// array recurrence `a(i) = a(i-1)*c(i) + b(i)` has the chain [mul, add]; a running
/// maximum `s = max(s, a(i))` the chain [cmp] (a compare-and-select, whose latency is
/// `latency_cmp_T`).
pub fn chain_to(rhs: &Expr, target: &dyn Fn(&Expr) -> bool) -> Option<Vec<OpKind>> {
    if target(rhs) {
        return Some(Vec::new());
    }
    let (kind, operands): (OpKind, Vec<&Expr>) = match rhs {
        Expr::Binary(BinaryOp::Add | BinaryOp::Sub, l, r) => (OpKind::Add, vec![l, r]),
        Expr::Binary(BinaryOp::Mul, l, r) => (OpKind::Mul, vec![l, r]),
        Expr::Call(c) if matches!(generic_intrinsic(&c.name), Some("max" | "min")) => {
            (OpKind::Cmp, c.args.iter().map(|a| &a.value).collect())
        }
        _ => return None,
    };
    let mut path = operands.into_iter().find_map(|e| chain_to(e, target))?;
    path.push(kind);
    Some(path)
}

struct Counter<'a> {
    unit: &'a Unit,
    ops: OpCounts,
    /// Distinct element references read (by their text).
    loads: BTreeSet<String>,
}

impl Counter<'_> {
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Array(a) => {
                if self.loads.insert(e.to_string()) {
                    self.ops.add(OpKey::Load, 1.0);
                }
                for s in &a.subscripts {
                    self.subscript(s);
                }
            }
            // Priced by its element loop (`super::intrinsic`), not here.
            Expr::Call(call)
                if has_element_loop(&call.name)
                    && self
                        .unit
                        .symbols
                        .get(&call.name)
                        .is_none_or(|s| s.dims.is_none()) => {}
            Expr::Call(call) => {
                let generic = generic_intrinsic(&call.name);
                let args: Vec<&Expr> = call.args.iter().map(|a| &a.value).collect();
                if generic.is_some_and(|name| idempotent_select(name, &args)) {
                    self.expr(args[0]);
                    return;
                }
                match (generic, intrinsic_class(&call.name)) {
                    (Some(name), _) => {
                        let n = if matches!(name, "min" | "max") {
                            call.args.len().saturating_sub(1).max(1)
                        } else {
                            1
                        };
                        match integer_select_ops(name, self.type_of(e)) {
                            Some(kinds) => {
                                let t = self.type_of(e).unwrap_or(OpType::I32);
                                for kind in kinds {
                                    self.ops.add(OpKey::Arith(kind, t), n as f64);
                                }
                            }
                            None => self.ops.add(OpKey::Intrinsic(name.to_string()), n as f64),
                        }
                    }
                    (None, Some(IntrinsicClass::Elemental | IntrinsicClass::Inquiry)) => {}
                    (None, Some(IntrinsicClass::Transformational)) => {
                        self.ops.add(OpKey::Call, 1.0);
                    }
                    (None, None) => self.ops.add(OpKey::Call, 1.0),
                }
                for a in &call.args {
                    self.expr(&a.value);
                }
            }
            Expr::Unary(op, x) => {
                self.expr(x);
                match op {
                    UnaryOp::Neg => {
                        if let Some(t) = self.type_of(x) {
                            self.ops.add(OpKey::Arith(OpKind::Add, t), 1.0);
                        }
                    }
                    UnaryOp::Not => self.ops.add(OpKey::Arith(OpKind::Logic, OpType::I32), 1.0),
                    UnaryOp::Plus => {}
                }
            }
            Expr::Binary(op, l, r) => {
                self.expr(l);
                self.expr(r);
                self.binary(*op, l, r, e);
            }
            _ => {}
        }
    }

    fn subscript(&mut self, s: &Subscript) {
        // Subscript arithmetic is address arithmetic; an array read inside one
        // (indirection) is a load.
        let mut reads = Vec::new();
        if let Subscript::Index(e) = s {
            e.visit(&mut |x| {
                if matches!(x, Expr::Array(_)) {
                    reads.push(x.clone());
                }
            });
        }
        for r in reads {
            if self.loads.insert(r.to_string()) {
                self.ops.add(OpKey::Load, 1.0);
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, l: &Expr, r: &Expr, whole: &Expr) {
        let Some(t) = self.type_of(whole) else {
            return;
        };
        let kind = match op {
            BinaryOp::Add | BinaryOp::Sub => OpKind::Add,
            BinaryOp::Mul => multiplication_op(t, l, r),
            BinaryOp::Div => {
                for kind in division_ops(t, r) {
                    self.ops.add(OpKey::Arith(kind, t), 1.0);
                }
                self.converted_operands(l, r, t);
                return;
            }
            BinaryOp::Pow => {
                match r.as_int() {
                    Some(k @ 2..=4) => {
                        let muls = if k == 2 { 1.0 } else { 2.0 };
                        self.ops.add(OpKey::Arith(OpKind::Mul, t), muls);
                    }
                    Some(1) => {}
                    _ => self.ops.add(OpKey::Arith(OpKind::Pow, t), 1.0),
                }
                return;
            }
            BinaryOp::Concat => return,
            BinaryOp::And | BinaryOp::Or | BinaryOp::Eqv | BinaryOp::Neqv => {
                self.ops.add(OpKey::Arith(OpKind::Logic, OpType::I32), 1.0);
                return;
            }
            _ => {
                // Relational: the operands' common type.
                let operands = wider(self.type_of(l), self.type_of(r));
                if let Some(t) = operands {
                    self.ops.add(OpKey::Arith(OpKind::Cmp, t), 1.0);
                }
                return;
            }
        };
        // An integer minus itself is 0 (the compiler folds it away).
        if kind == OpKind::Add
            && op == BinaryOp::Sub
            && !is_real(Some(t))
            && l.to_string() == r.to_string()
        {
            return;
        }
        self.ops.add(OpKey::Arith(kind, t), 1.0);
        self.converted_operands(l, r, t);
    }

    /// A non-constant integer operand of a real operation of type `t` is converted.
    fn converted_operands(&mut self, l: &Expr, r: &Expr, t: OpType) {
        if is_real(Some(t)) {
            for x in [l, r] {
                if matches!(self.type_of(x), Some(OpType::I32 | OpType::I64)) && !is_constant(x) {
                    self.ops.add(OpKey::Arith(OpKind::Cvt, t), 1.0);
                }
            }
        }
    }

    /// The numeric type of an expression (`None` for logical, character, derived).
    fn type_of(&self, e: &Expr) -> Option<OpType> {
        type_of(self.unit, e)
    }
}

/// The numeric type of `e` in `unit`: declared or implicit types, literals by their
/// form (`1.0d0` double), Fortran's rules for mixed operations (complex over real over
/// integer, the wider precision).
pub fn type_of(unit: &Unit, e: &Expr) -> Option<OpType> {
    match e {
        Expr::Int(_) => Some(OpType::I32),
        Expr::Real(text) => {
            let t = text.to_ascii_lowercase();
            Some(
                if t.contains('d') || t.ends_with("_8") || t.ends_with("_dp") {
                    OpType::F64
                } else {
                    OpType::F32
                },
            )
        }
        Expr::Name(n) => name_type(unit, n),
        Expr::Array(a) => name_type(unit, &a.name),
        Expr::Unary(UnaryOp::Not, _) => None,
        Expr::Unary(_, x) => type_of(unit, x),
        Expr::Binary(op, l, r) => match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => {
                wider(type_of(unit, l), type_of(unit, r))
            }
            BinaryOp::Pow => type_of(unit, l).max(type_of(unit, r).filter(|t| is_real(Some(*t)))),
            _ => None,
        },
        Expr::Call(call) => {
            let args: Vec<Option<OpType>> =
                call.args.iter().map(|a| type_of(unit, &a.value)).collect();
            let first = args.first().copied().flatten();
            match call.name.as_str() {
                "int" | "nint" | "floor" | "ceiling" | "ifix" | "idint" | "idnint" | "mod"
                    if first.is_some_and(|t| !is_real(Some(t))) || call.name != "mod" =>
                {
                    Some(OpType::I32)
                }
                "real" | "float" | "sngl" => Some(OpType::F32),
                "dble" | "dfloat" | "dsqrt" | "dexp" | "dlog" | "dsin" | "dcos" | "dabs" => {
                    Some(OpType::F64)
                }
                "aimag" | "abs" if first == Some(OpType::C128) => Some(OpType::F64),
                "aimag" | "abs" if first == Some(OpType::C64) => Some(OpType::F32),
                name if intrinsic_class(name).is_some() => args.into_iter().fold(None, wider),
                name => name_type(unit, name),
            }
        }
        _ => None,
    }
}

fn name_type(unit: &Unit, name: &str) -> Option<OpType> {
    let ty = unit
        .symbols
        .get(name)
        .and_then(|s| s.ty.as_ref())
        .or_else(|| unit.implicit.type_of(name))?;
    spec_type(unit, ty)
}

/// A declared type as an operation type; a KIND that is a named constant is looked up,
/// and one the unit cannot see (a module's `dp`) is taken as double precision, the
/// reason such kinds are declared.
fn spec_type(unit: &Unit, ty: &TypeSpec) -> Option<OpType> {
    let kind = ty.kind.as_ref().map(|k| kind_value(unit, k));
    Some(match ty.base {
        BaseType::Integer => match kind {
            Some(Some(8)) => OpType::I64,
            _ => OpType::I32,
        },
        BaseType::Real => match kind {
            None | Some(Some(4)) => OpType::F32,
            Some(_) => OpType::F64,
        },
        BaseType::DoublePrecision => OpType::F64,
        BaseType::Complex => match kind {
            None | Some(Some(4)) => OpType::C64,
            Some(_) => OpType::C128,
        },
        BaseType::DoubleComplex => OpType::C128,
        BaseType::Logical | BaseType::Character | BaseType::Derived => return None,
    })
}

/// The value of a KIND expression: a literal, a named constant's value, `kind(1.0d0)`,
/// `selected_real_kind(p)` (8 for p > 6).
fn kind_value(unit: &Unit, k: &Expr) -> Option<i64> {
    match k {
        Expr::Int(v) => Some(*v),
        Expr::Name(n) => kind_value(unit, unit.symbols.get(n)?.value.as_ref()?),
        Expr::Call(c) if c.name == "kind" => match c.args.first().map(|a| &a.value) {
            Some(Expr::Real(t)) if t.to_ascii_lowercase().contains('d') => Some(8),
            Some(Expr::Real(_)) => Some(4),
            _ => None,
        },
        Expr::Call(c) if c.name == "selected_real_kind" => {
            let p = c.args.first().and_then(|a| a.value.as_int())?;
            Some(if p > 6 { 8 } else { 4 })
        }
        _ => None,
    }
}

/// The machine operations `x / divisor` of type `t` becomes, in the order they run
/// (each waits for the one before): an integer divided by a power of two is a shift,
/// an add of the sign bit and a shift (three integer operations, `add_T`); by another
/// non-zero integer constant a multiplication by a "magic" number, a shift, the sign
/// fix and a subtraction (Granlund and Montgomery: `mul_T` and three `add_T`); a real
/// divided by a power of two a multiplication (the reciprocal is exact, so the result is
/// the same without -ffast-math); anything else a division.
pub fn division_ops(t: OpType, divisor: &Expr) -> Vec<OpKind> {
    let power_of_two = match t {
        OpType::I32 | OpType::I64 => match divisor.as_int() {
            Some(d) if d != 0 && d.unsigned_abs().is_power_of_two() => true,
            Some(d) if d != 0 => return vec![OpKind::Mul, OpKind::Add, OpKind::Add, OpKind::Add],
            _ => return vec![OpKind::Div],
        },
        OpType::F32 | OpType::F64 => match divisor {
            Expr::Real(text) => text
                .to_ascii_lowercase()
                .split('_')
                .next()
                .map(|v| v.replace(['d', 'q'], "e"))
                .and_then(|v| v.parse::<f64>().ok())
                .is_some_and(|v| v != 0.0 && v.abs().log2().fract() == 0.0),
            _ => false,
        },
        _ => false,
    };
    match (power_of_two, t) {
        (true, OpType::I32 | OpType::I64) => vec![OpKind::Add; 3],
        (true, _) => vec![OpKind::Mul],
        (false, _) => vec![OpKind::Div],
    }
}

/// The machine operation `l * r` of type `t` is: an integer multiplied by a power of
/// two is a shift (`add_T`), anything else a multiplication.
pub fn multiplication_op(t: OpType, l: &Expr, r: &Expr) -> OpKind {
    let power_of_two = |e: &Expr| {
        e.as_int()
            .is_some_and(|v| v > 0 && v.unsigned_abs().is_power_of_two())
    };
    if matches!(t, OpType::I32 | OpType::I64) && (power_of_two(l) || power_of_two(r)) {
        OpKind::Add
    } else {
        OpKind::Mul
    }
}

/// The machine operations of an elemental MIN, MAX (per pair of arguments), ABS, SIGN or
/// DIM of integer type `t`: a compare and a conditional move (two integer operations,
/// `add_T`); None for a real one (an `intrinsic_<name>` of its own) or another intrinsic.
pub fn integer_select_ops(name: &str, t: Option<OpType>) -> Option<[OpKind; 2]> {
    (matches!(name, "min" | "max" | "abs" | "sign" | "dim")
        && matches!(t, Some(OpType::I32 | OpType::I64)))
    .then_some([OpKind::Add, OpKind::Add])
}

/// Whether a MIN or MAX call's arguments are all the same expression (as written, wherever
/// they stand): the compiler folds `max(x, x)` to `x`, so it costs nothing.
pub fn idempotent_select(name: &str, args: &[&Expr]) -> bool {
    matches!(name, "min" | "max") && args.len() > 1 && {
        let first = args[0].to_string();
        args[1..].iter().all(|a| a.to_string() == first)
    }
}

fn is_real(t: Option<OpType>) -> bool {
    matches!(
        t,
        Some(OpType::F32 | OpType::F64 | OpType::C64 | OpType::C128)
    )
}

fn is_constant(e: &Expr) -> bool {
    match e {
        Expr::Int(_) | Expr::Real(_) => true,
        Expr::Unary(_, x) => is_constant(x),
        _ => false,
    }
}

/// Fortran's result type of a mixed operation.
fn wider(a: Option<OpType>, b: Option<OpType>) -> Option<OpType> {
    let rank = |t: OpType| match t {
        OpType::I32 => (0, 4),
        OpType::I64 => (0, 8),
        OpType::F32 => (1, 4),
        OpType::F64 => (1, 8),
        OpType::C64 => (2, 4),
        OpType::C128 => (2, 8),
    };
    match (a, b) {
        (Some(x), Some(y)) => {
            let ((cx, px), (cy, py)) = (rank(x), rank(y));
            let class = cx.max(cy);
            // A real operand of an integer-and-real operation keeps its precision.
            let precision = if cx == cy {
                px.max(py)
            } else if cx > cy {
                if cy == 0 { px } else { px.max(py) }
            } else if cx == 0 {
                py
            } else {
                px.max(py)
            };
            Some(match (class, precision) {
                (0, 4) => OpType::I32,
                (0, _) => OpType::I64,
                (1, 4) => OpType::F32,
                (1, _) => OpType::F64,
                (_, 4) => OpType::C64,
                _ => OpType::C128,
            })
        }
        (x, None) => x,
        (None, y) => y,
    }
}
