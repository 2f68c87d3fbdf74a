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
use std::collections::{BTreeSet, HashMap};

/// Column-offset pairs examined before the count switches to an estimate that ignores
/// the overlap of offsets between columns.
const COLUMN_BUDGET: u64 = 1 << 21;

/// An arithmetic progression of positions: start, stride > 0, count ≥ 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Progression {
    start: i64,
    stride: i64,
    count: i64,
}

impl Progression {
    fn last(&self) -> i64 {
        self.start + self.stride * (self.count - 1)
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
    let line = window.line_bytes as i64;
    let e = class.elem as i64;
    let column_bytes = class.extents[0].map_or(0, |x| x * e);
    // Stride of the column index in each dimension >= 2.
    let mut col_unit = Vec::with_capacity(dims);
    let mut unit = 1i64;
    for d in 1..dims {
        col_unit.push(unit);
        unit = unit.saturating_mul(class.extents[d].unwrap_or(0));
    }
    let mut values: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); dims.saturating_sub(1)];
    let mut columns: u64 = 1;
    for d in 1..dims {
        let set = &mut values[d - 1];
        for ap in &aps {
            let p = ap[d];
            if set.len() as u64 > COLUMN_BUDGET {
                break;
            }
            for t in 0..p.count.min(COLUMN_BUDGET as i64 + 1) {
                set.insert(p.start + p.stride * t);
            }
        }
        columns = columns.saturating_mul(set.len() as u64);
    }
    if columns.saturating_mul(offsets.len() as u64) > COLUMN_BUDGET {
        return estimate_without_overlap(&aps, column_bytes, e, line);
    }
    // Lines per (covering offsets, alignment) pair, counted once; columns are visited
    // in memory order, so a line shared by the end of one column and the start of the
    // next is counted once.
    let mut memo: HashMap<(u64, i64), Span> = HashMap::new();
    let mut total: i64 = 0;
    let mut previous_last: Option<i64> = None;
    let mut tuple = vec![0i64; dims.saturating_sub(1)];
    let lists: Vec<Vec<i64>> = values.iter().map(|s| s.iter().copied().collect()).collect();
    let mut index = vec![0usize; lists.len()];
    loop {
        for (d, list) in lists.iter().enumerate() {
            tuple[d] = list[index[d]];
        }
        let mut mask = 0u64;
        for (k, ap) in aps.iter().enumerate() {
            if (1..dims).all(|d| ap[d].contains(tuple[d - 1])) {
                mask |= 1 << k;
            }
        }
        if mask != 0 {
            let col: i64 = tuple
                .iter()
                .zip(&col_unit)
                .map(|(x, u)| x.saturating_mul(*u))
                .fold(0, i64::saturating_add);
            let start = col.saturating_mul(column_bytes);
            let phase = start.rem_euclid(line);
            let span = *memo.entry((mask, phase)).or_insert_with(|| {
                let firsts: Vec<Progression> = aps
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| mask & (1 << k) != 0)
                    .map(|(_, ap)| ap[0])
                    .collect();
                column_lines(&firsts, phase, e, line)
            });
            let base = start.div_euclid(line);
            total += span.lines;
            if previous_last == Some(base + span.first) {
                total -= 1;
            }
            previous_last = Some(base + span.last);
        }
        // Next tuple (odometer, dimension 2 fastest: memory order).
        let mut d = 0;
        loop {
            if d == lists.len() {
                return total as f64;
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
        strides.push(step.abs());
        span = span.saturating_add(step.abs().saturating_mul(n - 1));
    }
    let stride = strides.iter().copied().fold(0, gcd).max(1);
    Progression {
        start,
        stride,
        count: span / stride + 1,
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Lines a column's dimension-1 progressions touch, the column starting `phase` bytes
/// into a line.
fn column_lines(aps: &[Progression], phase: i64, e: i64, line: i64) -> Span {
    let line_of = |x: i64| (phase + x * e).div_euclid(line);
    let first = aps.iter().map(|p| line_of(p.start)).min().unwrap_or(0);
    let last = aps.iter().map(|p| line_of(p.last())).max().unwrap_or(0);
    Span {
        lines: count_lines(aps, &line_of, e, line),
        first,
        last,
    }
}

fn count_lines(aps: &[Progression], line_of: &dyn Fn(i64) -> i64, e: i64, line: i64) -> i64 {
    let stride_bytes = aps[0].stride * e;
    if aps.iter().all(|p| p.count == 1) || stride_bytes > line {
        // Separate elements: each line they fall in.
        let elements: i64 = aps.iter().map(|p| p.count).sum();
        if elements <= 4096 {
            let mut set = BTreeSet::new();
            for p in aps {
                for t in 0..p.count {
                    set.insert(line_of(p.start + p.stride * t));
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
            .map(|(a, b)| (b - a) / aps[0].stride + 1)
            .max()
            .unwrap_or(0);
        return longest * residues.len() as i64;
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
            Some((ca, cb)) if a <= cb + 1 => current = Some((ca, cb.max(b))),
            Some((ca, cb)) => {
                total += cb - ca + 1;
                current = Some((a, b));
            }
            None => current = Some((a, b)),
        }
    }
    if let Some((a, b)) = current {
        total += b - a + 1;
    }
    total
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
