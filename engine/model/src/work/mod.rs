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

mod formula;
mod home;
pub mod imbalance;
mod load;
mod values;

pub use formula::{UnitFormulas, formula, unit_formulas};
pub use load::{Load, MAX_PROCESSORS, load};
pub use values::{UnitValues, stmt_load};

use crate::distribution::{Arrangement, Mapping, Ownership, UnitMappings};
use crate::freq::convert::Scope;
use crate::freq::{Count, UnitFrequencies};
use costline_symbolic::{Constraint, Name, Rational, Sym};
use costline_syntax::ir::{Expr, StmtId, StmtKind, Subscript, Unit};
use std::collections::HashMap;

/// How an assignment's work is spread.
#[derive(Clone, Debug)]
pub enum Spread {
    /// Owner computes: processor p executes the iterations in which it owns the element:
    /// work(S, p) is the number of integer points of `terms` (summed, weighted).
    Owned {
        array: String,
        mapping: Mapping,
        terms: Vec<OwnedTerm>,
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

/// One alternative of work(S, p): `weight ×` the integer points of `constraints` over
/// `vars` — a term of freq(S) with the ownership constraints of processor p, whose grid
/// coordinates (and the unknowns) are its parameters.
#[derive(Clone, Debug)]
pub struct OwnedTerm {
    pub weight: Rational,
    pub constraints: Vec<Constraint>,
    /// The count's loop variables, then the cycle numbers of cyclic dimensions.
    pub vars: Vec<Name>,
}

/// The work of one assignment, in the program's unknowns.
#[derive(Clone, Debug)]
pub struct StmtWork {
    pub spread: Spread,
    /// The arrangement the work is spread over (`None` for replicated work outside any).
    pub arrangement: Option<Arrangement>,
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

/// How the work of every assignment of `unit` is spread: for owner-computed ones, the
/// iteration sets of work(S, p) (summed by [`formula`] or evaluated by [`load`]).
pub fn unit_work(unit: &Unit, freqs: &UnitFrequencies, maps: &UnitMappings) -> UnitWork {
    // Replicated work runs on the arrangement of the unit's distributions, or the first
    // it declares.
    let arrangement = maps
        .arrays
        .values()
        .map(|m| &m.distribution.onto)
        // One that distributes something (`DISTRIBUTE (*)` spreads nothing), then by
        // name, then by shape: default arrangements of different ranks share a name,
        // and the map's order must not decide.
        .min_by_key(|a| {
            (
                a.extents.is_empty(),
                a.name.clone(),
                a.extents.len(),
                format!("{:?}", a.extents),
            )
        })
        .or(maps.arrangements.first())
        .cloned();
    let mut stmts = HashMap::new();
    unit.walk(&mut |s, _| {
        let StmtKind::Assign { lhs, .. } = &s.kind else {
            return;
        };
        let Some(count) = freqs.of(s.id) else { return };
        let spread = spread(unit, freqs, maps, s.id, lhs, count);
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

fn spread(
    unit: &Unit,
    freqs: &UnitFrequencies,
    maps: &UnitMappings,
    id: StmtId,
    lhs: &Expr,
    count: &Count,
) -> Spread {
    // The mapping in force at the statement (REDISTRIBUTE and REALIGN change it).
    let mapped = match lhs {
        Expr::Array(r) => maps.at(id, &r.name).map(|m| (r, m)),
        _ => None,
    };
    let Some((r, mapping)) = mapped else {
        return private_spread(unit, freqs, maps, id, lhs, count);
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
    // Only the subscripts of the dimensions that decide the owner need values: any
    // other (`colidxd(k+1-rowstr(j), j)` aligned `(*,:)`) stands as zero.
    let owner_dims = mapping.owner_dims();
    let mut subscripts = Vec::with_capacity(r.subscripts.len());
    for (d, s) in r.subscripts.iter().enumerate() {
        let decides = owner_dims.contains(&d);
        match s {
            Subscript::Index(e) => match scope.sym(e) {
                Ok(v) => subscripts.push(v),
                Err(_) if !decides => subscripts.push(Sym::zero()),
                Err(why) => return irregular(format!("its subscript `{e}` depends on {why}")),
            },
            Subscript::Range(_) => return irregular("it assigns a section".into()),
        }
    }
    let own = match mapping.ownership(&subscripts) {
        Ok(o) => o,
        Err(_) => return irregular("its subscripts are too large to count with".into()),
    };
    Spread::Owned {
        array: r.name.clone(),
        mapping: mapping.clone(),
        terms: owned_terms(count, &own),
    }
}

/// work(S, p) as iteration sets: the count's constraints and p's ownership; the cycle
/// numbers of cyclic dimensions are summed over last.
fn owned_terms(count: &Count, own: &Ownership) -> Vec<OwnedTerm> {
    count
        .terms
        .iter()
        .map(|t| {
            let mut constraints = t.constraints.clone();
            constraints.extend(own.constraints.iter().cloned());
            let mut vars: Vec<Name> = t.vars.clone();
            vars.extend(own.aux.iter().cloned());
            OwnedTerm {
                weight: t.weight,
                constraints,
                vars,
            }
        })
        .collect()
}

/// The spread of an assignment to an unmapped variable: where it is NEW in an
/// INDEPENDENT loop, owned like the home of its iteration ([`home::iteration_home`]);
/// else replicated.
fn private_spread(
    unit: &Unit,
    freqs: &UnitFrequencies,
    maps: &UnitMappings,
    id: StmtId,
    lhs: &Expr,
    count: &Count,
) -> Spread {
    let Some(names) = freqs.scope_of(id) else {
        return Spread::Replicated;
    };
    let scope = Scope {
        unit,
        names,
        integers: false,
    };
    match home::iteration_home(unit, maps, &scope, id, lhs) {
        Some((array, mapping, own)) => Spread::Owned {
            array,
            mapping,
            terms: owned_terms(count, &own),
        },
        None => Spread::Replicated,
    }
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
