//! The walk over a unit's statements: each block is counted once, in the context of
//! its enclosing loops and conditions.

use super::convert::{Alt, Cond, DataDependent, Names, Scope, always, and, not};
use super::{Assumption, Count, CountTerm, FreqOptions, UnitFrequencies};
use costline_symbolic::{Budget, Constraint, Name, Rational, Sym, symbolic_sum};
use costline_syntax::ir::PragmaKind;
use costline_syntax::ir::{CaseValue, Expr, Loop, LoopControl, Stmt, StmtId, StmtKind, Unit, walk};
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
    pragmas: HashMap<StmtId, PragmaKind>,
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
}

impl<'a> Walker<'a> {
    pub fn new(unit: &'a Unit, options: &'a FreqOptions) -> Walker<'a> {
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
            pragmas: unit.pragmas.iter().cloned().collect(),
            targets,
            end_labels: end_labels(&unit.body),
            counts: vec![None; n],
            scopes: vec![None; n],
            cache: HashMap::new(),
            next_frame: 1,
            left: options.unit_max_steps,
        }
    }

    pub fn run(mut self) -> UnitFrequencies {
        let root = Frame {
            id: 0,
            loops: Vec::new(),
            names: Names::default(),
            cond: always(),
            trips: Rational::ONE,
            assumptions: Vec::new(),
        };
        let body = &self.unit.body;
        let _ = self.block(body, root);
        UnitFrequencies {
            counts: self
                .counts
                .into_iter()
                .map(Option::unwrap_or_default)
                .collect(),
            scopes: self.scopes,
        }
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
                let symbolic = symbolic_sum(constraints.clone(), &vars, Sym::one(), &mut budget);
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
        let count = Arc::new(Count {
            terms,
            assumptions: frame.assumptions.clone(),
        });
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
    /// narrowed it, or `None` when every run of the block reaches its end.
    fn block(&mut self, stmts: &[Stmt], frame: Frame) -> Option<Cond> {
        let base = frame.clone();
        let mut frame = frame;
        let mut narrowed = false;
        for s in stmts {
            if s.label.is_some_and(|l| self.targets.contains(&l)) && narrowed {
                // Reached by GO TO from elsewhere: as often as the block runs, at most.
                let mut f = base.clone();
                f.assumptions.push(Assumption::JumpTarget { at: s.span });
                frame = self.fresh(f);
                narrowed = false;
            }
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
                }
                StmtKind::If(i) => {
                    let p = self.probability(s);
                    // A branch that ends the program is taken not to run (unless a
                    // pragma says how likely it is).
                    let cold: Vec<bool> = i
                        .branches
                        .iter()
                        .map(|b| !p.1 && b.cond.is_some() && self.ends_the_program(&b.body))
                        .collect();
                    let scope = self.scope(&frame);
                    let mut assumed_cold = false;
                    let conds: Vec<Option<Cond>> = i
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
                    if assumed_cold {
                        frame.assumptions.push(Assumption::ColdPath { at: s.span });
                    }
                    let branches: Vec<(&[Stmt], Option<Cond>)> = i
                        .branches
                        .iter()
                        .zip(conds)
                        .map(|(b, c)| (b.body.as_slice(), c))
                        .collect();
                    let complete = i.branches.iter().any(|b| b.cond.is_none());
                    if let Some(after) = self.branches(s, &branches, p, false, complete, &frame) {
                        frame = after;
                        narrowed = true;
                    }
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
                    if let Some(after) = self.branches(s, &branches, p, true, complete, &frame) {
                        frame = after;
                        narrowed = true;
                    }
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
                    for n in writes {
                        let why = format!("`{n}`, set by an I/O statement at run time");
                        frame.names = frame.names.with(n, Err(why));
                    }
                }
                StmtKind::Assign {
                    lhs: Expr::Name(n),
                    rhs,
                } => {
                    // Forward substitution: `jb = min(nb, n - j + 1)` makes a later
                    // `do i = j, j + jb - 1` count exactly.
                    let value = if self.scalar_integer(n) {
                        self.scope(&frame)
                            .sym(rhs)
                            .map_err(|why| format!("`{n}`, computed from {why}"))
                    } else {
                        Err(format!("`{n}`, which is not an integer"))
                    };
                    frame.names = frame.names.with(n, value);
                }
                _ => {}
            }
            // Scalars assigned inside a loop or a branch have no single value after it.
            if matches!(
                s.kind,
                StmtKind::Loop(_) | StmtKind::If(_) | StmtKind::Select(_)
            ) {
                for n in assigned_within(std::slice::from_ref(s)) {
                    frame.names = frame
                        .names
                        .with(&n, Err(format!("`{n}`, which changes at run time")));
                }
            }
        }
        narrowed.then_some(frame.cond)
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
    /// default, and whether it came from a pragma.
    fn probability(&self, s: &Stmt) -> (Rational, bool) {
        match self.pragmas.get(&s.id) {
            Some(PragmaKind::Probability(p)) => (*p, true),
            _ => (self.options.default_probability, false),
        }
    }

    /// Branches of an IF or SELECT: branch k runs where no earlier branch did and its
    /// condition holds (a branch without condition: where no earlier one did); with
    /// `exclusive` (the cases of a SELECT, disjoint by the language) each branch just
    /// where its condition holds. Returns the frame of the statements after the
    /// construct when a jump inside a branch narrowed it: where some branch (or, unless
    /// `complete`, no branch) ran to its end.
    #[allow(clippy::too_many_arguments)]
    fn branches(
        &mut self,
        s: &Stmt,
        branches: &[(&[Stmt], Option<Cond>)],
        (p, from_pragma): (Rational, bool),
        exclusive: bool,
        complete: bool,
        frame: &Frame,
    ) -> Option<Frame> {
        let mut none_before = always();
        let mut any: Cond = Vec::new();
        let mut after: Cond = Vec::new();
        let mut jumped = false;
        let probability = Assumption::Probability {
            at: s.span,
            p,
            from_pragma,
        };
        for (body, cond) in branches {
            let this = match cond {
                Some(c) if exclusive => c.clone(),
                Some(c) => and(&none_before, c, p),
                None => none_before.clone(),
            };
            let mut inner = self.narrowed(frame, &this, s);
            // Probability 0 without a pragma is a cold path's, said as such.
            let estimated =
                |a: &Alt| a.prob != Rational::ONE && (from_pragma || a.prob != Rational::ZERO);
            if this.iter().any(estimated) {
                inner.assumptions.push(probability.clone());
            }
            let end = inner.cond.clone();
            match self.block(body, inner) {
                Some(fell_through) => {
                    jumped = true;
                    after.extend(fell_through);
                }
                None => after.extend(end),
            }
            if let Some(c) = cond {
                none_before = and(&none_before, &not(c, p), p);
                any.extend(c.iter().cloned());
            }
        }
        if !jumped {
            return None;
        }
        if !complete {
            // No branch ran: where no condition held.
            let none = if exclusive { not(&any, p) } else { none_before };
            after.extend(self.narrowed(frame, &none, s).cond);
        }
        let mut f = Frame {
            cond: after,
            ..frame.clone()
        };
        if f.cond.iter().any(|a| a.prob != Rational::ONE) && !f.assumptions.contains(&probability) {
            f.assumptions.push(probability);
        }
        Some(self.with_cond(f, s))
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
                match bounds {
                    Ok((lo, up, step)) => match self.counted(&mut f, var, lo, up, step) {
                        Ok(()) => None,
                        Err(why) => Some((Some(var.clone()), why)),
                    },
                    Err(why) => Some((Some(var.clone()), format!("its bounds depend on {why}"))),
                }
            }
            LoopControl::While(_) => Some((None, "it is a DO WHILE loop".into())),
            LoopControl::Forever => Some((None, "it is a DO loop without control".into())),
        };
        // Inside the loop, scalars its body assigns change from one iteration to the next.
        for n in assigned_within(&l.body) {
            f.names = f
                .names
                .with(&n, Err(format!("`{n}`, which changes in the loop")));
        }
        if let Some((var, why)) = unknown {
            let (trips, from_pragma) = match self.pragmas.get(&s.id) {
                Some(PragmaKind::Trips(n)) => (*n, true),
                _ => (self.options.default_trips, false),
            };
            f.trips = f
                .trips
                .checked_mul(Rational::int(trips as i128))
                .unwrap_or(f.trips);
            if let Some(v) = var {
                f.names = f
                    .names
                    .with(&v, Err("a loop variable with unknown bounds".into()));
            }
            f.assumptions.push(Assumption::Trips {
                at: l.header,
                trips,
                from_pragma,
                why,
            });
        }
        self.fresh(f)
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
            let children: Vec<Stmt> = s.children().cloned().collect();
            visit(&children, this, labels, inner_nested, early);
        }
    }
    visit(&l.body, l, &labels, false, &mut early);
    early
}

/// The scalars assigned (or used as loop variables) within `stmts`, at any depth.
fn assigned_within(stmts: &[Stmt]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    walk(stmts, &mut |s, _| {
        let name = match &s.kind {
            StmtKind::Assign {
                lhs: Expr::Name(n), ..
            } => Some(n.as_str()),
            StmtKind::Loop(l) => l.var(),
            StmtKind::Other { writes, .. } => {
                for n in writes {
                    if !out.contains(n) {
                        out.push(n.clone());
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(n) = name
            && !out.iter().any(|o| o == n)
        {
            out.push(n.to_string());
        }
    });
    out
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
