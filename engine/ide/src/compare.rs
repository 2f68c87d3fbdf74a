//! What `costline compare` prints, as data: every prescriptive DISTRIBUTE of the files
//! with its alternatives priced over a grid of problem sizes and processor counts, and
//! their crossing points by direct comparison and by isospeed scalability (range
//! comparison, Sun, Pantano and Fahringer). The binary renders it as text, JSON or SVG.

use costline_db::alternatives::{self, Explorer, Layout, Prediction};
use costline_db::{AnalysisHost, Options, file_units, lower};
use costline_model::scaling::{self, Crossing, RangeComparison};
use std::cell::RefCell;

/// Problem sizes sampled over a range.
const SIZES: usize = 9;

/// The grid the alternatives are priced over.
pub struct Grid {
    /// The problem size varied and its range (inclusive), if one is.
    pub range: Option<(String, (i64, i64))>,
    /// Processor counts, ascending; the count as written when `None`.
    pub procs: Option<Vec<i64>>,
    /// How many alternatives to show besides the distribution as written.
    pub top: usize,
    /// Compare the DISTRIBUTEs of this file only (the other files are analyzed with
    /// it); `None`: of every file.
    pub only: Option<String>,
}

/// One DISTRIBUTE compared: where it is and the alternatives shown.
pub struct Compared {
    pub path: String,
    pub unit: String,
    pub line: u32,
    pub directive: String,
    pub param: Option<String>,
    pub sizes: Vec<i64>,
    pub procs: Vec<i64>,
    /// Index 0 is the distribution as written.
    pub rows: Vec<Row>,
    /// Direct route over N, per P: (p, alternative index, crossings).
    pub crossings_n: Vec<(i64, usize, Vec<Crossing>)>,
    /// Direct route over P at the largest size: (alternative index, crossings).
    pub crossings_p: Vec<(usize, Vec<Crossing>)>,
    /// Isospeed route from (smallest N, smallest P): (alternative index, comparison).
    pub isospeed: Vec<(usize, RangeComparison)>,
}

/// An alternative's times over the grid.
pub struct Row {
    pub label: String,
    pub layout: Option<Layout>,
    /// times[p index][n index].
    pub times: Vec<Vec<Option<f64>>>,
    /// partial[p index][n index]: whether the time leaves out what the analysis could not
    /// model (communication, a callee's body): a lower bound, not the prediction.
    pub partial: Vec<Vec<Option<bool>>>,
}

/// Every prescriptive DISTRIBUTE of `files` (path, contents), analysed together under
/// `options` (the size varied left unbound), compared over `grid`.
pub fn compare(files: &[(String, Vec<u8>)], options: &Options, grid: &Grid) -> Vec<Compared> {
    let mut all = Vec::new();
    let targets = targets(files, options)
        .into_iter()
        .filter(|(path, ..)| grid.only.as_ref().is_none_or(|only| only == path));
    for (path, unit, directive, line, text) in targets {
        let mut explorer = Explorer::new(files.to_vec(), options.clone(), &path, &unit, directive);
        if let Some((name, (lo, _))) = &grid.range {
            explorer.vary(name, *lo);
        }
        all.push(compare_one(explorer, grid, (path, unit, line, text)));
    }
    all
}

/// Every prescriptive DISTRIBUTE of the files: (path, unit, directive index, line, text).
fn targets(
    files: &[(String, Vec<u8>)],
    options: &Options,
) -> Vec<(String, String, usize, u32, String)> {
    let mut host = AnalysisHost::new(options, None);
    for (p, b) in files {
        host.add_file(p, b.clone());
    }
    let a = host.snapshot();
    let mut out = Vec::new();
    for (path, _) in files {
        let Some(file) = a.file_id(path) else {
            continue;
        };
        let found = a.with_db(|db| {
            let mut found = Vec::new();
            let Ok(f) = file_units(db, file) else {
                return found;
            };
            for (chunk, &u) in f.chunks.iter().zip(&f.units) {
                let ir = lower(db, u);
                for i in alternatives::distribute_directives(&ir) {
                    let span = chunk.file_span(ir.directives[i].span);
                    let line = f.source.line_col(span.start).0;
                    let text = format!("!HPF$ {}", ir.directives[i].kind);
                    found.push((path.clone(), ir.name.clone(), i, line, text));
                }
            }
            found
        });
        out.extend(found.unwrap_or_default());
    }
    out
}

/// Prices the alternatives over the grid and finds the crossings.
fn compare_one(
    explorer: Explorer,
    grid: &Grid,
    (path, unit, line, directive): (String, String, u32, String),
) -> Compared {
    let param = explorer.size_parameter().cloned();
    let target = explorer.target().cloned();
    let written_p = target.as_ref().and_then(|t| t.processors()).unwrap_or(1);
    let sizes = match (&grid.range, &param) {
        (Some((_, (lo, hi))), _) => sizes(*lo, *hi, SIZES),
        (None, Some((_, v))) => vec![*v],
        (None, None) => vec![0],
    };
    let n_of = |n: i64| (param.is_some()).then_some(n);
    let procs = grid.procs.clone().unwrap_or_else(|| vec![written_p]);
    let ex = RefCell::new(explorer);
    // Rank every candidate at the middle size on the largest processor count.
    let n_mid = sizes[sizes.len() / 2];
    let p_ref = *procs.last().expect("one processor count at least");
    let mut ranked: Vec<(f64, Layout)> = target
        .as_ref()
        .map(alternatives::candidates)
        .unwrap_or_default()
        .into_iter()
        .filter(|l| Some(l) != target.as_ref().and_then(|t| t.current.as_ref()))
        .filter_map(|l| {
            Some((
                ex.borrow_mut()
                    .predict(Some(&l), n_of(n_mid), p_ref)?
                    .time_s,
                l,
            ))
        })
        .collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Layouts with the same grids on every P compared are one.
    let shape = |l: &Layout| -> (Vec<_>, Vec<_>) {
        (
            l.formats.clone(),
            procs.iter().map(|p| l.grid.extents(*p)).collect(),
        )
    };
    let mut seen: Vec<_> = target.iter().flat_map(|t| &t.current).map(shape).collect();
    let mut shown: Vec<Option<Layout>> = vec![None];
    for (_, l) in ranked {
        if shown.len() > grid.top || seen.contains(&shape(&l)) {
            continue;
        }
        seen.push(shape(&l));
        shown.push(Some(l));
    }
    // Per P, per N (memoized: asking twice costs nothing).
    let predictions = |l: &Option<Layout>| -> Vec<Vec<Option<Prediction>>> {
        procs
            .iter()
            .map(|&p| {
                sizes
                    .iter()
                    .map(|&n| ex.borrow_mut().predict(l.as_ref(), n_of(n), p))
                    .collect()
            })
            .collect()
    };
    let rows: Vec<Row> = shown
        .iter()
        .map(|l| Row {
            label: match l {
                None => format!(
                    "{} (as written)",
                    target
                        .as_ref()
                        .and_then(|t| t.current.as_ref())
                        .map_or("as written".to_string(), |c| c.to_string())
                ),
                Some(l) => l.to_string(),
            },
            layout: l.clone(),
            times: per_cell(&predictions(l), &|q| q.time_s),
            partial: per_cell(&predictions(l), &|q| !q.complete),
        })
        .collect();
    let model = |l: Option<Layout>| {
        let ex = &ex;
        move |n: i64, p: i64| {
            ex.borrow_mut()
                .predict(l.as_ref(), Some(n), p)
                .map(|q| q.point())
        }
    };
    let mut crossings_n = Vec::new();
    let mut crossings_p = Vec::new();
    let mut isospeed = Vec::new();
    for (k, row) in rows.iter().enumerate().skip(1) {
        let (mut a, mut b) = (model(row.layout.clone()), model(None));
        if sizes.len() > 1 {
            for &p in &procs {
                let c = scaling::crossings_in_n(&mut a, &mut b, p, &sizes);
                crossings_n.push((p, k, c));
            }
        }
        if procs.len() > 1 {
            let n = *sizes.last().expect("a size");
            crossings_p.push((k, scaling::crossings_in_p(&mut a, &mut b, n, &procs)));
            if param.is_some() {
                let n_max = sizes.last().copied().unwrap_or(1).saturating_mul(16);
                if let Some(r) = scaling::range_comparison(
                    &mut a,
                    &mut b,
                    sizes[0],
                    procs[0],
                    &procs[1..],
                    n_max,
                ) {
                    isospeed.push((k, r));
                }
            }
        }
    }
    Compared {
        path,
        unit,
        line,
        directive,
        param: param.map(|(n, _)| n),
        sizes,
        procs,
        rows,
        crossings_n,
        crossings_p,
        isospeed,
    }
}

/// `f` of every prediction of a grid (`None` where there is none).
fn per_cell<T>(
    grid: &[Vec<Option<Prediction>>],
    f: &dyn Fn(&Prediction) -> T,
) -> Vec<Vec<Option<T>>> {
    grid.iter()
        .map(|row| row.iter().map(|q| q.as_ref().map(f)).collect())
        .collect()
}

/// About `count` sizes from `lo` to `hi`, evenly spaced on a log scale (both ends
/// included, distinct integers).
fn sizes(lo: i64, hi: i64, count: usize) -> Vec<i64> {
    if lo >= hi || count < 2 {
        return vec![lo];
    }
    let (a, b) = ((lo.max(1) as f64).ln(), (hi as f64).ln());
    let mut out: Vec<i64> = (0..count)
        .map(|k| (a + (b - a) * k as f64 / (count - 1) as f64).exp().round() as i64)
        .collect();
    out[0] = lo;
    out[count - 1] = hi;
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_on_a_log_scale() {
        assert_eq!(sizes(16, 1024, 7), vec![16, 32, 64, 128, 256, 512, 1024]);
        assert_eq!(sizes(5, 5, 9), vec![5]);
        assert_eq!(sizes(2, 4, 9), vec![2, 3, 4]);
    }
}
