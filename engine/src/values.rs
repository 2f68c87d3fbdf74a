//! A unit's numbers under the user's bindings: every count evaluated and the work of
//! every processor. The formulas they come from (freq(S), work(S, p)) do not depend on
//! the bindings; this is the layer a change of N or P re-runs.

use crate::freq::{FreqOptions, UnitFrequencies};
use crate::ir::{StmtId, Unit};
use crate::symbolic::{Env, EvalError, Num};
use crate::work::{Load, UnitWork, load};
use std::collections::HashMap;

/// The values of one unit's counts and work.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitValues {
    /// freq(S) of each statement under the bindings, by statement id.
    freqs: Vec<Option<Result<Num, EvalError>>>,
    /// work(S, p) of each assignment, when |P| and its counts have values.
    loads: HashMap<StmtId, Load>,
}

impl UnitValues {
    /// freq(S) under the bindings, or why it has no value.
    pub fn freq(&self, id: StmtId) -> Option<&Result<Num, EvalError>> {
        self.freqs.get(id.0 as usize)?.as_ref()
    }

    /// work(S, p) for every processor.
    pub fn load(&self, id: StmtId) -> Option<&Load> {
        self.loads.get(&id)
    }
}

/// Evaluates the counts and work of `unit` under `env` (statements of one block share
/// their count and evaluate it once).
pub fn evaluate(
    unit: &Unit,
    freqs: &UnitFrequencies,
    work: &UnitWork,
    env: Env,
    options: &FreqOptions,
) -> UnitValues {
    let mut values = UnitValues::default();
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
        if values.freqs.len() <= slot {
            values.freqs.resize(slot + 1, None);
        }
        let freq = value.as_ref().ok().map(|v| v.to_f64());
        values.freqs[slot] = Some(value);
        if let Some(w) = work.of(s.id)
            && let Some(l) = load(w, freq, env, options)
        {
            values.loads.insert(s.id, l);
        }
    });
    values
}
