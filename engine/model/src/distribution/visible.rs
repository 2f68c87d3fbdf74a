//! The mappings a unit makes visible to its contained procedures and, for a module, to
//! the units that USE it (HPF: a module variable or a host's array keeps its mapping
//! wherever it is accessible by use or host association), and renaming them into the
//! names of the unit that sees them.

use super::{Arrangement, DistDim, Distribution, Format, Mapping, TemplateIndex};
use costline_symbolic::{Sym, SymError};
use costline_syntax::span::Span;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Arrangements, templates and array mappings seen from outside a unit. Spans are
/// dropped: they point into the defining unit's text, and the directives' findings
/// belong to that unit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Visible {
    /// PROCESSORS arrangements, by name.
    pub arrangements: BTreeMap<String, Arrangement>,
    /// (lower, extent) per dimension of each TEMPLATE and of each mapped array (an
    /// ALIGN target's shape).
    pub shapes: BTreeMap<String, Vec<(Sym, Sym)>>,
    /// The mapping of each mapped array and each distributed template.
    pub mappings: BTreeMap<String, Mapping>,
}

impl Visible {
    /// Whether nothing is visible.
    pub fn is_empty(&self) -> bool {
        self.arrangements.is_empty() && self.shapes.is_empty() && self.mappings.is_empty()
    }

    /// The variables (constants and bindings) the sizes, bounds and offsets mention.
    pub fn vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.for_each_sym(&mut |s| out.extend(s.vars().iter().map(|n| n.to_string())));
        out
    }

    fn for_each_sym(&self, f: &mut dyn FnMut(&Sym)) {
        for a in self.arrangements.values() {
            a.extents.iter().for_each(&mut *f);
        }
        for dims in self.shapes.values() {
            for (l, e) in dims {
                f(l);
                f(e);
            }
        }
        for m in self.mappings.values() {
            m.distribution.onto.extents.iter().for_each(&mut *f);
            for d in &m.distribution.dims {
                f(&d.lower);
                f(&d.extent);
                if let Format::Block(s) | Format::Cyclic(s) = &d.format {
                    f(s);
                }
            }
            for i in &m.index {
                match i {
                    TemplateIndex::Affine { coef, offset, .. } => {
                        f(coef);
                        f(offset);
                    }
                    TemplateIndex::Constant(c) => f(c),
                    TemplateIndex::Replicated => {}
                }
            }
        }
    }

    /// The entries named in `keep` (`(name seen here, name in self)`), with every
    /// variable renamed by `vars` (simultaneously: a variable is renamed once) and
    /// every span dropped.
    pub fn renamed(
        &self,
        keep: &[(String, String)],
        vars: &BTreeMap<String, String>,
    ) -> Result<Visible, SymError> {
        let r = Renamer { vars };
        let mut out = Visible::default();
        for (local, remote) in keep {
            if let Some(a) = self.arrangements.get(remote) {
                let mut a = r.arrangement(a)?;
                a.name = local.clone();
                out.arrangements.insert(local.clone(), a);
            }
            if let Some(dims) = self.shapes.get(remote) {
                out.shapes.insert(local.clone(), r.shape(dims)?);
            }
            if let Some(m) = self.mappings.get(remote) {
                out.mappings.insert(local.clone(), r.mapping(m)?);
            }
        }
        Ok(out)
    }

    /// Adds `other`'s entries (an entry of the same name already here is kept).
    pub fn merge(&mut self, other: Visible) {
        for (k, v) in other.arrangements {
            self.arrangements.entry(k).or_insert(v);
        }
        for (k, v) in other.shapes {
            self.shapes.entry(k).or_insert(v);
        }
        for (k, v) in other.mappings {
            self.mappings.entry(k).or_insert(v);
        }
    }
}

impl Mapping {
    /// The mapping as a comparable value: spans, the array's and the arrangement's
    /// names dropped (two units' mappings of one COMMON member agree when their
    /// formats, sizes, offsets and grids do).
    pub fn canonical(&self) -> Mapping {
        let vars = BTreeMap::new();
        let mut m = Renamer { vars: &vars }
            .mapping(self)
            .unwrap_or_else(|_| self.clone());
        let mut d = Distribution::clone(&m.distribution);
        d.target.clear();
        d.onto.name.clear();
        d.directive = Span::default();
        m.distribution = Arc::new(d);
        m.directives.clear();
        m
    }
}

struct Renamer<'a> {
    vars: &'a BTreeMap<String, String>,
}

impl Renamer<'_> {
    /// `s` with its variables renamed, through placeholders so that a rename chain
    /// (`a`→`b`, `b`→`c`) renames each variable once.
    fn sym(&self, s: &Sym) -> Result<Sym, SymError> {
        let mut out = s.clone();
        let mentioned: Vec<(&String, &String)> = self
            .vars
            .iter()
            .filter(|(from, _)| s.mentions(from))
            .collect();
        for (i, (from, _)) in mentioned.iter().enumerate() {
            out = out.subst(from, &Sym::var(&format!("\u{1}{i}")))?;
        }
        for (i, (_, to)) in mentioned.iter().enumerate() {
            out = out.subst(&format!("\u{1}{i}"), &Sym::var(to))?;
        }
        Ok(out)
    }

    fn syms(&self, v: &[Sym]) -> Result<Vec<Sym>, SymError> {
        v.iter().map(|s| self.sym(s)).collect()
    }

    fn shape(&self, dims: &[(Sym, Sym)]) -> Result<Vec<(Sym, Sym)>, SymError> {
        dims.iter()
            .map(|(l, e)| Ok((self.sym(l)?, self.sym(e)?)))
            .collect()
    }

    fn arrangement(&self, a: &Arrangement) -> Result<Arrangement, SymError> {
        Ok(Arrangement {
            name: a.name.clone(),
            extents: self.syms(&a.extents)?,
            default: a.default,
        })
    }

    fn mapping(&self, m: &Mapping) -> Result<Mapping, SymError> {
        let d = &m.distribution;
        let dims = d
            .dims
            .iter()
            .map(|dim| {
                Ok(DistDim {
                    lower: self.sym(&dim.lower)?,
                    extent: self.sym(&dim.extent)?,
                    format: match &dim.format {
                        Format::Block(b) => Format::Block(self.sym(b)?),
                        Format::Cyclic(k) => Format::Cyclic(self.sym(k)?),
                        Format::Collapsed => Format::Collapsed,
                    },
                    grid: dim.grid,
                })
            })
            .collect::<Result<Vec<_>, SymError>>()?;
        let index = m
            .index
            .iter()
            .map(|i| {
                Ok(match i {
                    TemplateIndex::Affine { dim, coef, offset } => TemplateIndex::Affine {
                        dim: *dim,
                        coef: self.sym(coef)?,
                        offset: self.sym(offset)?,
                    },
                    TemplateIndex::Constant(c) => TemplateIndex::Constant(self.sym(c)?),
                    TemplateIndex::Replicated => TemplateIndex::Replicated,
                })
            })
            .collect::<Result<Vec<_>, SymError>>()?;
        Ok(Mapping {
            distribution: Arc::new(Distribution {
                target: d.target.clone(),
                dims,
                onto: self.arrangement(&d.onto)?,
                directive: Span::default(),
            }),
            index,
            directives: Vec::new(),
        })
    }
}
