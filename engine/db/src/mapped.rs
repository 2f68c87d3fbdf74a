//! Mappings across units: a module's distributed arrays keep their mapping in every
//! unit that USEs them (ONLY lists and renames applied), a host's in its contained
//! procedures, and both units' PROCESSORS and TEMPLATEs are there for the seeing unit's
//! own directives. Like [`super::scope::imports`], what a unit imports is filtered to
//! the names its text mentions, so a change in a module re-resolves only the units that
//! name what changed.
//!
//! The sizes in an imported mapping name the defining unit's constants. One the seeing
//! unit knows by another name (a rename) is renamed; one it does not see (left out of
//! an ONLY list, or hidden by a local declaration) becomes `unit::name`, valued from
//! the defining unit's constants ([`Imported::hidden`]).

use super::analysis::{lower, uses, written_mappings};
use super::modules::module_graph;
use super::scope::{exports, identifiers};
use super::units::{UnitText, base, host_of};
use costline_model::distribution::Visible;
use costline_syntax::ir::UnitKind;
use std::collections::{BTreeMap, BTreeSet};

/// Where an imported mapping's variable takes its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The unit's host.
    Host,
    /// A USEd module.
    Module(String),
}

/// The mappings a unit sees from its host and modules.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub visible: Visible,
    /// Variables of `visible` the unit does not see itself: (name here) → (where its
    /// value is, its name there).
    pub hidden: BTreeMap<String, (Source, String)>,
    /// Every variable `visible` mentions.
    pub vars: BTreeSet<String>,
}

/// What a unit shows its contained procedures and users: its own arrangements,
/// templates and mapped arrays, and what it sees from outside that it does not hide;
/// spans dropped (moving a directive inside a module changes nothing outside it).
#[salsa::tracked(returns(ref))]
pub fn exported_mappings<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Visible {
    let own = &written_mappings(db, unit).visible;
    let mut v = own
        .renamed(&all_names(own), &BTreeMap::new())
        .unwrap_or_default();
    let declared = &lower(db, unit).symbols;
    let mut seen = seen_mappings(db, unit).visible.clone();
    seen.shapes.retain(|n, _| !declared.contains_key(n));
    seen.mappings.retain(|n, _| !declared.contains_key(n));
    v.merge(seen);
    v
}

/// Every entry of `v`, under its own name.
fn all_names(v: &Visible) -> Vec<(String, String)> {
    let all: BTreeSet<&String> = v
        .arrangements
        .keys()
        .chain(v.shapes.keys())
        .chain(v.mappings.keys())
        .collect();
    all.into_iter().map(|n| (n.clone(), n.clone())).collect()
}

/// The units `unit` sees entities of, with how it names each of their entities (`None`:
/// not visible): its USEd modules (a module's win over the host's of the same name, as
/// in [`super::scope::imports`]), then its host.
type Exporters<'db> = Vec<(UnitText<'db>, Source, Box<dyn Fn(&str) -> Option<String>>)>;

fn exporters<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Exporters<'db> {
    let graph = module_graph(db);
    let mut out: Exporters<'db> = Vec::new();
    for used in uses(db, unit) {
        let module = used.module.clone();
        if unit.kind(db) == UnitKind::Module && graph.in_cycle(unit.name(db), &module) {
            continue;
        }
        let Some(&defined) = graph.modules.get(&module) else {
            continue;
        };
        let used = used.clone();
        out.push((
            defined,
            Source::Module(module),
            Box::new(move |n| used.local_name(n).map(str::to_string)),
        ));
    }
    if let Some(host) = host_of(db, unit) {
        out.push((host, Source::Host, Box::new(|n| Some(n.to_string()))));
    }
    out
}

/// Every mapping `unit` sees from its modules and host, in its own names.
#[salsa::tracked(returns(ref))]
pub fn seen_mappings<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Imported {
    let unit = base(db, unit);
    let own = &lower(db, unit).symbols;
    let mut out = Imported::default();
    for (exporter, source, local_name) in exporters(db, unit) {
        let theirs = exported_mappings(db, exporter);
        let keep: Vec<(String, String)> = all_names(theirs)
            .into_iter()
            .filter_map(|(remote, _)| Some((local_name(&remote)?, remote)))
            .collect();
        if keep.is_empty() {
            continue;
        }
        let entities = exports(db, exporter);
        let mut renames = BTreeMap::new();
        let Ok(kept) = theirs.renamed(&keep, &BTreeMap::new()) else {
            continue;
        };
        for v in kept.vars() {
            if entities.contains_key(&v) {
                match local_name(&v).filter(|l| !own.contains_key(l)) {
                    Some(l) if l == v => {}
                    Some(l) => {
                        renames.insert(v, l);
                    }
                    None => {
                        let hidden = format!("{}::{v}", exporter.name(db));
                        out.hidden
                            .insert(hidden.clone(), (source.clone(), v.clone()));
                        renames.insert(v, hidden);
                    }
                }
            } else if v.contains("::") {
                // Hidden in the exporter already: valued where it is.
                out.hidden.insert(v.clone(), (source.clone(), v));
            }
        }
        let Ok(seen) = kept.renamed(&all_names(&kept), &renames) else {
            continue;
        };
        out.visible.merge(seen);
    }
    out.vars = out.visible.vars();
    out
}

/// The mappings `unit` sees that its text names (what its own resolution reads, so
/// that a change in a module re-resolves only the units naming what changed).
#[salsa::tracked(returns(ref))]
pub fn imported_mappings<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Imported {
    let unit = base(db, unit);
    let mentioned = identifiers(db, unit);
    let seen = seen_mappings(db, unit);
    let mut visible = seen.visible.clone();
    visible.arrangements.retain(|n, _| mentioned.contains(n));
    visible.shapes.retain(|n, _| mentioned.contains(n));
    visible.mappings.retain(|n, _| mentioned.contains(n));
    let vars = visible.vars();
    let hidden = seen
        .hidden
        .iter()
        .filter(|(n, _)| vars.contains(*n))
        .map(|(n, s)| (n.clone(), s.clone()))
        .collect();
    Imported {
        visible,
        hidden,
        vars,
    }
}

/// The PROCESSORS arrangements (rank by name) and TEMPLATEs (likewise) of the host and
/// the USEd modules that `unit`'s text names: what its own directives may refer to.
/// Read before lowering (it does not depend on the unit's own declarations).
#[salsa::tracked(returns(ref))]
pub fn outer_directive_names<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
    let unit = base(db, unit);
    let mentioned = identifiers(db, unit);
    let (mut processors, mut templates) = (BTreeMap::new(), BTreeMap::new());
    for (exporter, _, local_name) in exporters(db, unit) {
        let theirs = exported_mappings(db, exporter);
        let entities = exports(db, exporter);
        let local = |n: &String| local_name(n).filter(|l| mentioned.contains(l));
        for (name, a) in &theirs.arrangements {
            if let Some(l) = local(name) {
                processors.entry(l).or_insert(a.extents.len());
            }
        }
        for (name, dims) in &theirs.shapes {
            if !entities.contains_key(name)
                && let Some(l) = local(name)
            {
                templates.entry(l).or_insert(dims.len());
            }
        }
    }
    (processors, templates)
}

/// The value of `name`, a variable of the mappings `unit` sees that the unit does not
/// see itself: the defining unit's constant, followed through the chain of hosts and
/// modules that passed it on.
pub fn hidden_value(db: &dyn salsa::Database, unit: UnitText<'_>, name: &str) -> Option<i64> {
    let mut at = base(db, unit);
    let mut name = name.to_string();
    for _ in 0..16 {
        let (source, there) = seen_mappings(db, at).hidden.get(&name)?.clone();
        let from = source_unit(db, at, &source)?;
        if let Some(&v) = super::analysis::constants(db, from).values.get(&there) {
            return Some(v);
        }
        (at, name) = (from, there);
    }
    None
}

/// The unit that defines the value of an imported variable.
fn source_unit<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
    source: &Source,
) -> Option<UnitText<'db>> {
    match source {
        Source::Host => host_of(db, unit),
        Source::Module(m) => module_graph(db).modules.get(m).copied(),
    }
}
