//! What `compare` prints and plots: per DISTRIBUTE, a table of predicted times per
//! alternative over the grid, the crossing points by both routes, and the charts.

use super::svg::{Chart, Marker, Series};
use costline_ide::compare::Compared;
use costline_ide::scaling::Crossing;
use std::fmt::Write;

/// Seconds in a unit that keeps three significant digits.
fn secs(t: Option<f64>) -> String {
    match t {
        None => "—".into(),
        Some(t) if t >= 1.0 => format!("{t:.3} s"),
        Some(t) if t >= 1e-3 => format!("{:.3} ms", t * 1e3),
        Some(t) => format!("{:.3} µs", t * 1e6),
    }
}

/// The name of the compared model `k` (0 = as written).
fn name(c: &Compared, k: usize) -> &str {
    &c.rows[k].label
}

/// One crossing in words: `from N = 60 on, (*, BLOCK) is faster`.
fn crossing(c: &Compared, k: usize, x: &Crossing, axis: &str) -> String {
    let who = if x.faster == 0 {
        name(c, k)
    } else {
        name(c, 0)
    };
    format!(
        "from {axis} = {} on, {who} is faster ({} vs {} just before)",
        x.at,
        secs(Some(x.before.0.min(x.before.1))),
        secs(Some(x.before.0.max(x.before.1)))
    )
}

/// Who is faster where, between alternative `k` and the layout as written over the
/// sizes at processor count `pi`: `(*, BLOCK) vs as written: (*, BLOCK) is faster for
/// N < 54 and N = 201..384, as written for N = 54..200 and N ≥ 385`.
fn regimes(c: &Compared, k: usize, pi: usize, xs: &[Crossing], axis: &str) -> String {
    let (lo, hi) = (
        c.sizes.first().copied().unwrap_or(0),
        c.sizes.last().copied().unwrap_or(0),
    );
    let head = format!("{} vs as written:", name(c, k));
    // The winner before the first crossing: the other one than the crossing's, or,
    // without a crossing, the faster at the first size.
    let first = match xs.first() {
        Some(x) => 1 - x.faster.min(1),
        None => {
            let at = |r: usize| c.rows[r].times[pi].first().copied().flatten();
            match (at(k), at(0)) {
                (Some(a), Some(b)) if a < b => 0,
                (Some(_), Some(_)) => 1,
                _ => return format!("{head} no crossing in {axis}"),
            }
        }
    };
    let mut wins: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut from = lo;
    let mut winner = first;
    for x in xs {
        wins[winner].push(if from == lo {
            format!("{axis} < {}", x.at)
        } else {
            format!("{axis} = {from}..{}", x.at - 1)
        });
        from = x.at;
        winner = x.faster.min(1);
    }
    wins[winner].push(if from == lo {
        format!("the whole range ({axis} = {lo}..{hi})")
    } else {
        format!("{axis} ≥ {from}")
    });
    let who = [name(c, k), "as written"];
    let other = 1 - first;
    let mut line = format!(
        "{head} {} is faster for {}",
        who[first],
        wins[first].join(" and ")
    );
    if !wins[other].is_empty() {
        let _ = write!(line, ", {} for {}", who[other], wins[other].join(" and "));
    }
    line
}

/// The report for every compared directive.
pub fn text(all: &[Compared], machine: &str) -> String {
    let mut out = String::new();
    for c in all {
        let n = c.param.as_deref().unwrap_or("n").to_ascii_uppercase();
        let _ = writeln!(
            out,
            "{}:{}: {} in `{}` on {machine}",
            c.path, c.line, c.directive, c.unit
        );
        for (pi, p) in c.procs.iter().enumerate() {
            let _ = writeln!(out, "\n  P = {p}");
            let width = c
                .rows
                .iter()
                .map(|r| r.label.chars().count())
                .max()
                .unwrap_or(0);
            // Without a size parameter the one column is the program as written.
            let head = match &c.param {
                Some(_) => {
                    c.sizes
                        .iter()
                        .fold(format!("    {:width$}", format!("{n} =")), |mut h, s| {
                            let _ = write!(h, " {s:>12}");
                            h
                        })
                }
                None => format!("    {:width$} {:>12}", "size", "as written"),
            };
            let _ = writeln!(out, "{head}");
            let mut partial = false;
            for row in &c.rows {
                let mut line = format!("    {:width$}", row.label);
                for (ni, t) in row.times[pi].iter().enumerate() {
                    let best = c
                        .rows
                        .iter()
                        .filter_map(|r| r.times[pi][ni])
                        .fold(f64::INFINITY, f64::min);
                    let mark = if *t == Some(best) { "*" } else { " " };
                    let time = if row.partial[pi][ni] == Some(true) {
                        partial = true;
                        format!("≥ {}", secs(*t))
                    } else {
                        secs(*t)
                    };
                    let _ = write!(line, " {time:>11}{mark}");
                }
                let _ = writeln!(out, "{}", line.trim_end());
            }
            if partial {
                let _ = writeln!(
                    out,
                    "    ≥: a lower bound, leaving out what could not be modelled (`costline check` lists it)"
                );
            }
            for (_, k, xs) in c.crossings_n.iter().filter(|(q, _, _)| q == p) {
                let _ = writeln!(out, "    {}", regimes(c, *k, pi, xs, &n));
                for x in xs {
                    let _ = writeln!(out, "      crossing: {}", crossing(c, *k, x, &n));
                }
            }
        }
        for (k, xs) in &c.crossings_p {
            let n_last = c.sizes.last().copied().unwrap_or(0);
            for x in xs {
                let _ = writeln!(
                    out,
                    "\n  over P at {n} = {n_last}: {}",
                    crossing(c, *k, x, "P")
                );
            }
        }
        for (k, r) in &c.isospeed {
            let slower = if r.slower == 0 {
                name(c, *k)
            } else {
                name(c, 0)
            };
            let _ = writeln!(
                out,
                "\n  isospeed scalability, {} vs as written, from {n} = {}, P = {} (slower: {slower}, alpha = {:.3}):",
                name(c, *k),
                c.sizes[0],
                c.procs[0],
                r.alpha
            );
            let _ = writeln!(
                out,
                "    {:>6} {:>8} {:>8} {:>8} {:>8} {:>8}  crossing (isospeed / direct)",
                "P'", "n'", "n*", "Phi", "Psi", "Phi/Psi"
            );
            for row in &r.rows {
                let yes = |b: Option<bool>| match b {
                    Some(true) => "yes",
                    Some(false) => "no",
                    None => "n/a",
                };
                let _ = writeln!(
                    out,
                    "    {:>6} {:>8} {:>8} {:>8.3} {:>8.3} {:>8.3}  {} / {}",
                    row.p,
                    row.slower.n,
                    row.faster.n,
                    row.slower.psi,
                    row.faster.psi,
                    row.ratio,
                    yes(row.isospeed_crossing),
                    yes(Some(row.direct_crossing))
                );
            }
            let first = |x: Option<i64>| x.map_or("none".to_string(), |p| format!("P' = {p}"));
            match &r.disagreement {
                None if r.no_verdict.is_none() => {
                    let _ = writeln!(
                        out,
                        "    first scaled crossing: {} (both routes agree)",
                        first(r.isospeed_first)
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "    first scaled crossing: isospeed {}, direct {} (they agree wherever eq. 5 has a verdict)",
                        first(r.isospeed_first),
                        first(r.direct_first)
                    );
                }
                Some(why) => {
                    let _ = writeln!(
                        out,
                        "    first scaled crossing: isospeed {}, direct {}; they differ: {why}",
                        first(r.isospeed_first),
                        first(r.direct_first)
                    );
                }
            }
            if let Some(why) = &r.no_verdict {
                let _ = writeln!(
                    out,
                    "    (n/a: {why} First scaled crossing by direct comparison: {}.)",
                    first(r.direct_first)
                );
            }
        }
        out.push('\n');
    }
    out
}

/// The charts: time vs N per processor count (crossings marked), then time vs P at
/// the largest size.
pub fn charts(all: &[Compared]) -> Vec<Chart> {
    let mut out = Vec::new();
    for c in all {
        let n = c.param.as_deref().unwrap_or("n").to_ascii_uppercase();
        let series = |pi: usize, by_p: bool| -> Vec<Series> {
            c.rows
                .iter()
                .enumerate()
                .map(|(k, r)| Series {
                    name: r.label.clone(),
                    points: if by_p {
                        let last = c.sizes.len() - 1;
                        c.procs
                            .iter()
                            .zip(&r.times)
                            .filter_map(|(p, t)| Some((*p as f64, t[last]?)))
                            .collect()
                    } else {
                        c.sizes
                            .iter()
                            .zip(&r.times[pi])
                            .filter_map(|(s, t)| Some((*s as f64, (*t)?)))
                            .collect()
                    },
                    highlight: k == 0,
                })
                .collect()
        };
        if c.sizes.len() > 1 {
            for (pi, p) in c.procs.iter().enumerate() {
                out.push(Chart {
                    title: format!("{} — predicted time vs {n}, P = {p}", c.directive),
                    x_label: n.clone(),
                    y_label: "time per run".into(),
                    log_x: true,
                    log_y: true,
                    series: series(pi, false),
                    markers: c
                        .crossings_n
                        .iter()
                        .filter(|(q, _, _)| q == p)
                        .flat_map(|(_, _, xs)| xs)
                        .map(|x| Marker {
                            x: x.at as f64,
                            label: format!("{n} = {}", x.at),
                        })
                        .collect(),
                });
            }
        }
        if c.procs.len() > 1 {
            out.push(Chart {
                title: format!(
                    "{} — predicted time vs P, {n} = {}",
                    c.directive,
                    c.sizes.last().copied().unwrap_or(0)
                ),
                x_label: "P (processors)".into(),
                y_label: "time per run".into(),
                log_x: true,
                log_y: true,
                series: series(0, true),
                markers: c
                    .crossings_p
                    .iter()
                    .flat_map(|(_, xs)| xs)
                    .map(|x| Marker {
                        x: x.at as f64,
                        label: format!("P = {}", x.at),
                    })
                    .collect(),
            });
        }
    }
    out
}
