//! An alternative as directives: the unit's own with the DISTRIBUTE's formats and the
//! PROCESSORS shape replaced (spans kept, so findings still point at the directives the
//! user wrote). Nothing is parsed again.

use super::candidates::Target;
use super::layout::{Fmt, Grid, Layout};
use costline_syntax::ir::directive::{Directive, DirectiveKind, DistFormat, Extent, FormatClause};
use costline_syntax::ir::{Expr, Unit};

/// The unit's directives with `layout` in place of `target`'s for `p` processors;
/// `None` when the layout's grid has no shape for `p`.
pub fn directives(unit: &Unit, target: &Target, layout: &Layout, p: i64) -> Option<Vec<Directive>> {
    let mut out = unit.directives.clone();
    if let DirectiveKind::Distribute(dist) = &mut out.get_mut(target.directive)?.kind {
        dist.formats =
            FormatClause::Prescriptive(layout.formats.iter().map(|f| format(*f)).collect());
    }
    match (&layout.grid, target.arrangement) {
        (Grid::Default, _) => {}
        (grid, Some((d, k))) => {
            let extents = grid.extents(p)?;
            if let DirectiveKind::Processors(decls) = &mut out.get_mut(d)?.kind {
                decls.get_mut(k)?.shape = extents
                    .into_iter()
                    .map(|e| Extent {
                        lower: None,
                        upper: Expr::Int(e),
                    })
                    .collect();
            }
        }
        (_, None) => return None,
    }
    Some(out)
}

fn format(f: Fmt) -> DistFormat {
    match f {
        Fmt::Block => DistFormat::Block(None),
        Fmt::Cyclic(1) => DistFormat::Cyclic(None),
        Fmt::Cyclic(k) => DistFormat::Cyclic(Some(Expr::Int(i64::from(k)))),
        Fmt::Star => DistFormat::Collapsed,
    }
}
