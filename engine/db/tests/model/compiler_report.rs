//! Verdicts from the compiler's own report: gfortran 12's `-fopt-info-vec-all` of
//! `vectorize_loops.f90` (kept in costline-model's testdata) read against the file.
//! Each innermost loop takes the report's word, with lanes from its data; a report of
//! other bytes or of another compiler command is never applied; a file the compiler
//! could not compile keeps the rules.

use costline_db::project::{Detail, Project};
use costline_db::{CompilerOutput, Options, content_hash};
use costline_model::time::compiler_report::Report;
use costline_model::time::vectorize::Source;
use expect_test::expect;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

const SOURCE: &str = include_str!("vectorize_loops.f90");
const O3: &str = include_str!("../../../model/testdata/gfortran-12/vectorize_loops-O3.txt");

/// The output of `compiler` on `text` with `report` (the file is `v.f90`).
fn output(text: &str, compiler: &str, report: Result<&str, &str>) -> CompilerOutput {
    CompilerOutput {
        content: content_hash(text.as_bytes()),
        compiler: compiler.to_string(),
        report: report
            .map(|r| Arc::new(Report::parse(r, "v.f90")))
            .map_err(str::to_string),
    }
}

/// Each innermost loop of `text` built with `compiler`, given `output`: its unit,
/// whether vectorized, lanes, source and why; and each unit's time (n = 1000).
fn analyze(
    text: &str,
    compiler: &str,
    output: Option<CompilerOutput>,
) -> (String, BTreeMap<String, f64>) {
    let options = Options {
        bindings: [("n".to_string(), 1000)].into_iter().collect(),
        compiler: Some(compiler.to_string()),
        ..Options::default()
    };
    let outputs: BTreeMap<String, CompilerOutput> = output
        .into_iter()
        .map(|o| ("v.f90".to_string(), o))
        .collect();
    let mut project =
        Project::load_with_compiler(&[("v.f90".into(), text.into())], &outputs, &options);
    let (mut out, mut times) = (String::new(), BTreeMap::new());
    project.visit_units(0, Detail::Numbers, &mut |u| {
        let mut found: Vec<_> = u.vector.values().collect();
        found.sort_by_key(|v| v.why.clone());
        for v in found {
            let source = match v.source {
                Source::Compiler => "compiler",
                Source::Rules => "rules",
            };
            let what = if v.vectorized {
                format!("{} lanes", v.lanes)
            } else {
                "scalar".into()
            };
            let _ = writeln!(out, "{}: {what} ({source}) {}", u.unit.name, v.why);
        }
        times.insert(u.unit.name.clone(), u.times.unit.time_s);
    });
    (out, times)
}

#[test]
fn the_report_answers_for_the_file_it_was_made_from() {
    let o3 = output(SOURCE, "gfortran -O3", Ok(O3));
    let (verdicts, _) = analyze(SOURCE, "gfortran -O3", Some(o3));
    expect![[r#"
        l1: 2 lanes (compiler) loop vectorized using 16 byte vectors
        l2: scalar (compiler) not vectorized: no vectype for stmt: _5 = (*a_15(D))[_4]; scalar_type: real(kind=8)
        l3: 2 lanes (compiler) loop vectorized using 16 byte vectors
        l4: scalar (compiler) not vectorized: no vectype for stmt: _7 = (*b_18(D))[_6]; scalar_type: real(kind=8)
        l5: 2 lanes (compiler) loop vectorized using 16 byte vectors
        l6: 2 lanes (compiler) loop vectorized using 16 byte vectors
        l7: 4 lanes (compiler) loop vectorized using 16 byte vectors
        l8: scalar (compiler) not vectorized: control flow in loop.
        l9: 2 lanes (compiler) loop vectorized using 16 byte vectors
        l10: 2 lanes (compiler) loop vectorized using 16 byte vectors
        l11: 2 lanes (compiler) loop vectorized using 16 byte vectors
        l12: 2 lanes (compiler) loop vectorized using 16 byte vectors
        l13: 2 lanes (compiler) loop vectorized using 16 byte vectors
        l14: 4 lanes (compiler) loop vectorized using 16 byte vectors
        l15: 2 lanes (compiler) loop vectorized using 16 byte vectors
        c1: 2 lanes (compiler) loop vectorized using 16 byte vectors
        c2: 2 lanes (compiler) loop vectorized using 16 byte vectors
        c3: 2 lanes (compiler) loop vectorized using 16 byte vectors
        c4: 4 lanes (compiler) loop vectorized using 16 byte vectors
        c5: 2 lanes (compiler) loop vectorized using 16 byte vectors
        c6: 2 lanes (compiler) loop vectorized using 16 byte vectors
        c7: 4 lanes (compiler) loop vectorized using 16 byte vectors
        f1: 2 lanes (compiler) loop vectorized using 16 byte vectors
    "#]]
    .assert_eq(&verdicts);
}

#[test]
fn a_stale_report_another_compiler_or_a_failed_compile_leaves_the_rules() {
    let rules = analyze(SOURCE, "gfortran -O3", None).0;
    assert!(!rules.contains("(compiler)"), "{rules}");
    // The file changed since (a comment at its end): the rules answer.
    let edited = format!("{SOURCE}! edited\n");
    let stale = output(SOURCE, "gfortran -O3", Ok(O3));
    assert_eq!(
        analyze(&edited, "gfortran -O3", Some(stale.clone())).0,
        rules
    );
    // Made by another command than the one in force.
    let o2_rules = analyze(SOURCE, "gfortran -O2", None).0;
    assert_eq!(analyze(SOURCE, "gfortran -O2", Some(stale)).0, o2_rules);
    // The file did not compile.
    let failed = output(SOURCE, "gfortran -O3", Err("line 1: Error: ..."));
    assert_eq!(analyze(SOURCE, "gfortran -O3", Some(failed)).0, rules);
}

#[test]
fn a_reported_vector_prices_the_loop_and_a_silent_report_leaves_the_rules() {
    // -O2 keeps `do i = 1, n` scalar by its rules; a report that says otherwise (as
    // gfortran 12 does at -O2 for l1 when n is known) halves l1's time, and l2, of
    // which it says nothing, keeps the rules' verdict.
    let text = "subroutine l1(n, a, b, c)\n  integer :: n, i\n  real(8) :: a(n), b(n), c(n)\n  \
                do i = 1, &\n      n\n    a(i) = b(i) * c(i) + 1.0d0\n  end do\nend subroutine\n\
                subroutine l2(n, a, b)\n  integer :: n, i\n  real(8) :: a(n), b(n)\n  \
                do i = 1, n\n    a(i) = b(i) + 2.0d0\n    a(i) = a(i) * 3.0d0\n  end do\n\
                end subroutine\n";
    let report = "v.f90:5:8: optimized: loop vectorized using 16 byte vectors\n\
                  v.f90:14:5: optimized: basic block part vectorized using 16 byte vectors\n";
    let (rules, rules_times) = analyze(text, "gfortran -O2", None);
    let (reported, times) = analyze(
        text,
        "gfortran -O2",
        Some(output(text, "gfortran -O2", Ok(report))),
    );
    // The message on the header's second line is the loop's.
    assert!(
        reported.contains("l1: 2 lanes (compiler) loop vectorized using 16 byte vectors"),
        "{reported}"
    );
    assert!(rules.contains("l1: scalar (rules)"), "{rules}");
    let ratio = times["l1"] / rules_times["l1"];
    assert!((0.49..0.51).contains(&ratio), "{ratio}");
    assert!(reported.contains("l2: scalar (rules)"), "{reported}");
    assert_eq!(times["l2"], rules_times["l2"]);
    // A loop the compiler kept scalar names the straight-line code it vectorized.
    let report = "v.f90:12:3: missed: couldn't vectorize loop\n\
                  v.f90:13:5: missed: not vectorized: unsupported use in stmt.\n\
                  v.f90:14:5: optimized: basic block part vectorized using 16 byte vectors\n";
    let (reported, _) = analyze(
        text,
        "gfortran -O2",
        Some(output(text, "gfortran -O2", Ok(report))),
    );
    assert!(
        reported.contains(
            "l2: scalar (compiler) not vectorized: unsupported use in stmt.; basic block part \
             vectorized using 16 byte vectors at line 14 (SLP; not priced)"
        ),
        "{reported}"
    );
}

#[test]
fn a_missed_loop_on_the_line_of_a_nest_may_be_an_outer_one() {
    // gfortran copies the columns of line 3 with memcpy and reports only that the loop
    // over them was not vectorized: the innermost loop is the rules' memcpy, as the
    // report's memcpy says. Line 4 is one loop: the report's word is its.
    let text = "subroutine s(a, b, c)\n  real(8) :: a(100, 100), b(100, 100), c(100)\n  \
                a(:, :) = b(:, :)\n  c(:) = a(:, 1) * 2.0d0\nend subroutine\n";
    let report = "v.f90:3:13: missed: couldn't vectorize loop\n\
                  v.f90:3:13: missed: statement clobbers memory: __builtin_memcpy (_1, _2, 800);\n\
                  v.f90:4:10: missed: couldn't vectorize loop\n\
                  v.f90:4:10: missed: not vectorized: unsupported use in stmt.\n";
    let (verdicts, _) = analyze(
        text,
        "gfortran -O3",
        Some(output(text, "gfortran -O3", Ok(report))),
    );
    expect![[r#"
        s: scalar (compiler) not vectorized: unsupported use in stmt.
        s: scalar (rules) replaced by a call of memcpy (loop distribution of patterns)
    "#]]
    .assert_eq(&verdicts);
}

#[test]
fn a_loop_with_an_exit_is_reported_at_its_first_statement() {
    // gfortran 12 -O3 on Livermore kernel 16: the inner loop (DO at line 22 there)
    // is reported at the line of its first statement.
    let text = "subroutine s(n, zone, k2)\n  integer :: n, k, k2, zone(n)\n  \
                do k = 1, n\n    k2 = k2 + 1\n    if (zone(k) > n) exit\n  end do\n\
                end subroutine\n";
    let report = "v.f90:4:17: missed: couldn't vectorize loop\n\
                  v.f90:4:17: missed: not vectorized: control flow in loop.\n";
    let (verdicts, _) = analyze(
        text,
        "gfortran -O3",
        Some(output(text, "gfortran -O3", Ok(report))),
    );
    assert_eq!(
        verdicts,
        "s: scalar (compiler) not vectorized: control flow in loop.\n"
    );
}
