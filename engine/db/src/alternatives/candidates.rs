//! Which DISTRIBUTE directives have alternatives, and which alternatives: per
//! dimension BLOCK, CYCLIC, CYCLIC(k) for k ∈ {2, 4, 8} or `*`, on the processor grids
//! that factor P (one dimension of P, near-square r × c and c × r).
//!
//! BLOCK(k) is left out: HPF requires k·P ≥ n, where it either equals BLOCK or leaves
//! processors idle. An alternative's group is the DISTRIBUTE's distributees and
//! everything ALIGNed to them (the alignment follows the new distribution); the grid
//! changes only when no other DISTRIBUTE is onto the same arrangement.

use super::layout::{Fmt, Grid, Layout};
use costline_syntax::ir::Unit;
use costline_syntax::ir::consteval::eval_int;
use costline_syntax::ir::directive::{DirectiveKind, DistFormat, FormatClause, Onto};

/// A DISTRIBUTE directive that alternatives replace, and the grid it is onto.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Its index among the unit's directives.
    pub directive: usize,
    /// The rank of its distributees (its number of formats).
    pub rank: usize,
    /// The layout as written; `None` when a format has no alternative spelling
    /// (BLOCK(k), CYCLIC(k) with k unknown, GEN_BLOCK, INDIRECT).
    pub current: Option<Layout>,
    /// The PROCESSORS declaration it is onto: (directive index, declaration index);
    /// `None` for HPF's default arrangement.
    pub arrangement: Option<(usize, usize)>,
    /// Whether another DISTRIBUTE is onto the same arrangement (its shape stays).
    pub shared: bool,
    /// The extents of the grid as written, under the bindings (`[p]` for the default
    /// arrangement when `p` is bound).
    pub extents: Option<Vec<i64>>,
}

impl Target {
    /// The processor count of the grid as written.
    pub fn processors(&self) -> Option<i64> {
        self.extents.as_ref().map(|e| e.iter().product())
    }

    /// The grid rule alternatives must keep (`Fixed` for a shared arrangement,
    /// `Default` without one), or `None` when they may choose.
    fn forced_grid(&self) -> Option<Grid> {
        match &self.arrangement {
            None => Some(Grid::Default),
            Some(_) if self.shared => Some(Grid::Fixed(self.extents.clone().unwrap_or_default())),
            Some(_) => None,
        }
    }
}

/// The indices of the unit's prescriptive DISTRIBUTE directives.
pub fn distribute_directives(unit: &Unit) -> Vec<usize> {
    unit.directives
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            matches!(&d.kind, DirectiveKind::Distribute(x)
                if matches!(x.formats, FormatClause::Prescriptive(_)))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The target of the DISTRIBUTE at `directive` (`env`: the unit's integer constants).
pub fn target(unit: &Unit, directive: usize, env: &dyn Fn(&str) -> Option<i64>) -> Option<Target> {
    let DirectiveKind::Distribute(dist) = &unit.directives.get(directive)?.kind else {
        return None;
    };
    let FormatClause::Prescriptive(formats) = &dist.formats else {
        return None;
    };
    let arrangements = arrangements(unit);
    let onto_name = |onto: Option<&Onto>| -> Option<String> {
        match onto {
            Some(Onto::Target { name, .. }) => Some(name.name.clone()),
            Some(Onto::Transcriptive) => None,
            // Without ONTO, the unit's one arrangement (as the resolver takes it).
            None => (arrangements.len() == 1).then(|| arrangements[0].2.clone()),
        }
    };
    let name = onto_name(dist.onto.as_ref());
    let arrangement = name.as_ref().and_then(|n| {
        arrangements
            .iter()
            .find(|(_, _, a)| a == n)
            .map(|(d, k, _)| (*d, *k))
    });
    let shared = name.is_some()
        && unit.directives.iter().enumerate().any(|(i, d)| {
            i != directive
                && matches!(&d.kind, DirectiveKind::Distribute(x) | DirectiveKind::Redistribute(x)
                    if onto_name(x.onto.as_ref()) == name)
        });
    let extents = match arrangement {
        Some((d, k)) => match &unit.directives[d].kind {
            DirectiveKind::Processors(decls) => decls[k]
                .shape
                .iter()
                .map(|e| {
                    let lower = e.lower.as_ref().map_or(Some(1), |l| eval_int(l, env))?;
                    Some(eval_int(&e.upper, env)? - lower + 1)
                })
                .collect::<Option<Vec<i64>>>(),
            _ => None,
        },
        None => env("p").map(|p| vec![p]),
    };
    let current = formats
        .iter()
        .map(|f| written_format(f, env))
        .collect::<Option<Vec<Fmt>>>()
        .map(|formats| Layout {
            grid: written_grid(arrangement.is_some(), extents.as_deref(), shared),
            formats,
        });
    Some(Target {
        directive,
        rank: formats.len(),
        current,
        arrangement,
        shared,
        extents,
    })
}

/// The unit's PROCESSORS declarations: (directive index, declaration index, name).
fn arrangements(unit: &Unit) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (i, d) in unit.directives.iter().enumerate() {
        if let DirectiveKind::Processors(decls) = &d.kind {
            for (k, decl) in decls.iter().enumerate() {
                if !decl.shape.is_empty() {
                    out.push((i, k, decl.name.name.clone()));
                }
            }
        }
    }
    out
}

fn written_format(f: &DistFormat, env: &dyn Fn(&str) -> Option<i64>) -> Option<Fmt> {
    match f {
        DistFormat::Block(None) => Some(Fmt::Block),
        DistFormat::Cyclic(None) => Some(Fmt::Cyclic(1)),
        DistFormat::Cyclic(Some(k)) => {
            let k = u32::try_from(eval_int(k, env)?).ok().filter(|k| *k >= 1)?;
            Some(Fmt::Cyclic(k))
        }
        DistFormat::Collapsed => Some(Fmt::Star),
        DistFormat::Block(Some(_)) | DistFormat::GenBlock(_) | DistFormat::Indirect(_) => None,
    }
}

/// The rule the written grid follows when P changes: one dimension is a line, two
/// near-square ones the square rule, anything else stays as written.
fn written_grid(arrangement: bool, extents: Option<&[i64]>, shared: bool) -> Grid {
    match extents {
        _ if !arrangement => Grid::Default,
        Some(e) if shared => Grid::Fixed(e.to_vec()),
        Some([_]) => Grid::Line,
        Some(&[r, c]) => {
            let p = r * c;
            match super::layout::near_square(p) {
                Some((a, b)) if (a, b) == (r, c) && b > 1 => Grid::Square { tall: true },
                Some((a, b)) if (b, a) == (r, c) && b > 1 => Grid::Square { tall: false },
                _ => Grid::Fixed(vec![r, c]),
            }
        }
        Some(e) => Grid::Fixed(e.to_vec()),
        None => Grid::Fixed(Vec::new()),
    }
}

/// The formats tried on one distributed dimension.
const ONE_DIM: [Fmt; 5] = [
    Fmt::Block,
    Fmt::Cyclic(1),
    Fmt::Cyclic(2),
    Fmt::Cyclic(4),
    Fmt::Cyclic(8),
];

/// The alternatives for `target` (the layout as written among them when it is
/// expressible), in a fixed order: one distributed dimension first, then two.
pub fn candidates(target: &Target) -> Vec<Layout> {
    let rank = target.rank;
    let forced = target.forced_grid();
    let grid_rank = |g: &Grid| match g {
        Grid::Fixed(e) => Some(e.len()),
        Grid::Default | Grid::Line => Some(1),
        Grid::Square { .. } => Some(2),
    };
    let mut out: Vec<Layout> = Vec::new();
    let mut push = |formats: Vec<Fmt>, grid: Grid| {
        let layout = Layout { formats, grid };
        if !out.contains(&layout) {
            out.push(layout);
        }
    };
    if let Some(current) = &target.current {
        push(current.formats.clone(), current.grid.clone());
    }
    let one = |d: usize, f: Fmt| -> Vec<Fmt> {
        (0..rank)
            .map(|k| if k == d { f } else { Fmt::Star })
            .collect()
    };
    let fits = |g: &Grid, distributed: usize| grid_rank(g) == Some(distributed);
    for d in 0..rank {
        for f in ONE_DIM {
            let grid = forced.clone().unwrap_or(Grid::Line);
            if fits(&grid, 1) {
                push(one(d, f), grid);
            }
        }
    }
    // Two distributed dimensions: BLOCK/CYCLIC pairs (BLOCK only beyond rank 2).
    let pairs: &[(Fmt, Fmt)] = if rank == 2 {
        &[
            (Fmt::Block, Fmt::Block),
            (Fmt::Block, Fmt::Cyclic(1)),
            (Fmt::Cyclic(1), Fmt::Block),
            (Fmt::Cyclic(1), Fmt::Cyclic(1)),
        ]
    } else {
        &[(Fmt::Block, Fmt::Block)]
    };
    for d1 in 0..rank {
        for d2 in d1 + 1..rank {
            for &(f1, f2) in pairs {
                let formats: Vec<Fmt> = (0..rank)
                    .map(|k| match k {
                        _ if k == d1 => f1,
                        _ if k == d2 => f2,
                        _ => Fmt::Star,
                    })
                    .collect();
                let grids = match &forced {
                    Some(g) => vec![g.clone()],
                    None => vec![Grid::Square { tall: true }, Grid::Square { tall: false }],
                };
                for grid in grids {
                    if fits(&grid, 2) {
                        push(formats.clone(), grid);
                    }
                }
            }
        }
    }
    out
}
