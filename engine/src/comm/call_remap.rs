//! The implicit remapping at a call: an actual argument whose mapping differs from its
//! dummy's prescriptive (or, wrongly asserted, descriptive) mapping is moved to the
//! dummy's mapping on entry and back on return (HPF 2.0 §8.5), all-to-all style.
//!
//! Counted exactly, per processor pair: an element goes from its owner under the old
//! mapping to every processor that owns it under the new one and did not before; of
//! several old owners (a replicated element) the lowest-numbered sends.

use crate::distribution::Layout;
use crate::distribution::layout::{Coords, Partial, coordinates_of, number};
use std::collections::BTreeMap;

/// Combinations of per-dimension owner classes beyond this many are not counted.
const MAX_CLASSES: usize = 1 << 20;

/// Elements moved, per (sender, receiver) pair (1-based processor numbers), when an
/// array of `extents` mapped by `from` is remapped to `to`. Element `j` (0-based
/// position in each dimension) is index `lowers[d] + j_d` in each layout's own terms.
///
/// Separable: each grid coordinate of an element depends on one array dimension (or
/// none), so the elements of each dimension are grouped by the coordinates they
/// determine under both mappings, and the groups of all dimensions combined by product.
pub fn remap(
    extents: &[i64],
    from: &Layout,
    to: &Layout,
) -> Result<BTreeMap<(usize, usize), u64>, String> {
    // Per array dimension: (coordinates under `from`, under `to`) -> elements.
    let mut combined: Vec<(Coords, Coords, u64)> =
        vec![(from.constant_coordinates()?, to.constant_coordinates()?, 1)];
    for (dim, &n) in extents.iter().enumerate() {
        let mut classes: BTreeMap<(Partial, Partial), u64> = BTreeMap::new();
        for j in 0..n.max(0) {
            let key = (
                from.coordinates_along(dim, j)?,
                to.coordinates_along(dim, j)?,
            );
            *classes.entry(key).or_default() += 1;
        }
        let mut next = Vec::new();
        for (f, t, count) in &combined {
            for ((cf, ct), k) in &classes {
                let (mut f, mut t) = (f.clone(), t.clone());
                cf.iter().for_each(|&(g, c)| f[g] = Some(c));
                ct.iter().for_each(|&(g, c)| t[g] = Some(c));
                next.push((f, t, count * k));
            }
        }
        if next.len() > MAX_CLASSES {
            return Err(format!(
                "more than {MAX_CLASSES} classes of elements: the remapping is not counted"
            ));
        }
        combined = next;
    }
    let mut out: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    for (f, t, count) in combined {
        // The lowest-numbered old owner: its free coordinates at 0.
        let sender = number(
            &from.grid,
            &f.iter().map(|c| c.unwrap_or(0)).collect::<Vec<_>>(),
        );
        for receiver in every(&to.grid, &t) {
            // Processors are numbered alike on both grids: one beyond the old grid
            // owned nothing.
            let coords = coordinates_of(&from.grid, receiver);
            let owned = receiver as i64 <= from.processors()
                && f.iter()
                    .zip(&coords)
                    .all(|(c, r)| c.is_none_or(|c| c == *r));
            if !owned {
                *out.entry((sender, receiver)).or_default() += count;
            }
        }
    }
    Ok(out)
}

/// Every processor whose coordinates match `fixed` (`None`: any), ascending.
fn every(grid: &[i64], fixed: &[Option<i64>]) -> Vec<usize> {
    let mut out = vec![Vec::<i64>::new()];
    for (e, f) in grid.iter().zip(fixed) {
        out = out
            .into_iter()
            .flat_map(|c| {
                let choices: Vec<i64> = match f {
                    Some(x) => vec![*x],
                    None => (0..*e).collect(),
                };
                choices.into_iter().map(move |x| {
                    let mut c = c.clone();
                    c.push(x);
                    c
                })
            })
            .collect();
    }
    let mut ps: Vec<usize> = out.iter().map(|c| number(grid, c)).collect();
    ps.sort_unstable();
    ps
}

#[cfg(test)]
mod tests;
