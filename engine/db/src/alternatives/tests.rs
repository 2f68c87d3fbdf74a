//! Alternatives: the candidates a directive gets, and each variant's prediction checked
//! against the analysis of the same program with the alternative written into its text
//! (parsed again: the oracle the variant must agree with without re-parsing).

use super::*;
use crate::Options;
use crate::{AnalysisHost, file_units, lower};
use std::collections::BTreeMap;
use std::sync::Arc;

const REDBLACK: &str = include_str!("../../../../tests/fixtures/fixed/redblack.f");

fn host(text: &str, bindings: &[(&str, i64)]) -> AnalysisHost {
    let ipsc = costline_model::machine::Catalog::discover(&[])
        .resolve("ipsc860")
        .unwrap();
    let options = Options {
        machine: Arc::new(ipsc),
        bindings: bindings
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect::<BTreeMap<_, _>>(),
        ..Options::default()
    };
    let mut host = AnalysisHost::new(&options, None);
    host.add_file("p.f", text.as_bytes().to_vec());
    // The text is fixed form and parses: a test on a broken parse proves nothing.
    let a = host.snapshot();
    let db = a.db();
    for &u in &file_units(db, a.file_id("p.f").unwrap())
        .as_ref()
        .unwrap()
        .units
    {
        let bad: Vec<_> = lower(db, u)
            .diagnostics
            .iter()
            .filter(|d| {
                d.code == "syntax" || d.severity == costline_syntax::diagnostics::Severity::Error
            })
            .cloned()
            .collect();
        assert!(bad.is_empty(), "{bad:?}");
    }
    drop(a);
    host
}

/// The first unit of the host's file `p.f`.
fn first_unit(a: &crate::Analysis) -> crate::UnitText<'_> {
    file_units(a.db(), a.file_id("p.f").unwrap())
        .as_ref()
        .unwrap()
        .units[0]
}

/// The unit's time as the analysis of `text` predicts it.
fn time_of(text: &str, bindings: &[(&str, i64)]) -> f64 {
    let a = host(text, bindings).snapshot();
    let db = a.db();
    let unit = first_unit(&a);
    predict(db, unit, None).unwrap().time_s
}

#[test]
fn grids_factor_p() {
    assert_eq!(near_square(16), Some((4, 4)));
    assert_eq!(near_square(12), Some((4, 3)));
    assert_eq!(near_square(7), Some((7, 1)));
    assert_eq!(near_square(0), None);
    assert_eq!(Grid::Square { tall: false }.extents(8), Some(vec![2, 4]));
    assert_eq!(Grid::Square { tall: true }.extents(7), None);
    assert_eq!(Grid::Fixed(vec![4, 4]).extents(8), None);
    let l = Layout {
        formats: vec![Fmt::Star, Fmt::Cyclic(4)],
        grid: Grid::Line,
    };
    assert_eq!(l.formats_text(false, false), "(*,cyclic(4))");
    assert_eq!(l.label(16), "(*, CYCLIC(4)) onto 16");
}

#[test]
fn candidates_follow_rank_and_sharing() {
    let one = "      program p\n      integer, parameter :: n = 64\n      real :: a(n)\n      integer :: i\n!HPF$ PROCESSORS q(8)\n!HPF$ DISTRIBUTE a(CYCLIC) ONTO q\n      do i = 1, n\n        a(i) = 1.0\n      end do\n      end program\n";
    let a = host(one, &[]).snapshot();
    let db = a.db();
    let unit = first_unit(&a);
    let t = target_of(db, unit, 1).unwrap();
    assert_eq!(t.processors(), Some(8));
    let c = candidates(&t);
    assert_eq!(c.len(), 5, "{c:?}");
    assert_eq!(
        c[0].formats,
        vec![Fmt::Cyclic(1)],
        "the layout as written first"
    );
    // Two DISTRIBUTEs onto one arrangement: its shape stays.
    let shared = REDBLACK.replace(
        "      REAL A(N, N)",
        "      REAL A(N, N), B(N, N)\nCHPF$ DISTRIBUTE B(BLOCK, BLOCK) ONTO P",
    );
    let a = host(&shared, &[]).snapshot();
    let db = a.db();
    let unit = first_unit(&a);
    let ir = lower(db, unit);
    let d = distribute_directives(&ir);
    assert_eq!(d.len(), 2);
    let t = target_of(db, unit, d[1]).unwrap();
    assert!(t.shared);
    let c = candidates(&t);
    assert!(c.iter().all(|l| l.grid == Grid::Fixed(vec![4, 4])), "{c:?}");
    assert_eq!(c.len(), 4, "the four 2-D BLOCK/CYCLIC pairs: {c:?}");
}

#[test]
fn redblack_variants_predict_what_their_text_predicts() {
    let n = [("n", 48)];
    let h = host(REDBLACK, &n);
    let a = h.snapshot();
    let db = a.db();
    let unit = first_unit(&a);
    let d = distribute_directives(&lower(db, unit));
    let (target, ranked) = alternatives(db, unit, d[0]).unwrap();
    assert_eq!(ranked.iter().filter(|e| e.current).count(), 1);
    assert!(
        ranked
            .windows(2)
            .all(|w| w[0].prediction.time_s <= w[1].prediction.time_s)
    );
    // 18 candidates: the written one, 10 on a line of 16, 4 pairs on 4 × 4 (the
    // transposed grid is the same 4 × 4 and priced once).
    assert_eq!(ranked.len(), 14, "{ranked:?}");
    let written = ranked.iter().find(|e| e.current).unwrap();
    assert_eq!(written.prediction.time_s, time_of(REDBLACK, &n));
    let column = |f: &str| {
        REDBLACK
            .replace("PROCESSORS P(4, 4)", "PROCESSORS P(16)")
            .replace("DISTRIBUTE A(BLOCK,\nCHPF$+             BLOCK)", f)
    };
    let rewritten = [
        ("(*, BLOCK)", column("DISTRIBUTE A(*, BLOCK)")),
        ("(CYCLIC(2), *)", column("DISTRIBUTE A(CYCLIC(2), *)")),
        (
            "(BLOCK, CYCLIC)",
            REDBLACK.replace("BLOCK) ONTO P", "CYCLIC) ONTO P"),
        ),
    ];
    assert!(rewritten.iter().all(|(_, t)| t != REDBLACK));
    agree_with_text(&ranked, &rewritten, &n);
    assert!(target.current.is_some());
}

/// Each variant `layout` of `ranked` predicts the time the analysis of its rewritten
/// `text` does.
fn agree_with_text(ranked: &[Evaluated], rewritten: &[(&str, String)], bindings: &[(&str, i64)]) {
    for (layout, text) in rewritten {
        let e = ranked
            .iter()
            .find(|e| e.layout.formats_text(true, true) == *layout)
            .unwrap_or_else(|| panic!("{layout} missing"));
        let want = time_of(text, bindings);
        assert!(
            (e.prediction.time_s - want).abs() <= 1e-12 * want,
            "{layout}: variant {} vs text {want}",
            e.prediction.time_s
        );
    }
}

#[test]
fn a_variant_reuses_the_parse_and_counts() {
    let log = crate::ExecutionLog::default();
    let ipsc = costline_model::machine::Catalog::discover(&[])
        .resolve("ipsc860")
        .unwrap();
    let options = Options {
        machine: Arc::new(ipsc),
        bindings: [("n".to_string(), 32)].into_iter().collect(),
        ..Options::default()
    };
    let mut host = AnalysisHost::new(&options, Some(log.clone()));
    host.add_file("p.f", REDBLACK.as_bytes().to_vec());
    let a = host.snapshot();
    let db = a.db();
    let unit = first_unit(&a);
    predict(db, unit, None).unwrap();
    log.take();
    let t = target_of(db, unit, 1).unwrap();
    let l = Layout {
        formats: vec![Fmt::Star, Fmt::Block],
        grid: Grid::Line,
    };
    predict_layout(db, unit, &t, &l, 16).unwrap();
    let ran = log.take();
    // Nothing is parsed, scoped or counted again: the variant's freqs, counts,
    // constants and ops are the unit's (their queries only hand them over).
    for q in ["parse", "uses", "scope", "identifiers", "imports"] {
        assert_eq!(
            crate::ExecutionLog::count(&ran, q),
            0,
            "{q} ran again: {ran:?}"
        );
    }
    for q in ["lower", "mappings", "work", "comm", "times"] {
        assert_eq!(crate::ExecutionLog::count(&ran, q), 1, "{q}: {ran:?}");
    }
}

/// A group distributed only through ALIGN: the DISTRIBUTE is the template's, and its
/// alternatives move both aligned arrays (one transposed) as the rewritten text does.
#[test]
fn a_template_groups_alternatives_move_its_aligned_arrays() {
    // Fixed form (the host's file is `p.f`).
    const TEMPLATE: &str = "      program tmpl
      integer, parameter :: n = 32
      real :: a(n, n), b(n, n)
      integer :: i, j
!HPF$ PROCESSORS pr(4)
!HPF$ TEMPLATE t(n, n)
!HPF$ DISTRIBUTE t(BLOCK, *) ONTO pr
!HPF$ ALIGN a(i, j) WITH t(i, j)
!HPF$ ALIGN b(i, j) WITH t(j, i)
      do j = 2, n - 1
        do i = 2, n - 1
          a(i, j) = 0.25 * (b(i - 1, j) + b(i + 1, j) + b(i, j - 1)
     &              + b(i, j + 1))
        end do
      end do
      end program tmpl
";
    let h = host(TEMPLATE, &[]);
    let a = h.snapshot();
    let db = a.db();
    let unit = first_unit(&a);
    let d = distribute_directives(&lower(db, unit));
    assert_eq!(d.len(), 1, "the template's DISTRIBUTE");
    let (_, ranked) = alternatives(db, unit, d[0]).unwrap();
    assert!(ranked.len() > 4, "{ranked:?}");
    agree_with_text(
        &ranked,
        &[
            (
                "(*, BLOCK)",
                TEMPLATE.replace("t(BLOCK, *) ONTO pr", "t(*, BLOCK) ONTO pr"),
            ),
            (
                "(CYCLIC, *)",
                TEMPLATE.replace("t(BLOCK, *) ONTO pr", "t(CYCLIC, *) ONTO pr"),
            ),
        ],
        &[],
    );
    // Moving the template moves the arrays: the alternatives do not all cost the same.
    let times: Vec<f64> = ranked.iter().map(|e| e.prediction.time_s).collect();
    assert!(times.iter().all(|t| *t > 0.0), "{times:?}");
    assert!(times.iter().any(|t| (t - times[0]).abs() > 1e-9 * times[0]));
}
