//! Integer set-up code run as the program runs it: a loop whose bounds (or DO WHILE
//! condition) have values, whose body assigns integers and decides its control flow on
//! values it knows, is executed statement by statement over the names, so the tables
//! it fills (`ng(ax, k) = ng(ax, k+1)/2`, `m1(k) = 2 + ng(1, k)`) keep their values
//! after it instead of being forgotten; and a user function whose arguments have
//! values is evaluated ([`FunctionValues`]), so `m = ilog2(n)` has a value.
//!
//! A CALL runs the callee's body the same way ([`Executor::call`]), with the caller's
//! values of the integer dummies, the COMMON members the two share and the components
//! of structures passed; what the callee leaves in them comes back.
//!
//! Execution stops, and the caller keeps its symbolic view, at the first statement it
//! cannot run exactly: a condition or bound without a constant value, a CALL of a
//! procedure whose body is not at hand, a GO TO or STOP, more than [`MAX_STEPS`]
//! statements or more than [`MAX_ELEMENTS`] array elements written (a table that
//! large is data, not set-up).

use super::Assumption;
use super::convert::{Names, Scope, add_assumptions, element_key};
use super::effects::CalleeRun;
use costline_symbolic::Sym;
use costline_syntax::ir::{
    BinaryOp, Call, Expr, Loop, LoopControl, Stmt, StmtKind, Subscript, UnaryOp, Unit, walk,
};
use std::collections::HashSet;
use std::sync::Arc;

/// Statements one execution runs at most.
pub const MAX_STEPS: usize = 20_000;
/// Distinct array elements one execution writes at most.
pub const MAX_ELEMENTS: usize = 512;
/// How deep function evaluations nest (a function whose body calls a function ...).
pub const MAX_DEPTH: usize = 4;

/// The values of user functions at constant arguments (the database evaluates the
/// function's body with [`evaluate`]).
pub trait FunctionValues {
    /// The value of `name(args)` where it is an integer function whose body runs
    /// exactly with these arguments; `depth` calls of it are already under way.
    fn value(&self, name: &str, args: &[i64], depth: usize) -> Option<i64>;

    /// Whether `name` is an integer function of the program (whose value a binding may
    /// give later, where its arguments are not numbers yet).
    fn is_function(&self, name: &str) -> bool;

    /// The body of the subroutine `call` (a statement of `caller`) calls, with how its
    /// entry values correspond to the caller's, where the program has it.
    fn subroutine(&self, caller: &Unit, call: &Call) -> Option<Arc<CalleeRun>> {
        let _ = (caller, call);
        None
    }
}

/// No function has a value (a unit analysed on its own).
pub struct NoFunctions;

impl FunctionValues for NoFunctions {
    fn value(&self, _: &str, _: &[i64], _: usize) -> Option<i64> {
        None
    }

    fn is_function(&self, _: &str) -> bool {
        false
    }
}

/// A caller's name (or element key) a call leaves with a value, or without one (why),
/// and what the value rests on.
pub type CallResult = (String, Result<Sym, String>, Vec<Assumption>);

/// How control leaves a statement.
enum Flow {
    Next,
    Exit(Option<String>),
    Cycle(Option<String>),
    Return,
}

/// Runs statements over names (see the module documentation).
pub struct Executor<'a> {
    unit: &'a Unit,
    functions: &'a dyn FunctionValues,
    depth: usize,
    steps: usize,
    elements: HashSet<String>,
    max_steps: usize,
    max_elements: usize,
}

impl<'a> Executor<'a> {
    pub fn new(unit: &'a Unit, functions: &'a dyn FunctionValues, depth: usize) -> Executor<'a> {
        Executor {
            unit,
            functions,
            depth,
            steps: 0,
            elements: HashSet::new(),
            max_steps: MAX_STEPS,
            max_elements: MAX_ELEMENTS,
        }
    }

    /// This executor with other limits than [`MAX_STEPS`] and [`MAX_ELEMENTS`] (a
    /// set-up procedure run once for the whole program fills larger tables).
    pub fn with_budget(mut self, steps: usize, elements: usize) -> Self {
        self.max_steps = steps;
        self.max_elements = elements;
        self
    }

    /// The names after the loop `l` entered with `names`, and its number of iterations;
    /// `None` where it cannot be run exactly.
    pub fn run_loop(&mut self, l: &Loop, names: &Names) -> Option<(Names, u64)> {
        let mut names = names.clone();
        match self.repeat(l, &mut names)? {
            (Flow::Next, trips) => Some((names, trips)),
            _ => None,
        }
    }

    /// The names when a unit's body `stmts`, entered with `names`, returns.
    pub fn run_body(&mut self, stmts: &[Stmt], names: &Names) -> Option<Names> {
        let mut names = names.clone();
        match self.block(stmts, &mut names)? {
            Flow::Next | Flow::Return => Some(names),
            _ => None,
        }
    }

    /// The caller's names the callee of `run` leaves with a value (or without one) when
    /// its body runs with the caller's values at the call (`names`), each with what the
    /// entry values rest on; `None` where the body cannot be run exactly. The names are
    /// the actuals of integer scalar dummies (a name or an element at constant
    /// subscripts), the shared COMMON members and their elements, and the components of
    /// structures passed.
    pub fn call(&mut self, run: &CalleeRun, names: &Names) -> Option<Vec<CallResult>> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        let scope = scope(self.unit, names);
        let number = |v: i64| Ok(Sym::int(v as i128));
        let mut assumed = Vec::new();
        let mut callee = Names::default().with_constants(run.parameters.clone());
        for (dummy, actual) in &run.dummies {
            if let Some(v) = scope.constant(actual) {
                callee = callee.with(dummy, number(v));
                add_assumptions(&mut assumed, scope.assumptions(actual));
            }
        }
        let shared = run.members.iter().chain(&run.structures);
        for (ours, theirs) in shared.clone() {
            for (key, at) in member_keys(names, ours, theirs) {
                let Some(Ok(v)) = names.get(&key) else {
                    continue;
                };
                let Some(v) = names
                    .resolved(v)
                    .and_then(|v| i64::try_from(v.as_int()?).ok())
                else {
                    continue;
                };
                callee = callee.with(&at, number(v));
                add_assumptions(&mut assumed, names.assumed(&key).to_vec());
            }
        }
        let mut inner = Executor::new(&run.unit, self.functions, self.depth + 1)
            .with_budget(self.max_steps, self.max_elements);
        inner.steps = self.steps;
        inner.elements = std::mem::take(&mut self.elements);
        let out = inner.run_body(&run.unit.body, &callee);
        self.steps = inner.steps;
        self.elements = inner.elements;
        let out = out?;
        let value = |key: &str| -> Option<Result<Sym, String>> {
            Some(match out.get(key)? {
                Ok(v) => match out.resolved(v).and_then(|v| v.as_int()) {
                    Some(v) => Ok(Sym::int(v)),
                    None => Err(format!(
                        "`{key}`, which the call of `{}` sets",
                        run.unit.name
                    )),
                },
                Err(why) => Err(why.clone()),
            })
        };
        let mut results = Vec::new();
        for (dummy, actual) in &run.dummies {
            let key = match actual {
                Expr::Name(n) => n.clone(),
                Expr::Array(a) => match scope.element_key(a) {
                    Some(key) => key,
                    None => continue,
                },
                _ => continue,
            };
            if let Some(v) = value(dummy) {
                results.push((key, v, assumed.clone()));
            }
        }
        for (ours, theirs) in shared {
            for (key, at) in member_keys(&out, theirs, ours) {
                if let Some(v) = value(&key) {
                    results.push((at, v, assumed.clone()));
                }
            }
        }
        Some(results)
    }

    /// `names` with the value of every user function call in `exprs` whose arguments
    /// have constant values (`f(3)` as a name of its own, which [`Scope::sym`] reads).
    pub fn with_function_values(&self, exprs: &[&Expr], names: &Names) -> Names {
        let mut names = names.clone();
        if self.depth >= MAX_DEPTH {
            return names;
        }
        for c in function_calls(self.unit, exprs) {
            let scope = scope(self.unit, &names);
            let Some(args) = c
                .args
                .iter()
                .map(|a| scope.constant(&a.value))
                .collect::<Option<Vec<i64>>>()
            else {
                continue;
            };
            let key = element_key(&c.name, &args);
            if names.get(&key).is_some() {
                continue;
            }
            if let Some(v) = self.functions.value(&c.name, &args, self.depth + 1) {
                let mut assumed = Vec::new();
                for a in &c.args {
                    add_assumptions(&mut assumed, scope.assumptions(&a.value));
                }
                names = names.with_assumed(&key, Ok(Sym::int(v as i128)), assumed);
            }
        }
        names
    }

    fn block(&mut self, stmts: &[Stmt], names: &mut Names) -> Option<Flow> {
        for s in stmts {
            match self.stmt(s, names)? {
                Flow::Next => {}
                other => return Some(other),
            }
        }
        Some(Flow::Next)
    }

    fn stmt(&mut self, s: &Stmt, names: &mut Names) -> Option<Flow> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return None;
        }
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                *names = self.with_function_values(&[lhs, rhs], names);
                self.assign(lhs, rhs, names)?;
                Some(Flow::Next)
            }
            // The loop's own EXIT and CYCLE end there; others leave it.
            StmtKind::Loop(l) => Some(self.repeat(l, names)?.0),
            StmtKind::If(i) => {
                // Branches that change no integer (a debugging WRITE) need no decision.
                if !i
                    .branches
                    .iter()
                    .any(|b| self.sets_integers(&b.body, names))
                {
                    return Some(Flow::Next);
                }
                for b in &i.branches {
                    let taken = match &b.cond {
                        None => true,
                        Some(c) => {
                            *names = self.with_function_values(&[c], names);
                            truth(&scope(self.unit, names), c)?
                        }
                    };
                    if taken {
                        return self.block(&b.body, names);
                    }
                }
                Some(Flow::Next)
            }
            StmtKind::Exit { construct } => Some(Flow::Exit(construct.clone())),
            StmtKind::Cycle { construct } => Some(Flow::Cycle(construct.clone())),
            StmtKind::Return => Some(Flow::Return),
            StmtKind::Continue => Some(Flow::Next),
            StmtKind::Call(c) => {
                let run = self.functions.subroutine(self.unit, c)?;
                let results = self.call(&run, names)?;
                for array in &run.arrays {
                    *names = names.without_elements(array, "changed by a call");
                }
                for (key, value, assumed) in results {
                    *names = names.with_assumed(&key, value, assumed);
                }
                Some(Flow::Next)
            }
            // Output changes no value; input makes what it reads data.
            StmtKind::Other { writes, .. } => {
                *names = super::walk::read_at_run_time(&scope(self.unit, names), writes);
                Some(Flow::Next)
            }
            _ => None,
        }
    }

    /// `lhs = rhs`, as the count walk records it: an integer scalar or an integer
    /// array's element at constant subscripts takes the value; any other element of an
    /// integer array makes its elements unknown.
    fn assign(&mut self, lhs: &Expr, rhs: &Expr, names: &mut Names) -> Option<()> {
        let scope = scope(self.unit, names);
        let integer = |n: &str| scope.is_integer(n);
        let value = |key: &str| {
            scope
                .sym(rhs)
                .map_err(|why| format!("`{key}`, computed from {why}"))
        };
        *names = match lhs {
            Expr::Name(n) if integer(n) => names.with_assumed(n, value(n), scope.assumptions(rhs)),
            Expr::Name(n) => names.with(n, Err(format!("`{n}`, which is not an integer"))),
            Expr::Array(a) => match scope.element_key(a) {
                Some(key) => {
                    self.elements.insert(key.clone());
                    if self.elements.len() > self.max_elements {
                        return None;
                    }
                    names.with_assumed(&key, value(&key), scope.assumptions(rhs))
                }
                None if integer(&a.name) => {
                    names.without_elements(&a.name, "an element set at run time")
                }
                None => names.clone(),
            },
            _ => return None,
        };
        Some(())
    }

    /// Whether running `stmts` may change an integer value or control flow out of
    /// them: a loop of real arithmetic needs no running.
    fn sets_integers(&self, stmts: &[Stmt], names: &Names) -> bool {
        let scope = scope(self.unit, names);
        let mut sets = false;
        walk(stmts, &mut |s, _| {
            sets |= match &s.kind {
                StmtKind::Assign {
                    lhs: Expr::Name(n), ..
                } => scope.is_integer(n),
                StmtKind::Assign {
                    lhs: Expr::Array(a),
                    ..
                } => scope.is_integer(&a.name),
                StmtKind::Assign { .. } | StmtKind::Continue | StmtKind::Loop(_) => false,
                StmtKind::If(_) | StmtKind::Select(_) => false,
                StmtKind::Other { writes, .. } => !writes.is_empty(),
                _ => true,
            }
        });
        sets
    }

    /// Runs the loop `l`: how control leaves it and its number of iterations.
    fn repeat(&mut self, l: &Loop, names: &mut Names) -> Option<(Flow, u64)> {
        let mut trips = 0u64;
        let mut next = |this: &mut Self, names: &mut Names| -> Option<Option<Flow>> {
            trips += 1;
            // Each iteration is a step, so an empty body ends too.
            this.steps += 1;
            if this.steps > this.max_steps {
                return None;
            }
            match this.block(&l.body, names)? {
                Flow::Next => Some(None),
                Flow::Cycle(c) if c.is_none() || c == l.construct => Some(None),
                Flow::Exit(c) if c.is_none() || c == l.construct => Some(Some(Flow::Next)),
                other => Some(Some(other)),
            }
        };
        match &l.control {
            LoopControl::Counted {
                var,
                lower,
                upper,
                step,
            } => {
                let exprs: Vec<&Expr> = l.control.exprs();
                *names = self.with_function_values(&exprs, names);
                let s = scope(self.unit, names);
                let (lo, hi) = (s.constant(lower)?, s.constant(upper)?);
                let st = step.as_ref().map_or(Some(1), |e| s.constant(e))?;
                let mut assumed = Vec::new();
                for e in &exprs {
                    add_assumptions(&mut assumed, s.assumptions(e));
                }
                // Fortran's trip count, max(0, (hi - lo + st) / st); more iterations
                // than the budget's statements is no set-up code.
                let count = hi.checked_sub(lo)?.checked_add(st)?.checked_div(st)?.max(0);
                if count > self.max_steps as i64 {
                    return None;
                }
                // The variable's value after the loop (it may lie beyond the integers).
                let end = lo.checked_add(count.checked_mul(st)?)?;
                if self.sets_integers(&l.body, names) {
                    for k in 0..count {
                        let v = lo + k * st;
                        *names = names.with_assumed(var, Ok(Sym::int(v as i128)), assumed.clone());
                        if let Some(out) = next(self, names)? {
                            return Some((out, trips));
                        }
                    }
                } else {
                    trips = count as u64;
                }
                *names = names.with_assumed(var, Ok(Sym::int(end as i128)), assumed);
                Some((Flow::Next, trips))
            }
            LoopControl::While(c) => loop {
                *names = self.with_function_values(&[c], names);
                if !truth(&scope(self.unit, names), c)? {
                    return Some((Flow::Next, trips));
                }
                if let Some(out) = next(self, names)? {
                    return Some((out, trips));
                }
            },
            LoopControl::Forever => loop {
                if let Some(out) = next(self, names)? {
                    return Some((out, trips));
                }
            },
        }
    }
}

/// The keys of `names` for COMMON member or structure `from` (the member itself, its
/// elements `from(3)` and components `from%first`), each with the key it goes by as
/// `to` in the other unit.
pub fn member_keys(names: &Names, from: &str, to: &str) -> Vec<(String, String)> {
    let (element, component) = (format!("{from}("), format!("{from}%"));
    names
        .entries()
        .map(|(k, _)| k)
        .filter(|k| *k == from || k.starts_with(&element) || k.starts_with(&component))
        .map(|k| {
            let at = format!("{to}{}", &k[from.len()..]);
            (k.to_string(), at)
        })
        .collect()
}

/// The names when the body of `unit` (a function the database evaluates), entered
/// with `names`, returns; `depth` evaluations are under way.
pub fn evaluate(
    unit: &Unit,
    functions: &dyn FunctionValues,
    depth: usize,
    names: &Names,
) -> Option<Names> {
    Executor::new(unit, functions, depth).run_body(&unit.body, names)
}

fn scope<'s>(unit: &'s Unit, names: &'s Names) -> Scope<'s> {
    Scope {
        unit,
        names,
        integers: false,
    }
}

/// The calls in `exprs` of names that are not arrays (functions, intrinsics among
/// them), inner calls first: an argument's call is valued before the call it feeds.
pub fn function_calls<'e>(unit: &Unit, exprs: &[&'e Expr]) -> Vec<&'e Call> {
    fn visit<'e>(unit: &Unit, e: &'e Expr, out: &mut Vec<&'e Call>) {
        match e {
            Expr::Call(c) => {
                for a in &c.args {
                    visit(unit, &a.value, out);
                }
                if !unit.symbols.get(&c.name).is_some_and(|s| s.is_array()) {
                    out.push(c);
                }
            }
            Expr::Array(a) => {
                for s in &a.subscripts {
                    if let Subscript::Index(x) = s {
                        visit(unit, x, out);
                    }
                }
            }
            Expr::Unary(_, x) => visit(unit, x, out),
            Expr::Binary(_, a, b) => {
                visit(unit, a, out);
                visit(unit, b, out);
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for e in exprs {
        visit(unit, e, &mut out);
    }
    out
}

/// Whether the logical expression `e` holds, where its value is known here.
fn truth(scope: &Scope, e: &Expr) -> Option<bool> {
    match e {
        Expr::Logical(b) => Some(*b),
        Expr::Unary(UnaryOp::Not, x) => truth(scope, x).map(|b| !b),
        Expr::Binary(BinaryOp::And, a, b) => Some(truth(scope, a)? && truth(scope, b)?),
        Expr::Binary(BinaryOp::Or, a, b) => Some(truth(scope, a)? || truth(scope, b)?),
        Expr::Binary(BinaryOp::Eqv, a, b) => Some(truth(scope, a)? == truth(scope, b)?),
        Expr::Binary(BinaryOp::Neqv, a, b) => Some(truth(scope, a)? != truth(scope, b)?),
        Expr::Binary(op, a, b) if op.is_relational() => {
            let (a, b) = (scope.constant(a)?, scope.constant(b)?);
            Some(match op {
                BinaryOp::Lt => a < b,
                BinaryOp::Le => a <= b,
                BinaryOp::Gt => a > b,
                BinaryOp::Ge => a >= b,
                BinaryOp::Eq => a == b,
                _ => a != b,
            })
        }
        // A logical PARAMETER decides as its value does.
        Expr::Name(n) => match scope.unit.symbol(n) {
            Some(sym) if sym.attrs.parameter => match &sym.value {
                Some(v @ Expr::Logical(_)) => truth(scope, v),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}
