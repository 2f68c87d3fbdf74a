//! The per-unit queries: parse → lower → counts, mappings and work formulas (none of
//! which read the bindings) → constants and values under the bindings → diagnostics.
//!
//! The bulky symbolic intermediates (frequency formulas, iteration sets, communication
//! terms, work formulas, loop nests and their cache lines) keep the results of their 256 most recently used
//! units (`lru`), evicted at each change or [`crate::AnalysisHost::evict`]: what the
//! front ends show is kept in the compact results computed from them.

use super::call_effects::call_effects;
use super::calls;
use super::common_reach::valued_arrays;
use super::functions::{Functions, function_values, parameters};
use super::inputs::Settings;
use super::mapped::{hidden_value, imported_mappings};
use super::modules::module_graph;
use super::mpi_shared::SharedMpi;
use super::profile::{ProfileState, profile_state, stale_note};
use super::scope::{exports, identifiers, imports, scope};
use super::tables::unit_tables;
use super::units::{UnitText, base, host_of};
use costline_model::cache::locality::PoorLocality;
use costline_model::cache::nest::Nest;
use costline_model::cache::{self as cache_model, UnitCache};
use costline_model::comm::ranks::{MpiRanks, RankJob, RankProfile};
use costline_model::comm::{self as comm_model, Network, UnitComm, UnitCommValues};
use costline_model::distribution::{self, Layout, UnitMappings};
use costline_model::freq::convert::Names;
use costline_model::freq::{self, Count, Counts, MeasuredValue, UnitFrequencies, frequencies_with};
use costline_model::machine::ops::OpKey;
use costline_model::time::{self, OpCounts, UnitTimes};
use costline_model::work::{
    self as work_model, Load, UnitFormulas, UnitValues, UnitWork, imbalance,
};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::consteval::fold_constants;
use costline_syntax::ir::directive::DirectiveKind;
use costline_syntax::ir::{StmtId, Unit, UnitKind, Use};
use costline_syntax::lower::{self as lowering, ParsedUnit, RepairedUnit};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The unit's text repaired for parsing (statements tree-sitter cannot parse blanked
/// and noted) and its USE statements. The tree is not kept: lowering, its only reader,
/// parses the repaired text again, and a kept tree per unit was a third of the
/// memory of a cold analysis.
#[salsa::tracked(returns(clone))]
pub fn parse<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<RepairedUnit> {
    if base(db, unit) != unit {
        return parse(db, base(db, unit));
    }
    let parsed = ParsedUnit::parse(
        unit.kind(db),
        unit.name(db).clone(),
        unit.text(db).to_string(),
    );
    Arc::new(parsed.into_repaired())
}

/// The unit's USE statements (what its scope is built from, read before lowering).
#[salsa::tracked(returns(ref))]
pub fn uses<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Vec<Use> {
    parse(db, unit).uses.clone()
}

/// The unit lowered to the IR, array syntax, FORALL and WHERE normalized to loops (a
/// variant: the unit's IR with the variant's directives).
#[salsa::tracked(returns(clone))]
pub fn lower<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Unit> {
    if let Some(directives) = unit.directives(db) {
        let mut ir = Unit::clone(&lower(db, base(db, unit)));
        ir.directives = directives.clone();
        return Arc::new(ir);
    }
    if unit.site(db).is_some() {
        return lower(db, base(db, unit));
    }
    let parsed = parse(db, unit).reparse();
    let host = unit.host(db).as_deref();
    Arc::new(lowering::lower(&parsed, host, scope(db, unit)))
}

/// freq(S) of every statement and loop, as formulas, each CALL changing the values
/// its callee sets ([`super::call_effects`]).
#[salsa::tracked(returns(clone), no_eq, lru = 256)]
pub fn freqs<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitFrequencies> {
    if base(db, unit) != unit {
        return freqs(db, base(db, unit));
    }
    let options = Settings::get(db).freq(db);
    let effects = call_effects(db, unit);
    let ir = lower(db, unit);
    // Only a unit with COMMON arrays reads the whole program's valued ones (so that an
    // edit of another procedure does not reach the others' counts).
    let common_arrays = ir
        .symbols
        .values()
        .any(|s| s.is_array() && s.common.is_some());
    let valued = if common_arrays {
        valued_arrays(db)
    } else {
        &Default::default()
    };
    let data_arrays: Vec<String> = ir
        .symbols
        .values()
        .filter(|s| s.is_array() && s.common.as_ref().is_some_and(|m| !valued.contains(m)))
        .map(|s| s.name.clone())
        .collect();
    let functions = Functions { db };
    let entry = Names::default()
        .with_constants(parameters(db, unit))
        .with_tables(unit_tables(db, unit));
    let measured = match profile_state(db, unit) {
        ProfileState::Fresh(m) => m,
        _ => Arc::default(),
    };
    Arc::new(frequencies_with(
        &ir,
        options,
        &effects,
        &data_arrays,
        &functions,
        entry,
        &measured,
    ))
}

/// How the unit's arrays are distributed, its host's and modules' included;
/// transcriptive dummies take the mappings of
/// the actuals of the call the unit is analysed as called from ([`calls::binding`]).
#[salsa::tracked(returns(clone), no_eq)]
pub fn mappings<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitMappings> {
    let ir = lower(db, unit);
    let transcriptive = distribution::transcriptive_dummies(&ir);
    let mut inherited = HashMap::new();
    if !transcriptive.is_empty()
        && let Some(b) = calls::binding(db, unit)
    {
        for d in transcriptive {
            match b.mapping(&d) {
                Some(calls::ActualMapping::Mapped(l)) => {
                    inherited.insert(d, Some(l.clone()));
                }
                Some(calls::ActualMapping::Replicated) => {
                    inherited.insert(d, None);
                }
                Some(calls::ActualMapping::Unknown) | None => {}
            }
        }
    }
    if inherited.is_empty() {
        // No call binds a dummy: the mappings as written, resolved once.
        return written_mappings(db, unit);
    }
    resolve_mappings(db, unit, &inherited)
}

/// The unit's mappings as written: transcriptive dummies bound to no caller's actuals.
/// What a unit shows its contained procedures and its users
/// ([`super::mapped::exported_mappings`]): the binding comes from the call graph, which
/// lowers those procedures, whose scope reads these mappings, a cycle otherwise.
#[salsa::tracked(returns(clone), no_eq)]
pub fn written_mappings<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<UnitMappings> {
    resolve_mappings(db, unit, &HashMap::new())
}

/// The unit's mappings, its transcriptive dummies taking the mappings `inherited` gives
/// them (`None`: replicated).
fn resolve_mappings<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
    inherited: &HashMap<String, Option<Layout>>,
) -> Arc<UnitMappings> {
    let ir = lower(db, unit);
    let mut maps =
        distribution::mappings_with(&ir, &imported_mappings(db, unit).visible, inherited);
    if ir.is_hpf_local() {
        // Each processor runs the procedure on its own elements: nothing is mapped (its
        // directives only describe the actuals' global mappings).
        maps.arrays.clear();
        maps.arrangements.clear();
        maps.dummies.clear();
        maps.dynamic = Default::default();
    }
    if !inherited.is_empty() || !may_export(db, unit) {
        // Only the mappings as written are shown ([`written_mappings`]), and only by a
        // module or a host: the copies would be kept for nobody.
        maps.visible = Default::default();
    }
    Arc::new(maps)
}

/// Whether `unit` may show its mappings to other units: a module or submodule (its
/// users, its procedures), or a unit whose own text has a CONTAINS statement. Tested on
/// the text with blanks dropped (fixed form may write `CON TAINS`): a false positive
/// only keeps a copy.
fn may_export(db: &dyn salsa::Database, unit: UnitText<'_>) -> bool {
    matches!(unit.kind(db), UnitKind::Module | UnitKind::Submodule) || {
        let squeezed: Vec<u8> = unit
            .text(db)
            .bytes()
            .filter(|b| !b.is_ascii_whitespace())
            .map(|b| b.to_ascii_lowercase())
            .collect();
        squeezed.windows(8).any(|w| w == b"contains")
    }
}

/// How the work of every assignment is spread (owner computes, replicated, assumed
/// even), with the iteration sets of work(S, p).
#[salsa::tracked(returns(clone), no_eq, lru = 256)]
pub fn work<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitWork> {
    Arc::new(work_model::unit_work(
        &lower(db, unit),
        &freqs(db, unit),
        &mappings(db, unit),
    ))
}

/// work(S, p) of every owner-computed assignment as a formula (computed when shown).
#[salsa::tracked(returns(clone), no_eq, lru = 256)]
pub fn work_formulas<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitFormulas> {
    Arc::new(work_model::unit_formulas(
        &lower(db, unit),
        &freqs(db, unit),
        &work(db, unit),
        Settings::get(db).freq(db),
    ))
}

/// work(S, p) of one owner-computed assignment as a formula (what a hover shows).
#[salsa::tracked(returns(ref), no_eq)]
pub fn stmt_formula<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
    stmt: StmtId,
) -> Option<Count> {
    let w = work(db, unit);
    let freqs = freqs(db, unit);
    work_model::formula(
        &w.of(stmt)?.spread,
        freqs.of(stmt)?,
        Settings::get(db).freq(db),
        // One statement: its own budget, not its unit's.
        &mut None,
    )
}

/// The values of the integer names a unit sees, and notes on bindings that override a
/// PARAMETER.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Constants {
    pub values: BTreeMap<String, i64>,
    pub notes: Vec<Diagnostic>,
    /// The names among `values` whose value a profile run recorded in this unit: what
    /// it recorded...
    pub measured: BTreeMap<String, MeasuredValue>,
    /// ...and the run in words.
    pub measured_run: Option<Arc<str>>,
}

impl Constants {
    /// The values a profile run recorded that `count` rests on, by name.
    pub fn measured_in(&self, count: &Count) -> Vec<(String, MeasuredValue)> {
        count
            .unknowns()
            .iter()
            .filter_map(|n| {
                let v = self.measured.get(n.as_ref() as &str)?;
                Some((n.to_string(), v.clone()))
            })
            .collect()
    }
}

/// The unit's integer constants: its PARAMETERs folded (the user's bindings override
/// any, constants derived from a bound one follow it), its host's and modules', the
/// bindings of the names it mentions, and (for names none of these give) the values
/// a profile run recorded in the unit ([`costline_model::freq::MeasuredValue::binding`]:
/// for this unit only).
#[salsa::tracked(returns(clone))]
pub fn constants<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Constants> {
    if let Some(site) = unit.site(db) {
        // As called from one site: its values in place of those the callers agree on.
        let mut c = Constants::clone(&constants(db, base(db, unit)));
        c.values
            .extend(site.values.iter().map(|(n, v)| (n.clone(), *v)));
        c.measured
            .retain(|n, _| !site.values.iter().any(|(s, _)| s == n));
        function_values(db, unit, &mut c.values);
        return Arc::new(c);
    }
    if unit.directives(db).is_some() {
        return constants(db, base(db, unit));
    }
    let mut c = Constants::clone(&local_constants(db, unit));
    // Integer dummies take the values their callers pass (over any binding).
    if let Some(b) = calls::binding(db, unit) {
        c.values
            .extend(b.values.iter().map(|(n, v)| (n.clone(), *v)));
    }
    if let ProfileState::Fresh(m) = profile_state(db, unit) {
        for (name, v) in &m.values {
            if !c.values.contains_key(name) {
                c.values.insert(name.clone(), v.binding());
                c.measured.insert(name.clone(), v.clone());
                c.measured_run = Some(m.run.clone());
            }
        }
    }
    function_values(db, unit, &mut c.values);
    Arc::new(c)
}

/// A unit's constants from its own text, its host's, its modules' and the user's
/// bindings: [`constants`] without the values its callers pass.
#[salsa::tracked(returns(clone))]
pub(crate) fn local_constants<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<Constants> {
    let ir = lower(db, unit);
    let bindings = Settings::get(db).bindings(db);
    let mut outer: BTreeMap<String, i64> = BTreeMap::new();
    if let Some(host) = host_of(db, unit) {
        outer.extend(
            exported_constants(db, host)
                .iter()
                .map(|(k, v)| (k.clone(), *v)),
        );
    }
    let graph = module_graph(db);
    for used in uses(db, unit) {
        let Some(&defined) = graph.modules.get(&used.module) else {
            continue;
        };
        if unit.kind(db) == UnitKind::Module && graph.in_cycle(unit.name(db), &used.module) {
            continue;
        }
        for (remote, value) in exported_constants(db, defined) {
            if let Some(local) = used.local_name(remote) {
                outer.insert(local.to_string(), *value);
            }
        }
    }
    let lookup = |n: &str| outer.get(n).copied();
    let mut values: BTreeMap<String, i64> = outer
        .iter()
        .filter(|(n, _)| !ir.symbols.contains_key(*n))
        .map(|(n, v)| (n.clone(), *v))
        .collect();
    values.extend(fold_constants(&ir, &lookup, bindings));
    // The sizes of imported mappings in names the unit does not see.
    let imported = imported_mappings(db, unit);
    for name in imported.hidden.keys() {
        if let Some(v) = hidden_value(db, unit, name) {
            values.insert(name.clone(), v);
        }
    }
    let mut notes = Vec::new();
    let mentioned = identifiers(db, unit);
    let mpi = mentioned.iter().any(|n| n.starts_with("mpi_"));
    for (name, value) in bindings {
        if let Some(sym) = ir.symbols.get(name).filter(|s| s.attrs.parameter) {
            notes.push(Diagnostic::info(
                sym.span,
                "binding",
                format!("--param {name}={value} overrides the PARAMETER value of `{name}`"),
            ));
        }
        // An MPI unit's process count may come from `p` (comm::mpi) without the unit
        // naming it, and so may an HPF unit's: NUMBER_OF_PROCESSORS(),
        // PROCESSORS_SHAPE() and the default arrangement of a DISTRIBUTE without one.
        let hpf = ["number_of_processors", "processors_shape", "distribute"]
            .iter()
            .any(|w| mentioned.contains(*w))
            || ir.directives.iter().any(|d| {
                matches!(
                    d.kind,
                    DirectiveKind::Distribute(_) | DirectiveKind::Redistribute(_)
                )
            });
        let sized = imported.vars.contains(name) && !ir.symbols.contains_key(name);
        // The default arrangement of k distributed dimensions is p1 x ... x pk.
        let grid = name
            .strip_prefix('p')
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
        if mentioned.contains(name) || sized || (name == "p" && (mpi || hpf)) || (grid && hpf) {
            values.insert(name.clone(), *value);
        }
    }
    Arc::new(Constants {
        values,
        notes,
        measured: BTreeMap::new(),
        measured_run: None,
    })
}

/// The constants among a unit's exports: what its contained procedures and (for a
/// module) its users see. Its own values only ([`local_constants`]), not those its
/// callers pass: a contained procedure may call its host, and the host's values
/// would then depend on the procedure's own (a cycle).
#[salsa::tracked(returns(ref))]
fn exported_constants<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> BTreeMap<String, i64> {
    let visible = exports(db, unit);
    local_constants(db, unit)
        .values
        .iter()
        .filter(|(n, _)| visible.contains_key(*n))
        .map(|(n, v)| (n.clone(), *v))
        .collect()
}

/// freq(S) of every statement under the bindings (of an MPI program whose profile
/// found values that differ by rank: the mean of each rank's counts).
#[salsa::tracked(returns(clone))]
pub fn counts<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Counts> {
    if unit.directives(db).is_some() && unit.site(db).is_none() {
        return counts(db, base(db, unit));
    }
    let known = constants(db, unit);
    let (ir, freqs, options) = (lower(db, unit), freqs(db, unit), Settings::get(db).freq(db));
    // Values a profile found to differ between MPI ranks, one on each: the counts are
    // each rank's, averaged.
    let split: Vec<(&String, &[i64])> = known
        .measured
        .iter()
        .filter(|(_, v)| !v.per_rank.is_empty())
        .map(|(n, v)| (n, v.per_rank.as_slice()))
        .collect();
    let ranks = split.iter().map(|(_, v)| v.len()).min().unwrap_or(0);
    if ranks == 0 {
        let env = |n: &str| known.values.get(n).map(|v| *v as i128);
        return Arc::new(freq::counts(&ir, &freqs, &env, options));
    }
    let each: Vec<Counts> = (0..ranks)
        .map(|r| {
            let env = |n: &str| {
                split
                    .iter()
                    .find(|(m, _)| m.as_str() == n)
                    .map(|(_, v)| v[r])
                    .or_else(|| known.values.get(n).copied())
                    .map(i128::from)
            };
            freq::counts(&ir, &freqs, &env, options)
        })
        .collect();
    Arc::new(Counts::mean(&each))
}

/// work(S, p) of one assignment for every processor under the bindings (a query of its
/// own, so that hints for a screen evaluate the assignments on it only).
#[salsa::tracked(returns(ref))]
pub fn stmt_load<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
    stmt: StmtId,
) -> Option<Load> {
    let work = work(db, unit);
    let known = constants(db, unit);
    let env = |n: &str| known.values.get(n).map(|v| *v as i128);
    work_model::stmt_load(
        stmt,
        work.of(stmt)?,
        &counts(db, unit),
        &env,
        Settings::get(db).freq(db),
    )
}

/// The right-hand-side references of every assignment that may communicate, with
/// their placement and iteration sets.
#[salsa::tracked(returns(clone), no_eq, lru = 256)]
pub fn comm<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitComm> {
    let shared = SharedMpi::of(db, unit);
    Arc::new(comm_model::unit_comm(
        &lower(db, unit),
        &freqs(db, unit),
        &mappings(db, unit),
        &work(db, unit),
        &|name| shared.datatype(name),
        shared.world_size.as_deref(),
    ))
}

/// The communication records of every assignment under the bindings (machine
/// independent: switching machines does not recount them).
#[salsa::tracked(returns(clone))]
pub fn comm_records<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitCommValues> {
    let known = constants(db, unit);
    let env = |n: &str| known.values.get(n).map(|v| *v as i128);
    let counts = counts(db, unit);
    let freq = |id| counts.value(id);
    let state = profile_state(db, unit);
    let gathers = match &state {
        ProfileState::Fresh(m) => comm_model::Gathers {
            measured: &m.gathers,
            run: &m.run,
        },
        _ => comm_model::Gathers::default(),
    };
    let options = Settings::get(db).freq(db);
    let varied: Vec<&str> = known
        .measured
        .iter()
        .filter(|(_, v)| v.varied_within_a_rank())
        .map(|(n, _)| n.as_str())
        .collect();
    let model = comm(db, unit);
    Arc::new(
        comm_model::unit_comm_records(&model, &freq, &env, options, gathers)
            .with_estimates(&model, &freqs(db, unit), &varied)
            .with(&calls::call_remaps(db, unit).refs),
    )
}

/// The communication records priced on the machine: NT, TD, TT and the critical path
/// of every assignment and MPI call.
#[salsa::tracked(returns(clone))]
pub fn comm_values<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitCommValues> {
    let known = constants(db, unit);
    let env = |n: &str| known.values.get(n).map(|v| *v as i128);
    let counts = counts(db, unit);
    let freq = |id| counts.value(id);
    let network = Network::of(Settings::get(db).machine(db));
    let ranks = mpi_ranks(db, unit);
    let ranks = ranks.as_ref().as_ref().and_then(|r| r.as_ref().ok());
    Arc::new(comm_records(db, unit).priced(&comm(db, unit), &freq, &env, &network, ranks))
}

/// The unit's MPI calls evaluated rank by rank (none when it makes no MPI call), or why
/// they cannot be.
#[salsa::tracked(returns(clone))]
pub fn mpi_ranks<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<Option<Result<MpiRanks, String>>> {
    let comm = comm(db, unit);
    if comm.mpi.is_empty() {
        return Arc::new(None);
    }
    let known = constants(db, unit);
    // Without a binding of `p`, the process count the profile ran on.
    let ranks = Settings::get(db).profile(db).as_ref().and_then(|p| p.ranks);
    let env = |n: &str| {
        known
            .values
            .get(n)
            .map(|v| *v as i128)
            .or_else(|| (n == "p").then_some(ranks? as i128))
    };
    let state = profile_state(db, unit);
    let varied = |n: &str| {
        known
            .measured
            .get(n)
            .is_some_and(|v| v.varied_within_a_rank())
    };
    let rank_value = |n: &str, r: usize| {
        let v = known.measured.get(n)?.per_rank.get(r)?;
        Some(i128::from(*v))
    };
    let profile = match &state {
        ProfileState::Fresh(m) => m.per_rank.as_deref().map(|counts| RankProfile {
            counts,
            run: &m.run,
            varied: &varied,
            rank_value: &rank_value,
        }),
        _ => None,
    };
    let mut job = RankJob {
        unit: &lower(db, unit),
        calls: &comm.mpi,
        carts: &comm.carts,
        freqs: &freqs(db, unit),
        env: &env,
        options: Settings::get(db).freq(db),
        net: &Network::of(Settings::get(db).machine(db)),
        profile: None,
    };
    // The per-rank counts apply on as many processes as they were counted on.
    if let Some(p) = profile
        && job.processes().ok() == Some(p.counts.ranks as i128)
    {
        job.profile = Some(p);
    }
    Arc::new(Some(job.run()))
}

/// The operations of one execution of every statement (machine independent).
#[salsa::tracked(returns(clone))]
pub fn ops<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<HashMap<StmtId, OpCounts>> {
    if base(db, unit) != unit {
        return ops(db, base(db, unit));
    }
    let ir = lower(db, unit);
    let mut out = HashMap::new();
    ir.walk(&mut |s, _| {
        let o = time::stmt_ops(&ir, s);
        if !o.is_empty() {
            out.insert(s.id, o);
        }
    });
    Arc::new(out)
}

/// |P| of the unit under the bindings: the processors its work is spread over (1 when
/// nothing is distributed or the size has no value).
#[salsa::tracked(returns(copy))]
pub fn processors<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> usize {
    let known = constants(db, unit);
    let env = |n: &str| known.values.get(n).map(|v| *v as i128);
    work(db, unit)
        .arrangement
        .as_ref()
        .and_then(|a| extents_size(&a.extents, &env))
        .unwrap_or(1)
}

fn extents_size(extents: &[costline_symbolic::Sym], env: costline_symbolic::Env) -> Option<usize> {
    let mut size: usize = 1;
    for e in extents {
        let v = match e.eval(env).ok()? {
            costline_symbolic::Num::Exact(r) => r.as_integer()?,
            costline_symbolic::Num::Approx(_) => return None,
        };
        size = size.checked_mul(usize::try_from(v).ok().filter(|v| *v >= 1)?)?;
    }
    (size <= costline_model::work::MAX_PROCESSORS as usize).then_some(size)
}

/// The computation, communication and predicted time of every statement, loop and of
/// the unit itself, per run (P^3T+ Definitions 4.7–4.9; calls add their callees').
#[salsa::tracked(returns(clone))]
pub fn times<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitTimes> {
    // A variant's calls cost what the unit's do (callees keep their own mappings).
    let calls = super::program::call_times(db, base(db, unit));
    Arc::new(unit_times_with(db, unit, &|id| calls.get(&id).copied()))
}

/// The unit's times with what its calls add (`calls`: computation and total time per
/// run of the unit, by CALL statement).
pub(super) fn unit_times_with(
    db: &dyn salsa::Database,
    unit: UnitText<'_>,
    calls: &dyn Fn(StmtId) -> Option<(f64, f64)>,
) -> UnitTimes {
    let ir = lower(db, unit);
    let machine = Settings::get(db).machine(db);
    let values = values(db, unit);
    let comm = comm_values(db, unit);
    let freq = |id: StmtId| values.value(id);
    let processors = processors(db, unit);
    let memory = time::memory_seconds(&ir, &cache(db, unit), &freq, processors);
    let intrinsics = intrinsic_times(db, unit);
    let ops = vectorized_ops(db, unit);
    time::unit_times(&time::Inputs {
        unit: &ir,
        machine,
        ops: &ops,
        freq: &freq,
        load: &|id| values.load(id).cloned(),
        comm: &|id| comm.metrics(id).map(|m| m.path_s),
        calls,
        processors,
        memory: &|id| memory.get(&id).copied().unwrap_or(0.0),
        intrinsics: &|id| intrinsics.seconds.get(&id).cloned(),
    })
}

/// The compiler and flags the program is built with: the setting, else the flags the
/// machine model was trained with, else `gfortran -O2` ([`crate::compiler_command`]).
pub fn compiler(db: &dyn salsa::Database) -> time::vectorize::Compiler {
    let text = compiler_text(db);
    let (command, flags) = text.split_once(' ').unwrap_or((&text, ""));
    time::vectorize::Compiler::gnu(command, flags)
}

/// The compiler command and flags in force, as [`crate::compiler_command`] writes them.
pub fn compiler_text(db: &dyn salsa::Database) -> String {
    let settings = Settings::get(db);
    crate::compiler_command(
        settings.compiler(db).as_deref(),
        settings.machine(db),
        settings.defines(db),
    )
}

/// What the compiler does with each innermost DO loop of the unit: what the compiler's
/// report of the file as it is says (`compiler_reports`), else costline's model of its
/// rules (`time::vectorize`).
#[salsa::tracked(returns(clone))]
pub fn vector_verdicts<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<HashMap<StmtId, time::vectorize::Verdict>> {
    let ir = lower(db, unit);
    let compiler = compiler(db);
    let mut out = super::compiler_reports::reported_verdicts(db, unit, &ir, &compiler);
    ir.walk(&mut |s, _| {
        // A copy loop becomes a call of memcpy before the vectorizer sees it.
        if time::library::copy_loop(&ir, s, &compiler).is_some() {
            out.insert(s.id, time::vectorize::Verdict::library("memcpy"));
        } else if !out.contains_key(&s.id)
            && let Some(v) = time::vectorize::verdict(&ir, s, &compiler)
        {
            out.insert(s.id, v);
        }
    });
    Arc::new(out)
}

/// The operations of every statement as the compiled code performs them: what does
/// not change in the innermost loop is computed before it (`time::invariant`); a recurrence
/// through an array (`a(i) = a(i-1)*c + b(i)`) waits for its chain's latencies each
/// iteration; in a loop the compiler vectorizes, each element operation (and the
/// loop's own overhead) costs 1/lanes (`OpCounts::vectorized`); a loop it replaces by
/// memcpy is the bytes it copies (`time::library`).
fn vectorized_ops(db: &dyn salsa::Database, unit: UnitText<'_>) -> HashMap<StmtId, OpCounts> {
    let mut ops = (*ops(db, unit)).clone();
    let verdicts = vector_verdicts(db, unit);
    let ir = lower(db, unit);
    let compiler = compiler(db);
    ir.walk(&mut |s, _| {
        if let Some(copy) = time::library::copy_loop(&ir, s, &compiler) {
            ops.insert(s.id, OpCounts::default());
            let mut bytes = OpCounts::default();
            bytes.add(OpKey::MemcpyByte, f64::from(copy.bytes));
            ops.insert(copy.assign, bytes);
            return;
        }
        for (id, hoisted) in time::invariant::hoisted(&ir, s) {
            if let Some(o) = ops.get_mut(&id) {
                *o = o.without(&hoisted);
            }
        }
        for (id, keys) in time::vectorize::recurrences(&ir, s) {
            let o = ops.entry(id).or_default();
            for k in keys {
                o.add_one(k);
            }
        }
        let Some(v) = verdicts.get(&s.id).filter(|v| v.vectorized) else {
            return;
        };
        costline_syntax::ir::walk(std::slice::from_ref(s), &mut |x, _| {
            if let Some(o) = ops.get_mut(&x.id) {
                *o = o.vectorized(v.lanes);
            }
        });
    });
    ops
}

/// Seconds of one execution of each statement's intrinsic element loops on each of the
/// unit's processors (`time::intrinsic`): split over the owners of a distributed array
/// where the statement runs on every processor. A loop whose section has no value is
/// left out of the seconds and listed in `unpriced` (a gap of the statement's figures).
#[salsa::tracked(returns(clone))]
pub fn intrinsic_times<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<time::IntrinsicTimes> {
    let processors = processors(db, unit);
    let ir = lower(db, unit);
    let machine = Settings::get(db).machine(db);
    let known = constants(db, unit);
    let env = |n: &str| known.values.get(n).map(|v| *v as i128);
    let maps = mappings(db, unit);
    let work = work(db, unit);
    let mut out = time::IntrinsicTimes::default();
    ir.walk(&mut |s, _| {
        let loops = time::element_loops(&ir, s);
        if loops.is_empty() {
            return;
        }
        let replicated = work
            .of(s.id)
            .is_none_or(|w| matches!(w.spread, work_model::Spread::Replicated));
        let mut total = vec![0.0; processors.max(1)];
        for l in &loops {
            let layout = maps
                .at(s.id, &l.array)
                .filter(|_| replicated)
                .and_then(|m| {
                    let lowers: Vec<costline_symbolic::Sym> =
                        costline_model::calls::binding::declared_dims(&ir, &l.array)?
                            .into_iter()
                            .map(|(lower, _)| lower)
                            .collect();
                    Layout::of(m, &lowers, &env)
                });
            match l.seconds(&ir, machine, &env, layout.as_ref(), processors) {
                Ok(secs) => {
                    for (a, b) in total.iter_mut().zip(secs) {
                        *a += b;
                    }
                }
                Err(why) => out.unpriced.push((
                    s.id,
                    format!(
                        "the element loop of `{}`: {why}",
                        l.intrinsic.to_ascii_uppercase()
                    ),
                )),
            }
        }
        out.seconds.insert(s.id, total);
    });
    Arc::new(out)
}

/// The loop nests of the unit with their array access classes (P^3T+ section 4.4).
#[salsa::tracked(returns(clone), lru = 256)]
pub fn nests<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Vec<Nest>> {
    Arc::new(unit_nests(db, unit))
}

/// [`nests`], not kept: what a finding of its own reads ([`locality`]), so that the
/// diagnostics of a whole file do not keep every unit's nests.
fn unit_nests<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Vec<Nest> {
    let ir = lower(db, unit);
    let values = values(db, unit);
    let known = constants(db, unit);
    let maps = mappings(db, unit);
    let env = |n: &str| known.values.get(n).map(|v| *v as i128);
    let env64 = |n: &str| known.values.get(n).copied();
    let freq = |id: StmtId| values.value(id);
    let elem_bytes = |a: &str| comm_model::element_bytes(&ir, a);
    let divisor = |a: &str, d: usize| time::dim_divisor(&maps, a, d, &env);
    cache_model::nest::nests(&cache_model::nest::NestInputs {
        unit: &ir,
        freq: &freq,
        env: &env64,
        elem_bytes: &elem_bytes,
        divisor: &divisor,
    })
}

/// The cache lines of every loop nest on the machine (P^3T+ section 4.4): distinct
/// lines and the lines each cache level loads, per processor.
#[salsa::tracked(returns(clone), lru = 256)]
pub fn cache<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitCache> {
    let ir = lower(db, unit);
    let machine = Settings::get(db).machine(db);
    let values = values(db, unit);
    let known = constants(db, unit);
    let maps = mappings(db, unit);
    let env = |n: &str| known.values.get(n).map(|v| *v as i128);
    let freq = |id: StmtId| values.value(id);
    let divisor = |a: &str, d: usize| time::dim_divisor(&maps, a, d, &env);
    let mut roots = HashMap::new();
    ir.walk(&mut |s, _| {
        roots.insert(s.id, s);
    });
    let processors = processors(db, unit);
    let load = |id: StmtId| values.load(id).cloned();
    let share = |nest: &Nest| {
        let root = roots.get(&nest.id)?;
        cache_model::share::nest_share(nest, root, &load, &freq, &divisor, processors)
    };
    let count = |key: cache_model::CountKey| nest_counts(db, NestCountKey::new(db, key));
    Arc::new(cache_model::unit_cache(
        &nests(db, unit),
        &cache_model::CacheInputs {
            machine,
            processors,
            share: &share,
            count: &count,
        },
    ))
}

/// One processor's share of a loop nest, by content: distribution alternatives that
/// leave a nest's local extents and trips alone (BLOCK and CYCLIC of one dimension on
/// one line of processors) share its line counts.
#[salsa::interned(debug)]
pub struct NestCountKey<'db> {
    #[returns(ref)]
    pub key: cache_model::CountKey,
}

/// The line counts of one processor's share of a nest ([`cache_model::counts`]).
#[salsa::tracked(returns(clone))]
pub fn nest_counts<'db>(
    db: &'db dyn salsa::Database,
    key: NestCountKey<'db>,
) -> Arc<cache_model::Counts> {
    Arc::new(cache_model::counts(key.key(db)))
}

/// Innermost loops striding through a slow dimension, with the interchange that fixes
/// each when it is legal.
#[salsa::tracked(returns(clone))]
pub fn locality<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<Vec<PoorLocality>> {
    let memory = &Settings::get(db).machine(db).memory;
    Arc::new(cache_model::locality::poor_locality(
        &lower(db, unit),
        &unit_nests(db, unit),
        memory.cache_line_bytes,
        memory.levels.first().map(|l| l.bytes),
    ))
}

/// Every count and the work of every processor under the bindings.
#[salsa::tracked(returns(clone))]
pub fn values<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<UnitValues> {
    Arc::new(UnitValues::new(
        &lower(db, unit),
        counts(db, unit),
        &work(db, unit),
        &|id| stmt_load(db, unit, id).clone(),
    ))
}

/// Everything the analysis of a unit has to say, spans relative to its text: lowering
/// and directive errors, USEs not followed, bindings overriding PARAMETERs, assumed trip
/// counts, mappings that could not be resolved, imbalanced statements.
#[salsa::tracked(returns(clone))]
pub fn unit_diagnostics<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<Vec<Diagnostic>> {
    let ir = lower(db, unit);
    let mut out = ir.diagnostics.clone();
    out.extend(imports(db, unit).notes.iter().cloned());
    out.extend(constants(db, unit).notes.iter().cloned());
    out.extend(freq::notes::notes(&ir, &freqs(db, unit)));
    out.extend(stale_note(&profile_state(db, unit), ir.header));
    let maps = mappings(db, unit);
    out.extend(maps.diagnostics.iter().cloned());
    out.extend(
        super::common::common_notes(db, base(db, unit))
            .iter()
            .cloned(),
    );
    if !ir.dummies.is_empty() {
        out.extend(calls::incoming(db, unit).notes.iter().cloned());
    }
    out.extend(calls::call_remaps(db, unit).diagnostics.iter().cloned());
    out.extend(calls::call_notes(db, unit));
    out.extend(calls::recursion(db, unit));
    let known = constants(db, unit);
    out.extend(maps.arrangement_findings(&ir, &|n| known.values.get(n).map(|v| *v as i128)));
    // Findings weighed by their share of the unit's predicted time: a boundary
    // initialization in a unit that sweeps a grid does not warn. The time is predicted
    // only for a unit with a candidate finding (most have none).
    let share = Settings::get(db).finding_share(db);
    let unit_times = std::cell::OnceCell::new();
    let matters = |id: StmtId| {
        let unit_times = unit_times.get_or_init(|| times(db, unit));
        let total = unit_times.unit.time_s;
        match unit_times.of(id) {
            Some(t) if t.known && unit_times.unit.known && total > 0.0 => t.time_s >= share * total,
            _ => true,
        }
    };
    out.extend(imbalance::diagnostics(
        &ir,
        &work(db, unit),
        &values(db, unit),
        Settings::get(db).imbalance_threshold(db),
        &matters,
    ));
    // Only the fetches kept inside a loop are looked at: a unit whose fetches are all
    // vectorized out of its loops counts none of them here.
    let in_loops = comm_model::unit_comm_in_loops(&ir, &freqs(db, unit), &maps, &work(db, unit));
    if comm_model::diagnostics::may_find(&in_loops) {
        out.extend(comm_model::diagnostics::diagnostics(
            &ir,
            &comm_values(db, unit),
            &matters,
        ));
    }
    out.extend(
        locality(db, unit)
            .iter()
            .map(|f| Diagnostic::warning(f.header, "poor-locality", f.message.clone())),
    );
    // Each finding once: the loops array syntax, WHERE and FORALL become share their
    // statement's place, and would repeat its notes.
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| seen.insert((d.span, d.code, d.message.clone())));
    Arc::new(out)
}
