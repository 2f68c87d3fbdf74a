//! work(S, p) as a formula in the program's unknowns and the grid coordinates of p: the
//! symbolic sum of each owner-computed assignment's iteration sets (P^3T+ section 4.1).
//! What a hover shows and a scaling study evaluates; the editor's numbers come from
//! [`super::load`], which does not need it.

use super::{Spread, UnitWork};
use crate::freq::{Count, CountTerm, FreqOptions, UnitFrequencies};
use costline_symbolic::{Budget, Sym, symbolic_sum_shared};
use costline_syntax::ir::{StmtId, Unit};
use std::collections::HashMap;

/// work(S, p) of the owner-computed assignments of a unit, by statement.
#[derive(Clone, Debug, Default)]
pub struct UnitFormulas {
    stmts: HashMap<StmtId, Count>,
}

impl UnitFormulas {
    pub fn of(&self, id: StmtId) -> Option<&Count> {
        self.stmts.get(&id)
    }
}

/// work(S, p) of one assignment as a count (its terms summed within the budget of
/// `options` and the `left` steps of its unit, which it spends); `None` unless it is
/// owner-computed.
pub fn formula(
    spread: &Spread,
    count: &Count,
    options: &FreqOptions,
    left: &mut Option<usize>,
) -> Option<Count> {
    let Spread::Owned { terms, .. } = spread else {
        return None;
    };
    let terms = terms
        .iter()
        .map(|t| {
            let steps = left.map_or(options.max_steps, |l| l.min(options.max_steps));
            let mut budget = Budget::new(options.max_pieces, steps);
            let symbolic =
                symbolic_sum_shared(t.constraints.clone(), &t.vars, Sym::one(), &mut budget);
            if let Some(l) = left {
                *l = l.saturating_sub(budget.steps());
            }
            CountTerm {
                weight: t.weight,
                constraints: t.constraints.clone(),
                vars: t.vars.clone(),
                symbolic,
            }
        })
        .collect();
    Some(Count::new(terms, count.assumptions.clone()))
}

/// work(S, p) of every owner-computed assignment of `unit` (all within the unit's time
/// limit).
pub fn unit_formulas(
    unit: &Unit,
    freqs: &UnitFrequencies,
    work: &UnitWork,
    options: &FreqOptions,
) -> UnitFormulas {
    let mut left = options.unit_max_steps;
    let mut stmts = HashMap::new();
    unit.walk(&mut |s, _| {
        if let (Some(w), Some(count)) = (work.of(s.id), freqs.of(s.id))
            && let Some(f) = formula(&w.spread, count, options, &mut left)
        {
            stmts.insert(s.id, f);
        }
    });
    UnitFormulas { stmts }
}
