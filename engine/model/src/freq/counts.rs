//! freq(S) of every statement under the user's bindings: the formulas of [`super`]
//! evaluated (the layer a change of N or P re-runs).

use super::{FreqOptions, UnitFrequencies};
use costline_symbolic::{Env, EvalError, Num};
use costline_syntax::ir::{StmtId, Unit};
use std::collections::HashMap;

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
