//! `compare --format json` (and the language server's `costline.compare`): the same
//! content as the text report, for scripts and editors, typed and versioned like
//! `check`'s report — per compared DISTRIBUTE the grid, every alternative's predicted
//! times (seconds, `null` without a value), the crossings over N and over P by direct
//! comparison, and the isospeed range comparison with both routes' verdicts per scaled
//! processor count. Keys are printed in the order declared here; fields may be added,
//! none renamed.

use costline_ide::compare::Compared;
use costline_ide::scaling::{Crossing, RangeComparison};
use serde::Serialize;

/// The version of the document.
pub const VERSION: u32 = 1;

/// The JSON document for every compared directive.
#[derive(Debug, Serialize)]
pub struct Document<'a> {
    pub version: u32,
    /// The machine model the times are priced on.
    pub machine: &'a str,
    pub comparisons: Vec<Comparison<'a>>,
}

/// One DISTRIBUTE and its alternatives over the grid.
#[derive(Debug, Serialize)]
pub struct Comparison<'a> {
    pub path: &'a str,
    pub unit: &'a str,
    pub line: u32,
    /// The directive as written (canonical form).
    pub directive: &'a str,
    /// The problem size varied over `sizes` (`null`: none).
    pub param: Option<&'a str>,
    pub sizes: &'a [i64],
    pub procs: &'a [i64],
    /// The distribution as written first.
    pub alternatives: Vec<Alternative<'a>>,
    /// Per processor count and alternative: where it and the one as written cross as N
    /// grows.
    pub crossings_n: Vec<CrossingsOverN>,
    /// Per alternative: where they cross as P grows, at the largest size.
    pub crossings_p: Vec<CrossingsOverP>,
    pub isospeed: Vec<Isospeed>,
}

/// An alternative's predicted times.
#[derive(Debug, Serialize)]
pub struct Alternative<'a> {
    pub label: &'a str,
    pub as_written: bool,
    /// Seconds, `time_s[p index][n index]`; `null` without a prediction.
    pub time_s: &'a [Vec<Option<f64>>],
    /// `complete[p index][n index]`: false where the time leaves out what could not be
    /// modelled (a lower bound; `costline check` lists what); `null` without a
    /// prediction.
    pub complete: Vec<Vec<Option<bool>>>,
}

#[derive(Debug, Serialize)]
pub struct CrossingsOverN {
    pub procs: i64,
    pub alternative: String,
    pub crossings: Vec<CrossingReport>,
}

#[derive(Debug, Serialize)]
pub struct CrossingsOverP {
    pub size: Option<i64>,
    pub alternative: String,
    pub crossings: Vec<CrossingReport>,
}

/// Where two distributions trade places.
#[derive(Debug, Serialize)]
pub struct CrossingReport {
    /// The size (or processor count) from which `faster` is faster.
    pub at: i64,
    pub faster: String,
    /// The two times (as written, alternative) just before and at the crossing.
    pub before_s: [f64; 2],
    pub after_s: [f64; 2],
}

/// The isospeed range comparison of an alternative with the distribution as written.
#[derive(Debug, Serialize)]
pub struct Isospeed {
    pub alternative: String,
    /// The initial state (smallest size and processor count).
    pub from: GridPoint,
    /// The initially slower distribution.
    pub slower: String,
    pub alpha: f64,
    pub rows: Vec<IsospeedRow>,
    pub isospeed_first: Option<i64>,
    pub direct_first: Option<i64>,
    pub disagreement: Option<String>,
    pub no_verdict: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct GridPoint {
    pub size: Option<i64>,
    pub procs: Option<i64>,
}

/// One scaled processor count.
#[derive(Debug, Serialize)]
pub struct IsospeedRow {
    pub procs: i64,
    pub slower_size: i64,
    pub faster_size: i64,
    pub phi: f64,
    pub psi: f64,
    pub ratio: f64,
    pub isospeed_crossing: Option<bool>,
    pub direct_crossing: bool,
    pub times_s: [f64; 2],
}

/// The document for every compared directive.
pub fn document<'a>(all: &'a [Compared], machine: &'a str) -> Document<'a> {
    Document {
        version: VERSION,
        machine,
        comparisons: all.iter().map(comparison).collect(),
    }
}

fn comparison(c: &Compared) -> Comparison<'_> {
    let label = |k: usize| c.rows[k].label.clone();
    let crossings = |k: usize, xs: &[Crossing]| -> Vec<CrossingReport> {
        xs.iter()
            .map(|x| CrossingReport {
                at: x.at,
                faster: if x.faster == 0 { label(k) } else { label(0) },
                before_s: [x.before.0, x.before.1],
                after_s: [x.after.0, x.after.1],
            })
            .collect()
    };
    Comparison {
        path: &c.path,
        unit: &c.unit,
        line: c.line,
        directive: &c.directive,
        param: c.param.as_deref(),
        sizes: &c.sizes,
        procs: &c.procs,
        alternatives: c
            .rows
            .iter()
            .enumerate()
            .map(|(k, r)| Alternative {
                label: &r.label,
                as_written: k == 0,
                time_s: &r.times,
                complete: r
                    .partial
                    .iter()
                    .map(|row| row.iter().map(|p| p.map(|p| !p)).collect())
                    .collect(),
            })
            .collect(),
        crossings_n: c
            .crossings_n
            .iter()
            .map(|(p, k, xs)| CrossingsOverN {
                procs: *p,
                alternative: label(*k),
                crossings: crossings(*k, xs),
            })
            .collect(),
        crossings_p: c
            .crossings_p
            .iter()
            .map(|(k, xs)| CrossingsOverP {
                size: c.sizes.last().copied(),
                alternative: label(*k),
                crossings: crossings(*k, xs),
            })
            .collect(),
        isospeed: c
            .isospeed
            .iter()
            .map(|(k, r)| isospeed(c, label(*k), r))
            .collect(),
    }
}

fn isospeed(c: &Compared, alternative: String, r: &RangeComparison) -> Isospeed {
    Isospeed {
        from: GridPoint {
            size: c.sizes.first().copied(),
            procs: c.procs.first().copied(),
        },
        slower: if r.slower == 0 {
            alternative.clone()
        } else {
            c.rows[0].label.clone()
        },
        alternative,
        alpha: r.alpha,
        rows: r
            .rows
            .iter()
            .map(|row| IsospeedRow {
                procs: row.p,
                slower_size: row.slower.n,
                faster_size: row.faster.n,
                phi: row.slower.psi,
                psi: row.faster.psi,
                ratio: row.ratio,
                isospeed_crossing: row.isospeed_crossing,
                direct_crossing: row.direct_crossing,
                times_s: [row.times.0, row.times.1],
            })
            .collect(),
        isospeed_first: r.isospeed_first,
        direct_first: r.direct_first,
        disagreement: r.disagreement.clone(),
        no_verdict: r.no_verdict.clone(),
    }
}
