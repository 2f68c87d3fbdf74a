//! Remembered symbolic sums. A sum is a pure function of its constraints, variables,
//! summand and the budget left for it: a repeated one is charged the steps and pieces
//! the first computation spent and gets its answer, budget outcome included.

use super::{Budget, SumError};
use crate::constraint::Constraint;
use crate::memo::Memo;
use crate::piecewise::Piecewise;
use crate::sym::{Name, Sym};
use std::cell::RefCell;
use std::sync::Arc;

/// One sum's whole input: what it sums and what it may spend.
#[derive(PartialEq, Eq, Hash)]
struct Key {
    constraints: Vec<Constraint>,
    vars: Vec<Name>,
    summand: Sym,
    steps_left: usize,
    pieces_left: usize,
}

/// A computed sum and what computing it cost.
#[derive(Clone)]
struct Entry {
    result: Result<Arc<Piecewise>, SumError>,
    steps: usize,
    pieces: usize,
}

thread_local! {
    static SUMS: RefCell<Memo<Key, Entry>> = RefCell::new(Memo::new(1024));
}

/// `compute(constraints, vars, summand, budget)`, or its remembered answer for the same
/// input and the same budget left (charged to `budget` as the computation was).
pub(super) fn remembered(
    constraints: Vec<Constraint>,
    vars: &[Name],
    summand: Sym,
    budget: &mut Budget,
    compute: impl FnOnce(Vec<Constraint>, &[Name], Sym, &mut Budget) -> Result<Arc<Piecewise>, SumError>,
) -> Result<Arc<Piecewise>, SumError> {
    let key = Key {
        constraints,
        vars: vars.to_vec(),
        summand,
        steps_left: budget.max_steps.saturating_sub(budget.steps),
        pieces_left: budget.max_pieces.saturating_sub(budget.pieces),
    };
    if let Some(hit) = SUMS.with_borrow(|sums| sums.get(&key)) {
        budget.steps += hit.steps;
        budget.pieces += hit.pieces;
        return hit.result;
    }
    let (steps, pieces) = (budget.steps, budget.pieces);
    let result = compute(
        key.constraints.clone(),
        &key.vars,
        key.summand.clone(),
        budget,
    );
    let entry = Entry {
        result: result.clone(),
        steps: budget.steps - steps,
        pieces: budget.pieces - pieces,
    };
    SUMS.with_borrow_mut(|sums| sums.insert(key, entry));
    result
}
