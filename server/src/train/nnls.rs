//! Non-negative least squares (Lawson and Hanson, *Solving Least Squares Problems*,
//! 1974, chapter 23): the solver every fit of `costline train` uses, because costs
//! cannot be negative.

/// A dense matrix stored by rows.
pub type Rows = [Vec<f64>];

/// Solves min ‖A·x − b‖₂ subject to x ≥ 0 (Lawson–Hanson active set).
///
/// Each column is first scaled to unit length (x ≥ 0 is invariant under positive
/// column scaling), so unknowns of very different magnitudes are treated alike. The
/// outer loop moves the column with the largest gradient wᵢ = (Aᵀ(b − A·x))ᵢ > 0 into
/// the passive set P; the inner loop solves the unconstrained problem on P and, while
/// that solution has a non-positive component, steps from x towards it as far as
/// x ≥ 0 allows and drops the components that reached 0.
///
/// Returns zeros for an empty problem; columns that are all zero get 0.
pub fn nnls(a: &Rows, b: &[f64]) -> Vec<f64> {
    let m = a.len().min(b.len());
    let n = a.first().map_or(0, Vec::len);
    if m == 0 || n == 0 {
        return vec![0.0; n];
    }
    let norms: Vec<f64> = (0..n)
        .map(|j| (0..m).map(|i| a[i][j] * a[i][j]).sum::<f64>().sqrt())
        .collect();
    let scaled: Vec<Vec<f64>> = (0..m)
        .map(|i| {
            (0..n)
                .map(|j| {
                    if norms[j] > 0.0 {
                        a[i][j] / norms[j]
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let bnorm = b[..m].iter().map(|v| v * v).sum::<f64>().sqrt();
    let tol = 1e-12 * (bnorm.max(f64::MIN_POSITIVE)) * (m.max(n) as f64);

    let mut x = vec![0.0; n];
    let mut passive = vec![false; n];
    let usable: Vec<bool> = norms.iter().map(|v| *v > 0.0).collect();
    let mut excluded = vec![false; n];
    for _ in 0..(3 * n + 10) {
        let w = gradient(&scaled, &b[..m], &x);
        let candidate = (0..n)
            .filter(|&j| !passive[j] && usable[j] && !excluded[j] && w[j] > tol)
            .max_by(|&i, &j| w[i].total_cmp(&w[j]));
        let Some(j) = candidate else { break };
        passive[j] = true;
        for _ in 0..(3 * n + 10) {
            let z = solve_on(&scaled, &b[..m], &passive);
            let infeasible: Vec<usize> = (0..n).filter(|&k| passive[k] && z[k] <= 0.0).collect();
            if infeasible.is_empty() {
                x = z;
                break;
            }
            if infeasible == [j] && x[j] == 0.0 {
                // The column that just entered cannot rise above 0: its gradient was
                // rounding noise. Leave it out for good.
                passive[j] = false;
                excluded[j] = true;
                break;
            }
            // Step from x towards z as far as the constraints allow, and drop the
            // components that reach 0.
            let step = infeasible
                .iter()
                .map(|&k| x[k] / (x[k] - z[k]))
                .fold(f64::INFINITY, f64::min)
                .clamp(0.0, 1.0);
            for k in 0..n {
                x[k] += step * (z[k] - x[k]);
                if passive[k] && x[k] <= 1e-15 * (1.0 + x[k].abs()) {
                    x[k] = 0.0;
                    passive[k] = false;
                }
            }
        }
    }
    (0..n)
        .map(|j| {
            if norms[j] > 0.0 {
                x[j].max(0.0) / norms[j]
            } else {
                0.0
            }
        })
        .collect()
}

/// Solves min ‖A·x − b‖₂ subject to x ≥ lower, by substituting x = lower + y, y ≥ 0:
/// min ‖A·y − (b − A·lower)‖₂.
pub fn nnls_bounded(a: &Rows, b: &[f64], lower: &[f64]) -> Vec<f64> {
    let shifted: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(row, bi)| bi - dot(row, lower))
        .collect();
    nnls(a, &shifted)
        .iter()
        .zip(lower)
        .map(|(y, l)| y + l)
        .collect()
}

/// w = Aᵀ(b − A·x).
fn gradient(a: &Rows, b: &[f64], x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let r: Vec<f64> = a.iter().zip(b).map(|(row, bi)| bi - dot(row, x)).collect();
    (0..n)
        .map(|j| a.iter().zip(&r).map(|(row, ri)| row[j] * ri).sum())
        .collect()
}

/// The unconstrained least-squares solution on the columns in `passive` (0 elsewhere).
fn solve_on(a: &Rows, b: &[f64], passive: &[bool]) -> Vec<f64> {
    let cols: Vec<usize> = (0..passive.len()).filter(|&j| passive[j]).collect();
    let sub: Vec<Vec<f64>> = a
        .iter()
        .map(|row| cols.iter().map(|&j| row[j]).collect())
        .collect();
    let z = least_squares(&sub, b);
    let mut out = vec![0.0; passive.len()];
    for (k, &j) in cols.iter().enumerate() {
        out[j] = z[k];
    }
    out
}

/// min ‖A·x − b‖₂ by Householder QR: A = Q·R, R·x = Qᵀ·b. A column that is (numerically)
/// a combination of the earlier ones gets 0 (the basic solution).
pub fn least_squares(a: &Rows, b: &[f64]) -> Vec<f64> {
    let m = a.len().min(b.len());
    let n = a.first().map_or(0, Vec::len);
    let mut r: Vec<Vec<f64>> = a[..m].to_vec();
    let mut qb: Vec<f64> = b[..m].to_vec();
    let scale = r
        .iter()
        .flat_map(|row| row.iter())
        .fold(0.0f64, |acc, v| acc.max(v.abs()));
    let mut dependent = vec![false; n];
    for k in 0..n.min(m) {
        let norm = (k..m).map(|i| r[i][k] * r[i][k]).sum::<f64>().sqrt();
        if norm <= 1e-12 * scale {
            dependent[k] = true;
            continue;
        }
        let alpha = if r[k][k] > 0.0 { -norm } else { norm };
        // v = a_k − α·e_k (rows k..m); H = I − 2·v·vᵀ/(vᵀv).
        let mut v: Vec<f64> = (k..m).map(|i| r[i][k]).collect();
        v[0] -= alpha;
        let vv: f64 = v.iter().map(|x| x * x).sum();
        if vv == 0.0 {
            continue;
        }
        for j in k..n {
            let s: f64 = r[k..m]
                .iter()
                .zip(&v)
                .map(|(row, vi)| vi * row[j])
                .sum::<f64>()
                * 2.0
                / vv;
            for (row, vi) in r[k..m].iter_mut().zip(&v) {
                row[j] -= s * vi;
            }
        }
        let s: f64 = qb[k..m].iter().zip(&v).map(|(q, vi)| q * vi).sum::<f64>() * 2.0 / vv;
        for (q, vi) in qb[k..m].iter_mut().zip(&v) {
            *q -= s * vi;
        }
    }
    let mut x = vec![0.0; n];
    for k in (0..n.min(m)).rev() {
        if dependent[k] || r[k][k].abs() <= 1e-12 * scale {
            continue;
        }
        let s: f64 = ((k + 1)..n).map(|j| r[k][j] * x[j]).sum();
        x[k] = (qb[k] - s) / r[k][k];
    }
    x
}

/// a · b.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn recovers_an_exact_non_negative_solution() {
        // Three unknowns of very different scales (like load, div, exp costs).
        let truth = [3e-10, 1.5e-9, 6e-9];
        let a: Vec<Vec<f64>> = vec![
            vec![1.0, 0.0, 0.0],
            vec![2.0, 1.0, 0.0],
            vec![1.0, 0.0, 1.0],
            vec![3.0, 1.0, 1.0],
        ];
        let b: Vec<f64> = a.iter().map(|r| dot(r, &truth)).collect();
        let x = nnls(&a, &b);
        for (xi, ti) in x.iter().zip(truth) {
            assert!(close(*xi, ti, 1e-9), "{x:?}");
        }
    }

    #[test]
    fn clamps_what_least_squares_would_make_negative() {
        // Unconstrained: x = (2, −1). With x ≥ 0 the optimum is x = (b·a1/‖a1‖², 0).
        let a = vec![vec![1.0, 1.0], vec![1.0, 2.0], vec![1.0, 3.0]];
        let b = [1.0, 0.0, -1.0];
        let x = nnls(&a, &b);
        assert_eq!(x[1], 0.0);
        assert!(close(x[0], 0.0, 1e-12) || x[0] >= 0.0);
        // Check the KKT conditions: w = Aᵀ(b − Ax) ≤ 0 where x = 0, = 0 where x > 0.
        let w = gradient(&a, &b, &x);
        for (xi, wi) in x.iter().zip(&w) {
            if *xi > 0.0 {
                assert!(wi.abs() < 1e-9, "{w:?}");
            } else {
                assert!(*wi <= 1e-9, "{w:?}");
            }
        }
    }

    #[test]
    fn kkt_holds_on_a_random_overdetermined_problem() {
        // A fixed pseudo-random 12 × 5 problem.
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f64) / (1u64 << 31) as f64 - 0.5
        };
        let a: Vec<Vec<f64>> = (0..12).map(|_| (0..5).map(|_| rnd()).collect()).collect();
        let b: Vec<f64> = (0..12).map(|_| rnd()).collect();
        let x = nnls(&a, &b);
        let w = gradient(&a, &b, &x);
        for (xi, wi) in x.iter().zip(&w) {
            assert!(*xi >= 0.0);
            if *xi > 0.0 {
                assert!(wi.abs() < 1e-9, "{x:?} {w:?}");
            } else {
                assert!(*wi <= 1e-9, "{x:?} {w:?}");
            }
        }
    }

    #[test]
    fn lower_bounds_hold() {
        let a = vec![vec![1.0, 1.0], vec![1.0, 1.0]];
        let b = [1.0, 1.0];
        let x = nnls_bounded(&a, &b, &[0.25, 0.5]);
        assert!(x[0] >= 0.25 && x[1] >= 0.5);
        assert!(close(x[0] + x[1], 1.0, 1e-9), "{x:?}");
    }

    #[test]
    fn dependent_columns_get_a_basic_solution() {
        let a = vec![vec![1.0, 2.0], vec![2.0, 4.0], vec![3.0, 6.0]];
        let b = [1.0, 2.0, 3.0];
        let x = least_squares(&a, &b);
        assert!(close(x[0] + 2.0 * x[1], 1.0, 1e-9), "{x:?}");
        let y = nnls(&a, &b);
        assert!(close(y[0] + 2.0 * y[1], 1.0, 1e-9), "{y:?}");
    }
}
