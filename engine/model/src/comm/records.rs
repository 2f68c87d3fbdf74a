//! Communication records under the bindings: for every pair of processors, how many
//! messages the sender sends the receiver and how many bytes, per run of the unit.
//!
//! Counting (per alternative of the iteration set): the variables of the kept loops are
//! the *instances* of the fetch, the others are vectorized over. When no constraint
//! ties an instance variable to a vectorized one, each instance fetches the same
//! elements: messages(q → p) = instances × [elements > 0] and bytes = instances ×
//! elements × element size. The elements are distinct when the subscripts are
//! one-to-one in the vectorized loop variables (full column rank); a variable no
//! subscript mentions repeats the same elements and is projected out (its range only
//! decides whether there is anything to fetch). The counts are symbolic sums in the
//! processors' coordinates, evaluated per pair. Anything else — coupled bounds,
//! subscripts that fold several iterations onto one element — is enumerated element by
//! element per processor, up to the enumeration limit.

use super::cost::{CommMetrics, Network};
use super::element::Element;
use super::gather::{self, GatherSite, Measured, MeasuredGather};
use super::injective::one_to_one;
use super::mpi::{self, MpiValues};
use super::pattern::Pattern;
use super::ranks::MpiRanks;
use super::reduction::{self, Reduction};
use super::residues;
use super::{CommTerm, Placement, RefComm, RefKind, UnitComm, sender_coordinate};
use crate::distribution::{Arrangement, Layout, Mapping};
use crate::freq::counter::Counter;
use crate::freq::nest::{Narrowed, Point, narrow};
use crate::freq::{FreqOptions, numeric};
use costline_symbolic::{Constraint, Env, EvalError, Name, Num, Rational, Sym};
use costline_syntax::ir::StmtId;
use costline_syntax::span::Span;
use rustc_hash::FxHashSet;
use smallvec::SmallVec;
use std::collections::{BTreeMap, HashMap};

/// Processor pairs beyond this many get no records.
pub const MAX_PAIRS: i128 = 1 << 16;

/// What processor `from` sends processor `to` (1-based) for one reference, per run of
/// the unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub from: usize,
    pub to: usize,
    pub messages: f64,
    pub bytes: f64,
}

/// One reference's communication under the bindings.
#[derive(Clone, Debug, PartialEq)]
pub struct RefValues {
    pub array: String,
    pub reference: String,
    /// The reference, unit-relative.
    pub span: Span,
    pub elem_bytes: u64,
    /// Where the fetch goes: the loops it stays inside and those it is vectorized over.
    pub placement: Placement,
    pub indexed_by_kept_loop: bool,
    /// The records, sorted by (from, to), only pairs that communicate; or why there are
    /// none to show.
    pub records: Result<Vec<Record>, String>,
    /// Whether the records count exactly what the program does (no branch
    /// probabilities, no assumed trip counts).
    pub exact: bool,
    pub pattern: Pattern,
    /// The processors the records are among (for the topology's distances).
    pub processors: usize,
    /// NT, TD, TT and the critical path, when there are records and they are priced.
    pub metrics: Option<CommMetrics>,
    /// A REDISTRIBUTE or REALIGN moving the array (not a read).
    pub remap: bool,
    /// Why the element read is unknown, when the records are an upper bound
    /// ([`super::bound`]).
    pub bound: Option<String>,
    /// Where the records are what a profile run measured of the read
    /// ([`super::gather`]): the run and the layouts, in words.
    pub measured: Option<String>,
}

/// The communication of every assignment of a unit under the bindings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitCommValues {
    stmts: HashMap<StmtId, Vec<RefValues>>,
    /// The MPI calls.
    pub mpi: HashMap<StmtId, MpiValues>,
}

impl RefValues {
    /// Whether the fetch stays inside a loop that writes the array with no loop left to
    /// vectorize over: one message per element (not said of reductions, whose message
    /// is one result whatever the placement).
    pub fn element_wise(&self) -> bool {
        self.placement.element_wise() && self.pattern != Pattern::Reduction && !self.remap
    }
}

impl UnitCommValues {
    pub fn of(&self, id: StmtId) -> &[RefValues] {
        self.stmts.get(&id).map_or(&[], Vec::as_slice)
    }

    /// The statement's metrics: the sum over its references, or its MPI call's.
    pub fn metrics(&self, id: StmtId) -> Option<CommMetrics> {
        if let Some(m) = self.mpi.get(&id) {
            return m.metrics.as_ref().ok().copied();
        }
        let refs = self.stmts.get(&id)?;
        let all: Vec<CommMetrics> = refs.iter().filter_map(|r| r.metrics).collect();
        (!all.is_empty()).then(|| CommMetrics::sum(&all))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&StmtId, &Vec<RefValues>)> {
        self.stmts.iter()
    }

    /// These records with `exact` false for the references whose records rest on one
    /// of `varied` (values a profile run recorded that varied on a rank, counted with
    /// their rounded mean): the statement's count needs it, or the reference's
    /// iteration sets or subscripts do.
    pub fn with_estimates(
        mut self,
        comm: &UnitComm,
        freqs: &crate::freq::UnitFrequencies,
        varied: &[&str],
    ) -> UnitCommValues {
        if varied.is_empty() {
            return self;
        }
        for (id, values) in &mut self.stmts {
            let count = freqs.of(*id).is_some_and(|c| {
                c.unknowns()
                    .iter()
                    .any(|n| varied.contains(&(n.as_ref() as &str)))
            });
            for v in values.iter_mut() {
                let sets = comm
                    .of(*id)
                    .iter()
                    .find(|r| r.reference == v.reference)
                    .is_some_and(|r| match &r.kind {
                        RefKind::Counted(c) => c.terms.iter().any(|t| {
                            varied.iter().any(|n| {
                                t.constraints.iter().any(|k| k.mentions(n))
                                    || t.subscripts.iter().any(|x| x.mentions(n))
                            })
                        }),
                        _ => false,
                    });
                if count || sets {
                    v.exact = false;
                }
            }
        }
        self
    }

    /// These values with `refs` added to their statements (the remapping records of
    /// calls, `costline_db::calls::call_remaps`).
    pub fn with(mut self, refs: &[(StmtId, RefValues)]) -> UnitCommValues {
        for (id, r) in refs {
            self.stmts.entry(*id).or_default().push(r.clone());
        }
        self
    }

    /// The unit's own communication per run (Definition 4.6 without its calls): the sum
    /// over its statements, if any has metrics.
    pub fn total(&self, unit: &costline_syntax::ir::Unit) -> Option<CommMetrics> {
        let mut all = Vec::new();
        unit.walk(&mut |s, _| all.extend(self.metrics(s.id)));
        (!all.is_empty()).then(|| CommMetrics::sum(&all))
    }
}

/// What a profile run measured of a unit's irregular reads, and the run in words.
#[derive(Clone, Copy, Default)]
pub struct Gathers<'a> {
    pub measured: &'a [MeasuredGather],
    pub run: &'a str,
}

/// Counts the communication records of a unit under `env` (no prices yet: the same
/// records serve every machine); a read the analysis cannot follow takes what a
/// profile run measured of it where it applies ([`super::gather`]).
pub fn unit_comm_records(
    comm: &UnitComm,
    freq: &dyn Fn(StmtId) -> Option<f64>,
    env: Env,
    options: &FreqOptions,
    gathers: Gathers,
) -> UnitCommValues {
    let stmts = comm
        .iter()
        .map(|(id, refs)| {
            let values = refs.iter().map(|r| {
                let v = ref_values(r, freq, env, options);
                match &r.gather {
                    Some(site) => with_measured(v, (r, site), (*id, freq(*id)), gathers, env),
                    None => v,
                }
            });
            (*id, values.collect())
        })
        .collect();
    UnitCommValues {
        stmts,
        mpi: HashMap::new(),
    }
}

impl UnitCommValues {
    /// These records priced on `network` (NT, TD, TT and the critical path of each
    /// reference), with the unit's MPI calls: from their per-rank evaluation
    /// (`ranks`) where it priced them on every rank, else from their frequency.
    pub fn priced(
        &self,
        comm: &UnitComm,
        freq: &dyn Fn(StmtId) -> Option<f64>,
        env: Env,
        network: &Network,
        ranks: Option<&MpiRanks>,
    ) -> UnitCommValues {
        let stmts =
            self.stmts
                .iter()
                .map(|(id, refs)| {
                    let priced =
                        refs.iter()
                            .map(|r| RefValues {
                                metrics: r.records.as_ref().ok().map(|rs| {
                                    CommMetrics::of(rs, r.pattern, network, r.processors)
                                }),
                                ..r.clone()
                            })
                            .collect();
                    (*id, priced)
                })
                .collect();
        let mpi = comm
            .mpi
            .iter()
            .map(|(id, call)| {
                let group = call
                    .comm
                    .as_deref()
                    .and_then(|c| comm.carts.size_of(c, env)?.ok());
                let values = mpi::values(call, freq(*id), env, network, group);
                let per_rank = ranks
                    .filter(|r| !r.missing.iter().any(|(s, _)| s == id))
                    .and_then(|r| r.stmts.get(id));
                let values = match per_rank {
                    Some(m) => values.with_metrics(*m),
                    None => values,
                };
                (*id, values)
            })
            .collect();
        UnitCommValues { stmts, mpi }
    }
}

fn ref_values(
    r: &RefComm,
    freq: &dyn Fn(StmtId) -> Option<f64>,
    env: Env,
    options: &FreqOptions,
) -> RefValues {
    let (records, exact) = match &r.kind {
        RefKind::Local => (Ok(Vec::new()), true),
        RefKind::Reduction(red) => match reduction_records(red, r.elem_bytes, freq, env) {
            Ok(records) => (Ok(records), !red.repeated),
            Err(why) => (Err(why), false),
        },
        RefKind::Counted(c) => {
            let job = Job {
                executing: &c.executing,
                senders: &c.senders,
                mapping: &c.mapping,
                outer_vars: &c.outer_vars,
                elem_bytes: r.elem_bytes as f64,
                env,
                options,
            };
            match job.records(&c.terms) {
                Ok((records, exact)) => (Ok(records), exact),
                Err(why) => (Err(why), false),
            }
        }
        RefKind::Remap(m) => match freq(m.stmt) {
            Some(times) => match m.remap.records(r.elem_bytes, times, env, options) {
                Ok(records) => (Ok(records), m.exact),
                Err(why) => (Err(why), false),
            },
            None => (Err("its frequency is unknown".to_string()), false),
        },
        RefKind::Bound(b) => (b.records(r.elem_bytes, freq, env, options), false),
        RefKind::Irregular(why) => (Err(format!("not modelled: {why}")), false),
    };
    let pattern = match (&records, &r.kind) {
        (Ok(rs), RefKind::Reduction(_)) if !rs.is_empty() => Pattern::Reduction,
        (Ok(rs), _) => Pattern::classify(rs, env, r),
        (Err(_), _) => Pattern::Unknown,
    };
    RefValues {
        array: r.array.clone(),
        reference: r.reference.clone(),
        span: r.span,
        elem_bytes: r.elem_bytes,
        placement: r.placement.clone(),
        indexed_by_kept_loop: r.indexed_by_kept_loop,
        records,
        exact,
        pattern,
        processors: processors(r, env),
        metrics: None,
        remap: matches!(r.kind, RefKind::Remap(_)),
        bound: match &r.kind {
            RefKind::Bound(b) => Some(b.why.clone()),
            _ => None,
        },
        measured: None,
    }
}

/// The values `v` of the read `r` the analysis cannot follow (its site `site`, of
/// statement `stmt`, run `runs` times per run of the unit) with what a profile run
/// measured of it: its records where the measurements apply, else why not added to
/// the reason.
fn with_measured(
    v: RefValues,
    (r, site): (&RefComm, &GatherSite),
    (stmt, runs): (StmtId, Option<f64>),
    gathers: Gathers,
    env: Env,
) -> RefValues {
    let at = (stmt, v.reference.as_str());
    match gather::measured_records(site, at, gathers.measured, runs, v.elem_bytes, env) {
        None => v,
        Some(Measured::Records(records, layouts)) => {
            let processors = std::iter::once(&layouts.read)
                .chain(&layouts.lhs)
                .map(Layout::processors)
                .max()
                .unwrap_or(1);
            RefValues {
                pattern: Pattern::classify(&records, env, r),
                records: Ok(records),
                exact: true,
                bound: None,
                processors: usize::try_from(processors).unwrap_or(1),
                measured: Some(format!(
                    "measured ({}): the owners of the elements it read, under {}",
                    gathers.run,
                    layouts.describe()
                )),
                ..v
            }
        }
        Some(Measured::NotApplied(why)) => match (v.bound, v.records) {
            (Some(bound), records) => RefValues {
                bound: Some(format!("{bound}; {why}")),
                records,
                ..v
            },
            (None, Err(e)) => RefValues {
                records: Err(format!("{e}; {why}")),
                bound: None,
                ..v
            },
            (None, records) => RefValues {
                records,
                bound: None,
                ..v
            },
        },
    }
}

/// The all-reduce records of a reduction: its instances (iterations of the loop it
/// stays in, or one per run) and its vector length (the statement's executions per
/// instance, when hoisted loops vary its argument).
fn reduction_records(
    red: &Reduction,
    elem_bytes: u64,
    freq: &dyn Fn(StmtId) -> Option<f64>,
    env: Env,
) -> Result<Vec<Record>, String> {
    let p: i128 = extents(&red.participants, env)?.iter().product();
    let runs = freq(red.stmt).ok_or("its frequency is unknown")?;
    let instances = match red.kept_loop {
        Some(l) => freq(l).ok_or("its loop's frequency is unknown")?.min(runs),
        None => runs.min(1.0),
    };
    if instances <= 0.0 {
        return Ok(Vec::new());
    }
    let vector = if red.vectorized {
        runs / instances
    } else {
        1.0
    };
    let p = usize::try_from(p)
        .ok()
        .filter(|&p| p as i128 <= MAX_PAIRS)
        .ok_or_else(|| format!("more than {MAX_PAIRS} processors: records are not listed"))?;
    Ok(reduction::tree_records(
        p,
        instances,
        vector * elem_bytes as f64,
    ))
}

/// How many processors the reference's records number: the larger arrangement of the
/// executing and sending ones (or the reduction's); 1 when unknown.
fn processors(r: &RefComm, env: Env) -> usize {
    let size = |a: &Arrangement| extents(a, env).map_or(1, |e| e.iter().product::<i128>());
    let p = match &r.kind {
        RefKind::Counted(c) => size(&c.executing).max(size(&c.senders)),
        RefKind::Reduction(red) => size(&red.participants),
        RefKind::Bound(b) => size(&b.mapping.distribution.onto),
        RefKind::Remap(m) => {
            let sizes = [m.remap.senders(), m.remap.receivers()];
            sizes.into_iter().flatten().map(size).max().unwrap_or(1)
        }
        RefKind::Irregular(_) | RefKind::Local => 1,
    };
    usize::try_from(p).unwrap_or(usize::MAX)
}

/// The extents of arrangement `a` under `env`, each at least 1.
pub(super) fn extents(a: &Arrangement, env: Env) -> Result<Vec<i128>, String> {
    a.extents
        .iter()
        .map(|e| match e.eval(env) {
            Ok(Num::Exact(r)) => r
                .as_integer()
                .filter(|v| *v >= 1)
                .ok_or_else(|| format!("`{}` has {r} processors", a.name)),
            _ => {
                let names: Vec<String> = e.vars().iter().map(|n| format!("`{n}`")).collect();
                let whose = if a.default {
                    "the default arrangement".to_string()
                } else {
                    format!("`{}`", a.name)
                };
                Err(format!(
                    "the number of processors of {whose} needs a value for {}",
                    names.join(", ")
                ))
            }
        })
        .collect()
}

struct Job<'a> {
    executing: &'a Arrangement,
    senders: &'a Arrangement,
    mapping: &'a Mapping,
    outer_vars: &'a [Name],
    elem_bytes: f64,
    env: Env<'a>,
    options: &'a FreqOptions,
}

/// A term of the element-by-element count in the variables it is enumerated over, with
/// the read's subscripts and the instance's values (the outer variables) in them.
struct Space {
    space: Narrowed,
    subscripts: Vec<Sym>,
    instance: Vec<Sym>,
}

/// A distinct read or message of the element-by-element count: the sender, the
/// instance's values, then (for a read) the element's subscripts.
type Key = SmallVec<[i128; 6]>;

/// Per (sender, receiver): messages and elements.
type Tally = BTreeMap<(usize, usize), (f64, f64)>;

/// A term split for the symbolic route: the instance variables and their constraints,
/// the vectorized variables the subscripts mention and theirs, and the vectorized
/// variables no subscript mentions (projected out: their range only decides whether
/// there is anything to fetch).
struct Separated {
    outer: Vec<Name>,
    c_outer: Vec<Constraint>,
    kept_vars: Vec<Name>,
    c_kept: Vec<Constraint>,
    absent: Vec<Name>,
    c_proj: Vec<Constraint>,
    /// The subscripts with every unknown bound.
    subscripts: Vec<Sym>,
}

/// One term prepared for enumeration: the constraints and variables enumerated point by
/// point, and the instance variables whose values all fetch alike, only counted.
struct Prepared<'t> {
    rest: Vec<Constraint>,
    vars: Vec<Name>,
    subscripts: &'t [Sym],
    alike: Vec<Constraint>,
    alike_vars: Vec<Name>,
}

impl Job<'_> {
    fn records(&self, terms: &[CommTerm]) -> Result<(Vec<Record>, bool), String> {
        let ex = extents(self.executing, self.env)?;
        let sx = extents(self.senders, self.env)?;
        let pairs = ex
            .iter()
            .chain(&sx)
            .try_fold(1i128, |a, e| a.checked_mul(*e));
        if pairs.is_none_or(|n| n > MAX_PAIRS) {
            return Err(format!(
                "more than {MAX_PAIRS} processor pairs: records are not listed"
            ));
        }
        let mut tally = Tally::new();
        let exact = terms.iter().all(|t| t.weight == Rational::ONE);
        let bound = terms
            .iter()
            .map(|t| self.bind(t))
            .collect::<Result<Vec<_>, _>>()?;
        // The symbolic route counts one piece at a time and takes the sender to be the
        // only owner. Pieces of one set may share elements and instances: their counts
        // add up only when no pair of processors occurs in two of them, or when they
        // read disjoint elements over the same instances; otherwise, and for replicated
        // elements (the receiver may hold a copy; the lowest-numbered owner sends), the
        // pieces are enumerated together. A term under a modulus is split on its
        // residue classes first ([`residues`]).
        if exact && self.mapping.replicated() {
            self.enumerate(&bound, &ex, 1.0, &mut tally)?;
        } else if exact {
            let split: Vec<CommTerm> = bound
                .iter()
                .flat_map(|t| residues::split(t).unwrap_or_else(|| vec![t.clone()]))
                .collect();
            let counted = match split.as_slice() {
                [one] => {
                    let done = self.separable(one, &ex, &sx, 1.0, &mut tally);
                    done.unwrap_or(false).then_some(())
                }
                pieces => self
                    .disjoint_pieces(&bound, pieces, &ex, &sx)
                    .map(|t| tally = t),
            };
            if counted.is_none() {
                tally.clear();
                self.enumerate(&bound, &ex, 1.0, &mut tally)?;
            }
        } else {
            for t in &bound {
                let w = t.weight.to_f64();
                let done = self.separable(t, &ex, &sx, w, &mut tally).unwrap_or(false);
                if !done {
                    self.enumerate(std::slice::from_ref(t), &ex, w, &mut tally)?;
                }
            }
        }
        let records = tally
            .into_iter()
            .filter(|(_, (m, e))| *m > 0.0 && *e > 0.0)
            .map(|((from, to), (messages, elements))| Record {
                from,
                to,
                messages,
                bytes: elements * self.elem_bytes,
            })
            .collect();
        Ok((records, exact))
    }

    /// The pieces counted one by one (symbolically, or enumerated when a piece is not of
    /// the symbolic shape), if their counts add up: no pair of processors communicates
    /// in two of them, or the pieces that share a pair are [`united`](Self::united).
    /// `pieces` are the terms `origins` or their residue classes.
    fn disjoint_pieces(
        &self,
        origins: &[CommTerm],
        pieces: &[CommTerm],
        ex: &[i128],
        sx: &[i128],
    ) -> Option<Tally> {
        let separated: Vec<Option<Separated>> = pieces.iter().map(|t| self.separate(t)).collect();
        let united = {
            let origins: Vec<Option<Separated>> =
                origins.iter().map(|t| self.separate(t)).collect();
            Self::united(&origins, &separated)
        };
        let mut all = Tally::new();
        for (t, s) in pieces.iter().zip(separated) {
            let mut one = Tally::new();
            let counted = match s {
                Some(s) => self.count_separated(s, ex, sx, 1.0, &mut one),
                None => Some(false),
            };
            if !counted.unwrap_or(false) {
                self.enumerate(std::slice::from_ref(t), ex, 1.0, &mut one)
                    .ok()?;
            }
            for (pair, counts) in one {
                if counts.0 <= 0.0 || counts.1 <= 0.0 {
                    continue;
                }
                match all.get_mut(&pair) {
                    None => {
                        all.insert(pair, counts);
                    }
                    // The same instances fetch in both pieces: one message each, and
                    // the pieces' elements, which are distinct, add up.
                    Some(slot) if united && slot.0 == counts.0 => slot.1 += counts.1,
                    Some(_) => return None,
                }
            }
        }
        Some(all)
    }

    /// Whether disjoint pieces of one iteration set read disjoint elements over the same
    /// instances, so that a pair of processors communicating in several of them gets
    /// one message per instance and the sum of their elements: the terms the pieces come
    /// from are of the symbolic shape with no projected variable (each vectorized
    /// iteration reads its own element) and the same subscripts (one-to-one, so
    /// disjoint iterations read disjoint elements), and every piece is of the symbolic
    /// shape with the same instance variables and constraints.
    fn united(origins: &[Option<Separated>], pieces: &[Option<Separated>]) -> bool {
        let (Some(Some(origin)), Some(Some(piece))) = (origins.first(), pieces.first()) else {
            return false;
        };
        origins.iter().all(|s| {
            s.as_ref()
                .is_some_and(|s| s.absent.is_empty() && s.subscripts == origin.subscripts)
        }) && pieces.iter().all(|s| {
            s.as_ref().is_some_and(|s| {
                s.absent.is_empty() && s.outer == piece.outer && s.c_outer == piece.c_outer
            })
        })
    }

    fn coordinates(a: &Arrangement, sender: bool) -> Vec<Name> {
        (0..a.extents.len())
            .map(|k| {
                if sender {
                    sender_coordinate(a, k)
                } else {
                    a.coordinate(k)
                }
            })
            .collect()
    }

    /// The term with every unknown replaced by its value: only loop variables, cycle
    /// numbers and the processors' coordinates stay.
    fn bind(&self, t: &CommTerm) -> Result<CommTerm, String> {
        let keep = |n: &Name| n.starts_with("$p") || n.starts_with("$s") || t.vars.contains(n);
        let constraints = numeric::bind(&t.constraints, &keep, self.env).map_err(|e| match e {
            EvalError::Unbound(name) => format!("needs a value for `{name}`"),
            _ => "a bound too large to count with".to_string(),
        })?;
        Ok(CommTerm {
            weight: t.weight,
            constraints,
            vars: t.vars.clone(),
            subscripts: t.subscripts.clone(),
        })
    }

    fn subscripts_bound(&self, t: &CommTerm) -> Option<Vec<Sym>> {
        let vars = &t.vars;
        t.subscripts
            .iter()
            .map(|s| {
                s.vars().into_iter().try_fold(s.clone(), |s, n| {
                    if vars.contains(&n) {
                        Some(s)
                    } else {
                        s.subst(&n, &Sym::int((self.env)(&n)?)).ok()
                    }
                })
            })
            .collect()
    }

    /// The term split for the symbolic route, or `None` when it is not of its shape: no
    /// constraint ties an instance variable to a vectorized one, and the subscripts are
    /// one-to-one in the vectorized variables they mention.
    fn separate(&self, t: &CommTerm) -> Option<Separated> {
        let is_aux = |n: &Name| n.starts_with("$q") || n.starts_with("$r");
        let loop_vars: Vec<&Name> = t.vars.iter().filter(|v| !is_aux(v)).collect();
        let mut outer: Vec<Name> = loop_vars
            .iter()
            .filter(|v| self.outer_vars.contains(v))
            .map(|v| (*v).clone())
            .collect();
        let inner_loop: Vec<Name> = loop_vars
            .iter()
            .filter(|v| !self.outer_vars.contains(v))
            .map(|v| (*v).clone())
            .collect();
        // A cycle number goes with the instance when it is tied to instance variables
        // only.
        let mut inner: Vec<Name> = inner_loop.clone();
        for a in t.vars.iter().filter(|v| is_aux(v)) {
            let tied_inner = t
                .constraints
                .iter()
                .any(|c| c.mentions(a) && inner_loop.iter().any(|v| c.mentions(v)));
            if tied_inner {
                inner.push(a.clone());
            } else {
                outer.push(a.clone());
            }
        }
        let mut c_outer = Vec::new();
        let mut c_inner = Vec::new();
        for c in &t.constraints {
            let o = outer.iter().any(|v| c.mentions(v));
            let i = inner.iter().any(|v| c.mentions(v));
            match (o, i) {
                (true, true) => return None,
                (true, false) => c_outer.push(c.clone()),
                (false, _) => c_inner.push(c.clone()),
            }
        }
        // Distinct elements: the subscripts one-to-one in the vectorized variables that
        // they mention; the others project out.
        let subs = self.subscripts_bound(t)?;
        let (mentioned, absent): (Vec<Name>, Vec<Name>) = inner_loop
            .iter()
            .cloned()
            .partition(|v| subs.iter().any(|s| s.mentions(v)));
        if !one_to_one(&subs, &mentioned)? {
            return None;
        }
        let (c_proj, c_kept): (Vec<Constraint>, Vec<Constraint>) = c_inner
            .into_iter()
            .partition(|c| absent.iter().any(|v| c.mentions(v)));
        let kept_vars: Vec<Name> = inner
            .iter()
            .filter(|v| !absent.contains(v))
            .cloned()
            .collect();
        if c_proj
            .iter()
            .any(|c| kept_vars.iter().any(|v| c.mentions(v)))
        {
            return None;
        }
        Some(Separated {
            outer,
            c_outer,
            kept_vars,
            c_kept,
            absent,
            c_proj,
            subscripts: subs,
        })
    }

    /// The symbolic route; `Ok(false)` (or `Err`) when the term is not of its shape.
    fn separable(
        &self,
        t: &CommTerm,
        ex: &[i128],
        sx: &[i128],
        w: f64,
        tally: &mut Tally,
    ) -> Option<bool> {
        match self.separate(t) {
            Some(s) => self.count_separated(s, ex, sx, w, tally),
            None => Some(false),
        }
    }

    /// Per pair of processors: elements = the vectorized count, messages = the
    /// instances (Definition 4.6's NT and TD of one reference), both weighed by `w`.
    fn count_separated(
        &self,
        s: Separated,
        ex: &[i128],
        sx: &[i128],
        w: f64,
        tally: &mut Tally,
    ) -> Option<bool> {
        let pc = Self::coordinates(self.executing, false);
        let sc = Self::coordinates(self.senders, true);
        let params: Vec<Name> = pc.iter().chain(&sc).cloned().collect();
        let ep: i128 = ex.iter().product();
        let sp: i128 = sx.iter().product();
        if ep.saturating_mul(sp) > super::MAX_PAIRS {
            return None;
        }
        let pairs = (ep * sp) as usize;
        let counter =
            |c: Vec<Constraint>, vars: &[Name]| Counter::new(c, vars, &params, pairs, self.options);
        let mut f_outer = counter(s.c_outer, &s.outer);
        let mut f_inner = counter(s.c_kept, &s.kept_vars);
        let mut f_proj = (!s.absent.is_empty()).then(|| counter(s.c_proj, &s.absent));
        // Into the tally only once every pair is counted.
        let mut counted = Vec::new();
        for p in 1..=ep {
            let pv = Arrangement::coordinates(ex, p);
            for q in 1..=sp {
                costline_symbolic::interrupt::point();
                if p == q {
                    continue;
                }
                let qv = Arrangement::coordinates(sx, q);
                let at: Vec<i128> = pv.iter().chain(&qv).map(|c| c + 1).collect();
                let mut elements = f_inner.at(&at)?;
                if let Some(fp) = &mut f_proj
                    && fp.at(&at)? <= 0.0
                {
                    elements = 0.0;
                }
                if elements <= 0.0 {
                    continue;
                }
                let instances = f_outer.at(&at)?;
                if instances <= 0.0 {
                    continue;
                }
                counted.push(((q as usize, p as usize), instances, elements));
            }
        }
        for (pair, instances, elements) in counted {
            let slot = tally.entry(pair).or_default();
            slot.0 += w * instances;
            slot.1 += w * instances * elements;
        }
        Some(true)
    }

    /// How many points `enumerate` would visit, when they can be counted.
    fn points(&self, prepared: &[Prepared], pc: &[Name], ex: &[i128]) -> Option<f64> {
        let ep = ex.iter().product::<i128>();
        let mut total = 0.0;
        for t in prepared {
            let mut count = Counter::new(t.rest.clone(), &t.vars, pc, ep as usize, self.options);
            for p in 1..=ep {
                costline_symbolic::interrupt::point();
                let at: Vec<i128> = Arrangement::coordinates(ex, p)
                    .iter()
                    .map(|c| c + 1)
                    .collect();
                total += count.at(&at)?;
            }
        }
        Some(total)
    }

    /// Splits off the instance variables whose every value fetches alike: kept-loop
    /// variables no subscript mentions and no constraint ties to another variable
    /// (the time-step loop around a sweep). They are counted, not enumerated with the
    /// rest.
    fn factor_instances<'t>(
        &self,
        mine: Vec<Constraint>,
        vars: Vec<Name>,
        subscripts: &'t [Sym],
    ) -> Prepared<'t> {
        let alike_vars: Vec<Name> = vars
            .iter()
            .filter(|v| {
                self.outer_vars.contains(v)
                    && !subscripts.iter().any(|s| s.mentions(v))
                    && !mine
                        .iter()
                        .any(|c| c.mentions(v) && vars.iter().any(|o| o != *v && c.mentions(o)))
            })
            .cloned()
            .collect();
        let (alike, rest): (Vec<Constraint>, Vec<Constraint>) = mine
            .into_iter()
            .partition(|c| alike_vars.iter().any(|v| c.mentions(v)));
        Prepared {
            rest,
            vars: vars
                .into_iter()
                .filter(|v| !alike_vars.contains(v))
                .collect(),
            subscripts,
            alike,
            alike_vars,
        }
    }

    /// Element by element: for every executing processor, its iterations, the element
    /// each reads and that element's owner.
    /// The alternatives are disjoint pieces of one iteration set, enumerated together so
    /// that an element (or an instance) shared by two pieces is fetched once.
    fn enumerate(
        &self,
        terms: &[CommTerm],
        ex: &[i128],
        w: f64,
        tally: &mut Tally,
    ) -> Result<(), String> {
        // The executing processor's constraints only: the sender follows from the element.
        let sc = Self::coordinates(self.senders, true);
        let prepared: Vec<Prepared> = terms
            .iter()
            .map(|t| {
                let mine: Vec<Constraint> = t
                    .constraints
                    .iter()
                    .filter(|c| {
                        !sc.iter().any(|s| c.mentions(s))
                            && !t.vars.iter().any(|v| v.starts_with("$r") && c.mentions(v))
                    })
                    .cloned()
                    .collect();
                let vars: Vec<Name> = t
                    .vars
                    .iter()
                    .filter(|v| !v.starts_with("$r"))
                    .cloned()
                    .collect();
                self.factor_instances(mine, vars, &t.subscripts)
            })
            .collect();
        // Pieces enumerated together share their instances: they factor only alike.
        let mut prepared = prepared;
        if prepared
            .windows(2)
            .any(|w| (&w[0].alike, &w[0].alike_vars) != (&w[1].alike, &w[1].alike_vars))
        {
            for t in &mut prepared {
                t.rest.append(&mut t.alike);
                t.vars.append(&mut t.alike_vars);
            }
        }
        let pc = Self::coordinates(self.executing, false);
        let ep: i128 = ex.iter().product();
        let mut left = self.options.max_enumeration;
        if self
            .points(&prepared, &pc, ex)
            .is_some_and(|n| n > left as f64)
        {
            return Err(format!(
                "more than {left} reads to enumerate (the limit of the element-by-element count)"
            ));
        }
        // Sizes and bounds valued once, not per element.
        let valued = Layout::of(self.mapping, &[], self.env);
        // Cyclic ownership's cycle numbers step over the owned values only; the
        // subscripts and the instance then follow from the new variables.
        let spaces: Vec<Space> = prepared
            .iter()
            .map(|t| {
                let space = narrow(&t.rest, &t.vars, &|v| v.starts_with("$q"));
                let exprs = |es: Vec<Sym>| -> Result<Vec<Sym>, String> {
                    es.iter()
                        .map(|e| space.expr(e))
                        .collect::<Option<_>>()
                        .ok_or_else(|| "a bound too large to count with".to_string())
                };
                let subscripts = exprs(t.subscripts.to_vec())?;
                let instance = exprs(
                    self.outer_vars
                        .iter()
                        .filter(|v| t.vars.contains(v))
                        .map(|v| Sym::var(v))
                        .collect(),
                )?;
                Ok(Space {
                    space,
                    subscripts,
                    instance,
                })
            })
            .collect::<Result<_, String>>()?;
        for p in 1..=ep {
            let pv = Arrangement::coordinates(ex, p);
            let at = |n: &str| pc.iter().position(|c| &**c == n).map(|k| pv[k] + 1);
            // The distinct (sender, instance) pairs and (sender, instance, element)
            // reads; keys inline, hashed with FxHash: this runs once per read.
            let mut messages: FxHashSet<Key> = FxHashSet::default();
            let mut reads: FxHashSet<Key> = FxHashSet::default();
            let mut failed = None;
            let mut visit = |element: &mut Element, instance: &mut Element, point: Point| {
                if failed.is_some() {
                    return;
                }
                let (Some(element), Some(instance)) = (element.at(point), instance.at(point))
                else {
                    failed = Some("a subscript without a value".to_string());
                    return;
                };
                let Some(owners) = valued.as_ref().and_then(|v| v.owners(&element)) else {
                    failed = Some(format!("element {element:?} has no owner"));
                    return;
                };
                if owners.contains(&(p as usize)) || owners.is_empty() {
                    return;
                }
                let mut key = Key::new();
                key.push(owners[0] as i128);
                key.extend(instance);
                messages.insert(key.clone());
                key.extend(element);
                reads.insert(key);
            };
            // Instances that fetch alike count as one, weighed by how many there are.
            let mut repeats = 1.0;
            for (t, s) in prepared.iter().zip(&spaces) {
                let vars = &s.space.vars;
                let keep = |n: &str| vars.iter().any(|v| &**v == n);
                // Narrowed variables bring the processor's coordinates in.
                let env = |n: &str| at(n).or_else(|| (self.env)(n));
                let mut element = Element::new(&s.subscripts, &keep, &env)
                    .ok_or("a subscript without a value")?;
                let mut instance =
                    Element::new(&s.instance, &keep, &env).ok_or("a subscript without a value")?;
                // Variables neither the element nor the instance depends on only
                // need to have a value.
                let projected = |v: &Name| {
                    !s.subscripts
                        .iter()
                        .chain(&s.instance)
                        .any(|e| e.mentions(v))
                };
                numeric::points(
                    &s.space.constraints,
                    vars,
                    &projected,
                    &at,
                    &mut left,
                    &mut |pt| visit(&mut element, &mut instance, pt),
                )
                .map_err(|e| format!("cannot enumerate the reads: {e}"))?;
                if !t.alike_vars.is_empty() {
                    // The same for every piece (checked above).
                    let mut n = 0u64;
                    numeric::points(
                        &t.alike,
                        &t.alike_vars,
                        &|_| false,
                        &at,
                        &mut left,
                        &mut |_| n += 1,
                    )
                    .map_err(|e| format!("cannot enumerate the reads: {e}"))?;
                    repeats = n as f64;
                }
            }
            if let Some(why) = failed {
                return Err(why);
            }
            for (keys, messages) in [(&messages, true), (&reads, false)] {
                for key in keys {
                    let slot = tally.entry((key[0] as usize, p as usize)).or_default();
                    let count = if messages { &mut slot.0 } else { &mut slot.1 };
                    *count += w * repeats;
                }
            }
        }
        Ok(())
    }
}
