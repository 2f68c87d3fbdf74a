//! Fits by relative error: every measurement counts by its relative deviation, so a
//! 100 ns message and a 1 ms one weigh alike (the `fit_rel_rms` of a machine model).

use super::nnls::{Rows, dot, nnls_bounded};

/// A linear model t ≈ A·x fitted to measured times.
#[derive(Clone, Debug, PartialEq)]
pub struct RelFit {
    /// The fitted parameters.
    pub x: Vec<f64>,
    /// A·x for every measurement.
    pub predicted: Vec<f64>,
    /// √(mean((predictedᵢ − tᵢ)/tᵢ)²).
    pub rel_rms: f64,
}

/// Minimizes Σᵢ((A·x − t)ᵢ / tᵢ)² subject to x ≥ lower: row i of A and tᵢ divided by
/// tᵢ, then non-negative least squares on x − lower. Measurements tᵢ ≤ 0 are left out.
pub fn relative_fit(a: &Rows, t: &[f64], lower: &[f64]) -> RelFit {
    let kept: Vec<usize> = (0..t.len().min(a.len())).filter(|&i| t[i] > 0.0).collect();
    let weighted: Vec<Vec<f64>> = kept
        .iter()
        .map(|&i| a[i].iter().map(|v| v / t[i]).collect())
        .collect();
    let ones = vec![1.0; kept.len()];
    let x = if kept.is_empty() {
        lower.to_vec()
    } else {
        nnls_bounded(&weighted, &ones, lower)
    };
    let predicted: Vec<f64> = a.iter().map(|row| dot(row, &x)).collect();
    let rel_rms = rel_rms(&predicted, t);
    RelFit {
        x,
        predicted,
        rel_rms,
    }
}

/// √(mean over i with mᵢ > 0 of ((pᵢ − mᵢ)/mᵢ)²): the root mean square relative
/// error of predictions p against measurements m (0 when there are none).
pub fn rel_rms(predicted: &[f64], measured: &[f64]) -> f64 {
    let errs: Vec<f64> = predicted
        .iter()
        .zip(measured)
        .filter(|(_, m)| **m > 0.0)
        .map(|(p, m)| (p - m) / m)
        .collect();
    if errs.is_empty() {
        0.0
    } else {
        (errs.iter().map(|e| e * e).sum::<f64>() / errs.len() as f64).sqrt()
    }
}

/// Σᵢ((pᵢ − mᵢ)/mᵢ)²: the sum of squared relative errors.
pub fn rel_sse(predicted: &[f64], measured: &[f64]) -> f64 {
    predicted
        .iter()
        .zip(measured)
        .filter(|(_, m)| **m > 0.0)
        .map(|(p, m)| ((p - m) / m).powi(2))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_fit_recovers_a_line_and_reports_zero_error() {
        let a: Vec<Vec<f64>> = [1.0, 10.0, 100.0, 1000.0]
            .iter()
            .map(|b| vec![1.0, *b])
            .collect();
        let t: Vec<f64> = a.iter().map(|r| 2e-6 + 3e-9 * r[1]).collect();
        let f = relative_fit(&a, &t, &[0.0, 0.0]);
        assert!(
            (f.x[0] - 2e-6).abs() < 1e-15 && (f.x[1] - 3e-9).abs() < 1e-18,
            "{f:?}"
        );
        assert!(f.rel_rms < 1e-9);
    }

    #[test]
    fn rms_of_known_errors() {
        assert!((rel_rms(&[1.1, 0.9], &[1.0, 1.0]) - 0.1).abs() < 1e-12);
        assert_eq!(rel_rms(&[], &[]), 0.0);
    }
}
