//! The number of integer points of one constraint set at many values of its parameters
//! (the grid coordinates of the processors, of a sender and a receiver): counted by a
//! compiled enumeration ([`Nest`], cyclic cycle numbers [`narrow`]ed) while a budget of
//! looked-at values lasts, else from the symbolic sum with the parameters kept
//! symbolic (summed once, on first need) and, where even that gives up, by the numeric
//! count at each value. Every route is exact; the budget is a count of values, so the
//! route taken does not depend on the machine's speed.

use super::FreqOptions;
use super::nest::{Nest, narrow, order};
use super::numeric;
use costline_symbolic::{Budget, Constraint, Name, Piecewise, Sym, symbolic_sum};

/// Outer-variable values the enumeration may look at over all calls before the
/// symbolic route is taken instead.
pub const NUMERIC_POINTS: u64 = 1 << 17;

/// See the module doc.
pub struct Counter<'a> {
    constraints: Vec<Constraint>,
    vars: Vec<Name>,
    params: Vec<Name>,
    nest: Option<Nest>,
    left: u64,
    /// How many values the caller will ask for (to give up early on the enumeration).
    calls: u64,
    formula: Option<Option<Piecewise>>,
    options: &'a FreqOptions,
}

impl<'a> Counter<'a> {
    /// `constraints` over `vars`, every other name in them one of `params`; about
    /// `calls` values will be asked for.
    pub fn new(
        constraints: Vec<Constraint>,
        vars: &[Name],
        params: &[Name],
        calls: usize,
        options: &'a FreqOptions,
    ) -> Counter<'a> {
        // Cycle numbers tie a cyclic dimension's loop variable to the owned values.
        let space = narrow(&constraints, vars, &|v| v.starts_with("$q"));
        let nest = order(&space.constraints, &space.vars)
            .map(|outer_first| Nest::ordered(&space.constraints, outer_first, params));
        Counter {
            constraints,
            vars: vars.to_vec(),
            params: params.to_vec(),
            nest,
            left: NUMERIC_POINTS,
            calls: calls.max(1) as u64,
            formula: None,
            options,
        }
    }

    /// The number of points at the parameters' values `values` (in the order of
    /// `params`); `None` when no route gives one.
    pub fn at(&mut self, values: &[i128]) -> Option<f64> {
        if let Some(nest) = &self.nest {
            let first = self.left == NUMERIC_POINTS;
            match nest.count(values, &mut self.left) {
                Some(n) => {
                    // Values of one distribution cost alike: give up early when the
                    // first one's cost says the rest would not fit.
                    let spent = NUMERIC_POINTS - self.left;
                    if first && spent.saturating_mul(self.calls) > NUMERIC_POINTS {
                        self.nest = None;
                    }
                    return Some(n as f64);
                }
                None => self.nest = None,
            }
        }
        let at = |n: &str| {
            let k = self.params.iter().position(|p| &**p == n)?;
            values.get(k).copied()
        };
        let options = self.options;
        let formula = self.formula.get_or_insert_with(|| {
            let mut budget = Budget::new(options.max_pieces, options.max_steps);
            symbolic_sum(
                self.constraints.clone(),
                &self.vars,
                Sym::one(),
                &mut budget,
            )
            .ok()
        });
        let n = match formula {
            Some(f) => f.eval(&at).ok()?,
            None => numeric::count(&self.constraints, &self.vars, &at, options).ok()?,
        };
        Some(n.to_f64())
    }
}
