//! The separable remapping count against brute force: every element's owners under
//! both mappings from `ValuedMapping::owners` (the numeric ownership the work oracle
//! also trusts), the same sender rule, over random layouts.

use super::remap;
use crate::distribution::{Layout, LayoutDim, LayoutFormat, LayoutIndex};
use crate::span::Span;
use std::collections::BTreeMap;

/// The counts by enumeration of every element.
fn brute(extents: &[i64], from: &Layout, to: &Layout) -> BTreeMap<(usize, usize), u64> {
    let f = from
        .mapping("a", &from.lowers, Span::default())
        .valued(&|_| None)
        .expect("valued");
    let t = to
        .mapping("a", &to.lowers, Span::default())
        .valued(&|_| None)
        .expect("valued");
    let mut out = BTreeMap::new();
    let mut positions = vec![Vec::<i64>::new()];
    for &n in extents {
        positions = positions
            .into_iter()
            .flat_map(|p| {
                (0..n).map(move |j| {
                    let mut p = p.clone();
                    p.push(j);
                    p
                })
            })
            .collect();
    }
    for j in positions {
        let at = |l: &Layout| -> Vec<i128> {
            j.iter()
                .zip(&l.lowers)
                .map(|(j, lo)| (j + lo) as i128)
                .collect()
        };
        let senders = f.owners(&at(from)).expect("inside");
        let receivers = t.owners(&at(to)).expect("inside");
        for r in receivers {
            if !senders.contains(&r) {
                *out.entry((senders[0], r)).or_default() += 1;
            }
        }
    }
    out
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: i64) -> i64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as i64
    }
}

/// A random layout of an array of `extents` with lower bounds `lowers` on `grid`: each
/// array dimension distributed directly (BLOCK, BLOCK(k), CYCLIC(k) or `*`), or through
/// a template with an offset, or the array replicated along a grid dimension.
fn layout(rng: &mut Rng, extents: &[i64], lowers: &[i64], grid: &[i64]) -> Layout {
    let mut dims = Vec::new();
    let mut free: Vec<usize> = (0..grid.len()).collect();
    for (d, (&n, &lo)) in extents.iter().zip(lowers).enumerate() {
        let distribute = !free.is_empty() && rng.next(4) != 0;
        let offset = rng.next(3);
        let extent = n + offset;
        let (format, g) = if distribute {
            let g = free.remove(0);
            let p = grid[g];
            let format = match rng.next(4) {
                0 => LayoutFormat::Block((extent + p - 1) / p),
                1 => LayoutFormat::Block((extent + p - 1) / p + rng.next(3)),
                2 => LayoutFormat::Cyclic(1),
                _ => LayoutFormat::Cyclic(1 + rng.next(3)),
            };
            (format, Some(g))
        } else {
            (LayoutFormat::Collapsed, None)
        };
        dims.push(LayoutDim {
            lower: 1,
            extent,
            format,
            grid: g,
            index: LayoutIndex::Affine {
                dim: d,
                coef: 1,
                offset: offset + 1 - lo,
            },
        });
    }
    // A grid dimension left over: replicated along it, or a constant template index.
    for g in free {
        let p = grid[g];
        let constant = rng.next(2) == 0;
        dims.push(LayoutDim {
            lower: 1,
            extent: 2 * p,
            format: LayoutFormat::Block(2),
            grid: Some(g),
            index: if constant {
                LayoutIndex::Constant(1 + rng.next(2 * p))
            } else {
                LayoutIndex::Replicated
            },
        });
    }
    Layout {
        arrangement: "pr".into(),
        grid: grid.to_vec(),
        dims,
        lowers: lowers.to_vec(),
    }
}

#[test]
fn separable_counts_match_brute_force() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let grids: [&[i64]; 5] = [&[4], &[3], &[2, 2], &[2, 3], &[1]];
    for case in 0..300 {
        let rank = 1 + rng.next(2) as usize;
        let extents: Vec<i64> = (0..rank).map(|_| 1 + rng.next(13)).collect();
        let lowers: Vec<i64> = (0..rank).map(|_| rng.next(3) - 1).collect();
        let dummy_lowers: Vec<i64> = (0..rank).map(|_| 1 - rng.next(2)).collect();
        let from_grid = grids[rng.next(grids.len() as i64) as usize];
        let to_grid = grids[rng.next(grids.len() as i64) as usize];
        let from = layout(&mut rng, &extents, &lowers, from_grid);
        let to = layout(&mut rng, &extents, &dummy_lowers, to_grid);
        let counted = remap(&extents, &from, &to).expect("countable");
        assert_eq!(
            counted,
            brute(&extents, &from, &to),
            "case {case}: {extents:?} from {from:?} to {to:?}"
        );
    }
}

#[test]
fn block_to_cyclic_moves_what_changes_owner() {
    let l = |format| Layout {
        arrangement: "pr".into(),
        grid: vec![4],
        dims: vec![LayoutDim {
            lower: 1,
            extent: 16,
            format,
            grid: Some(0),
            index: LayoutIndex::Affine {
                dim: 0,
                coef: 1,
                offset: 0,
            },
        }],
        lowers: vec![1],
    };
    let moved = remap(
        &[16],
        &l(LayoutFormat::Block(4)),
        &l(LayoutFormat::Cyclic(1)),
    )
    .unwrap();
    // Processor 1 owns 1..4 under BLOCK; under CYCLIC 1 stays, 2, 3, 4 go to 2, 3, 4.
    assert_eq!(moved.get(&(1, 2)), Some(&1));
    assert_eq!(moved.get(&(1, 1)), None);
    assert_eq!(moved.values().sum::<u64>(), 12);
    assert!(
        remap(
            &[16],
            &l(LayoutFormat::Block(4)),
            &l(LayoutFormat::Block(4))
        )
        .unwrap()
        .is_empty()
    );
}
