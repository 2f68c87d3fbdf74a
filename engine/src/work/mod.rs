//! Work distribution (P^3T+ section 4.1, Definitions 4.1–4.3): how often each processor
//! executes each assignment under HPF's owner-computes rule, and how evenly.
//!
//! work(S, p): the iterations of S's context (its count's constraint sets) in which p
//! owns the left-hand-side element — the count's constraints plus the ownership
//! constraints of p ([`crate::distribution::Mapping::ownership`]), summed symbolically
//! with p's grid coordinates as parameters. An assignment to a scalar or to a replicated
//! array runs on every processor. A subscript the model cannot follow (an indirection,
//! a non-affine expression) is reported and its work assumed evenly spread.
//!
//! owork(S) = Σ_p work(S,p) / |P| (Def. 4.1); wd(S) = σ(work(S,·)) / owork(S) (Def.
//! 4.2, 0 when owork = 0); wd(E) = Σ_S freq(S)·wd(S) / Σ_S freq(S) over the array
//! assignments and calls of a loop, procedure or program (Def. 4.3; a call's wd is its
//! callee's).

pub mod imbalance;

use crate::distribution::{Arrangement, Mapping, UnitMappings};
use crate::freq::convert::Scope;
use crate::freq::{Count, CountTerm, FreqOptions, UnitFrequencies};
use crate::ir::{Expr, StmtId, StmtKind, Subscript, Unit};
use crate::symbolic::{Budget, Env, Name, Num, Sym, symbolic_sum};
use std::collections::HashMap;
use std::time::Instant;

/// Processors beyond this many get no per-processor vector (the formula still holds).
pub const MAX_PROCESSORS: i128 = 65_536;

/// How an assignment's work is spread.
#[derive(Clone, Debug)]
pub enum Spread {
    /// Owner computes: processor p executes the iterations in which it owns the element.
    Owned {
        array: String,
        mapping: Mapping,
        work: Count,
    },
    /// A scalar or replicated left-hand side: every processor executes every iteration.
    Replicated,
    /// The owner cannot be followed (why): assumed evenly spread.
    Irregular {
        array: String,
        mapping: Mapping,
        why: String,
    },
}

/// The work of one assignment, in the program's unknowns.
#[derive(Clone, Debug)]
pub struct StmtWork {
    pub spread: Spread,
    /// The arrangement the work is spread over (`None` for replicated work outside any).
    pub arrangement: Option<Arrangement>,
}

/// work(S, p) for p = 1..|P| under the bindings.
#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    per_processor: Vec<f64>,
}

impl Load {
    /// work(S, p) for p = 1..|P|.
    pub fn per_processor(&self) -> &[f64] {
        &self.per_processor
    }

    /// Σ_p work(S, p).
    pub fn total(&self) -> f64 {
        self.per_processor.iter().sum()
    }

    /// owork(S) = Σ_p work(S, p) / |P| (Definition 4.1).
    pub fn owork(&self) -> f64 {
        self.total() / self.per_processor.len().max(1) as f64
    }

    /// wd(S), Definition 4.2: the standard deviation of the per-processor work divided
    /// by its mean (0 when the mean is 0).
    pub fn wd(&self) -> f64 {
        variation(&self.per_processor)
    }

    /// (most loaded, least loaded) processors, 1-based, first of equals.
    pub fn extremes(&self) -> Option<(usize, usize)> {
        let w = &self.per_processor;
        let max = (0..w.len()).max_by(|&a, &b| w[a].total_cmp(&w[b]).then(b.cmp(&a)))?;
        let min = (0..w.len()).min_by(|&a, &b| w[a].total_cmp(&w[b]).then(a.cmp(&b)))?;
        Some((max + 1, min + 1))
    }
}

/// σ/μ of `w` (0 for an empty or all-zero vector).
pub fn variation(w: &[f64]) -> f64 {
    if w.is_empty() {
        return 0.0;
    }
    let n = w.len() as f64;
    let mean = w.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return 0.0;
    }
    let var = w.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    var.sqrt() / mean
}

/// The work of every assignment of a unit.
#[derive(Clone, Debug, Default)]
pub struct UnitWork {
    stmts: HashMap<StmtId, StmtWork>,
    /// The arrangement of the unit's distributions, or the first it declares, if any.
    pub arrangement: Option<Arrangement>,
}

impl UnitWork {
    pub fn of(&self, id: StmtId) -> Option<&StmtWork> {
        self.stmts.get(&id)
    }
}

/// The work of every assignment of `unit`, as formulas in its unknowns and in the grid
/// coordinates of a processor.
pub fn unit_work(
    unit: &Unit,
    freqs: &UnitFrequencies,
    maps: &UnitMappings,
    options: &FreqOptions,
) -> UnitWork {
    // Replicated work runs on the arrangement of the unit's distributions, or the first
    // it declares.
    let arrangement = maps
        .arrays
        .values()
        .map(|m| &m.distribution.onto)
        .min_by_key(|a| a.name.clone())
        .or(maps.arrangements.first())
        .cloned();
    let mut stmts = HashMap::new();
    let deadline = options.unit_time_limit.map(|d| Instant::now() + d);
    unit.walk(&mut |s, _| {
        let StmtKind::Assign { lhs, .. } = &s.kind else {
            return;
        };
        let Some(count) = freqs.of(s.id) else { return };
        let spread = spread(unit, freqs, maps, s.id, lhs, count, options, deadline);
        let onto = match &spread {
            Spread::Owned { mapping, .. } | Spread::Irregular { mapping, .. } => {
                Some(mapping.distribution.onto.clone())
            }
            Spread::Replicated => arrangement.clone(),
        };
        stmts.insert(
            s.id,
            StmtWork {
                spread,
                arrangement: onto,
            },
        );
    });
    UnitWork { stmts, arrangement }
}

#[allow(clippy::too_many_arguments)]
fn spread(
    unit: &Unit,
    freqs: &UnitFrequencies,
    maps: &UnitMappings,
    id: StmtId,
    lhs: &Expr,
    count: &Count,
    options: &FreqOptions,
    deadline: Option<Instant>,
) -> Spread {
    let Expr::Array(r) = lhs else {
        return Spread::Replicated;
    };
    let Some(mapping) = maps.arrays.get(&r.name) else {
        return Spread::Replicated;
    };
    let irregular = |why: String| Spread::Irregular {
        array: r.name.clone(),
        mapping: mapping.clone(),
        why,
    };
    let Some(names) = freqs.scope_of(id) else {
        return irregular("its context is unknown".into());
    };
    let scope = Scope {
        unit,
        names,
        integers: false,
    };
    let mut subscripts = Vec::with_capacity(r.subscripts.len());
    for s in &r.subscripts {
        match s {
            Subscript::Index(e) => match scope.sym(e) {
                Ok(v) => subscripts.push(v),
                Err(why) => return irregular(format!("its subscript `{e}` depends on {why}")),
            },
            Subscript::Range(_) => return irregular("it assigns a section".into()),
        }
    }
    let own = match mapping.ownership(&subscripts) {
        Ok(o) => o,
        Err(_) => return irregular("its subscripts are too large to count with".into()),
    };
    // work(S, p): the count's constraints and p's ownership; the cycle numbers of cyclic
    // dimensions are summed over last.
    let terms = count
        .terms
        .iter()
        .map(|t| {
            let mut constraints = t.constraints.clone();
            constraints.extend(own.constraints.iter().cloned());
            let mut vars: Vec<Name> = t.vars.clone();
            vars.extend(own.aux.iter().cloned());
            let now = Instant::now();
            let steps = if deadline.is_some_and(|d| now > d) {
                0
            } else {
                options.max_steps
            };
            let limit = options.time_limit.map(|d| now + d);
            let mut budget = Budget::new(options.max_pieces, steps, limit);
            let symbolic = symbolic_sum(constraints.clone(), &vars, Sym::one(), &mut budget);
            CountTerm {
                weight: t.weight,
                constraints,
                vars,
                symbolic,
            }
        })
        .collect();
    Spread::Owned {
        array: r.name.clone(),
        mapping: mapping.clone(),
        work: Count {
            terms,
            assumptions: count.assumptions.clone(),
        },
    }
}

/// work(S, p) for every processor of the statement's arrangement under `env`, when |P|
/// and the counts have values; `freq` is freq(S) under `env`.
pub fn load(stmt: &StmtWork, freq: Option<f64>, env: Env, options: &FreqOptions) -> Option<Load> {
    let onto = stmt.arrangement.as_ref()?;
    let extents: Vec<i128> = onto
        .extents
        .iter()
        .map(|e| match e.eval(env).ok()? {
            Num::Exact(r) => r.as_integer().filter(|v| *v >= 1),
            Num::Approx(_) => None,
        })
        .collect::<Option<_>>()?;
    let size = extents.iter().try_fold(1i128, |a, e| a.checked_mul(*e))?;
    if size > MAX_PROCESSORS {
        return None;
    }
    let per_processor = match &stmt.spread {
        Spread::Replicated => vec![freq?; size as usize],
        Spread::Irregular { .. } => vec![freq? / size as f64; size as usize],
        Spread::Owned { work, .. } => {
            let names: Vec<Name> = (0..extents.len()).map(|k| onto.coordinate(k)).collect();
            let mut out = Vec::with_capacity(size as usize);
            for p in 1..=size {
                let coords = Arrangement::coordinates(&extents, p);
                let env_p = |n: &str| {
                    names
                        .iter()
                        .position(|c| &**c == n)
                        .map(|k| coords[k] + 1)
                        .or_else(|| env(n))
                };
                out.push(work.eval(&env_p, options).ok()?.to_f64());
            }
            out
        }
    };
    Some(Load { per_processor })
}

/// wd(E) of a set of statements (Definition 4.3): their wd weighted by frequency.
/// `items` are (freq, wd) of the array assignments and calls in E.
pub fn weighted_wd(items: &[(f64, f64)]) -> Option<f64> {
    let total: f64 = items.iter().map(|(f, _)| f).sum();
    if items.is_empty() {
        return None;
    }
    if total == 0.0 {
        return Some(0.0);
    }
    Some(items.iter().map(|(f, w)| f * w).sum::<f64>() / total)
}

#[cfg(test)]
mod tests;
