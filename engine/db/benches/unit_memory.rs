//! What each per-unit query keeps, and how long it takes, on a file of many small units
//! (not a timed test: `cargo bench -p costline-db --bench unit_memory [-- PROCEDURES]`,
//! default 8,334 twelve-line procedures, the 100k-line file of the server's
//! `edit_scaling` bench, `n` bound to 1024). The queries run stage by stage over every
//! unit on one thread; after each stage jemalloc's count of allocated bytes says what
//! the stage's memos (and the queries it ran first) hold.

use costline_db::{
    AnalysisHost, Options, UnitText, cache, comm, comm_records, comm_values, counts, file_units,
    freqs, locality, lower, mappings, nests, times, unit_diagnostics, values, vector_verdicts,
    work,
};
use costline_fixtures::synthetic::small_procedures_file;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Bytes allocated now, in MiB.
fn allocated() -> f64 {
    let _ = tikv_jemalloc_ctl::epoch::advance();
    tikv_jemalloc_ctl::stats::allocated::read().unwrap_or(0) as f64 / 1048576.0
}

type Stage = for<'db> fn(&'db dyn salsa::Database, UnitText<'db>);

const STAGES: &[(&str, Stage)] = &[
    ("parse", |db, u| drop(costline_db::analysis::parse(db, u))),
    ("lower", |db, u| drop(lower(db, u))),
    ("mappings", |db, u| drop(mappings(db, u))),
    ("freqs", |db, u| drop(freqs(db, u))),
    ("counts", |db, u| drop(counts(db, u))),
    ("work", |db, u| drop(work(db, u))),
    ("values", |db, u| drop(values(db, u))),
    ("comm", |db, u| drop(comm(db, u))),
    ("comm_records", |db, u| drop(comm_records(db, u))),
    ("comm_values", |db, u| drop(comm_values(db, u))),
    ("nests", |db, u| drop(nests(db, u))),
    ("cache", |db, u| drop(cache(db, u))),
    ("vector_verdicts", |db, u| drop(vector_verdicts(db, u))),
    ("times", |db, u| drop(times(db, u))),
    ("locality", |db, u| drop(locality(db, u))),
    ("unit_diagnostics", |db, u| drop(unit_diagnostics(db, u))),
];

fn main() {
    let procedures = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(8334);
    let text = small_procedures_file(procedures);
    let options = Options {
        bindings: [("n".to_string(), 1024)].into(),
        ..Options::default()
    };
    let start = allocated();
    let mut host = AnalysisHost::new(&options, None);
    host.add_file("small.f90", text.into_bytes());
    let snapshot = host.snapshot();
    let file = snapshot.file_id("small.f90").expect("the file");
    let db: &dyn salsa::Database = snapshot.db();
    let units: Vec<UnitText> = file_units(db, file)
        .as_ref()
        .map(|f| f.units.clone())
        .unwrap_or_default();
    let n = units.len().max(1) as f64;
    let mut last = allocated();
    println!(
        "{} units; the file and its split: {:.1} MiB",
        units.len(),
        last - start
    );
    println!(
        "{:>18} {:>9} {:>9} {:>9}",
        "stage", "MiB kept", "KiB/unit", "ms"
    );
    for (name, stage) in STAGES {
        let t = Instant::now();
        for &u in &units {
            stage(db, u);
        }
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let now = allocated();
        println!(
            "{name:>18} {:>9.1} {:>9.2} {ms:>9.1}",
            now - last,
            (now - last) * 1024.0 / n
        );
        last = now;
    }
    println!("total {:.1} MiB", last - start);
}
