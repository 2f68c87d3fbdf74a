//! The streamed report ([`report::stream`], a batch of units at a time, the bulky
//! intermediates evicted between batches) against the report of the whole analysis held
//! at once from a database that evicts nothing, and the streamed JSON against serde's
//! printing of the whole report.

use costline_db::project::Detail;
use costline_db::{AnalysisHost, Options};
use costline_ide::report::{self, FileReport, JsonReport, Report, file_report, file_reports};
use std::collections::BTreeMap;
use std::fmt::Write;

/// More units than a batch (128) and than what an evicting query keeps (256), calling
/// each other (the whole-program fold reaches across batches) and distributed (each has
/// communication and work formulas, the evicted intermediates).
fn many_units(units: usize) -> String {
    let mut text = String::new();
    for k in 0..units {
        let call = if k + 1 < units {
            format!("  call s{}(a, b, n)\n", k + 1)
        } else {
            String::new()
        };
        let _ = write!(
            text,
            "subroutine s{k}(a, b, n)\n  integer :: n, i\n  real :: a(n), b(n)\n\
             !HPF$ PROCESSORS pr(4)\n!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a, b\n\
             \x20 do i = 2, n - {m}\n    a(i) = b(i - 1) + b(i + {m})\n  end do\n{call}\
             end subroutine s{k}\n",
            m = 1 + k % 3
        );
    }
    text += "program main\n  real :: a(64), b(64)\n  call s0(a, b, 64)\nend program main\n";
    text
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/free");
    let mut inputs: Vec<(String, Vec<u8>)> = ["jacobi_hpf.f90", "mpi_ring.f90", "hpf_local.f90"]
        .iter()
        .map(|f| {
            let path = format!("{fixtures}/{f}");
            let bytes = std::fs::read(&path).expect("the fixture reads");
            (path, bytes)
        })
        .collect();
    inputs.push(("many.f90".into(), many_units(300).into_bytes()));
    inputs.push(("empty.f90".into(), Vec::new()));
    inputs.push(("binary.f90".into(), vec![0, 159, 146, 150, 0, 1, 2]));
    inputs
}

fn options() -> Options {
    Options {
        bindings: BTreeMap::from([("n".to_string(), 1000)]),
        ..Options::default()
    }
}

#[test]
fn a_streamed_report_is_the_report_of_the_analysis_held_at_once() {
    let (inputs, options) = (inputs(), options());
    let streamed = file_reports(&inputs, &options);
    let mut host = AnalysisHost::new(&options, None);
    for (path, bytes) in &inputs {
        host.add_file(path, bytes.clone());
    }
    let analysis = host.snapshot();
    assert_eq!(streamed.len(), inputs.len());
    for ((path, _), streamed) in inputs.iter().zip(&streamed) {
        let held: FileReport = match analysis.file(path, Detail::Formulas).unwrap().unwrap() {
            Ok(file) => file_report(&file),
            Err(e) => FileReport::failed(path, e.line, e.column, "binary", e.message),
        };
        let [held, streamed] = [&held, streamed].map(|r| serde_json::to_string_pretty(r).unwrap());
        assert_eq!(held, streamed, "{path}");
    }
    assert_eq!(streamed[3].units.len(), 301);
}

#[test]
fn the_streamed_json_is_serdes_printing_of_the_whole_report() {
    let (inputs, options) = (inputs(), options());
    for params in [BTreeMap::new(), options.bindings.clone()] {
        for files in [&inputs[..0], &inputs[4..5], &inputs[..]] {
            let whole = Report::new(file_reports(files, &options), &params, "a \"machine\"");
            let expected = serde_json::to_string_pretty(&whole).unwrap() + "\n";
            let mut sink = JsonReport::new(Vec::new(), "a \"machine\"", &params);
            report::stream(files, &options, &mut sink);
            let streamed = String::from_utf8(sink.finish().unwrap()).unwrap();
            assert_eq!(streamed, expected, "{} files", files.len());
        }
    }
}
