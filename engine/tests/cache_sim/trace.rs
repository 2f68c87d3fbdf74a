//! The address trace of a unit: its loops run iteration by iteration and every array
//! element an assignment reads or writes becomes one byte address, independently of
//! the engine's cache model (only the front end's IR, constants and element sizes are
//! shared).
//!
//! Per assignment the accesses are, in order: the array references of the right-hand
//! side in `Expr::visit` order, those inside the left-hand side's subscripts, then the
//! left-hand-side element itself (a write). Scalars live in registers (no access).
//! Element (x1, ..., xD) of an array is at base + e·Σ_d (x_d − l_d)·Π_{d'<d} E_d'
//! (column-major). Every array gets its own line-aligned base, far from the others,
//! staggered by a few lines so that different arrays do not all start in set 0.

use costline_engine::ir::{
    BinaryOp, Bound, Expr, LoopControl, Stmt, StmtKind, Subscript, UnaryOp, Unit,
};
use std::collections::BTreeMap;

/// Bytes between the starts of the arrays' address ranges.
const ARRAY_SPACING_SHIFT: u32 = 32;
/// Lines each array's base is shifted by, per array index.
const STAGGER_LINES: u64 = 37;

/// An integer expression over the loop variables (by slot), compiled once.
#[derive(Clone, Debug)]
enum IntExpr {
    Const(i64),
    Var(usize),
    Neg(Box<IntExpr>),
    Bin(BinaryOp, Box<IntExpr>, Box<IntExpr>),
    Min(Vec<IntExpr>),
    Max(Vec<IntExpr>),
    Mod(Box<IntExpr>, Box<IntExpr>),
}

impl IntExpr {
    fn eval(&self, vars: &[i64]) -> i64 {
        match self {
            IntExpr::Const(v) => *v,
            IntExpr::Var(s) => vars[*s],
            IntExpr::Neg(a) => -a.eval(vars),
            IntExpr::Bin(op, a, b) => {
                let (x, y) = (a.eval(vars), b.eval(vars));
                match op {
                    BinaryOp::Add => x + y,
                    BinaryOp::Sub => x - y,
                    BinaryOp::Mul => x * y,
                    // Truncates toward zero, as Fortran's integer division.
                    BinaryOp::Div => x / y,
                    BinaryOp::Pow => x.pow(y as u32),
                    _ => unreachable!("only arithmetic is compiled"),
                }
            }
            IntExpr::Min(xs) => xs.iter().map(|x| x.eval(vars)).min().unwrap_or(0),
            IntExpr::Max(xs) => xs.iter().map(|x| x.eval(vars)).max().unwrap_or(0),
            IntExpr::Mod(a, p) => a.eval(vars) % p.eval(vars),
        }
    }
}

/// One array reference: its address is base + elem·Σ (subscript − lower)·multiplier.
#[derive(Clone, Debug)]
struct Access {
    base: u64,
    elem: i64,
    /// Per dimension: (subscript, lower bound, multiplier in elements).
    dims: Vec<(IntExpr, i64, i64)>,
    write: bool,
}

impl Access {
    fn address(&self, vars: &[i64]) -> u64 {
        let mut offset = 0i64;
        for (x, lower, mult) in &self.dims {
            offset += (x.eval(vars) - lower) * mult;
        }
        // Out-of-bounds subscripts still get an address (relative to the base), far
        // from every other array.
        (self.base as i64 + offset * self.elem) as u64
    }
}

#[derive(Clone, Debug)]
enum Node {
    Loop {
        slot: usize,
        lower: IntExpr,
        upper: IntExpr,
        step: IntExpr,
        body: Vec<Node>,
    },
    Assign(Vec<Access>),
}

/// A unit compiled for tracing.
pub struct Program {
    body: Vec<Node>,
    slots: usize,
    /// The arrays by index: array k's addresses start at (k + 1) << 32.
    pub arrays: Vec<String>,
}

struct Compiler<'a> {
    unit: &'a Unit,
    constants: &'a BTreeMap<String, i64>,
    elem_bytes: &'a dyn Fn(&str) -> u64,
    /// Loop variables in scope, innermost last: (name, slot).
    scope: Vec<(String, usize)>,
    slots: usize,
    /// Per array: (base, elem, lowers, multipliers).
    layouts: BTreeMap<String, (u64, i64, Vec<i64>, Vec<i64>)>,
}

impl Program {
    /// Compiles the body of `unit`; `constants` are the values of its named integer
    /// constants and bindings, `elem_bytes` the bytes of an array element.
    pub fn new(
        unit: &Unit,
        constants: &BTreeMap<String, i64>,
        elem_bytes: &dyn Fn(&str) -> u64,
    ) -> Result<Program, String> {
        let mut c = Compiler {
            unit,
            constants,
            elem_bytes,
            scope: Vec::new(),
            slots: 0,
            layouts: BTreeMap::new(),
        };
        c.layout()?;
        let body = c.block(&unit.body)?;
        let mut arrays: Vec<(u64, String)> = c
            .layouts
            .iter()
            .map(|(n, (base, ..))| (*base, n.clone()))
            .collect();
        arrays.sort();
        let arrays = arrays.into_iter().map(|(_, n)| n).collect();
        Ok(Program {
            body,
            slots: c.slots,
            arrays,
        })
    }

    /// Runs the unit, calling `f(address, write)` on every access in program order.
    pub fn run(&self, f: &mut dyn FnMut(u64, bool)) {
        let mut vars = vec![0i64; self.slots];
        run_block(&self.body, &mut vars, f);
    }
}

fn run_block(nodes: &[Node], vars: &mut [i64], f: &mut dyn FnMut(u64, bool)) {
    for n in nodes {
        match n {
            Node::Assign(accesses) => {
                for a in accesses {
                    f(a.address(vars), a.write);
                }
            }
            Node::Loop {
                slot,
                lower,
                upper,
                step,
                body,
            } => {
                // Fortran 95 8.1.4.4.1: bounds evaluated once, trips max(0, (u-l+s)/s).
                let (l, u, s) = (lower.eval(vars), upper.eval(vars), step.eval(vars));
                assert!(s != 0, "a DO loop with step 0");
                let trips = ((u - l + s) / s).max(0);
                for k in 0..trips {
                    vars[*slot] = l + k * s;
                    run_block(body, vars, f);
                }
                vars[*slot] = l + trips * s;
            }
        }
    }
}

impl Compiler<'_> {
    /// Bases and shapes of every array of the unit, in name order.
    fn layout(&mut self) -> Result<(), String> {
        let arrays: Vec<_> = self
            .unit
            .symbols
            .values()
            .filter(|s| s.is_array() && !s.attrs.parameter)
            .collect();
        for (k, sym) in arrays.into_iter().enumerate() {
            let dims = sym.dims.as_ref().expect("an array");
            let mut lowers = Vec::new();
            let mut mults = Vec::new();
            let mut mult = 1i64;
            for d in dims {
                let lo = match &d.lower {
                    Some(e) => self.constant(e)?,
                    None => 1,
                };
                let Bound::Explicit(up) = &d.upper else {
                    return Err(format!(
                        "`{}`: only explicit shapes are simulated",
                        sym.name
                    ));
                };
                let hi = self.constant(up)?;
                lowers.push(lo);
                mults.push(mult);
                mult *= (hi - lo + 1).max(0);
            }
            let k = k as u64;
            let base = ((k + 1) << ARRAY_SPACING_SHIFT) + k * 64 * STAGGER_LINES;
            let elem = (self.elem_bytes)(&sym.name) as i64;
            self.layouts
                .insert(sym.name.clone(), (base, elem, lowers, mults));
        }
        Ok(())
    }

    fn constant(&self, e: &Expr) -> Result<i64, String> {
        let c = self.int(e)?;
        Ok(c.eval(&[]))
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<Vec<Node>, String> {
        stmts
            .iter()
            .filter_map(|s| self.stmt(s).transpose())
            .collect()
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Option<Node>, String> {
        match &s.kind {
            StmtKind::Loop(l) => {
                let LoopControl::Counted {
                    var,
                    lower,
                    upper,
                    step,
                } = &l.control
                else {
                    return Err("only counted DO loops are simulated".into());
                };
                let lower = self.int(lower)?;
                let upper = self.int(upper)?;
                let step = match step {
                    Some(e) => self.int(e)?,
                    None => IntExpr::Const(1),
                };
                let slot = self.slots;
                self.slots += 1;
                self.scope.push((var.clone(), slot));
                let body = self.block(&l.body)?;
                self.scope.pop();
                Ok(Some(Node::Loop {
                    slot,
                    lower,
                    upper,
                    step,
                    body,
                }))
            }
            StmtKind::Assign { lhs, rhs } => {
                let mut accesses: Vec<Result<Access, String>> = Vec::new();
                rhs.visit(&mut |x| {
                    if let Expr::Array(_) = x {
                        accesses.push(self.access(x, false));
                    }
                });
                match lhs {
                    Expr::Array(a) => {
                        for sub in &a.subscripts {
                            if let Subscript::Index(x) = sub {
                                x.visit(&mut |x| {
                                    if let Expr::Array(_) = x {
                                        accesses.push(self.access(x, false));
                                    }
                                });
                            }
                        }
                        accesses.push(self.access(lhs, true));
                    }
                    Expr::Name(_) => {}
                    other => return Err(format!("assignment to `{other}`")),
                }
                let accesses = accesses.into_iter().collect::<Result<Vec<_>, _>>()?;
                Ok(Some(Node::Assign(accesses)))
            }
            StmtKind::Continue => Ok(None),
            _ => Err(format!("not simulated: statement {:?}", s.kind)),
        }
    }

    fn access(&self, e: &Expr, write: bool) -> Result<Access, String> {
        let Expr::Array(a) = e else {
            unreachable!("array references only")
        };
        let (base, elem, lowers, mults) = self
            .layouts
            .get(&a.name)
            .ok_or_else(|| format!("`{}` has no layout", a.name))?;
        if a.subscripts.len() != lowers.len() {
            return Err(format!("`{e}`: {} subscripts", a.subscripts.len()));
        }
        let dims = a
            .subscripts
            .iter()
            .zip(lowers.iter().zip(mults))
            .map(|(s, (lo, m))| match s {
                Subscript::Index(x) => Ok((self.int(x)?, *lo, *m)),
                Subscript::Range(_) => Err(format!("`{e}`: a section left after normalization")),
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Access {
            base: *base,
            elem: *elem,
            dims,
            write,
        })
    }

    /// An integer expression of loop variables and constants.
    fn int(&self, e: &Expr) -> Result<IntExpr, String> {
        Ok(match e {
            Expr::Int(v) => IntExpr::Const(*v),
            Expr::Name(n) => {
                if let Some((_, slot)) = self.scope.iter().rev().find(|(v, _)| v == n) {
                    IntExpr::Var(*slot)
                } else if let Some(v) = self.constants.get(n) {
                    IntExpr::Const(*v)
                } else {
                    return Err(format!("`{n}` has no known integer value"));
                }
            }
            Expr::Unary(UnaryOp::Neg, a) => IntExpr::Neg(Box::new(self.int(a)?)),
            Expr::Unary(UnaryOp::Plus, a) => self.int(a)?,
            Expr::Binary(
                op
                @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Pow),
                a,
                b,
            ) => IntExpr::Bin(*op, Box::new(self.int(a)?), Box::new(self.int(b)?)),
            Expr::Call(c) => {
                let args = c
                    .args
                    .iter()
                    .map(|a| self.int(&a.value))
                    .collect::<Result<Vec<_>, _>>()?;
                match (c.name.as_str(), args.len()) {
                    ("min", 2..) => IntExpr::Min(args),
                    ("max", 2..) => IntExpr::Max(args),
                    ("mod", 2) => {
                        let mut it = args.into_iter();
                        let a = it.next().expect("two");
                        let p = it.next().expect("two");
                        IntExpr::Mod(Box::new(a), Box::new(p))
                    }
                    _ => return Err(format!("`{e}`: call not simulated")),
                }
            }
            _ => {
                return Err(format!(
                    "`{e}` is not an integer expression of loop variables"
                ));
            }
        })
    }
}

impl Program {
    /// The index in [`Program::arrays`] of the array an address belongs to.
    pub fn array_index(&self, address: u64) -> Option<usize> {
        let k = (address >> ARRAY_SPACING_SHIFT).checked_sub(1)? as usize;
        (k < self.arrays.len()).then_some(k)
    }
}
