//! The number of integer points of one constraint set at many values of its parameters
//! (the grid coordinates of the processors, of a sender and a receiver): counted by a
//! compiled enumeration ([`Nest`], cyclic cycle numbers [`narrow`]ed) while a budget of
//! looked-at values lasts, else from the symbolic sum with the parameters kept
//! symbolic (summed once, on first need) and, where even that gives up, by the numeric
//! count at each value. Every route is exact; the budget is a count of values, so the
//! route taken does not depend on the machine's speed.
//!
//! Constraints that fall into independent groups (no variable in two of them: the
//! dimensions of a grid whose ownership is separable) are counted group by group, the
//! count the product of the groups' counts; each group's count depends on its own
//! parameters only and is remembered per their values, so a 2-D grid of 8 × 8
//! processors counts 2 × 64 sender–receiver pairs instead of 4,096.

use super::FreqOptions;
use super::nest::{Nest, narrow, order};
use super::numeric;
use costline_symbolic::{
    Budget, CompiledPiecewise, Constraint, Name, Piecewise, Sym, symbolic_sum,
};
use rustc_hash::FxHashMap;

/// Outer-variable values the enumeration may look at over all calls before the
/// symbolic route is taken instead.
pub const NUMERIC_POINTS: u64 = 1 << 17;

/// See the module doc.
pub struct Counter<'a> {
    groups: Vec<Group<'a>>,
}

/// One independent group of constraints: its counter, the positions of its parameters
/// among the counter's, and its counts so far per their values.
struct Group<'a> {
    count: Whole<'a>,
    params: Vec<usize>,
    seen: FxHashMap<Vec<i128>, Option<f64>>,
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
        let groups = independent(constraints, vars);
        let alone = groups.len() == 1;
        let groups = groups
            .into_iter()
            .map(|(constraints, vars)| {
                let mine: Vec<usize> = (0..params.len())
                    .filter(|&k| constraints.iter().any(|c| c.mentions(&params[k])))
                    .collect();
                let names: Vec<Name> = mine.iter().map(|&k| params[k].clone()).collect();
                // A group sees as many distinct values as its share of the parameters
                // (taken to have alike ranges) allows.
                let share = if alone || params.is_empty() {
                    calls
                } else {
                    let f = mine.len() as f64 / params.len() as f64;
                    (calls as f64).powf(f).ceil() as usize
                };
                Group {
                    count: Whole::new(constraints, &vars, &names, share, options),
                    params: mine,
                    seen: FxHashMap::default(),
                }
            })
            .collect();
        Counter { groups }
    }

    /// The number of points at the parameters' values `values` (in the order of
    /// `params`); `None` when no route gives one.
    pub fn at(&mut self, values: &[i128]) -> Option<f64> {
        let mut product = 1.0;
        let alone = self.groups.len() == 1;
        for g in &mut self.groups {
            let key: Vec<i128> = g
                .params
                .iter()
                .map(|&k| values.get(k).copied())
                .collect::<Option<_>>()?;
            // A lone group is asked each value once: nothing to remember.
            if alone {
                return g.count.at(&key);
            }
            let n = match g.seen.get(&key) {
                Some(n) => *n,
                None => {
                    let n = g.count.at(&key);
                    g.seen.insert(key, n);
                    n
                }
            };
            product *= n?;
            if product == 0.0 {
                return Some(0.0);
            }
        }
        Some(product)
    }
}

/// The constraints split into groups no variable links (with their variables, in the
/// order of `vars`); constraints on no variable go with the first group.
fn independent(constraints: Vec<Constraint>, vars: &[Name]) -> Vec<(Vec<Constraint>, Vec<Name>)> {
    // Union–find over the variables, joined by every constraint mentioning several.
    let mut root: Vec<usize> = (0..vars.len()).collect();
    fn find(root: &mut [usize], k: usize) -> usize {
        let mut k = k;
        while root[k] != k {
            root[k] = root[root[k]];
            k = root[k];
        }
        k
    }
    let mentioned: Vec<Vec<usize>> = constraints
        .iter()
        .map(|c| (0..vars.len()).filter(|&k| c.mentions(&vars[k])).collect())
        .collect();
    for m in &mentioned {
        for w in m.windows(2) {
            let (a, b) = (find(&mut root, w[0]), find(&mut root, w[1]));
            root[a] = b;
        }
    }
    let mut groups: Vec<(usize, Vec<Constraint>, Vec<Name>)> = Vec::new();
    for (k, v) in vars.iter().enumerate() {
        let r = find(&mut root, k);
        match groups.iter_mut().find(|g| g.0 == r) {
            Some(g) => g.2.push(v.clone()),
            None => groups.push((r, Vec::new(), vec![v.clone()])),
        }
    }
    if groups.is_empty() {
        return vec![(constraints, Vec::new())];
    }
    for (c, m) in constraints.into_iter().zip(mentioned) {
        let at = match m.first() {
            Some(&k) => {
                let r = find(&mut root, k);
                groups.iter().position(|g| g.0 == r).unwrap_or(0)
            }
            None => 0,
        };
        groups[at].1.push(c);
    }
    groups.into_iter().map(|(_, c, v)| (c, v)).collect()
}

/// The counter of one group of constraints (see the module doc).
struct Whole<'a> {
    constraints: Vec<Constraint>,
    vars: Vec<Name>,
    params: Vec<Name>,
    nest: Option<Nest>,
    left: u64,
    /// How many values the caller will ask for (to give up early on the enumeration).
    calls: u64,
    /// The symbolic sum (and its compiled form), once summed.
    formula: Option<Option<(Piecewise, Option<CompiledPiecewise>)>>,
    options: &'a FreqOptions,
}

impl<'a> Whole<'a> {
    fn new(
        constraints: Vec<Constraint>,
        vars: &[Name],
        params: &[Name],
        calls: usize,
        options: &'a FreqOptions,
    ) -> Whole<'a> {
        // Cycle numbers tie a cyclic dimension's loop variable to the owned values.
        let space = narrow(&constraints, vars, &|v| v.starts_with("$q"));
        let nest = order(&space.constraints, &space.vars)
            .map(|outer_first| Nest::ordered(&space.constraints, outer_first, params));
        Whole {
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

    fn at(&mut self, values: &[i128]) -> Option<f64> {
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
        let params = &self.params;
        let formula = self.formula.get_or_insert_with(|| {
            let mut budget = Budget::new(options.max_pieces, options.max_steps);
            let sum = symbolic_sum(
                self.constraints.clone(),
                &self.vars,
                Sym::one(),
                &mut budget,
            )
            .ok()?;
            let slot = |n: &str| params.iter().position(|p| &**p == n);
            let compiled = CompiledPiecewise::new(&sum, &slot);
            Some((sum, compiled))
        });
        let compiled = match formula {
            Some((_, Some(c))) => {
                let values: Option<Vec<i64>> =
                    values.iter().map(|v| i64::try_from(*v).ok()).collect();
                values.and_then(|v| c.eval(&v))
            }
            _ => None,
        };
        if let Some(n) = compiled {
            return Some(n.to_f64());
        }
        let n = match formula {
            Some((f, _)) => f.eval(&at).ok()?,
            None => numeric::count(&self.constraints, &self.vars, &at, options).ok()?,
        };
        Some(n.to_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costline_symbolic::Rational;

    fn ge(a: Sym, b: Sym) -> Constraint {
        Constraint::ge(&a, &b).unwrap()
    }

    fn lin(terms: &[(i128, &str)], k: i128) -> Sym {
        terms.iter().fold(Sym::int(k), |s, (c, v)| {
            s.add(&Sym::var(v).scale(Rational::int(*c)).unwrap())
                .unwrap()
        })
    }

    /// Block ownership on a 3 × 2 grid, its two dimensions independent, a loop no
    /// processor constrains and a guard on the coordinates only: the grouped count
    /// equals the count of the whole constraint set at every pair of processors.
    #[test]
    fn independent_groups_count_what_the_whole_set_counts() {
        let n = 11;
        let constraints = vec![
            // 1 <= i <= n, 3·(p1 − 1) + 1 <= i <= 3·p1 + 1 (blocks of 3, overlapping)
            ge(Sym::var("i"), Sym::int(1)),
            ge(Sym::int(n), Sym::var("i")),
            ge(Sym::var("i"), lin(&[(3, "p1")], -2)),
            ge(lin(&[(3, "p1")], 1), Sym::var("i")),
            // i − 1 owned by s1: 3·(s1 − 1) + 1 <= i − 1 <= 3·s1
            ge(lin(&[(1, "i")], -1), lin(&[(3, "s1")], -2)),
            ge(lin(&[(3, "s1")], 0), lin(&[(1, "i")], -1)),
            // 2 <= j <= n, 2j <= 5·p2 + s2 (a coupling of the second dimension's
            // coordinates)
            ge(Sym::var("j"), Sym::int(2)),
            ge(Sym::int(n), Sym::var("j")),
            ge(lin(&[(5, "p2"), (1, "s2")], 0), lin(&[(2, "j")], 0)),
            // 1 <= t <= 4, no processor in it
            ge(Sym::var("t"), Sym::int(1)),
            ge(Sym::int(4), Sym::var("t")),
            // a guard on the coordinates only
            ge(Sym::var("s1"), Sym::var("p1")),
        ];
        let vars: Vec<Name> = ["i", "j", "t"].iter().map(|v| Name::from(*v)).collect();
        let params: Vec<Name> = ["p1", "p2", "s1", "s2"]
            .iter()
            .map(|v| Name::from(*v))
            .collect();
        let options = FreqOptions::default();
        assert_eq!(independent(constraints.clone(), &vars).len(), 3);
        let mut counter = Counter::new(constraints.clone(), &vars, &params, 36, &options);
        for p1 in 1..=3 {
            for p2 in 1..=2 {
                for s1 in 1..=3 {
                    for s2 in 1..=2 {
                        let values = [p1, p2, s1, s2];
                        let at = |name: &str| {
                            params.iter().position(|p| &**p == name).map(|k| values[k])
                        };
                        let whole = numeric::count(&constraints, &vars, &at, &options)
                            .unwrap()
                            .to_f64();
                        assert_eq!(counter.at(&values), Some(whole), "at {values:?}");
                    }
                }
            }
        }
    }
}
