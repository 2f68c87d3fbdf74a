//! Calls across units, as queries: the call sites of a unit with their actuals valued,
//! the workspace's procedures and call graph, the calls a procedure receives and the
//! binding it is analysed under, the variant each call reaches, and per call its notes
//! and remapping records. What these compute from the sites is `costline_model::calls`.

use super::analysis::{constants, counts, freqs, lower, mappings};
use super::callers::{callers_of, reachable, shard_procedures, shards_where, word_key};
use super::common_reach::common_reach;
use super::inputs::Workspace;
use super::modules::cycles;
use super::units::{UnitText, at_site, base, file_units};
pub use costline_model::calls::{
    Actual, ActualMapping, Binding, CallGraph, CallRemaps, CommonUse, Incoming, KeyedActual,
    LocalPart, Site,
};
use costline_model::calls::{
    actual, arbitrate, at_values, bind, globals_at, is_passed_key, local_parts, loop_values,
    received, recursion_warnings, site_notes, site_remaps,
};
use costline_model::freq::calls::callee_names;
use costline_model::freq::convert::Names;
use costline_symbolic::Env;
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::{Expr, StmtId, StmtKind, Unit, UnitKind};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

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
    let freqs = freqs(db, unit);
    // What each call may set, for the calls after it: needed only for the values of
    // blocks the unit passes on unseen (the count walk follows those of its own).
    let passes = known.values.keys().any(|k| is_passed_key(k));
    let sets: Vec<Option<Arc<CommonUse>>> = calls
        .iter()
        .map(|(_, c)| {
            let callee = procedure_named(db, &c.name).filter(|_| passes)?;
            Some(common_reach(db, callee))
        })
        .collect();
    let loops = loop_ranges(&ir);
    let no_names = Names::default();
    let sites = calls
        .iter()
        .map(|&(s, c)| {
            // A COMMON value is not passed where a call that may run before this one
            // may have set it.
            let mut changed = BTreeSet::new();
            for ((other, _), set) in calls.iter().zip(&sets) {
                if let Some(set) = set
                    && may_run_before(other.id, s.id, &loops)
                {
                    changed.extend(set.set.iter().cloned());
                }
            }
            (s, c, changed)
        })
        .map(|(s, c, changed)| {
            let names = freqs.scope_of(s.id).unwrap_or(&no_names);
            let actuals_under = |names: &Names, env: Env| -> Vec<KeyedActual> {
                c.args
                    .iter()
                    .map(|a| {
                        let value = actual(&ir, &maps, s.id, &a.value, names, env);
                        (a.keyword.clone(), value)
                    })
                    .collect()
            };
            // Subscripts like `m1(k)` take the values the unit knows (`k = lb`, lb bound).
            let actuals = actuals_under(&names.with_more_constants(&known.values), &env);
            let per_value = if actuals.iter().all(|a| valued(&a.1)) {
                Vec::new()
            } else {
                let exprs: Vec<&Expr> = c.args.iter().map(|a| &a.value).collect();
                per_value(&ir, s.id, names, &known.values, &exprs, &actuals_under)
            };
            Site {
                stmt: s.id,
                span: s.span,
                callee: c.name.clone(),
                count: counts.value(s.id),
                actuals,
                globals: globals_at(&ir, freqs.scope_of(s.id), &known.values, &changed),
                per_value,
            }
        })
        .collect();
    Arc::new(sites)
}

/// Whether the caller knows actual `a` as a value: an integer, or an array or section
/// with its extents.
fn valued(a: &Actual) -> bool {
    match a {
        Actual::Integer(_) => true,
        Actual::Array { extents, .. } | Actual::Section { extents, .. } => extents.is_some(),
        Actual::Other(_) => false,
    }
}

/// The actuals of call `id` at each combination of the enclosing loops' values
/// ([`loop_values`]), when they differ from one combination to another; else none.
fn per_value(
    ir: &Unit,
    id: StmtId,
    names: &Names,
    known: &BTreeMap<String, i64>,
    exprs: &[&Expr],
    actuals_under: &dyn Fn(&Names, Env) -> Vec<KeyedActual>,
) -> Vec<Vec<KeyedActual>> {
    let Some(combinations) = loop_values(ir, id, names, known, exprs) else {
        return Vec::new();
    };
    let out: Vec<_> = combinations
        .iter()
        .map(|c| {
            let values = at_values(known, c);
            let env = |n: &str| values.get(n).map(|v| *v as i128);
            actuals_under(&names.with_more_constants(&values), &env)
        })
        .collect();
    if out.windows(2).all(|w| w[0] == w[1]) {
        Vec::new()
    } else {
        out
    }
}

/// The statement ids each loop of `ir` spans (itself and its body, which follow it in
/// pre-order).
fn loop_ranges(ir: &Unit) -> Vec<(StmtId, StmtId)> {
    let mut out = Vec::new();
    ir.walk(&mut |s, _| {
        if matches!(s.kind, StmtKind::Loop(_)) {
            let mut last = s.id;
            costline_syntax::ir::walk(std::slice::from_ref(s), &mut |d, _| last = last.max(d.id));
            out.push((s.id, last));
        }
    });
    out
}

/// Whether statement `a` may run before statement `b` in one run of their unit: it
/// comes first, or a loop holds both (`a` then runs in an earlier iteration). A
/// backward GO TO is not followed.
fn may_run_before(a: StmtId, b: StmtId, loops: &[(StmtId, StmtId)]) -> bool {
    a < b
        || loops
            .iter()
            .any(|&(from, to)| (from..=to).contains(&a) && (from..=to).contains(&b))
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

/// The procedure of the workspace named `name` (the first of the name, as in
/// [`procedures`]): unchanged (so its readers cut off) while that procedure's text is.
/// Found group by group ([`shards_where`]), so that an edit elsewhere costs a look-up
/// per shard group and the shards of the groups with the name, not the whole map.
#[salsa::tracked(returns(copy))]
pub fn procedure<'db>(db: &'db dyn salsa::Database, name: ProcName<'db>) -> Option<UnitText<'db>> {
    let name = name.name(db);
    let key = word_key(name);
    shards_where(db, move |g| g.procedures.contains(&key))
        .find_map(|s| shard_procedures(db, s).get(name).copied())
}

/// The procedure named `name`, if the workspace has one.
pub fn procedure_named<'db>(db: &'db dyn salsa::Database, name: &str) -> Option<UnitText<'db>> {
    procedure(db, ProcName::new(db, name.to_string()))
}

/// The names `unit`'s statements call (CALL statements and function references,
/// [`callee_names`]), sorted, each once.
#[salsa::tracked(returns(ref))]
pub fn called_names<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Vec<String> {
    let mut names = callee_names(&lower(db, unit));
    names.sort();
    names.dedup();
    names
}

/// The call graph of the workspace, unchanged by edits that keep every call.
#[salsa::tracked(returns(ref))]
pub fn call_graph(db: &dyn salsa::Database) -> CallGraph {
    let procedures = procedures(db);
    let mut edges: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut callers: HashMap<String, Vec<String>> = HashMap::new();
    let mut units: Vec<&UnitText> = procedures.values().collect();
    units.sort_by_key(|u| u.name(db));
    for &u in units {
        let called: Vec<String> = called_names(db, u)
            .iter()
            .filter(|n| procedures.contains_key(*n))
            .cloned()
            .collect();
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

/// The calls `unit` (as written) receives and what they bind its dummies and COMMON
/// variables to.
#[salsa::tracked(returns(clone))]
pub fn incoming<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Incoming> {
    let unit = base(db, unit);
    let ir = lower(db, unit);
    let name = unit.name(db);
    let key = ProcName::new(db, name.clone());
    let mut sites = Vec::new();
    for caller_name in callers_of(db, key).iter() {
        // A caller the procedure reaches itself closes a recursive cycle.
        if caller_name == name || reachable(db, key).contains(caller_name) {
            continue;
        }
        let Some(caller) = procedure_named(db, caller_name) else {
            continue;
        };
        let mut rank = 0;
        for s in call_sites(db, caller).iter().filter(|s| &s.callee == name) {
            // Sub-sites share their CALL's rank: notes name calls as written.
            rank += 1;
            for (share, actuals) in s.shares() {
                sites.push((
                    caller_name.clone(),
                    rank,
                    s.count.map(|c| c * share),
                    site_binding(db, unit, &ir, s, actuals),
                ));
            }
        }
    }
    Arc::new(arbitrate(&ir, name, sites))
}

/// The binding `unit` is analysed under: its site's, or (as written) its callers'
/// chosen one; `None` when no call tells.
pub fn binding<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Option<Binding> {
    if let Some(b) = unit.site(db) {
        return Some(b.clone());
    }
    incoming(db, unit).chosen.clone()
}

/// What the call `site` with `actuals` (its own or a sub-site's) binds `callee` (as
/// written, lowered to `ir`) to: its dummies to the actuals, its COMMON variables to
/// the values known at the call that it or a procedure it calls uses.
fn site_binding<'db>(
    db: &'db dyn salsa::Database,
    callee: UnitText<'db>,
    ir: &Unit,
    site: &Site,
    actuals: &[KeyedActual],
) -> Binding {
    let mut b = bind(ir, actuals);
    b.values
        .extend(received(ir, &site.globals, &common_reach(db, callee).used));
    b.values.sort();
    b
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

/// The variants of the procedure each CALL of `unit` reaches (calls of procedures
/// outside the workspace left out), by statement: one per sub-site, with the share of
/// the call's executions it runs.
pub fn callees<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Vec<(StmtId, Vec<(f64, UnitText<'db>)>)> {
    let sites = call_sites(db, unit);
    if sites.is_empty() {
        return Vec::new();
    }
    sites
        .iter()
        .filter_map(|s| {
            let callee = procedure_named(db, &s.callee)?;
            let ir = lower(db, callee);
            let variants = s
                .shares()
                .into_iter()
                .map(|(share, actuals)| {
                    let binding = site_binding(db, callee, &ir, s, actuals);
                    (share, as_called(db, callee, binding))
                })
                .collect();
            Some((s.stmt, variants))
        })
        .collect()
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
        let parts = local_parts(&site_binding(db, callee, &ir, &s, &s.actuals)).map(|parts| {
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

/// What `unit`'s calls say that the numbers do not show ([`site_notes`]).
pub fn call_notes<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Vec<Diagnostic> {
    resolved_sites(db, unit)
        .iter()
        .flat_map(|(s, _, ir)| site_notes(s, ir))
        .collect()
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
        let variant = as_called(db, callee, site_binding(db, callee, &ir, s, &s.actuals));
        let maps = mappings(db, variant);
        let known = constants(db, variant);
        let env = |n: &str| known.values.get(n).map(|v| *v as i128);
        site_remaps(s, &ir, &maps, &env, &caller, options, &mut out);
    }
    Arc::new(out)
}

/// A warning at each call of `unit` that closes a recursive cycle
/// ([`recursion_warnings`]).
pub fn recursion<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Vec<Diagnostic> {
    let ir = lower(db, unit);
    if callee_names(&ir).is_empty() {
        return Vec::new();
    }
    recursion_warnings(&ir, unit.name(db), call_graph(db))
}
