//! An element-level simulator of the communication HPF's owner-computes rule implies,
//! independent of the engine's communication analysis (engine/src/comm) it checks.
//!
//! One run of the unit, iteration by iteration. For every assignment S and every
//! right-hand-side reference to a mapped array (descending through operators,
//! subscripts and elemental or user calls, not into transformational or inquiry
//! intrinsics; identical texts count once), each processor p executing the
//! iteration (the owners of the left-hand side element, or every processor for a
//! scalar or unmapped left-hand side) reads the element e the reference names. When p
//! does not own e, the lowest-numbered owner q of e sends it to p.
//!
//! Placement: the fetch is vectorized over the enclosing loops from the inside out
//! until a DO loop (not INDEPENDENT) inside one instance of which the reference reads
//! an element an earlier assignment of that instance wrote (observed, element by
//! element, in a run with every binding raised to at least FLOW_SIZE and every branch
//! taken, so that short loops and conditions do not hide a flow the program has for
//! other sizes and data), or whose body passes the
//! array to a CALL: it stays inside that loop L_k and the loops around it. Each
//! iteration of L_k is one instance of the fetch (one instance per run of the unit
//! when k = 0). Per (reference, instance, q, p), q sends p one message holding the
//! distinct elements p reads from q in that instance.

// The work oracle includes this module without using it.
#![allow(dead_code)]

use super::control;
use super::eval;
use super::mapping::Mapping;
use costline_engine::ir::intrinsics::{IntrinsicClass, intrinsic_class};
use costline_engine::ir::{
    self, BaseType, Expr, Loop, LoopOrigin, Stmt, StmtId, StmtKind, Subscript, Unit, pretty,
};
use costline_engine::project::FileAnalysis;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What processor `from` sends processor `to` (1-based) for one reference, in one run.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SimRecord {
    pub from: usize,
    pub to: usize,
    pub messages: u64,
    pub bytes: u64,
}

impl fmt::Display for SimRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}->{}: {} msg, {} B",
            self.from, self.to, self.messages, self.bytes
        )
    }
}

/// One right-hand-side reference of an assignment and what it moved.
#[derive(Clone, Debug)]
pub struct SimRef {
    pub array: String,
    /// The lowered reference as text (`a($1 - 1, j)`).
    pub reference: String,
    /// Whether it is the left-hand side's own element (so always local).
    pub same_as_lhs: bool,
    pub elem_bytes: u64,
    /// How many enclosing loops (outermost first) the fetch stays inside...
    pub kept: usize,
    /// ...and how many it is vectorized over.
    pub hoisted: usize,
    /// Sorted by (from, to); only pairs that communicate.
    pub records: Vec<SimRecord>,
}

/// The communication of every assignment of a unit in one run.
#[derive(Debug)]
pub struct CommSimulation {
    pub processors: usize,
    /// By the 1-based source line of the assignment (one assignment per line).
    pub statements: BTreeMap<u32, Vec<SimRef>>,
}

/// Simulates the one unit of `file`. With `adopt`, a fetch the engine keeps inside
/// more loops than the observed flows need takes the engine's placement (a static test
/// that ignores bounds and conditions may be conservative; it must never hoist a fetch
/// past an observed flow, which the comparison of placements still catches).
pub fn simulate_comm(file: &FileAnalysis, adopt: bool) -> Result<CommSimulation, String> {
    let [u] = file.units.as_slice() else {
        return Err(format!(
            "{} units: the simulator runs one",
            file.units.len()
        ));
    };
    let env = |n: &str| u.constants.values.get(n).copied();
    let mapping = Mapping::new(&u.unit, &env)?;
    let mut refs = references(&u.unit, &mapping)?;
    // The flows, from a run at larger sizes (or, if that one cannot run, this one).
    let larger: BTreeMap<String, i64> = u
        .constants
        .values
        .iter()
        .map(|(k, v)| (k.clone(), if *v > 0 { (*v).max(FLOW_SIZE) } else { *v }))
        .collect();
    let flows = Sim::new(&u.unit, &mapping, &refs, larger, true)
        .run()
        .or_else(|_| Sim::new(&u.unit, &mapping, &refs, u.constants.values.clone(), true).run())?
        .flows;
    for (id, list) in refs.iter_mut() {
        for (k, r) in list.iter_mut().enumerate() {
            let observed = flows.get(&(*id, k)).copied().unwrap_or(0);
            let engine = u
                .comm
                .of(*id)
                .iter()
                .find(|e| e.reference == r.text)
                .map(|e| e.placement.kept)
                .filter(|_| adopt);
            let kept = r.kept.max(observed).max(engine.unwrap_or(0));
            r.hoisted = r.kept + r.hoisted - kept;
            r.kept = kept;
        }
    }
    let sim = Sim::new(&u.unit, &mapping, &refs, u.constants.values.clone(), false).run()?;
    let reads = sim.reads;
    let mut statements = BTreeMap::new();
    for (id, list) in &refs {
        let stmt = find(&u.unit, *id).expect("a statement of the unit");
        let line = file.source.line_col(u.absolute(stmt.span).start).0;
        let sims = list
            .iter()
            .enumerate()
            .map(|(k, r)| SimRef {
                array: r.array.clone(),
                reference: r.text.clone(),
                same_as_lhs: r.same_as_lhs,
                elem_bytes: r.elem_bytes,
                kept: r.kept,
                hoisted: r.hoisted,
                records: records(reads.get(&(*id, k)), r.elem_bytes),
            })
            .collect();
        if statements.insert(line, sims).is_some() {
            return Err(format!(
                "two assignments on line {line}: lines would not identify them"
            ));
        }
    }
    Ok(CommSimulation {
        processors: mapping.processors,
        statements,
    })
}

/// The statement `id` of `unit`.
fn find(unit: &Unit, id: StmtId) -> Option<&Stmt> {
    let mut found = None;
    unit.walk(&mut |s, _| {
        if s.id == id {
            found = Some(s);
        }
    });
    found
}

/// Tallies the distinct elements per (instance, sender, receiver) into records.
fn records(reads: Option<&Reads>, elem_bytes: u64) -> Vec<SimRecord> {
    let mut pairs: BTreeMap<(usize, usize), (u64, u64)> = BTreeMap::new();
    for ((_, q, p), elements) in reads.into_iter().flatten() {
        if elements.is_empty() {
            continue;
        }
        let slot = pairs.entry((*q, *p)).or_default();
        slot.0 += 1;
        slot.1 += elements.len() as u64 * elem_bytes;
    }
    pairs
        .into_iter()
        .map(|((q, p), (messages, bytes))| SimRecord {
            from: q + 1,
            to: p + 1,
            messages,
            bytes,
        })
        .collect()
}

/// A reference considered for communication, with its placement.
struct Reference {
    array: String,
    text: String,
    same_as_lhs: bool,
    subscripts: Vec<Expr>,
    /// Conditions under which it is read (MERGE masks); one that cannot be evaluated
    /// counts as true.
    guards: Vec<Expr>,
    elem_bytes: u64,
    kept: usize,
    hoisted: usize,
}

/// The references of every assignment of `unit` that read a mapped array.
fn references(unit: &Unit, mapping: &Mapping) -> Result<BTreeMap<StmtId, Vec<Reference>>, String> {
    fn go<'a>(
        unit: &Unit,
        mapping: &Mapping,
        stmts: &'a [Stmt],
        loops: &mut Vec<&'a Loop>,
        out: &mut BTreeMap<StmtId, Vec<Reference>>,
    ) -> Result<(), String> {
        for s in stmts {
            match &s.kind {
                StmtKind::Assign { lhs, rhs } => {
                    let mut found = Vec::new();
                    read_refs(rhs, &mut Vec::new(), &mut found);
                    let mut list: Vec<Reference> = Vec::new();
                    for (r, guards) in found {
                        let Expr::Array(a) = r else { unreachable!() };
                        if !mapping.is_mapped(&a.name) {
                            continue;
                        }
                        let text = r.to_string();
                        if list.iter().any(|x| x.text == text) {
                            continue;
                        }
                        // Kept inside loops that pass the array to a CALL; the flows
                        // observed in a run keep it inside more.
                        let mut kept = loops.len();
                        while kept > 0 && !passes_to_call(loops[kept - 1], &a.name) {
                            kept -= 1;
                        }
                        let subscripts = a
                            .subscripts
                            .iter()
                            .map(|x| match x {
                                Subscript::Index(e) => e.clone(),
                                Subscript::Range(_) => unreachable!("only indices are kept"),
                            })
                            .collect();
                        list.push(Reference {
                            array: a.name.clone(),
                            same_as_lhs: text == lhs.to_string(),
                            text,
                            subscripts,
                            guards,
                            elem_bytes: element_bytes(unit, &a.name)?,
                            kept,
                            hoisted: loops.len() - kept,
                        });
                    }
                    out.insert(s.id, list);
                }
                StmtKind::Loop(l) => {
                    loops.push(l);
                    go(unit, mapping, &l.body, loops, out)?;
                    loops.pop();
                }
                _ => {
                    for c in s.children() {
                        go(unit, mapping, std::slice::from_ref(c), loops, out)?;
                    }
                }
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    go(unit, mapping, &unit.body, &mut Vec::new(), &mut out)?;
    Ok(out)
}

/// The array element references `e` reads: every reference whose subscripts are all
/// indices, also inside subscripts and elemental or user calls, but not inside the
/// arguments of transformational and inquiry intrinsics; each with the masks under
/// which it is read (`merge(t, f, m)` reads `t` where `m` holds, `f` where it does not).
fn read_refs<'a>(e: &'a Expr, guards: &mut Vec<Expr>, out: &mut Vec<(&'a Expr, Vec<Expr>)>) {
    match e {
        Expr::Array(r) => {
            let elementwise = !r.subscripts.is_empty()
                && r.subscripts
                    .iter()
                    .all(|s| matches!(s, Subscript::Index(_)));
            if elementwise {
                out.push((e, guards.clone()));
            }
            for s in &r.subscripts {
                if let Subscript::Index(x) = s {
                    read_refs(x, guards, out);
                }
            }
        }
        Expr::Call(c) if c.name == "merge" && c.args.len() == 3 => {
            let mask = &c.args[2].value;
            read_refs(mask, guards, out);
            guards.push(mask.clone());
            read_refs(&c.args[0].value, guards, out);
            guards.pop();
            guards.push(Expr::Unary(ir::UnaryOp::Not, Box::new(mask.clone())));
            read_refs(&c.args[1].value, guards, out);
            guards.pop();
        }
        Expr::Call(c) => {
            let whole = matches!(
                intrinsic_class(&c.name),
                Some(IntrinsicClass::Transformational | IntrinsicClass::Inquiry)
            );
            if !whole {
                for a in &c.args {
                    read_refs(&a.value, guards, out);
                }
            }
        }
        Expr::Unary(_, x) => read_refs(x, guards, out),
        Expr::Binary(_, x, y) => {
            read_refs(x, guards, out);
            read_refs(y, guards, out);
        }
        Expr::Int(_)
        | Expr::Real(_)
        | Expr::Logical(_)
        | Expr::Str(_)
        | Expr::Name(_)
        | Expr::Unknown(_) => {}
    }
}

/// Whether loop `l` is a DO loop, not INDEPENDENT, whose body (at any depth) passes
/// `array` to a CALL, which may write it.
fn passes_to_call(l: &Loop, array: &str) -> bool {
    if l.origin != LoopOrigin::Do || l.independent.is_some() {
        return false;
    }
    let names = |e: &Expr| match e {
        Expr::Array(r) => r.name == array,
        Expr::Name(n) => n == array,
        _ => false,
    };
    let mut passes = false;
    ir::walk(&l.body, &mut |s, _| {
        if let StmtKind::Call(c) = &s.kind {
            for a in &c.args {
                a.value.visit(&mut |x| passes |= names(x));
            }
        }
    });
    passes
}

/// Bytes per element of `array` from its declared (or implicit) type: INTEGER, REAL
/// and LOGICAL 4 or their literal kind, DOUBLE PRECISION 8, COMPLEX 8 or twice its
/// kind, DOUBLE COMPLEX 16.
fn element_bytes(unit: &Unit, array: &str) -> Result<u64, String> {
    let ty = unit
        .symbols
        .get(array)
        .and_then(|s| s.ty.as_ref())
        .or_else(|| unit.implicit.type_of(array))
        .ok_or_else(|| format!("`{array}` has no type"))?;
    let kind = match &ty.kind {
        None => None,
        Some(Expr::Int(k)) if *k > 0 => Some(*k as u64),
        Some(k) => return Err(format!("`{array}`: kind `{k}` is not simulated")),
    };
    Ok(match ty.base {
        BaseType::Integer | BaseType::Real | BaseType::Logical => kind.unwrap_or(4),
        BaseType::DoublePrecision => 8,
        BaseType::Complex => kind.map_or(8, |k| 2 * k),
        BaseType::DoubleComplex => 16,
        BaseType::Character | BaseType::Derived => {
            return Err(format!("`{array}`: its type is not simulated"));
        }
    })
}

/// What the elements read per (instance, sender, receiver), 0-based processors.
type Reads = BTreeMap<(u64, usize, usize), BTreeSet<Vec<i64>>>;

/// The state of one run of the unit.
struct Sim<'a> {
    unit: &'a Unit,
    mapping: &'a Mapping,
    refs: &'a BTreeMap<StmtId, Vec<Reference>>,
    /// The values of integer names: constants, bindings, loop variables and integer
    /// scalars assigned a known value.
    vars: BTreeMap<String, i64>,
    /// Iterations started so far, of every loop.
    serial: u64,
    /// The serial number of the current iteration of each enclosing loop.
    iterations: Vec<u64>,
    /// By (statement, index of the reference).
    reads: BTreeMap<(StmtId, usize), Reads>,
    /// A run that only observes flows (no owners, no reads tallied).
    track: bool,
    /// The serial number of the current instance (run) of each enclosing loop, and
    /// whether it is a DO loop that is not INDEPENDENT.
    instances: Vec<(u64, bool)>,
    /// The loop instances around the last write of each element, by (array, index).
    last_write: BTreeMap<(String, Vec<i64>), Vec<u64>>,
    /// By (statement, index of the reference): how many enclosing loops an observed
    /// flow keeps its fetch inside.
    flows: BTreeMap<(StmtId, usize), usize>,
}

/// The size every binding is raised to in the run that observes flows.
const FLOW_SIZE: i64 = 8;

impl<'a> Sim<'a> {
    fn new(
        unit: &'a Unit,
        mapping: &'a Mapping,
        refs: &'a BTreeMap<StmtId, Vec<Reference>>,
        vars: BTreeMap<String, i64>,
        track: bool,
    ) -> Sim<'a> {
        Sim {
            unit,
            mapping,
            refs,
            vars,
            serial: 0,
            iterations: Vec::new(),
            reads: BTreeMap::new(),
            track,
            instances: Vec::new(),
            last_write: BTreeMap::new(),
            flows: BTreeMap::new(),
        }
    }

    fn run(mut self) -> Result<Sim<'a>, String> {
        self.block(&self.unit.body)?;
        Ok(self)
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<(), String> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    /// Assignments, DO with a counted control, IF and SELECT CASE on known integers,
    /// CONTINUE and CALL, with Fortran 95 semantics.
    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        let vars = &self.vars;
        let env = |n: &str| vars.get(n).copied();
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => self.assign(s.id, lhs, rhs),
            StmtKind::Loop(l) => self.do_loop(l),
            // The run that observes flows takes every branch, as a static test must.
            StmtKind::If(i) if self.track => {
                i.branches.iter().try_for_each(|b| self.block(&b.body))
            }
            StmtKind::Select(sel) if self.track => {
                sel.cases.iter().try_for_each(|c| self.block(&c.body))
            }
            StmtKind::If(i) => match control::branch(i, &env)? {
                Some(body) => self.block(body),
                None => Ok(()),
            },
            StmtKind::Select(sel) => match control::case(sel, &env)? {
                Some(body) => self.block(body),
                None => Ok(()),
            },
            StmtKind::Continue => Ok(()),
            // What the callee does to data does not matter here; integer scalars it is
            // passed may change.
            StmtKind::Call(c) => {
                for a in &c.args {
                    if let Expr::Name(n) = &a.value {
                        self.vars.remove(n);
                    }
                }
                Ok(())
            }
            _ => Err(format!(
                "not simulated: {}",
                pretty::render(std::slice::from_ref(s)).trim()
            )),
        }
    }

    /// `DO var = l, u, s`: trip count max(0, (u - l + s)/s); every iteration gets a new
    /// serial number.
    fn do_loop(&mut self, l: &Loop) -> Result<(), String> {
        let vars = &self.vars;
        let t = control::trips(l, &|n: &str| vars.get(n).copied())?;
        self.serial += 1;
        self.instances.push((
            self.serial,
            l.origin == LoopOrigin::Do && l.independent.is_none(),
        ));
        self.iterations.push(0);
        for k in 0..t.trips {
            self.serial += 1;
            *self.iterations.last_mut().expect("pushed") = self.serial;
            self.vars.insert(t.var.to_string(), t.first + k * t.step);
            self.block(&l.body)?;
        }
        self.iterations.pop();
        self.instances.pop();
        self.vars
            .insert(t.var.to_string(), t.first + t.trips * t.step);
        Ok(())
    }

    /// The subscripts of an element reference, evaluated.
    fn index(&self, subscripts: &[Expr]) -> Result<Vec<i64>, String> {
        let env = |n: &str| self.vars.get(n).copied();
        subscripts.iter().map(|e| eval::int(e, &env)).collect()
    }

    /// Owner computes, and every read of a mapped array by an executing processor that
    /// does not own the element.
    fn assign(&mut self, id: StmtId, lhs: &Expr, rhs: &Expr) -> Result<(), String> {
        if self.track {
            return self.observe(id, lhs, rhs);
        }
        let env = |n: &str| self.vars.get(n).copied();
        let executing: BTreeSet<usize> = match lhs {
            Expr::Name(n) if !self.unit.symbols.get(n).is_some_and(|s| s.is_array()) => {
                (0..self.mapping.processors).collect()
            }
            Expr::Array(r) => {
                let index = self.written(lhs, r)?;
                self.mapping.owners(&r.name, &index, &env)?
            }
            _ => return Err(format!("not simulated: assignment to `{lhs}`")),
        };
        let refs = self.refs.get(&id).expect("every assignment is listed");
        for (k, r) in refs.iter().enumerate() {
            if r.guards.iter().any(|g| eval::logical(g, &env) == Ok(false)) {
                continue;
            }
            let element = self.index(&r.subscripts)?;
            let owners = self.mapping.owners(&r.array, &element, &env)?;
            let Some(&sender) = owners.first() else {
                return Err(format!("`{}` at {element:?} has no owner", r.text));
            };
            let instance = match r.kept {
                0 => 0,
                k => self.iterations[k - 1],
            };
            let reads = self.reads.entry((id, k)).or_default();
            for &p in executing.iter().filter(|p| !owners.contains(p)) {
                reads
                    .entry((instance, sender, p))
                    .or_default()
                    .insert(element.clone());
            }
        }
        self.scalar(lhs, rhs);
        Ok(())
    }

    /// The element a left-hand side array reference writes.
    fn written(&self, lhs: &Expr, r: &ir::ArrayRef) -> Result<Vec<i64>, String> {
        let subscripts = r
            .subscripts
            .iter()
            .map(|s| match s {
                Subscript::Index(e) => Ok(e.clone()),
                Subscript::Range(_) => Err(format!("`{lhs}`: a section left after normalization")),
            })
            .collect::<Result<Vec<Expr>, String>>()?;
        self.index(&subscripts)
    }

    /// An integer scalar assigned a known value keeps it for later subscripts.
    fn scalar(&mut self, lhs: &Expr, rhs: &Expr) {
        if let Expr::Name(n) = lhs
            && !self.unit.symbols.get(n).is_some_and(|s| s.is_array())
        {
            let env = |n: &str| self.vars.get(n).copied();
            match control::integer_value(self.unit, n, rhs, &env) {
                Some(v) => self.vars.insert(n.clone(), v),
                None => self.vars.remove(n),
            };
        }
    }
    /// The flows into the references of an assignment: a read of an element written
    /// earlier in the same instance of an enclosing DO loop keeps the fetch inside it.
    fn observe(&mut self, id: StmtId, lhs: &Expr, rhs: &Expr) -> Result<(), String> {
        let refs = self.refs.get(&id).expect("every assignment is listed");
        for (k, r) in refs.iter().enumerate() {
            let element = self.index(&r.subscripts)?;
            let Some(written) = self.last_write.get(&(r.array.clone(), element)) else {
                continue;
            };
            let deepest = self
                .instances
                .iter()
                .enumerate()
                .filter(|(j, (serial, counts))| *counts && written.get(*j) == Some(serial))
                .map(|(j, _)| j + 1)
                .max();
            if let Some(d) = deepest {
                let slot = self.flows.entry((id, k)).or_default();
                *slot = (*slot).max(d);
            }
        }
        if let Expr::Array(r) = lhs {
            let index = self.written(lhs, r)?;
            let instances = self.instances.iter().map(|(s, _)| *s).collect();
            self.last_write.insert((r.name.clone(), index), instances);
        }
        self.scalar(lhs, rhs);
        Ok(())
    }
}
