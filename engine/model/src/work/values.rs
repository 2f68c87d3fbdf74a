//! A unit's numbers under the user's bindings: every count evaluated and the work of
//! every processor. The formulas they come from (freq(S), work(S, p)) do not depend on
//! the bindings; this is the layer a change of N or P re-runs.

use super::{Load, StmtWork, UnitWork, load};
use crate::freq::{Counts, FreqOptions};
use costline_symbolic::{Env, EvalError, Num};
use costline_syntax::ir::{StmtId, Unit};
use std::collections::HashMap;
use std::sync::Arc;

/// work(S, p) of one assignment under `env`, its freq(S) taken from `counts`.
pub fn stmt_load(
    id: StmtId,
    work: &StmtWork,
    counts: &Counts,
    env: Env,
    options: &FreqOptions,
) -> Option<Load> {
    let freq = counts
        .freq(id)
        .and_then(|v| v.as_ref().ok())
        .map(|v| v.to_f64());
    load(work, freq, env, options)
}

/// The values of one unit's counts and work.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitValues {
    counts: Arc<Counts>,
    /// work(S, p) of each assignment, when |P| and its counts have values.
    loads: HashMap<StmtId, Load>,
}

impl UnitValues {
    /// The values of `counts` and of the loads `load` gives for the assignments of
    /// `work`.
    pub fn new(
        unit: &Unit,
        counts: Arc<Counts>,
        work: &UnitWork,
        load: &dyn Fn(StmtId) -> Option<Load>,
    ) -> UnitValues {
        let mut loads = HashMap::new();
        unit.walk(&mut |s, _| {
            if work.of(s.id).is_some()
                && let Some(l) = load(s.id)
            {
                loads.insert(s.id, l);
            }
        });
        UnitValues { counts, loads }
    }

    /// freq(S) under the bindings, or why it has no value.
    pub fn freq(&self, id: StmtId) -> Option<&Result<Num, EvalError>> {
        self.counts.freq(id)
    }

    /// freq(S) as a number, when it has a value.
    pub fn value(&self, id: StmtId) -> Option<f64> {
        self.counts.value(id)
    }

    /// work(S, p) for every processor.
    pub fn load(&self, id: StmtId) -> Option<&Load> {
        self.loads.get(&id)
    }
}
