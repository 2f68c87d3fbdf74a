//! The `poor-locality` quick fix end to end: the diagnostic fires on a row-order
//! traversal of a column-major array, its code action interchanges the loops, and the
//! fixed program still compiles with gfortran and prints the same result. Also: the
//! fix is not offered where the interchange would change the results.

use costline_ide::{AnalysisHost, Options, Span};
use std::path::Path;
use std::process::Command;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/cache/row_order.f90"
);

/// The code actions on the whole text, and the text with the first one applied.
fn fix(text: &str) -> (usize, Option<String>) {
    let mut host = AnalysisHost::new(&Options::default());
    host.add_file("t.f90", text.as_bytes().to_vec());
    let analysis = host.snapshot();
    let diagnostics = analysis.diagnostics("t.f90").unwrap();
    let found = diagnostics
        .iter()
        .filter(|d| d.code == "poor-locality")
        .count();
    let actions = analysis
        .code_actions("t.f90", Span::new(0, text.len()))
        .unwrap();
    let fixed = actions.first().map(|a| {
        let mut edits = a.edits.clone();
        edits.sort_by_key(|(s, _)| std::cmp::Reverse(s.start));
        let mut out = text.to_string();
        for (span, new) in edits {
            out.replace_range(span.start as usize..span.end as usize, &new);
        }
        out
    });
    (found, fixed)
}

/// Compiles and runs a program with gfortran, returning what it prints; `None` (and
/// a note) when gfortran is not installed.
fn run(dir: &Path, name: &str, text: &str) -> Option<String> {
    let src = dir.join(format!("{name}.f90"));
    let exe = dir.join(name);
    std::fs::write(&src, text).unwrap();
    let status = Command::new("gfortran")
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(&src)
        .status();
    match status {
        Err(_) => {
            eprintln!("gfortran not found: the compile-and-run check is skipped");
            None
        }
        Ok(s) => {
            assert!(s.success(), "gfortran rejected {name}:\n{text}");
            let out = Command::new(&exe).output().unwrap();
            assert!(out.status.success());
            Some(String::from_utf8(out.stdout).unwrap())
        }
    }
}

#[test]
fn the_interchange_fixes_a_row_order_traversal_and_keeps_the_results() {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let (found, fixed) = fix(&text);
    assert_eq!(found, 1, "one poor-locality finding");
    let fixed = fixed.expect("an interchange is offered");
    assert!(
        fixed.contains("  do j = 2, n\n    do i = 1, n\n      a(i, j)"),
        "the loops are swapped:\n{fixed}"
    );
    // The fixed program has no finding left.
    assert_eq!(fix(&fixed).0, 0, "fixed:\n{fixed}");
    let dir = std::env::temp_dir().join(format!("costline-locality-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let before = run(&dir, "before", &text);
    let after = run(&dir, "after", &fixed);
    assert_eq!(before, after, "the same output before and after");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_interchange_against_a_dependence_or_a_reduction() {
    // a(i, j) needs a(i - 1, j + 1): direction (<, >) on (i, j).
    let dependence = "subroutine s(n, a)\n  integer :: n, i, j\n  real(8) :: a(n, n)\n  do i = 2, n\n    do j = 1, n - 1\n      a(i, j) = a(i - 1, j + 1) + 1.0d0\n    end do\n  end do\nend subroutine s\n";
    let (found, fixed) = fix(dependence);
    assert_eq!(found, 1);
    assert_eq!(fixed, None, "illegal interchange offered");
    // A sum in another order gives other roundings.
    let reduction = "subroutine s(n, a, t)\n  integer :: n, i, j\n  real(8) :: a(n, n), t\n  t = 0\n  do i = 1, n\n    do j = 1, n\n      t = t + a(i, j)\n    end do\n  end do\nend subroutine s\n";
    let (found, fixed) = fix(reduction);
    assert_eq!(found, 1);
    assert_eq!(fixed, None);
    // Storage order already: nothing to say.
    let good = "subroutine s(n, a)\n  integer :: n, i, j\n  real(8) :: a(n, n)\n  do j = 1, n\n    do i = 1, n\n      a(i, j) = 1.0d0\n    end do\n  end do\nend subroutine s\n";
    assert_eq!(fix(good), (0, None));
}

/// The `poor-locality` messages on `text`.
fn messages(text: &str) -> Vec<String> {
    let mut host = AnalysisHost::new(&Options::default());
    host.add_file("t.f90", text.as_bytes().to_vec());
    let analysis = host.snapshot();
    analysis
        .diagnostics("t.f90")
        .unwrap()
        .into_iter()
        .filter(|d| d.code == "poor-locality")
        .map(|d| d.message)
        .collect()
}

/// `ue(i, m)` over `m` innermost, `j` (which does not index `ue`) between: with 2000
/// trips of `m` the lines one run touches (2000 × 64 bytes) do not stay in L1, and the
/// finding names what `j` does (nothing to `ue`), not a first dimension it does not
/// run through. With 5 trips (320 bytes of lines, the NPB solvers' `m = 1, 5`) the
/// lines stay for the next `i`: no finding.
#[test]
fn the_finding_names_what_the_better_loop_does_and_skips_lines_that_stay_cached() {
    let program = |trips: i64| {
        format!(
            "program sweep
  integer, parameter :: n = 2000
  real :: ue(n, n)
  integer :: i, j, m
  do i = 1, n
    do j = 1, 4
      do m = 1, {trips}
        ue(i, m) = ue(i, m) + 1.0
      end do
    end do
  end do
end program
"
        )
    };
    let long = messages(&program(2000));
    assert_eq!(long.len(), 1, "{long:?}");
    assert!(
        long[0].contains("`j` does not move through it"),
        "{}",
        long[0]
    );
    assert_eq!(messages(&program(5)), Vec::<String>::new());
}
