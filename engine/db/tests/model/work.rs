use costline_db::project;
use expect_test::{Expect, expect};
use std::collections::BTreeMap;

/// Analyzes `text` with `params` and renders, per assignment line, its work vector and wd.
fn check(text: &str, params: &[(&str, i64)], expected: Expect) {
    let bindings: BTreeMap<String, i64> = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let files = project::analyze(&[("t.f90".into(), text.as_bytes().to_vec())], &bindings);
    let file = files.into_iter().next().unwrap().unwrap();
    let mut out = String::new();
    for u in &file.units {
        u.unit.walk(&mut |s, _| {
            let Some(w) = u.work.of(s.id) else { return };
            let line = file.source.line_col(u.absolute(s.span).start).0;
            let load = u.values.load(s.id);
            let vector = load
                .map(|l| {
                    l.per_processor()
                        .iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_else(|| "?".into());
            let wd = load
                .map(|l| l.wd())
                .map(|x| format!("{x:.3}"))
                .unwrap_or_else(|| "?".into());
            let how = match &w.spread {
                costline_model::work::Spread::Owned { .. } => "owner",
                costline_model::work::Spread::Replicated => "replicated",
                costline_model::work::Spread::Irregular { .. } => "even (assumed)",
            };
            out += &format!("line {line}: [{vector}] wd {wd} {how}\n");
        });
    }
    expected.assert_eq(&out);
}

#[test]
fn lower_triangular_update_block_versus_cyclic() {
    let text = "program tri
  integer :: n, i, j
  real :: a(n, n), b(n, n), s
!HPF$ PROCESSORS pr(4)
!HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: a
!HPF$ DISTRIBUTE (CYCLIC, *) ONTO pr :: b
  do i = 1, n
    do j = 1, i
      a(i, j) = 1.0
      b(i, j) = 1.0
      s = s + 1.0
    end do
  end do
end program
";
    check(
        text,
        &[("n", 100)],
        expect![[r#"
        line 9: [325 950 1575 2200] wd 0.553 owner
        line 10: [1225 1250 1275 1300] wd 0.022 owner
        line 11: [5050 5050 5050 5050] wd 0.000 replicated
    "#]],
    );
    // n not divisible by P: blocks of 3 for n = 10, the last processor owns one row.
    check(
        text,
        &[("n", 10)],
        expect![[r#"
        line 9: [6 15 24 10] wd 0.489 owner
        line 10: [15 18 10 12] wd 0.220 owner
        line 11: [55 55 55 55] wd 0.000 replicated
    "#]],
    );
}

#[test]
fn p3t_plus_second_example_against_brute_force() {
    let text = "subroutine second(a, n1, n2)
  integer :: n1, n2, j1, j2
  integer :: a(n2)
!HPF$ PROCESSORS :: pr(p)
!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a
  do j1 = 1, n1
    do j2 = 1, j1*n1
      if (j2 <= n2) then
        a(j2) = 0
      end if
    end do
  end do
end subroutine
";
    for (n1, n2, p) in [(6, 10, 4), (3, 20, 3), (5, 7, 8), (1, 9, 2), (4, 16, 4)] {
        let bindings: BTreeMap<String, i64> = [("n1", n1), ("n2", n2), ("p", p)]
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        let files = project::analyze(&[("t.f90".into(), text.as_bytes().to_vec())], &bindings);
        let file = files.into_iter().next().unwrap().unwrap();
        let u = &file.units[0];
        let mut got = None;
        u.unit.walk(&mut |s, _| {
            if let Some(l) = u.values.load(s.id) {
                got = Some(l.per_processor().to_vec());
            }
        });
        // Brute force: enumerate, find the BLOCK owner of a(j2), tally.
        let b = (n2 + p - 1) / p;
        let mut want = vec![0.0; p as usize];
        for j1 in 1..=n1 {
            for j2 in 1..=j1 * n1 {
                if j2 <= n2 {
                    want[((j2 - 1) / b) as usize] += 1.0;
                }
            }
        }
        assert_eq!(got, Some(want), "n1={n1} n2={n2} p={p}");
    }
}

#[test]
fn two_dimensional_grids_alignments_and_irregular_subscripts() {
    check(
        "subroutine grid2(a, b, idx, n)
  integer :: n, i, j, idx(n)
  real :: a(n, n), b(n)
!HPF$ PROCESSORS g(2, 2)
!HPF$ DISTRIBUTE a(BLOCK, CYCLIC) ONTO g
!HPF$ ALIGN b(i) WITH a(i, 1)
  do j = 1, n
    do i = 1, n
      a(i, j) = 0
    end do
  end do
  do i = 1, n
    b(i) = 1
    b(idx(i)) = 2
  end do
end subroutine
",
        &[("n", 6)],
        expect![[r#"
            line 9: [9 9 9 9] wd 0.000 owner
            line 13: [3 3 0 0] wd 1.000 owner
            line 14: [1.5 1.5 1.5 1.5] wd 0.000 even (assumed)
        "#]],
    );
}

/// CG's packing of its sparse rows into columns: the row subscript `k + 1 - rowstr(j)`
/// is data, but `a` is distributed on its columns only, so the owner is `j`'s and the
/// work follows the columns (6 of 8 in blocks of 2; each column's nonzeros an assumed
/// trip count), not an even spread.
#[test]
fn a_data_subscript_in_a_collapsed_dimension_keeps_the_owner() {
    let text = "subroutine pack(rowstr, v)
  integer, parameter :: n = 8
  integer :: rowstr(n + 1), j, k
  real :: a(4, n), v(100)
!HPF$ PROCESSORS pr(4)
!HPF$ DISTRIBUTE a(*, BLOCK) ONTO pr
  do j = 1, 6
    do k = rowstr(j), rowstr(j + 1) - 1
      a(k + 1 - rowstr(j), j) = v(k)
      a(k + 1 - rowstr(j), k) = v(k)
    end do
  end do
end subroutine
";
    check(
        text,
        &[],
        expect![[r#"
            line 9: [200 200 200 0] wd 0.577 owner
            line 10: [150 150 150 150] wd 0.000 even (assumed)
        "#]],
    );
}
