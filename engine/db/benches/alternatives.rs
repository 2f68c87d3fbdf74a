//! Pricing distribution alternatives after the first analysis: 20 alternatives of the
//! DISTRIBUTE directives of a synthetic ~500-line HPF program (five procedures and a
//! driver, `n` bound to 1024), each a salsa variant of its unit (issue 9: < 100 ms).

use costline_db::Options;
use costline_db::alternatives::{
    Hand, distribute_directives, others, predict_layout, price_share, target_of,
};
use costline_db::project::Detail;
use costline_db::{AnalysisHost, file_units, lower};
use costline_fixtures::synthetic::workspace_file;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

const PATH: &str = "work.f90";

/// A host with the program analyzed once (what the editor has when asked).
fn warm(text: &str) -> AnalysisHost {
    let options = Options {
        bindings: [("n".to_string(), 1024)].into(),
        ..Options::default()
    };
    let mut host = AnalysisHost::new(&options, None);
    host.add_file(PATH, text.as_bytes().to_vec());
    host.snapshot()
        .file(PATH, Detail::Numbers)
        .expect("not cancelled")
        .expect("in the workspace")
        .expect("loads");
    host
}

/// Prices the first `count` alternatives (other than the distributions as written) over
/// the file's DISTRIBUTEs on all cores, as the code actions do; how many had a value.
fn price(host: &AnalysisHost, count: usize) -> usize {
    let a = host.snapshot();
    let file = a.file_id(PATH).expect("in the workspace");
    let counter = AtomicUsize::new(0);
    a.on_all_cores(&|db, _, _| {
        let mut hand = Hand::new(&counter);
        let units = file_units(db, file).as_ref().expect("loads");
        let mut left = count;
        for &u in &units.units {
            let directives = distribute_directives(&lower(db, u));
            left -= price_share(db, u, &directives, left, &mut hand);
            if left == 0 {
                return;
            }
        }
    })
    .expect("not cancelled");
    // Now memoized: count the priced ones.
    a.with_db(|db| {
        let units = file_units(db, file).as_ref().expect("loads");
        let mut priced = 0;
        let mut tried = 0;
        for &u in &units.units {
            for d in distribute_directives(&lower(db, u)) {
                let Some(t) = target_of(db, u, d) else {
                    continue;
                };
                let p = t.processors().unwrap_or(1);
                for l in others(&t, p) {
                    if tried == count {
                        return priced;
                    }
                    tried += 1;
                    priced += usize::from(predict_layout(db, u, &t, &l, p).is_some());
                }
            }
        }
        priced
    })
    .expect("not cancelled")
}

fn alternatives(c: &mut Criterion) {
    let text = workspace_file(5);
    assert!(
        text.lines().count() >= 450,
        "{} lines",
        text.lines().count()
    );
    let mut group = c.benchmark_group("alternatives");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    // By reference: the host (the whole database) is dropped outside the timing, as
    // the editor keeps it after pricing (dropping it costs 7 ms or more).
    group.bench_function("20_alternatives_500_lines", |b| {
        b.iter_batched_ref(
            || warm(&text),
            |host| black_box(price(host, 20)),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, alternatives);
criterion_main!(benches);
