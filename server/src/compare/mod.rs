//! `costline compare`: predicted times of a program's distribution alternatives over a
//! grid of problem sizes and processor counts, their crossing points by direct
//! comparison and by isospeed scalability, and a plot.

mod grid;
mod json;
mod report;
mod svg;

use costline_engine::alternatives::{self, Explorer, Layout};
use costline_engine::db::{AnalysisHost, file_units, lower};
use costline_engine::project::Options;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::process::ExitCode;

use crate::Format;
use grid::{Procs, parse_param, parse_procs};

#[derive(clap::Args)]
pub struct CompareArgs {
    /// Fortran sources analyzed together (as for `check`); every DISTRIBUTE with
    /// formats is compared with its alternatives.
    #[arg(required = true)]
    files: Vec<String>,
    /// Bind a program unknown, `--param N=1000`, or give the range of the problem size
    /// to compare over, `--param N=16..1024` (one range at most).
    #[arg(long = "param", value_name = "NAME=VALUE|NAME=LO..HI", value_parser = parse_param)]
    params: Vec<(String, (i64, i64))>,
    /// Processor counts: `LO..HI` (LO, the powers of two between, HI) or a list
    /// `16,64`; the count as written when absent.
    #[arg(long, value_name = "LO..HI|P,P,...", value_parser = parse_procs)]
    procs: Option<Procs>,
    /// The machine model (a name from `costline machines` or a path).
    #[arg(long, value_name = "NAME|PATH")]
    machine: Option<String>,
    /// Write the plot (time vs N per P, time vs P) to this SVG file.
    #[arg(long, value_name = "OUT")]
    svg: Option<String>,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// How many alternatives to show besides the distribution as written.
    #[arg(long, default_value_t = 4)]
    top: usize,
    /// A directory to search for INCLUDE'd files after the including file's own
    /// (repeatable; searched in order).
    #[arg(long = "include", value_name = "DIR")]
    include_dirs: Vec<std::path::PathBuf>,
}

/// Problem sizes sampled over a range.
const SIZES: usize = 9;

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
    pub crossings_n: Vec<(i64, usize, Vec<costline_engine::scaling::Crossing>)>,
    /// Direct route over P at the largest size: (alternative index, crossings).
    pub crossings_p: Vec<(usize, Vec<costline_engine::scaling::Crossing>)>,
    /// Isospeed route from (smallest N, smallest P): (alternative index, comparison).
    pub isospeed: Vec<(usize, costline_engine::scaling::RangeComparison)>,
}

/// An alternative's times over the grid.
pub struct Row {
    pub label: String,
    pub layout: Option<Layout>,
    /// times[p index][n index].
    pub times: Vec<Vec<Option<f64>>>,
}

pub fn run(args: &CompareArgs) -> ExitCode {
    let ranged: Vec<&(String, (i64, i64))> =
        args.params.iter().filter(|(_, (lo, hi))| lo < hi).collect();
    if ranged.len() > 1 {
        eprintln!("costline: compare varies one problem size: give one --param NAME=LO..HI");
        return ExitCode::from(2);
    }
    let mut files = Vec::new();
    for path in &args.files {
        match std::fs::read(path) {
            Ok(bytes) => files.push((path.clone(), bytes)),
            Err(e) => {
                eprintln!("costline: {path}: cannot read the file: {e}");
                return ExitCode::from(1);
            }
        }
    }
    let bindings: BTreeMap<String, i64> = args
        .params
        .iter()
        .map(|(n, (lo, _))| (n.clone(), *lo))
        .filter(|(n, _)| !ranged.iter().any(|(r, _)| r == n))
        .collect();
    let mut options = match crate::settings_file::options(&crate::settings_file::Flags {
        machine: args.machine.as_deref(),
        params: bindings,
        include: &args.include_dirs,
        imbalance_threshold: None,
    }) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("costline: {e}");
            return ExitCode::from(1);
        }
    };
    // The size compared over is varied, whatever costline.toml binds it to.
    for (name, _) in &ranged {
        options.bindings.remove(name);
    }
    let targets = targets(&files, &options);
    if targets.is_empty() {
        crate::stdout::write("no DISTRIBUTE directive with formats: nothing to compare\n");
        return ExitCode::SUCCESS;
    }
    let mut all = Vec::new();
    for (path, unit, directive, line, text) in targets {
        let mut explorer = Explorer::new(files.clone(), options.clone(), &path, &unit, directive);
        if let Some((name, (lo, _))) = ranged.first() {
            explorer.vary(name, *lo);
        }
        let compared = compare(
            explorer,
            args,
            ranged.first().map(|r| r.1),
            (path, unit, line, text),
        );
        all.push(compared);
    }
    match args.format {
        Format::Text => crate::stdout::write(&report::text(&all, &options.machine.name)),
        Format::Json => {
            let doc = json::document(&all, &options.machine.name);
            crate::stdout::write(&(serde_json::to_string_pretty(&doc).expect("serializes") + "\n"));
        }
    }
    if let Some(out) = &args.svg {
        let doc = svg::render(&report::charts(&all));
        if let Err(e) = std::fs::write(out, doc) {
            eprintln!("costline: cannot write {out}: {e}");
            return ExitCode::from(1);
        }
        if args.format == Format::Text {
            crate::stdout::write(&format!("plot written to {out}\n"));
        }
    }
    ExitCode::SUCCESS
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
fn compare(
    explorer: Explorer,
    args: &CompareArgs,
    range: Option<(i64, i64)>,
    (path, unit, line, directive): (String, String, u32, String),
) -> Compared {
    let param = explorer.size_parameter().cloned();
    let target = explorer.target().cloned();
    let written_p = target.as_ref().and_then(|t| t.processors()).unwrap_or(1);
    let sizes = match (range, &param) {
        (Some((lo, hi)), _) => grid::sizes(lo, hi, SIZES),
        (None, Some((_, v))) => vec![*v],
        (None, None) => vec![0],
    };
    let n_of = |n: i64| (param.is_some()).then_some(n);
    let procs = args.procs.clone().map_or_else(|| vec![written_p], |p| p.0);
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
        if shown.len() > args.top || seen.contains(&shape(&l)) {
            continue;
        }
        seen.push(shape(&l));
        shown.push(Some(l));
    }
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
            times: procs
                .iter()
                .map(|&p| {
                    sizes
                        .iter()
                        .map(|&n| {
                            ex.borrow_mut()
                                .predict(l.as_ref(), n_of(n), p)
                                .map(|q| q.time_s)
                        })
                        .collect()
                })
                .collect(),
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
                let c = costline_engine::scaling::crossings_in_n(&mut a, &mut b, p, &sizes);
                crossings_n.push((p, k, c));
            }
        }
        if procs.len() > 1 {
            let n = *sizes.last().expect("a size");
            crossings_p.push((
                k,
                costline_engine::scaling::crossings_in_p(&mut a, &mut b, n, &procs),
            ));
            if param.is_some() {
                let n_max = sizes.last().copied().unwrap_or(1).saturating_mul(16);
                if let Some(r) = costline_engine::scaling::range_comparison(
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
