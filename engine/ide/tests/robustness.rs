//! The whole front end on arbitrary Fortran-looking input: it never panics, and every
//! position it reports lies inside the file.

use costline_db::project;
use costline_ide::report::file_report;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Lines built from the pieces real Fortran is made of, in any order: unit and
/// construct statements, labels, continuations, directives, comments, garbage.
fn line() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "program p",
        "subroutine s(a, n)",
        "function f(x)",
        "module m",
        "contains",
        "end",
        "end do",
        "enddo",
        "end if",
        "end program",
        "end subroutine",
        "end module",
        "do i = 1, n",
        "do 10 i = 1, n",
        "do while (x > 0)",
        "do",
        "10 continue",
        "if (a(i) > 0) then",
        "else if (x) then",
        "else",
        "if (x) y = 1",
        "select case (k)",
        "case (1:3)",
        "case default",
        "end select",
        "where (a > 0)",
        "elsewhere",
        "end where",
        "forall (i = 1:n, a(i) > 0)",
        "end forall",
        "forall (i=1:n) a(i) = i",
        "a(2:n) = a(1:n-1) + b(:)",
        "a = 0",
        "x = (1 +",
        "call mpi_send(a, n, 1)",
        "real a(n, 0:m), b(:)",
        "integer, parameter :: n = 10",
        "use m, only: n => k",
        "!HPF$ DISTRIBUTE a(BLOCK, *) ONTO p",
        "!HPF$ PROCESSORS p(4)",
        "!HPF$ ALIGN b(i) WITH a(i, 1)",
        "!HPF$ INDEPENDENT, NEW(j)",
        "!HPF$ DISTRIBUTE (CYCLIC &",
        "CHPF$ TEMPLATE t(n)",
        "C comment",
        "* comment",
        "     &  + 1",
        "#ifdef X",
        "#else",
        "#endif",
        "go to 10",
        "interface",
        "end interface",
        "))((",
        "&",
        "'unterminated",
        "é ü \u{2028}",
        "\t",
        "x(i)(1:2) = 'ab'",
        "a(i, j) = a(i-1, j) + a(i, j+1)",
        "return",
        "stop",
        "exit",
    ]);
    prop::collection::vec(pieces, 1..4).prop_map(|p| p.join(" "))
}

fn source() -> impl Strategy<Value = String> {
    prop::collection::vec(prop_oneof![line(), "[ -~]{0,80}"], 0..40).prop_map(|ls| ls.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_and_positions_stay_in_the_file(text in source(), fixed in any::<bool>()) {
        let path = if fixed { "t.f" } else { "t.f90" };
        let lines = text.split('\n').count() as u32;
        let analyses = project::analyze(&[(path.to_string(), text.into_bytes())], &BTreeMap::new());
        for file in analyses.into_iter().flatten() {
            let report = file_report(&file);
            for d in &report.diagnostics {
                prop_assert!(d.line >= 1 && d.line <= lines.max(1), "{d:?} outside {lines} lines");
            }
            for u in &report.units {
                prop_assert!(u.line <= u.end_line.max(u.line) && u.end_line <= lines.max(1));
                for s in &u.statements {
                    prop_assert!(s.line >= 1 && s.line <= lines.max(1));
                }
            }
        }
    }
}
