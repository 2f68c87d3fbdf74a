//! Segmented least squares: a piecewise-linear t = αₖ + βₖ·b over message sizes b,
//! with breakpoints at measured sizes (eager/rendezvous protocol switches and
//! packetization change the slope and the startup; Balasundaram et al. fit each
//! continuous segment separately for the same reason).

use super::fit::{rel_sse, relative_fit};

/// One linear piece, fitted to the measurements with from_bytes ≤ b ≤ up_to_bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// The smallest measured size of the piece.
    pub from_bytes: f64,
    /// The largest measured size of the piece.
    pub up_to_bytes: f64,
    pub alpha_s: f64,
    pub beta_s_per_byte: f64,
}

/// A piecewise-linear model and how well it fits.
#[derive(Clone, Debug, PartialEq)]
pub struct Piecewise {
    pub pieces: Vec<Piece>,
    /// Root mean square relative error over all measurements.
    pub rel_rms: f64,
}

impl Piecewise {
    /// t(b) = α + β·b of the first piece with up_to_bytes ≥ b (the last piece beyond).
    pub fn at(&self, bytes: f64) -> (f64, f64) {
        let piece = self
            .pieces
            .iter()
            .find(|p| p.up_to_bytes >= bytes)
            .or(self.pieces.last());
        piece.map_or((0.0, 0.0), |p| (p.alpha_s, p.beta_s_per_byte))
    }

    /// The model's time for a message of `bytes` bytes.
    pub fn time(&self, bytes: f64) -> f64 {
        let (a, b) = self.at(bytes);
        a + b * bytes
    }
}

/// The smallest α and β a fit may return (a machine model needs positive numbers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub alpha_min_s: f64,
    pub beta_min_s_per_byte: f64,
}

/// Relative noise below which measurements are not trusted: the floor of the mean
/// squared relative error in the model choice, so that exact (synthetic) data does
/// not reward ever more segments.
const NOISE_FLOOR: f64 = 0.01;

/// One line t = α + β·b fitted by relative error to `points` (b, t):
/// min Σ((α + β·bᵢ − tᵢ)/tᵢ)² with α ≥ α_min, β ≥ β_min. Returns (α, β, that sum).
pub fn fit_line(points: &[(f64, f64)], bounds: Bounds) -> (f64, f64, f64) {
    let a: Vec<Vec<f64>> = points.iter().map(|(b, _)| vec![1.0, *b]).collect();
    let t: Vec<f64> = points.iter().map(|(_, t)| *t).collect();
    let f = relative_fit(&a, &t, &[bounds.alpha_min_s, bounds.beta_min_s_per_byte]);
    (f.x[0], f.x[1], rel_sse(&f.predicted, &t))
}

/// Fits up to `max_segments` contiguous pieces of at least `min_points` measurements
/// each to `points` (b, t), sorted here by b.
///
/// For every k ≤ max_segments, dynamic programming finds the partition minimizing the
/// total relative squared error SSEₖ = Σ over pieces of [`fit_line`]'s sum
/// (best[k][j] = minᵢ best[k−1][i−1] + cost(i, j)). The number of pieces is then chosen
/// by the Bayesian information criterion
///   BICₖ = n·ln(max(SSEₖ/n, floor²)) + (3k − 1)·ln n
/// (each piece has α, β and a breakpoint; floor = 1% relative noise).
pub fn segmented(
    points: &[(f64, f64)],
    max_segments: usize,
    min_points: usize,
    bounds: Bounds,
) -> Piecewise {
    let mut pts: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(b, t)| b.is_finite() && t.is_finite() && *t > 0.0)
        .collect();
    pts.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = pts.len();
    let min_points = min_points.max(2);
    if n == 0 {
        return Piecewise {
            pieces: Vec::new(),
            rel_rms: 0.0,
        };
    }
    if n < 2 * min_points || max_segments <= 1 {
        return single(&pts, bounds);
    }
    // cost[i][j]: the relative SSE of one line through points i..=j.
    let mut cost = vec![vec![f64::INFINITY; n]; n];
    for i in 0..n {
        for j in (i + min_points - 1)..n {
            cost[i][j] = fit_line(&pts[i..=j], bounds).2;
        }
    }
    // best[k][j]: k+1 pieces covering points 0..=j; from[k][j]: where the last starts.
    let kmax = max_segments.min(n / min_points).max(1);
    let mut best = vec![vec![f64::INFINITY; n]; kmax];
    let mut from = vec![vec![0usize; n]; kmax];
    best[0][..n].copy_from_slice(&cost[0][..n]);
    for k in 1..kmax {
        for j in 0..n {
            for i in 1..=j {
                let prev = best[k - 1][i - 1];
                let c = cost[i][j];
                if prev.is_finite() && c.is_finite() && prev + c < best[k][j] {
                    best[k][j] = prev + c;
                    from[k][j] = i;
                }
            }
        }
    }
    let nf = n as f64;
    let bic = |k: usize| {
        let sse = best[k][n - 1];
        nf * (sse / nf).max(NOISE_FLOOR * NOISE_FLOOR).ln() + (3.0 * (k + 1) as f64 - 1.0) * nf.ln()
    };
    let k = (0..kmax)
        .filter(|&k| best[k][n - 1].is_finite())
        .min_by(|&a, &b| bic(a).total_cmp(&bic(b)))
        .unwrap_or(0);
    // Walk back through the chosen partition.
    let mut bounds_idx = Vec::new();
    let mut j = n - 1;
    for level in (0..=k).rev() {
        let i = if level == 0 { 0 } else { from[level][j] };
        bounds_idx.push((i, j));
        if level > 0 {
            j = i - 1;
        }
    }
    bounds_idx.reverse();
    let pieces: Vec<Piece> = bounds_idx
        .iter()
        .map(|&(i, j)| {
            let (alpha, beta, _) = fit_line(&pts[i..=j], bounds);
            Piece {
                from_bytes: pts[i].0,
                up_to_bytes: pts[j].0,
                alpha_s: alpha,
                beta_s_per_byte: beta,
            }
        })
        .collect();
    finish(pieces, &pts)
}

/// One line through all the points.
pub fn single(points: &[(f64, f64)], bounds: Bounds) -> Piecewise {
    let (alpha, beta, _) = fit_line(points, bounds);
    let pieces = vec![Piece {
        from_bytes: points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min),
        up_to_bytes: points.iter().map(|p| p.0).fold(0.0, f64::max),
        alpha_s: alpha,
        beta_s_per_byte: beta,
    }];
    finish(pieces, points)
}

fn finish(pieces: Vec<Piece>, points: &[(f64, f64)]) -> Piecewise {
    let mut model = Piecewise {
        pieces,
        rel_rms: 0.0,
    };
    let predicted: Vec<f64> = points.iter().map(|(b, _)| model.time(*b)).collect();
    let measured: Vec<f64> = points.iter().map(|(_, t)| *t).collect();
    model.rel_rms = super::fit::rel_rms(&predicted, &measured);
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Bounds = Bounds {
        alpha_min_s: 1e-10,
        beta_min_s_per_byte: 1e-15,
    };

    /// 0, 8, 12, 16, 24, ... 4 MiB: powers of two and their midpoints, as measured.
    fn sizes() -> Vec<f64> {
        let mut s = vec![0.0];
        let mut b = 8.0;
        while b <= 4.0 * 1024.0 * 1024.0 {
            s.push(b);
            if b * 1.5 < 4.0 * 1024.0 * 1024.0 {
                s.push(b * 1.5);
            }
            b *= 2.0;
        }
        s
    }

    /// Eager up to 1 KiB, a protocol switch with a step, and a third slope from 64 KiB;
    /// ±0.5% deterministic noise.
    fn truth(b: f64) -> f64 {
        if b <= 1024.0 {
            2e-7 + 1e-10 * b
        } else if b <= 65536.0 {
            2e-6 + 2.5e-10 * b
        } else {
            5e-6 + 8e-11 * b
        }
    }

    #[test]
    fn recovers_known_breakpoints() {
        let points: Vec<(f64, f64)> = sizes()
            .iter()
            .enumerate()
            .map(|(i, b)| (*b, truth(*b) * if i % 2 == 0 { 1.005 } else { 0.995 }))
            .collect();
        let fit = segmented(&points, 4, 3, BOUNDS);
        let ups: Vec<f64> = fit.pieces.iter().map(|p| p.up_to_bytes).collect();
        assert_eq!(ups, vec![1024.0, 65536.0, 4.0 * 1024.0 * 1024.0], "{fit:?}");
        let p = &fit.pieces;
        assert!((p[0].alpha_s / 2e-7 - 1.0).abs() < 0.02, "{fit:?}");
        assert!(
            (p[1].beta_s_per_byte / 2.5e-10 - 1.0).abs() < 0.02,
            "{fit:?}"
        );
        assert!((p[2].beta_s_per_byte / 8e-11 - 1.0).abs() < 0.02, "{fit:?}");
        assert!(fit.rel_rms < 0.01, "{fit:?}");
        // One α/β is much worse on the same data.
        assert!(single(&points, BOUNDS).rel_rms > 0.2);
    }

    #[test]
    fn a_straight_line_stays_one_piece() {
        let points: Vec<(f64, f64)> = sizes()
            .iter()
            .enumerate()
            .map(|(i, b)| {
                (
                    *b,
                    (3e-7 + 4e-10 * b) * if i % 3 == 0 { 1.004 } else { 0.997 },
                )
            })
            .collect();
        let fit = segmented(&points, 4, 3, BOUNDS);
        assert_eq!(fit.pieces.len(), 1, "{fit:?}");
        assert!((fit.pieces[0].alpha_s / 3e-7 - 1.0).abs() < 0.02, "{fit:?}");
    }

    #[test]
    fn the_lookup_uses_the_first_covering_piece() {
        let m = Piecewise {
            pieces: vec![
                Piece {
                    from_bytes: 0.0,
                    up_to_bytes: 100.0,
                    alpha_s: 1.0,
                    beta_s_per_byte: 0.0,
                },
                Piece {
                    from_bytes: 200.0,
                    up_to_bytes: 300.0,
                    alpha_s: 2.0,
                    beta_s_per_byte: 1.0,
                },
            ],
            rel_rms: 0.0,
        };
        assert_eq!(m.time(100.0), 1.0);
        assert_eq!(m.time(150.0), 152.0);
        assert_eq!(m.time(1000.0), 1002.0);
    }
}
