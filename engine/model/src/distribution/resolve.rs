//! From a unit's HPF directives to the mapping of each of its arrays.

use super::visible::Visible;
use super::{
    Arrangement, DistDim, Distribution, Format, Layout, Mapping, TemplateIndex, block_size,
};
use crate::freq::convert::{Names, Scope, size_key};
use crate::work::MAX_PROCESSORS;
use costline_symbolic::{Env, Num, Sym, SymError};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::directive::{
    Align, AlignSource, AlignSubscript, DirectiveKind, DistFormat, Distribute, FormatClause, Named,
    Onto,
};
use costline_syntax::ir::{Bound, Expr, Unit};
use costline_syntax::span::Span;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The mappings of a unit's arrays (arrays not listed are replicated on every processor).
#[derive(Clone, Debug, Default)]
pub struct UnitMappings {
    pub arrays: HashMap<String, Mapping>,
    /// The PROCESSORS arrangements the unit declares, in order.
    pub arrangements: Vec<Arrangement>,
    /// What could not be modelled, and default arrangements assumed.
    pub diagnostics: Vec<Diagnostic>,
    /// The mappings REDISTRIBUTE and REALIGN put in force ([`super::dynamic`]).
    pub dynamic: super::dynamic::Flow,
    /// The unit's own arrangements, templates and mapped arrays (what its contained
    /// procedures and a module's users see, with what it sees from outside).
    pub visible: Visible,
    /// How each mapped dummy argument is mapped.
    pub dummies: HashMap<String, DummyMapping>,
}

/// How a dummy argument's mapping relates to its actual's (HPF 2.0 §4.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DummyMapping {
    /// `DISTRIBUTE x(BLOCK)`, or ALIGN: the actual is remapped to it at the call.
    Prescriptive,
    /// `DISTRIBUTE x *(BLOCK)`: asserted to be the actual's already.
    Descriptive,
    /// `INHERIT :: x`, `DISTRIBUTE x *`: the actual's mapping, whatever it is.
    Transcriptive,
}

/// The dummies of `unit` whose mapping is transcriptive (`INHERIT`, `DISTRIBUTE x *`).
pub fn transcriptive_dummies(unit: &Unit) -> Vec<String> {
    let mut out: Vec<String> = unit
        .directives
        .iter()
        .flat_map(|d| match &d.kind {
            DirectiveKind::Inherit(names) => names.iter().map(|n| n.name.clone()).collect(),
            DirectiveKind::Distribute(Distribute {
                distributees,
                formats: FormatClause::Transcriptive,
                ..
            }) => distributees.iter().map(|n| n.name.clone()).collect(),
            _ => Vec::new(),
        })
        .filter(|n| unit.dummies.contains(n))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What the processor count of an arrangement is under the bindings.
enum Size {
    /// It has a value every analysis can use.
    Usable,
    /// It needs values for these unknowns.
    Needs(Vec<String>),
    /// An extent below 1 (dimension from 1, value).
    Empty(usize, i128),
    /// More processors than the work and communication are enumerated for.
    TooMany(String),
}

/// The size of `a` under `env`.
fn size(a: &Arrangement, env: Env) -> Size {
    let mut needs: Vec<String> = a
        .extents
        .iter()
        .flat_map(|e| e.vars())
        .filter(|n| env(n).is_none())
        .map(|n| n.to_string())
        .collect();
    needs.sort();
    needs.dedup();
    if !needs.is_empty() {
        return Size::Needs(needs);
    }
    let mut product: Option<i128> = Some(1);
    for (k, e) in a.extents.iter().enumerate() {
        let Ok(Num::Exact(r)) = e.eval(env) else {
            return Size::Usable;
        };
        let Some(v) = r.as_integer() else {
            return Size::Usable;
        };
        if v < 1 {
            return Size::Empty(k + 1, v);
        }
        product = product.and_then(|p| p.checked_mul(v));
    }
    match product {
        Some(p) if p <= MAX_PROCESSORS => Size::Usable,
        Some(p) => Size::TooMany(p.to_string()),
        None => Size::TooMany(format!("more than {}", i128::MAX)),
    }
}

impl UnitMappings {
    /// The arrangements the unit's arrays are distributed onto, each once (sorted by
    /// name and shape: the map's order decides nothing), with the directive that
    /// declares it.
    fn used_arrangements(&self, unit: &Unit) -> Vec<(&Arrangement, Option<Span>)> {
        let mut used: Vec<&Arrangement> =
            self.arrays.values().map(|m| &m.distribution.onto).collect();
        used.sort_by_key(|a| (a.name.clone(), format!("{:?}", a.extents)));
        used.dedup_by(|a, b| a.name == b.name && a.extents == b.extents);
        used.into_iter()
            .map(|a| {
                let span = unit
                    .directives
                    .iter()
                    .find(|d| match &d.kind {
                        DirectiveKind::Processors(ps) => ps.iter().any(|p| p.name.name == a.name),
                        DirectiveKind::Distribute(_) => a.default,
                        _ => false,
                    })
                    .map(|d| d.span);
                (a, span)
            })
            .collect()
    }

    /// A finding for each arrangement the unit's arrays are distributed onto whose
    /// processor count cannot be used under `env`: it needs a value (NUMBER_OF_PROCESSORS()
    /// is the binding `p`), an extent is below 1 (an error), or there are more than
    /// [`MAX_PROCESSORS`]. Until then no work is spread over it.
    pub fn arrangement_findings(&self, unit: &Unit, env: Env) -> Vec<Diagnostic> {
        self.used_arrangements(unit)
            .into_iter()
            .filter_map(|(a, span)| {
                let span = span?;
                let whose = if a.default {
                    "HPF's default processor arrangement".to_string()
                } else {
                    format!("`{}`", a.name)
                };
                match size(a, env) {
                    Size::Usable => None,
                    Size::Needs(needs) => {
                        let binds: Vec<String> =
                            needs.iter().map(|n| format!("--param {n}=N")).collect();
                        Some(Diagnostic::warning(
                            span,
                            "processors-unknown",
                            format!(
                                "the number of processors of {whose} needs a value for {} ({}; \
                                 NUMBER_OF_PROCESSORS() is `p`): until then no work is spread over it",
                                needs.join(", "),
                                binds.join(" ")
                            ),
                        ))
                    }
                    Size::Empty(dim, v) => Some(Diagnostic::error(
                        span,
                        "processors-invalid",
                        format!(
                            "{whose} has {v} processors in dimension {dim}: an arrangement needs \
                             at least 1; no work is spread over it and its communication is not \
                             modelled"
                        ),
                    )),
                    Size::TooMany(n) => Some(Diagnostic::warning(
                        span,
                        "processors-too-many",
                        format!(
                            "{whose} has {n} processors: work and communication are counted per \
                             processor up to {MAX_PROCESSORS}; beyond, they are not modelled \
                             (left out of every figure)"
                        ),
                    )),
                }
            })
            .collect()
    }

    /// The arrangements whose processor count has a value no analysis can use (below 1
    /// or beyond [`MAX_PROCESSORS`]): where they are declared and why, for what the
    /// unit's figures leave out.
    pub fn unusable_arrangements(&self, unit: &Unit, env: Env) -> Vec<(Span, String)> {
        self.used_arrangements(unit)
            .into_iter()
            .filter_map(|(a, span)| {
                let why = match size(a, env) {
                    Size::Empty(dim, v) => format!("{v} processors in dimension {dim}"),
                    Size::TooMany(n) => format!("{n} processors, more than {MAX_PROCESSORS}"),
                    Size::Usable | Size::Needs(_) => return None,
                };
                Some((
                    span.unwrap_or_default(),
                    format!(
                        "the work per processor and the communication on `{}` ({why})",
                        a.name
                    ),
                ))
            })
            .collect()
    }
}

pub(super) struct Resolver<'a> {
    pub(super) unit: &'a Unit,
    /// The host's and USEd modules' mappings.
    outer: &'a Visible,
    arrangements: HashMap<String, Arrangement>,
    /// Template shapes: (lower, extent) per dimension.
    pub(super) templates: HashMap<String, Vec<(Sym, Sym)>>,
    pub(super) distributions: HashMap<String, Arc<Distribution>>,
    /// Arrays told to be distributed more than once (told once).
    distributed_again: HashSet<String>,
    pub(super) aligns: HashMap<String, (&'a Align, Span)>,
    pub(super) resolved: HashMap<String, Option<Mapping>>,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// The mapping of each transcriptive dummy's actual (`None`: replicated); a dummy
    /// absent has no call that tells.
    inherited: &'a HashMap<String, Option<Layout>>,
    dummies: HashMap<String, DummyMapping>,
}

/// Resolves the mappings of `unit`'s arrays from its PROCESSORS, TEMPLATE, DISTRIBUTE
/// and ALIGN directives, seeing `outer` (see [`mappings_with`]), with no call telling
/// what transcriptive dummies inherit.
pub fn mappings(unit: &Unit, outer: &Visible) -> UnitMappings {
    mappings_with(unit, outer, &HashMap::new())
}

/// Resolves the mappings of `unit`'s arrays, seeing `outer`: the arrays of its host and
/// USEd modules keep their mappings (unless a local declaration hides them), and its
/// directives may name their arrangements, templates and arrays; a transcriptive dummy
/// (INHERIT, `DISTRIBUTE x *`) takes the mapping `inherited` gives its actual.
pub fn mappings_with(
    unit: &Unit,
    outer: &Visible,
    inherited: &HashMap<String, Option<Layout>>,
) -> UnitMappings {
    let mut r = Resolver {
        inherited,
        dummies: HashMap::new(),
        unit,
        outer,
        arrangements: HashMap::new(),
        templates: HashMap::new(),
        distributions: HashMap::new(),
        distributed_again: HashSet::new(),
        aligns: HashMap::new(),
        resolved: HashMap::new(),
        diagnostics: Vec::new(),
    };
    for d in &unit.directives {
        match &d.kind {
            DirectiveKind::Processors(decls) => {
                for p in decls {
                    let extents = p
                        .shape
                        .iter()
                        .filter_map(|e| r.extent(e.lower.as_ref(), &e.upper).ok())
                        .collect();
                    r.arrangements.insert(
                        p.name.name.clone(),
                        Arrangement {
                            name: p.name.name.clone(),
                            extents,
                            default: false,
                        },
                    );
                }
            }
            DirectiveKind::Template(decls) => {
                for t in decls {
                    let dims = t
                        .shape
                        .iter()
                        .filter_map(|e| {
                            let lower =
                                e.lower.as_ref().map_or(Ok(Sym::one()), |l| r.sym(l)).ok()?;
                            Some((lower, r.extent(e.lower.as_ref(), &e.upper).ok()?))
                        })
                        .collect();
                    r.templates.insert(t.name.name.clone(), dims);
                }
            }
            _ => {}
        }
    }
    for d in &unit.directives {
        match &d.kind {
            DirectiveKind::Distribute(dist) => r.distribute(dist, d.span),
            DirectiveKind::Align(a) => {
                for alignee in &a.alignees {
                    r.aligns.insert(alignee.name.clone(), (a, d.span));
                }
            }
            DirectiveKind::Inherit(names) => {
                for n in names {
                    r.transcriptive(&n.name, n.span);
                }
            }
            _ => {}
        }
    }
    let names: Vec<String> = unit
        .symbols
        .values()
        .chain(unit.outer.values())
        .filter(|s| s.is_array())
        .map(|s| s.name.clone())
        .collect();
    let mut arrays = HashMap::new();
    for n in names {
        if let Some(m) = r.mapping(&n, 0) {
            if unit.dummies.contains(&n) {
                r.dummies
                    .entry(n.clone())
                    .or_insert(DummyMapping::Prescriptive);
            }
            arrays.insert(n, m);
        }
    }
    // REDISTRIBUTE and REALIGN, following control flow.
    let dynamic = super::dynamic::flow(&mut r, &arrays);
    let visible = r.visible(&arrays);
    let mut arrangements: Vec<Arrangement> = r.arrangements.into_values().collect();
    arrangements.sort_by_key(|a| {
        unit.directives.iter().position(
            |d| matches!(&d.kind, DirectiveKind::Processors(ps) if ps.iter().any(|p| p.name.name == a.name)),
        )
    });
    UnitMappings {
        arrays,
        arrangements,
        diagnostics: r.diagnostics,
        dynamic,
        visible,
        dummies: r.dummies,
    }
}

impl Resolver<'_> {
    /// Whether the unit declares `name` itself (hiding the host's or a module's).
    fn local(&self, name: &str) -> bool {
        self.unit.symbols.contains_key(name)
    }

    /// The unit's own arrangements, templates and mapped arrays.
    fn visible(&mut self, arrays: &HashMap<String, Mapping>) -> Visible {
        let mut v = Visible::default();
        for (name, a) in &self.arrangements {
            v.arrangements.insert(name.clone(), a.clone());
        }
        let templates: Vec<String> = self.templates.keys().cloned().collect();
        for t in templates {
            v.shapes.insert(t.clone(), self.templates[&t].clone());
            if let Some(m) = self.mapping(&t, 0) {
                v.mappings.insert(t, m);
            }
        }
        for (name, m) in arrays.iter().filter(|(n, _)| self.local(n)) {
            if let Some(shape) = self.shape_of(name) {
                v.shapes.insert(name.clone(), shape);
            }
            v.mappings.insert(name.clone(), m.clone());
        }
        v
    }

    /// A PROCESSORS arrangement by name: the unit's, else one it sees.
    fn arrangement(&self, name: &str) -> Option<Arrangement> {
        self.arrangements
            .get(name)
            .or_else(|| self.outer.arrangements.get(name))
            .cloned()
    }

    fn sym(&self, e: &Expr) -> Result<Sym, String> {
        Scope {
            unit: self.unit,
            names: &Names::default(),
            integers: true,
        }
        .sym(e)
    }

    /// `upper - lower + 1`.
    fn extent(&self, lower: Option<&Expr>, upper: &Expr) -> Result<Sym, String> {
        let u = self.sym(upper)?;
        let l = lower.map_or(Ok(Sym::one()), |l| self.sym(l))?;
        u.sub(&l)
            .and_then(|d| d.add_int(1))
            .map_err(|e| format!("{e:?}"))
    }

    /// The declared (lower, extent) of each dimension of the unit's array `name`; an
    /// assumed-shape (`:`) dimension of a dummy has the extent `size(name,k)`, the
    /// unknown a call binds to its actual's extent (as the counts name it).
    pub(super) fn array_shape(&self, name: &str) -> Option<Vec<(Sym, Sym)>> {
        let symbol = self.unit.symbols.get(name)?;
        let dims = symbol.dims.as_ref()?;
        dims.iter()
            .enumerate()
            .map(|(k, d)| {
                let lower = d
                    .lower
                    .as_ref()
                    .map_or(Ok(Sym::one()), |l| self.sym(l))
                    .ok()?;
                let extent = match &d.upper {
                    Bound::Explicit(u) => self.extent(d.lower.as_ref(), u).ok()?,
                    Bound::Deferred if symbol.attrs.dummy => Sym::var(&size_key(name, k)),
                    _ => return None,
                };
                Some((lower, extent))
            })
            .collect()
    }

    /// The shape of a template or array: the unit's, else one it sees.
    fn shape_of(&self, name: &str) -> Option<Vec<(Sym, Sym)>> {
        self.templates
            .get(name)
            .cloned()
            .or_else(|| self.array_shape(name))
            .or_else(|| {
                (!self.local(name))
                    .then(|| self.outer.shapes.get(name).cloned())
                    .flatten()
            })
    }

    fn info(&mut self, span: Span, message: String) {
        self.diagnostics
            .push(Diagnostic::info(span, "mapping", message));
    }

    /// A mapping the model leaves out while the program depends on it.
    fn warn(&mut self, span: Span, message: String) {
        self.diagnostics
            .push(Diagnostic::warning(span, "not-modelled", message));
    }

    /// Dummy `name` takes its actual's mapping (what `inherited` says), or counts as
    /// replicated, said so, when no call tells.
    fn transcriptive(&mut self, name: &str, span: Span) {
        if !self.unit.dummies.iter().any(|d| d == name) {
            self.warn(
                span,
                format!("`{name}` is no dummy argument: its transcriptive mapping means nothing; it counts as replicated"),
            );
            return;
        }
        self.dummies
            .insert(name.to_string(), DummyMapping::Transcriptive);
        match self.inherited.get(name) {
            Some(Some(layout)) => {
                let lowers = self.declared_lowers(name);
                let m = layout.mapping(name, &lowers, span);
                self.resolved.insert(name.to_string(), Some(m));
            }
            Some(None) => {
                self.resolved.insert(name.to_string(), None);
            }
            None => self.warn(
                span,
                format!(
                    "`{name}` takes its actual argument's mapping, and no call among the inputs \
                     tells it (or the actual's mapping has no values under the bindings): it \
                     counts as replicated here"
                ),
            ),
        }
    }

    /// The declared lower bounds of array `name` (1 where not given or not constant).
    fn declared_lowers(&self, name: &str) -> Vec<i64> {
        let Some(dims) = self.unit.symbols.get(name).and_then(|s| s.dims.as_ref()) else {
            return Vec::new();
        };
        dims.iter()
            .map(|d| {
                d.lower
                    .as_ref()
                    .and_then(|l| self.sym(l).ok())
                    .and_then(|s| s.as_int())
                    .and_then(|v| i64::try_from(v).ok())
                    .unwrap_or(1)
            })
            .collect()
    }

    fn distribute(&mut self, dist: &Distribute, span: Span) {
        let formats = match &dist.formats {
            FormatClause::Prescriptive(formats) => formats,
            FormatClause::Descriptive(formats) => {
                // Asserted to be the actual's: the dummy has it (a call whose actual
                // differs is told where it is made).
                for t in &dist.distributees {
                    self.dummies
                        .insert(t.name.clone(), DummyMapping::Descriptive);
                }
                formats
            }
            FormatClause::Transcriptive => {
                for t in &dist.distributees {
                    self.transcriptive(&t.name, t.span);
                }
                return;
            }
            FormatClause::Absent => {
                if dist.onto.is_some() {
                    self.info(span, "DISTRIBUTE with ONTO and no formats is not modelled: its arrays count as replicated".into());
                }
                return;
            }
        };
        for target in &dist.distributees {
            if let Some(earlier) = self.distributions.get(&target.name)
                && earlier.directive != span
                && !self.distributed_again.contains(&target.name)
            {
                self.diagnostics.push(Diagnostic::warning(
                    target.span,
                    "mapping",
                    format!(
                        "`{}` is distributed again (HPF allows one DISTRIBUTE directive per \
                         array in a scoping unit): costline uses the last one it can model",
                        target.name
                    ),
                ));
                self.distributed_again.insert(target.name.clone());
            }
            if let Err(why) = self.distribute_one(target, formats, dist.onto.as_ref(), span) {
                self.info(
                    target.span,
                    format!(
                        "the distribution of `{}` is not modelled ({why}): it counts as replicated",
                        target.name
                    ),
                );
            }
        }
    }

    pub(super) fn distribute_one(
        &mut self,
        target: &Named,
        formats: &[DistFormat],
        onto: Option<&Onto>,
        span: Span,
    ) -> Result<(), String> {
        let shape = self
            .shape_of(&target.name)
            .ok_or("its extents are not declared as constants or expressions")?;
        if shape.len() != formats.len() {
            return Err("its rank and the number of formats differ".into());
        }
        let distributed = formats
            .iter()
            .filter(|f| !matches!(f, DistFormat::Collapsed))
            .count();
        let onto = match onto {
            Some(Onto::Target { name, .. }) => self
                .arrangement(&name.name)
                .ok_or_else(|| format!("`{}` is no PROCESSORS arrangement", name.name))?,
            Some(Onto::Transcriptive) => return Err("ONTO * is a transcriptive mapping".into()),
            // Without ONTO, the unit's one arrangement of the right rank, if it has one.
            None if self.arrangements.len() == 1
                && self
                    .arrangements
                    .values()
                    .all(|a| a.extents.len() == distributed) =>
            {
                self.arrangements
                    .values()
                    .next()
                    .cloned()
                    .expect("one arrangement")
            }
            None => {
                // HPF's default arrangement: NUMBER_OF_PROCESSORS() processors, the P binding.
                let extents: Vec<Sym> = if distributed == 1 {
                    vec![Sym::var("p")]
                } else {
                    (1..=distributed)
                        .map(|k| Sym::var(&format!("p{k}")))
                        .collect()
                };
                if distributed > 1 {
                    self.info(span, format!(
                        "no ONTO for {distributed} distributed dimensions: assuming a {distributed}-D arrangement p1 x p2 ...; bind them or add PROCESSORS and ONTO"
                    ));
                }
                Arrangement {
                    name: "default".into(),
                    extents,
                    default: true,
                }
            }
        };
        if onto.extents.len() != distributed {
            return Err(format!(
                "{distributed} distributed dimensions onto a {}-D arrangement",
                onto.extents.len()
            ));
        }
        let mut grid = 0;
        let mut dims = Vec::with_capacity(shape.len());
        for ((lower, extent), f) in shape.into_iter().zip(formats) {
            let (format, g) = match f {
                DistFormat::Collapsed => (Format::Collapsed, None),
                DistFormat::Block(size) => {
                    let p = &onto.extents[grid];
                    let b = match size {
                        Some(k) => self.sym(k)?,
                        None => block_size(&extent, p).map_err(|e: SymError| format!("{e:?}"))?,
                    };
                    grid += 1;
                    (Format::Block(b), Some(grid - 1))
                }
                DistFormat::Cyclic(size) => {
                    let k = size.as_ref().map_or(Ok(Sym::one()), |k| self.sym(k))?;
                    grid += 1;
                    (Format::Cyclic(k), Some(grid - 1))
                }
                DistFormat::GenBlock(_) | DistFormat::Indirect(_) => {
                    return Err("GEN_BLOCK and INDIRECT depend on run-time data".into());
                }
            };
            dims.push(DistDim {
                lower,
                extent,
                format,
                grid: g,
            });
        }
        self.distributions.insert(
            target.name.clone(),
            Arc::new(Distribution {
                target: target.name.clone(),
                dims,
                onto,
                directive: span,
            }),
        );
        Ok(())
    }

    /// The mapping of `name` (an array): distributed directly, or aligned (following the
    /// chain of alignments), or none.
    pub(super) fn mapping(&mut self, name: &str, depth: usize) -> Option<Mapping> {
        if let Some(m) = self.resolved.get(name) {
            return m.clone();
        }
        if depth > 16 {
            return None;
        }
        self.resolved.insert(name.to_string(), None);
        let m = if let Some(d) = self.distributions.get(name).cloned() {
            let index = (0..d.dims.len())
                .map(|dim| TemplateIndex::Affine {
                    dim,
                    coef: Sym::one(),
                    offset: Sym::zero(),
                })
                .collect();
            Some(Mapping {
                directives: vec![d.directive],
                distribution: d,
                index,
            })
        } else if let Some((align, span)) = self.aligns.get(name).copied() {
            match self.align(name, align, span, depth) {
                Ok(m) => m,
                Err(why) => {
                    self.info(span, format!("the alignment of `{name}` is not modelled ({why}): it counts as replicated"));
                    None
                }
            }
        } else if !self.local(name) {
            self.outer.mappings.get(name).cloned()
        } else {
            None
        };
        self.resolved.insert(name.to_string(), m.clone());
        m
    }

    /// `ALIGN name(sources) WITH target(subscripts)`, composed with the target's mapping.
    pub(super) fn align(
        &mut self,
        name: &str,
        a: &Align,
        span: Span,
        depth: usize,
    ) -> Result<Option<Mapping>, String> {
        let own = self
            .array_shape(name)
            .ok_or("its extents are not declared")?;
        let target_shape = self
            .shape_of(&a.target.name)
            .ok_or("the target's extents are not declared")?;
        // The target's own mapping (a template distributed directly, or an array).
        let Some(base) = self.mapping(&a.target.name, depth + 1) else {
            return Ok(None);
        };
        // The index of each target dimension as a function of this array's indices.
        let sources: Vec<AlignSource> = a
            .sources
            .clone()
            .unwrap_or_else(|| vec![AlignSource::Colon; own.len()]);
        if sources.len() != own.len() {
            return Err("the alignee's rank and its align sources differ".into());
        }
        let subscripts: Vec<AlignSubscript> = a.subscripts.clone().unwrap_or_else(|| {
            vec![
                AlignSubscript::Triplet(costline_syntax::ir::Triplet::default());
                target_shape.len()
            ]
        });
        let colons: Vec<usize> = sources
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, AlignSource::Colon))
            .map(|(d, _)| d)
            .collect();
        let mut next_colon = colons.iter();
        let mut onto_target = Vec::with_capacity(subscripts.len());
        for (j, sub) in subscripts.iter().enumerate() {
            let (t_lower, _) = target_shape
                .get(j)
                .cloned()
                .ok_or("more align subscripts than target dimensions")?;
            onto_target.push(match sub {
                AlignSubscript::Star => TemplateIndex::Replicated,
                AlignSubscript::Triplet(t) => {
                    let d = *next_colon
                        .next()
                        .ok_or("more `:` subscripts than `:` sources")?;
                    let lower = t
                        .lower
                        .as_ref()
                        .map_or(Ok(t_lower.clone()), |l| self.sym(l))?;
                    let stride = t.stride.as_ref().map_or(Ok(Sym::one()), |s| self.sym(s))?;
                    // element i of the section ↔ lower + (i - lo_d)·stride
                    let offset = lower
                        .sub(&own[d].0.mul(&stride).map_err(|e| format!("{e:?}"))?)
                        .map_err(|e| format!("{e:?}"))?;
                    TemplateIndex::Affine {
                        dim: d,
                        coef: stride,
                        offset,
                    }
                }
                AlignSubscript::Expr(e) => {
                    let dummies: Vec<(usize, &String)> = sources
                        .iter()
                        .enumerate()
                        .filter_map(|(d, s)| match s {
                            AlignSource::Dummy(n) if e.mentions(n) => Some((d, n)),
                            _ => None,
                        })
                        .collect();
                    let value = self.sym(e)?;
                    match dummies.as_slice() {
                        [] => TemplateIndex::Constant(value),
                        [(d, dummy)] => {
                            let coefs = value
                                .poly_in(dummy)
                                .filter(|c| c.len() == 2)
                                .ok_or("an align subscript not affine in its dummy")?;
                            TemplateIndex::Affine {
                                dim: *d,
                                coef: coefs[1].clone(),
                                offset: coefs[0].clone(),
                            }
                        }
                        _ => return Err("an align subscript with several dummies".into()),
                    }
                }
            });
        }
        // Compose with the target's mapping: template dim k = f_k(target index).
        let index = base
            .index
            .iter()
            .map(|f| compose(f, &onto_target))
            .collect::<Result<Vec<_>, SymError>>()
            .map_err(|e| format!("{e:?}"))?;
        let mut directives = base.directives.clone();
        directives.push(span);
        Ok(Some(Mapping {
            distribution: base.distribution,
            index,
            directives,
        }))
    }
}

/// `f` applied to the target's index map `g`: template index as a function of the
/// alignee's indices.
fn compose(f: &TemplateIndex, g: &[TemplateIndex]) -> Result<TemplateIndex, SymError> {
    Ok(match f {
        TemplateIndex::Replicated => TemplateIndex::Replicated,
        TemplateIndex::Constant(c) => TemplateIndex::Constant(c.clone()),
        TemplateIndex::Affine { dim, coef, offset } => match g.get(*dim) {
            None | Some(TemplateIndex::Replicated) => TemplateIndex::Replicated,
            Some(TemplateIndex::Constant(c)) => TemplateIndex::Constant(coef.mul(c)?.add(offset)?),
            Some(TemplateIndex::Affine {
                dim: d,
                coef: c2,
                offset: o2,
            }) => TemplateIndex::Affine {
                dim: *d,
                coef: coef.mul(c2)?,
                offset: coef.mul(o2)?.add(offset)?,
            },
        },
    })
}
