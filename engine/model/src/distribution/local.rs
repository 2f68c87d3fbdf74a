//! The part of a mapped array each processor owns: what an `EXTRINSIC(HPF_LOCAL)`
//! procedure sees of its actual argument on each processor (HPF 2.0 Annex A: a local
//! procedure's dummy is the processor's own elements, as an array of their own).

use super::Arrangement;
use super::Layout;
use super::layout::Partial;
use std::collections::BTreeMap;

/// Processors × owner classes beyond this many are not enumerated.
pub const LOCAL_BUDGET: i64 = 1 << 22;

/// The extents of the part each processor owns of an array of `extents` mapped by
/// `layout`, for processors 1..=P in column-major order.
///
/// Ownership is separable (each grid coordinate depends on one array dimension, or on
/// none), so a processor's part is a box: along dimension d its extent is the number of
/// positions j of d whose grid coordinates are the processor's,
/// |{ j ∈ [0, n_d) : coordinates_along(d, j) ⊆ coords(p) }|, and a processor whose
/// coordinates differ from those a constant alignment fixes owns nothing.
pub fn local_extents(extents: &[i64], layout: &Layout) -> Result<Vec<Vec<i64>>, String> {
    if let Some(n) = extents.iter().find(|&&n| n > LOCAL_BUDGET) {
        return Err(format!(
            "a dimension of {n} positions is too long to count each processor's part"
        ));
    }
    let positions: Vec<Vec<i64>> = extents.iter().map(|&n| (0..n.max(0)).collect()).collect();
    local_parts(&positions, layout)
}

/// For processors 1..=P (column-major), how many of the given positions of each
/// dimension (0-based from the array's lower bound) the processor owns along that
/// dimension: the box of a section `a(l1:u1:s1, l2:u2:s2, ...)` on each processor, whose
/// product is the number of the section's elements it owns (ownership is separable:
/// see [`local_extents`]).
pub fn local_parts(positions: &[Vec<i64>], layout: &Layout) -> Result<Vec<Vec<i64>>, String> {
    let fixed = layout.constant_coordinates()?;
    if let Some(n) = positions
        .iter()
        .map(Vec::len)
        .find(|&n| n as i64 > LOCAL_BUDGET)
    {
        return Err(format!(
            "a dimension of {n} positions is too long to count each processor's part"
        ));
    }
    let mut classes: Vec<BTreeMap<Partial, i64>> = Vec::with_capacity(positions.len());
    for (dim, js) in positions.iter().enumerate() {
        let mut per: BTreeMap<Partial, i64> = BTreeMap::new();
        for &j in js {
            costline_symbolic::interrupt::point();
            *per.entry(layout.coordinates_along(dim, j)?).or_default() += 1;
        }
        classes.push(per);
    }
    let processors = layout.processors().max(1);
    let width: i64 = classes.iter().map(|c| c.len() as i64).sum::<i64>().max(1);
    if processors.saturating_mul(width) > LOCAL_BUDGET {
        return Err(format!(
            "{processors} processors with {width} classes of positions are too many to count \
             each processor's part"
        ));
    }
    Ok((1..=processors as usize)
        .map(|p| {
            let coords = Arrangement::coordinates(&layout.grid, p as i64);
            let mine = |g: usize, c: i64| coords.get(g) == Some(&c);
            if fixed
                .iter()
                .enumerate()
                .any(|(g, f)| f.is_some_and(|c| !mine(g, c)))
            {
                return vec![0; positions.len()];
            }
            classes
                .iter()
                .map(|per| {
                    per.iter()
                        .filter(|(at, _)| at.iter().all(|&(g, c)| mine(g, c)))
                        .map(|(_, n)| n)
                        .sum()
                })
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::{Format, LayoutDim, TemplateIndex};

    /// A template dimension: extent, format, grid dimension, where elements fall.
    type Dim = (i64, Format<i64>, Option<usize>, TemplateIndex<i64>);

    fn layout(grid: Vec<i64>, dims: Vec<Dim>) -> Layout {
        Layout {
            arrangement: "pr".into(),
            grid,
            dims: dims
                .into_iter()
                .map(|(extent, format, grid, index)| LayoutDim {
                    lower: 1,
                    extent,
                    format,
                    grid,
                    index,
                })
                .collect(),
            lowers: vec![1, 1],
        }
    }

    fn along(dim: usize) -> TemplateIndex<i64> {
        TemplateIndex::Affine {
            dim,
            coef: 1,
            offset: 0,
        }
    }

    /// Brute force: the owner of each position by the formats' definitions (BLOCK b:
    /// ⌊j/b⌋, CYCLIC(k): ⌊j/k⌋ mod P), counted per processor and dimension.
    fn brute(extents: &[i64], l: &Layout) -> Vec<Vec<i64>> {
        let owner = |d: &LayoutDim, j: i64| match d.format {
            Format::Block(b) => j / b,
            Format::Cyclic(k) => (j / k) % l.grid[d.grid.unwrap()],
            Format::Collapsed => 0,
        };
        let p = l.processors() as usize;
        let mut out = vec![vec![0; extents.len()]; p];
        for (q, part) in out.iter_mut().enumerate() {
            let (row, col) = ((q as i64) % l.grid[0], (q as i64) / l.grid[0]);
            for (d, &n) in extents.iter().enumerate() {
                let mine = if d == 0 { row } else { col };
                part[d] = (0..n).filter(|&j| owner(&l.dims[d], j) == mine).count() as i64;
            }
        }
        out
    }

    #[test]
    fn parts_are_what_each_processor_owns() {
        for (n, m, p, q) in [(10, 7, 3, 2), (16, 16, 4, 4), (5, 9, 4, 3)] {
            for (f, g) in [
                (Format::Block((n + p - 1) / p), Format::Cyclic(1)),
                (Format::Cyclic(2), Format::Block((m + q - 1) / q)),
            ] {
                let l = layout(
                    vec![p, q],
                    vec![(n, f, Some(0), along(0)), (m, g, Some(1), along(1))],
                );
                let parts = local_extents(&[n, m], &l).unwrap();
                assert_eq!(parts, brute(&[n, m], &l));
                let total: i64 = parts.iter().map(|e| e[0] * e[1]).sum();
                assert_eq!(total, n * m, "every element is owned once");
            }
        }
    }

    #[test]
    fn a_constant_alignment_leaves_other_rows_of_the_grid_empty() {
        // a(i) aligned with t(i, 2): only grid column 1 (0-based) holds it.
        let l = layout(
            vec![2, 2],
            vec![
                (8, Format::Block(4), Some(0), along(0)),
                (2, Format::Block(1), Some(1), TemplateIndex::Constant(2)),
            ],
        );
        assert_eq!(
            local_extents(&[8], &l).unwrap(),
            vec![vec![0], vec![0], vec![4], vec![4]]
        );
    }
}
