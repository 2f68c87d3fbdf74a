//! The editor's answers on small programs, rendered back into the source text (hints
//! after the text they annotate, lenses above their line, the hover at its cursor `$0`)
//! so that a reviewer reads them in place.

use crate::AnalysisHost;
use costline_db::Options;
use costline_syntax::span::Span;
use expect_test::{Expect, expect};
use std::collections::BTreeMap;

const PATH: &str = "t.f90";

fn host(text: &str, params: &[(&str, i64)]) -> AnalysisHost {
    let bindings: BTreeMap<String, i64> = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let mut options = Options {
        bindings,
        ..Options::default()
    };
    options.freq.unit_max_steps = None;
    let mut host = AnalysisHost::new(&options);
    host.add_file(PATH, text.as_bytes().to_vec());
    host
}

/// The text with each hint inserted as `⟨label⟩` at its offset.
fn check_hints(
    text: &str,
    params: &[(&str, i64)],
    range: Option<(usize, usize)>,
    expected: Expect,
) {
    let range = range.map_or(Span::new(0, text.len()), |(a, b)| Span::new(a, b));
    let hints = host(text, params)
        .snapshot()
        .inlay_hints(PATH, range)
        .unwrap();
    let mut out = text.to_string();
    for h in hints.iter().rev() {
        out.insert_str(h.offset as usize, &format!(" ⟨{}⟩", h.label));
    }
    expected.assert_eq(&out);
}

/// The hover at `$0` in `text`: its range's text, then its markdown.
fn check_hover(text: &str, params: &[(&str, i64)], expected: Expect) {
    let at = text.find("$0").expect("a cursor");
    let text = text.replace("$0", "");
    let hover = host(&text, params)
        .snapshot()
        .hover(PATH, at as u32)
        .unwrap();
    let out = match hover {
        Some(h) => format!(
            "[{}]\n{}",
            &text[h.range.start as usize..h.range.end as usize],
            h.markdown
        ),
        None => "no hover".into(),
    };
    expected.assert_eq(&out);
}

const TRIANGULAR: &str = "program triangular
  integer, parameter :: n = 1000
  real :: a(n, n), b(n, n)
  integer :: i, j
!HPF$ PROCESSORS pr(8)
!HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: a
!HPF$ DISTRIBUTE (CYCLIC, *) ONTO pr :: b
  do i = 1, n
    do j = 1, i
      a(i, j) = 0.5 * a(i, j)
    end do
  end do
  b(1, :) = 0.0
end program triangular
";

#[test]
fn hints_show_counts_and_wd_at_loops_and_assignments() {
    check_hints(
        TRIANGULAR,
        &[],
        None,
        expect![[r#"
            program triangular
              integer, parameter :: n = 1000
              real :: a(n, n), b(n, n)
              integer :: i, j
            !HPF$ PROCESSORS pr(8)
            !HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: a
            !HPF$ DISTRIBUTE (CYCLIC, *) ONTO pr :: b
              do i = 1, n ⟨×1000 · wd 0.57 · ≈ 43.1 µs⟩
                do j = 1, i ⟨×5.0e5 · wd 0.57 · ≈ 43 µs⟩
                  a(i, j) = 0.5 * a(i, j) ⟨×5.0e5 · wd 0.57⟩
                end do
              end do
              b(1, :) = 0.0 ⟨×1000 · wd 2.65⟩
            end program triangular
        "#]],
    );
}

#[test]
fn hints_are_computed_for_the_requested_range_only() {
    let start = TRIANGULAR.find("    do j").unwrap();
    let end = TRIANGULAR.find("    end do").unwrap();
    check_hints(
        TRIANGULAR,
        &[],
        Some((start, end)),
        expect![[r#"
            program triangular
              integer, parameter :: n = 1000
              real :: a(n, n), b(n, n)
              integer :: i, j
            !HPF$ PROCESSORS pr(8)
            !HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: a
            !HPF$ DISTRIBUTE (CYCLIC, *) ONTO pr :: b
              do i = 1, n
                do j = 1, i ⟨×5.0e5 · wd 0.57 · ≈ 43 µs⟩
                  a(i, j) = 0.5 * a(i, j) ⟨×5.0e5 · wd 0.57⟩
                end do
              end do
              b(1, :) = 0.0
            end program triangular
        "#]],
    );
}

#[test]
fn hints_without_values_say_what_they_need() {
    check_hints(
        "subroutine s(a, n)\n  real :: a(n)\n  integer :: i, n\n  do i = 1, n\n    a(i) = 0\n  end do\nend subroutine\n",
        &[],
        None,
        expect![[r#"
            subroutine s(a, n)
              real :: a(n)
              integer :: i, n
              do i = 1, n ⟨×?⟩
                a(i) = 0 ⟨×?⟩
              end do
            end subroutine
        "#]],
    );
}

#[test]
fn hover_on_an_assignment_shows_its_work_distribution() {
    check_hover(
        &TRIANGULAR.replace("      a(i, j) =", "      a(i, j)$0 ="),
        &[],
        expect![[r#"
            [a(i, j) = 0.5 * a(i, j)]
            **assignment** (line 10)

            runs **500,500** times per program run (exactly)

            count = `(n² + n)/2 if n ≥ 1`

            owner computes: the owners of `a` elements run it, on `pr`

            wd **0.57** over 8 processors · owork 6.3e4 · most loaded p8 (1.87× mean) · least loaded p1 (0.13×)

            | p | work | × mean |
            |---:|---:|---:|
            | 1 | 7875 | 0.13 |
            | 2 | 2.4e4 | 0.38 |
            | 3 | 3.9e4 | 0.63 |
            | 4 | 5.5e4 | 0.88 |
            | 5 | 7.0e4 | 1.12 |
            | 6 | 8.6e4 | 1.37 |
            | 7 | 1.0e5 | 1.62 |
            | 8 | 1.2e5 | 1.87 |

            work(S, p) = `(-2·$p²·n·⌊7·n/8⌋ + $p²·n² + $p²·⌊7·n/8⌋² + $p·n - $p·⌊7·n/8⌋)/2 if $p·n ≥ $p·⌊7·n/8⌋ + 1, $p·⌊7·n/8⌋ + n ≥ $p·n + ⌊7·n/8⌋; (2·$p²·n·⌊7·n/8⌋ - $p²·n² - $p²·⌊7·n/8⌋² - 4·$p·n·⌊7·n/8⌋ + 2·$p·n² + 2·$p·⌊7·n/8⌋² - $p·n + $p·⌊7·n/8⌋ + 2·n·⌊7·n/8⌋ - ⌊7·n/8⌋² + 2·n - ⌊7·n/8⌋)/2 if $p·⌊7·n/8⌋ + 2·n ≥ $p·n + ⌊7·n/8⌋ + 1, $p·n ≥ $p·⌊7·n/8⌋ + n + 1; (-4·$p·n·⌊7·n/8⌋ + 2·$p·n² + 2·$p·⌊7·n/8⌋² + 2·n·⌊7·n/8⌋ - … (3 cases in all)`

            **≈ 32.8 µs** per program run on `ib-hdr` — computation 32.8 µs · communication 0 s

            busiest processor **8** of 8: 32.8 µs (mean 17.5 µs)

            one execution: 1 mul_f32 + 1 load + 1 store = 0.28 ns; memory traffic 0.06 ns

        "#]],
    );
}

#[test]
fn hover_on_a_distribute_directive_lists_the_work_it_spreads() {
    check_hover(
        &TRIANGULAR.replace("DISTRIBUTE (BLOCK", "DISTRIBUTE$0 (BLOCK"),
        &[],
        expect![[r#"
            [!HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: a]
            **`!HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: a`**

            maps `a`

            spreads the work of 1 assignment(s):

            - line 10: wd 0.57

            **predicted time at P=8**: as written `(BLOCK, *)` 43.9 µs, best alternative `(CYCLIC, *)` 24 µs
        "#]],
    );
}

#[test]
fn hover_on_a_loop_and_on_the_unit() {
    check_hover(
        &TRIANGULAR.replace("  do i = 1, n", "  do i$0 = 1, n"),
        &[],
        expect![[r#"
            [do i = 1, n]
            **loop** (line 8)

            runs **1,000** times per program run (exactly)

            count = `n if n ≥ 1`

            wd of its body **0.57** (the wd of its assignments and calls, weighted by how often they run)

            **≈ 43.1 µs** per program run on `ib-hdr` — computation 43.1 µs · communication 0 s

            busiest processor **8** of 8: 43.1 µs (mean 23 µs)

            | p | computation |
            |---:|---:|
            | 1 | 2.89 µs |
            | 2 | 8.63 µs |
            | 3 | 14.4 µs |
            | 4 | 20.1 µs |
            | 5 | 25.8 µs |
            | 6 | 31.6 µs |
            | 7 | 37.3 µs |
            | 8 | 43.1 µs |

            cache lines per entry (64-byte lines, mean over the processors): **4,380** distinct
            — L1 loads 4,384 (274 KiB from L2) · L2 loads 4,380 (274 KiB from L3) · L3 loads 4,380 (274 KiB from memory)

            - reuse across `i` (a(i, j)) needs 31 KiB: L1 (32 KiB) holds, L2 (1 MiB) holds, L3 (16 MiB) holds

        "#]],
    );
    check_hover(
        &TRIANGULAR.replace("program triangular\n", "program tri$0angular\n"),
        &[],
        expect![[r#"
            [program triangular]
            **program `triangular`**

            runs **once** in the program

            wd **0.58** (its assignments and calls, weighted by how often they run)

            **≈ 43.9 µs** per program run on `ib-hdr` — computation 43.1 µs · communication 0 s

            busiest processor **8** of 8: 43.1 µs (mean 23.1 µs)

            | p | computation |
            |---:|---:|
            | 1 | 3.76 µs |
            | 2 | 8.63 µs |
            | 3 | 14.4 µs |
            | 4 | 20.1 µs |
            | 5 | 25.8 µs |
            | 6 | 31.6 µs |
            | 7 | 37.3 µs |
            | 8 | 43.1 µs |

        "#]],
    );
}

#[test]
fn hover_folds_the_table_of_many_processors() {
    check_hover(
        "subroutine s(a, n, p)\n  integer :: n, p, i\n  real :: a(n)\n!HPF$ PROCESSORS pr(p)\n!HPF$ DISTRIBUTE a(BLOCK) ONTO pr\n  do i = 1, n\n    a(i)$0 = 0\n  end do\nend subroutine\n",
        &[("n", 1000), ("p", 64)],
        expect![[r#"
            [a(i) = 0]
            **assignment** (line 7)

            runs **1,000** times per call of `s` (exactly)

            count = `n if n ≥ 1`

            owner computes: the owners of `a` elements run it, on `pr`

            wd **0.14** over 64 processors · owork 15.6 · most loaded p1 (1.02× mean) · least loaded p64 (0.00×)

            | p | work | × mean |
            |---:|---:|---:|
            | 1 | 16 | 1.02 |
            | 2 | 16 | 1.02 |
            | 3 | 16 | 1.02 |
            | 4 | 16 | 1.02 |
            | 5 | 16 | 1.02 |
            | 6 | 16 | 1.02 |
            | 7 | 16 | 1.02 |
            | 8 | 16 | 1.02 |
            | … | 52 more | |
            | 61 | 16 | 1.02 |
            | 62 | 16 | 1.02 |
            | 63 | 8 | 0.51 |
            | 64 | 0 | 0.00 |

            work(S, p) = `-$p·⌊-n/p⌋ if 0 ≥ $p·⌊-n/p⌋ + 1, $p·⌊-n/p⌋ + n ≥ 0, $p·⌊-n/p⌋ ≥ ⌊-n/p⌋; n if 0 ≥ $p·⌊-n/p⌋ + n + 1, n ≥ 1, $p·⌊-n/p⌋ ≥ ⌊-n/p⌋; $p·⌊-n/p⌋ + n + ⌈n/p⌉ if 0 ≥ $p·⌊-n/p⌋ + n + 1, ⌊-n/p⌋ ≥ $p·⌊-n/p⌋ + 1, $p·⌊-n/p⌋ + n ≥ ⌊-n/p⌋ + 1; ⌈n/p⌉ if ⌊-n/p⌋ ≥ $p·⌊-n/p⌋ + 1, 0 ≥ ⌊-n/p⌋ + 1, $p·⌊-n/p⌋ + n ≥ 0`

            **≈ 3.38 ns** per call of `s` on `ib-hdr` — computation 3.38 ns · communication 0 s

            busiest processor **1** of 64: 3.38 ns (mean 3.3 ns)

            one execution: 1 store = 0.21 ns; memory traffic 0 s

        "#]],
    );
}

#[test]
fn lenses_sit_above_each_procedure() {
    let text = "program main\n  call s(10)\n  call s(20)\nend program\n\nsubroutine s(n)\n  integer :: n, i\n  real :: x(100)\n  do i = 1, n\n    x(i) = 0\n  end do\nend subroutine\n\nmodule m\nend module\n";
    let lenses = host(text, &[]).snapshot().code_lenses(PATH).unwrap();
    let mut out = text.to_string();
    for l in lenses.iter().rev() {
        out.insert_str(l.offset as usize, &format!("⟦{}⟧\n", l.title));
    }
    expect![[r#"
        ⟦×1 run · 0 assignments/run · ≈ 11.7 ns/run (compute 11.7 ns, comm 0 s) on ib-hdr⟧
        program main
          call s(10)
          call s(20)
        end program

        ⟦×2 runs · 10 assignments/run · ≈ 2.99 ns/run (compute 2.99 ns, comm 0 s) on ib-hdr⟧
        subroutine s(n)
          integer :: n, i
          real :: x(100)
          do i = 1, n
            x(i) = 0
          end do
        end subroutine

        module m
        end module
    "#]]
    .assert_eq(&out);
}

#[test]
fn diagnostics_cover_the_file_and_its_units_at_their_ranges() {
    let text = "program p\n  integer :: i\n!HPF$ DISTRIBUTE nosuch(BLOCK)\n  do i = 1, 10\n    x = 1 +\n  end do\nend program\n";
    let diags = host(text, &[]).snapshot().diagnostics(PATH).unwrap();
    let out: Vec<String> = diags
        .iter()
        .map(|d| {
            format!(
                "{} {} `{}`: {}",
                d.severity.as_str(),
                d.code,
                &text[d.range.start as usize..d.range.end as usize],
                d.message
            )
        })
        .collect();
    expect![[r#"
        error unread-statements `program p`: 1 of the 6 statements of `p` could not be read: every figure of it leaves them out (incomplete)
        error unknown-array `nosuch`: `nosuch` in DISTRIBUTE is not a declared array or template
        info mapping `nosuch`: the distribution of `nosuch` is not modelled (its extents are not declared as constants or expressions): it counts as replicated
        warning syntax `x = 1 +`: costline could not parse `x = 1 +`; this statement is left out of the analysis"#]].assert_eq(&out.join("\n"));
}

/// A Jacobi sweep in a time-step loop over `(*, BLOCK)` columns: the halo columns are
/// exchanged once per time step (the time loop writes `a`), vectorized over the sweep.
const HALO: &str = "program halo
  integer, parameter :: n = 64, niter = 10
  integer :: i, j, it
  real :: a(n, n), b(n, n)
!HPF$ PROCESSORS pr(4)
!HPF$ DISTRIBUTE (*, BLOCK) ONTO pr :: a, b
  do it = 1, niter
    do j = 2, n - 1
      do i = 2, n - 1
        b(i, j) = 0.25 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
      end do
    end do
    a(2:n - 1, 2:n - 1) = b(2:n - 1, 2:n - 1)
  end do
  do j = 2, n
    a(1, j) = a(1, j - 1)
  end do
end program halo
";

#[test]
fn hints_show_the_messages_of_statements_that_communicate() {
    check_hints(
        HALO,
        &[],
        None,
        expect![[r#"
            program halo
              integer, parameter :: n = 64, niter = 10
              integer :: i, j, it
              real :: a(n, n), b(n, n)
            !HPF$ PROCESSORS pr(4)
            !HPF$ DISTRIBUTE (*, BLOCK) ONTO pr :: a, b
              do it = 1, niter ⟨×10 · wd 0.03 · ≈ 30.6 µs⟩
                do j = 2, n - 1 ⟨×620 · wd 0.03 · ≈ 29.9 µs⟩
                  do i = 2, n - 1 ⟨×3.8e4 · wd 0.03 · ≈ 29.9 µs⟩
                    b(i, j) = 0.25 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1)) ⟨×3.8e4 · wd 0.03 · 60 msg · 15 KiB⟩
                  end do
                end do
                a(2:n - 1, 2:n - 1) = b(2:n - 1, 2:n - 1) ⟨×3.8e4 · wd 0.03⟩
              end do
              do j = 2, n ⟨×63 · wd 0.03 · ≈ 1.2 µs⟩
                a(1, j) = a(1, j - 1) ⟨×63 · wd 0.03 · 3 msg · 12 B⟩
              end do
            end program halo
        "#]],
    );
}

#[test]
fn hover_shows_the_communication_records() {
    let text = HALO.replace("b(i, j) = 0.25", "b(i, j) = $00.25");
    check_hover(
        &text,
        &[],
        expect![[r#"
            [b(i, j) = 0.25 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))]
            **assignment** (line 10)

            runs **38,440** times per program run (exactly)

            count = `n²·niter - 4·n·niter + 4·niter if n ≥ 3, niter ≥ 1`

            owner computes: the owners of `b` elements run it, on `pr`

            wd **0.03** over 4 processors · owork 9610 · most loaded p2 (1.03× mean) · least loaded p1 (0.97×)

            | p | work | × mean |
            |---:|---:|---:|
            | 1 | 9300 | 0.97 |
            | 2 | 9920 | 1.03 |
            | 3 | 9920 | 1.03 |
            | 4 | 9300 | 0.97 |

            work(S, p) = `$p·n·niter·⌊3·n/4⌋ - $p·n²·niter + 2·$p·n·niter - 2·$p·niter·⌊3·n/4⌋ - n·niter·⌊3·n/4⌋ + 2·n²·niter - 5·n·niter + 2·niter·⌊3·n/4⌋ + 2·niter if $p·⌊3·n/4⌋ + 2·n ≥ $p·n + ⌊3·n/4⌋ + 2, $p·n + ⌊3·n/4⌋ ≥ $p·⌊3·n/4⌋ + n + 1, niter ≥ 1, $p·n + 1 ≥ $p·⌊3·n/4⌋ + n; -$p·n·niter·⌊3·n/4⌋ + $p·n²·niter - 2·$p·n·niter + 2·$p·niter·⌊3·n/4⌋ - n·niter + 2·niter if $p·n ≥ $p·⌊3·n/4⌋ + 2, niter ≥ 1, $p·⌊3·n/4⌋ + n ≥… (3 cases in all)`

            **communication**

            `a(i - 1, j)` — local: every element read is local

            `a(i + 1, j)` — local: every element read is local

            `a(i, j - 1)` — shift; fetched once per iteration of the loop at line 7 (it writes `a`), vectorized over 2 inner loop(s)

            NT **30** · TD **7.3 KiB** · TT **36.3 µs** · critical path 12.1 µs

            | from | to | messages | bytes |
            |---:|---:|---:|---:|
            | 1 | 2 | 10 | 2.4 KiB |
            | 2 | 3 | 10 | 2.4 KiB |
            | 3 | 4 | 10 | 2.4 KiB |

            `a(i, j + 1)` — shift; fetched once per iteration of the loop at line 7 (it writes `a`), vectorized over 2 inner loop(s)

            NT **30** · TD **7.3 KiB** · TT **36.3 µs** · critical path 12.1 µs

            | from | to | messages | bytes |
            |---:|---:|---:|---:|
            | 2 | 1 | 10 | 2.4 KiB |
            | 3 | 2 | 10 | 2.4 KiB |
            | 4 | 3 | 10 | 2.4 KiB |

            **≈ 29 µs** per program run on `ib-hdr` — computation 4.82 µs · communication 24.2 µs

            busiest processor **2** of 4: 4.82 µs (mean 4.66 µs)

            one execution: 4 load + 3 add_f32 + 1 mul_f32 + 1 store = 0.49 ns; memory traffic 0.4 ns

        "#]],
    );
}

#[test]
fn element_wise_communication_is_diagnosed() {
    let host = host(HALO, &[]);
    let found: Vec<String> = host
        .snapshot()
        .diagnostics(PATH)
        .unwrap()
        .into_iter()
        .filter(|d| d.code.contains("communication"))
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    expect![[r#"
        [
            "fine-grained-communication: `a(1, j - 1)` is fetched one element at a time: the DO loop over `j` may write elements of `a` before it reads them, so the reads cannot be vectorized out of it (3 messages per run)",
        ]
    "#]].assert_debug_eq(&found);
}

#[test]
fn calls_carry_their_callees_communication() {
    let text = "module grid\n  integer, parameter :: n = 64\nend module grid\n\nsubroutine smooth(a, b)\n  use grid\n  real :: a(n), b(n)\n  integer :: i\n!HPF$ PROCESSORS pr(4)\n!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a, b\n  do i = 2, n - 1\n    b(i) = 0.5 * (a(i - 1) + a(i + 1))\n  end do\nend subroutine smooth\n\nprogram driver\n  use grid\n  real :: a(n), b(n)\n  integer :: it\n!HPF$ PROCESSORS pr(4)\n!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a, b\n  do it = 1, 10\n    call smooth(a, b)\n    a = b\n  end do\nend program driver\n";
    let snapshot = host(text, &[]).snapshot();
    let mut out = text.to_string();
    let hints = snapshot
        .inlay_hints(PATH, Span::new(0, text.len()))
        .unwrap();
    let lenses = snapshot.code_lenses(PATH).unwrap();
    let mut marks: Vec<(u32, String)> = hints
        .iter()
        .map(|h| (h.offset, format!(" ⟨{}⟩", h.label)))
        .chain(
            lenses
                .iter()
                .map(|l| (l.offset, format!("⟦{}⟧\n", l.title))),
        )
        .collect();
    marks.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    for (at, mark) in marks {
        out.insert_str(at as usize, &mark);
    }
    expect![[r#"
        module grid
          integer, parameter :: n = 64
        end module grid

        ⟦×10 runs · 62 assignments/run · wd 0.03 · 6 msg · 24 B · ≈ 2.41 µs/run (compute 6.97 ns, comm 2.4 µs) on ib-hdr⟧
        subroutine smooth(a, b)
          use grid
          real :: a(n), b(n)
          integer :: i
        !HPF$ PROCESSORS pr(4)
        !HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a, b
          do i = 2, n - 1 ⟨×62 · wd 0.03 · ≈ 2.41 µs⟩
            b(i) = 0.5 * (a(i - 1) + a(i + 1)) ⟨×62 · wd 0.03 · 6 msg · 24 B⟩
          end do
        end subroutine smooth

        ⟦×1 run · 640 assignments/run · wd 0.00 · 60 msg · 240 B · ≈ 24.1 µs/run (compute 81.8 ns, comm 24 µs) on ib-hdr⟧
        program driver
          use grid
          real :: a(n), b(n)
          integer :: it
        !HPF$ PROCESSORS pr(4)
        !HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a, b
          do it = 1, 10 ⟨×10 · wd 0.00 · ≈ 24.1 µs⟩
            call smooth(a, b) ⟨×10 · 60 msg · 240 B · ≈ 24.1 µs⟩
            a = b ⟨×640 · wd 0.00⟩
          end do
        end program driver
    "#]]
    .assert_eq(&out);
}

#[test]
fn hover_gives_td_as_a_formula_of_the_unknowns() {
    let text = "subroutine halo(niter)
  integer, parameter :: n = 64
  integer :: niter, it, i, j
  real :: a(n, n), b(n, n)
!HPF$ PROCESSORS pr(4)
!HPF$ DISTRIBUTE (*, BLOCK) ONTO pr :: a, b
  do it = 1, niter
    do j = 2, n - 1
      do i = 2, n - 1
        b(i, j) = a(i, j $0- 1) + a(i, j + 1)
      end do
    end do
    a = b
  end do
end subroutine halo
";
    check_hover(
        text,
        &[("niter", 10)],
        expect![[r#"
            [b(i, j) = a(i, j - 1) + a(i, j + 1)]
            **assignment** (line 10)

            runs **38,440** times per call of `halo` (exactly)

            count = `n²·niter - 4·n·niter + 4·niter if n ≥ 3, niter ≥ 1`

            owner computes: the owners of `b` elements run it, on `pr`

            wd **0.03** over 4 processors · owork 9610 · most loaded p2 (1.03× mean) · least loaded p1 (0.97×)

            | p | work | × mean |
            |---:|---:|---:|
            | 1 | 9300 | 0.97 |
            | 2 | 9920 | 1.03 |
            | 3 | 9920 | 1.03 |
            | 4 | 9300 | 0.97 |

            work(S, p) = `$p·n·niter·⌊3·n/4⌋ - $p·n²·niter + 2·$p·n·niter - 2·$p·niter·⌊3·n/4⌋ - n·niter·⌊3·n/4⌋ + 2·n²·niter - 5·n·niter + 2·niter·⌊3·n/4⌋ + 2·niter if $p·⌊3·n/4⌋ + 2·n ≥ $p·n + ⌊3·n/4⌋ + 2, $p·n + ⌊3·n/4⌋ ≥ $p·⌊3·n/4⌋ + n + 1, niter ≥ 1, $p·n + 1 ≥ $p·⌊3·n/4⌋ + n; -$p·n·niter·⌊3·n/4⌋ + $p·n²·niter - 2·$p·n·niter + 2·$p·niter·⌊3·n/4⌋ - n·niter + 2·niter if $p·n ≥ $p·⌊3·n/4⌋ + 2, niter ≥ 1, $p·⌊3·n/4⌋ + n ≥… (3 cases in all)`

            **communication**

            `a(i, j - 1)` — shift; fetched once per iteration of the loop at line 7 (it writes `a`), vectorized over 2 inner loop(s)

            NT **30** · TD **7.3 KiB** · TT **36.3 µs** · critical path 12.1 µs

            | from | to | messages | bytes |
            |---:|---:|---:|---:|
            | 1 | 2 | 10 | 2.4 KiB |
            | 2 | 3 | 10 | 2.4 KiB |
            | 3 | 4 | 10 | 2.4 KiB |

            TD = `186·niter if niter ≥ 1` elements of 4 B

            `a(i, j + 1)` — shift; fetched once per iteration of the loop at line 7 (it writes `a`), vectorized over 2 inner loop(s)

            NT **30** · TD **7.3 KiB** · TT **36.3 µs** · critical path 12.1 µs

            | from | to | messages | bytes |
            |---:|---:|---:|---:|
            | 2 | 1 | 10 | 2.4 KiB |
            | 3 | 2 | 10 | 2.4 KiB |
            | 4 | 3 | 10 | 2.4 KiB |

            TD = `186·niter if niter ≥ 1` elements of 4 B

            **≈ 27 µs** per call of `halo` on `ib-hdr` — computation 2.79 µs · communication 24.2 µs

            busiest processor **2** of 4: 2.79 µs (mean 2.7 µs)

            one execution: 2 load + 1 add_f32 + 1 store = 0.28 ns; memory traffic 0.35 ns (memory-bound: it decides)

        "#]],
    );
}

#[test]
fn hover_on_a_distribute_draws_time_over_p_for_the_best_alternative() {
    let text = "program redblack
  integer, parameter :: n = 32
  real :: a(n, n)
  integer :: i, j
!HPF$ PROCESSORS p(4, 4)
!HPF$ DISTRIBUTE$0 a(BLOCK, BLOCK) ONTO p
  do j = 2, n - 1
    do i = 2 + mod(j, 2), n - 1, 2
      a(i, j) = 0.25 * (a(i-1, j) + a(i+1, j) + a(i, j-1) + a(i, j+1))
    end do
  end do
end program redblack
";
    check_hover(
        text,
        &[],
        expect![[r#"
            [!HPF$ DISTRIBUTE a(BLOCK, BLOCK) ONTO p]
            **`!HPF$ DISTRIBUTE (BLOCK, BLOCK) ONTO p :: a`**

            maps `a`

            spreads the work of 1 assignment(s):

            - line 9: wd 0.09

            **predicted time over P = 1–64** (one scale, lower is faster)

            - as written `(BLOCK, BLOCK)` `··█████` 4.82 µs at P=16
            - best alternative `(BLOCK, *)` `▁▆▆▆▆▆▆` 2.42 µs at P=16

            no crossing over this range of P
        "#]],
    );
}

/// A header with a declaration, a broken directive and a statement, included by the
/// file: the finding sits on the INCLUDE line and says where in the header it is; the
/// header's statement gets no hint here; asked for the header, the finding is at its
/// place there, with the INCLUDE line as where it came from.
#[test]
fn findings_in_an_included_header_point_into_it() {
    let header = "  real :: h(16)\n!HPF$ DISTRIBUTE nosuch(BLOCK)\n  h = 0.0\n";
    let text = "program p\n  include 'hdr.inc'\n  integer :: i\n  do i = 1, 16\n    h(i) = i\n  end do\nend program\n";
    let mut host = host("", &[]);
    host.set_header_text("hdr.inc", header.as_bytes().to_vec());
    host.add_file(PATH, text.as_bytes().to_vec());
    let a = host.snapshot();
    let here: Vec<String> = a
        .diagnostics(PATH)
        .unwrap()
        .iter()
        .filter(|d| d.code == "unknown-array")
        .map(|d| {
            let h = d.header.as_ref().expect("in the header");
            format!(
                "`{}` → {} `{}` {:?}",
                &text[d.range.start as usize..d.range.end as usize],
                h.source.path(),
                &header[h.range.start as usize..h.range.end as usize],
                h.sites
                    .iter()
                    .map(|s| format!("{}:{}:{}", s.path, s.line, s.column))
                    .collect::<Vec<_>>()
            )
        })
        .collect();
    expect![[r#"`include 'hdr.inc'` → hdr.inc `nosuch` ["t.f90:2:3"]"#]]
        .assert_eq(&here.join("\n"));
    let hints = a.inlay_hints(PATH, Span::new(0, text.len())).unwrap();
    let mut out = text.to_string();
    for h in hints.iter().rev() {
        out.insert_str(h.offset as usize, &format!(" ⟨{}⟩", h.label));
    }
    expect![[r#"
        program p
          include 'hdr.inc'
          integer :: i
          do i = 1, 16 ⟨×16 · ≈ 1.2 ns⟩
            h(i) = i ⟨×16⟩
          end do
        end program
    "#]]
    .assert_eq(&out);
    let there: Vec<String> = a
        .diagnostics("hdr.inc")
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} `{}` from {:?}",
                d.code,
                &header[d.range.start as usize..d.range.end as usize],
                d.included_from
                    .iter()
                    .map(|s| format!("{}:{}", s.path, s.line))
                    .collect::<Vec<_>>()
            )
        })
        .collect();
    expect![[r#"
        unknown-array `nosuch` from ["t.f90:2"]
        mapping `nosuch` from ["t.f90:2"]"#]]
    .assert_eq(&there.join("\n"));
}

/// A DISTRIBUTE in a header that a main program and a subroutine it calls ten times
/// include: the hover on it in the header names both units, the assignments it spreads
/// in each and the program's time; its code action rewrites the header for the layout
/// that is best for the program (the subroutine's shift along the second dimension
/// outweighs the main program's along the first).
#[test]
fn a_distribute_in_a_header_answers_for_the_program() {
    let header = "  integer, parameter :: n = 64\n  real :: a(n, n), b(n, n)\n  common /arrs/ a, b\n!HPF$ PROCESSORS pr(4)\n!HPF$ DISTRIBUTE a(*, BLOCK) ONTO pr\n!HPF$ ALIGN b(i, j) WITH a(i, j)\n";
    let text = "program p\n  include 'dist.inc'\n  integer :: i, j, k\n  do k = 1, 10\n    call sweep\n  end do\n  do j = 1, n\n    do i = 2, n\n      b(i, j) = a(i-1, j) + 1.0\n    end do\n  end do\nend program\nsubroutine sweep\n  include 'dist.inc'\n  integer :: i, j\n  do j = 2, n\n    do i = 1, n\n      b(i, j) = a(i, j-1) * 2.0\n    end do\n  end do\nend subroutine\n";
    let mut host = host("", &[]);
    host.set_header_text("dist.inc", header.as_bytes().to_vec());
    host.add_file(PATH, text.as_bytes().to_vec());
    let a = host.snapshot();
    let at = header.find("DISTRIBUTE").unwrap() as u32;
    let h = a
        .hover("dist.inc", at)
        .unwrap()
        .expect("a hover in the header");
    let range = &header[h.range.start as usize..h.range.end as usize];
    expect![[r#"
        `!HPF$ DISTRIBUTE a(*, BLOCK) ONTO pr`
        **`!HPF$ DISTRIBUTE (*, BLOCK) ONTO pr :: a`** in `dist.inc`

        included by 2 unit(s): `p` (t.f90), `sweep` (t.f90)

        maps `a`, `b`

        spreads the work of 2 assignment(s) in 2 unit(s):

        - `p` (t.f90:9): 1 assignment, wd 0.00
        - `sweep` (t.f90:18): 1 assignment, wd 0.03

        **predicted time of the program at P=4**: as written 13.4 µs; best alternative `(BLOCK, *)` 2.54 µs (5.3× faster) (the 2 including unit(s) that run, each weighted by its runs)
    "#]].assert_eq(&format!("`{range}`\n{}", h.markdown));
    let actions = a
        .code_actions("dist.inc", Span::new(at as usize, at as usize))
        .unwrap();
    let shown: Vec<String> = actions
        .iter()
        .map(|c| {
            let mut edited = header.to_string();
            for (span, new) in c.edits.iter().rev() {
                edited.replace_range(span.start as usize..span.end as usize, new);
            }
            let line = edited.lines().find(|l| l.contains("DISTRIBUTE")).unwrap();
            format!("{}\n  {line}", c.title)
        })
        .collect();
    expect![[r#"
        DISTRIBUTE a(BLOCK, *) ONTO PR(4) — 5.3× faster program at P=4 (2.54 µs instead of 13.4 µs; the 2 unit(s) including dist.inc that run)
          !HPF$ DISTRIBUTE a(BLOCK, *) ONTO pr
        DISTRIBUTE a(CYCLIC(8), *) ONTO PR(4) — 5.3× faster program at P=4 (2.55 µs instead of 13.4 µs; the 2 unit(s) including dist.inc that run)
          !HPF$ DISTRIBUTE a(CYCLIC(8), *) ONTO pr
        DISTRIBUTE a(CYCLIC(4), *) ONTO PR(4) — 5.2× faster program at P=4 (2.57 µs instead of 13.4 µs; the 2 unit(s) including dist.inc that run)
          !HPF$ DISTRIBUTE a(CYCLIC(4), *) ONTO pr"#]].assert_eq(&shown.join("\n"));
    // Asked on the including file, the INCLUDE line offers nothing to rewrite there.
    let include = text.find("include").unwrap();
    assert!(
        a.code_actions(PATH, Span::new(include, include))
            .unwrap()
            .is_empty()
    );
    drop(a);
    // The program priced by parts is the program analyzed with the header rewritten.
    let best = &actions[0];
    let mut edited = header.to_string();
    for (span, new) in best.edits.iter().rev() {
        edited.replace_range(span.start as usize..span.end as usize, new);
    }
    host.set_header_text("dist.inc", edited.into_bytes());
    let after = host.snapshot().hover("dist.inc", at).unwrap().unwrap();
    let promised = crate::label::seconds(best.promised_s.unwrap());
    assert!(
        after.markdown.contains(&format!("as written {promised};")),
        "{promised} promised, {}",
        after.markdown
    );
}

const TOKEN_RING: &str = "program ring
  implicit none
  include 'mpif.h'
  integer :: ierr, nprocs, rank, token
  integer :: status(MPI_STATUS_SIZE)
  call mpi_init(ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    call mpi_send(token, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)
    call mpi_recv(token, 1, MPI_INTEGER, nprocs - 1, 0, MPI_COMM_WORLD, status, ierr)
  else
    call mpi_recv(token, 1, MPI_INTEGER, rank - 1, 0, MPI_COMM_WORLD, status, ierr)
    call mpi_send(token, 1, MPI_INTEGER, mod(rank + 1, nprocs), 0, MPI_COMM_WORLD, ierr)
  end if
  call mpi_finalize(ierr)
end program ring
";

#[test]
fn hover_on_an_mpi_call_and_its_unit_says_totals_and_ranks() {
    check_hover(
        &TOKEN_RING.replace(
            "    call mpi_send(token, 1, MPI_INTEGER, 1,",
            "    call mpi_se$0nd(token, 1, MPI_INTEGER, 1,",
        ),
        &[("nprocs", 4)],
        expect![[r#"
            [call mpi_send(token, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)]
            **call** (line 10)

            runs an unknown number of times per program run: `rank` has no value (bind it with --param rank=...)

            count = `1 if rank = 0`

            MPI **send** of 4 B on 4 processes

            NT **1** · TD **4 B** · TT **1.2 µs** (totals over all ranks) · the slowest rank spends **0 s** in it (the ranks' calls replayed together, each waiting for its partners)

            **≥ 0 s** per program run on `ib-hdr` — computation 0 s · communication 0 s

            **incomplete** (a time is a lower bound): it leaves out a count that needs values for rank

            - t.f90:10: unknown-count — a count that needs values for rank

        "#]],
    );
    check_hover(
        &TOKEN_RING.replace("program ring\n", "program ri$0ng\n"),
        &[("nprocs", 4)],
        expect![[r#"
            [program ring]
            **program `ring`**

            runs **once** in the program

            **≥ 8.4 µs** per program run on `ib-hdr` — computation 0.14 ns · communication 8.4 µs

            **incomplete** (a time is a lower bound): it leaves out a count that needs values for rank (×4, lines 10–14)

            - t.f90:10: unknown-count — a count that needs values for rank
            - t.f90:11: unknown-count — a count that needs values for rank
            - t.f90:13: unknown-count — a count that needs values for rank
            - t.f90:14: unknown-count — a count that needs values for rank

            MPI on **4** ranks: NT **4** messages and TD **16 B** in all ranks together (the busiest rank sends 1); communication time **4.8 µs** on the slowest rank (the ranks' calls replayed together, each waiting for its partners)

            | rank | sends | bytes | receives | bytes | collectives | time |
            |---|---|---|---|---|---|---|
            | 0 | 1 | 4 B | 1 | 4 B | 0 | 4.8 µs |
            | 1 | 1 | 4 B | 1 | 4 B | 0 | 1.2 µs |
            | 2 | 1 | 4 B | 1 | 4 B | 0 | 2.4 µs |
            | 3 | 1 | 4 B | 1 | 4 B | 0 | 3.6 µs |

        "#]],
    );
}

#[test]
fn hover_on_an_innermost_loop_says_what_the_compiler_does_and_where_that_came_from() {
    use crate::{CompilerOutput, compiler_report::Report, content_hash};
    let text = "subroutine s(n, a, b)\n  integer :: n, i\n  real(4) :: a(n), b(n)\n  do i = 1, n\n    a(i) = b(i) + 1.0\n  end do\nend subroutine\n";
    let at = text.find("do i").unwrap() as u32 + 3;
    let mut host = host(text, &[]);
    host.set_options(&Options {
        bindings: BTreeMap::from([("n".to_string(), 1000)]),
        compiler: Some("gfortran -O2".into()),
        ..Options::default()
    });
    let line = |host: &AnalysisHost| -> String {
        let hover = host.snapshot().hover(PATH, at).unwrap().unwrap();
        let line = hover.markdown.lines().find(|l| l.starts_with("compiler"));
        line.unwrap_or("no compiler line").to_string() + "\n"
    };
    let output = |text: &str, report: Result<&str, &str>| CompilerOutput {
        content: content_hash(text.as_bytes()),
        compiler: "gfortran -O2".into(),
        report: report
            .map(|r| std::sync::Arc::new(Report::parse(r, PATH)))
            .map_err(str::to_string),
    };
    let mut seen = line(&host);
    // The compiler's report of the file as it is.
    let vectorized = "t.f90:4:8: optimized: loop vectorized using 16 byte vectors\n";
    host.set_compiler_output(PATH, Some(output(text, Ok(vectorized))));
    seen += &line(&host);
    let missed = "t.f90:4:8: missed: couldn't vectorize loop\n\
                  t.f90:5:14: missed: not vectorized: unsupported use in stmt.\n";
    host.set_compiler_output(PATH, Some(output(text, Ok(missed))));
    seen += &line(&host);
    // A report that says nothing of the loop, a failed compile, a stale report.
    host.set_compiler_output(PATH, Some(output(text, Ok(""))));
    seen += &line(&host);
    let error = "line 2: Fatal Error: Cannot open module file 'm.mod' for reading at (1)";
    host.set_compiler_output(PATH, Some(output(text, Err(error))));
    seen += &line(&host);
    host.set_compiler_output(PATH, Some(output("other text", Ok(vectorized))));
    seen += &line(&host);
    expect![[r#"
        compiler (`costline.compiler`): **not vectorized** by `gfortran -O2` — costline's rules of gfortran -O2: its trip count is not known when compiling (gfortran -O2: the very cheap cost model vectorizes only a constant trip count; -O3 would)
        compiler (`costline.compiler`): **vectorized** by `gfortran -O2` (16-byte vectors, 4 lanes) — compiler report: loop vectorized using 16 byte vectors
        compiler (`costline.compiler`): **not vectorized** by `gfortran -O2` — compiler report: not vectorized: unsupported use in stmt.
        compiler (`costline.compiler`): **not vectorized** by `gfortran -O2` — costline's rules of gfortran -O2: its trip count is not known when compiling (gfortran -O2: the very cheap cost model vectorizes only a constant trip count; -O3 would) (the compiler's report says nothing of this loop)
        compiler (`costline.compiler`): **not vectorized** by `gfortran -O2` — costline's rules of gfortran -O2: its trip count is not known when compiling (gfortran -O2: the very cheap cost model vectorizes only a constant trip count; -O3 would) (compiler report unavailable: line 2: Fatal Error: Cannot open module file 'm.mod' for reading at (1))
        compiler (`costline.compiler`): **not vectorized** by `gfortran -O2` — costline's rules of gfortran -O2: its trip count is not known when compiling (gfortran -O2: the very cheap cost model vectorizes only a constant trip count; -O3 would) (compiler report out of date: the rules answer until the new one arrives)
    "#]]
    .assert_eq(&seen);
}
