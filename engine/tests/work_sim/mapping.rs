//! Which processors own an array element: the HPF 2.0 mapping model (sections 3.1–3.4
//! of the HPF 2.0 specification) as DESIGN.md section 3 states it, element by element.
//!
//! An array is mapped in one of three ways: DISTRIBUTEd directly (it is its own
//! template), ALIGNed with an array or template (followed to the end of the chain), or
//! not at all (replicated: every processor owns every element). Processor numbers are
//! 0-based here (`p - 1`); they run over the arrangement in Fortran column-major order.

use super::eval;
use costline_engine::ir::directive::{
    AlignSource, AlignSubscript, DirectiveKind, DistFormat, FormatClause, Onto, ShapeDecl,
};
use costline_engine::ir::{Bound, Expr, Unit};
use std::collections::{BTreeMap, BTreeSet};

/// A position in an index space; `None` in a dimension stands for every index of it
/// (the element is replicated along that dimension by a `*` align subscript).
type Position = Vec<Option<i64>>;

/// The processors of a unit and how its arrays and templates map onto them.
#[derive(Clone)]
pub struct Mapping {
    /// |P|: the number of abstract processors.
    pub processors: usize,
    /// Index bounds `(lower, upper)` per dimension of every array and template whose
    /// bounds are known.
    shapes: BTreeMap<String, Vec<(i64, i64)>>,
    distributions: BTreeMap<String, Distribution>,
    alignments: BTreeMap<String, Alignment>,
    /// The arrangements, by name (REDISTRIBUTE names one).
    arrangements: BTreeMap<String, Vec<i64>>,
}

/// `DISTRIBUTE T(formats) ONTO PR`.
#[derive(Clone)]
struct Distribution {
    /// The extents of the arrangement PR.
    grid: Vec<i64>,
    /// Per dimension of T: how it is dealt to its grid dimension; `None` for `*`.
    dims: Vec<Option<DimDistribution>>,
}

/// One distributed dimension of a template.
#[derive(Clone)]
struct DimDistribution {
    /// The grid dimension it uses: distributed dimensions take the grid's in order.
    grid_dim: usize,
    /// The declared lower bound of the template dimension.
    lower: i64,
    format: Format,
}

#[derive(Clone)]
enum Format {
    /// `BLOCK` (size ceil(n/P_k)) or `BLOCK(m)` (size m): contiguous blocks, one per processor.
    Block(i64),
    /// `CYCLIC(m)` (`CYCLIC` is `CYCLIC(1)`): blocks of m dealt round-robin.
    Cyclic(i64),
}

/// `ALIGN A(sources) WITH T(subscripts)`.
#[derive(Clone)]
struct Alignment {
    sources: Vec<AlignSource>,
    target: String,
    subscripts: Vec<Target>,
}

/// One align subscript, resolved.
#[derive(Clone)]
enum Target {
    /// An expression in the align dummies (and the unit's constants).
    Expr(Expr),
    /// `lower:upper:stride` matched with the `colon`-th `:` source (0-based).
    Triplet {
        colon: usize,
        lower: i64,
        upper: i64,
        stride: i64,
    },
    /// `*`: every index of this target dimension.
    Star,
}

impl Mapping {
    /// Reads the unit's PROCESSORS, TEMPLATE, DISTRIBUTE and ALIGN directives; `env`
    /// gives the values of the unit's constants. Errs on what the simulator does not
    /// model (REDISTRIBUTE, REALIGN, DYNAMIC, INHERIT, descriptive and transcriptive
    /// mappings, GEN_BLOCK, INDIRECT, ONTO a section) and on non-conforming mappings.
    pub fn new(unit: &Unit, env: &dyn Fn(&str) -> Option<i64>) -> Result<Mapping, String> {
        let mut arrangements: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        let mut shapes = BTreeMap::new();
        for sym in unit.symbols.values() {
            let Some(dims) = &sym.dims else { continue };
            let bounds = dims
                .iter()
                .map(|d| match &d.upper {
                    Bound::Explicit(u) => {
                        Ok((eval::int(&d.lower_expr(), env)?, eval::int(u, env)?))
                    }
                    _ => Err(String::new()),
                })
                .collect::<Result<Vec<_>, String>>();
            if let Ok(bounds) = bounds {
                shapes.insert(sym.name.clone(), bounds);
            }
        }
        let decl_bounds = |decl: &ShapeDecl| -> Result<Vec<(i64, i64)>, String> {
            decl.shape
                .iter()
                .map(|x| {
                    let lower = x.lower.as_ref().map_or(Ok(1), |l| eval::int(l, env))?;
                    Ok((lower, eval::int(&x.upper, env)?))
                })
                .collect()
        };
        for d in &unit.directives {
            match &d.kind {
                DirectiveKind::Processors(decls) => {
                    for decl in decls {
                        let extents = decl_bounds(decl)?.iter().map(|(l, u)| u - l + 1).collect();
                        arrangements.insert(decl.name.name.clone(), extents);
                    }
                }
                DirectiveKind::Template(decls) => {
                    for decl in decls {
                        shapes.insert(decl.name.name.clone(), decl_bounds(decl)?);
                    }
                }
                _ => {}
            }
        }
        let processors = single_size(&arrangements)?;
        let mut mapping = Mapping {
            processors,
            shapes,
            distributions: BTreeMap::new(),
            alignments: BTreeMap::new(),
            arrangements: arrangements.clone(),
        };
        for d in &unit.directives {
            match &d.kind {
                DirectiveKind::Distribute(dist) => {
                    let FormatClause::Prescriptive(formats) = &dist.formats else {
                        return Err(format!(
                            "`{}`: only prescriptive formats are simulated",
                            d.kind
                        ));
                    };
                    let grid = match &dist.onto {
                        Some(Onto::Target {
                            name,
                            section,
                            descriptive: false,
                        }) if section.is_empty() => {
                            arrangements.get(&name.name).ok_or_else(|| {
                                format!("`{}` is not a processor arrangement", name.name)
                            })?
                        }
                        // No ONTO: the unit's only arrangement.
                        None if arrangements.len() == 1 => {
                            arrangements.values().next().expect("one arrangement")
                        }
                        None => {
                            return Err(format!(
                                "`{}`: without ONTO, the arrangement is one of several",
                                d.kind
                            ));
                        }
                        Some(_) => {
                            return Err(format!(
                                "`{}`: ONTO a section, *P or * is not simulated",
                                d.kind
                            ));
                        }
                    };
                    for t in &dist.distributees {
                        let distribution = mapping.distribution(&t.name, formats, grid, env)?;
                        mapping.distributions.insert(t.name.clone(), distribution);
                    }
                }
                DirectiveKind::Align(align) => {
                    for a in &align.alignees {
                        let rank = mapping.rank(&a.name)?;
                        let sources = align
                            .sources
                            .clone()
                            .unwrap_or_else(|| vec![AlignSource::Colon; rank]);
                        let target_rank = mapping.rank(&align.target.name)?;
                        let subscripts = align.subscripts.clone().unwrap_or_else(|| {
                            vec![AlignSubscript::Triplet(Default::default()); target_rank]
                        });
                        let alignment =
                            mapping.alignment(sources, &align.target.name, &subscripts, env)?;
                        mapping.alignments.insert(a.name.clone(), alignment);
                    }
                }
                DirectiveKind::Processors(_)
                | DirectiveKind::Template(_)
                | DirectiveKind::Independent(_)
                | DirectiveKind::Sequence { .. }
                | DirectiveKind::Unmodelled(_) => {}
                // Executable: applied where they stand ([`Mapping::remap`]).
                DirectiveKind::Redistribute(_)
                | DirectiveKind::Realign(_)
                | DirectiveKind::Dynamic(_) => {}
                DirectiveKind::Inherit(_) => {
                    return Err(format!("`{}` is not simulated", d.kind));
                }
            }
        }
        if let Some(both) = mapping
            .alignments
            .keys()
            .find(|a| mapping.distributions.contains_key(*a))
        {
            return Err(format!("`{both}` is both distributed and aligned"));
        }
        Ok(mapping)
    }

    /// Executes `REDISTRIBUTE` or `REALIGN` (HPF 2.0 section 8.5): a redistributed
    /// object gets its new distribution, and what is aligned with it, looked up through
    /// the alignment chain element by element, follows; a realigned array gets its new
    /// alignment. Errs on realigning an array others are aligned with (they would have
    /// to keep their old mapping, which this simulator does not represent).
    pub fn remap(
        &mut self,
        kind: &DirectiveKind,
        env: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<(), String> {
        match kind {
            DirectiveKind::Redistribute(dist) => {
                let FormatClause::Prescriptive(formats) = &dist.formats else {
                    return Err(format!("`{kind}`: only prescriptive formats are simulated"));
                };
                let grid = match &dist.onto {
                    Some(Onto::Target { name, section, .. }) if section.is_empty() => self
                        .arrangements
                        .get(&name.name)
                        .cloned()
                        .ok_or_else(|| format!("`{}` is not an arrangement", name.name))?,
                    None if self.arrangements.len() == 1 => {
                        self.arrangements.values().next().cloned().expect("one")
                    }
                    _ => return Err(format!("`{kind}`: this ONTO is not simulated")),
                };
                for t in &dist.distributees {
                    if self.alignments.contains_key(&t.name) {
                        return Err(format!("`{}` is aligned: not simulated", t.name));
                    }
                    let d = self.distribution(&t.name, formats, &grid, env)?;
                    self.distributions.insert(t.name.clone(), d);
                }
                Ok(())
            }
            DirectiveKind::Realign(align) => {
                for a in &align.alignees {
                    if self.alignments.values().any(|x| x.target == a.name) {
                        return Err(format!("`{}` is an align target: not simulated", a.name));
                    }
                    let rank = self.rank(&a.name)?;
                    let sources = align
                        .sources
                        .clone()
                        .unwrap_or_else(|| vec![AlignSource::Colon; rank]);
                    let target_rank = self.rank(&align.target.name)?;
                    let subscripts = align.subscripts.clone().unwrap_or_else(|| {
                        vec![AlignSubscript::Triplet(Default::default()); target_rank]
                    });
                    let alignment =
                        self.alignment(sources, &align.target.name, &subscripts, env)?;
                    self.alignments.insert(a.name.clone(), alignment);
                }
                Ok(())
            }
            _ => Err(format!("`{kind}` is not executable")),
        }
    }

    /// The declared bounds of an array or template.
    pub fn bounds(&self, name: &str) -> Result<&[(i64, i64)], String> {
        self.shapes
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| format!("`{name}` has no declared shape with known bounds"))
    }

    /// Whether `name` is distributed or aligned (not replicated on every processor
    /// for want of a mapping). Only the communication simulator asks.
    #[allow(dead_code)]
    pub fn is_mapped(&self, name: &str) -> bool {
        self.distributions.contains_key(name) || self.alignments.contains_key(name)
    }

    fn rank(&self, name: &str) -> Result<usize, String> {
        Ok(self.bounds(name)?.len())
    }

    /// `DISTRIBUTE name(formats) ONTO grid`: HPF 2.0 section 3.3. The non-`*` formats
    /// take the grid's dimensions in order, so their number must be the grid's rank.
    /// BLOCK deals blocks of ceil(n/P_k); BLOCK(m) needs m*P_k >= n.
    fn distribution(
        &self,
        name: &str,
        formats: &[DistFormat],
        grid: &[i64],
        env: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<Distribution, String> {
        let bounds = self.bounds(name)?;
        if formats.len() != bounds.len() {
            return Err(format!(
                "`{name}` has rank {} but {} formats",
                bounds.len(),
                formats.len()
            ));
        }
        let mut grid_dims = 0..grid.len();
        let mut dims = Vec::new();
        for (format, &(lower, upper)) in formats.iter().zip(bounds) {
            let extent = upper - lower + 1;
            let size = match format {
                DistFormat::Collapsed => {
                    dims.push(None);
                    continue;
                }
                DistFormat::Block(m) | DistFormat::Cyclic(m) => {
                    m.as_ref().map(|m| eval::int(m, env)).transpose()?
                }
                DistFormat::GenBlock(_) | DistFormat::Indirect(_) => {
                    return Err(format!(
                        "`{name}`: GEN_BLOCK and INDIRECT are not simulated"
                    ));
                }
            };
            let grid_dim = grid_dims
                .next()
                .ok_or_else(|| format!("`{name}` has more distributed dimensions than its grid"))?;
            let p = grid[grid_dim];
            let format = match (format, size) {
                (DistFormat::Block(_), None) => {
                    Format::Block((extent + p - 1).div_euclid(p).max(1))
                }
                (DistFormat::Block(_), Some(m)) if m >= 1 && m * p >= extent => Format::Block(m),
                (DistFormat::Cyclic(_), None) => Format::Cyclic(1),
                (DistFormat::Cyclic(_), Some(m)) if m >= 1 => Format::Cyclic(m),
                (_, m) => {
                    return Err(format!(
                        "`{name}`: block size {m:?} on {p} processors for {extent} elements is not conforming"
                    ));
                }
            };
            dims.push(Some(DimDistribution {
                grid_dim,
                lower,
                format,
            }));
        }
        if grid_dims.next().is_some() {
            return Err(format!(
                "`{name}` has fewer distributed dimensions than its grid"
            ));
        }
        Ok(Distribution {
            grid: grid.to_vec(),
            dims,
        })
    }

    /// `ALIGN alignee(sources) WITH target(subscripts)`: HPF 2.0 section 3.4. The `:`
    /// sources match the triplet subscripts in order; a triplet's omitted bounds are
    /// the target's declared ones.
    fn alignment(
        &self,
        sources: Vec<AlignSource>,
        target: &str,
        subscripts: &[AlignSubscript],
        env: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<Alignment, String> {
        let target_bounds = self.bounds(target)?;
        if subscripts.len() != target_bounds.len() {
            return Err(format!(
                "`{target}` has rank {} but {} align subscripts",
                target_bounds.len(),
                subscripts.len()
            ));
        }
        let mut colons = 0;
        let subscripts = subscripts
            .iter()
            .zip(target_bounds)
            .map(|(s, &(lo, hi))| {
                Ok(match s {
                    AlignSubscript::Expr(e) => Target::Expr(e.clone()),
                    AlignSubscript::Star => Target::Star,
                    AlignSubscript::Triplet(t) => {
                        let part = |e: &Option<Expr>, default| {
                            e.as_ref().map_or(Ok(default), |e| eval::int(e, env))
                        };
                        colons += 1;
                        Target::Triplet {
                            colon: colons - 1,
                            lower: part(&t.lower, lo)?,
                            upper: part(&t.upper, hi)?,
                            stride: part(&t.stride, 1)?,
                        }
                    }
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let source_colons = sources
            .iter()
            .filter(|s| matches!(s, AlignSource::Colon))
            .count();
        if source_colons != colons {
            return Err(format!(
                "aligning with `{target}`: {source_colons} `:` sources but {colons} triplets"
            ));
        }
        Ok(Alignment {
            sources,
            target: target.to_string(),
            subscripts,
        })
    }

    /// The processors that own element `index` of `array` and so execute an
    /// assignment to it (owner computes). An array without a mapping is replicated:
    /// all processors own it.
    pub fn owners(
        &self,
        array: &str,
        index: &[i64],
        env: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<BTreeSet<usize>, String> {
        self.place(array, index.iter().copied().map(Some).collect(), env)
    }

    /// The owners of the elements at `at` in `name`, following ALIGN to the
    /// distributed array or template at the end of the chain.
    fn place(
        &self,
        name: &str,
        at: Position,
        env: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<BTreeSet<usize>, String> {
        check_bounds(name, &at, self.bounds(name)?)?;
        if let Some(a) = self.alignments.get(name) {
            let position = a.image(name, &at, self.bounds(name)?, env)?;
            self.place(&a.target, position, env)
        } else if let Some(d) = self.distributions.get(name) {
            Ok(d.owners(&at))
        } else {
            Ok((0..self.processors).collect())
        }
    }
}

impl Alignment {
    /// Where element `at` of the alignee (with declared `bounds`) lies in the target.
    /// A `Dummy` source binds its align dummy to the index; a `*` source is ignored
    /// (the dimension is collapsed); the k-th `:` source puts the element at position
    /// j of its dimension (j = index - declared lower bound) at `lower + j*stride` of
    /// the k-th triplet. A `*` subscript, or an expression using an index that is
    /// itself "every index", gives every index of that target dimension.
    fn image(
        &self,
        name: &str,
        at: &Position,
        bounds: &[(i64, i64)],
        env: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<Position, String> {
        if self.sources.len() != at.len() {
            return Err(format!(
                "`{name}` has rank {} but {} align sources",
                at.len(),
                self.sources.len()
            ));
        }
        let mut dummies = BTreeMap::new();
        let mut colon_dims = Vec::new();
        for (d, s) in self.sources.iter().enumerate() {
            match s {
                AlignSource::Dummy(v) => {
                    dummies.insert(v.as_str(), at[d]);
                }
                AlignSource::Colon => colon_dims.push(d),
                AlignSource::Star => {}
            }
        }
        self.subscripts
            .iter()
            .map(|t| match t {
                Target::Star => Ok(None),
                Target::Expr(e) => {
                    let mut every = false;
                    e.visit(&mut |x| {
                        if let Expr::Name(n) = x {
                            every |= dummies.get(n.as_str()) == Some(&None);
                        }
                    });
                    if every {
                        return Ok(None);
                    }
                    let bound = |n: &str| match dummies.get(n) {
                        Some(v) => *v,
                        None => env(n),
                    };
                    eval::int(e, &bound).map(Some)
                }
                &Target::Triplet { colon, lower, upper, stride } => {
                    let d = colon_dims[colon];
                    let Some(x) = at[d] else { return Ok(None) };
                    let v = lower + (x - bounds[d].0) * stride;
                    let inside = if stride > 0 { v <= upper } else { v >= upper };
                    if !inside {
                        return Err(format!("`{name}` index {x} falls outside the triplet {lower}:{upper}:{stride} of `{}`", self.target));
                    }
                    Ok(Some(v))
                }
            })
            .collect()
    }
}

impl Distribution {
    /// The processors owning template position `at`. In a dimension distributed onto
    /// grid dimension k (P_k processors, declared lower bound lo), index x lies on grid
    /// coordinate floor((x - lo)/b) for BLOCK with block size b, and
    /// mod(floor((x - lo)/m), P_k) for CYCLIC(m); "every index" gives every coordinate
    /// 0..P_k. Grid coordinates c_k (0-based) make processor
    /// c_1 + P_1*c_2 + P_1*P_2*c_3 + ... (column-major).
    fn owners(&self, at: &Position) -> BTreeSet<usize> {
        let mut coords: Vec<Vec<i64>> = self.grid.iter().map(|&p| (0..p).collect()).collect();
        for (dim, x) in self.dims.iter().zip(at) {
            if let (Some(dim), Some(x)) = (dim, x) {
                let p = self.grid[dim.grid_dim];
                let offset = x - dim.lower;
                let c = match dim.format {
                    Format::Block(b) => offset.div_euclid(b),
                    Format::Cyclic(m) => offset.div_euclid(m).rem_euclid(p),
                };
                coords[dim.grid_dim] = vec![c];
            }
        }
        let mut out = BTreeSet::from([0usize]);
        let mut stride = 1;
        for (choices, &p) in coords.iter().zip(&self.grid) {
            out = out
                .iter()
                .flat_map(|&base| choices.iter().map(move |&c| base + stride * c as usize))
                .collect();
            stride *= p as usize;
        }
        out
    }
}

/// The number of processors: the size of the unit's arrangements, which must all have
/// the same size (the p-th element of each, in column-major order, is processor p).
fn single_size(arrangements: &BTreeMap<String, Vec<i64>>) -> Result<usize, String> {
    let sizes: BTreeSet<i64> = arrangements.values().map(|e| e.iter().product()).collect();
    match sizes.into_iter().collect::<Vec<_>>().as_slice() {
        [] => Err("no PROCESSORS directive: the number of processors is unknown".to_string()),
        &[size] if size >= 1 => Ok(size as usize),
        sizes => Err(format!(
            "processor arrangements of sizes {sizes:?}: one size of at least 1 is simulated"
        )),
    }
}

/// Errs when a known index of `at` lies outside `name`'s declared bounds (a
/// non-conforming program: the simulator never guesses an owner for it).
fn check_bounds(name: &str, at: &Position, bounds: &[(i64, i64)]) -> Result<(), String> {
    if at.len() != bounds.len() {
        return Err(format!(
            "`{name}` has rank {} but is indexed with {} subscripts",
            bounds.len(),
            at.len()
        ));
    }
    for (x, &(lo, hi)) in at.iter().zip(bounds) {
        if let Some(x) = x
            && !(lo..=hi).contains(x)
        {
            return Err(format!(
                "index {x} of `{name}` is outside its bounds {lo}:{hi}"
            ));
        }
    }
    Ok(())
}
