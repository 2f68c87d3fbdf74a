//! freq(S) of every statement under the user's bindings: the formulas of [`super`]
//! evaluated (the layer a change of N or P re-runs).

use super::{FreqOptions, UnitFrequencies};
use costline_symbolic::{Env, EvalError, Num, Rational};
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

    /// The mean of `each` statement by statement (the counts of the ranks of an MPI
    /// run, each under its own values): a statement without a value in one has none.
    pub fn mean(each: &[Counts]) -> Counts {
        let n = each.len().max(1) as i128;
        let share = Num::Exact(Rational::new(1, n).unwrap_or(Rational::ONE));
        let slots = each.iter().map(|c| c.freqs.len()).max().unwrap_or(0);
        let freqs = (0..slots)
            .map(|k| {
                let mut total: Option<Result<Num, EvalError>> = None;
                for c in each {
                    let v = c.freqs.get(k)?.clone()?;
                    total = Some(match (total, v) {
                        (None, v) => v,
                        (Some(Ok(a)), Ok(b)) => Ok(a + b),
                        (Some(Err(e)), _) | (Some(Ok(_)), Err(e)) => Err(e),
                    });
                }
                total.map(|t| t.map(|t| t * share))
            })
            .collect();
        Counts { freqs }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i128, d: i128) -> Num {
        Num::Exact(Rational::new(n, d).unwrap())
    }

    #[test]
    fn the_mean_of_counts_is_taken_statement_by_statement() {
        let a = Counts {
            freqs: vec![Some(Ok(r(1, 1))), None, Some(Ok(r(4, 1)))],
        };
        let b = Counts {
            freqs: vec![
                Some(Ok(r(0, 1))),
                None,
                Some(Err(EvalError::Unbound("n".into()))),
            ],
        };
        let m = Counts::mean(&[a, b]);
        assert_eq!(m.freq(StmtId(0)), Some(&Ok(r(1, 2))));
        assert_eq!(m.freq(StmtId(1)), None);
        assert!(matches!(m.freq(StmtId(2)), Some(Err(_))));
    }
}
