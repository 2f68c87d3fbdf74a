//! The walk over a unit's statements: each block is counted once, in the context of
//! its enclosing loops and conditions.

use super::convert::{Alt, Cond, DataDependent, Names, Scope, always, and, not};
use super::{Assumption, Count, CountTerm, FreqOptions, UnitFrequencies};
use crate::ir::{CaseValue, Expr, Loop, LoopControl, Stmt, StmtId, StmtKind, Unit, walk};
use crate::symbolic::{Budget, Constraint, Name, Rational, Sym, symbolic_sum};
use crate::syntax::pragma::PragmaKind;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

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
    counts: Vec<Option<Arc<Count>>>,
    /// What names mean at each assignment (for the work analysis).
    scopes: Vec<Option<Names>>,
    cache: HashMap<usize, Arc<Count>>,
    next_frame: usize,
    /// When the unit's symbolic work must end.
    deadline: Option<Instant>,
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
            counts: vec![None; n],
            scopes: vec![None; n],
            cache: HashMap::new(),
            next_frame: 1,
            deadline: options.unit_time_limit.map(|d| Instant::now() + d),
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
        self.block(body, root);
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

    fn narrowed(&mut self, frame: &Frame, cond: &Cond) -> Frame {
        let mut f = frame.clone();
        f.cond = and(&frame.cond, cond, self.options.default_probability);
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
                let now = Instant::now();
                let own = self.options.time_limit.map(|d| now + d);
                let deadline = match (own, self.deadline) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                // Past the unit's deadline, no symbolic work at all.
                let steps = if self.deadline.is_some_and(|d| now > d) {
                    0
                } else {
                    self.options.max_steps
                };
                let mut budget = Budget::new(self.options.max_pieces, steps, deadline);
                let symbolic = symbolic_sum(constraints.clone(), &vars, Sym::one(), &mut budget);
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

    fn block(&mut self, stmts: &[Stmt], frame: Frame) {
        let base = frame.clone();
        let mut frame = frame;
        for s in stmts {
            if s.label.is_some_and(|l| self.targets.contains(&l)) && frame.id != base.id {
                // Reached by GO TO from elsewhere: as often as the block runs, at most.
                let mut f = base.clone();
                f.assumptions.push(Assumption::JumpTarget { at: s.span });
                frame = self.fresh(f);
            }
            let here = self.count(&frame);
            self.set(s.id, here);
            if matches!(s.kind, StmtKind::Assign { .. })
                && let Some(slot) = self.scopes.get_mut(s.id.0 as usize)
            {
                *slot = Some(frame.names.clone());
            }
            match &s.kind {
                StmtKind::Loop(l) => {
                    let inner = self.enter_loop(&frame, l, s);
                    let iterations = self.count(&inner);
                    self.set(s.id, iterations);
                    self.block(&l.body, inner);
                }
                StmtKind::If(i) => {
                    let p = self.probability(s);
                    let scope = self.scope(&frame);
                    let conds: Vec<Option<Cond>> = i
                        .branches
                        .iter()
                        .map(|b| b.cond.as_ref().map(|c| scope.cond(c, p.0)))
                        .collect();
                    let branches: Vec<(&[Stmt], Option<Cond>)> = i
                        .branches
                        .iter()
                        .zip(conds)
                        .map(|(b, c)| (b.body.as_slice(), c))
                        .collect();
                    self.branches(s, &branches, p, false, &mut frame);
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
                    self.branches(s, &branches, p, true, &mut frame);
                }
                StmtKind::Goto { .. }
                | StmtKind::Return
                | StmtKind::Stop
                | StmtKind::Exit { .. }
                | StmtKind::Cycle { .. } => {
                    // What follows runs only if a GO TO leads to it.
                    frame = self.narrowed(&frame, &Vec::new());
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
    /// `exclusive` (the cases of a data-dependent selector) each branch just where its
    /// condition holds. After a branch that jumps away (CYCLE, EXIT, RETURN, STOP, GO
    /// TO), the rest of the block runs only where that branch did not.
    fn branches(
        &mut self,
        s: &Stmt,
        branches: &[(&[Stmt], Option<Cond>)],
        (p, from_pragma): (Rational, bool),
        exclusive: bool,
        frame: &mut Frame,
    ) {
        let mut none_before = always();
        let mut after = always();
        let mut jumped = false;
        for (body, cond) in branches {
            let this = match cond {
                Some(c) if exclusive => c.clone(),
                Some(c) => and(&none_before, c, p),
                None => none_before.clone(),
            };
            let mut inner = self.narrowed(frame, &this);
            if this.iter().any(|a: &Alt| a.prob != Rational::ONE) {
                inner.assumptions.push(Assumption::Probability {
                    at: s.span,
                    p,
                    from_pragma,
                });
            }
            if ends_in_jump(body) {
                after = and(&after, &not(&this, p), p);
                jumped = true;
            }
            self.block(body, inner);
            if let Some(c) = cond {
                none_before = and(&none_before, &not(c, p), p);
            }
        }
        if jumped {
            let mut f = self.narrowed(frame, &after);
            if after.iter().any(|a| a.prob != Rational::ONE) {
                f.assumptions.push(Assumption::Probability {
                    at: s.span,
                    p,
                    from_pragma,
                });
            }
            *frame = f;
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
                    },
                    Alt {
                        cons: negative,
                        prob: Rational::ONE,
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
                }]
            }
        };
        // any ∨ this, disjointly.
        let rest = and(&not(&any, p), &this, p);
        any.extend(rest);
    }
    Some(any)
}

/// Whether a branch body ends the enclosing block's execution (its last statement at
/// top level jumps away).
fn ends_in_jump(body: &[Stmt]) -> bool {
    body.iter().any(|s| {
        matches!(
            s.kind,
            StmtKind::Cycle { .. }
                | StmtKind::Exit { .. }
                | StmtKind::Return
                | StmtKind::Stop
                | StmtKind::Goto { .. }
        )
    })
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
