//! HPF directives checked against the unit's declarations: every distributee and
//! alignee is a declared array or template, every ONTO target a processor arrangement,
//! every ALIGN target an array or template, and the number of formats, align sources
//! and align subscripts matches the rank they describe.

use super::Lowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::directive::{
    Align, Directive, DirectiveKind, DistFormat, Distribute, FormatClause, Named, Onto,
};
use std::collections::HashMap;

/// Names declared by PROCESSORS and TEMPLATE directives, with their ranks.
struct Mappings {
    processors: HashMap<String, usize>,
    templates: HashMap<String, usize>,
}

impl Lowerer<'_> {
    pub(super) fn check_directives(&mut self, directives: &[Directive]) {
        // The host's and modules' arrangements and templates, hidden by the unit's own.
        let mut m = Mappings {
            processors: self.scope.processors.clone().into_iter().collect(),
            templates: self.scope.templates.clone().into_iter().collect(),
        };
        for d in directives {
            match &d.kind {
                DirectiveKind::Processors(decls) => {
                    for p in decls {
                        m.processors.insert(p.name.name.clone(), p.shape.len());
                    }
                }
                DirectiveKind::Template(decls) => {
                    for t in decls {
                        m.templates.insert(t.name.name.clone(), t.shape.len());
                    }
                }
                _ => {}
            }
        }
        for d in directives {
            match &d.kind {
                DirectiveKind::Distribute(dist) | DirectiveKind::Redistribute(dist) => {
                    self.check_distribute(dist, &m)
                }
                DirectiveKind::Align(align) | DirectiveKind::Realign(align) => {
                    self.check_align(align, &m)
                }
                DirectiveKind::Dynamic(names) | DirectiveKind::Inherit(names) => {
                    for n in names {
                        self.mappable_rank(n, &m, "this directive");
                    }
                }
                _ => {}
            }
        }
    }

    /// The rank of an array or template named in a directive; reports unknown names
    /// and scalars.
    fn mappable_rank(&mut self, n: &Named, m: &Mappings, role: &str) -> Option<usize> {
        if let Some(&rank) = m.templates.get(&n.name) {
            return Some(rank);
        }
        match self.lookup(&n.name) {
            Some(s) if s.is_array() => Some(s.rank()),
            Some(_) => {
                self.diagnostics.push(Diagnostic::error(
                    n.span,
                    "not-an-array",
                    format!(
                        "`{}` in {role} is a scalar; only arrays and templates are mapped",
                        n.name
                    ),
                ));
                None
            }
            None => {
                let kind = if m.processors.contains_key(&n.name) {
                    "a processor arrangement, not an array or template"
                } else {
                    "not a declared array or template"
                };
                self.diagnostics.push(Diagnostic::error(
                    n.span,
                    "unknown-array",
                    format!("`{}` in {role} is {kind}", n.name),
                ));
                None
            }
        }
    }

    fn check_distribute(&mut self, dist: &Distribute, m: &Mappings) {
        let formats = match &dist.formats {
            FormatClause::Prescriptive(f) | FormatClause::Descriptive(f) => Some(f),
            FormatClause::Absent | FormatClause::Transcriptive => None,
        };
        for n in &dist.distributees {
            let rank = self.mappable_rank(n, m, "DISTRIBUTE");
            if let (Some(rank), Some(f)) = (rank, formats)
                && f.len() != rank
            {
                self.diagnostics.push(Diagnostic::error(
                    n.span,
                    "rank-mismatch",
                    format!(
                        "DISTRIBUTE gives {} format{} for `{}`, which has rank {rank}",
                        f.len(),
                        if f.len() == 1 { "" } else { "s" },
                        n.name
                    ),
                ));
            }
        }
        if let Some(Onto::Target { name, .. }) = &dist.onto {
            match m.processors.get(&name.name) {
                None => self.diagnostics.push(Diagnostic::error(
                    name.span,
                    "unknown-processors",
                    format!("ONTO `{}`: no PROCESSORS directive declares it", name.name),
                )),
                Some(&prank) => {
                    let distributed = formats.map(|f| {
                        f.iter()
                            .filter(|f| !matches!(f, DistFormat::Collapsed))
                            .count()
                    });
                    if let Some(d) = distributed
                        && d != prank
                        && prank > 0
                    {
                        self.diagnostics.push(Diagnostic::error(
                            name.span,
                            "rank-mismatch",
                            format!(
                                "{d} distributed dimension{} onto `{}`, which has rank {prank}",
                                if d == 1 { "" } else { "s" },
                                name.name
                            ),
                        ));
                    }
                }
            }
        }
    }

    fn check_align(&mut self, align: &Align, m: &Mappings) {
        for n in &align.alignees {
            let rank = self.mappable_rank(n, m, "ALIGN");
            if let (Some(rank), Some(sources)) = (rank, &align.sources)
                && sources.len() != rank
            {
                self.diagnostics.push(Diagnostic::error(
                    n.span,
                    "rank-mismatch",
                    format!(
                        "ALIGN lists {} dimension{} for `{}`, which has rank {rank}",
                        sources.len(),
                        if sources.len() == 1 { "" } else { "s" },
                        n.name
                    ),
                ));
            }
        }
        let target_rank = self.mappable_rank(&align.target, m, "ALIGN ... WITH");
        if let (Some(rank), Some(subs)) = (target_rank, &align.subscripts)
            && subs.len() != rank
        {
            self.diagnostics.push(Diagnostic::error(
                align.target.span,
                "rank-mismatch",
                format!(
                    "ALIGN WITH `{}` gives {} subscript{} for rank {rank}",
                    align.target.name,
                    subs.len(),
                    if subs.len() == 1 { "" } else { "s" }
                ),
            ));
        }
    }
}
