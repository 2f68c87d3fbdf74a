//! Alternatives priced away from the current bindings: a private database holding the
//! workspace's files, whose bindings move to each (problem size, processor count) asked
//! for. Changing a binding re-evaluates counts and times only (mappings, work and
//! communication sets of each alternative stay memoized); a new processor count is a
//! new variant.

use super::candidates::Target;
use super::evaluate::{Prediction, predict, predict_layout, target_of};
use super::layout::{Grid, Layout};
use crate::Options;
use crate::{Analysis, AnalysisHost, Settings, UnitText, file_units, lower};
use costline_syntax::ir::directive::DirectiveKind;
use costline_syntax::ir::{Bound, Expr};
use std::collections::HashMap;

type Key = (Option<Layout>, Option<i64>, i64);

/// A DISTRIBUTE directive of one unit, explored over problem sizes and processor counts.
pub struct Explorer {
    host: AnalysisHost,
    options: Options,
    path: String,
    unit: String,
    target: Option<Target>,
    param: Option<(String, i64)>,
    memo: HashMap<Key, Option<Prediction>>,
}

impl Explorer {
    /// `files` analyzed together with `options`; the DISTRIBUTE at index `directive`
    /// among the directives of the unit named `unit` in the file at `path`.
    pub fn new(
        files: Vec<(String, Vec<u8>)>,
        options: Options,
        path: &str,
        unit: &str,
        directive: usize,
    ) -> Explorer {
        Explorer::with_headers(files, Vec::new(), options, path, unit, directive)
    }

    /// [`Explorer::new`], with the texts of included files given (not read from disk).
    fn with_headers(
        files: Vec<(String, Vec<u8>)>,
        headers: Vec<(String, Vec<u8>)>,
        options: Options,
        path: &str,
        unit: &str,
        directive: usize,
    ) -> Explorer {
        let mut host = AnalysisHost::new(&options, None);
        for (p, bytes) in headers {
            host.set_header_text(&p, bytes);
        }
        for (p, bytes) in files {
            host.add_file(&p, bytes);
        }
        let mut e = Explorer {
            host,
            options,
            path: path.to_string(),
            unit: unit.to_string(),
            target: None,
            param: None,
            memo: HashMap::new(),
        };
        let found = e.with_unit(|db, u| {
            let target = target_of(db, u, directive)?;
            let param = size_parameter(db, u, &target);
            Some((target, param))
        });
        if let Some(Some((target, param))) = found {
            e.target = Some(target);
            e.param = param;
        }
        e
    }

    /// An explorer over the files and settings of a snapshot (the editor's state).
    pub fn of_analysis(a: &Analysis, path: &str, unit: &str, directive: usize) -> Explorer {
        let db = a.db();
        let files = a
            .paths()
            .into_iter()
            .filter_map(|p| Some((p.clone(), a.file_id(&p)?.bytes(db).clone())))
            .collect();
        let headers = a
            .header_paths()
            .into_iter()
            .filter_map(|p| Some((p.clone(), a.header_id(&p)?.bytes(db).clone())))
            .collect();
        let s = Settings::get(db);
        let options = Options {
            bindings: s.bindings(db).clone(),
            freq: s.freq(db).clone(),
            imbalance_threshold: s.imbalance_threshold(db),
            finding_share: s.finding_share(db),
            machine: s.machine(db).clone(),
            include_dirs: a.include_dirs().to_vec(),
            include_roots: a.include_roots().map(<[_]>::to_vec),
            fixed_line_length: s.fixed_line_length(db),
            compiler: s.compiler(db).clone(),
            defines: s.defines(db).clone(),
            profile: s.profile(db).clone(),
        };
        Explorer::with_headers(files, headers, options, path, unit, directive)
    }

    /// Varies `name` instead of the size parameter found in the extents (its value as
    /// given, or `value`).
    pub fn vary(&mut self, name: &str, value: i64) {
        let given = self.options.bindings.get(name).copied();
        self.param = Some((name.to_string(), given.unwrap_or(value)));
        self.memo.clear();
    }

    /// The directive as written, under the bindings given.
    pub fn target(&self) -> Option<&Target> {
        self.target.as_ref()
    }

    /// The name that sizes the distributed arrays (the first unknown or constant in
    /// their declared extents) and its value under the bindings given.
    pub fn size_parameter(&self) -> Option<&(String, i64)> {
        self.param.as_ref()
    }

    /// The prediction for `layout` (`None`: as written) with the size parameter at `n`
    /// (`None`: as given) on `p` processors; memoized.
    pub fn predict(
        &mut self,
        layout: Option<&Layout>,
        n: Option<i64>,
        p: i64,
    ) -> Option<Prediction> {
        let target = self.target.clone()?;
        // As written on another processor count: the written layout's grid rule.
        let layout = match layout {
            None if Some(p) != target.processors() => Some(target.current.clone()?),
            l => l.cloned(),
        };
        let key = (layout.clone(), n, p);
        if let Some(hit) = self.memo.get(&key) {
            return *hit;
        }
        let mut bindings = self.options.bindings.clone();
        if let (Some(n), Some((name, _))) = (n, &self.param) {
            bindings.insert(name.clone(), n);
        }
        if layout.as_ref().is_some_and(|l| l.grid == Grid::Default) {
            bindings.insert("p".into(), p);
        }
        // Setting equal bindings again changes nothing.
        self.host.set_options(&Options {
            bindings,
            ..self.options.clone()
        });
        let out = self
            .with_unit(|db, u| match &layout {
                None => predict(db, u, None),
                Some(l) => {
                    let t = target_of(db, u, target.directive)?;
                    predict_layout(db, u, &t, l, p)
                }
            })
            .flatten();
        self.memo.insert(key, out);
        out
    }

    fn with_unit<T>(
        &self,
        f: impl FnOnce(&dyn salsa::Database, UnitText<'_>) -> T + std::panic::UnwindSafe,
    ) -> Option<T> {
        let a = self.host.snapshot();
        let file = a.file_id(&self.path)?;
        let name = self.unit.clone();
        a.with_db(move |db| {
            let units = file_units(db, file).as_ref().ok()?;
            let u = *units.units.iter().find(|u| *u.name(db) == name)?;
            Some(f(db, u))
        })
        .ok()
        .flatten()
    }
}

/// The first name in the declared extents of the target's distributees (a template's
/// shape, an array's dimensions) that has a value, with that value.
fn size_parameter(
    db: &dyn salsa::Database,
    unit: UnitText<'_>,
    target: &Target,
) -> Option<(String, i64)> {
    let ir = lower(db, unit);
    let known = crate::constants(db, unit);
    let DirectiveKind::Distribute(dist) = &ir.directives.get(target.directive)?.kind else {
        return None;
    };
    let mut exprs: Vec<&Expr> = Vec::new();
    for d in &dist.distributees {
        if let Some(dims) = ir.symbols.get(&d.name).and_then(|s| s.dims.as_ref()) {
            exprs.extend(dims.iter().filter_map(|d| match &d.upper {
                Bound::Explicit(e) => Some(e),
                _ => None,
            }));
        }
        for t in &ir.directives {
            if let DirectiveKind::Template(decls) = &t.kind {
                for decl in decls.iter().filter(|x| x.name.name == d.name) {
                    exprs.extend(decl.shape.iter().map(|e| &e.upper));
                }
            }
        }
    }
    let mut found = None;
    for e in exprs {
        e.visit(&mut |x| {
            if let Expr::Name(n) = x
                && found.is_none()
                && let Some(v) = known.values.get(n)
            {
                found = Some((n.clone(), *v));
            }
        });
    }
    found
}
