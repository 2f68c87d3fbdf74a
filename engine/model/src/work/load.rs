//! work(S, p) as numbers for every processor p under the bindings: the iteration sets
//! of [`super::Spread::Owned`] with every unknown replaced by its value and only the
//! processor's grid coordinates left as parameters, counted per processor by a
//! [`Counter`] (a compiled enumeration, or the sum with the coordinates as parameters:
//! a partial evaluation — the full formula in N and P is [`super::formula`], slower to
//! build and needed only to show it).

use super::{Spread, StmtWork, variation};
use crate::distribution::Arrangement;
use crate::freq::FreqOptions;
use crate::freq::counter::Counter;
use crate::freq::numeric;
use costline_symbolic::{Constraint, Env, Name, Num};

/// Processors beyond this many get no per-processor vector (the formula still holds).
pub const MAX_PROCESSORS: i128 = 65_536;

/// work(S, p) for p = 1..|P| under the bindings.
#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    per_processor: Vec<f64>,
}

impl Load {
    /// The load of per-processor work given directly (an `EXTRINSIC(HPF_LOCAL)` call's:
    /// the assignments each processor executes in its part).
    pub fn of(per_processor: Vec<f64>) -> Load {
        Load { per_processor }
    }

    /// work(S, p) for p = 1..|P|.
    pub fn per_processor(&self) -> &[f64] {
        &self.per_processor
    }

    /// Σ_p work(S, p).
    pub fn total(&self) -> f64 {
        self.per_processor.iter().sum()
    }

    /// owork(S) = Σ_p work(S, p) / |P| (Definition 4.1).
    pub fn owork(&self) -> f64 {
        self.total() / self.per_processor.len().max(1) as f64
    }

    /// wd(S), Definition 4.2: the standard deviation of the per-processor work divided
    /// by its mean (0 when the mean is 0).
    pub fn wd(&self) -> f64 {
        variation(&self.per_processor)
    }

    /// (most loaded, least loaded) processors, 1-based, first of equals.
    pub fn extremes(&self) -> Option<(usize, usize)> {
        let w = &self.per_processor;
        let max = (0..w.len()).max_by(|&a, &b| w[a].total_cmp(&w[b]).then(b.cmp(&a)))?;
        let min = (0..w.len()).min_by(|&a, &b| w[a].total_cmp(&w[b]).then(a.cmp(&b)))?;
        Some((max + 1, min + 1))
    }
}

/// work(S, p) for every processor of the statement's arrangement under `env`, when |P|
/// and the counts have values; `freq` is freq(S) under `env`.
pub fn load(stmt: &StmtWork, freq: Option<f64>, env: Env, options: &FreqOptions) -> Option<Load> {
    let onto = stmt.arrangement.as_ref()?;
    let extents: Vec<i128> = onto
        .extents
        .iter()
        .map(|e| match e.eval(env).ok()? {
            Num::Exact(r) => r.as_integer().filter(|v| *v >= 1),
            Num::Approx(_) => None,
        })
        .collect::<Option<_>>()?;
    let size = extents.iter().try_fold(1i128, |a, e| a.checked_mul(*e))?;
    if size > MAX_PROCESSORS {
        return None;
    }
    let per_processor = match &stmt.spread {
        Spread::Replicated => vec![freq?; size as usize],
        Spread::Irregular { .. } => vec![freq? / size as f64; size as usize],
        Spread::Owned { terms, .. } => {
            let coordinates: Vec<Name> = (0..extents.len()).map(|k| onto.coordinate(k)).collect();
            let mut out = vec![0.0; size as usize];
            for t in terms {
                let counts = per_processor(
                    &t.constraints,
                    &t.vars,
                    &coordinates,
                    &extents,
                    env,
                    options,
                )?;
                let weight = t.weight.to_f64();
                for (o, c) in out.iter_mut().zip(counts) {
                    *o += weight * c;
                }
            }
            out
        }
    };
    Some(Load { per_processor })
}

/// The integer points of `constraints` over `vars` for every processor (its grid
/// coordinates `coordinates`, 1-based, in `extents`).
fn per_processor(
    constraints: &[Constraint],
    vars: &[Name],
    coordinates: &[Name],
    extents: &[i128],
    env: Env,
    options: &FreqOptions,
) -> Option<Vec<f64>> {
    let bound = numeric::bind(
        constraints,
        &|n| vars.contains(n) || coordinates.contains(n),
        env,
    )
    .ok()?;
    let size = extents.iter().product::<i128>();
    let mut counter = Counter::new(bound, vars, coordinates, size as usize, options);
    (1..=size)
        .map(|p| {
            let at: Vec<i128> = Arrangement::coordinates(extents, p)
                .iter()
                .map(|c| c + 1)
                .collect();
            counter.at(&at)
        })
        .collect()
}
