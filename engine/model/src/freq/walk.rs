//! The walk over a unit's statements: each block is counted once, in the context of
//! its enclosing loops and conditions.

use super::convert::{
    Alt, Cond, DataDependent, Names, Scope, add_assumptions, always, and, array_key, coalesced,
    element_key, not,
};
use super::execute::{Executor, FunctionValues, function_calls};
use super::{
    Assumption, CallEffect, Count, CountTerm, FreqOptions, Measured, Source, UnitFrequencies,
};
use costline_symbolic::{Budget, Constraint, Name, Rational, Sym, symbolic_sum_shared};
use costline_syntax::ir::PragmaKind;
use costline_syntax::ir::{
    Call, CaseValue, Expr, Loop, LoopControl, Stmt, StmtId, StmtKind, Unit, Written, walk,
};
use costline_syntax::span::Span;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The context of a block: what must hold for it to run.
#[derive(Clone)]
struct Frame {
    /// Identifies the frame for caching its count.
    id: usize,
    /// Counted loops with known bounds, outermost first: their variable and bounds.
    loops: Vec<(Name, Vec<Constraint>)>,
    /// What names mean here: loop variables (a step makes `i` stand for `l + s·i`) and
    /// the values reaching assignments gave to integer scalars; latest last.
    names: Names,
    cond: Cond,
    /// Product of assumed trip counts of loops with unknown bounds.
    trips: Rational,
    assumptions: Vec<Assumption>,
}

pub struct Walker<'a> {
    unit: &'a Unit,
    options: &'a FreqOptions,
    effects: &'a HashMap<StmtId, CallEffect>,
    functions: &'a dyn FunctionValues,
    pragmas: HashMap<StmtId, PragmaKind>,
    /// What a profile run measured of the unit.
    measured: &'a Measured,
    /// Labels some GO TO (or arithmetic IF) jumps to.
    targets: HashSet<u32>,
    /// Labels from which nothing but CONTINUE, I/O, STOP and RETURN follows to the end of
    /// the unit: a GO TO there ends the program's work.
    end_labels: HashSet<u32>,
    counts: Vec<Option<Arc<Count>>>,
    /// What names mean at each assignment (for the work analysis).
    scopes: Vec<Option<Names>>,
    cache: HashMap<usize, Arc<Count>>,
    next_frame: usize,
    /// The unit's symbolic steps left ([`FreqOptions::unit_max_steps`]).
    left: Option<usize>,
    /// Calls of user functions at formula arguments, named in the counts.
    deferred: Vec<super::FunctionCall>,
}

impl<'a> Walker<'a> {
    pub fn new(
        unit: &'a Unit,
        options: &'a FreqOptions,
        effects: &'a HashMap<StmtId, CallEffect>,
        functions: &'a dyn FunctionValues,
        measured: &'a Measured,
    ) -> Walker<'a> {
        let mut n = 0;
        unit.walk(&mut |_, _| n += 1);
        let mut targets = HashSet::new();
        unit.walk(&mut |s, _| {
            if let StmtKind::Goto { targets: t, .. } | StmtKind::ArithmeticIf { targets: t, .. } =
                &s.kind
            {
                targets.extend(t.iter().copied());
            }
        });
        Walker {
            unit,
            options,
            effects,
            functions,
            pragmas: unit.pragmas.iter().cloned().collect(),
            measured,
            targets,
            end_labels: end_labels(&unit.body),
            counts: vec![None; n],
            scopes: vec![None; n],
            cache: HashMap::new(),
            next_frame: 1,
            left: options.unit_max_steps,
            deferred: Vec::new(),
        }
    }

    /// Walks the unit, the elements of `data_arrays` entering it as data, with the
    /// unit's `constants` where numbers are needed ([`Names::with_constants`]).
    pub fn run(mut self, data_arrays: &[String], mut names: Names) -> UnitFrequencies {
        for a in data_arrays {
            names = names.without_elements(a, &format!("an element of `{a}`, set at run time"));
        }
        let root = Frame {
            id: 0,
            loops: Vec::new(),
            names,
            cond: always(),
            trips: Rational::ONE,
            assumptions: Vec::new(),
        };
        let body = &self.unit.body;
        let (_, end) = self.block(body, root);
        let exit = (!self.returns_early()).then_some(end);
        UnitFrequencies {
            exit,
            counts: self
                .counts
                .into_iter()
                .map(Option::unwrap_or_default)
                .collect(),
            scopes: self.scopes,
            functions: self.deferred,
        }
    }

    /// Whether the unit may return before its end: a RETURN that is not its last
    /// statement, or a GO TO to the statements that end it.
    fn returns_early(&self) -> bool {
        let last = self.unit.body.last().map(|s| s.id);
        let mut early = false;
        self.unit.walk(&mut |s, _| match &s.kind {
            StmtKind::Return => early |= Some(s.id) != last,
            StmtKind::Goto { targets, .. } | StmtKind::ArithmeticIf { targets, .. } => {
                early |= targets.iter().any(|t| self.end_labels.contains(t));
            }
            _ => {}
        });
        early
    }

    /// The names after the CALL `s`, as its effect (if known) leaves them.
    fn after_call(&self, s: &Stmt, names: &Names) -> Names {
        let Some(effect) = self.effects.get(&s.id) else {
            return names.clone();
        };
        let scope = Scope {
            unit: self.unit,
            names,
            integers: false,
        };
        let how = format!("the call of `{}` sets", effect.callee);
        let mut out = forget(&scope, &effect.kills, &how);
        for (key, formula, assumed) in &effect.exits {
            let mut value = Ok(formula.clone());
            let mut assumed = assumed.clone();
            for var in formula.vars() {
                let Some((_, e)) = effect.entry.iter().find(|(v, _)| v.as_str() == &*var) else {
                    value = Err(format!("`{key}`, which {how}"));
                    break;
                };
                let entry = scope
                    .sym(e)
                    .map_err(|why| format!("`{key}`, which {how} from {why}"));
                value = value.and_then(|f: Sym| {
                    f.subst(&var, &entry?)
                        .map_err(|_| format!("`{key}`, which {how}"))
                });
                add_assumptions(&mut assumed, scope.assumptions(e));
            }
            out = out.with_assumed(key, value, assumed);
        }
        if let Some(run) = &effect.run {
            let results = Executor::new(self.unit, self.functions, 0).call(run, names);
            for (key, value, assumed) in results.unwrap_or_default() {
                // What the callee leaves without a number keeps the effect's view.
                if let Ok(value) = value {
                    out = out.with_assumed(&key, Ok(value), assumed);
                }
            }
        }
        out
    }

    fn fresh(&mut self, mut f: Frame) -> Frame {
        f.id = self.next_frame;
        self.next_frame += 1;
        f
    }

    /// `frame` further restricted by `cond` at statement `at`; a condition that became
    /// too complex to keep exact is recorded as an assumption.
    fn narrowed(&mut self, frame: &Frame, cond: &Cond, at: &Stmt) -> Frame {
        let f = Frame {
            cond: and(&frame.cond, cond, self.options.default_probability),
            ..frame.clone()
        };
        self.with_cond(f, at)
    }

    /// A fresh frame; an estimate in its condition is recorded as an assumption.
    fn with_cond(&mut self, mut f: Frame, at: &Stmt) -> Frame {
        let estimate = Assumption::Complex { at: at.span };
        if f.cond.iter().any(|a| a.degraded) && !f.assumptions.contains(&estimate) {
            f.assumptions.push(estimate);
        }
        self.fresh(f)
    }

    fn scope<'f>(&'f self, frame: &'f Frame) -> Scope<'f> {
        Scope {
            unit: self.unit,
            names: &frame.names,
            integers: false,
        }
    }

    /// The count of a frame: one symbolic sum per alternative of its condition.
    fn count(&mut self, frame: &Frame) -> Arc<Count> {
        if let Some(c) = self.cache.get(&frame.id) {
            return c.clone();
        }
        let vars: Vec<Name> = frame.loops.iter().rev().map(|(v, _)| v.clone()).collect();
        let loop_cons: Vec<Constraint> = frame
            .loops
            .iter()
            .flat_map(|(_, c)| c.iter().cloned())
            .collect();
        let terms = frame
            .cond
            .iter()
            .filter_map(|alt| {
                let weight = alt.prob.checked_mul(frame.trips).ok()?;
                let mut constraints = loop_cons.clone();
                constraints.extend(alt.cons.iter().cloned());
                // Past the unit's budget, no symbolic work at all.
                let steps = self
                    .left
                    .map_or(self.options.max_steps, |l| l.min(self.options.max_steps));
                let mut budget = Budget::new(self.options.max_pieces, steps);
                let symbolic =
                    symbolic_sum_shared(constraints.clone(), &vars, Sym::one(), &mut budget);
                if let Some(l) = &mut self.left {
                    *l = l.saturating_sub(budget.steps());
                }
                Some(CountTerm {
                    weight,
                    constraints,
                    vars: vars.clone(),
                    symbolic,
                })
            })
            .collect();
        let count = Arc::new(Count::new(terms, frame.assumptions.clone()));
        self.cache.insert(frame.id, count.clone());
        count
    }

    fn set(&mut self, id: StmtId, count: Arc<Count>) {
        if let Some(slot) = self.counts.get_mut(id.0 as usize) {
            *slot = Some(count);
        }
    }

    /// Counts a block's statements in `frame`; returns the condition under which control
    /// leaves the block at its end, when a jump (CYCLE, EXIT, RETURN, STOP, GO TO) inside
    /// narrowed it, or `None` when every run of the block reaches its end; and what
    /// names mean at its end.
    fn block(&mut self, stmts: &[Stmt], frame: Frame) -> (Option<Cond>, Names) {
        let base = frame.clone();
        let mut frame = frame;
        let mut narrowed = false;
        let regions = backward_regions(stmts);
        // The backward GO TO loops entered and not yet left: where each ends, and the
        // frame (and narrowing) before it.
        let mut open: Vec<((usize, usize), Frame, bool)> = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            if s.label.is_some_and(|l| self.targets.contains(&l)) && narrowed {
                // Reached by GO TO from elsewhere: as often as the block runs, at most.
                let mut f = base.clone();
                f.assumptions.push(Assumption::JumpTarget { at: s.span });
                frame = self.fresh(f);
                narrowed = false;
            }
            for &(start, end) in regions.iter().filter(|r| r.0 == i) {
                open.push(((start, end), frame.clone(), narrowed));
                frame = self.repeated(&frame, &stmts[start..=end], s);
                narrowed = false;
            }
            frame.names = self.with_function_values(s, &frame.names);
            let here = self.count(&frame);
            self.set(s.id, here);
            if matches!(s.kind, StmtKind::Assign { .. } | StmtKind::Call(_))
                && let Some(slot) = self.scopes.get_mut(s.id.0 as usize)
            {
                *slot = Some(frame.names.clone());
            }
            match &s.kind {
                StmtKind::Loop(l) => {
                    let inner = self.enter_loop(&frame, l, s);
                    let iterations = self.count(&inner);
                    self.set(s.id, iterations);
                    // Jumps in the body shorten iterations, which the body's own
                    // frames account for; the loop itself runs on.
                    let _ = self.block(&l.body, inner);
                    // Scalars assigned inside a loop have no single value after it,
                    // unless the loop runs as set-up code with known values.
                    frame.names = match self.executed(l, &frame.names) {
                        Some((names, _)) => names,
                        None => forget(
                            &self.scope(&frame),
                            &assigned_within(std::slice::from_ref(s)),
                            "changes at run time",
                        ),
                    };
                }
                StmtKind::If(i) => {
                    let p = self.probability(s);
                    // A branch that ends the program is taken not to run (unless a
                    // pragma says how likely it is).
                    let cold: Vec<bool> = i
                        .branches
                        .iter()
                        .map(|b| {
                            p.1 == Source::Default
                                && b.cond.is_some()
                                && self.ends_the_program(&b.body)
                        })
                        .collect();
                    let scope = self.scope(&frame);
                    let mut assumed_cold = false;
                    let mut conds: Vec<Option<Cond>> = i
                        .branches
                        .iter()
                        .zip(&cold)
                        .map(|(b, &cold)| {
                            b.cond.as_ref().map(|c| {
                                let likely = scope.cond(c, p.0);
                                // Only a data-dependent condition takes a probability.
                                if cold && likely.iter().any(|a| a.prob != Rational::ONE) {
                                    assumed_cold = true;
                                    scope.cond(c, Rational::ZERO)
                                } else {
                                    likely
                                }
                            })
                        })
                        .collect();
                    // Where a profile measured a data-dependent IF, each branch runs
                    // with its measured probability instead.
                    let likely = match self.measured_branches(s, &conds, assumed_cold) {
                        Some((q, run)) => {
                            conds = conds
                                .iter()
                                .zip(&q)
                                .map(|(c, q)| c.as_ref().map(|_| super::convert::data(*q)))
                                .collect();
                            Likely::Measured(q, run)
                        }
                        None => {
                            if assumed_cold {
                                frame.assumptions.push(Assumption::ColdPath { at: s.span });
                            }
                            Likely::Assumed(p.0, p.1)
                        }
                    };
                    let branches: Vec<(&[Stmt], Option<Cond>)> = i
                        .branches
                        .iter()
                        .zip(conds)
                        .map(|(b, c)| (b.body.as_slice(), c))
                        .collect();
                    let complete = i.branches.iter().any(|b| b.cond.is_none());
                    let conditions: Vec<&Expr> =
                        i.branches.iter().filter_map(|b| b.cond.as_ref()).collect();
                    let deciding = self.resting_on(&frame, &conditions);
                    let (after, ends) =
                        self.branches(s, &branches, &likely, false, complete, &deciding);
                    if let Some(after) = after {
                        frame = after;
                        narrowed = true;
                    }
                    frame = self.merge(s, frame, &ends);
                }
                StmtKind::Select(sel) => {
                    let p = self.probability(s);
                    let scope = self.scope(&frame);
                    let n = sel.cases.len().max(1) as i128;
                    let selector = scope.sym(&sel.selector);
                    // Cases are disjoint (a Fortran rule): each runs where its values match,
                    // CASE DEFAULT where none does, wherever it is written.
                    let branches: Vec<(&[Stmt], Option<Cond>)> = match selector {
                        Ok(selector) => {
                            let conds: Vec<Option<Cond>> = sel
                                .cases
                                .iter()
                                .map(|c| {
                                    c.values.as_ref().map(|values| {
                                        case_cond(&scope, &selector, values, p.0)
                                            .unwrap_or_else(|| uniform(n))
                                    })
                                })
                                .collect();
                            let any: Cond = conds.iter().flatten().flatten().cloned().collect();
                            let default = not(&any, p.0);
                            sel.cases
                                .iter()
                                .zip(conds)
                                .map(|(c, cond)| {
                                    (
                                        c.body.as_slice(),
                                        Some(cond.unwrap_or_else(|| default.clone())),
                                    )
                                })
                                .collect()
                        }
                        // A data-dependent selector: each case (the default too) equally likely.
                        Err(_) => {
                            let each = uniform(n);
                            sel.cases
                                .iter()
                                .map(|c| (c.body.as_slice(), Some(each.clone())))
                                .collect()
                        }
                    };
                    let complete = sel.cases.iter().any(|c| c.values.is_none());
                    let deciding = self.resting_on(&frame, &[&sel.selector]);
                    let conds: Vec<Option<Cond>> =
                        branches.iter().map(|(_, c)| c.clone()).collect();
                    // Measured cases chain as an IF's branches do, in written order.
                    let (branches, likely, exclusive) =
                        match self.measured_branches(s, &conds, false) {
                            Some((q, run)) => (
                                branches
                                    .iter()
                                    .zip(&q)
                                    .map(|((b, _), q)| (*b, Some(super::convert::data(*q))))
                                    .collect(),
                                Likely::Measured(q, run),
                                false,
                            ),
                            None => (branches, Likely::Assumed(p.0, p.1), true),
                        };
                    let (after, ends) =
                        self.branches(s, &branches, &likely, exclusive, complete, &deciding);
                    if let Some(after) = after {
                        frame = after;
                        narrowed = true;
                    }
                    frame = self.merge(s, frame, &ends);
                }
                StmtKind::Goto { .. }
                | StmtKind::Return
                | StmtKind::Stop
                | StmtKind::Exit { .. }
                | StmtKind::Cycle { .. } => {
                    // What follows runs only if a GO TO leads to it.
                    frame = self.narrowed(&frame, &Vec::new(), s);
                    narrowed = true;
                }
                StmtKind::Other { writes, .. } => {
                    frame.names = read_at_run_time(&self.scope(&frame), writes);
                }
                StmtKind::Call(_) => frame.names = self.after_call(s, &frame.names),
                StmtKind::Assign {
                    lhs: Expr::Array(a),
                    rhs,
                } => {
                    // An element of an integer array at constant subscripts keeps its
                    // value as a scalar does; any other element makes the array's
                    // elements unknown.
                    let scope = self.scope(&frame);
                    if let Some(key) = scope.element_key(a) {
                        let value = scope
                            .sym(rhs)
                            .map_err(|why| format!("`{key}`, computed from {why}"));
                        let assumed = scope.assumptions(rhs);
                        frame.names = frame.names.with_assumed(&key, value, assumed);
                    } else if scope.is_integer(&a.name) {
                        frame.names = frame
                            .names
                            .without_elements(&a.name, "an element set at run time");
                    }
                }
                StmtKind::Assign {
                    lhs: Expr::Name(n),
                    rhs,
                } => {
                    // Forward substitution: `jb = min(nb, n - j + 1)` makes a later
                    // `do i = j, j + jb - 1` count exactly.
                    let scope = self.scope(&frame);
                    let (value, assumed) = if self.scalar_integer(n) {
                        let value = scope
                            .sym(rhs)
                            .map_err(|why| format!("`{n}`, computed from {why}"));
                        (value, scope.assumptions(rhs))
                    } else {
                        (Err(format!("`{n}`, which is not an integer")), Vec::new())
                    };
                    frame.names = frame.names.with_assumed(n, value, assumed);
                }
                _ => {}
            }
            // Leaving a backward GO TO loop: it ends (its last jump not taken), with
            // the frame before it and the values it assigns unknown.
            while open.last().is_some_and(|o| o.0.1 == i) {
                let ((start, end), outer, was_narrowed) = open.pop().expect("an open loop");
                let names = forget(
                    &self.scope(&outer),
                    &assigned_within(&stmts[start..=end]),
                    "changes in the loop",
                );
                frame = Frame { names, ..outer };
                narrowed = was_narrowed;
            }
        }
        (narrowed.then_some(frame.cond), frame.names)
    }

    /// The frame of the statements a backward GO TO repeats (`region`, from the label
    /// `label` to the statement holding the GO TO): a loop whose trip count is not
    /// known, assumed (`!costline: trips N` at the label sets it).
    fn repeated(&mut self, frame: &Frame, region: &[Stmt], label: &Stmt) -> Frame {
        let mut f = frame.clone();
        let why = "a backward GO TO repeats the statements from here".to_string();
        let measured = self.measured.repeats.get(&label.id).copied();
        self.assume_trips(&mut f, label, label.span, why, measured);
        f.names = forget(
            &self.scope(&f),
            &assigned_within(region),
            "changes in the loop",
        );
        self.fresh(f)
    }

    /// The loop `l` entered with `names`, executed ([`Executor::run_loop`]) where its
    /// body sets integers (a loop that sets none leaves nothing to keep, and a
    /// DO WHILE's count is what is asked): the names after it and its iterations.
    fn executed(&self, l: &Loop, names: &Names) -> Option<(Names, u64)> {
        let counted = matches!(l.control, LoopControl::Counted { .. });
        let sets_integers = assigned_within(&l.body).iter().any(|w| match w {
            Written::Scalar(n) => self.scalar_integer(n),
            Written::Element(a, _) | Written::Array(a) => self.scope_of(names).is_integer(a),
        });
        if counted && !sets_integers {
            return None;
        }
        Executor::new(self.unit, self.functions, 0).run_loop(l, names)
    }

    /// `names` with the values of the user functions statement `s` itself calls with
    /// constant arguments ([`Executor::with_function_values`]); a call whose arguments
    /// are formulas (`ilog2(n2)`, `n2` a dummy) stands for a value of its own, which the
    /// bindings give ([`UnitFrequencies::functions`]).
    fn with_function_values(&mut self, s: &Stmt, names: &Names) -> Names {
        let exprs: Vec<&Expr> = match &s.kind {
            StmtKind::Assign { lhs, rhs } => vec![lhs, rhs],
            StmtKind::Loop(l) => l.control.exprs(),
            StmtKind::If(i) => i.branches.iter().filter_map(|b| b.cond.as_ref()).collect(),
            StmtKind::Select(sel) => vec![&sel.selector],
            StmtKind::Call(c) => c.args.iter().map(|a| &a.value).collect(),
            _ => return names.clone(),
        };
        let calls = function_calls(self.unit, &exprs);
        if calls.is_empty() {
            return names.clone();
        }
        let mut names =
            Executor::new(self.unit, self.functions, 0).with_function_values(&exprs, names);
        for c in calls {
            self.defer_function(c, &mut names);
        }
        names
    }

    /// Names the call `c` of a user function whose arguments are formulas.
    fn defer_function(&mut self, c: &Call, names: &mut Names) {
        if !self.functions.is_function(&c.name) {
            return;
        }
        let scope = self.scope_of(names);
        let Ok(args) = c
            .args
            .iter()
            .map(|a| scope.sym(&a.value))
            .collect::<Result<Vec<Sym>, _>>()
        else {
            return;
        };
        let key = names.call_key(&c.name, &args);
        if names.get(&key).is_none() {
            *names = names.with(&key, Ok(Sym::var(&key)));
            if !self.deferred.iter().any(|d| d.key == key) {
                self.deferred.push(super::FunctionCall {
                    key,
                    function: c.name.clone(),
                    args,
                });
            }
        }
    }

    fn scope_of<'n>(&'n self, names: &'n Names) -> Scope<'n> {
        Scope {
            unit: self.unit,
            names,
            integers: false,
        }
    }

    fn scalar_integer(&self, n: &str) -> bool {
        let sym = self.unit.symbols.get(n);
        if sym.is_some_and(|s| s.is_array()) {
            return false;
        }
        Scope {
            unit: self.unit,
            names: &Names::default(),
            integers: false,
        }
        .is_integer(n)
    }

    /// Whether a branch ends the program: its last statement is STOP, a call of
    /// MPI_ABORT, or a GO TO to where only the unit's end follows ([`end_labels`]).
    fn ends_the_program(&self, body: &[Stmt]) -> bool {
        match body.last().map(|s| &s.kind) {
            Some(StmtKind::Stop) => true,
            Some(StmtKind::Call(c)) => c.name.eq_ignore_ascii_case("mpi_abort"),
            Some(StmtKind::Goto {
                targets,
                selector: None,
            }) => targets.iter().all(|t| self.end_labels.contains(t)),
            _ => false,
        }
    }

    /// The probability for data-dependent conditions of statement `s`: its pragma or the
    /// default, and which.
    fn probability(&self, s: &Stmt) -> (Rational, Source) {
        match self.pragmas.get(&s.id) {
            Some(PragmaKind::Probability(p)) => (*p, Source::Pragma),
            _ => (self.options.default_probability, Source::Default),
        }
    }

    /// The measured probabilities of the branches of the IF or SELECT `s`, one per
    /// branch of `conds` (its conditions as the text gives them), and the run they come
    /// from: where a profile measured `s` and some condition is data-dependent, or
    /// rests on a value the run found to vary (between executions or MPI ranks: its
    /// mean would not say how often the branch runs), or its branch was `cold`
    /// (assumed not to run).
    fn measured_branches(
        &self,
        s: &Stmt,
        conds: &[Option<Cond>],
        cold: bool,
    ) -> Option<(Vec<Rational>, std::sync::Arc<str>)> {
        let q = self.measured.branches.get(&s.id)?;
        let data_dependent = conds.iter().flatten().any(|c| {
            c.iter().any(|a| {
                a.prob != Rational::ONE
                    || a.cons
                        .iter()
                        .any(|k| k.expr.vars().iter().any(|v| self.measured.varied(v)))
            })
        });
        (q.len() == conds.len() && (data_dependent || cold))
            .then(|| (q.clone(), self.measured.run.clone()))
    }

    /// Branches of an IF or SELECT: branch k runs where no earlier branch did and its
    /// condition holds (a branch without condition: where no earlier one did); with
    /// `exclusive` (the cases of a SELECT, disjoint by the language) each branch just
    /// where its condition holds. Returns the frame of the statements after the
    /// construct when a jump inside a branch narrowed it: where some branch (or, unless
    /// `complete`, no branch) ran to its end.
    fn branches(
        &mut self,
        s: &Stmt,
        branches: &[(&[Stmt], Option<Cond>)],
        likely: &Likely,
        exclusive: bool,
        complete: bool,
        frame: &Frame,
    ) -> (Option<Frame>, Vec<Names>) {
        let mut ends = Vec::new();
        let mut none_before = always();
        let mut any: Cond = Vec::new();
        let mut after: Cond = Vec::new();
        let mut jumped = false;
        let p = match likely {
            Likely::Assumed(p, _) => *p,
            Likely::Measured(..) => self.options.default_probability,
        };
        let probability = likely.assumption(s.span, 0);
        for (k, (body, cond)) in branches.iter().enumerate() {
            let this = match cond {
                Some(c) if exclusive => c.clone(),
                Some(c) => and(&none_before, c, p),
                None => none_before.clone(),
            };
            let mut inner = self.narrowed(frame, &this, s);
            // Probability 0 without a pragma is a cold path's, said as such; a
            // measured one is said wherever it applies.
            let estimated = |a: &Alt| {
                a.prob != Rational::ONE
                    && (!matches!(likely, Likely::Assumed(_, Source::Default))
                        || a.prob != Rational::ZERO)
            };
            if matches!(likely, Likely::Measured(..)) || this.iter().any(estimated) {
                inner.assumptions.push(likely.assumption(s.span, k));
            }
            let end = inner.cond.clone();
            let (fell_through, names) = self.block(body, inner);
            let reached = match fell_through {
                Some(fell_through) => {
                    jumped = true;
                    let reached = runs(&fell_through);
                    after.extend(fell_through);
                    reached
                }
                None => {
                    let reached = runs(&end);
                    after.extend(end);
                    reached
                }
            };
            if reached {
                ends.push(names);
            }
            if let Some(c) = cond {
                none_before = and(&none_before, &not(c, p), p);
                any.extend(c.iter().cloned());
            }
        }
        if !complete {
            // No branch ran: where no condition held.
            let none = if exclusive { not(&any, p) } else { none_before };
            let none = and(&frame.cond, &none, self.options.default_probability);
            if runs(&none) {
                ends.push(frame.names.clone());
            }
            if jumped {
                after.extend(none);
            }
        }
        if !jumped {
            return (None, ends);
        }
        let mut f = Frame {
            cond: coalesced(after),
            ..frame.clone()
        };
        if f.cond.iter().any(|a| a.prob != Rational::ONE) && !f.assumptions.contains(&probability) {
            f.assumptions.push(probability);
        }
        (Some(self.with_cond(f, s)), ends)
    }

    /// The frame after the IF or SELECT `s`, given the names at the end of each of its
    /// branches that control can leave at its end (`ends`, the no-branch path
    /// included). A variable its branches set keeps a value where every such branch
    /// gives it the same one. Where one value is known and every other branch reads the
    /// variable from input at run time (`niter = niter_default` when an input file
    /// cannot be opened, else `read (2, *) niter`), the known value is taken, with
    /// `Assumption::InputDefault`, which every count using the value carries.
    fn merge(&self, s: &Stmt, mut frame: Frame, ends: &[Names]) -> Frame {
        let written = assigned_within(std::slice::from_ref(s));
        let scope = self.scope(&frame);
        let arrays: Vec<Written> = written
            .iter()
            .filter(|w| matches!(w, Written::Array(_)))
            .cloned()
            .collect();
        let mut names = forget(&scope, &arrays, "changes at run time");
        let mut merged = Vec::new();
        let mut defaults = Vec::new();
        // An array written at subscripts with values (`nx(lt) = nx_default`) keeps
        // the elements a branch gave values, as an element written as such does.
        let mut keys: Vec<(String, &Written)> = Vec::new();
        for w in &written {
            match w {
                Written::Scalar(n) => keys.push((n.clone(), w)),
                Written::Element(a, subs) => keys.push((element_key(a, subs), w)),
                Written::Array(a) => {
                    let prefix = format!("{a}(");
                    for end in ends {
                        for (key, value) in end.entries() {
                            if value.is_ok()
                                && key.starts_with(&prefix)
                                && !keys.iter().any(|k| k.0 == key)
                            {
                                keys.push((key.to_string(), w));
                            }
                        }
                    }
                }
            }
        }
        for (key, w) in keys {
            // Each end's value, whether it was read from input, and whether the
            // program set it (rather than the unit being entered with it).
            let entry = |n: &Names| -> (Result<Sym, DataDependent>, bool, bool) {
                match (n.get(&key), w) {
                    (Some(v), _) => (v.clone(), n.is_input(&key), true),
                    // An element of an array read at run time.
                    (None, Written::Array(a)) => {
                        let why = format!("`{key}`, which changes at run time");
                        (Err(why), n.is_input(&array_key(a)), false)
                    }
                    (None, _) => (self.entry_value(w, n), false, false),
                }
            };
            let values: Vec<_> = ends.iter().map(entry).collect();
            let known: Vec<&Sym> = values
                .iter()
                .filter_map(|(v, _, _)| v.as_ref().ok())
                .collect();
            let agree = known.first().is_some_and(|k| known.iter().all(|o| o == k));
            let assumed: Vec<Assumption> = ends
                .iter()
                .flat_map(|n| n.assumed(&key).iter().cloned())
                .collect();
            if agree && known.len() == values.len() {
                merged.push((key, Ok(known[0].clone()), assumed));
            } else if agree
                && values
                    .iter()
                    .all(|(v, input, set)| (v.is_ok() && *set) || *input)
            {
                defaults.push(key.clone());
                merged.push((key, Ok(known[0].clone()), assumed));
            } else {
                let why = format!("`{key}`, which changes at run time");
                merged.push((key, Err(why), Vec::new()));
            }
        }
        let default = Assumption::InputDefault {
            at: s.span,
            names: defaults.clone(),
        };
        for (key, value, mut assumed) in merged {
            if defaults.contains(&key) {
                assumed.push(default.clone());
            }
            assumed.dedup();
            names = names.with_assumed(&key, value, assumed);
        }
        frame.names = names;
        frame
    }

    /// `frame` with the assumptions the values in `exprs` rest on (a new frame when
    /// there are any).
    fn resting_on(&mut self, frame: &Frame, exprs: &[&Expr]) -> Frame {
        let scope = self.scope(frame);
        let mut f = frame.clone();
        for e in exprs {
            add_assumptions(&mut f.assumptions, scope.assumptions(e));
        }
        if f.assumptions.len() == frame.assumptions.len() {
            return f;
        }
        self.fresh(f)
    }

    /// The value `w` had when the unit was entered: a variable of the caller's, or data
    /// (an element of an array whose elements `names` says enter as data).
    fn entry_value(&self, w: &Written, names: &Names) -> Result<Sym, DataDependent> {
        if let Written::Element(a, _) = w
            && let Some(Err(why)) = names.get(&array_key(a))
        {
            return Err(why.clone());
        }
        let empty = Names::default();
        let scope = Scope {
            unit: self.unit,
            names: &empty,
            integers: false,
        };
        match w {
            Written::Scalar(n) if self.scalar_integer(n) => scope.sym(&Expr::Name(n.clone())),
            Written::Element(a, subs) => {
                let common = self.unit.symbols.get(a).is_some_and(|s| s.common.is_some());
                let key = element_key(a, subs);
                if common && scope.is_integer(a) {
                    Ok(Sym::var(&key))
                } else {
                    Err(format!("`{key}`, set at run time"))
                }
            }
            _ => Err(format!("`{}`, which is not an integer", w.name())),
        }
    }

    /// The frame of a loop's body: its variable bounded by the loop's bounds (a step
    /// `s` substitutes `i = l + s·t` with `0 <= s·t <= u - l`), or, when the bounds are
    /// not known, an assumed trip count.
    fn enter_loop(&mut self, frame: &Frame, l: &Loop, s: &Stmt) -> Frame {
        let mut f = frame.clone();
        if exits_early(l) {
            f.assumptions.push(Assumption::EarlyExit { at: l.header });
        }
        let unknown = match &l.control {
            LoopControl::Counted {
                var,
                lower,
                upper,
                step,
            } => {
                let scope = self.scope(frame);
                let bounds = (|| -> Result<(Sym, Sym, Option<Sym>), DataDependent> {
                    let step = step.as_ref().map(|e| scope.sym(e)).transpose()?;
                    Ok((scope.sym(lower)?, scope.sym(upper)?, step))
                })();
                for e in l.control.exprs() {
                    add_assumptions(&mut f.assumptions, scope.assumptions(e));
                }
                match bounds {
                    Ok((lo, up, step)) => match self.counted(&mut f, var, lo, up, step) {
                        Ok(()) => None,
                        Err(why) => Some((Some(var.clone()), why)),
                    },
                    Err(why) => Some((Some(var.clone()), format!("its bounds depend on {why}"))),
                }
            }
            // A DO WHILE (or a DO with an EXIT) over values the loop computes from
            // known ones runs as often as executing it says.
            _ => match self.executed(l, &frame.names) {
                Some((_, trips)) => {
                    f.trips = f
                        .trips
                        .checked_mul(Rational::int(trips as i128))
                        .unwrap_or(f.trips);
                    let scope = self.scope(frame);
                    for e in l.control.exprs() {
                        add_assumptions(&mut f.assumptions, scope.assumptions(e));
                    }
                    None
                }
                None if matches!(l.control, LoopControl::While(_)) => {
                    Some((None, "it is a DO WHILE loop".into()))
                }
                None => Some((None, "it is a DO loop without control".into())),
            },
        };
        // Inside the loop, scalars its body assigns change from one iteration to the next.
        f.names = forget(
            &self.scope(&f),
            &assigned_within(&l.body),
            "changes in the loop",
        );
        if let Some((var, why)) = unknown {
            if let Some(v) = var {
                f.names = f
                    .names
                    .with(&v, Err("a loop variable with unknown bounds".into()));
            }
            let measured = self.measured.trips.get(&s.id).copied();
            self.assume_trips(&mut f, s, l.header, why, measured);
        }
        self.fresh(f)
    }

    /// Multiplies `f`'s count by a trip count the text does not give: the `measured`
    /// one, else `!costline: trips N` on statement `s`, else the default; said as an
    /// assumption at `at` (`why` the bounds are not known).
    fn assume_trips(
        &self,
        f: &mut Frame,
        s: &Stmt,
        at: Span,
        why: String,
        measured: Option<Rational>,
    ) {
        let (trips, source) = match (measured, self.pragmas.get(&s.id)) {
            (Some(t), _) => (
                t,
                Source::Measured {
                    run: self.measured.run.clone(),
                },
            ),
            (_, Some(PragmaKind::Trips(n))) => (Rational::int(*n as i128), Source::Pragma),
            _ => (
                Rational::int(self.options.default_trips as i128),
                Source::Default,
            ),
        };
        f.trips = f.trips.checked_mul(trips).unwrap_or(f.trips);
        f.assumptions.push(Assumption::Trips {
            at,
            trips,
            source,
            why,
        });
    }

    /// Adds a counted loop over `var` from `lo` to `up` by `step` to frame `f`.
    fn counted(
        &self,
        f: &mut Frame,
        var: &str,
        lo: Sym,
        up: Sym,
        step: Option<Sym>,
    ) -> Result<(), String> {
        let too_large = |_| "its bounds are too large to count with".to_string();
        // A fresh internal name if an enclosing loop already uses this one.
        let mut internal = var.to_string();
        while f.loops.iter().any(|(n, _)| **n == *internal) {
            internal.push('\'');
        }
        let v = Sym::var(&internal);
        let name: Name = internal.as_str().into();
        let p = self.options.default_probability;
        match step.as_ref().map(Sym::as_int) {
            None | Some(Some(1)) => {
                let cons = vec![
                    Constraint::ge(&v, &lo).map_err(too_large)?,
                    Constraint::le(&v, &up).map_err(too_large)?,
                ];
                f.loops.push((name, cons));
                f.names = f.names.with(var, Ok(v));
            }
            Some(Some(0)) => return Err("its step is zero".into()),
            Some(Some(k)) => {
                // i = lo + k·t, t >= 0, k·t <= up - lo (k > 0) or k·t >= up - lo (k < 0).
                let kt = v.scale(Rational::int(k)).map_err(too_large)?;
                let span = up.sub(&lo).map_err(too_large)?;
                let last = if k > 0 {
                    Constraint::le(&kt, &span)
                } else {
                    Constraint::ge(&kt, &span)
                }
                .map_err(too_large)?;
                let cons = vec![Constraint::ge(&v, &Sym::zero()).map_err(too_large)?, last];
                f.loops.push((name, cons));
                f.names = f.names.with(var, lo.add(&kt).map_err(too_large));
            }
            Some(None) => {
                // A symbolic step: its sign decides the direction.
                let s = step.expect("matched Some");
                let st = s.mul(&v).map_err(too_large)?;
                let span = up.sub(&lo).map_err(too_large)?;
                let positive = vec![
                    Constraint::ge(&s, &Sym::one()).map_err(too_large)?,
                    Constraint::le(&st, &span).map_err(too_large)?,
                ];
                let negative = vec![
                    Constraint::le(&s, &Sym::int(-1)).map_err(too_large)?,
                    Constraint::ge(&st, &span).map_err(too_large)?,
                ];
                let direction = vec![
                    Alt {
                        cons: positive,
                        prob: Rational::ONE,
                        degraded: false,
                    },
                    Alt {
                        cons: negative,
                        prob: Rational::ONE,
                        degraded: false,
                    },
                ];
                f.cond = and(&f.cond, &direction, p);
                f.loops.push((
                    name,
                    vec![Constraint::ge(&v, &Sym::zero()).map_err(too_large)?],
                ));
                f.names = f.names.with(var, lo.add(&st).map_err(too_large));
            }
        }
        Ok(())
    }
}

/// How likely the branches of an IF or SELECT are.
enum Likely {
    /// Every data-dependent condition holds with the same probability: the default or
    /// a pragma's.
    Assumed(Rational, Source),
    /// Each branch as measured ([`Measurement::Branches`]) in the run named.
    Measured(Vec<Rational>, std::sync::Arc<str>),
}

impl Likely {
    /// The assumption branch `k` of the statement at `at` rests on.
    fn assumption(&self, at: Span, k: usize) -> Assumption {
        match self {
            Likely::Assumed(p, source) => Assumption::Probability {
                at,
                p: *p,
                source: source.clone(),
            },
            Likely::Measured(q, run) => Assumption::Probability {
                at,
                p: q.get(k).copied().unwrap_or(Rational::ONE),
                source: Source::Measured { run: run.clone() },
            },
        }
    }
}

/// Each of `n` cases equally likely (a data-dependent selector).
fn uniform(n: i128) -> Cond {
    super::convert::data(Rational::new(1, n).unwrap_or(Rational::ONE))
}

/// The condition of a CASE: the selector equals one of the values or lies in a range.
fn case_cond(scope: &Scope, selector: &Sym, values: &[CaseValue], p: Rational) -> Option<Cond> {
    let mut any: Cond = Vec::new();
    for v in values {
        let this: Cond = match v {
            CaseValue::Value(e) => {
                let e = scope.sym(e).ok()?;
                vec![Alt {
                    cons: vec![Constraint::eq(selector, &e).ok()?],
                    prob: Rational::ONE,
                    degraded: false,
                }]
            }
            CaseValue::Range(lo, hi) => {
                let mut cons = Vec::new();
                if let Some(lo) = lo {
                    cons.push(Constraint::ge(selector, &scope.sym(lo).ok()?).ok()?);
                }
                if let Some(hi) = hi {
                    cons.push(Constraint::le(selector, &scope.sym(hi).ok()?).ok()?);
                }
                vec![Alt {
                    cons,
                    prob: Rational::ONE,
                    degraded: false,
                }]
            }
        };
        // any ∨ this, disjointly.
        let rest = and(&not(&any, p), &this, p);
        any.extend(rest);
    }
    Some(any)
}

/// Whether a loop can be left before its last iteration: EXIT of this loop, RETURN,
/// STOP, or a GO TO to a label outside the loop.
fn exits_early(l: &Loop) -> bool {
    let mut labels = HashSet::new();
    walk(&l.body, &mut |s, _| {
        if let Some(label) = s.label {
            labels.insert(label);
        }
    });
    let mut early = false;
    fn visit(stmts: &[Stmt], this: &Loop, labels: &HashSet<u32>, nested: bool, early: &mut bool) {
        for s in stmts {
            match &s.kind {
                StmtKind::Exit { construct } => {
                    let ours = match construct {
                        Some(c) => this.construct.as_deref() == Some(c.as_str()),
                        None => !nested,
                    };
                    *early |= ours;
                }
                StmtKind::Return | StmtKind::Stop => *early = true,
                StmtKind::Goto { targets, .. } | StmtKind::ArithmeticIf { targets, .. } => {
                    *early |= targets.iter().any(|t| !labels.contains(t));
                }
                _ => {}
            }
            let inner_nested = nested || matches!(s.kind, StmtKind::Loop(_));
            for c in s.children() {
                visit(std::slice::from_ref(c), this, labels, inner_nested, early);
            }
        }
    }
    visit(&l.body, l, &labels, false, &mut early);
    early
}

/// The loops backward GO TOs make among `stmts`: (index of the labelled statement,
/// index of the statement holding a GO TO to it), outermost first; loops that overlap
/// without nesting are merged into one.
fn backward_regions(stmts: &[Stmt]) -> Vec<(usize, usize)> {
    let mut regions: Vec<(usize, usize)> = Vec::new();
    for (i, s) in stmts.iter().enumerate() {
        let mut targets = Vec::new();
        walk(std::slice::from_ref(s), &mut |x, _| {
            if let StmtKind::Goto { targets: t, .. } | StmtKind::ArithmeticIf { targets: t, .. } =
                &x.kind
            {
                targets.extend(t.iter().copied());
            }
        });
        for t in targets {
            if let Some(j) = stmts[..=i].iter().position(|x| x.label == Some(t)) {
                regions.push((j, i));
            }
        }
    }
    regions.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (start, end) in regions {
        match out.iter_mut().find(|o| o.0 <= start && start <= o.1) {
            // Nested in an earlier loop, or the same start: kept if it nests.
            Some(o) if end <= o.1 => {
                if (start, end) != *o && !(start == o.0 && end < o.1) {
                    out.push((start, end));
                }
            }
            // Overlapping without nesting: one loop.
            Some(o) => o.1 = end,
            None => out.push((start, end)),
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    out.dedup();
    out
}

/// Whether control can get where `cond` holds: some alternative with a probability.
fn runs(cond: &Cond) -> bool {
    cond.iter().any(|a| a.prob != Rational::ZERO)
}

/// The variables assigned (or used as loop variables) within `stmts`, at any depth: an
/// array element at literal subscripts as an element, at others as its whole array.
fn assigned_within(stmts: &[Stmt]) -> Vec<Written> {
    let mut out: Vec<Written> = Vec::new();
    let mut add = |w: Written| {
        if !out.contains(&w) {
            out.push(w);
        }
    };
    walk(stmts, &mut |s, _| match &s.kind {
        StmtKind::Assign {
            lhs: Expr::Name(n), ..
        } => add(Written::Scalar(n.clone())),
        StmtKind::Assign {
            lhs: Expr::Array(a),
            ..
        } => add(match a.literal_subscripts() {
            Some(subs) => Written::Element(a.name.clone(), subs),
            None => Written::Array(a.name.clone()),
        }),
        StmtKind::Loop(l) => {
            if let Some(v) = l.var() {
                add(Written::Scalar(v.to_string()));
            }
        }
        StmtKind::Other { writes, .. } => writes.iter().cloned().for_each(&mut add),
        _ => {}
    });
    out
}

/// The names of `scope` with each of `written` changed in ways not followed (`how`:
/// "changes in the loop").
fn forget(scope: &Scope, written: &[Written], how: &str) -> Names {
    without_values(scope, written, false, &|name| {
        format!("`{name}`, which {how}")
    })
}

/// The names of `scope` after an I/O statement set `writes` from input at run time.
pub(super) fn read_at_run_time(scope: &Scope, writes: &[Written]) -> Names {
    without_values(scope, writes, true, &|name| {
        format!("`{name}`, read at run time")
    })
}

/// The names of `scope` with each of `written` without a value (`why` says why, given
/// the name or element), marked as read from input where `input`.
fn without_values(
    scope: &Scope,
    written: &[Written],
    input: bool,
    why: &dyn Fn(&str) -> String,
) -> Names {
    let mut names = scope.names.clone();
    let set = |names: &Names, key: &str| {
        if input {
            names.with_input(key, why(key))
        } else {
            names.with(key, Err(why(key)))
        }
    };
    for w in written {
        match w {
            Written::Scalar(n) => names = set(&names, n),
            Written::Element(a, subs) => names = set(&names, &element_key(a, subs)),
            Written::Array(a) if scope.is_integer(a) => {
                let why = why(&format!("an element of `{a}`"));
                names = names.without_elements(a, &why);
                if input {
                    names = names.with_input(&array_key(a), why);
                }
            }
            Written::Array(_) => {}
        }
    }
    names
}

/// The labels of the unit's top-level statements after which only CONTINUE, I/O and
/// other opaque statements, STOP and RETURN follow to its end.
fn end_labels(body: &[Stmt]) -> HashSet<u32> {
    let mut labels = HashSet::new();
    for s in body.iter().rev() {
        if !matches!(
            s.kind,
            StmtKind::Continue | StmtKind::Other { .. } | StmtKind::Stop | StmtKind::Return
        ) {
            break;
        }
        labels.extend(s.label);
    }
    labels
}
