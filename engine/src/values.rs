//! A unit's numbers under the user's bindings: every count evaluated and the work of
//! every processor. The formulas they come from (freq(S), work(S, p)) do not depend on
//! the bindings; this is the layer a change of N or P re-runs.

use crate::freq::{FreqOptions, UnitFrequencies};
use crate::ir::{StmtId, Unit};
use crate::symbolic::{Env, EvalError, Num};
use crate::work::{Load, StmtWork, UnitWork, load};
use std::collections::HashMap;
use std::sync::Arc;

/// freq(S) of every statement of a unit under the bindings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    /// By statement id.
    freqs: Vec<Option<Result<Num, EvalError>>>,
}

impl Counts {
    /// freq(S) under the bindings, or why it has no value.
    pub fn freq(&self, id: StmtId) -> Option<&Result<Num, EvalError>> {
        self.freqs.get(id.0 as usize)?.as_ref()
    }

    /// freq(S) as a number, when it has a value.
    pub fn value(&self, id: StmtId) -> Option<f64> {
        self.freq(id)?.as_ref().ok().map(|v| v.to_f64())
    }
}

/// Evaluates the counts of `unit` under `env` (statements of one block share their
/// count and evaluate it once).
pub fn counts(unit: &Unit, freqs: &UnitFrequencies, env: Env, options: &FreqOptions) -> Counts {
    let mut out = Counts::default();
    let mut shared: HashMap<usize, Result<Num, EvalError>> = HashMap::new();
    unit.walk(&mut |s, _| {
        let Some((key, count)) = freqs.shared(s.id) else {
            return;
        };
        let value = shared
            .entry(key)
            .or_insert_with(|| count.eval(env, options))
            .clone();
        let slot = s.id.0 as usize;
        if out.freqs.len() <= slot {
            out.freqs.resize(slot + 1, None);
        }
        out.freqs[slot] = Some(value);
    });
    out
}

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
