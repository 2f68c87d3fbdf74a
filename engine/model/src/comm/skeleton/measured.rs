//! What a process's skeleton run takes from a profile run on as many processes
//! ([`PerRank`]: what each rank counted) where it cannot evaluate: the branch an IF or
//! SELECT takes, how often a loop runs, the count an MPI call passes. The rank's own
//! counts decide: at its k-th arrival at an IF whose condition the run cannot tell, it
//! takes the branch a smooth weighted round robin over the branches' measured counts
//! gives (over as many arrivals as were measured, each branch exactly as often as
//! measured); at the k-th entry of a loop it cannot bound, ⌊(k+1)·I/E⌋ − ⌊k·I/E⌋ of
//! the I iterations measured over E entries (all of them over the E entries), and the
//! elements of an MPI call whose count it cannot evaluate likewise. What a
//! PMPI counter counts is then the profile's wherever the run follows the program as
//! it ran; the order within a rank is an estimate.

use crate::freq::measured::{Counters, PerRank};
use costline_syntax::ir::StmtId;
use std::collections::HashMap;
use std::sync::Arc;

/// The measurements of a run's units (by unit name) and the run in words.
#[derive(Clone, Debug, Default)]
pub struct Profiled {
    pub units: HashMap<String, Arc<PerRank>>,
    pub run: Arc<str>,
}

/// One process's use of the measurements: what it decided so far at each statement.
#[derive(Default)]
pub struct Decisions {
    rank: usize,
    /// Per IF or SELECT: its arrivals so far and the round robin's current weights
    /// (branches, then none).
    branches: HashMap<(String, StmtId), (i64, Vec<i64>)>,
    /// Per loop: the entries so far.
    entries: HashMap<(String, StmtId), u64>,
    /// Per MPI call: the calls so far whose count came from the measurements.
    calls: HashMap<(String, StmtId), u64>,
}

/// What the measurements decide at one arrival of an IF or SELECT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// Branch k (in written order) runs.
    Taken(usize),
    /// No branch runs.
    None,
}

impl Decisions {
    pub fn new(rank: usize) -> Decisions {
        Decisions {
            rank,
            ..Decisions::default()
        }
    }

    /// This rank's measured counters of the statement `stmt` of `unit`.
    fn counters<'p>(
        &self,
        profiled: &'p Profiled,
        unit: &str,
        stmt: StmtId,
    ) -> Option<&'p Counters> {
        profiled
            .units
            .get(unit)?
            .counters
            .get(&stmt)?
            .get(self.rank)
    }

    /// The branch of the IF or SELECT `stmt` of `unit` (with `arms` branches) at this
    /// arrival, by the rank's measured counts; `None` when they were not measured or
    /// the run arrives more often than the program did.
    pub fn branch(
        &mut self,
        profiled: &Profiled,
        unit: &str,
        stmt: StmtId,
        arms: usize,
    ) -> Option<Branch> {
        let c = self.counters(profiled, unit, stmt)?;
        let mut weights: Vec<i64> = (0..arms)
            .map(|k| c.branches.get(k).copied().unwrap_or(0) as i64)
            .collect();
        weights.push(c.none as i64);
        let total: i64 = weights.iter().sum();
        let (arrivals, current) = self
            .branches
            .entry((unit.to_string(), stmt))
            .or_insert_with(|| (0, vec![0; weights.len()]));
        if *arrivals >= total {
            return None;
        }
        *arrivals += 1;
        for (w, add) in current.iter_mut().zip(&weights) {
            *w += add;
        }
        let pick = (0..current.len())
            .max_by_key(|&k| (current[k], std::cmp::Reverse(k)))
            .unwrap_or(0);
        current[pick] -= total;
        Some(if pick < arms {
            Branch::Taken(pick)
        } else {
            Branch::None
        })
    }

    /// The iterations of the loop `stmt` of `unit` at this entry, by the rank's
    /// measured entries and iterations; `None` when they were not measured or the run
    /// enters more often than the program did.
    pub fn trips(&mut self, profiled: &Profiled, unit: &str, stmt: StmtId) -> Option<u64> {
        let c = self.counters(profiled, unit, stmt)?;
        let k = self.entries.entry((unit.to_string(), stmt)).or_insert(0);
        if *k >= c.entries {
            return None;
        }
        let share = |k: u64| u128::from(k) * u128::from(c.iterations) / u128::from(c.entries);
        let trips = share(*k + 1) - share(*k);
        *k += 1;
        u64::try_from(trips).ok()
    }

    /// The elements this call of the MPI call `stmt` of `unit` passes, by the rank's
    /// measured calls C and elements E: ⌊(k+1)·E/C⌋ − ⌊k·E/C⌋ at its k-th call, so that
    /// the C calls measured pass all E; `None` when they were not measured or the run
    /// calls more often than the program did.
    pub fn elements(&mut self, profiled: &Profiled, unit: &str, stmt: StmtId) -> Option<u64> {
        let counts = profiled.units.get(unit)?;
        let calls = *counts.calls.get(&stmt)?.get(self.rank)?;
        let elements = *counts.elements.get(&stmt)?.get(self.rank)?;
        let k = self.calls.entry((unit.to_string(), stmt)).or_insert(0);
        if *k >= calls {
            return None;
        }
        let share = |k: u64| u128::from(k) * u128::from(elements) / u128::from(calls);
        let n = share(*k + 1) - share(*k);
        *k += 1;
        u64::try_from(n).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profiled(counters: Vec<Counters>, calls: Vec<u64>, elements: Vec<u64>) -> Profiled {
        let per_rank = PerRank {
            ranks: counters.len(),
            runs: vec![1; counters.len()],
            counters: [(StmtId(3), counters)].into(),
            calls: [(StmtId(5), calls)].into(),
            elements: [(StmtId(5), elements)].into(),
        };
        Profiled {
            units: [("u".to_string(), Arc::new(per_rank))].into(),
            run: "profile".into(),
        }
    }

    #[test]
    fn branches_are_taken_as_often_as_measured_and_no_more() {
        // Rank 1: 3 times the first branch, 1 the second, 2 none, of 6 arrivals.
        let c = |b: Vec<u64>, none| Counters {
            branches: b,
            none,
            ..Counters::default()
        };
        let p = profiled(vec![c(vec![1, 0], 0), c(vec![3, 1], 2)], vec![], vec![]);
        let mut d = Decisions::new(1);
        let taken: Vec<Option<Branch>> = (0..7).map(|_| d.branch(&p, "u", StmtId(3), 2)).collect();
        let count = |b: Branch| taken.iter().filter(|t| **t == Some(b)).count();
        assert_eq!(
            (
                count(Branch::Taken(0)),
                count(Branch::Taken(1)),
                count(Branch::None)
            ),
            (3, 1, 2)
        );
        assert_eq!(
            taken[6], None,
            "past the measured arrivals nothing is decided"
        );
        // Spread out, not in runs: the first branch never three times in a row.
        assert_ne!(&taken[..3], &[Some(Branch::Taken(0)); 3]);
        assert_eq!(d.branch(&p, "u", StmtId(4), 2), None);
        assert_eq!(d.branch(&p, "v", StmtId(3), 2), None);
    }

    #[test]
    fn trips_and_elements_add_up_to_what_was_measured() {
        let c = Counters {
            entries: 3,
            iterations: 10,
            ..Counters::default()
        };
        let p = profiled(vec![c], vec![4], vec![10]);
        let mut d = Decisions::new(0);
        let trips: Vec<Option<u64>> = (0..4).map(|_| d.trips(&p, "u", StmtId(3))).collect();
        assert_eq!(trips, [Some(3), Some(3), Some(4), None]);
        let each: Vec<Option<u64>> = (0..5).map(|_| d.elements(&p, "u", StmtId(5))).collect();
        assert_eq!(each, [Some(2), Some(3), Some(2), Some(3), None]);
    }
}
