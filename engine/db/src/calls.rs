//! Calls across units: what each call site passes (integer values, the actual arrays'
//! extents and mappings, valued under the caller's constants), what a procedure's dummies
//! are bound to, the call graph's recursive cycles, and the implicit remapping at a call.
//!
//! A procedure as written is analysed under the binding of its call site that runs most
//! often (per run of its caller; the first on ties): integer dummies take that site's
//! values, transcriptive dummies its actuals' mappings; where the running sites disagree
//! a note says what was taken. Each call site whose binding differs is analysed as a
//! variant of the procedure keyed by its binding ([`super::units::at_site`]), so the
//! callers' totals weight each call's own costs by its own frequency (P^3T+ Definitions
//! 4.4, 4.7, 4.10). Callers in the callee's own recursive cycle bind nothing (their
//! values would depend on the callee's own).

use super::analysis::{constants, counts, lower, mappings};
use super::inputs::Workspace;
use super::modules::cycles;
use super::units::{UnitText, at_site, base, file_units};
use costline_model::comm::pattern::Pattern;
use costline_model::comm::placement::Placement;
use costline_model::comm::records::{Record, RefValues};
use costline_model::comm::remap::Moved;
use costline_model::distribution::{DummyMapping, Layout, Mapping, Remap};
use costline_model::freq::calls::callee_names;
use costline_model::freq::convert::{Names, Scope};
use costline_symbolic::{Env, Num, Sym};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::{Bound, Expr, Intent, StmtId, StmtKind, Subscript, Unit, UnitKind};
use costline_syntax::span::Span;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// How many bindings of one procedure besides the reported one are analysed each.
pub const MAX_VARIANTS: usize = 8;

/// The mapping of an actual array argument in its caller.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ActualMapping {
    /// Not mapped: every processor holds all of it.
    Replicated,
    Mapped(Layout),
    /// Mapped, but a size or bound has no value under the caller's bindings.
    Unknown,
}

/// One actual argument as its caller knows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Actual {
    /// An integer expression with a value under the caller's constants.
    Integer(i64),
    /// A whole array: its extents (when valued) and its mapping.
    Array {
        name: String,
        extents: Option<Vec<i64>>,
        mapping: ActualMapping,
    },
    /// A section of an array mapped at the call, as written (its mapping is not followed
    /// into the callee).
    Section { name: String, text: String },
    /// Anything else, as written: a section of an unmapped array, a real or an unvalued
    /// expression.
    Other(String),
}

/// A CALL statement of a unit with its actuals.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    pub stmt: StmtId,
    /// The statement, unit-relative.
    pub span: Span,
    pub callee: String,
    /// How often it runs per run of the caller.
    pub count: Option<f64>,
    /// Each actual with its keyword, if any.
    pub actuals: Vec<(Option<String>, Actual)>,
}

/// What a call binds a procedure's dummies to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Binding {
    /// Integer scalar dummies with a value.
    pub values: Vec<(String, i64)>,
    /// Array dummies associated with a whole actual array: its extents and mapping.
    pub arrays: Vec<(String, Option<Vec<i64>>, ActualMapping)>,
}

impl Binding {
    /// The mapping the actual associated with dummy `name` has, if any.
    pub fn mapping(&self, name: &str) -> Option<&ActualMapping> {
        self.arrays.iter().find(|a| a.0 == name).map(|a| &a.2)
    }
}

/// The CALL statements of `unit` (MPI's left out) with their actuals valued.
#[salsa::tracked(returns(clone))]
pub fn call_sites<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Vec<Site>> {
    let ir = lower(db, unit);
    let mut calls = Vec::new();
    ir.walk(&mut |s, _| {
        if let StmtKind::Call(c) = &s.kind
            && !c.name.starts_with("mpi_")
        {
            calls.push((s, c));
        }
    });
    if calls.is_empty() {
        return Arc::new(Vec::new());
    }
    let known = constants(db, unit);
    let env = |n: &str| known.values.get(n).map(|v| *v as i128);
    let maps = mappings(db, unit);
    let counts = counts(db, unit);
    let sites = calls
        .into_iter()
        .map(|(s, c)| Site {
            stmt: s.id,
            span: s.span,
            callee: c.name.clone(),
            count: counts.value(s.id),
            actuals: c
                .args
                .iter()
                .map(|a| (a.keyword.clone(), actual(&ir, &maps, s.id, &a.value, &env)))
                .collect(),
        })
        .collect();
    Arc::new(sites)
}

/// An actual argument of the call `stmt` valued under `env`, with the mapping in force
/// at the call (a REDISTRIBUTE or REALIGN before it counts).
fn actual(
    ir: &Unit,
    maps: &costline_model::distribution::UnitMappings,
    stmt: StmtId,
    e: &Expr,
    env: Env,
) -> Actual {
    let whole = match e {
        Expr::Array(r) if r.subscripts.is_empty() => Some(r.name.as_str()),
        Expr::Name(n) if ir.symbols.get(n).is_some_and(|s| s.is_array()) => Some(n.as_str()),
        _ => None,
    };
    if let Some(name) = whole {
        let shape = declared_shape(ir, name, env);
        let mapping = match maps.at(stmt, name) {
            None => ActualMapping::Replicated,
            Some(m) => match shape.as_ref().and_then(|s| {
                let lowers: Vec<Sym> = s.iter().map(|(l, _)| Sym::int(*l as i128)).collect();
                Layout::of(m, &lowers, env)
            }) {
                Some(l) => ActualMapping::Mapped(l),
                None => ActualMapping::Unknown,
            },
        };
        return Actual::Array {
            name: name.to_string(),
            extents: shape.map(|s| s.into_iter().map(|(_, n)| n).collect()),
            mapping,
        };
    }
    if let Expr::Array(r) = e
        && r.subscripts
            .iter()
            .any(|s| matches!(s, Subscript::Range(_)))
        && maps.at(stmt, &r.name).is_some()
    {
        return Actual::Section {
            name: r.name.clone(),
            text: e.to_string(),
        };
    }
    let scope = Scope {
        unit: ir,
        names: &Names::default(),
        integers: false,
    };
    match scope.sym(e).ok().and_then(|s| int(&s, env)) {
        Some(v) => Actual::Integer(v),
        None => Actual::Other(e.to_string()),
    }
}

fn int(s: &Sym, env: Env) -> Option<i64> {
    match s.eval(env).ok()? {
        Num::Exact(r) => r.as_integer().and_then(|v| i64::try_from(v).ok()),
        Num::Approx(_) => None,
    }
}

/// The (lower bound, extent) of each dimension of array `name` under `env`; `None`
/// when a bound is assumed or has no value.
pub fn declared_shape(ir: &Unit, name: &str, env: Env) -> Option<Vec<(i64, i64)>> {
    let scope = Scope {
        unit: ir,
        names: &Names::default(),
        integers: true,
    };
    let value = |e: &Expr| scope.sym(e).ok().and_then(|s| int(&s, env));
    ir.symbols
        .get(name)?
        .dims
        .as_ref()?
        .iter()
        .map(|d| {
            let lower = d.lower.as_ref().map_or(Some(1), value)?;
            let Bound::Explicit(u) = &d.upper else {
                return None;
            };
            Some((lower, value(u)? - lower + 1))
        })
        .collect()
}

/// The declared lower bounds of array `name` (1 where not given or not valued).
fn declared_lowers(ir: &Unit, name: &str, env: Env) -> Vec<i64> {
    let scope = Scope {
        unit: ir,
        names: &Names::default(),
        integers: true,
    };
    ir.symbols
        .get(name)
        .and_then(|s| s.dims.as_ref())
        .map(|dims| {
            dims.iter()
                .map(|d| {
                    d.lower
                        .as_ref()
                        .and_then(|l| scope.sym(l).ok())
                        .and_then(|s| int(&s, env))
                        .unwrap_or(1)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What `actuals` bind `callee`'s dummies to: by position up to the first keyword,
/// then by keyword.
pub fn bind(callee: &Unit, actuals: &[(Option<String>, Actual)]) -> Binding {
    let mut out = Binding::default();
    let mut positional = true;
    for (k, (keyword, a)) in actuals.iter().enumerate() {
        positional &= keyword.is_none();
        let dummy = match keyword {
            Some(kw) => kw.as_str(),
            None if positional => match callee.dummies.get(k) {
                Some(d) => d.as_str(),
                None => continue,
            },
            None => continue,
        };
        let Some(sym) = callee.symbols.get(dummy) else {
            continue;
        };
        let integer = Scope {
            unit: callee,
            names: &Names::default(),
            integers: false,
        }
        .is_integer(dummy);
        match a {
            Actual::Integer(v) if !sym.is_array() && integer => {
                out.values.push((dummy.to_string(), *v))
            }
            Actual::Array {
                extents, mapping, ..
            } if sym.is_array() => {
                // An assumed-shape dimension takes the actual's extent.
                let dims = sym.dims.as_deref().unwrap_or_default();
                let conform = extents.as_ref().is_some_and(|e| e.len() == dims.len());
                for (k, (d, n)) in dims.iter().zip(extents.iter().flatten()).enumerate() {
                    if conform && d.upper == Bound::Deferred && sym.attrs.dummy {
                        out.values.push((format!("size({dummy},{})", k + 1), *n));
                    }
                }
                out.arrays
                    .push((dummy.to_string(), extents.clone(), mapping.clone()))
            }
            _ => {}
        }
    }
    out.values.sort();
    out.arrays.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The procedures of the workspace by name (the first of a name). Its value changes
/// with any procedure's text: read it through [`procedure`] where a cut-off matters.
#[salsa::tracked(returns(ref))]
pub fn procedures(db: &dyn salsa::Database) -> HashMap<String, UnitText<'_>> {
    let mut out: HashMap<String, UnitText> = HashMap::new();
    for &file in Workspace::get(db).files(db) {
        if let Ok(f) = file_units(db, file) {
            for &u in &f.units {
                if u.kind(db) != UnitKind::Module {
                    out.entry(u.name(db).clone()).or_insert(u);
                }
            }
        }
    }
    out
}

/// A procedure's name, as the key of [`procedure`].
#[salsa::interned(debug)]
pub struct ProcName<'db> {
    #[returns(ref)]
    pub name: String,
}

/// The procedure of the workspace named `name`: unchanged (so its readers cut off)
/// while that procedure's text is.
#[salsa::tracked(returns(copy))]
pub fn procedure<'db>(db: &'db dyn salsa::Database, name: ProcName<'db>) -> Option<UnitText<'db>> {
    procedures(db).get(name.name(db)).copied()
}

/// The procedure named `name`, if the workspace has one.
pub fn procedure_named<'db>(db: &'db dyn salsa::Database, name: &str) -> Option<UnitText<'db>> {
    procedure(db, ProcName::new(db, name.to_string()))
}

/// The call graph of the workspace by name: who calls whom, and the recursive cycles.
/// Built from the units' lowered statements (nothing that depends on values, so the
/// queries binding dummies can read it) and unchanged by edits that keep every call.
#[derive(Debug, Default, PartialEq)]
pub struct CallGraph {
    /// The units that call each procedure, each once, in workspace order.
    pub callers: HashMap<String, Vec<String>>,
    /// The members of each recursive cycle (a procedure calling itself, or several
    /// calling each other), by member.
    pub cycles: BTreeMap<String, Vec<String>>,
}

impl CallGraph {
    /// Whether a call from `caller` to `callee` closes a recursive cycle.
    pub fn recursive(&self, caller: &str, callee: &str) -> bool {
        self.cycles
            .get(callee)
            .is_some_and(|c| c.iter().any(|m| m == caller))
    }
}

#[salsa::tracked(returns(ref))]
pub fn call_graph(db: &dyn salsa::Database) -> CallGraph {
    let procedures = procedures(db);
    let mut edges: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut callers: HashMap<String, Vec<String>> = HashMap::new();
    let mut units: Vec<&UnitText> = procedures.values().collect();
    units.sort_by_key(|u| u.name(db));
    for &u in units {
        let mut called: Vec<String> = callee_names(&lower(db, u))
            .into_iter()
            .filter(|n| procedures.contains_key(n))
            .collect();
        called.sort();
        called.dedup();
        for c in &called {
            callers
                .entry(c.clone())
                .or_default()
                .push(u.name(db).clone());
        }
        edges.entry(u.name(db).as_str()).or_default().extend(called);
    }
    let cycles = cycles(&edges)
        .into_iter()
        .map(|(k, v)| (k, v.into_iter().collect()))
        .collect();
    CallGraph { callers, cycles }
}

/// The calls a procedure receives from outside its recursive cycle, and the binding
/// the procedure as written is analysed under.
#[derive(Debug, Default, PartialEq)]
pub struct Incoming {
    /// (caller, its call's rank among its calls of this procedure, count, binding).
    pub sites: Vec<(String, usize, Option<f64>, Binding)>,
    /// The binding of the site that runs most often (per run of its caller).
    pub chosen: Option<Binding>,
    /// The other bindings analysed as variants: the first [`MAX_VARIANTS`] distinct
    /// ones, in call order; a call with another counts as the procedure as reported
    /// (and a call from the procedure's own recursive cycle too).
    pub variants: Vec<Binding>,
    /// Where the running sites disagree, what was taken (spans: the dummies').
    pub notes: Vec<Diagnostic>,
}

/// The calls `unit` (as written) receives and what its dummies are bound to.
#[salsa::tracked(returns(clone))]
pub fn incoming<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Incoming> {
    let unit = base(db, unit);
    let ir = lower(db, unit);
    if ir.dummies.is_empty() {
        return Arc::new(Incoming::default());
    }
    let graph = call_graph(db);
    let name = unit.name(db);
    let mut sites = Vec::new();
    for caller_name in graph.callers.get(name).into_iter().flatten() {
        if caller_name == name || graph.recursive(caller_name, name) {
            continue;
        }
        let Some(caller) = procedure_named(db, caller_name) else {
            continue;
        };
        let mut rank = 0;
        for s in call_sites(db, caller).iter().filter(|s| &s.callee == name) {
            rank += 1;
            sites.push((caller_name.clone(), rank, s.count, bind(&ir, &s.actuals)));
        }
    }
    let running: Vec<&(String, usize, Option<f64>, Binding)> =
        sites.iter().filter(|s| s.2 != Some(0.0)).collect();
    let chosen = running
        .iter()
        .copied()
        .reduce(|best, s| {
            if s.2.unwrap_or(-1.0) > best.2.unwrap_or(-1.0) {
                s
            } else {
                best
            }
        })
        .or(sites.first());
    if ir.is_hpf_local() {
        let chosen = chosen.cloned();
        return Arc::new(local_incoming(&ir, sites, chosen));
    }
    let mut notes = chosen
        .map(|c| disagreements(&ir, c, &running))
        .unwrap_or_default();
    let mut variants: Vec<Binding> = Vec::new();
    let mut distinct = 0;
    for s in &running {
        if chosen.is_some_and(|c| c.3 == s.3) || variants.contains(&s.3) {
            continue;
        }
        distinct += 1;
        if variants.len() < MAX_VARIANTS {
            variants.push(s.3.clone());
        }
    }
    if distinct > MAX_VARIANTS {
        notes.push(Diagnostic::info(
            ir.header,
            "call-binding",
            format!(
                "`{name}` is called with {} different bindings of its dummies: the first \
                 {MAX_VARIANTS} besides the one reported are analysed each, the calls with \
                 the others count as the one reported",
                distinct + 1
            ),
        ));
    }
    Arc::new(Incoming {
        chosen: chosen.map(|c| c.3.clone()),
        variants,
        sites,
        notes,
    })
}

/// The calls of an `EXTRINSIC(HPF_LOCAL)` procedure: it is analysed as it runs on the
/// largest part of the site that runs most often ([`LocalPart::heaviest`]); every
/// other part of every site is a variant ([`local_calls`]).
fn local_incoming(
    ir: &Unit,
    sites: Vec<(String, usize, Option<f64>, Binding)>,
    chosen: Option<(String, usize, Option<f64>, Binding)>,
) -> Incoming {
    let span = ir.extrinsic.as_ref().map_or(ir.header, |e| e.1);
    let mut notes = Vec::new();
    let chosen = chosen.map(|(caller, rank, _, global)| match local_parts(&global) {
        Ok(parts) => {
            let part = LocalPart::heaviest(&parts);
            notes.push(Diagnostic::info(
                span,
                "hpf-local",
                format!(
                    "EXTRINSIC(HPF_LOCAL): each processor runs `{}` on its own part of the \
                     actual arrays, without communication; this report shows the part of \
                     processor {} ({}) as call {rank} from `{caller}` passes it, and each \
                     call costs its busiest processor's time",
                    ir.name,
                    part.processors.first().copied().unwrap_or(1),
                    part.describe()
                ),
            ));
            part.binding.clone()
        }
        Err(why) => {
            notes.push(Diagnostic::warning(
                span,
                "not-modelled",
                format!(
                    "EXTRINSIC(HPF_LOCAL): the processors' parts of call {rank} from \
                     `{caller}` are not known ({why}): `{}` is shown with the whole actuals",
                    ir.name
                ),
            ));
            global
        }
    });
    Incoming {
        sites,
        chosen,
        variants: Vec::new(),
        notes,
    }
}

/// Notes on the dummies the running sites bind differently from `chosen`.
fn disagreements(
    ir: &Unit,
    chosen: &(String, usize, Option<f64>, Binding),
    running: &[&(String, usize, Option<f64>, Binding)],
) -> Vec<Diagnostic> {
    let transcriptive = costline_model::distribution::transcriptive_dummies(ir);
    let site = |s: &(String, usize, Option<f64>, Binding)| {
        let count = match s.2 {
            None => "an unknown number of times".to_string(),
            Some(c) if (c - 1.0).abs() < f64::EPSILON => "once".to_string(),
            Some(c) => format!("{c} times"),
        };
        format!("call {} from `{}` ({count} per run of `{}`)", s.1, s.0, s.0)
    };
    let mut out = Vec::new();
    for dummy in &ir.dummies {
        let Some(sym) = ir.symbols.get(dummy) else {
            continue;
        };
        let describe = |b: &Binding| -> Option<String> {
            if sym.is_array() {
                if !transcriptive.contains(dummy) {
                    return None;
                }
                Some(match b.mapping(dummy)? {
                    ActualMapping::Replicated => "replicated".to_string(),
                    ActualMapping::Mapped(l) => l.describe(),
                    ActualMapping::Unknown => "a mapping without values".to_string(),
                })
            } else {
                b.values
                    .iter()
                    .find(|v| &v.0 == dummy)
                    .map(|v| v.1.to_string())
            }
        };
        let taken = describe(&chosen.3);
        let others: Vec<String> = running
            .iter()
            .filter(|s| describe(&s.3) != taken)
            .map(|s| {
                let what = describe(&s.3).unwrap_or_else(|| "unknown".into());
                format!("{what} by {}", site(s))
            })
            .collect();
        if others.is_empty() {
            continue;
        }
        let what = if sym.is_array() { "mappings" } else { "values" };
        out.push(Diagnostic::info(
            sym.span,
            "call-binding",
            format!(
                "the calls pass `{dummy}` different {what}: {} by {}, {}; this report shows \
                 `{}` as called by the first (it runs most), and every caller's totals \
                 count each call with its own",
                taken.unwrap_or_else(|| "unknown".into()),
                site(chosen),
                others.join(", "),
                ir.name
            ),
        ));
    }
    out
}

/// The binding `unit` is analysed under: its site's, or (as written) its callers'
/// chosen one; `None` when no call tells.
pub fn binding<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Option<Binding> {
    if let Some(b) = unit.site(db) {
        return Some(b.clone());
    }
    if lower(db, unit).dummies.is_empty() {
        return None;
    }
    incoming(db, unit).chosen.clone()
}

/// The procedure `callee` (as written) as called with `binding`: itself when that is
/// the binding it is analysed under, else its variant keyed by the binding.
pub fn as_called<'db>(
    db: &'db dyn salsa::Database,
    callee: UnitText<'db>,
    binding: Binding,
) -> UnitText<'db> {
    let incoming = incoming(db, callee);
    if incoming.chosen.as_ref() == Some(&binding) || !incoming.variants.contains(&binding) {
        callee
    } else {
        at_site(db, callee, binding)
    }
}

/// The variant of the procedure each CALL of `unit` reaches (calls of procedures
/// outside the workspace left out), by statement.
pub fn callees<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Vec<(StmtId, UnitText<'db>)> {
    let sites = call_sites(db, unit);
    if sites.is_empty() {
        return Vec::new();
    }
    sites
        .iter()
        .filter_map(|s| {
            let callee = procedure_named(db, &s.callee)?;
            let ir = lower(db, callee);
            Some((s.stmt, as_called(db, callee, bind(&ir, &s.actuals))))
        })
        .collect()
}

/// Different shapes of the processors' parts beyond this many are not analysed each.
pub const MAX_LOCAL_PARTS: usize = 16;

/// The processors whose parts of a call's actual arrays have the same extents, and
/// what that binds an `EXTRINSIC(HPF_LOCAL)` procedure's dummies to: each array dummy
/// the part's extents (assumed-shape `SIZE`s included), not mapped; integers as passed.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalPart {
    /// 1-based, ascending.
    pub processors: Vec<usize>,
    pub binding: Binding,
}

impl LocalPart {
    /// The part with the most elements over all its arrays (the first on ties).
    pub fn heaviest(parts: &[LocalPart]) -> &LocalPart {
        let size = |p: &LocalPart| -> i64 {
            p.binding
                .arrays
                .iter()
                .filter_map(|a| a.1.as_ref())
                .map(|e| e.iter().product::<i64>())
                .sum()
        };
        parts
            .iter()
            .reduce(|best, p| if size(p) > size(best) { p } else { best })
            .expect("a call has at least one part")
    }

    /// The part's arrays as a reader writes them, e.g. `x: 16×4, y: 16`.
    pub fn describe(&self) -> String {
        let arrays: Vec<String> = self
            .binding
            .arrays
            .iter()
            .map(|(name, extents, _)| match extents {
                Some(e) => {
                    let e: Vec<String> = e.iter().map(i64::to_string).collect();
                    format!("`{name}` {}", e.join("×"))
                }
                None => format!("`{name}` of unknown extents"),
            })
            .collect();
        if arrays.is_empty() {
            "no array".to_string()
        } else {
            arrays.join(", ")
        }
    }
}

/// The parts a call binding `global` hands an `EXTRINSIC(HPF_LOCAL)` procedure, one
/// per shape, in order of their first processor. The processors are those of the
/// largest grid an actual is mapped onto (one beyond an actual's grid holds none of
/// it); an actual that is not mapped is whole on every processor; with no mapped actual
/// the one part is processor 1's (every processor runs the same).
pub fn local_parts(global: &Binding) -> Result<Vec<LocalPart>, String> {
    let mut per_array: Vec<Option<Vec<Vec<i64>>>> = Vec::new();
    let mut processors = 1;
    for (name, extents, mapping) in &global.arrays {
        per_array.push(match (mapping, extents) {
            (ActualMapping::Mapped(l), Some(e)) => {
                processors = processors.max(l.processors().max(1) as usize);
                Some(
                    costline_model::distribution::local_extents(e, l)
                        .map_err(|why| format!("`{name}`: {why}"))?,
                )
            }
            (ActualMapping::Unknown, _) => {
                return Err(format!("`{name}`'s mapping has no values"));
            }
            _ => None,
        });
    }
    // Per shape (each array's part extents, `None` when unknown): its processors.
    type Shape = Vec<Option<Vec<i64>>>;
    let mut shapes: Vec<(Shape, Vec<usize>)> = Vec::new();
    for p in 1..=processors {
        let shape: Shape = global
            .arrays
            .iter()
            .zip(&per_array)
            .map(|((_, extents, _), parts)| match parts {
                Some(parts) => Some(
                    parts
                        .get(p - 1)
                        .cloned()
                        .unwrap_or_else(|| vec![0; parts.first().map_or(0, Vec::len)]),
                ),
                None => extents.clone(),
            })
            .collect();
        let full = shapes.len() == MAX_LOCAL_PARTS;
        match shapes.iter_mut().find(|s| s.0 == shape) {
            Some(s) => s.1.push(p),
            None if full => {
                return Err(format!(
                    "the parts have more than {MAX_LOCAL_PARTS} different shapes"
                ));
            }
            None => shapes.push((shape, vec![p])),
        }
    }
    Ok(shapes
        .into_iter()
        .map(|(shape, processors)| {
            let mut binding = Binding {
                values: global.values.clone(),
                arrays: Vec::new(),
            };
            for ((name, _, _), extents) in global.arrays.iter().zip(shape) {
                for (k, n) in extents.iter().flatten().enumerate() {
                    let size = format!("size({name},{})", k + 1);
                    if let Some(v) = binding.values.iter_mut().find(|v| v.0 == size) {
                        v.1 = *n;
                    }
                }
                binding
                    .arrays
                    .push((name.clone(), extents, ActualMapping::Replicated));
            }
            LocalPart {
                processors,
                binding,
            }
        })
        .collect())
}

/// The CALLs of `unit` whose callee is a procedure of the workspace, each with the
/// callee (as written) and its lowering.
fn resolved_sites<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Vec<(Site, UnitText<'db>, Arc<Unit>)> {
    call_sites(db, unit)
        .iter()
        .filter_map(|s| {
            let callee = procedure_named(db, &s.callee)?;
            Some((s.clone(), callee, lower(db, callee)))
        })
        .collect()
}

/// A call of an `EXTRINSIC(HPF_LOCAL)` procedure: the procedure as each group of
/// processors runs it (a variant per part but the one it is analysed under), or why
/// the parts are not known (the call then counts as the procedure reported).
pub struct LocalCall<'db> {
    pub stmt: StmtId,
    pub parts: Result<Vec<(Vec<usize>, UnitText<'db>)>, String>,
}

/// The calls of `unit` to `EXTRINSIC(HPF_LOCAL)` procedures of the workspace.
pub fn local_calls<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Vec<LocalCall<'db>> {
    let mut out = Vec::new();
    for (s, callee, ir) in resolved_sites(db, unit) {
        if !ir.is_hpf_local() {
            continue;
        }
        let chosen = incoming(db, callee).chosen.clone();
        let parts = local_parts(&bind(&ir, &s.actuals)).map(|parts| {
            parts
                .into_iter()
                .map(|p| {
                    let variant = if chosen.as_ref() == Some(&p.binding) {
                        callee
                    } else {
                        at_site(db, callee, p.binding)
                    };
                    (p.processors, variant)
                })
                .collect()
        });
        out.push(LocalCall {
            stmt: s.stmt,
            parts,
        });
    }
    out
}

/// What `unit`'s calls say that the numbers do not show: how a call of an
/// `EXTRINSIC(HPF_LOCAL)` procedure spreads over the processors (or why that is not
/// known), and which sections of mapped arrays are passed without their mapping.
pub fn call_notes<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (s, _, ir) in resolved_sites(db, unit) {
        for (k, (keyword, a)) in s.actuals.iter().enumerate() {
            if let Actual::Section { name, text } = a {
                let dummy = keyword
                    .as_ref()
                    .or(ir.dummies.get(k))
                    .map_or("its dummy".to_string(), |d| format!("`{d}`"));
                out.push(Diagnostic::warning(
                    s.span,
                    "not-modelled",
                    format!(
                        "`{text}` is a section of the mapped array `{name}`: its mapping is not \
                         followed into `{}`, where {dummy} counts as not mapped (every processor \
                         does its work); pass the whole array, or map the dummy",
                        s.callee
                    ),
                ));
            }
        }
        if !ir.is_hpf_local() {
            continue;
        }
        out.push(match local_parts(&bind(&ir, &s.actuals)) {
            Ok(parts) => {
                let total: usize = parts.iter().map(|p| p.processors.len()).sum();
                let each: Vec<String> = parts
                    .iter()
                    .map(|p| format!("{} on {}", p.describe(), processors(&p.processors)))
                    .collect();
                Diagnostic::info(
                    s.span,
                    "hpf-local",
                    format!(
                        "`{}` is EXTRINSIC(HPF_LOCAL): each of the {total} processors runs it on \
                         its own part ({}), without communication; the call takes the busiest \
                         processor's time",
                        s.callee,
                        each.join("; ")
                    ),
                )
            }
            Err(why) => Diagnostic::warning(
                s.span,
                "not-modelled",
                format!(
                    "the processors' parts of this call of EXTRINSIC(HPF_LOCAL) `{}` are not \
                     known ({why}): it counts as the procedure reported",
                    s.callee
                ),
            ),
        });
    }
    out
}

/// Processor numbers as ranges: `1–3, 5`.
fn processors(ps: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in ps {
        match runs.last_mut() {
            Some(r) if r.1 + 1 == p => r.1 = p,
            _ => runs.push((p, p)),
        }
    }
    let runs: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    format!(
        "processor{} {}",
        if ps.len() == 1 { "" } else { "s" },
        runs.join(", ")
    )
}

/// The remapping records of a unit's calls and what they say.
#[derive(Debug, Default, PartialEq)]
pub struct CallRemaps {
    pub refs: Vec<(StmtId, RefValues)>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The implicit remapping at each call of `unit` whose actual's mapping differs from
/// a prescriptive or descriptive dummy's: to the dummy's mapping on entry, back on
/// return (not for an INTENT(IN) dummy), each way one message per processor pair that
/// exchanges elements, per execution of the call.
#[salsa::tracked(returns(clone))]
pub fn call_remaps<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<CallRemaps> {
    let mut out = CallRemaps::default();
    let sites = resolved_sites(db, unit);
    if sites.is_empty() {
        return Arc::new(out);
    }
    let caller = lower(db, unit);
    let options = super::inputs::Settings::get(db).freq(db);
    for (s, callee, ir) in &sites {
        let (callee, ir) = (*callee, ir.clone());
        let binding = bind(&ir, &s.actuals);
        let variant = as_called(db, callee, binding);
        let maps = mappings(db, variant);
        let known = constants(db, variant);
        let env = |n: &str| known.values.get(n).map(|v| *v as i128);
        let positional = s.actuals.iter().take_while(|a| a.0.is_none()).count();
        for (k, (keyword, a)) in s.actuals.iter().enumerate() {
            let Actual::Array {
                name,
                extents,
                mapping,
            } = a
            else {
                continue;
            };
            let dummy = match keyword {
                Some(kw) => kw.as_str(),
                None if k < positional => match ir.dummies.get(k) {
                    Some(d) => d.as_str(),
                    None => continue,
                },
                None => continue,
            };
            let kind = maps.dummies.get(dummy).copied();
            let (Some(kind @ (DummyMapping::Prescriptive | DummyMapping::Descriptive)), Some(m)) =
                (kind, maps.arrays.get(dummy))
            else {
                continue;
            };
            let lowers = declared_lowers(&ir, dummy, &env);
            let lower_syms: Vec<Sym> = lowers.iter().map(|l| Sym::int(*l as i128)).collect();
            let to = Layout::of(m, &lower_syms, &env);
            let from = match mapping {
                ActualMapping::Mapped(l) => Some(l.clone()),
                ActualMapping::Replicated => to.as_ref().map(|t| Layout {
                    arrangement: t.arrangement.clone(),
                    grid: t.grid.clone(),
                    dims: Vec::new(),
                    lowers: Vec::new(),
                }),
                ActualMapping::Unknown => None,
            };
            let (Some(from), Some(to), Some(extents)) = (from, to, extents) else {
                out.diagnostics.push(Diagnostic::warning(
                    s.span,
                    "not-modelled",
                    format!(
                        "the remapping of `{name}` to the mapping of `{dummy}` in `{}` is not \
                         counted: a size or bound has no value under the bindings",
                        s.callee
                    ),
                ));
                continue;
            };
            let replicated = from.dims.is_empty();
            let from = Layout {
                lowers: if from.lowers.is_empty() {
                    to.lowers.clone()
                } else {
                    from.lowers
                },
                ..from
            };
            // Both layouts as mappings of the dummy (the actual's indices shifted to the
            // dummy's), its box the actual's extents from the dummy's lower bounds.
            let mapping_of = |l: &Layout| l.mapping(dummy, &lowers, s.span);
            let shape: Vec<(Sym, Sym)> = extents
                .iter()
                .enumerate()
                .map(|(d, n)| {
                    let lower = lowers.get(d).copied().unwrap_or(1);
                    (Sym::int(lower as i128), Sym::int(*n as i128))
                })
                .collect();
            let remap = |from: Option<Mapping>, to: Option<Mapping>| Remap {
                array: name.clone(),
                shape: shape.clone(),
                from,
                to,
            };
            let (written, actual) = (mapping_of(&to), (!replicated).then(|| mapping_of(&from)));
            let entry = remap(actual.clone(), Some(written.clone())).moved(&env, options);
            let intent_in = ir
                .symbols
                .get(dummy)
                .is_some_and(|d| d.attrs.intent == Some(Intent::In));
            let back = if intent_in {
                Ok(Moved::new())
            } else {
                remap(Some(written), actual).moved(&env, options)
            };
            let (entry, back) = match (entry, back) {
                (Ok(e), Ok(b)) => (e, b),
                (Err(why), _) | (_, Err(why)) => {
                    out.diagnostics
                        .push(Diagnostic::warning(s.span, "not-modelled", why));
                    continue;
                }
            };
            if entry.values().chain(back.values()).all(|n| *n == 0.0) {
                continue;
            }
            let moved: f64 = entry.values().sum();
            let elem_bytes = costline_model::comm::element_bytes(&caller, name);
            if kind == DummyMapping::Descriptive {
                out.diagnostics.push(Diagnostic::warning(
                    s.span,
                    "descriptive-mismatch",
                    format!(
                        "`{dummy}` of `{}` asserts (descriptive) the mapping {}, but the actual \
                         `{name}` is mapped {}: the assertion does not hold, and the \
                         remapping it needs is counted",
                        s.callee,
                        to.describe(),
                        from.describe()
                    ),
                ));
            }
            out.diagnostics.push(Diagnostic::info(
                s.span,
                "call-remap",
                format!(
                    "`{name}` is remapped from {} to {} (`{dummy}` of `{}`) on entry{}: \
                     {moved} elements move per call",
                    describe_or_replicated(&from),
                    to.describe(),
                    s.callee,
                    if intent_in {
                        " (INTENT(IN): not back on return)"
                    } else {
                        " and back on return"
                    }
                ),
            ));
            let records = s
                .count
                .ok_or_else(|| "the call's frequency is unknown".to_string())
                .map(|f| records(&entry, &back, f, elem_bytes));
            let processors = from.processors().max(to.processors()).max(1) as usize;
            out.refs.push((
                s.stmt,
                RefValues {
                    array: name.clone(),
                    reference: format!("{name} -> {dummy} of {}", s.callee),
                    span: s.span,
                    elem_bytes,
                    placement: Placement {
                        kept: 0,
                        hoisted: 0,
                        blocked_by: None,
                    },
                    indexed_by_kept_loop: false,
                    exact: records.is_ok(),
                    pattern: match &records {
                        Ok(r) if !r.is_empty() => Pattern::AllToAll,
                        Ok(_) => Pattern::Local,
                        Err(_) => Pattern::Unknown,
                    },
                    records,
                    processors,
                    metrics: None,
                    remap: true,
                },
            ));
        }
    }
    Arc::new(out)
}

fn describe_or_replicated(l: &Layout) -> String {
    if l.dims.is_empty() {
        "replicated".to_string()
    } else {
        l.describe()
    }
}

/// The records of a remapping executed `freq` times: each way, one message per pair and
/// execution, `elem_bytes` per element moved; sorted by (from, to).
fn records(entry: &Moved, back: &Moved, freq: f64, elem_bytes: u64) -> Vec<Record> {
    let mut all: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
    for (&(from, to), &n) in entry.iter().chain(back) {
        if n <= 0.0 {
            continue;
        }
        let slot = all.entry((from, to)).or_default();
        slot.0 += freq;
        slot.1 += freq * n * elem_bytes as f64;
    }
    all.into_iter()
        .filter(|(_, (m, _))| *m > 0.0)
        .map(|((from, to), (messages, bytes))| Record {
            from,
            to,
            messages,
            bytes,
        })
        .collect()
}

/// A warning at each call of `unit` that closes a recursive cycle, naming it: the
/// recursion is bounded at one level (the recursive call adds its callee's own costs
/// once per call, not the callee's further calls) and the cycle's procedures count
/// their runs per call.
pub fn recursion<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Vec<Diagnostic> {
    let ir = lower(db, unit);
    if callee_names(&ir).is_empty() {
        return Vec::new();
    }
    let graph = call_graph(db);
    let name = unit.name(db);
    let Some(cycle) = graph.cycles.get(name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    ir.walk(&mut |s, _| {
        for callee in costline_model::freq::calls::called(&s.kind) {
            if callee != *name && !graph.recursive(name, &callee) {
                continue;
            }
            out.push(Diagnostic::warning(
                s.span,
                "recursion",
                format!(
                    "recursive call of `{callee}` (cycle: {}): counted one level deep — the \
                     call adds `{callee}`'s own costs once per call, not its further calls — \
                     and the procedures of the cycle count their runs per call",
                    cycle.join(" → ")
                ),
            ));
        }
    });
    out
}
