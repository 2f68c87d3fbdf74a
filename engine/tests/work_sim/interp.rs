//! A direct interpreter of a lowered unit (after normalization, so FORALL, WHERE and
//! array syntax are loop nests over elemental assignments) that counts, for every
//! assignment, how often it runs and how often each processor runs it.

use super::control;
use super::eval;
use super::mapping::Mapping;
use costline_engine::ir::{Expr, Loop, Stmt, StmtId, StmtKind, Subscript, Unit, pretty};
use std::collections::BTreeMap;

/// What one assignment did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    /// How often it ran in the sequential program: freq(S).
    pub freq: u64,
    /// How often processor p ran it, at index p - 1: work(S, p).
    pub work: Vec<u64>,
}

/// The state of one run of a unit.
pub struct Interp<'a> {
    unit: &'a Unit,
    /// The mapping in force (REDISTRIBUTE and REALIGN change it as they run).
    mapping: Mapping,
    /// The values of integer names: constants, bindings, loop variables and integer
    /// scalars assigned a known value.
    vars: BTreeMap<String, i64>,
    counts: BTreeMap<StmtId, Counts>,
}

impl<'a> Interp<'a> {
    /// An interpreter over `unit` starting from `constants`, with every assignment of
    /// the unit counted (so assignments that never run count zero).
    pub fn new(
        unit: &'a Unit,
        mapping: &'a Mapping,
        constants: &BTreeMap<String, i64>,
    ) -> Interp<'a> {
        let mut counts = BTreeMap::new();
        unit.walk(&mut |s, _| {
            if let StmtKind::Assign { .. } = s.kind {
                counts.insert(
                    s.id,
                    Counts {
                        freq: 0,
                        work: vec![0; mapping.processors],
                    },
                );
            }
        });
        Interp {
            unit,
            mapping: mapping.clone(),
            vars: constants.clone(),
            counts,
        }
    }

    /// Runs the unit's body once and returns the counts by statement.
    pub fn run(mut self) -> Result<BTreeMap<StmtId, Counts>, String> {
        self.block(&self.unit.body)?;
        Ok(self.counts)
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<(), String> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    /// Fortran 95 semantics of the statements the simulator models: assignments,
    /// DO with a counted control, IF and SELECT CASE on known integers, CONTINUE.
    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        let vars = &self.vars;
        let env = |n: &str| vars.get(n).copied();
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => self.assign(s.id, lhs, rhs),
            StmtKind::Loop(l) => self.do_loop(l),
            StmtKind::If(i) => match control::branch(i, &env)? {
                Some(body) => self.block(body),
                None => Ok(()),
            },
            StmtKind::Select(sel) => match control::case(sel, &env)? {
                Some(body) => self.block(body),
                None => Ok(()),
            },
            StmtKind::Continue => Ok(()),
            StmtKind::Remap { directive } => {
                let d = &self.unit.directives[*directive];
                self.mapping.remap(&d.kind, &env)
            }
            _ => Err(format!(
                "not simulated: {}",
                pretty::render(std::slice::from_ref(s)).trim()
            )),
        }
    }

    /// `DO var = l, u, s` (Fortran 95 section 8.1.4.4.1): the bounds and step are
    /// evaluated once, the trip count is max(0, (u - l + s)/s) with `/` truncating, and
    /// the variable takes l, l + s, ...; after the loop it holds l + trips*s.
    fn do_loop(&mut self, l: &Loop) -> Result<(), String> {
        let vars = &self.vars;
        let t = control::trips(l, &|n: &str| vars.get(n).copied())?;
        for k in 0..t.trips {
            self.vars.insert(t.var.to_string(), t.first + k * t.step);
            self.block(&l.body)?;
        }
        self.vars
            .insert(t.var.to_string(), t.first + t.trips * t.step);
        Ok(())
    }

    /// Owner computes: an assignment to an element of a mapped array runs on the
    /// processors owning that element; an assignment to a scalar or to an array
    /// without a mapping runs on every processor. An integer scalar assigned a known
    /// value keeps it for later subscripts and conditions.
    fn assign(&mut self, id: StmtId, lhs: &Expr, rhs: &Expr) -> Result<(), String> {
        let vars = &self.vars;
        let env = |n: &str| vars.get(n).copied();
        let owners = match lhs {
            Expr::Name(n) if !self.unit.symbols.get(n).is_some_and(|s| s.is_array()) => {
                let known = control::integer_value(self.unit, n, rhs, &env);
                match known {
                    Some(v) => self.vars.insert(n.clone(), v),
                    None => self.vars.remove(n),
                };
                (0..self.mapping.processors).collect()
            }
            Expr::Array(r) => {
                let index = r
                    .subscripts
                    .iter()
                    .map(|s| match s {
                        Subscript::Index(e) => eval::int(e, &env),
                        Subscript::Range(_) => {
                            Err(format!("`{lhs}`: a section left after normalization"))
                        }
                    })
                    .collect::<Result<Vec<i64>, String>>()?;
                self.mapping.owners(&r.name, &index, &env)?
            }
            _ => return Err(format!("not simulated: assignment to `{lhs}`")),
        };
        let counts = self
            .counts
            .get_mut(&id)
            .expect("every assignment is counted");
        counts.freq += 1;
        for p in owners {
            counts.work[p] += 1;
        }
        Ok(())
    }
}
