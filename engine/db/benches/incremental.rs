//! The engine's side of the editor loop on the synthetic 200-procedure workspace
//! (about 20,000 lines): a cold analysis of the whole file, the re-analysis after a
//! one-character edit inside one procedure, and after an edit of a header that 10 of the
//! procedures include, all up to an assembled `FileAnalysis`, with the procedures' `n`
//! bound to 1024.

use costline_db::AnalysisHost;
use costline_db::Options;
use costline_db::project::Detail;
use costline_fixtures::synthetic::workspace_file;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

const PATH: &str = "work.f90";

fn analyze(host: &AnalysisHost) -> usize {
    let file = host
        .snapshot()
        .file(PATH, Detail::Numbers)
        .expect("not cancelled")
        .expect("in the workspace")
        .expect("loads");
    file.units.len()
}

/// The procedures' `n` bound, so that the work of every processor is computed too.
fn options() -> Options {
    Options {
        bindings: [("n".to_string(), 1024)].into(),
        ..Options::default()
    }
}

fn cold(c: &mut Criterion) {
    let text = workspace_file(200);
    let mut group = c.benchmark_group("incremental");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("cold_20k_lines", |b| {
        b.iter(|| {
            let mut host = AnalysisHost::new(&options(), None);
            host.add_file(PATH, text.clone().into_bytes());
            black_box(analyze(&host))
        })
    });
    group.finish();
}

fn edit(c: &mut Criterion) {
    let text = workspace_file(200);
    let mut host = AnalysisHost::new(&options(), None);
    host.add_file(PATH, text.clone().into_bytes());
    analyze(&host);
    // Typing in procedure 100: the digit of a constant alternates, each edit a new text.
    let at = text.find("! Kernel 100: setup").expect("procedure 100");
    let mut round = 0u64;
    c.bench_function("incremental/edit_one_procedure_20k_lines", |b| {
        b.iter(|| {
            round += 1;
            let mut edited = text.clone();
            edited.insert_str(at, &format!("! {round}\n"));
            host.add_file(PATH, edited.into_bytes());
            black_box(analyze(&host))
        })
    });
}

fn edit_header(c: &mut Criterion) {
    // Every 20th procedure includes the header after its declarations.
    let mut text = workspace_file(200);
    for k in (1..=200).step_by(20) {
        let name = costline_fixtures::synthetic::procedure_name(k);
        let head = format!(
            "subroutine {name}(a, b, c, n)\n  use sizes, only: m, nsteps\n  implicit none\n"
        );
        text = text.replacen(&head, &format!("{head}  include 'hdr.inc'\n"), 1);
    }
    let header = |round: u64| format!("  real :: scratch(64)\n  ! revision {round}\n");
    let mut host = AnalysisHost::new(&options(), None);
    host.set_header_text("hdr.inc", header(0).into_bytes());
    host.add_file(PATH, text.into_bytes());
    analyze(&host);
    let mut round = 0u64;
    let mut group = c.benchmark_group("incremental");
    group.sample_size(20);
    group.bench_function("edit_header_included_by_10_of_200_procedures", |b| {
        b.iter(|| {
            round += 1;
            host.set_header_text("hdr.inc", header(round).into_bytes());
            black_box(analyze(&host))
        })
    });
    group.finish();
}

criterion_group!(benches, cold, edit, edit_header);
criterion_main!(benches);
