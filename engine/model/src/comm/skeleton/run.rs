//! One process's skeleton run: the program's sliced statements ([`super::slice`])
//! interpreted from the main program on, with this process's rank. Variables hold
//! concrete values; a procedure's dummy shares its actual argument's storage (an
//! array element passed to a scalar dummy is copied in and out); arrays are kept
//! element by element, by subscripts. A value the run cannot know (input, skipped
//! work) is unknown; a branch on one is taken as false and a loop over one is not run,
//! each noted with its statement — unless a profile run on as many processes measured
//! it, when the rank's own counts decide ([`super::measured`]), noted as measured.

use super::comms::Shared;
use super::measured::{Branch, Decisions};
use super::slice::{Key, Slice, bind, key};
use super::value::{Value, binary, intrinsic, real_literal, unary};
use super::{Note, Program};
use crate::comm::cost::Network;
use crate::comm::ranks::RankComm;
use crate::comm::replay::Step;
use costline_syntax::ir::{
    BaseType, Call, CaseValue, Expr, LoopControl, Stmt, StmtId, StmtKind, Subscript, Unit,
};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// How deep procedure calls may nest (recursion is cut there, noted).
const MAX_DEPTH: usize = 64;

/// A variable's storage.
#[derive(Clone, Debug)]
pub enum Slot {
    Scalar(Rc<RefCell<Value>>),
    Array(Rc<RefCell<HashMap<Vec<i64>, Value>>>),
}

impl Slot {
    fn new(array: bool) -> Slot {
        if array {
            Slot::Array(Rc::default())
        } else {
            Slot::Scalar(Rc::default())
        }
    }
}

/// A procedure's activation: its unit and its variables (locals and dummies).
pub struct Frame<'u> {
    pub unit: &'u Unit,
    vars: HashMap<String, Slot>,
}

/// How a statement ends.
pub enum Flow {
    Next,
    Exit(Option<String>),
    Cycle(Option<String>),
    Goto(u32),
    Return,
    Stop,
}

/// Why a run stopped early.
pub enum Abort {
    /// The run's statement budget is spent.
    Budget,
}

/// A process in a run.
pub struct Rank<'a, 'p> {
    pub program: &'a Program<'p>,
    pub slice: &'a Slice,
    pub shared: &'a mut Shared,
    pub me: usize,
    /// Module, COMMON, main program and saved variables.
    globals: HashMap<Key, Slot>,
    /// Statements it may still execute.
    pub steps: &'a mut u64,
    pub events: Vec<Step>,
    /// Transfers started (the next one's request index).
    pub requests: usize,
    /// Collectives made on each communicator so far.
    pub seq: HashMap<u64, u64>,
    /// Derived datatypes' sizes by handle, and the next handle.
    pub types: HashMap<i64, i64>,
    pub next_type: i64,
    pub counts: RankComm,
    pub notes: Vec<Note>,
    /// What it took from the profile run, by statement.
    pub measured: Vec<Note>,
    pub decisions: Decisions,
    /// Statement sites of the program: (unit, statement) → site index.
    pub sites: &'a mut HashMap<(String, StmtId), u32>,
    pub net: &'a Network,
    /// Communicators this process has run a collective on.
    pub made: HashSet<u64>,
    depth: usize,
}

impl<'a, 'p> Rank<'a, 'p> {
    pub fn new(
        program: &'a Program<'p>,
        slice: &'a Slice,
        shared: &'a mut Shared,
        me: usize,
        steps: &'a mut u64,
        sites: &'a mut HashMap<(String, StmtId), u32>,
        net: &'a Network,
    ) -> Self {
        Rank {
            program,
            slice,
            shared,
            me,
            globals: HashMap::new(),
            steps,
            events: Vec::new(),
            requests: 0,
            seq: HashMap::new(),
            types: HashMap::new(),
            next_type: super::mpi::FIRST_DERIVED_TYPE,
            counts: RankComm {
                rank: me,
                ..RankComm::default()
            },
            notes: Vec::new(),
            measured: Vec::new(),
            decisions: Decisions::new(me),
            sites,
            net,
            made: HashSet::new(),
            depth: 0,
        }
    }

    /// Runs the main program.
    pub fn run_main(&mut self) -> Result<(), Abort> {
        let main = self.program.main;
        let mut frame = Frame {
            unit: main,
            vars: HashMap::new(),
        };
        self.block(&mut frame, &main.body).map(|_| ())
    }

    /// Notes that statement `id` of `unit` depends on what the run cannot know.
    pub fn note(&mut self, unit: &Unit, id: StmtId, what: String, assumed: bool) {
        let n = Note {
            unit: unit.name.clone(),
            stmt: id,
            what,
            assumed,
        };
        if !self.notes.contains(&n) {
            self.notes.push(n);
        }
    }

    /// Notes that statement `id` of `unit` takes `what` from the profile run.
    pub fn measured(&mut self, unit: &Unit, id: StmtId, what: String) {
        let n = Note {
            unit: unit.name.clone(),
            stmt: id,
            what: format!("{what} (measured: {})", self.program.profiled.run),
            assumed: false,
        };
        if !self.measured.contains(&n) {
            self.measured.push(n);
        }
    }

    /// The site index of statement `id` of `unit` (the replay's statement key).
    pub fn site(&mut self, unit: &Unit, id: StmtId) -> StmtId {
        let next = self.sites.len() as u32;
        StmtId(*self.sites.entry((unit.name.clone(), id)).or_insert(next))
    }

    fn block(&mut self, frame: &mut Frame, stmts: &[Stmt]) -> Result<Flow, Abort> {
        let mut i = 0;
        while i < stmts.len() {
            let s = &stmts[i];
            if !self.slice.runs(frame.unit, s.id) {
                i += 1;
                continue;
            }
            if *self.steps == 0 {
                return Err(Abort::Budget);
            }
            *self.steps -= 1;
            match self.stmt(frame, s)? {
                Flow::Next => i += 1,
                Flow::Goto(label) => match stmts.iter().position(|t| t.label == Some(label)) {
                    Some(j) => i = j,
                    None => return Ok(Flow::Goto(label)),
                },
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn stmt(&mut self, frame: &mut Frame, s: &Stmt) -> Result<Flow, Abort> {
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                let v = self.eval(frame, rhs)?;
                self.assign(frame, lhs, v)?;
            }
            StmtKind::Call(c) if c.name.starts_with("mpi_") => {
                return self.mpi(frame, s.id, c);
            }
            StmtKind::Call(c) => {
                if let Some(callee) = self.program.procedures.get(&c.name).copied()
                    && let Flow::Stop = self.invoke(frame, s.id, callee, c)?
                {
                    return Ok(Flow::Stop);
                }
            }
            StmtKind::Loop(l) => return self.run_loop(frame, s, l),
            StmtKind::If(i) => {
                for (k, b) in i.branches.iter().enumerate() {
                    let take = match &b.cond {
                        None => true,
                        Some(c) => match self.eval(frame, c)?.truth() {
                            Some(t) => t,
                            None => match self.measured_branch(frame, s.id, i.branches.len()) {
                                // Branches before the k-th were not taken here.
                                Some(Branch::Taken(m)) if m >= k => {
                                    return self.block(frame, &i.branches[m].body);
                                }
                                Some(Branch::None) => return Ok(Flow::Next),
                                _ => {
                                    let what = format!(
                                        "a branch condition the run cannot evaluate ({c}), taken as false"
                                    );
                                    self.note(frame.unit, s.id, what, true);
                                    false
                                }
                            },
                        },
                    };
                    if take {
                        return self.block(frame, &b.body);
                    }
                }
            }
            StmtKind::Select(sel) => {
                let v = self.eval(frame, &sel.selector)?;
                if v == Value::Unknown {
                    return match self.measured_branch(frame, s.id, sel.cases.len()) {
                        Some(Branch::Taken(m)) => self.block(frame, &sel.cases[m].body),
                        Some(Branch::None) => Ok(Flow::Next),
                        None => {
                            let what =
                                "a CASE selector the run cannot evaluate: no case taken".into();
                            self.note(frame.unit, s.id, what, false);
                            Ok(Flow::Next)
                        }
                    };
                }
                for c in &sel.cases {
                    let hit = match &c.values {
                        None => true,
                        Some(vals) => {
                            let mut hit = false;
                            for cv in vals {
                                hit |= self.case_matches(frame, &v, cv)?;
                            }
                            hit
                        }
                    };
                    if hit {
                        return self.block(frame, &c.body);
                    }
                }
            }
            StmtKind::Goto { targets, selector } => match selector {
                None => return Ok(targets.first().map_or(Flow::Next, |&l| Flow::Goto(l))),
                Some(e) => {
                    let k = self.eval(frame, e)?.int();
                    // Computed GO TO: the k-th label, else the next statement.
                    match k.and_then(|k| targets.get((k - 1).max(0) as usize).filter(|_| k >= 1)) {
                        Some(&l) => return Ok(Flow::Goto(l)),
                        None if k.is_none() => {
                            let what = "a computed GO TO the run cannot evaluate".into();
                            self.note(frame.unit, s.id, what, false);
                        }
                        None => {}
                    }
                }
            },
            StmtKind::ArithmeticIf { expr, targets } => {
                let v = self.eval(frame, expr)?;
                let sign = match v {
                    Value::Int(i) => Some(i.signum()),
                    Value::Real(r) if r < 0.0 => Some(-1),
                    Value::Real(r) if r > 0.0 => Some(1),
                    Value::Real(_) => Some(0),
                    _ => None,
                };
                match sign.and_then(|k| targets.get((k + 1) as usize)) {
                    Some(&l) => return Ok(Flow::Goto(l)),
                    None => {
                        let what = "an arithmetic IF the run cannot evaluate".into();
                        self.note(frame.unit, s.id, what, false);
                    }
                }
            }
            StmtKind::Exit { construct } => return Ok(Flow::Exit(construct.clone())),
            StmtKind::Cycle { construct } => return Ok(Flow::Cycle(construct.clone())),
            StmtKind::Return => return Ok(Flow::Return),
            StmtKind::Stop => return Ok(Flow::Stop),
            StmtKind::Other { writes, .. } => {
                for w in writes {
                    let name = w.name().to_string();
                    if let Some(Slot::Scalar(c)) = self.slot(frame, &name, true) {
                        *c.borrow_mut() = Value::Unknown;
                    } else if let Some(Slot::Array(a)) = self.slot(frame, &name, true) {
                        a.borrow_mut().clear();
                    }
                }
            }
            StmtKind::Continue | StmtKind::Remap { .. } => {}
        }
        Ok(Flow::Next)
    }

    fn case_matches(
        &mut self,
        frame: &mut Frame,
        v: &Value,
        cv: &CaseValue,
    ) -> Result<bool, Abort> {
        use costline_syntax::ir::BinaryOp::{Eq, Ge, Le};
        Ok(match cv {
            CaseValue::Value(e) => binary(Eq, v, &self.eval(frame, e)?) == Value::Bool(true),
            CaseValue::Range(lo, hi) => {
                let mut ok = true;
                if let Some(lo) = lo {
                    ok &= binary(Ge, v, &self.eval(frame, lo)?) == Value::Bool(true);
                }
                if let Some(hi) = hi {
                    ok &= binary(Le, v, &self.eval(frame, hi)?) == Value::Bool(true);
                }
                ok
            }
        })
    }

    fn run_loop(
        &mut self,
        frame: &mut Frame,
        s: &Stmt,
        l: &costline_syntax::ir::Loop,
    ) -> Result<Flow, Abort> {
        let mine = |c: &Option<String>| c.is_none() || *c == l.construct;
        let body = |this: &mut Self, frame: &mut Frame| -> Result<Option<Flow>, Abort> {
            if *this.steps == 0 {
                return Err(Abort::Budget);
            }
            *this.steps -= 1;
            Ok(match this.block(frame, &l.body)? {
                Flow::Next => None,
                Flow::Cycle(c) if mine(&c) => None,
                Flow::Exit(c) if mine(&c) => Some(Flow::Next),
                other => Some(other),
            })
        };
        match &l.control {
            LoopControl::Counted {
                var,
                lower,
                upper,
                step,
            } => {
                let lo = self.eval(frame, lower)?.int();
                let hi = self.eval(frame, upper)?.int();
                let st = match step {
                    Some(e) => self.eval(frame, e)?.int(),
                    None => Some(1),
                };
                let (Some(lo), Some(hi), Some(st)) = (lo, hi, st.filter(|&s| s != 0)) else {
                    let Some(trips) = self.measured_trips(frame, s.id) else {
                        let what = "a loop whose bounds the run cannot evaluate: not run".into();
                        self.note(frame.unit, s.id, what, false);
                        return Ok(Flow::Next);
                    };
                    // Its variable has no value the run knows.
                    for _ in 0..trips {
                        self.assign(frame, &Expr::Name(var.clone()), Value::Unknown)?;
                        if let Some(flow) = body(self, frame)? {
                            return Ok(flow);
                        }
                    }
                    return Ok(Flow::Next);
                };
                // Huge bounds overflow here or spend the budget: never a panic or a hang.
                let Some(trips) = hi.checked_sub(lo).and_then(|d| d.checked_add(st)) else {
                    let what = "a loop whose trip count overflows: not run".into();
                    self.note(frame.unit, s.id, what, false);
                    return Ok(Flow::Next);
                };
                let mut value = lo;
                for _ in 0..(trips / st).max(0) {
                    self.assign(frame, &Expr::Name(var.clone()), Value::Int(value))?;
                    if let Some(flow) = body(self, frame)? {
                        return Ok(flow);
                    }
                    value = value.saturating_add(st);
                }
                self.assign(frame, &Expr::Name(var.clone()), Value::Int(value))?;
            }
            LoopControl::While(cond) => {
                // Once the run cannot evaluate the condition, the iterations measured
                // at this entry decide, and the condition is no longer asked.
                let (mut measured, mut done) = (None, 0u64);
                loop {
                    let go = match measured {
                        Some(trips) => done < trips,
                        None => match self.eval(frame, cond)?.truth() {
                            Some(t) => t,
                            None => match self.measured_trips(frame, s.id) {
                                Some(trips) => {
                                    measured = Some(trips);
                                    done < trips
                                }
                                None => {
                                    let what =
                                        "a DO WHILE condition the run cannot evaluate: loop left"
                                            .into();
                                    self.note(frame.unit, s.id, what, false);
                                    false
                                }
                            },
                        },
                    };
                    if !go {
                        break;
                    }
                    if let Some(flow) = body(self, frame)? {
                        return Ok(flow);
                    }
                    done += 1;
                }
            }
            LoopControl::Forever => loop {
                if let Some(flow) = body(self, frame)? {
                    return Ok(flow);
                }
            },
        }
        Ok(Flow::Next)
    }

    /// The branch the profile run's counts give this rank's arrival at the IF or
    /// SELECT `id` (with `arms` branches) of `frame`'s unit, noted; `None` when it has
    /// none to give.
    fn measured_branch(&mut self, frame: &Frame, id: StmtId, arms: usize) -> Option<Branch> {
        let unit = frame.unit;
        let b = self
            .decisions
            .branch(self.program.profiled, &unit.name, id, arms)?;
        let what = "the branch taken: this rank's measured branch counts".into();
        self.measured(unit, id, what);
        Some(b)
    }

    /// The iterations the profile run's counts give this rank's entry into the loop
    /// `id` of `frame`'s unit, noted; `None` when it has none to give.
    fn measured_trips(&mut self, frame: &Frame, id: StmtId) -> Option<u64> {
        let unit = frame.unit;
        let trips = self
            .decisions
            .trips(self.program.profiled, &unit.name, id)?;
        let what = "its iterations: this rank's measured trip counts".into();
        self.measured(unit, id, what);
        Some(trips)
    }

    /// Calls `callee` from statement `at` of the caller: dummies share the actual
    /// arguments' storage.
    fn invoke(
        &mut self,
        frame: &mut Frame,
        at: StmtId,
        callee: &Unit,
        c: &Call,
    ) -> Result<Flow, Abort> {
        if self.depth >= MAX_DEPTH {
            let what = format!(
                "calls nested deeper than {MAX_DEPTH}: `{}` not run",
                callee.name
            );
            self.note(frame.unit, at, what, false);
            return Ok(Flow::Next);
        }
        let mut inner = Frame {
            unit: callee,
            vars: HashMap::new(),
        };
        let mut copy_back = Vec::new();
        for (dummy, arg) in bind(callee, &c.args) {
            let dummy_array = callee.symbol(dummy).is_some_and(|s| s.is_array());
            let slot = match &arg.value {
                Expr::Name(n) => self.slot(frame, n, true),
                Expr::Array(a) if a.subscripts.is_empty() => self.slot(frame, &a.name, true),
                Expr::Array(a) if !dummy_array => {
                    let v = self.eval(frame, &arg.value)?;
                    copy_back.push((dummy.to_string(), Expr::Array(a.clone())));
                    Some(Slot::Scalar(Rc::new(RefCell::new(v))))
                }
                _ if dummy_array => Some(Slot::new(true)),
                e => {
                    let v = self.eval(frame, e)?;
                    Some(Slot::Scalar(Rc::new(RefCell::new(v))))
                }
            };
            if let Some(slot) = slot {
                inner.vars.insert(dummy.to_string(), slot);
            }
        }
        self.depth += 1;
        let flow = self.block(&mut inner, &callee.body);
        self.depth -= 1;
        let flow = flow?;
        for (dummy, target) in copy_back {
            if let Some(Slot::Scalar(v)) = inner.vars.get(&dummy) {
                let v = v.borrow().clone();
                self.assign(frame, &target, v)?;
            }
        }
        Ok(match flow {
            Flow::Stop => Flow::Stop,
            _ => Flow::Next,
        })
    }

    /// The storage of `name` as `frame`'s unit sees it (made when `create`).
    pub fn slot(&mut self, frame: &mut Frame, name: &str, create: bool) -> Option<Slot> {
        if let Some(s) = frame.vars.get(name) {
            return Some(s.clone());
        }
        let unit = frame.unit;
        let sym = unit.symbol(name);
        if sym.is_some_and(|s| s.attrs.parameter) {
            return None;
        }
        let array = sym.is_some_and(|s| s.is_array());
        let k = key(unit, name);
        let persistent = match &k {
            Key::Local(..) => unit
                .symbols
                .get(name)
                .is_some_and(|s| s.attrs.save || s.value.is_some()),
            _ => true,
        };
        if !persistent {
            if !create {
                return None;
            }
            let s = Slot::new(array);
            frame.vars.insert(name.to_string(), s.clone());
            return Some(s);
        }
        if let Some(s) = self.globals.get(&k) {
            return Some(s.clone());
        }
        let init = sym.and_then(|s| s.value.clone()).filter(|_| !array);
        if !create && init.is_none() {
            return None;
        }
        let s = Slot::new(array);
        self.globals.insert(k, s.clone());
        if let (Some(e), Slot::Scalar(c)) = (init, &s) {
            // The initializer of a module or saved variable, at its first use.
            let v = self.eval_quiet(frame, &e);
            *c.borrow_mut() = v.converted(self.base_type(unit, name));
        }
        Some(s)
    }

    fn base_type(&self, unit: &Unit, name: &str) -> Option<BaseType> {
        match unit.symbol(name).and_then(|s| s.ty.as_ref()) {
            Some(t) => Some(t.base),
            None => unit.implicit.type_of(name).map(|t| t.base),
        }
    }

    /// Stores `v` in the variable or array element `lhs`.
    pub fn assign(&mut self, frame: &mut Frame, lhs: &Expr, v: Value) -> Result<(), Abort> {
        let (name, subs) = match lhs {
            Expr::Name(n) => (n, None),
            Expr::Array(a) => (&a.name, Some(&a.subscripts)),
            _ => return Ok(()),
        };
        let v = v.converted(self.base_type(frame.unit, name));
        match (self.slot(frame, name, true), subs) {
            (Some(Slot::Scalar(c)), None) => *c.borrow_mut() = v,
            (Some(Slot::Array(a)), Some(subs)) => {
                if let Some(at) = self.subscripts(frame, subs)? {
                    a.borrow_mut().insert(at, v);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn subscripts(
        &mut self,
        frame: &mut Frame,
        subs: &[Subscript],
    ) -> Result<Option<Vec<i64>>, Abort> {
        let mut at = Vec::with_capacity(subs.len());
        for s in subs {
            let Subscript::Index(e) = s else {
                return Ok(None);
            };
            match self.eval(frame, e)?.int() {
                Some(i) => at.push(i),
                None => return Ok(None),
            }
        }
        Ok(Some(at))
    }

    /// `e`'s value, without the budget's error (initializers and constants).
    fn eval_quiet(&mut self, frame: &mut Frame, e: &Expr) -> Value {
        self.eval(frame, e).unwrap_or(Value::Unknown)
    }

    pub fn eval(&mut self, frame: &mut Frame, e: &Expr) -> Result<Value, Abort> {
        Ok(match e {
            Expr::Int(i) => Value::Int(*i),
            Expr::Real(r) => real_literal(r),
            Expr::Logical(b) => Value::Bool(*b),
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::Unknown(_) => Value::Unknown,
            Expr::Name(n) => self.read(frame, n)?,
            Expr::Array(a) => match self.slot(frame, &a.name, false) {
                Some(Slot::Array(store)) => match self.subscripts(frame, &a.subscripts)? {
                    Some(at) => store.borrow().get(&at).cloned().unwrap_or_default(),
                    None => Value::Unknown,
                },
                _ => Value::Unknown,
            },
            Expr::Call(c) => self.call_value(frame, c)?,
            Expr::Unary(op, x) => unary(*op, &self.eval(frame, x)?),
            Expr::Binary(op, a, b) => {
                let a = self.eval(frame, a)?;
                let b = self.eval(frame, b)?;
                binary(*op, &a, &b)
            }
        })
    }

    fn read(&mut self, frame: &mut Frame, n: &str) -> Result<Value, Abort> {
        if let Some(Slot::Scalar(c)) = self.slot(frame, n, false) {
            return Ok(c.borrow().clone());
        }
        if let Some(sym) = frame.unit.symbol(n)
            && sym.attrs.parameter
            && let Some(e) = sym.value.clone()
        {
            if self.depth > MAX_DEPTH {
                return Ok(Value::Unknown);
            }
            self.depth += 1;
            let v = self.eval(frame, &e);
            self.depth -= 1;
            let base = self.base_type(frame.unit, n);
            return Ok(v?.converted(base));
        }
        let known =
            (self.program.constant)(&frame.unit.name, n).or_else(|| super::mpi::constant(n));
        Ok(known.map_or(Value::Unknown, Value::Int))
    }

    fn call_value(&mut self, frame: &mut Frame, c: &Call) -> Result<Value, Abort> {
        if let Some(f) = self.program.procedures.get(&c.name).copied()
            && self.depth < MAX_DEPTH
        {
            let mut inner = Frame {
                unit: f,
                vars: HashMap::new(),
            };
            for (dummy, arg) in bind(f, &c.args) {
                let slot = match &arg.value {
                    Expr::Name(n) => self.slot(frame, n, true),
                    e => {
                        let v = self.eval(frame, e)?;
                        Some(Slot::Scalar(Rc::new(RefCell::new(v))))
                    }
                };
                if let Some(slot) = slot {
                    inner.vars.insert(dummy.to_string(), slot);
                }
            }
            let result = Slot::new(false);
            inner.vars.insert(f.name.clone(), result.clone());
            self.depth += 1;
            let flow = self.block(&mut inner, &f.body);
            self.depth -= 1;
            flow?;
            return Ok(match result {
                Slot::Scalar(v) => v.borrow().clone(),
                Slot::Array(_) => Value::Unknown,
            });
        }
        let mut args = Vec::with_capacity(c.args.len());
        for a in &c.args {
            args.push(self.eval(frame, &a.value)?);
        }
        Ok(intrinsic(&c.name, &args).unwrap_or_default())
    }

    /// The values of the `n` elements of the array argument `e` from its start (a
    /// whole array from its first element, `a(k)` from element k on).
    pub fn elements(&mut self, frame: &mut Frame, e: &Expr, n: i64) -> Result<Vec<Value>, Abort> {
        let (name, first) = match e {
            Expr::Name(n) => (n.clone(), None),
            Expr::Array(a) if a.subscripts.is_empty() => (a.name.clone(), None),
            Expr::Array(a) => (a.name.clone(), self.subscripts(frame, &a.subscripts)?),
            _ => return Ok(vec![Value::Unknown; n.clamp(0, 64) as usize]),
        };
        let start = first.unwrap_or_else(|| self.lower_bounds(frame, &name));
        let store = match self.slot(frame, &name, false) {
            Some(Slot::Array(store)) => store,
            // A scalar passed as a one-element buffer.
            Some(Slot::Scalar(v)) if n == 1 && matches!(e, Expr::Name(_)) => {
                return Ok(vec![v.borrow().clone()]);
            }
            _ => return Ok(vec![Value::Unknown; n.clamp(0, 4096) as usize]),
        };
        let store = store.borrow();
        Ok((0..n.clamp(0, 4096))
            .map(|k| {
                let mut at = start.clone();
                if let Some(x) = at.first_mut() {
                    *x += k;
                }
                store.get(&at).cloned().unwrap_or_default()
            })
            .collect())
    }

    /// Stores `values` in the array argument `e` from its start (see [`Self::elements`]).
    pub fn store_elements(
        &mut self,
        frame: &mut Frame,
        e: &Expr,
        values: &[Value],
    ) -> Result<(), Abort> {
        let (name, first) = match e {
            Expr::Name(n) => (n.clone(), None),
            Expr::Array(a) if a.subscripts.is_empty() => (a.name.clone(), None),
            Expr::Array(a) => (a.name.clone(), self.subscripts(frame, &a.subscripts)?),
            _ => return Ok(()),
        };
        let start = first.unwrap_or_else(|| self.lower_bounds(frame, &name));
        if let Some(Slot::Array(store)) = self.slot(frame, &name, true) {
            let mut store = store.borrow_mut();
            for (k, v) in values.iter().enumerate() {
                let mut at = start.clone();
                if let Some(x) = at.first_mut() {
                    *x += k as i64;
                }
                store.insert(at, v.clone());
            }
        } else if let [v] = values {
            self.assign(frame, e, v.clone())?;
        }
        Ok(())
    }

    /// The first element's subscripts of array `name` (its declared lower bounds).
    fn lower_bounds(&mut self, frame: &mut Frame, name: &str) -> Vec<i64> {
        let dims = frame
            .unit
            .symbol(name)
            .and_then(|s| s.dims.clone())
            .unwrap_or_default();
        if dims.is_empty() {
            return vec![1];
        }
        dims.iter()
            .map(|d| self.eval_quiet(frame, &d.lower_expr()).int().unwrap_or(1))
            .collect()
    }
}
