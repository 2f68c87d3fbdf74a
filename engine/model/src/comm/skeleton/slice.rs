//! What a skeleton run executes: the program's MPI calls and, backwards from them,
//! every statement that computes a value they read — a count, a peer, a datatype, a
//! communicator, the bounds of a loop or the condition of a branch around them — and the
//! control structures holding such statements (a backward slice, flow-insensitive and
//! over the whole program: a variable is one key in every statement that names it, a
//! dummy argument is linked to its actual arguments). Everything else (the floating
//! point work) is skipped.

use super::Program;
use costline_syntax::ir::{
    Arg, Call, Expr, LoopControl, Stmt, StmtId, StmtKind, Subscript, Unit, UnitKind,
};
use std::collections::HashSet;

/// Where a variable lives: a module's, host's or main program's variable (one for the
/// program), a COMMON member (by block and position), or a procedure's local.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Global(String),
    Common(String, usize),
    Local(String, String),
}

/// The key of `name` in `unit`.
pub fn key(unit: &Unit, name: &str) -> Key {
    if let Some(s) = unit.symbols.get(name) {
        if let Some((block, pos)) = &s.common {
            return Key::Common(block.clone(), *pos);
        }
    } else if unit.outer.contains_key(name) {
        return Key::Global(name.to_string());
    }
    match unit.kind {
        UnitKind::Program | UnitKind::Module => Key::Global(name.to_string()),
        _ => Key::Local(unit.name.clone(), name.to_string()),
    }
}

/// The 0-based arguments of MPI routine `name` whose values the run reads (counts,
/// datatypes, peers, roots, communicators, topology and request arguments; not the
/// buffers).
pub fn mpi_inputs(name: &str) -> &'static [usize] {
    match name {
        "mpi_send" | "mpi_ssend" | "mpi_bsend" | "mpi_rsend" | "mpi_isend" | "mpi_issend"
        | "mpi_ibsend" | "mpi_irsend" | "mpi_recv" | "mpi_irecv" => &[1, 2, 3, 5],
        "mpi_sendrecv" => &[1, 2, 3, 6, 7, 8, 10],
        "mpi_sendrecv_replace" => &[1, 2, 3, 5, 7],
        "mpi_bcast" => &[1, 2, 3, 4],
        "mpi_reduce" => &[2, 3, 4, 5, 6],
        "mpi_allreduce" => &[2, 3, 4, 5],
        "mpi_gather" | "mpi_scatter" => &[1, 2, 4, 5, 6, 7],
        "mpi_allgather" | "mpi_alltoall" => &[1, 2, 4, 5, 6],
        "mpi_alltoallv" => &[1, 3, 5, 7, 8],
        "mpi_allgatherv" => &[1, 2, 4, 6, 7],
        "mpi_gatherv" => &[1, 2, 4, 6, 7, 8],
        "mpi_scatterv" => &[1, 3, 5, 6, 7, 8],
        "mpi_reduce_scatter" => &[2, 3, 5],
        "mpi_barrier" | "mpi_comm_rank" | "mpi_comm_size" | "mpi_comm_dup" | "mpi_wait"
        | "mpi_type_size" => &[0],
        "mpi_waitall" | "mpi_waitany" | "mpi_cart_rank" | "mpi_cart_sub" | "mpi_cart_get" => {
            &[0, 1]
        }
        "mpi_comm_split" | "mpi_cart_coords" | "mpi_cart_shift" | "mpi_dims_create" => &[0, 1, 2],
        "mpi_cart_create" => &[0, 1, 2, 3],
        "mpi_type_contiguous" => &[0, 1],
        "mpi_type_vector" | "mpi_type_hvector" | "mpi_type_create_hvector" => &[0, 1, 2, 3],
        "mpi_type_indexed"
        | "mpi_type_create_hindexed"
        | "mpi_type_struct"
        | "mpi_type_create_struct" => &[0, 1, 3],
        "mpi_type_create_subarray" => &[0, 2, 5],
        _ => &[],
    }
}

/// The statements a skeleton run executes and the variables it keeps.
#[derive(Debug, Default)]
pub struct Slice {
    /// (unit, statement) pairs run.
    pub active: HashSet<(String, StmtId)>,
    /// Variables whose values matter.
    pub relevant: HashSet<Key>,
    /// Procedures holding an executed statement.
    pub units: HashSet<String>,
}

impl Slice {
    pub fn runs(&self, unit: &Unit, id: StmtId) -> bool {
        self.active.contains(&(unit.name.clone(), id))
    }

    /// The slice of `program`, to a fixed point.
    pub fn of(program: &Program) -> Slice {
        let mut slice = Slice::default();
        loop {
            let before = (slice.active.len(), slice.relevant.len(), slice.units.len());
            for unit in program.procedures.values() {
                let mut pass = Pass {
                    program,
                    unit,
                    slice: &mut slice,
                    loops: Vec::new(),
                };
                if pass.block(&unit.body) {
                    pass.slice.units.insert(unit.name.clone());
                }
            }
            if before == (slice.active.len(), slice.relevant.len(), slice.units.len()) {
                return slice;
            }
        }
    }
}

/// One walk over one unit's statements.
struct Pass<'a, 'p> {
    program: &'a Program<'p>,
    unit: &'a Unit,
    slice: &'a mut Slice,
    /// The enclosing loops (their statements and construct names), innermost last.
    loops: Vec<(StmtId, Option<String>)>,
}

impl Pass<'_, '_> {
    fn relevant(&self, name: &str) -> bool {
        self.slice.relevant.contains(&key(self.unit, name))
    }

    /// Marks every variable `e` reads relevant (every argument of a function call:
    /// the function's result is computed from them).
    fn reads(&mut self, e: &Expr) {
        let mut names = Vec::new();
        names_in(e, &mut names);
        for n in names {
            if let Some(f) = self.program.procedures.get(&n)
                && f.kind == UnitKind::Function
            {
                self.slice.relevant.insert(Key::Local(n.clone(), n.clone()));
            }
            self.slice.relevant.insert(key(self.unit, &n));
        }
    }

    /// Walks `stmts`; whether any is executed.
    fn block(&mut self, stmts: &[Stmt]) -> bool {
        let mut any = false;
        for s in stmts {
            if self.stmt(s) {
                self.slice.active.insert((self.unit.name.clone(), s.id));
                any = true;
            }
        }
        any
    }

    fn stmt(&mut self, s: &Stmt) -> bool {
        let unit_runs = self.slice.units.contains(&self.unit.name);
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                let target = match lhs {
                    Expr::Name(n) => n,
                    Expr::Array(a) => &a.name,
                    _ => return false,
                };
                if !self.relevant(target) {
                    return false;
                }
                self.reads(rhs);
                if let Expr::Array(a) = lhs {
                    for sub in &a.subscripts {
                        if let Subscript::Index(e) = sub {
                            self.reads(e);
                        }
                    }
                }
                true
            }
            StmtKind::Call(c) if c.name.starts_with("mpi_") => {
                for &i in mpi_inputs(&c.name) {
                    if let Some(a) = c.args.get(i) {
                        self.reads(&a.value);
                    }
                }
                true
            }
            StmtKind::Call(c) => self.call(c),
            StmtKind::Loop(l) => {
                self.loops.push((s.id, l.construct.clone()));
                let inner = self.block(&l.body);
                self.loops.pop();
                if inner {
                    for e in l.control.exprs() {
                        self.reads(e);
                    }
                    if let LoopControl::Counted { var, .. } = &l.control {
                        self.slice.relevant.insert(key(self.unit, var));
                    }
                }
                inner
            }
            StmtKind::If(i) => {
                let mut inner = false;
                for b in &i.branches {
                    inner |= self.block(&b.body);
                }
                if inner {
                    for b in &i.branches {
                        if let Some(c) = &b.cond {
                            self.reads(c);
                        }
                    }
                }
                inner
            }
            StmtKind::Select(sel) => {
                let mut inner = false;
                for c in &sel.cases {
                    inner |= self.block(&c.body);
                }
                if inner {
                    self.reads(&sel.selector);
                }
                inner
            }
            StmtKind::Exit { construct } | StmtKind::Cycle { construct } => {
                let target = match construct {
                    Some(name) => self
                        .loops
                        .iter()
                        .rev()
                        .find(|(_, c)| c.as_deref() == Some(name.as_str())),
                    None => self.loops.last(),
                };
                target.is_some_and(|(id, _)| self.slice.runs(self.unit, *id))
            }
            StmtKind::Goto { selector, .. } => {
                if unit_runs && let Some(e) = selector {
                    self.reads(e);
                }
                unit_runs
            }
            StmtKind::ArithmeticIf { expr, .. } => {
                if unit_runs {
                    self.reads(expr);
                }
                unit_runs
            }
            StmtKind::Return | StmtKind::Stop => unit_runs,
            StmtKind::Other { writes, .. } => writes.iter().any(|w| self.relevant(w.name())),
            StmtKind::Continue | StmtKind::Remap { .. } => false,
        }
    }

    /// A call of a procedure: run when the procedure runs something; its relevant
    /// dummies make their actual arguments relevant, and a relevant actual variable
    /// makes its dummy relevant.
    fn call(&mut self, c: &Call) -> bool {
        let Some(callee) = self.program.procedures.get(&c.name).copied() else {
            return false;
        };
        for (dummy, arg) in bind(callee, &c.args) {
            let dummy_key = key(callee, dummy);
            if self.slice.relevant.contains(&dummy_key) {
                self.reads(&arg.value);
            } else if let Expr::Name(n) | Expr::Array(costline_syntax::ir::ArrayRef { name: n, .. }) =
                &arg.value
                && self.relevant(n)
            {
                self.slice.relevant.insert(dummy_key);
            }
        }
        self.slice.units.contains(&callee.name)
    }
}

/// The dummy each actual argument of a call of `callee` is bound to (by position, or
/// by keyword).
pub fn bind<'a>(callee: &'a Unit, args: &'a [Arg]) -> Vec<(&'a str, &'a Arg)> {
    args.iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let dummy = match &a.keyword {
                Some(k) => callee.dummies.iter().find(|d| *d == k)?,
                None => callee.dummies.get(i)?,
            };
            Some((dummy.as_str(), a))
        })
        .collect()
}

/// The names `e` reads: variables, arrays, and called functions.
fn names_in(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Name(n) => out.push(n.clone()),
        Expr::Array(a) => {
            out.push(a.name.clone());
            for s in &a.subscripts {
                match s {
                    Subscript::Index(x) => names_in(x, out),
                    Subscript::Range(t) => {
                        for x in [&t.lower, &t.upper, &t.stride].into_iter().flatten() {
                            names_in(x, out);
                        }
                    }
                }
            }
        }
        Expr::Call(c) => {
            out.push(c.name.clone());
            for a in &c.args {
                names_in(&a.value, out);
            }
        }
        Expr::Unary(_, x) => names_in(x, out),
        Expr::Binary(_, a, b) => {
            names_in(a, out);
            names_in(b, out);
        }
        Expr::Int(_) | Expr::Real(_) | Expr::Logical(_) | Expr::Str(_) | Expr::Unknown(_) => {}
    }
}
