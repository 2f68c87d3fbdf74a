//! TD as a formula in the problem size and processor counts: the elements a reference
//! moves per run, Σ over processors of the reads it makes minus the reads of elements
//! it owns itself,
//!
//!   TD/size = Σ_p Σ_{iterations p executes} 1 − Σ_p Σ_{iterations p executes, p owns e} 1,
//!
//! one symbolic sum over the loop variables and the processor's coordinates each (the
//! owner's coordinates set to the executing processor's for the second). It counts
//! reads, so it is the data moved when each read fetches a distinct element — the
//! vectorized fetch with one-to-one subscripts, as in stencils, shifts and transposes;
//! for other references the hover shows the numbers only.

use super::{CommTerm, Counted, sender_coordinate};
use crate::freq::FreqOptions;
use costline_symbolic::{Budget, Constraint, Name, Piecewise, Sym, symbolic_sum};

/// Elements moved per run by a counted reference, as a formula in the names `fixed`
/// gives no value (the others are substituted first: a PARAMETER is a number, not an
/// unknown); `None` when the executing and owning processors are not of one
/// arrangement, when a read can fold several iterations onto one element, or when the
/// sums do not finish within the options' budget.
pub fn moved_elements(
    c: &Counted,
    fixed: &dyn Fn(&str) -> Option<i128>,
    options: &FreqOptions,
) -> Option<Piecewise> {
    if c.executing != c.senders {
        return None;
    }
    let grid = &c.executing;
    let coords: Vec<Name> = (0..grid.extents.len())
        .map(|k| grid.coordinate(k))
        .collect();
    let senders: Vec<Name> = (0..grid.extents.len())
        .map(|k| sender_coordinate(grid, k))
        .collect();
    let in_grid: Vec<Constraint> = coords
        .iter()
        .zip(&grid.extents)
        .flat_map(|(p, e)| {
            [
                Constraint::ge(&Sym::var(p), &Sym::int(1)).ok(),
                Constraint::le(&Sym::var(p), e).ok(),
            ]
        })
        .collect::<Option<_>>()?;
    let fix = |c: &Constraint| -> Option<Constraint> {
        c.expr
            .vars()
            .into_iter()
            .try_fold(c.clone(), |c, n| match fixed(&n) {
                Some(v) => c.subst(&n, &Sym::int(v)).ok(),
                None => Some(c),
            })
    };
    let in_grid: Vec<Constraint> = in_grid.iter().map(fix).collect::<Option<_>>()?;
    let mut budget = Budget::new(options.max_pieces, options.max_steps);
    let mut total = Piecewise::zero();
    for t in &c.terms {
        if !one_to_one(t, &c.outer_vars) {
            return None;
        }
        let t = &CommTerm {
            constraints: t.constraints.iter().map(fix).collect::<Option<_>>()?,
            ..t.clone()
        };
        let is_sender = |c: &Constraint| senders.iter().any(|s| c.mentions(s));
        let is_aux = |v: &Name| v.starts_with("$r");
        let mine: Vec<Constraint> = t
            .constraints
            .iter()
            .filter(|c| !is_sender(c))
            .chain(&in_grid)
            .cloned()
            .collect();
        let mut vars: Vec<Name> = t.vars.iter().filter(|v| !is_aux(v)).cloned().collect();
        vars.extend(coords.iter().cloned());
        let reads = symbolic_sum(mine, &vars, Sym::one(), &mut budget).ok()?;
        // The owner is the executing processor: $s := $p.
        let mut local: Vec<Constraint> = Vec::with_capacity(t.constraints.len());
        for c in t.constraints.iter().chain(&in_grid) {
            let c = senders
                .iter()
                .zip(&coords)
                .try_fold(c.clone(), |c, (s, p)| c.subst(s, &Sym::var(p)))
                .ok()?;
            local.push(c);
        }
        let mut all_vars = vars.clone();
        all_vars.extend(t.vars.iter().filter(|v| is_aux(v)).cloned());
        let own = symbolic_sum(local, &all_vars, Sym::one(), &mut budget).ok()?;
        let weight = Sym::one().scale(t.weight).ok()?;
        total = total
            .plus(reads.scale(&weight).ok()?)
            .plus(own.scale(&weight.neg().ok()?).ok()?);
    }
    total.simplified().ok()
}

/// Whether the term's subscripts name a different element in every iteration of the
/// loops its fetch is vectorized over (not the kept loops `outer`, whose iterations
/// fetch anew): each affine with constant coefficients and the coefficient columns
/// independent. Cycle numbers and wrap quotients follow from the loop variables.
fn one_to_one(t: &CommTerm, outer: &[Name]) -> bool {
    let derived = |v: &Name| v.starts_with("$r") || v.starts_with("$q") || v.starts_with("$w");
    let loops: Vec<Name> = t
        .vars
        .iter()
        .filter(|v| !derived(v) && !outer.contains(v))
        .cloned()
        .collect();
    super::injective::one_to_one(&t.subscripts, &loops).unwrap_or(false)
}
