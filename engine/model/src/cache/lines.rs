//! Distinct cache lines an array access class touches while some of its loops run:
//! the footprint the layer conditions compare with a cache's capacity.
//!
//! Fortran arrays are column-major: element (x1, ..., xD) sits at byte
//! e · (x1 + E1·(x2 + E2·(x3 + ...))) from the array's first element (extents Ek of the
//! processor's local block, element size e; the array itself starts on a line
//! boundary). A class's subscript in dimension d is Σ c_dj·v_j + o_d over the loop
//! variables v_j; with each loop's iterations the set of values of a dimension is an
//! arithmetic progression per offset vector o (an exact one when one loop runs through
//! the dimension, the smallest one covering them when several do). A column is a choice
//! of the dimensions 2..D; the lines of a column are those its dimension-1 progressions
//! touch, counted from the column's first byte (its alignment within a line, which
//! cycles with the column index when E1·e is not a multiple of the line). The result is
//! exact for such nests when every loop runs through one dimension only and the
//! iterations form a box (triangular nests use their mean trip counts).

use super::nest::Class;
use costline_symbolic::gcd;
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, HashMap};

/// Column-offset pairs examined before the count switches to an estimate that ignores
/// the overlap of offsets between columns.
const COLUMN_BUDGET: u64 = 1 << 21;

/// Positions of the longest column dimension a sample of the columns keeps at least
/// (below it the sample's edges would weigh): see [`sampled_lines`].
const SAMPLE_POSITIONS: i64 = 4096;

/// An arithmetic progression of positions: start, stride > 0, count ≥ 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Progression {
    start: i64,
    stride: i64,
    count: i64,
}

impl Progression {
    fn last(&self) -> i64 {
        self.start
            .saturating_add(self.stride.saturating_mul(self.count - 1))
    }

    fn contains(&self, x: i64) -> bool {
        x >= self.start && x <= self.last() && (x - self.start) % self.stride == 0
    }
}

/// How the loops on a class's path run while its lines are counted.
pub struct Window<'a> {
    /// Iterations of each path loop (position → count), the loops outside the window
    /// at their first iteration (count 1).
    pub counts: &'a [i64],
    /// First value and step of each path loop's variable (0 and 1 when unknown).
    pub first: &'a [i64],
    pub step: &'a [i64],
    pub line_bytes: u64,
}

/// Distinct lines `class` touches over the iterations `window` describes.
pub fn distinct_lines(class: &Class, window: &Window) -> f64 {
    let offsets: Vec<&Vec<i64>> = class.offsets.iter().collect();
    if class.irregular || offsets.is_empty() || offsets.len() > 64 {
        return irregular_lines(class, window);
    }
    let dims = class.coefficients.len();
    // Progression of each dimension for each offset vector.
    let aps: Vec<Vec<Progression>> = offsets
        .iter()
        .map(|o| {
            (0..dims)
                .map(|d| progression(class, window, d, o[d] - class.lowers[d]))
                .collect()
        })
        .collect();
    progression_lines(class, &aps, window.line_bytes as i64, true)
}

/// The lines of the offsets' progressions `aps` of `class` (one per offset vector and
/// dimension); past the column budget, a sample of the columns when `may_sample`.
fn progression_lines(class: &Class, aps: &[Vec<Progression>], line: i64, may_sample: bool) -> f64 {
    let dims = class.coefficients.len();
    let e = class.elem as i64;
    let offsets = aps.len();
    if array_bytes(class).is_none() {
        // Byte addresses past i64: the columns are counted apart, with the lines of a
        // column averaged over the alignments (only a column's size modulo the line
        // matters there).
        let column_phase = class.extents[0].map_or(0, |x| (x.rem_euclid(line) * e) % line);
        return estimate_without_overlap(aps, column_phase, e, line);
    }
    let column_bytes = class.extents[0].map_or(0, |x| x * e);
    // Stride of the column index in each dimension >= 2.
    let mut col_unit = Vec::with_capacity(dims);
    let mut unit = 1i64;
    for d in 1..dims {
        col_unit.push(unit);
        unit = unit.saturating_mul(class.extents[d].unwrap_or(0));
    }
    // Each dimension has at least as many positions as its longest progression (strides
    // are positive): past the budget, no list of positions is built.
    let at_least = (1..dims)
        .map(|d| {
            aps.iter()
                .map(|ap| ap[d].count.max(1) as u64)
                .max()
                .unwrap_or(1)
        })
        .fold(1u64, u64::saturating_mul);
    if at_least.saturating_mul(offsets as u64) > COLUMN_BUDGET {
        return over_budget(class, aps, column_bytes, line, may_sample);
    }
    let mut lists: Vec<Vec<i64>> = Vec::with_capacity(dims.saturating_sub(1));
    let mut columns: u64 = 1;
    for d in 1..dims {
        let ps: Vec<Progression> = aps.iter().map(|ap| ap[d]).collect();
        let list = positions(&ps);
        columns = columns.saturating_mul(list.len() as u64);
        lists.push(list);
    }
    if columns.saturating_mul(offsets as u64) > COLUMN_BUDGET {
        return over_budget(class, aps, column_bytes, line, may_sample);
    }
    let mut walk = Walk {
        aps,
        column_bytes,
        e,
        line,
        memo: FxHashMap::default(),
        total: 0,
        previous_last: None,
    };
    // Dimension 2 (the fastest-varying column index) in runs over which the covering
    // offsets do not change, once for each choice of the dimensions 3..D (an odometer
    // in memory order).
    let first_dim: &[i64] = lists.first().map_or(&[0], Vec::as_slice);
    let breaks = uniform(
        &aps.iter()
            .filter_map(|ap| ap.get(1).copied())
            .collect::<Vec<_>>(),
    )
    .then(|| breakpoints(aps));
    let mut tuple = vec![0i64; dims.saturating_sub(1)];
    let mut index = vec![0usize; lists.len()];
    loop {
        for (d, list) in lists.iter().enumerate().skip(1) {
            tuple[d] = list[index[d]];
        }
        let outer: i64 = tuple
            .iter()
            .zip(&col_unit)
            .skip(1)
            .map(|(x, u)| x.saturating_mul(*u))
            .fold(0, i64::saturating_add);
        let mut k = 0;
        while k < first_dim.len() {
            costline_symbolic::interrupt::point();
            let v = first_dim[k];
            if let Some(t) = tuple.first_mut() {
                *t = v;
            }
            let mask = walk.mask(&tuple);
            // The run: the following positions before the next break, one stride apart.
            let end = match &breaks {
                Some((stride, points)) => {
                    let next = points.partition_point(|&b| b <= v);
                    let limit = points.get(next).copied().unwrap_or(i64::MAX);
                    let end = k + first_dim[k..].partition_point(|&x| x < limit);
                    let mut run = k + 1;
                    while run < end && first_dim[run] - first_dim[run - 1] == *stride {
                        run += 1;
                    }
                    run
                }
                None => k + 1,
            };
            let stride = breaks.as_ref().map_or(1, |(s, _)| *s);
            if mask != 0 {
                walk.run(v.saturating_add(outer), stride, (end - k) as i64, mask);
            }
            k = end;
        }
        // Next choice of dimensions 3..D.
        let mut d = 1;
        loop {
            if d >= lists.len() {
                return walk.total as f64;
            }
            index[d] += 1;
            if index[d] < lists[d].len() {
                break;
            }
            index[d] = 0;
            d += 1;
        }
    }
}

/// The bytes of the array `class` accesses (its known extents times the element size),
/// None when that leaves i64.
fn array_bytes(class: &Class) -> Option<i64> {
    class
        .extents
        .iter()
        .flatten()
        .try_fold(class.elem as i64, |bytes, &x| bytes.checked_mul(x.max(1)))
}

/// The sorted distinct positions of progressions (merged as intervals when they share
/// a stride and a residue, else one by one; at most [`COLUMN_BUDGET`] + 1 of them).
fn positions(ps: &[Progression]) -> Vec<i64> {
    let cap = COLUMN_BUDGET as i64 + 1;
    if uniform(ps) {
        let mut sorted = ps.to_vec();
        sorted.sort_unstable();
        let mut out: Vec<i64> = Vec::new();
        for p in sorted {
            let from = match out.last() {
                Some(&x) if x >= p.start => (x - p.start) / p.stride + 1,
                _ => 0,
            };
            for t in from..p.count {
                costline_symbolic::interrupt::point();
                if out.len() as i64 >= cap {
                    return out;
                }
                out.push(p.start + p.stride * t);
            }
        }
        return out;
    }
    let mut set = BTreeSet::new();
    for p in ps {
        if set.len() as i64 > COLUMN_BUDGET as i64 {
            break;
        }
        for t in 0..p.count.min(cap) {
            costline_symbolic::interrupt::point();
            set.insert(p.start + p.stride * t);
        }
    }
    set.into_iter().collect()
}

/// Whether the progressions share one stride and one residue modulo it.
fn uniform(ps: &[Progression]) -> bool {
    ps.first().is_some_and(|f| {
        ps.iter()
            .all(|p| p.stride == f.stride && (p.start - f.start).rem_euclid(f.stride) == 0)
    })
}

/// The shared stride of dimension 2's progressions and the positions where an offset's
/// columns begin or end (where the covering offsets may change).
fn breakpoints(aps: &[Vec<Progression>]) -> (i64, Vec<i64>) {
    let stride = aps[0][1].stride;
    let mut points: Vec<i64> = aps
        .iter()
        .flat_map(|ap| [ap[1].start, ap[1].last().saturating_add(stride)])
        .collect();
    points.sort_unstable();
    points.dedup();
    (stride, points)
}

/// The columns of a class visited in memory order: lines per (covering offsets,
/// alignment) pair counted once, a line shared by the end of one column and the start
/// of the next counted once.
struct Walk<'a> {
    /// Progression of each dimension for each offset vector.
    aps: &'a [Vec<Progression>],
    column_bytes: i64,
    e: i64,
    line: i64,
    memo: FxHashMap<(u64, i64), Span>,
    total: i64,
    previous_last: Option<i64>,
}

impl Walk<'_> {
    /// The offsets whose columns include the one at `tuple` (dimensions 2..D), as bits.
    fn mask(&self, tuple: &[i64]) -> u64 {
        let mut mask = 0u64;
        for (k, ap) in self.aps.iter().enumerate() {
            if ap[1..].iter().zip(tuple).all(|(p, x)| p.contains(*x)) {
                mask |= 1 << k;
            }
        }
        mask
    }

    /// The lines of a column whose first byte is `phase` bytes into a line, covered by
    /// the offsets `mask` (memoized: columns repeat their alignments).
    fn span(&mut self, mask: u64, phase: i64) -> Span {
        let (aps, e, line) = (self.aps, self.e, self.line);
        *self.memo.entry((mask, phase)).or_insert_with(|| {
            let firsts: Vec<Progression> = aps
                .iter()
                .enumerate()
                .filter(|(k, _)| mask & (1 << k) != 0)
                .map(|(_, ap)| ap[0])
                .collect();
            column_lines(&firsts, phase, e, line)
        })
    }

    /// The lines of the column with index `col` covered by the offsets `mask`, and the
    /// last line it touches (absolute).
    fn column(&mut self, col: i64, mask: u64) -> i64 {
        let start = col.saturating_mul(self.column_bytes);
        let phase = start.rem_euclid(self.line);
        let span = self.span(mask, phase);
        let base = start.div_euclid(self.line);
        let mut lines = span.lines;
        if self.previous_last == Some(base + span.first) {
            lines -= 1;
        }
        self.previous_last = Some(base + span.last);
        lines
    }

    /// Adds `count` columns `col`, `col + step`, ... covered by `mask`. A column's
    /// lines depend on its alignment within a line, and the line it may share with the
    /// previous one on the two alignments, so from the second column on the
    /// contributions repeat with the period T of the alignments (T·step·column bytes a
    /// multiple of the line): T + 1 columns are visited, the rest are whole periods.
    fn run(&mut self, col: i64, step: i64, count: i64, mask: u64) {
        let step_bytes = step.saturating_mul(self.column_bytes);
        let g = gcd(step_bytes.rem_euclid(self.line).into(), self.line.into());
        let period = self.line / i64::try_from(g).map_or(1, |g| g.max(1));
        let visited = count.min(period + 1);
        let mut seen: Vec<i64> = Vec::with_capacity(visited as usize);
        for k in 0..visited {
            costline_symbolic::interrupt::point();
            let lines = self.column(col.saturating_add(k.saturating_mul(step)), mask);
            self.total += lines;
            seen.push(lines);
        }
        let left = count - visited;
        if left > 0 {
            let per_period: i64 = seen[1..].iter().sum();
            let part: i64 = seen[1..=(left % period) as usize].iter().sum();
            self.total = self
                .total
                .saturating_add((left / period).saturating_mul(per_period))
                .saturating_add(part);
            let last = col.saturating_add((count - 1).saturating_mul(step));
            let start = last.saturating_mul(self.column_bytes);
            let span = self.span(mask, start.rem_euclid(self.line));
            self.previous_last = Some(start.div_euclid(self.line) + span.last);
        }
    }
}

/// The lines of one column: how many, and the first and last line (relative to the
/// line the column starts in).
#[derive(Clone, Copy, Debug)]
struct Span {
    lines: i64,
    first: i64,
    last: i64,
}

/// The positions dimension `d` takes for offset `base` (relative to its lower bound).
fn progression(class: &Class, window: &Window, d: usize, base: i64) -> Progression {
    let mut start = base;
    let mut strides = Vec::new();
    let mut span = 0i64;
    for &(j, c) in &class.coefficients[d] {
        let step = c.saturating_mul(window.step[j]);
        start = start.saturating_add(c.saturating_mul(window.first[j]));
        let n = window.counts[j].max(1);
        if step == 0 || n == 1 {
            continue;
        }
        if step < 0 {
            start = start.saturating_add(step.saturating_mul(n - 1));
        }
        strides.push(step.saturating_abs());
        span = span.saturating_add(step.saturating_abs().saturating_mul(n - 1));
    }
    // The gcd of i64 magnitudes is at most the largest of them.
    let stride = strides
        .iter()
        .fold(0, |g, &s| gcd(g, s.into()))
        .clamp(1, i64::MAX.into()) as i64;
    Progression {
        start,
        stride,
        count: span / stride + 1,
    }
}

/// Lines a column's dimension-1 progressions touch, the column starting `phase` bytes
/// into a line.
fn column_lines(aps: &[Progression], phase: i64, e: i64, line: i64) -> Span {
    // Saturating: addresses past i64 (huge extents) stay ordered, never wrap.
    let line_of = |x: i64| phase.saturating_add(x.saturating_mul(e)).div_euclid(line);
    let first = aps.iter().map(|p| line_of(p.start)).min().unwrap_or(0);
    let last = aps.iter().map(|p| line_of(p.last())).max().unwrap_or(0);
    Span {
        lines: count_lines(aps, &line_of, e, line),
        first,
        last,
    }
}

fn count_lines(aps: &[Progression], line_of: &dyn Fn(i64) -> i64, e: i64, line: i64) -> i64 {
    let stride_bytes = aps[0].stride.saturating_mul(e);
    if aps.iter().all(|p| p.count == 1) || stride_bytes > line {
        // Separate elements: each line they fall in.
        let elements: i64 = aps.iter().map(|p| p.count).sum();
        if elements <= 4096 {
            let mut set = BTreeSet::new();
            for p in aps {
                for t in 0..p.count {
                    set.insert(line_of(p.start.saturating_add(p.stride.saturating_mul(t))));
                }
            }
            return set.len() as i64;
        }
        // Long progressions of distinct lines: merge those in the same residue class
        // (shifted copies), count the rest apart.
        let mut by_residue: HashMap<i64, (i64, i64)> = HashMap::new();
        for p in aps {
            let r = p.start.rem_euclid(p.stride);
            let entry = by_residue.entry(r).or_insert((p.start, p.last()));
            entry.0 = entry.0.min(p.start);
            entry.1 = entry.1.max(p.last());
        }
        let residues: BTreeSet<i64> = by_residue.keys().map(|r| line_of(*r)).collect();
        let longest = by_residue
            .values()
            .map(|(a, b)| b.saturating_sub(*a) / aps[0].stride + 1)
            .max()
            .unwrap_or(0);
        return longest.saturating_mul(residues.len() as i64);
    }
    // Dense enough to touch every line between the first and the last element.
    let mut intervals: Vec<(i64, i64)> = aps
        .iter()
        .map(|p| (line_of(p.start), line_of(p.last())))
        .collect();
    intervals.sort_unstable();
    let mut total = 0;
    let mut current: Option<(i64, i64)> = None;
    for (a, b) in intervals {
        match current {
            Some((ca, cb)) if a <= cb.saturating_add(1) => current = Some((ca, cb.max(b))),
            Some((ca, cb)) => {
                total = cb
                    .saturating_sub(ca)
                    .saturating_add(1)
                    .saturating_add(total);
                current = Some((a, b));
            }
            None => current = Some((a, b)),
        }
    }
    if let Some((a, b)) = current {
        total = b.saturating_sub(a).saturating_add(1).saturating_add(total);
    }
    total
}

/// Too many columns to visit: the lines of a sample of them (see [`sampled_lines`]) when
/// `may_sample`, else [`estimate_without_overlap`].
fn over_budget(
    class: &Class,
    aps: &[Vec<Progression>],
    column_bytes: i64,
    line: i64,
    may_sample: bool,
) -> f64 {
    let e = class.elem as i64;
    if may_sample && let Some(lines) = sampled_lines(class, aps, line) {
        return lines;
    }
    estimate_without_overlap(aps, column_bytes, e, line)
}

/// The lines of the first positions of the column dimension (2..D) with the most
/// positions, scaled by the share kept: every offset's progression in that dimension is
/// cut to the same share of its count, so the overlap of neighbouring columns and of
/// the offsets' columns is counted as it is and only the sample's far edge is
/// approximate. The share is the largest of 1/2, 1/4, ... whose columns fit the
/// budget; `None` when that leaves fewer than [`SAMPLE_POSITIONS`] positions.
fn sampled_lines(class: &Class, aps: &[Vec<Progression>], line: i64) -> Option<f64> {
    let dims = aps.first()?.len();
    let longest = |d: usize| aps.iter().map(|ap| ap[d].count.max(1)).max().unwrap_or(1);
    let (d, most) = (1..dims).map(|d| (d, longest(d))).max_by_key(|&(_, n)| n)?;
    let cut_to = |keep: i64| -> Vec<Vec<Progression>> {
        aps.iter()
            .map(|ap| {
                let mut ap = ap.clone();
                let p = &mut ap[d];
                p.count = ((p.count as i128 * keep as i128 + most as i128 - 1) / most as i128)
                    .max(1) as i64;
                ap
            })
            .collect()
    };
    // The sample's columns (the union of the offsets' positions in each dimension) and
    // offsets within the budget: halve the share until they are.
    let mut keep = most / 2;
    loop {
        if keep < SAMPLE_POSITIONS {
            return None;
        }
        let cut = cut_to(keep);
        let columns = (1..dims)
            .map(|k| positions(&cut.iter().map(|ap| ap[k]).collect::<Vec<_>>()).len() as u64)
            .fold(cut.len() as u64, u64::saturating_mul);
        if columns <= COLUMN_BUDGET {
            return Some(progression_lines(class, &cut, line, false) * most as f64 / keep as f64);
        }
        keep /= 2;
    }
}

/// Too many columns to visit: each offset's columns counted apart, with the lines of
/// a column averaged over the alignments columns take.
fn estimate_without_overlap(aps: &[Vec<Progression>], column_bytes: i64, e: i64, line: i64) -> f64 {
    let phases: Vec<i64> = if column_bytes % line == 0 {
        vec![0]
    } else {
        (0..line / e).map(|k| k * e).collect()
    };
    let mut total = 0.0;
    let mut seen: BTreeSet<Vec<Progression>> = BTreeSet::new();
    for ap in aps {
        let columns: f64 = ap[1..].iter().map(|p| p.count as f64).product();
        if !seen.insert(ap[1..].to_vec()) {
            // Offsets with the same columns are counted together, with the first.
            continue;
        }
        let firsts: Vec<Progression> = aps
            .iter()
            .filter(|other| other[1..] == ap[1..])
            .map(|other| other[0])
            .collect();
        let mean = phases
            .iter()
            .map(|&ph| column_lines(&firsts, ph, e, line).lines as f64)
            .sum::<f64>()
            / phases.len() as f64;
        total += columns * mean;
    }
    total
}

/// A class whose subscripts are not affine: every access on a line of its own, at most
/// all the lines of the array.
fn irregular_lines(class: &Class, window: &Window) -> f64 {
    let accesses: f64 = class.offsets.len().max(1) as f64
        * window
            .counts
            .iter()
            .map(|&n| n.max(1) as f64)
            .product::<f64>();
    let array_lines = class
        .extents
        .iter()
        .map(|x| x.map(|x| x as f64))
        .product::<Option<f64>>()
        .map(|elements| (elements * class.elem as f64 / window.line_bytes as f64).ceil());
    match array_lines {
        Some(l) => accesses.min(l.max(1.0)),
        None => accesses,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A box nest over a 2-D or 3-D array: loop k runs through dimension k (stride
    /// `steps[k]`, dimension 2's up to 3), a few offset vectors, every subscript inside
    /// its extent, extents of any size so that columns take every alignment within a
    /// line and runs of columns span several alignment periods.
    fn class_and_window() -> impl Strategy<Value = (Class, Vec<i64>, Vec<i64>, Vec<i64>)> {
        (2usize..4, 1i64..4, prop::sample::select(vec![4u64, 8]))
            .prop_flat_map(|(dims, step2, elem)| {
                (
                    prop::collection::vec(0i64..40, dims),
                    prop::collection::vec(1i64..40, dims),
                    prop::collection::btree_set(prop::collection::vec(-3i64..4, dims), 1..5),
                    Just((dims, step2, elem)),
                )
            })
            .prop_map(|(spare, counts, offsets, (dims, step2, elem))| {
                let steps: Vec<i64> = (0..dims).map(|d| if d == 1 { step2 } else { 1 }).collect();
                // First iteration at 5 (offsets from -3), lower bounds 1: the last subscript
                // is 4 + steps·(counts - 1) + 3 past the lower bound.
                let extents: Vec<i64> = (0..dims)
                    .map(|d| 8 + steps[d] * (counts[d] - 1) + spare[d])
                    .collect();
                let class = Class {
                    array: "a".into(),
                    elem,
                    extents: extents.iter().map(|&x| Some(x)).collect(),
                    lowers: vec![1; dims],
                    path: (0..dims).collect(),
                    coefficients: (0..dims).map(|d| vec![(d, 1)]).collect(),
                    offsets,
                    irregular: false,
                    read: true,
                    written: false,
                    refs: Vec::new(),
                    stmts: BTreeSet::new(),
                };
                (class, counts, vec![5; dims], steps)
            })
    }

    /// Every line the accesses touch, from their byte addresses.
    fn brute_force(
        class: &Class,
        counts: &[i64],
        first: &[i64],
        steps: &[i64],
        line: i64,
    ) -> usize {
        let e = class.elem as i64;
        let mut lines = BTreeSet::new();
        let dims = counts.len();
        let mut it = vec![0i64; dims];
        loop {
            for o in &class.offsets {
                let mut address = 0i64;
                for d in (0..dims).rev() {
                    let x = first[d] + steps[d] * it[d] + o[d] - class.lowers[d];
                    address = address * class.extents[d].unwrap() + x;
                }
                lines.insert((address * e).div_euclid(line));
            }
            let mut d = 0;
            loop {
                if d == dims {
                    return lines.len();
                }
                it[d] += 1;
                if it[d] < counts[d] {
                    break;
                }
                it[d] = 0;
                d += 1;
            }
        }
    }

    /// Livermore loop 8's `u1(kx±1, ky±1, nl)` over `u1(5, n + 1, 2)` at n = 400,000: more
    /// columns than the budget, each shorter than a line and shared with its
    /// neighbours. The sample counts within 0.1 % of the address trace (the columns
    /// counted apart gave 3×).
    #[test]
    fn columns_past_the_budget_are_counted_on_a_sample() {
        let n = 400_000;
        let class = Class {
            array: "u1".into(),
            elem: 8,
            extents: vec![Some(5), Some(n + 1), Some(2)],
            lowers: vec![1; 3],
            path: vec![0, 1],
            coefficients: vec![vec![(0, 1)], vec![(1, 1)], vec![]],
            offsets: [
                [0, 1, 1],
                [0, -1, 1],
                [0, 0, 1],
                [1, 0, 1],
                [-1, 0, 1],
                [0, 0, 2],
            ]
            .iter()
            .map(|o| o.to_vec())
            .collect(),
            irregular: false,
            read: true,
            written: true,
            refs: Vec::new(),
            stmts: BTreeSet::new(),
        };
        let (counts, first, steps) = ([2, n - 1], [2, 2], [1, 1]);
        let window = Window {
            counts: &counts,
            first: &first,
            step: &steps,
            line_bytes: 64,
        };
        let mut trace = std::collections::HashSet::new();
        for kx in 0..2 {
            for ky in 0..n - 1 {
                for o in &class.offsets {
                    let x = [first[0] + kx + o[0] - 1, first[1] + ky + o[1] - 1, o[2] - 1];
                    trace.insert((x[0] + 5 * (x[1] + (n + 1) * x[2])) * 8 / 64);
                }
            }
        }
        let engine = distinct_lines(&class, &window);
        let exact = trace.len() as f64;
        assert!((engine / exact - 1.0).abs() < 1e-3, "{engine} vs {exact}");
    }

    proptest! {
        /// Columns summed by runs and alignment periods give the lines of the address
        /// trace itself.
        #[test]
        fn distinct_lines_equal_the_address_trace((class, counts, first, steps) in class_and_window()) {
            let window = Window { counts: &counts, first: &first, step: &steps, line_bytes: 64 };
            let engine = distinct_lines(&class, &window);
            prop_assert_eq!(engine as usize, brute_force(&class, &counts, &first, &steps, 64));
        }
    }
}
