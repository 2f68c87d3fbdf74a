//! freq(S): how often each statement and loop of a unit executes per execution of the
//! unit, as a guarded formula in the program's unknowns (P^3T+ section 4.1) and as a
//! number under the current bindings.
//!
//! A statement's count is the number of integer points of its context — the bounds of
//! the enclosing loops and the affine conditions on the path to it — computed by the
//! symbolic sum, times the probability of the data-dependent conditions on the path
//! (1/2 by default, as ParaScope's estimator did, or `!costline: probability p`), times
//! the assumed trip counts of loops whose bounds cannot be derived (`!costline: trips
//! n`, default 100). A loop's count is the number of iterations of its body. Where a
//! profile run measured them ([`measured`]), the measured branch probabilities and
//! mean trip counts replace the assumed ones.

pub mod calls;
pub mod convert;
pub(crate) mod counter;
mod counts;
mod describe;
mod effects;
pub mod execute;
pub mod measured;
pub(crate) mod nest;
pub mod notes;
pub(crate) mod numeric;
pub(crate) mod planar;
pub mod probes;
pub mod table;
mod walk;

pub use counts::{Counts, counts};
pub use effects::{CallEffect, CalleeRun};
pub use measured::{Measured, MeasuredValue};

use costline_symbolic::{
    Constraint, Env, EvalError, Name, Num, Piecewise, Rational, SumError, Sym,
};
use costline_syntax::ir::{StmtId, Unit};
use costline_syntax::span::Span;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// The default step budget of all symbolic sums of one unit (about a quarter of a
/// second of symbolic work on this project's reference machine).
pub const UNIT_MAX_STEPS: usize = 60_000;

/// Defaults and limits of the analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct FreqOptions {
    /// Probability of a data-dependent condition without a pragma.
    pub default_probability: Rational,
    /// Trip count of a loop whose bounds cannot be derived, without a pragma.
    pub default_trips: u64,
    /// Per symbolic sum: at most this many pieces...
    pub max_pieces: usize,
    /// ...and this many recursive steps.
    pub max_steps: usize,
    /// All symbolic sums of one unit together (its counts, and separately its work
    /// formulas): past this many steps, the remaining ones come from numeric counting.
    /// Limits are steps, never time, so the same input gives the same output on any
    /// machine, load or thread count.
    pub unit_max_steps: Option<usize>,
    /// Iterations the numeric fallback may enumerate.
    pub max_enumeration: u64,
}

impl Default for FreqOptions {
    fn default() -> FreqOptions {
        FreqOptions {
            default_probability: Rational::new(1, 2).expect("1/2"),
            default_trips: 100,
            max_pieces: 256,
            max_steps: 20_000,
            unit_max_steps: Some(UNIT_MAX_STEPS),
            max_enumeration: 10_000_000,
        }
    }
}

/// Where a probability or trip count the program text does not give comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The default ([`FreqOptions::default_probability`], [`FreqOptions::default_trips`]).
    Default,
    /// A `!costline:` pragma.
    Pragma,
    /// A profile run of the program; `run` names it (its date and arguments).
    Measured { run: Arc<str> },
}

/// Something the count rests on besides the program text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Assumption {
    /// The data-dependent condition of the IF or SELECT at `at` holds with probability `p`
    /// (measured: the branch at `at` was taken with probability `p` where no earlier
    /// one was).
    Probability {
        at: Span,
        p: Rational,
        source: Source,
    },
    /// The loop at `at` runs `trips` times per entry (measured: on average): its bounds
    /// are not known (`why`).
    Trips {
        at: Span,
        trips: Rational,
        source: Source,
        why: String,
    },
    /// The loop at `at` may be left early (EXIT, RETURN, STOP, GO TO): its count is an
    /// upper bound.
    EarlyExit { at: Span },
    /// The statement at `at` is the target of a GO TO: it is counted as if every run of
    /// its block reached it (an upper bound).
    JumpTarget { at: Span },
    /// The conditions on the path through the statement at `at` are too many to count
    /// exactly (more than 64 alternatives): estimated as a probability.
    Complex { at: Span },
    /// The branch of the IF at `at` ends the program (STOP, MPI_ABORT, a GO TO to the
    /// unit's end): its data-dependent condition is taken not to hold, the program to
    /// run to completion.
    ColdPath { at: Span },
    /// The IF or SELECT at `at` reads `names` from input at run time on some branches
    /// and gives them known values on the others: the known values are taken (the
    /// program's defaults, as when its input file is absent).
    InputDefault { at: Span, names: Vec<String> },
}

/// One alternative of a count: `weight ×` the number of integer points of
/// `constraints` over `vars`.
#[derive(Clone, Debug)]
pub struct CountTerm {
    /// Probability of the data-dependent conditions times assumed trip counts.
    pub weight: Rational,
    pub constraints: Vec<Constraint>,
    /// Loop variables, innermost first.
    pub vars: Vec<Name>,
    /// Shared with every other count of the same sum
    /// ([`costline_symbolic::symbolic_sum_shared`]).
    pub symbolic: Result<Arc<Piecewise>, SumError>,
}

/// How often something executes, per execution of its unit.
#[derive(Clone, Debug, Default)]
pub struct Count {
    pub terms: Vec<CountTerm>,
    pub assumptions: Vec<Assumption>,
    /// [`Count::symbolic`], summed once: a count is shared by every statement of its
    /// block and asked for by each call, hint and report row (a unit of thousands of
    /// statements under hundreds of alternatives summed it thousands of times).
    formula: OnceLock<Formula>,
    /// [`Count::symbolic`] printed ([`Count::symbolic_text`]), once per count.
    printed: OnceLock<Option<Arc<str>>>,
}

/// Where [`Count::symbolic`] finds the count's formula.
#[derive(Clone, Debug)]
enum Formula {
    /// The one term's own, as it is (weight 1, already simplified): not copied.
    Term,
    Own(Piecewise),
    None,
}

impl Count {
    /// The count `sum(weight × terms)` under `assumptions`.
    pub fn new(terms: Vec<CountTerm>, assumptions: Vec<Assumption>) -> Count {
        Count {
            terms,
            assumptions,
            formula: OnceLock::new(),
            printed: OnceLock::new(),
        }
    }

    /// [`Count::symbolic`] in Fortran notation, printed the first time it is asked for:
    /// every statement of a block reports its block's count, which can print as tens of
    /// kilobytes.
    pub fn symbolic_text(&self) -> Option<Arc<str>> {
        self.printed
            .get_or_init(|| {
                let fortran = costline_symbolic::Notation::Fortran;
                let p = self.symbolic()?;
                // The one term's shared formula, printed once for every count of it.
                match self.terms.as_slice() {
                    [t] if t.symbolic.as_deref().is_ok_and(|s| std::ptr::eq(s, p)) => {
                        let shared = t.symbolic.as_ref().ok()?;
                        Some(Piecewise::display_shared(shared, fortran))
                    }
                    _ => Some(Arc::from(p.display(fortran))),
                }
            })
            .clone()
    }

    /// The count as one guarded formula, when every term has one.
    pub fn symbolic(&self) -> Option<&Piecewise> {
        let formula = self.formula.get_or_init(|| {
            if let [t] = self.terms.as_slice()
                && t.weight == Rational::ONE
                && t.symbolic
                    .as_ref()
                    .is_ok_and(Piecewise::is_simplified_shared)
            {
                return Formula::Term;
            }
            let mut total = Piecewise::zero();
            for t in &self.terms {
                let Ok(p) = t.symbolic.as_ref() else {
                    return Formula::None;
                };
                let Ok(scaled) = p.scale(&Sym::rat(t.weight)) else {
                    return Formula::None;
                };
                total = total.plus(scaled);
            }
            total.simplified().map_or(Formula::None, Formula::Own)
        });
        match formula {
            Formula::Term => self.terms.first()?.symbolic.as_deref().ok(),
            Formula::Own(p) => Some(p),
            Formula::None => None,
        }
    }

    /// Why there is no formula, if there is none.
    pub fn symbolic_error(&self) -> Option<&SumError> {
        self.terms.iter().find_map(|t| t.symbolic.as_ref().err())
    }

    /// The unknowns the count depends on (the parameters of its constraints).
    pub fn unknowns(&self) -> Vec<Name> {
        let mut out: Vec<Name> = Vec::new();
        for t in &self.terms {
            for c in &t.constraints {
                for n in c.expr.vars() {
                    if !t.vars.contains(&n) && !out.contains(&n) {
                        out.push(n);
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// Whether the count is exactly what the program does (in the profiled run, where
    /// it rests on measured values): no assumed probability or trip count, no early
    /// exit.
    pub fn is_exact(&self) -> bool {
        self.assumptions.iter().all(Assumption::is_measured)
    }

    /// The count under `env`: from the formula, or, where the symbolic sum gave up, by a
    /// numeric count for these values.
    pub fn eval(&self, env: Env, options: &FreqOptions) -> Result<Num, EvalError> {
        let mut total = Num::Exact(Rational::ZERO);
        for t in &self.terms {
            let n = match &t.symbolic {
                Ok(p) => p.eval(env)?,
                Err(_) => numeric::count(&t.constraints, &t.vars, env, options)?,
            };
            total = total + n * Num::Exact(t.weight);
        }
        Ok(total)
    }
}

/// The counts of every statement of a unit, by statement id.
#[derive(Clone, Default)]
pub struct UnitFrequencies {
    counts: Vec<Arc<Count>>,
    /// What names mean at each assignment and CALL.
    scopes: Vec<Option<convert::Names>>,
    /// What names mean when the unit returns, where that is at its end only.
    exit: Option<convert::Names>,
    functions: Vec<FunctionCall>,
}

/// A call of a user function whose arguments are formulas (`ilog2(n2)`): the counts
/// name its value `key`, which a binding of the arguments gives.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionCall {
    pub key: String,
    pub function: String,
    pub args: Vec<Sym>,
}

impl std::fmt::Debug for UnitFrequencies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnitFrequencies")
            .field("counts", &self.counts)
            .finish()
    }
}

impl UnitFrequencies {
    /// The count of statement `id` (a loop's count is its number of iterations).
    pub fn of(&self, id: StmtId) -> Option<&Count> {
        self.counts.get(id.0 as usize).map(|c| &**c)
    }

    /// What names mean at assignment or CALL `id`: loop variables and reaching scalar
    /// values.
    pub fn scope_of(&self, id: StmtId) -> Option<&convert::Names> {
        self.scopes.get(id.0 as usize)?.as_ref()
    }

    /// What names mean when the unit returns: `None` when it may return before its
    /// end (a RETURN or a GO TO to its last statements), where values may differ.
    pub fn exit(&self) -> Option<&convert::Names> {
        self.exit.as_ref()
    }

    /// The calls of user functions at formula arguments the counts name, inner ones
    /// first.
    pub fn functions(&self) -> &[FunctionCall] {
        &self.functions
    }

    /// The count of statement `id` and an identity shared by the statements with the
    /// same count (those of one block), to evaluate each count once.
    pub fn shared(&self, id: StmtId) -> Option<(usize, &Count)> {
        self.counts
            .get(id.0 as usize)
            .map(|c| (Arc::as_ptr(c) as usize, &**c))
    }
}

/// Counts every statement and loop of `unit`.
pub fn frequencies(unit: &Unit, options: &FreqOptions) -> UnitFrequencies {
    frequencies_with(
        unit,
        options,
        &HashMap::new(),
        &[],
        &execute::NoFunctions,
        convert::Names::default(),
        &Measured::default(),
    )
}

/// Counts every statement and loop of `unit`, each CALL in `effects` changing the
/// values it sets ([`CallEffect`]); the elements of the COMMON arrays in `data_arrays`
/// (which no unit gives a value at constant subscripts: flags, tables) enter the unit
/// as data, not as values its callers may pass; user functions called with constant
/// arguments take the values `functions` gives; the unit's constants (in `entry`, the
/// names the unit is entered with) give numbers where code runs as set-up ([`execute`])
/// or subscripts must be numbers, and its tables ([`table`]) formulas; what a profile
/// run `measured` replaces the probabilities and trip counts it would assume.
pub fn frequencies_with(
    unit: &Unit,
    options: &FreqOptions,
    effects: &HashMap<StmtId, CallEffect>,
    data_arrays: &[String],
    functions: &dyn execute::FunctionValues,
    entry: convert::Names,
    measured: &Measured,
) -> UnitFrequencies {
    walk::Walker::new(unit, options, effects, functions, measured).run(data_arrays, entry)
}
