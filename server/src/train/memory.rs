//! The memory hierarchy from memory.f90's measurements: level capacities (from sysfs,
//! or from the jumps of the pointer-chase latency curve), the latency of each level,
//! the cache line size and the triad bandwidth of each level and of main memory.

/// A cache level as the rest of the training sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// `L1`, `L2`, ...
    pub name: String,
    /// The whole cache, as one process running alone sees it.
    pub total_bytes: u64,
    /// The share of one core: total / the cores sharing it.
    pub per_core_bytes: u64,
    pub associativity: Option<u32>,
}

/// Parses `TAG X Y ...` lines of memory.f90 into (X, Y) pairs, for TAG = `chase`,
/// `stride`, `triad` or `pages`.
pub fn parse(output: &str, tag: &str) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = output
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() < 3 || f[0] != tag {
                return None;
            }
            let x: f64 = f[1].parse().ok()?;
            let y: f64 = f[2].parse().ok()?;
            (x.is_finite() && y.is_finite() && y > 0.0).then_some((x, y))
        })
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// The page of the machines costline trains on (x86-64 and most Linux systems).
pub const PAGE_BYTES: u64 = 4096;

/// The TLB from the page gather (`pages`: elements a page and a line apart, by count)
/// and the line gather (`lines`: the same count of lines in a few pages): what an
/// access costs more over P pages is walk · f(P), with f the share of accesses that
/// miss a TLB of C entries (`machine::tlb_miss_share`); C among the
/// counts measured and the walk by least squares, the pair that fits best. None when
/// the largest count costs no more than a tenth of the line gather more (nothing to
/// see).
pub fn tlb_from(pages: &[(f64, f64)], lines: &[(f64, f64)]) -> Option<(u64, f64)> {
    let extra: Vec<(f64, f64)> = pages
        .iter()
        .filter_map(|(n, t)| {
            let l = lines.iter().find(|(m, _)| m == n)?.1;
            Some((*n, t - l))
        })
        .collect();
    let &(largest, most) = extra.last()?;
    let line = lines.iter().find(|(m, _)| *m == largest)?.1;
    if most <= 0.1 * line {
        return None;
    }
    extra
        .iter()
        .filter_map(|&(entries, _)| {
            let share = |p: f64| costline_ide::machine::tlb_miss_share(p, entries);
            let (num, den) = extra.iter().fold((0.0, 0.0), |(a, b), &(p, e)| {
                (a + e * share(p), b + share(p) * share(p))
            });
            (den > 0.0).then(|| {
                let walk = num / den;
                let err: f64 = extra
                    .iter()
                    .map(|&(p, e)| (e - walk * share(p)).powi(2))
                    .sum();
                (entries as u64, walk, err)
            })
        })
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(entries, walk, _)| (entries, walk))
}

/// The working sets of the pointer chase: powers of two from 4 KiB to `max_bytes`,
/// with the midpoints 1.5·2ᵏ when `midpoints`.
pub fn chase_sizes(max_bytes: u64, midpoints: bool) -> Vec<u64> {
    let mut out = Vec::new();
    let mut s: u64 = 4096;
    while s <= max_bytes {
        out.push(s);
        if midpoints && s + s / 2 < max_bytes {
            out.push(s + s / 2);
        }
        s *= 2;
    }
    out
}

/// Cache levels from the latency curve alone: walking up the working sets, a level
/// ends where the latency exceeds `JUMP` times the lowest latency of the current
/// plateau; its capacity is the largest working set still on the plateau (a lower
/// estimate: the true capacity lies before the next measured size). At most three
/// caches; what lies beyond them is memory. Returns (capacity, plateau median latency)
/// per cache level.
pub fn detect_levels(chase: &[(f64, f64)]) -> Vec<(u64, f64)> {
    const JUMP: f64 = 2.0;
    let mut levels = Vec::new();
    let mut plateau: Vec<(f64, f64)> = Vec::new();
    for &(size, lat) in chase {
        let floor = plateau.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        if !plateau.is_empty() && lat > JUMP * floor {
            let last = plateau.last().map_or(0.0, |p| p.0);
            levels.push((last as u64, median(plateau.iter().map(|p| p.1).collect())));
            plateau.clear();
            if levels.len() == 3 {
                break;
            }
        }
        plateau.push((size, lat));
    }
    levels
}

/// The latency of a level whose capacity per core is `per_core` and whose inner
/// neighbour holds `inner_total` bytes: the lowest chase latency at working sets in
/// [2·inner_total, per_core/2] (big enough to miss the inner level mostly, small
/// enough to fit this one; the lowest, because a cache shared with busy neighbours
/// holds less than its size and other work only ever adds time); without any there,
/// the measurement nearest the geometric mean of those bounds.
pub fn level_latency(chase: &[(f64, f64)], inner_total: u64, per_core: u64) -> Option<f64> {
    let lo = 2.0 * inner_total as f64;
    let hi = per_core as f64 / 2.0;
    let inside: Vec<f64> = chase
        .iter()
        .filter(|(s, _)| *s >= lo && *s <= hi)
        .map(|p| p.1)
        .collect();
    if let Some(lowest) = inside.into_iter().reduce(f64::min) {
        return Some(lowest);
    }
    let target = (lo.max(1.0) * hi.max(1.0)).sqrt().ln();
    chase
        .iter()
        .min_by(|a, b| {
            (a.0.ln() - target)
                .abs()
                .total_cmp(&(b.0.ln() - target).abs())
        })
        .map(|p| p.1)
}

/// Main-memory latency: the median of the chase latencies at working sets of at least
/// twice the last cache (the largest measurement when none is that large).
pub fn memory_latency(chase: &[(f64, f64)], last_total: u64) -> Option<f64> {
    let big: Vec<f64> = chase
        .iter()
        .filter(|(s, _)| *s >= 2.0 * last_total as f64)
        .map(|p| p.1)
        .collect();
    if big.is_empty() {
        chase.last().map(|p| p.1)
    } else {
        Some(median(big))
    }
}

/// The cache line size suggested by a stride sweep (stride in bytes, seconds per
/// access): the time per access doubles with the stride while several accesses share
/// a line, and stops growing at the line size. Returns the first stride s whose next
/// stride s' costs less than 1.5 × as much per access.
pub fn line_from_strides(points: &[(f64, f64)]) -> Option<u64> {
    points
        .windows(2)
        .find(|w| w[1].1 < 1.5 * w[0].1)
        .map(|w| w[0].0 as u64)
}

/// The working set of the bandwidth measurement for a level: half its per-core share.
pub fn bandwidth_size(level: &Level) -> u64 {
    (level.per_core_bytes / 2).max(4096)
}

/// The median (0 for none).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// `bytes` for people: 32 KiB, 1 MiB, 1.5 MiB.
pub fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if (v - v.round()).abs() < 1e-9 {
        format!("{} {}", v.round(), UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A latency curve shaped like the EPYC VM's: L1 32 KiB, L2 1 MiB, L3 8 MiB.
    fn curve() -> Vec<(f64, f64)> {
        chase_sizes(256 << 20, false)
            .into_iter()
            .map(|s| {
                let lat = if s <= 32 << 10 {
                    1.3e-9
                } else if s <= 1 << 20 {
                    4.1e-9
                } else if s <= 8 << 20 {
                    2.0e-8
                } else {
                    2.2e-7
                };
                (s as f64, lat)
            })
            .collect()
    }

    #[test]
    fn jumps_give_the_levels() {
        let l = detect_levels(&curve());
        let caps: Vec<u64> = l.iter().map(|x| x.0).collect();
        assert_eq!(caps, vec![32 << 10, 1 << 20, 8 << 20]);
        assert_eq!(l[1].1, 4.1e-9);
    }

    #[test]
    fn latencies_per_level_and_memory() {
        let c = curve();
        assert_eq!(level_latency(&c, 0, 32 << 10), Some(1.3e-9));
        assert_eq!(level_latency(&c, 32 << 10, 1 << 20), Some(4.1e-9));
        assert_eq!(level_latency(&c, 1 << 20, 16 << 20), Some(2.0e-8));
        assert_eq!(memory_latency(&c, 32 << 20), Some(2.2e-7));
    }

    #[test]
    fn the_stride_knee_is_the_line() {
        let pts = [
            (8.0, 0.3),
            (16.0, 0.6),
            (32.0, 1.2),
            (64.0, 2.4),
            (128.0, 2.6),
            (256.0, 2.7),
        ];
        assert_eq!(line_from_strides(&pts), Some(64));
    }

    #[test]
    fn the_tlb_is_where_an_access_per_page_gets_slower() {
        let lines: Vec<(f64, f64)> = [256.0, 1024.0, 2048.0, 4096.0, 8192.0]
            .iter()
            .map(|n| (*n, 6e-10))
            .collect();
        // 5 ns per walk, 2048 entries: 1 - (2048/P)² of the accesses miss.
        let mut pages = lines.clone();
        for p in &mut pages {
            p.1 += 5e-9 * (1.0 - (2048.0 / p.0).powi(2)).max(0.0);
        }
        let (entries, walk) = tlb_from(&pages, &lines).unwrap();
        assert_eq!(entries, 2048);
        assert!((walk - 5e-9).abs() < 1e-15, "{walk}");
        // No jump: no TLB to speak of.
        assert_eq!(tlb_from(&lines, &lines), None);
    }

    #[test]
    fn sizes_and_parsing() {
        assert_eq!(
            chase_sizes(16384, true),
            vec![4096, 6144, 8192, 12288, 16384]
        );
        let p = parse(
            "chase 8192 1.3E-09 77\nchase 4096 1.2E-09 1\ntriad 4096 8E10 2\n",
            "chase",
        );
        assert_eq!(p, vec![(4096.0, 1.2e-9), (8192.0, 1.3e-9)]);
        assert_eq!(human_bytes(32768.0), "32 KiB");
        assert_eq!(human_bytes(1.5 * 1048576.0), "1.5 MiB");
    }
}
