//! Cache sets an access class can use: conflict misses of strides that are multiples of
//! a large power of two.
//!
//! A set-associative cache of `bytes`, `ways` ways and lines of L bytes has
//! S = bytes / (L · ways) sets. Physically indexed, the set of a line is decided by its
//! address bits: within a page (P bytes) the virtual bits equal the physical ones, above
//! it the operating system's page frames decide (at random, as the model takes them). So
//! the lines whose addresses agree modulo N · L, N = min(S, P / L), compete for the same
//! N-th of the cache: a *slot* with room for capacity / N lines (the `ways` of a set
//! when S ≤ P / L; `ways` times the S · L / P page colours otherwise). A column walk
//! `c(j,i)` with a 4 KiB stride puts every line in one slot: 256 lines of a 1 MiB cache
//! of 4 KiB pages, however small the footprint is next to the capacity.
//!
//! A class's slots come from its byte addresses modulo N · L over the window's
//! iterations (the array taken to start on a page, as `mmap` places large arrays):
//! the offsets of its references, then each loop's stride added `count` times, a set of
//! residues doubled up as in binary exponentiation. The arrays' starting addresses
//! relative to each other are unknown, so a class is only checked against itself; the
//! other classes' lines are taken to spread evenly over the slots.

use super::lines::Window;
use super::nest::Class;
use costline_symbolic::gcd;

/// How a cache level's sets limit what fits: lines whose addresses agree modulo `count`
/// lines share `room` lines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slots {
    pub count: u64,
    pub room: f64,
}

impl Slots {
    /// The slots of a level of `bytes` and `ways` ways with `line`-byte lines, indexed
    /// physically with `page`-byte pages: N = min(bytes / (line · ways), page / line),
    /// each with room for bytes / line / N lines. `None` when the level has no sets to
    /// speak of (fully associative, `ways` unknown, or a geometry the residues cannot
    /// follow: N · line not a multiple of 64 bits).
    pub fn of_level(bytes: u64, ways: Option<u32>, line: u64, page: u64) -> Option<Slots> {
        let ways = u64::from(ways?);
        if ways == 0 || line == 0 || page < line {
            return None;
        }
        let sets = bytes / line / ways;
        let count = sets.min(page / line);
        if count < 2 || !(count * line).is_multiple_of(64) {
            return None;
        }
        Some(Slots {
            count,
            room: (bytes / line) as f64 / count as f64,
        })
    }
}

/// A set of residues modulo a multiple of 64, one bit each.
#[derive(Clone, Debug, PartialEq)]
struct Residues {
    words: Vec<u64>,
}

impl Residues {
    fn single(modulus: u64, r: u64) -> Residues {
        let mut words = vec![0u64; (modulus / 64) as usize];
        words[(r / 64) as usize] |= 1 << (r % 64);
        Residues { words }
    }

    fn modulus(&self) -> u64 {
        self.words.len() as u64 * 64
    }

    fn union(&mut self, other: &Residues) {
        self.words
            .iter_mut()
            .zip(&other.words)
            .for_each(|(a, b)| *a |= b);
    }

    /// The set with `by` added to every residue.
    fn shifted(&self, by: u64) -> Residues {
        let n = self.words.len();
        let by = by % self.modulus();
        let (q, b) = ((by / 64) as usize, by % 64);
        let mut out = vec![0u64; n];
        for (i, &w) in self.words.iter().enumerate().filter(|(_, w)| **w != 0) {
            let j = (i + q) % n;
            out[j] |= w << b;
            if b > 0 {
                out[(j + 1) % n] |= w >> (64 - b);
            }
        }
        Residues { words: out }
    }

    /// {r + t · stride : r in the set, 0 ≤ t < count}: the set after a loop of `count`
    /// iterations `stride` bytes apart (only a period of the stride matters).
    fn spread(&self, stride: i64, count: i64) -> Residues {
        let m = self.modulus();
        let stride = stride.rem_euclid(m as i64) as u64;
        if stride == 0 || count <= 1 {
            return self.clone();
        }
        let period = m / gcd(stride as i128, m as i128) as u64;
        let count = (count as u64).min(period);
        // R(k) = set + {0, ..., k − 1} · stride: R(2k) = R(k) ∪ (R(k) + k · stride),
        // R(k + 1) = R(k) ∪ (set + k · stride), over the bits of count.
        let mut acc = self.clone();
        let mut k = 1u64;
        for bit in (0..63 - count.leading_zeros()).rev() {
            let doubled = acc.shifted(k * stride % m);
            acc.union(&doubled);
            k *= 2;
            if (count >> bit) & 1 == 1 {
                acc.union(&self.shifted(k * stride % m));
                k += 1;
            }
        }
        acc
    }

    fn contains(&self, r: u64) -> bool {
        self.words[(r / 64) as usize] >> (r % 64) & 1 == 1
    }
}

/// The slots (out of `slots.count`) whose lines `class` touches over the iterations
/// `window` describes, as a mask of slot indices; `None` when its addresses are not
/// known modulo the slots' span (an irregular subscript, an unknown extent).
pub fn occupied(class: &Class, window: &Window, slots: Slots) -> Option<Vec<bool>> {
    if class.irregular || class.offsets.is_empty() {
        return None;
    }
    let line = window.line_bytes;
    let modulus = slots.count * line;
    let m = modulus as i64;
    let e = class.elem as i64;
    // Bytes per unit of each dimension's subscript.
    let mut units = Vec::with_capacity(class.coefficients.len());
    let mut unit = e;
    for d in 0..class.coefficients.len() {
        units.push(unit);
        if d + 1 < class.coefficients.len() {
            unit = unit.checked_mul((*class.extents.get(d)?)?)?;
        }
    }
    // Each reference's first address (the path loops at their first values).
    let mut set: Option<Residues> = None;
    for offset in &class.offsets {
        let mut at = 0i64;
        for (d, dim) in class.coefficients.iter().enumerate() {
            let mut x = offset.get(d)? - class.lowers.get(d)?;
            for &(j, c) in dim {
                x = x.checked_add(c.checked_mul(*window.first.get(j)?)?)?;
            }
            at = (at + x.rem_euclid(m) * units[d].rem_euclid(m) % m) % m;
        }
        let one = Residues::single(modulus, at as u64);
        match &mut set {
            Some(s) => s.union(&one),
            None => set = Some(one),
        }
    }
    let mut set = set?;
    for (k, &count) in window.counts.iter().enumerate() {
        let stride = class.stride_bytes(k)?.checked_mul(*window.step.get(k)?)?;
        set = set.spread(stride, count);
    }
    Some(slot_mask(&set, line, class.elem.max(1), slots.count))
}

/// The slots the elements at the residues of `set` cover (an element at residue r covers
/// the lines of bytes r … r + e − 1).
fn slot_mask(set: &Residues, line: u64, e: u64, count: u64) -> Vec<bool> {
    if line.is_multiple_of(64) && line.is_multiple_of(e) {
        // Every residue is a multiple of e (the array starts on a page and every stride
        // is a multiple of e), so an element stays within its line: a slot is touched
        // when one of its line's words of residues is not empty.
        let per = (line / 64) as usize;
        return set
            .words
            .chunks(per)
            .map(|w| w.iter().any(|&x| x != 0))
            .collect();
    }
    scanned_mask(set, line, e, count)
}

/// [`slot_mask`] residue by residue.
fn scanned_mask(set: &Residues, line: u64, e: u64, count: u64) -> Vec<bool> {
    let mut mask = vec![false; count as usize];
    for r in (0..set.modulus()).filter(|&r| set.contains(r)) {
        for s in r / line..=(r + e - 1) / line {
            mask[(s % count) as usize] = true;
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The residues by enumeration.
    fn brute(start: u64, stride: i64, count: i64, m: u64) -> Vec<bool> {
        let mut out = vec![false; m as usize];
        for t in 0..count {
            let r = (start as i64 + t * stride).rem_euclid(m as i64);
            out[r as usize] = true;
        }
        out
    }

    #[test]
    fn spread_agrees_with_enumeration() {
        for m in [64u64, 128, 4096] {
            for stride in [-8i64, 0, 1, 3, 8, 24, 40, 64, 100, 512, 4096, 4104, 6000] {
                for count in [1i64, 2, 3, 5, 7, 8, 13, 64, 100, 513, 10_000] {
                    let set = Residues::single(m, 5 % m).spread(stride, count);
                    let want = brute(5 % m, stride, count, m);
                    for r in 0..m {
                        assert_eq!(
                            set.contains(r),
                            want[r as usize],
                            "m {m} stride {stride} count {count} r {r}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn slot_mask_by_words_agrees_with_the_scan() {
        for e in [4u64, 8, 16] {
            for stride in [8i64, 24, 1000, 2048, 4096, 4104] {
                for count in [1i64, 3, 9, 40, 300] {
                    let set = Residues::single(4096, 64 + e).spread(stride * e as i64 / 8, count);
                    for slots in [16u64, 64] {
                        let set = Residues {
                            words: set.words[..(slots as usize)].to_vec(),
                        };
                        assert_eq!(
                            slot_mask(&set, 64, e, slots),
                            scanned_mask(&set, 64, e, slots),
                            "e {e} stride {stride} count {count} slots {slots}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn slots_of_this_machines_levels() {
        // 32 KiB 8-way L1 of 64 sets: 64 slots (the sets), 8 lines each.
        let l1 = Slots::of_level(32 << 10, Some(8), 64, 4096).unwrap();
        assert_eq!((l1.count, l1.room), (64, 8.0));
        // 1 MiB 8-way L2 of 2048 sets: 64 in-page positions × 32 page colours × 8 ways.
        let l2 = Slots::of_level(1 << 20, Some(8), 64, 4096).unwrap();
        assert_eq!((l2.count, l2.room), (64, 256.0));
        // A 2-way 8 KiB cache of 32-byte lines: 128 sets of 2 lines.
        let small = Slots::of_level(8 << 10, Some(2), 32, 4096).unwrap();
        assert_eq!((small.count, small.room), (128, 2.0));
        assert_eq!(Slots::of_level(1 << 20, None, 64, 4096), None);
    }
}
