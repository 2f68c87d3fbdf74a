//! What a profile run measured of a unit: for each data-dependent IF or SELECT, how
//! often each branch was taken, for each loop whose trip count the text does not
//! give, its mean iterations per entry, and the values of the integer scalars its
//! counts need but the text does not give. The counts then use these instead of the
//! assumed probability 1/2 and 100 trips ([`super::Source::Measured`]); the values
//! bind the unit's unknowns (in the database, for this unit only). Of an MPI run, what
//! each rank counted is kept too ([`PerRank`]): the evaluations of the MPI calls rank
//! by rank take a rank's own counts where the text cannot tell.

use costline_symbolic::Rational;
use costline_syntax::ir::StmtId;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The measurements of one unit, by the statement they are about (a labelled IF may
/// have both: its branches, and the GO TO loop it starts).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Measured {
    /// The run they come from, in words (`profile of 2026-11-29 02:00 UTC, no arguments`).
    pub run: Arc<str>,
    /// Of an IF or SELECT: per branch in written order, the probability it was taken
    /// where no earlier branch was (what the counts chain branch by branch).
    pub branches: BTreeMap<StmtId, Vec<Rational>>,
    /// Of a loop: iterations per entry.
    pub trips: BTreeMap<StmtId, Rational>,
    /// Of a GO TO loop, by its labelled first statement: runs per entry.
    pub repeats: BTreeMap<StmtId, Rational>,
    /// The values of integer scalars (by the name the counts give them) before the
    /// statements whose counts need them.
    pub values: BTreeMap<String, MeasuredValue>,
    /// Of an MPI run: what each rank counted.
    pub per_rank: Option<Arc<PerRank>>,
    /// What the run read of the mapped arrays whose reads the analysis cannot follow.
    pub gathers: Vec<crate::comm::gather::MeasuredGather>,
}

/// What each rank of an MPI profile run counted in one unit (index r: rank r).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PerRank {
    /// The ranks the program ran on.
    pub ranks: usize,
    /// How often each rank ran the unit (empty when not counted).
    pub runs: Vec<u64>,
    /// Of each IF, SELECT, loop and GO TO loop measured, by statement: its counters on
    /// each rank.
    pub counters: BTreeMap<StmtId, Vec<Counters>>,
    /// Of each CALL of an MPI routine, by statement: its calls on each rank...
    pub calls: BTreeMap<StmtId, Vec<u64>>,
    /// ...and, of a routine that moves one buffer, the elements they passed.
    pub elements: BTreeMap<StmtId, Vec<u64>>,
}

impl PerRank {
    /// How often rank `rank` ran the MPI call `stmt` per run of the unit: `None` when
    /// either was not counted or the unit never ran there.
    pub fn calls_per_run(&self, stmt: StmtId, rank: usize) -> Option<f64> {
        let calls = *self.calls.get(&stmt)?.get(rank)?;
        let runs = *self.runs.get(rank)?;
        (runs > 0).then(|| calls as f64 / runs as f64)
    }

    /// The elements rank `rank`'s calls of `stmt` passed, on average per call: `None`
    /// when not counted or never called there.
    pub fn elements_per_call(&self, stmt: StmtId, rank: usize) -> Option<f64> {
        let calls = *self.calls.get(&stmt)?.get(rank)?;
        let elements = *self.elements.get(&stmt)?.get(rank)?;
        (calls > 0).then(|| elements as f64 / calls as f64)
    }
}

impl Measured {
    /// Whether the scalar `name` took more than one value where it was recorded
    /// (between executions, or between MPI ranks).
    pub fn varied(&self, name: &str) -> bool {
        self.values.get(name).is_some_and(MeasuredValue::varied)
    }
}

/// What a profile run recorded of one integer scalar: how often, its mean and its
/// extremes (over every record, of every rank).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeasuredValue {
    pub records: u64,
    pub mean: Rational,
    pub min: i64,
    pub max: i64,
    /// Of an MPI run: the value on each rank, by rank, when every rank recorded one
    /// value only and they differ (`me`, a rank's first column): the counts are then
    /// those of each rank averaged ([`super::Counts::mean`]). Empty otherwise.
    pub per_rank: Vec<i64>,
}

impl MeasuredValue {
    /// The value recorded `records` times with the sum `sum`, between `min` and `max`:
    /// `None` when it was never recorded.
    pub fn new(records: u64, sum: i64, min: i64, max: i64) -> Option<MeasuredValue> {
        let mean = Rational::new(i128::from(sum), i128::from(records))?;
        (records > 0).then_some(MeasuredValue {
            records,
            mean,
            min,
            max,
            per_rank: Vec::new(),
        })
    }

    /// This value with its value on each rank (see [`MeasuredValue::per_rank`]).
    pub fn with_ranks(self, per_rank: Vec<i64>) -> MeasuredValue {
        MeasuredValue { per_rank, ..self }
    }

    /// Whether it took more than one value.
    pub fn varied(&self) -> bool {
        self.min != self.max
    }

    /// Whether it took more than one value on one rank (or in a serial run): counts
    /// that rest on it are estimates, counted with its mean.
    pub fn varied_within_a_rank(&self) -> bool {
        self.varied() && self.per_rank.is_empty()
    }

    /// The value the analysis counts with: the mean, rounded to the nearest integer
    /// (halves away from zero) when it is not one.
    pub fn binding(&self) -> i64 {
        let (n, d) = (self.mean.num(), self.mean.den());
        let away = (2 * n.abs() + d) / (2 * d);
        (n.signum() * away) as i64
    }
}

/// The counters a profile run kept for one statement.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counters {
    /// Of an IF or SELECT: how often each branch ran, in written order, and how often
    /// none did (an IF without ELSE, a SELECT without CASE DEFAULT).
    pub branches: Vec<u64>,
    pub none: u64,
    /// Of a loop or a GO TO loop's labelled first statement: how often control
    /// reached it...
    pub entries: u64,
    /// ...how often a loop's body began...
    pub iterations: u64,
    /// ...and how often a GO TO jumped back to the labelled statement.
    pub jumps: u64,
}

impl Counters {
    /// The branch probabilities measured (`branches`, `none`): `None` when the
    /// statement never ran. Branch k's is its runs over the runs no earlier branch took.
    pub fn branch_probabilities(&self) -> Option<Vec<Rational>> {
        let c = self;
        let total: u64 = c.branches.iter().sum::<u64>() + c.none;
        if total == 0 {
            return None;
        }
        let mut left = total;
        let mut out = Vec::with_capacity(c.branches.len());
        for &n in &c.branches {
            let p = if left == 0 {
                Rational::ZERO
            } else {
                Rational::new(n as i128, left as i128)?
            };
            out.push(p);
            left -= n;
        }
        Some(out)
    }

    /// The mean trip count of a loop measured (`entries`, `iterations`): `None` when it
    /// was never entered.
    pub fn mean_trips(&self) -> Option<Rational> {
        (self.entries > 0)
            .then(|| Rational::new(self.iterations as i128, self.entries as i128))
            .flatten()
    }

    /// The mean trip count of a GO TO loop measured: it was reached `entries` times,
    /// `jumps` of them by jumping back, so entered `entries - jumps` times and run
    /// `entries` times. `None` when it was never entered (or the counts disagree).
    pub fn mean_repeats(&self) -> Option<Rational> {
        let entered = self.entries.checked_sub(self.jumps).filter(|&e| e > 0)?;
        Rational::new(self.entries as i128, entered as i128)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i128, d: i128) -> Rational {
        Rational::new(n, d).unwrap()
    }

    #[test]
    fn branch_probabilities_chain_over_the_runs_left() {
        // IF / ELSE IF / ELSE taken 2, 3 and 5 times: 2/10, then 3 of the 8 left.
        let c = Counters {
            branches: vec![2, 3, 5],
            ..Counters::default()
        };
        assert_eq!(
            c.branch_probabilities(),
            Some(vec![r(1, 5), r(3, 8), r(1, 1)])
        );
        // Without ELSE: the runs where no branch was taken count too.
        let c = Counters {
            branches: vec![1, 0],
            none: 3,
            ..Counters::default()
        };
        assert_eq!(c.branch_probabilities(), Some(vec![r(1, 4), r(0, 1)]));
        assert_eq!(Counters::default().branch_probabilities(), None);
    }

    #[test]
    fn trips_are_iterations_per_entry() {
        let c = Counters {
            entries: 4,
            iterations: 10,
            ..Counters::default()
        };
        assert_eq!(c.mean_trips(), Some(r(5, 2)));
        // A GO TO loop reached 10 times, 6 of them by the jump back: entered 4 times.
        let c = Counters {
            entries: 10,
            jumps: 6,
            ..Counters::default()
        };
        assert_eq!(c.mean_repeats(), Some(r(5, 2)));
        assert_eq!(Counters::default().mean_trips(), None);
    }

    #[test]
    fn values_bind_their_mean_rounded() {
        let v = MeasuredValue::new(4, 2800, 700, 700).unwrap();
        assert_eq!((v.binding(), v.varied()), (700, false));
        // Ranks 0 and 1: `me` is 1/2 on average, taken as 1.
        let v = MeasuredValue::new(2, 1, 0, 1).unwrap();
        assert_eq!((v.mean, v.binding(), v.varied()), (r(1, 2), 1, true));
        assert_eq!(MeasuredValue::new(3, -5, -3, -1).unwrap().binding(), -2);
        assert_eq!(MeasuredValue::new(2, -3, -2, -1).unwrap().binding(), -2);
        assert_eq!(MeasuredValue::new(0, 0, 0, 0), None);
    }
}
