//! Operation costs from the training kernels' times (Balasundaram et al.'s training
//! set): with C the kernels' operation counts per iteration (kernels.rs) and t their
//! measured seconds per iteration, the costs x solve min Σᵢ((C·x − t)ᵢ/tᵢ)² subject
//! to x ≥ 10⁻¹² s. A kernel built around a loop-carried chain (`latency_*` in its
//! counts) is left out of that fit: its time is the chain's latency (a floor over its
//! overlapping operations, `Machine::execution_s`), which it gives directly.

use super::fit::{RelFit, relative_fit};
use super::kernels::{self, KERNELS};
use super::nnls::Rows;
use costline_ide::machine::ops::{OpKey, OpKind, OpType, Port};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The smallest cost an operation gets: a vectorized loop may hide an operation almost
/// completely, but it still costs something.
pub const FLOOR_S: f64 = 1e-12;

/// The fitted operation table.
#[derive(Clone, Debug, PartialEq)]
pub struct OpsFit {
    /// Seconds per operation, by `[processor.ops]` key.
    pub costs: BTreeMap<String, f64>,
    /// (kernel, measured, fitted) seconds per iteration.
    pub rows: Vec<(String, f64, f64)>,
    /// Root mean square relative error over the kernels.
    pub rel_rms: f64,
    /// The overlap model of the fit chosen (`ports` or `sum`) and the other's error.
    pub overlap: &'static str,
    /// The out-of-order window, iterations (`ports` only; None when no kernel's chains
    /// were seen to overlap).
    pub window_iterations: Option<f64>,
    pub other_rel_rms: f64,
    /// Kernels of the table the run did not report.
    pub missing: Vec<String>,
    /// Kernels measured but left out of the fit, and why.
    pub excluded: Vec<(String, String)>,
}

/// Kernels the counting convention cannot describe in this run: a copy loop faster
/// than the store-only loop was replaced by a library call (gfortran turns it into
/// memcpy), so its time says nothing about a load and a store in a loop; it gives
/// `memcpy_byte` instead.
pub fn excluded(measured: &[(String, f64)]) -> Vec<(String, String)> {
    let t = |name: &str| measured.iter().find(|(n, _)| n == name).map(|(_, t)| *t);
    match (t("copy"), t("store")) {
        (Some(copy), Some(store)) if copy < store => vec![(
            "copy".to_string(),
            format!(
                "the copy loop ({copy:.2e} s per element) is faster than the store-only loop \
                 ({store:.2e} s): the compiler replaced it by memcpy (its rate is memcpy_byte)"
            ),
        )],
        _ => Vec::new(),
    }
}

/// Parses ops.f90's `NAME SECONDS_PER_ITERATION` lines (the checksum line and
/// anything unparsable are skipped).
pub fn parse(output: &str) -> Vec<(String, f64)> {
    output
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let name = f.next()?;
            let t: f64 = f.next()?.parse().ok()?;
            (f.next().is_none() && t.is_finite() && t > 0.0 && kernels::find(name).is_some())
                .then(|| (name.to_string(), t))
        })
        .collect()
}

/// Each kernel's mean time over several runs (code placements): Σ tᵣ / R over the runs
/// that report it, in the order of the first run.
pub fn mean_over_runs(runs: &[Vec<(String, f64)>]) -> Vec<(String, f64)> {
    let mut names: Vec<&String> = Vec::new();
    for run in runs {
        for (n, _) in run {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    names
        .into_iter()
        .map(|n| {
            let ts: Vec<f64> = runs
                .iter()
                .filter_map(|r| r.iter().find(|(m, _)| m == n).map(|(_, t)| *t))
                .collect();
            (n.clone(), ts.iter().sum::<f64>() / ts.len() as f64)
        })
        .collect()
}

/// The kernels whose time differs by more than 20% between code placements, with their
/// times per placement.
pub fn placement_table(runs: &[Vec<(String, f64)>]) -> String {
    let mut s = format!(
        "kernels whose time depends on the code placement ({} placements):",
        runs.len()
    );
    let mut any = false;
    for (name, _) in runs.first().map_or(&[][..], Vec::as_slice) {
        let ts: Vec<f64> = runs
            .iter()
            .filter_map(|r| r.iter().find(|(m, _)| m == name).map(|(_, t)| *t))
            .collect();
        let lo = ts.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ts.iter().copied().fold(0.0, f64::max);
        if hi > 1.2 * lo {
            any = true;
            let shown: Vec<String> = ts.iter().map(|t| format!("{t:.2e}")).collect();
            let _ = write!(s, "\n  {name:<15} {}", shown.join("  "));
        }
    }
    if !any {
        s.push_str(" none");
    }
    s
}

/// Fits the costs of the operations the measured kernels contain, under the overlap
/// model `overlap` asks for (`Auto`: the one whose fit is closer).
pub fn fit(measured: &[(String, f64)], overlap: super::Overlap) -> Result<OpsFit, String> {
    let all = kernels::unknowns();
    let excluded = excluded(measured);
    let rows_all: Vec<(String, Vec<f64>, f64)> = measured
        .iter()
        .filter(|(name, _)| !excluded.iter().any(|(e, _)| e == name))
        .filter(|(name, _)| !kernels::DIRECT.iter().any(|(d, _)| d == name))
        .filter(|(name, _)| kernels::find(name).is_some_and(|k| k.chain.is_empty()))
        .filter_map(|(name, t)| {
            let k = kernels::find(name)?;
            Some((name.clone(), kernels::row(k, &all), *t))
        })
        .collect();
    if rows_all.is_empty() {
        return Err("no training kernel reported a time".into());
    }
    let is_latency = |j: usize| matches!(OpKey::parse(all[j]), Some(OpKey::Latency(..)));
    let is_chain = |r: &[f64]| (0..all.len()).any(|j| is_latency(j) && r[j] != 0.0);
    let throughput: Vec<&(String, Vec<f64>, f64)> =
        rows_all.iter().filter(|(_, r, _)| !is_chain(r)).collect();
    if throughput.is_empty() {
        return Err("no training kernel without a loop-carried chain reported a time".into());
    }
    // Only the operations some measured kernel contains are unknowns.
    let used: Vec<usize> = (0..all.len())
        .filter(|&j| !is_latency(j) && throughput.iter().any(|(_, r, _)| r[j] != 0.0))
        .collect();
    let restrict = |r: &[f64]| used.iter().map(|&j| r[j]).collect::<Vec<f64>>();
    let a: Vec<Vec<f64>> = throughput.iter().map(|(_, r, _)| restrict(r)).collect();
    let t: Vec<f64> = throughput.iter().map(|(_, _, t)| *t).collect();
    let lower = vec![FLOOR_S; used.len()];
    let linear = relative_fit(&a, &t, &lower);
    let keys_used: Vec<Option<OpKey>> = used.iter().map(|&j| OpKey::parse(all[j])).collect();
    let ports: Vec<Option<Port>> = keys_used
        .iter()
        .map(|k| k.as_ref().and_then(OpKey::port))
        .collect();
    let uops: Vec<f64> = keys_used
        .iter()
        .map(|k| k.as_ref().map_or(0.0, OpKey::uops))
        .collect();
    // Under the ports model an enclosing loop's iteration overlaps the inner loop's:
    // it costs its two micro-operations at the front end, not a taken-branch slot
    // (`time::compute`), so its share moves from `loop_iter` to `issue`.
    let outer = |name: &str| kernels::find(name).map_or(0.0, |k| k.outer);
    let loop_col = all.iter().position(|k| *k == "loop_iter");
    let as_ports = |name: &str, r: &[f64]| -> (Vec<f64>, f64) {
        let mut r = r.to_vec();
        if let Some(j) = loop_col {
            r[j] -= outer(name);
        }
        (r, 2.0 * outer(name))
    };
    let a_ports: Vec<Vec<f64>> = throughput
        .iter()
        .map(|(n, r, _)| restrict(&as_ports(n, r).0))
        .collect();
    let extra: Vec<f64> = throughput
        .iter()
        .map(|(n, r, _)| as_ports(n, r).1)
        .collect();
    // One unknown per unit: a scalar single- and double-precision addition (or
    // multiplication), a 32- and 64-bit integer addition, take the same slot of the
    // same port; kernels bound by their loop cannot tell them apart otherwise.
    let unit_of: Vec<usize> = keys_used
        .iter()
        .enumerate()
        .map(|(j, k)| {
            let partner = match k {
                Some(OpKey::Arith(kind @ (OpKind::Add | OpKind::Mul), OpType::F32)) => {
                    Some(OpKey::Arith(*kind, OpType::F64))
                }
                Some(OpKey::Arith(OpKind::Add, OpType::I64)) => {
                    Some(OpKey::Arith(OpKind::Add, OpType::I32))
                }
                _ => None,
            };
            partner
                .and_then(|p| keys_used.iter().position(|k| k.as_ref() == Some(&p)))
                .unwrap_or(j)
        })
        .collect();
    let units: Vec<usize> = (0..used.len()).filter(|&j| unit_of[j] == j).collect();
    let column = |j: usize| units.iter().position(|&u| u == unit_of[j]).unwrap_or(0);
    let merge = |r: &[f64]| {
        let mut m = vec![0.0; units.len()];
        for (j, c) in r.iter().enumerate() {
            m[column(j)] += c;
        }
        m
    };
    let a_units: Vec<Vec<f64>> = a_ports.iter().map(|r| merge(r)).collect();
    let pick = |v: &[Option<Port>]| units.iter().map(|&u| v[u]).collect::<Vec<_>>();
    // A latency is its chain kernels' mean time per chained operation; a kernel whose
    // chain has two kinds of operation (`s = s*d(i) + b(i)`: a multiplication and an
    // addition) gives the one not known from a single-kind chain (`dot`) what is left
    // of its time once the known one is taken off.
    let latency_keys: Vec<usize> = (0..all.len()).filter(|&j| is_latency(j)).collect();
    let chained = |r: &[f64]| -> Vec<usize> {
        latency_keys
            .iter()
            .copied()
            .filter(|&j| r[j] != 0.0)
            .collect()
    };
    let mut known: BTreeMap<usize, f64> = BTreeMap::new();
    for _ in 0..latency_keys.len() {
        for &j in &latency_keys {
            if known.contains_key(&j) {
                continue;
            }
            let per_op: Vec<f64> = rows_all
                .iter()
                .filter(|(_, r, _)| r[j] != 0.0)
                .filter(|(_, r, _)| chained(r).iter().all(|k| *k == j || known.contains_key(k)))
                .map(|(_, r, t)| {
                    let others: f64 = chained(r)
                        .iter()
                        .filter(|k| **k != j)
                        .map(|k| r[*k] * known[k])
                        .sum();
                    (t - others).max(0.0) / r[j]
                })
                .collect();
            if !per_op.is_empty() {
                known.insert(j, per_op.iter().sum::<f64>() / per_op.len() as f64);
            }
        }
    }
    // A DO iteration ends in a taken branch, and these cores take at most one per cycle
    // (x86 to Zen 4 and Golden Cove, ARM's Neoverse): `loop_iter` costs at least a cycle,
    // the latency of a dependent integer addition (one cycle on all of them). The
    // training kernels cannot tell otherwise where another port is the busiest: left
    // free, the fit put it anywhere from the floor to 0.43 ns on one machine from run
    // to run (and the validation kernels moved by 11 points of "within 25 %" with it).
    let cycle = latency_keys
        .iter()
        .find(|&&j| all[j] == "latency_add_i32")
        .and_then(|j| known.get(j).copied());
    let mut unit_lower = vec![FLOOR_S; units.len()];
    if let (Some(cycle), Some(j)) = (cycle, used.iter().position(|&j| all[j] == "loop_iter")) {
        unit_lower[column(j)] = cycle.max(FLOOR_S);
    }
    let fitted = ports_fit(
        &a_units,
        &t,
        &pick(&ports),
        &units.iter().map(|&u| uops[u]).collect::<Vec<f64>>(),
        &extra,
        &unit_lower,
    );
    // Back to one cost per operation (and the front end's last).
    let mut overlapped = fitted.clone();
    overlapped.x = (0..used.len())
        .map(|j| fitted.x[column(j)])
        .chain(fitted.x.last().copied())
        .collect();
    let latencies: Vec<(String, f64)> = known
        .iter()
        .map(|(j, v)| (all[*j].to_string(), *v))
        .collect();
    // Every kernel's time under a fit's costs, the chain kernels included.
    let keys: Vec<Option<OpKey>> = all.iter().map(|k| OpKey::parse(k)).collect();
    let evaluate = |x: &[f64], overlap: &'static str| {
        let mut m = costline_ide::machine::Catalog::default_machine();
        m.processor.overlap = Some(overlap.to_string());
        // The ports fit's last unknown is the front end's cost per micro-operation.
        let issue = (x.len() > used.len()).then(|| ("issue".to_string(), x[used.len()]));
        m.processor.ops = used
            .iter()
            .zip(x)
            .map(|(&j, x)| (all[j].to_string(), *x))
            .chain(issue)
            .chain(latencies.iter().cloned())
            .collect();
        let predicted: Vec<f64> = rows_all
            .iter()
            .map(|(name, r, _)| {
                let (r, issue) = if overlap == "ports" {
                    as_ports(name, r)
                } else {
                    (r.clone(), 0.0)
                };
                m.execution_s(
                    keys.iter()
                        .zip(&r)
                        .filter_map(|(k, c)| Some((k.as_ref()?, *c)))
                        .chain((issue > 0.0).then_some((&OpKey::Issue, issue))),
                )
            })
            .collect();
        let measured: Vec<f64> = rows_all.iter().map(|(_, _, t)| *t).collect();
        let rel_rms = super::fit::rel_rms(&predicted, &measured);
        (m.processor.ops, predicted, rel_rms, overlap)
    };
    let sum = evaluate(&linear.x, "sum");
    let by_port = evaluate(&overlapped.x, "ports");
    let ports_wins = match overlap {
        super::Overlap::Auto => by_port.2 < sum.2,
        super::Overlap::Ports => true,
        super::Overlap::Sum => false,
    };
    let (chosen, other) = if ports_wins {
        (by_port, sum)
    } else {
        (sum, by_port)
    };
    let (mut costs, predicted, rel_rms, overlap) = chosen;
    // The copy loop the compiler replaced by memcpy gives memcpy's rate (8-byte
    // elements).
    if let Some(t) = excluded
        .iter()
        .find(|(e, _)| e == "copy")
        .and_then(|_| measured.iter().find(|(n, _)| n == "copy"))
        .map(|(_, t)| *t)
    {
        costs.insert("memcpy_byte".to_string(), t / 8.0);
    }
    for (kernel, key) in kernels::DIRECT {
        if let Some((_, t)) = measured.iter().find(|(n, _)| n == kernel) {
            costs.insert(key.to_string(), *t);
        }
    }
    let (window_iterations, window_rows) = if overlap == "ports" {
        window_fit(measured, &costs)
    } else {
        (None, Vec::new())
    };
    let missing = KERNELS
        .iter()
        .filter(|k| !measured.iter().any(|(n, _)| n == k.name))
        .map(|k| k.name.to_string())
        .collect();
    Ok(OpsFit {
        costs,
        rows: rows_all
            .iter()
            .zip(&predicted)
            .map(|((n, _, t), p)| (n.clone(), *t, *p))
            .chain(window_rows)
            .collect(),
        rel_rms,
        overlap,
        window_iterations,
        other_rel_rms: other.2,
        missing,
        excluded,
    })
}

/// The out-of-order window from the kernels that measure it (`Kernel::chain`), under
/// the fitted `costs` (`ports`): with c the latency of one inner iteration's chain, L
/// the inner loop's trips per entry and T its time by the ports, an iteration measured
/// at t < c means that 1 + W/L = c / max(t, T) chains ran at once (`time::compute`'s
/// chain overlap), so W = (c / max(t, T) − 1)·L; the mean over those kernels. Also each
/// such kernel's (name, measured, predicted).
fn window_fit(
    measured: &[(String, f64)],
    costs: &BTreeMap<String, f64>,
) -> (Option<f64>, Vec<(String, f64, f64)>) {
    let mut m = costline_ide::machine::Catalog::default_machine();
    m.processor.overlap = Some("ports".to_string());
    m.processor.ops = costs.clone();
    let mut fits = Vec::new();
    let mut kernels_seen = Vec::new();
    for (name, t) in measured {
        let Some(k) = kernels::find(name).filter(|k| !k.chain.is_empty() && k.outer > 0.0) else {
            continue;
        };
        // The inner loop's own iteration, as `time::compute` groups it: the enclosing
        // loop's share is a group of its own.
        let counts: Vec<(OpKey, f64)> = k
            .counts
            .iter()
            .filter_map(|(key, c)| {
                let key = OpKey::parse(key)?;
                let c = if key == OpKey::LoopIter {
                    c - k.outer
                } else {
                    *c
                };
                Some((key, c))
            })
            .collect();
        let throughput = m.execution_s(counts.iter().map(|(key, c)| (key, *c)));
        let chain: f64 = k
            .chain
            .iter()
            .filter_map(|(key, c)| Some(c * m.op_s(&OpKey::parse(key)?)))
            .sum();
        let trips = 1.0 / k.outer;
        let bound = t.max(throughput);
        if chain > bound {
            fits.push((chain / bound - 1.0) * trips);
        }
        kernels_seen.push((name.clone(), *t, chain, throughput, trips));
    }
    let window = (!fits.is_empty()).then(|| fits.iter().sum::<f64>() / fits.len() as f64);
    let rows = kernels_seen
        .into_iter()
        .map(|(name, t, chain, throughput, trips)| {
            let overlap = window.map_or(1.0, |w| 1.0 + w / trips);
            (name, t, throughput.max(chain / overlap))
        })
        .collect();
    (window, rows)
}

/// One execution under the port-pressure model: the operations outside the ports add
/// up, those of each port overlap with the other ports' (the busiest decides).
fn ports_time(row: &[f64], x: &[f64], ports: &[Option<Port>]) -> f64 {
    let mut serial = 0.0;
    let mut by_port = [0.0f64; Port::ALL.len()];
    for ((c, x), p) in row.iter().zip(x).zip(ports) {
        match p {
            Some(p) => by_port[*p as usize] += c * x,
            None => serial += c * x,
        }
    }
    serial + by_port.iter().copied().fold(0.0, f64::max)
}

/// The costs under the port-pressure model (`overlap = "ports"`, as
/// `Machine::execution_s` prices it), by alternating least squares. The unknowns are
/// the operations' costs and a last one, the front end's cost per micro-operation
/// (`issue`), whose coefficient in a kernel is its micro-operations (Σ count · `uops`,
/// plus `extra`: an enclosing loop's).
/// With each kernel's busiest port fixed, its time is linear in the costs of that
/// port's operations and of those outside the ports, so a relative least-squares fit
/// of that restriction gives new costs; the busiest ports are then found again, until
/// they no longer change (the best of at most 50 rounds is kept).
fn ports_fit(
    a: &Rows,
    t: &[f64],
    ports: &[Option<Port>],
    uops: &[f64],
    extra: &[f64],
    lower: &[f64],
) -> RelFit {
    let a: Vec<Vec<f64>> = a
        .iter()
        .zip(extra)
        .map(|(r, extra)| {
            let issued: f64 = r.iter().zip(uops).map(|(c, u)| c * u).sum::<f64>() + extra;
            r.iter().copied().chain([issued]).collect()
        })
        .collect();
    let ports: Vec<Option<Port>> = ports.iter().copied().chain([Some(Port::Issue)]).collect();
    let lower: Vec<f64> = lower.iter().copied().chain([FLOOR_S]).collect();
    let (a, ports, lower) = (&a, &ports[..], &lower[..]);
    let evaluate = |x: Vec<f64>| {
        let predicted: Vec<f64> = a.iter().map(|r| ports_time(r, &x, ports)).collect();
        let rel_rms = super::fit::rel_rms(&predicted, t);
        RelFit {
            x,
            predicted,
            rel_rms,
        }
    };
    // Two starts: the linear fit's costs (where cheap operations may sit at the floor
    // and never become the busiest port), and the same with every port operation at a
    // third of the fastest kernel's time.
    let linear = relative_fit(a, t, lower).x;
    let fastest = t
        .iter()
        .copied()
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let even: Vec<f64> = linear
        .iter()
        .zip(ports)
        .map(|(x, p)| {
            if p.is_some() {
                x.max(fastest / 3.0)
            } else {
                *x
            }
        })
        .collect();
    // A third start: every cost at its upper bound, the least time per such operation
    // over the kernels that have it (under the max, no cost can exceed that).
    let upper: Vec<f64> = (0..lower.len())
        .map(|j| {
            let u = a
                .iter()
                .zip(t)
                .filter(|(r, _)| r[j] > 0.0)
                .map(|(r, t)| t / r[j])
                .fold(f64::INFINITY, f64::min);
            if u.is_finite() {
                u.max(lower[j])
            } else {
                lower[j]
            }
        })
        .collect();
    let mut best = evaluate(linear.clone());
    for start in [linear, even, upper] {
        let mut x = start;
        let mut previous: Vec<Option<Port>> = Vec::new();
        for _ in 0..50 {
            let busiest = busiest_ports(a, &x, ports);
            if busiest == previous {
                break;
            }
            let restricted: Vec<Vec<f64>> = a
                .iter()
                .zip(&busiest)
                .map(|(r, b)| {
                    r.iter()
                        .zip(ports)
                        .map(|(c, p)| match p {
                            None => *c,
                            Some(p) if Some(*p) == *b => *c,
                            Some(_) => 0.0,
                        })
                        .collect()
                })
                .collect();
            x = relative_fit(&restricted, t, lower).x;
            let f = evaluate(x.clone());
            if f.rel_rms < best.rel_rms {
                best = f;
            }
            previous = busiest;
        }
    }
    polish(best, lower, &evaluate)
}

/// Coordinate descent on the relative error: each cost in turn scaled by a few factors
/// (halved … doubled, never below its floor), keeping any change that lowers the
/// error, until a sweep changes nothing (at most 200 sweeps). The alternating fit
/// stops where a port's cost sits at the floor and so is never the busiest; this
/// moves it off.
fn polish(mut best: RelFit, lower: &[f64], evaluate: &dyn Fn(Vec<f64>) -> RelFit) -> RelFit {
    const FACTORS: [f64; 8] = [0.5, 0.8, 0.9, 0.97, 1.03, 1.1, 1.25, 2.0];
    for _ in 0..200 {
        let mut improved = false;
        for j in 0..best.x.len() {
            for f in FACTORS {
                let mut x = best.x.clone();
                x[j] = (x[j] * f).max(lower[j]);
                let e = evaluate(x);
                if e.rel_rms < best.rel_rms * (1.0 - 1e-9) {
                    best = e;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
    // Costs the error barely depends on (an operation whose kernels another port
    // explains to within the timing noise, e.g. an integer add in a loop bound by its
    // jump) go down as far as the error allows, each within NOISE of where it
    // started: the least costs that explain the times.
    const NOISE: f64 = 0.002;
    for j in 0..best.x.len() {
        let budget = best.rel_rms + NOISE;
        while best.x[j] > lower[j] {
            let mut x = best.x.clone();
            x[j] = (x[j] * 0.7).max(lower[j]);
            let e = evaluate(x);
            if e.rel_rms > budget {
                break;
            }
            best = e;
        }
    }
    best
}

/// Each row's busiest port under costs `x` (`None` when it uses none).
fn busiest_ports(a: &Rows, x: &[f64], ports: &[Option<Port>]) -> Vec<Option<Port>> {
    a.iter()
        .map(|r| {
            let mut by_port = [0.0f64; Port::ALL.len()];
            for ((c, x), p) in r.iter().zip(x).zip(ports) {
                if let Some(p) = p {
                    by_port[*p as usize] += c * x;
                }
            }
            let (i, top) =
                by_port.iter().enumerate().fold(
                    (0, 0.0),
                    |acc, (i, v)| if *v > acc.1 { (i, *v) } else { acc },
                );
            (top > 0.0).then_some(Port::ALL[i])
        })
        .collect()
}

/// The per-kernel residual table printed on stderr.
pub fn residual_table(fit: &OpsFit) -> String {
    let mut s = String::from("    kernel          measured s/iter   fitted s/iter   error\n");
    for (name, t, p) in &fit.rows {
        let _ = writeln!(
            s,
            "    {name:<15} {t:>15.3e}   {p:>13.3e}   {:>+6.1}%",
            (p - t) / t * 100.0
        );
    }
    let _ = writeln!(
        s,
        "    relative RMS {:.1}% with overlap = \"{}\" ({:.1}% with the other model)",
        fit.rel_rms * 100.0,
        fit.overlap,
        fit.other_rel_rms * 100.0
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Times made from known costs are fitted back exactly.
    #[test]
    fn recovers_costs_from_consistent_times() {
        // The dot product's chain is slower than its other operations together.
        let truth: BTreeMap<&str, f64> = kernels::unknowns()
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                (
                    k,
                    if k.starts_with("latency_") {
                        1e-8
                    } else {
                        1e-10 * (1.0 + i as f64)
                    },
                )
            })
            .collect();
        let all = kernels::unknowns();
        let mut m = costline_ide::machine::Catalog::default_machine();
        m.processor.overlap = Some("sum".into());
        m.processor.ops = truth.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let keys: Vec<OpKey> = all.iter().map(|k| OpKey::parse(k).unwrap()).collect();
        let measured: Vec<(String, f64)> = KERNELS
            .iter()
            .map(|k| {
                let r = kernels::row(k, &all);
                let t = m.execution_s(keys.iter().zip(r));
                (k.name.to_string(), t)
            })
            .collect();
        assert_eq!(measured.iter().find(|(n, _)| n == "dot").unwrap().1, 1e-8);
        let f = fit(&measured, super::super::Overlap::Auto).unwrap();
        assert!(f.rel_rms < 1e-9, "{}", residual_table(&f));
        for (k, v) in &truth {
            assert!(
                (f.costs[*k] / v - 1.0).abs() < 1e-6,
                "{k}: {} vs {v}",
                f.costs[*k]
            );
        }
        assert!(f.missing.is_empty());
    }

    /// A loop iteration the training kernels cannot see (another port is always the
    /// busiest) costs at least a cycle: the dependent integer addition's latency.
    #[test]
    fn a_loop_iteration_costs_at_least_a_cycle() {
        let cycle = 3e-10;
        let all = kernels::unknowns();
        let mut m = costline_ide::machine::Catalog::default_machine();
        m.processor.overlap = Some("ports".into());
        m.processor.ops = all
            .iter()
            .map(|k| {
                let v = match *k {
                    "loop_iter" => FLOOR_S,
                    "latency_add_i32" => cycle,
                    k if k.starts_with("latency_") => 1e-8,
                    _ => 5e-11,
                };
                (k.to_string(), v)
            })
            .collect();
        let keys: Vec<OpKey> = all.iter().map(|k| OpKey::parse(k).unwrap()).collect();
        let measured: Vec<(String, f64)> = KERNELS
            .iter()
            .map(|k| {
                let r = kernels::row(k, &all);
                (k.name.to_string(), m.execution_s(keys.iter().zip(r)))
            })
            .collect();
        let f = fit(&measured, super::super::Overlap::Ports).unwrap();
        assert!(
            (f.costs["latency_add_i32"] / cycle - 1.0).abs() < 1e-3,
            "{}",
            f.costs["latency_add_i32"]
        );
        let floor = f.costs["latency_add_i32"] * (1.0 - 1e-9);
        assert!(f.costs["loop_iter"] >= floor, "{}", f.costs["loop_iter"]);
    }

    #[test]
    fn placements_are_averaged() {
        let runs = vec![
            vec![("store".to_string(), 2.0), ("add".to_string(), 1.0)],
            vec![("store".to_string(), 1.0)],
        ];
        assert_eq!(
            mean_over_runs(&runs),
            vec![("store".to_string(), 1.5), ("add".to_string(), 1.0)]
        );
        assert!(placement_table(&runs).contains("store"));
    }

    #[test]
    fn parses_and_floors() {
        let out = "store 2.9E-10\ncopy 1.0E-11\nadd 2.8E-10\nchecksum 1.0E+08\nbogus 1.0\n";
        let m = parse(out);
        assert_eq!(m.len(), 3);
        let f = fit(&m, super::super::Overlap::Auto).unwrap();
        assert!(f.costs.values().all(|v| *v >= FLOOR_S));
        assert!(f.missing.contains(&"div".to_string()));
        assert!(!f.costs.contains_key("div_f64"));
        // The copy is faster than the store: memcpy, left out of the fit, its rate
        // memcpy's: 1e-11 s per 8 bytes.
        assert_eq!(f.excluded.len(), 1);
        assert!(!f.rows.iter().any(|r| r.0 == "copy"));
        assert_eq!(f.costs["memcpy_byte"], 1.0e-11 / 8.0);
    }
}
