//! Collective operations: the runtime function t = τ1 + τ2·p + tc·p·b of Kühnemann,
//! Rauber and Rünger (Table 1; p processes, b bytes per process) fitted by least
//! squares, against the cost of the algorithm MPICH uses priced with the fitted
//! point-to-point α and β (the formulas of `costline_model::comm::mpi::cost`).

use super::fit::{RelFit, rel_rms, relative_fit};
use super::memory::human_bytes;
use costline_ide::machine::Collective;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One measurement: `op` among `p` processes with `bytes` per process took `seconds`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub op: String,
    pub p: u32,
    pub bytes: f64,
    pub seconds: f64,
}

/// A fitted runtime function.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeFn {
    pub tau1_s: f64,
    pub tau2_s: f64,
    pub tc_s_per_byte: f64,
    /// τ2 was fixed at 0: with a single process count it cannot be told from τ1.
    pub tau2_fixed: bool,
    pub rel_rms: f64,
}

/// Parses the `collective OP P BYTES SECONDS` lines of collectives.f90.
pub fn parse(output: &str) -> Vec<Sample> {
    output
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                ["collective", op, p, b, t] => Some(Sample {
                    op: (*op).to_string(),
                    p: p.parse().ok()?,
                    bytes: b.parse().ok()?,
                    seconds: t.parse().ok().filter(|t: &f64| t.is_finite() && *t > 0.0)?,
                }),
                _ => None,
            }
        })
        .collect()
}

/// Fits t = τ1 + τ2·p + tc·p·b to the samples by relative least squares, with τ2 ≥ 0,
/// tc ≥ 0 and τ1 free (τ1 = u − v, u, v ≥ 0, in the non-negative solver). With one
/// process count, τ2 = 0 (the columns 1 and p are the same); with b = 0 throughout
/// (a barrier), tc = 0.
pub fn fit_runtime_function(samples: &[Sample]) -> RuntimeFn {
    let mut ps: Vec<u32> = samples.iter().map(|s| s.p).collect();
    ps.sort_unstable();
    ps.dedup();
    let with_tau2 = ps.len() >= 2;
    let with_tc = samples.iter().any(|s| s.bytes > 0.0);
    let a: Vec<Vec<f64>> = samples
        .iter()
        .map(|s| {
            let p = f64::from(s.p);
            let mut row = vec![1.0, -1.0];
            if with_tau2 {
                row.push(p);
            }
            if with_tc {
                row.push(p * s.bytes);
            }
            row
        })
        .collect();
    let t: Vec<f64> = samples.iter().map(|s| s.seconds).collect();
    let lower = vec![0.0; a.first().map_or(2, Vec::len)];
    let RelFit { x, rel_rms, .. } = relative_fit(&a, &t, &lower);
    let mut it = x.iter().skip(2).copied();
    let tau2 = if with_tau2 {
        it.next().unwrap_or(0.0)
    } else {
        0.0
    };
    let tc = if with_tc {
        it.next().unwrap_or(0.0)
    } else {
        0.0
    };
    RuntimeFn {
        tau1_s: x.first().copied().unwrap_or(0.0) - x.get(1).copied().unwrap_or(0.0),
        tau2_s: tau2,
        tc_s_per_byte: tc,
        tau2_fixed: !with_tau2,
        rel_rms,
    }
}

/// The algorithm MPICH uses for `op` (a name of `costline_ide::machine::ALGORITHMS`).
pub fn algorithm(op: &str) -> Option<&'static str> {
    Some(match op {
        "bcast" | "reduce" | "scatter" | "gather" => "binomial",
        "allgather" => "ring",
        "allreduce" => "rabenseifner",
        "alltoall" => "pairwise",
        "barrier" => "dissemination",
        _ => return None,
    })
}

/// The time of `op`'s MPICH algorithm among p processes with b bytes per process,
/// where `p2p(m)` gives the point-to-point (α, β) for a message of m bytes (taken at
/// m = b), lgp = ⌈log2 p⌉:
/// - binomial bcast, reduce: lgp·(α + b·β)
/// - binomial scatter, gather: lgp·α + b·(p − 1)·β  (n = b·p bytes in all, n(p−1)/p)
/// - ring allgather: (p − 1)·α + b·(p − 1)·β
/// - Rabenseifner allreduce: 2·lgp·α + 2·b·(p − 1)/p·β
/// - pairwise alltoall: (p − 1)·(α + b·β)
/// - dissemination barrier: lgp·α
pub fn algorithm_time(op: &str, p: f64, b: f64, p2p: &dyn Fn(f64) -> (f64, f64)) -> f64 {
    let (a, beta) = p2p(b);
    let lgp = p.log2().ceil().max(0.0);
    match op {
        "bcast" | "reduce" => lgp * (a + b * beta),
        "scatter" | "gather" => lgp * a + b * (p - 1.0) * beta,
        "allgather" => (p - 1.0) * a + b * (p - 1.0) * beta,
        "allreduce" => 2.0 * lgp * a + 2.0 * b * (p - 1.0) / p * beta,
        "alltoall" => (p - 1.0) * (a + b * beta),
        "barrier" => lgp * a,
        _ => f64::NAN,
    }
}

/// How well `op`'s algorithm, priced with `p2p`, predicts the samples: the root mean
/// square relative error.
pub fn algorithm_rel_rms(op: &str, samples: &[Sample], p2p: &dyn Fn(f64) -> (f64, f64)) -> f64 {
    let predicted: Vec<f64> = samples
        .iter()
        .map(|s| algorithm_time(op, f64::from(s.p), s.bytes, p2p))
        .collect();
    let measured: Vec<f64> = samples.iter().map(|s| s.seconds).collect();
    rel_rms(&predicted, &measured)
}

/// How well the library's own selection predicts the samples (None: costline does not
/// know the operation).
fn library_rel_rms(op: &str, samples: &[Sample], library: LibraryTime) -> Option<f64> {
    let predicted: Vec<f64> = samples
        .iter()
        .map(|s| library(op, f64::from(s.p), s.bytes))
        .collect::<Option<_>>()?;
    let measured: Vec<f64> = samples.iter().map(|s| s.seconds).collect();
    Some(rel_rms(&predicted, &measured))
}

/// What prices a collective in the written model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    RuntimeFunction,
    /// No entry: the library's selection.
    Library,
    /// The fixed algorithm of [`algorithm`].
    Algorithm,
}

/// The operations collectives.f90 measures, in its order.
pub const OPS: &[&str] = &[
    "barrier",
    "bcast",
    "reduce",
    "allreduce",
    "allgather",
    "gather",
    "scatter",
    "alltoall",
];

/// Every measured collective's model, the fit errors and the table for stderr.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub models: BTreeMap<String, Collective>,
    /// `OP.runtime_function` and `OP.algorithm`: relative RMS of each.
    pub rel_rms: BTreeMap<String, f64>,
    pub table: String,
    /// The runtime functions an algorithm replaced, for training.notes.
    pub replaced: Vec<String>,
}

/// The time of a collective (`op`, p, b) by the algorithm the MPI library selects,
/// priced with the measured point-to-point pieces: what costline charges for an
/// operation the model has no `[collectives]` entry for.
pub type LibraryTime<'a> = &'a dyn Fn(&str, f64, f64) -> Option<f64>;

/// Fits the runtime function of every operation in `samples` and compares it with the
/// library's own selection of algorithms (`library`) and with the fixed MPICH algorithm
/// priced by `p2p`. Whichever has the lowest relative RMS wins (the library's
/// selection on a tie): the library's selection leaves `[collectives.OP]` out (costline
/// then prices the operation by that selection); else the entry gets τ1, τ2 and tc, or
/// `algorithm` alone (costline prices a collective by its runtime function whenever τ1
/// is given, so writing both would hide the better algorithm).
pub fn summarize(
    samples: &[Sample],
    p2p: &dyn Fn(f64) -> (f64, f64),
    library: LibraryTime,
) -> Summary {
    let mut models = BTreeMap::new();
    let mut replaced = Vec::new();
    let mut rms = BTreeMap::new();
    let mut table = String::from(
        "    op          τ1 s         τ2 s         tc s/B       runtime fn   library    algorithm\n",
    );
    for op in OPS {
        let mine: Vec<Sample> = samples.iter().filter(|s| s.op == *op).cloned().collect();
        if mine.is_empty() {
            continue;
        }
        let f = fit_runtime_function(&mine);
        let alg = algorithm(op);
        let alg_rms = alg.map(|_| algorithm_rel_rms(op, &mine, p2p));
        let lib_rms = library_rel_rms(op, &mine, library);
        rms.insert(format!("{op}.runtime_function"), f.rel_rms);
        if let Some(r) = alg_rms {
            rms.insert(format!("{op}.algorithm"), r);
        }
        if let Some(r) = lib_rms {
            rms.insert(format!("{op}.library"), r);
        }
        let best_other = f.rel_rms.min(alg_rms.unwrap_or(f64::INFINITY));
        let choice = match (lib_rms, alg_rms) {
            (Some(l), _) if l <= best_other => Choice::Library,
            (_, Some(r)) if r < f.rel_rms => Choice::Algorithm,
            _ => Choice::RuntimeFunction,
        };
        let star = |c: Choice| if c == choice { "*" } else { " " };
        let _ = writeln!(
            table,
            "    {op:<11} {:>11.3e}  {:>11.3e}  {:>11.3e}  {:>9.1}%{}  {:>7}{}   {} {}{}",
            f.tau1_s,
            f.tau2_s,
            f.tc_s_per_byte,
            f.rel_rms * 100.0,
            star(Choice::RuntimeFunction),
            lib_rms.map_or_else(|| "-".to_string(), |r| format!("{:.1}%", r * 100.0)),
            star(Choice::Library),
            alg.unwrap_or("-"),
            alg_rms.map_or_else(String::new, |r| format!("{:.1}%", r * 100.0)),
            star(Choice::Algorithm).trim(),
        );
        let runtime_fn = format!(
            "the runtime function tau1 = {:.3e} s, tau2 = {:.3e} s, tc = {:.3e} s/B ({:.1}%)",
            f.tau1_s,
            f.tau2_s,
            f.tc_s_per_byte,
            f.rel_rms * 100.0
        );
        match choice {
            Choice::Library => replaced.push(format!(
                "{op}: the library's own choice of algorithm, priced with the measured \
                 point-to-point segments (relative RMS {:.1}%), fits better than {runtime_fn}: \
                 no [collectives.{op}] entry, so costline prices it that way",
                lib_rms.unwrap_or(0.0) * 100.0
            )),
            Choice::Algorithm => {
                let (name, r) = (alg.unwrap_or("-"), alg_rms.unwrap_or(0.0));
                replaced.push(format!(
                    "{op}: the {name} algorithm (relative RMS {:.1}%) fits better than \
                     {runtime_fn}, which is left out",
                    r * 100.0
                ));
                models.insert(
                    (*op).to_string(),
                    Collective {
                        algorithm: Some(name.to_string()),
                        tau1_s: None,
                        tau2_s: None,
                        tc_s_per_byte: None,
                        fit_rel_rms: Some(r),
                    },
                );
            }
            Choice::RuntimeFunction => {
                models.insert(
                    (*op).to_string(),
                    Collective {
                        algorithm: None,
                        tau1_s: Some(f.tau1_s),
                        tau2_s: Some(f.tau2_s),
                        tc_s_per_byte: Some(f.tc_s_per_byte),
                        fit_rel_rms: Some(f.rel_rms),
                    },
                );
            }
        }
    }
    let sizes: Vec<String> = {
        let mut b: Vec<f64> = samples.iter().map(|s| s.bytes).collect();
        b.sort_by(f64::total_cmp);
        b.dedup();
        b.iter().map(|b| human_bytes(*b)).collect()
    };
    let _ = write!(
        table,
        "    (* = the better fit, which the model uses; sizes {})",
        sizes.join(", ")
    );
    Summary {
        models,
        rel_rms: rms,
        table,
        replaced,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(ps: &[u32], f: impl Fn(f64, f64) -> f64) -> Vec<Sample> {
        let mut out = Vec::new();
        for &p in ps {
            for b in [8.0, 512.0, 32768.0, 1048576.0] {
                out.push(Sample {
                    op: "bcast".into(),
                    p,
                    bytes: b,
                    seconds: f(f64::from(p), b),
                });
            }
        }
        out
    }

    #[test]
    fn recovers_known_parameters() {
        let s = samples(&[2, 3, 4], |p, b| 2e-6 + 5e-7 * p + 1e-10 * p * b);
        let f = fit_runtime_function(&s);
        assert!((f.tau1_s / 2e-6 - 1.0).abs() < 1e-6, "{f:?}");
        assert!((f.tau2_s / 5e-7 - 1.0).abs() < 1e-6, "{f:?}");
        assert!((f.tc_s_per_byte / 1e-10 - 1.0).abs() < 1e-6, "{f:?}");
        assert!(!f.tau2_fixed && f.rel_rms < 1e-9);
    }

    #[test]
    fn a_negative_startup_is_allowed() {
        // Oversubscribed barriers: steep in p, τ1 < 0.
        let s: Vec<Sample> = [2u32, 3, 4]
            .iter()
            .map(|&p| Sample {
                op: "barrier".into(),
                p,
                bytes: 0.0,
                seconds: -4e-6 + 3e-6 * f64::from(p),
            })
            .collect();
        let f = fit_runtime_function(&s);
        assert!((f.tau1_s + 4e-6).abs() < 1e-12, "{f:?}");
        assert!(
            (f.tau2_s - 3e-6).abs() < 1e-12 && f.tc_s_per_byte == 0.0,
            "{f:?}"
        );
    }

    #[test]
    fn one_process_count_fixes_tau2() {
        let s = samples(&[2], |p, b| 2e-6 + 5e-7 * p + 1e-10 * p * b);
        let f = fit_runtime_function(&s);
        assert!(f.tau2_fixed && f.tau2_s == 0.0);
        assert!((f.tau1_s / 3e-6 - 1.0).abs() < 1e-6, "{f:?}");
        assert!((f.tc_s_per_byte / 1e-10 - 1.0).abs() < 1e-6, "{f:?}");
    }

    #[test]
    fn the_algorithm_cost_matches_data_made_from_it() {
        let p2p = |_b: f64| (1e-6, 1e-9);
        let s: Vec<Sample> = [2u32, 4, 8]
            .iter()
            .flat_map(|&p| {
                [8.0, 4096.0].map(|b| Sample {
                    op: "allreduce".into(),
                    p,
                    bytes: b,
                    seconds: algorithm_time("allreduce", f64::from(p), b, &p2p),
                })
            })
            .collect();
        assert!(algorithm_rel_rms("allreduce", &s, &p2p) < 1e-12);
        // p = 8, b = 4096: 2·3·α + 2·4096·7/8·β.
        let t = algorithm_time("allreduce", 8.0, 4096.0, &p2p);
        assert!((t - (6e-6 + 2.0 * 4096.0 * 7.0 / 8.0 * 1e-9)).abs() < 1e-18);
        assert_eq!(algorithm("alltoall"), Some("pairwise"));
    }

    #[test]
    fn the_better_fit_is_written() {
        let p2p = |_b: f64| (1e-6, 1e-9);
        let mut s: Vec<Sample> = Vec::new();
        for p in [2u32, 4, 8] {
            for b in [8.0, 4096.0, 1048576.0] {
                // allreduce follows Rabenseifner's cost exactly; bcast a runtime function.
                s.push(Sample {
                    op: "allreduce".into(),
                    p,
                    bytes: b,
                    seconds: algorithm_time("allreduce", f64::from(p), b, &p2p),
                });
                s.push(Sample {
                    op: "bcast".into(),
                    p,
                    bytes: b,
                    seconds: 1e-6 + 2e-7 * f64::from(p) + 1e-10 * f64::from(p) * b,
                });
            }
        }
        // A library whose selection is always 10× off loses to both.
        let sum = summarize(&s, &p2p, &|op, p, b| {
            Some(10.0 * algorithm_time(op, p, b, &p2p))
        });
        let ar = &sum.models["allreduce"];
        assert_eq!(ar.algorithm.as_deref(), Some("rabenseifner"));
        assert!(ar.tau1_s.is_none() && ar.fit_rel_rms.unwrap() < 1e-9);
        let bc = &sum.models["bcast"];
        assert!(bc.algorithm.is_none() && bc.tau1_s.is_some());
        assert_eq!(sum.replaced.len(), 1);
        assert!(sum.rel_rms.contains_key("bcast.algorithm"));
        assert!(sum.rel_rms.contains_key("bcast.library"));
        // A library whose selection is the allreduce's cost: no entry for it.
        let sum = summarize(&s, &p2p, &|op, p, b| Some(algorithm_time(op, p, b, &p2p)));
        assert!(!sum.models.contains_key("allreduce"));
        assert!(sum.models.contains_key("bcast"));
        assert!(
            sum.replaced[0].contains("library's own choice"),
            "{:?}",
            sum.replaced
        );
    }

    #[test]
    fn parses_the_program_output() {
        let s = parse("collective bcast 2 1024   3.3E-07\nnoise\ncollective barrier 2 0 1.5E-07\n");
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].op.as_str(), s[0].p, s[0].bytes), ("bcast", 2, 1024.0));
    }
}
