//! Transformational intrinsics priced by their element loops (issue 28): a reduction's
//! time grows with its section, and over a BLOCK-distributed array each processor walks
//! its own part and combines.

use costline_db::project;
use std::collections::BTreeMap;

/// The computation time of each processor in the first unit of `text` under `n`.
fn per_processor(text: &str, n: i64) -> Vec<f64> {
    let bindings: BTreeMap<String, i64> = [("n".to_string(), n)].into_iter().collect();
    let files = project::analyze(&[("t.f90".into(), text.as_bytes().to_vec())], &bindings);
    let file = files.into_iter().next().unwrap().unwrap();
    file.units[0].times.unit.per_processor.clone()
}

const DISTRIBUTED: &str = "subroutine t(n, a, s)\n  integer :: n\n  real(8) :: a(n), s\n\
!HPF$ PROCESSORS pr(4)\n!HPF$ DISTRIBUTE a(BLOCK) ONTO pr\n  s = sum(a(1:n))\nend subroutine t\n";

#[test]
fn a_sum_over_a_block_distributed_array_walks_each_processor_s_part() {
    let small = per_processor(DISTRIBUTED, 4_000);
    let large = per_processor(DISTRIBUTED, 40_000);
    assert_eq!(small.len(), 4);
    // Every processor owns n/4 of the elements: the same time on each.
    assert!(
        small.iter().all(|t| (t - small[0]).abs() < 1e-15),
        "{small:?}"
    );
    // Ten times the elements, ten times the time (up to the fixed combine).
    let ratio = large[0] / small[0];
    assert!((9.9..10.01).contains(&ratio), "{ratio}");
    // The same sum on one processor walks all n: about 4 times as long.
    let alone = per_processor(
        "subroutine t(n, a, s)\n  integer :: n\n  real(8) :: a(n), s\n  s = sum(a(1:n))\nend subroutine t\n",
        40_000,
    );
    let share = large[0] / alone[0];
    assert!((0.249..0.26).contains(&share), "{share}");
}

#[test]
fn a_section_owned_by_one_processor_leaves_the_others_idle() {
    let text = DISTRIBUTED.replace("sum(a(1:n))", "sum(a(1:n/4))");
    let t = per_processor(&text, 4_000);
    assert!(t[0] > 100.0 * t[1], "{t:?}");
    assert!((t[1] - t[3]).abs() < 1e-15, "{t:?}");
}

#[test]
fn reductions_and_copies_cost_per_element() {
    let text = |e: &str| {
        format!(
            "subroutine t(n, a, b, s)\n  integer :: n\n  real(8) :: a(n), b(n, n), s\n  {e}\nend subroutine t\n"
        )
    };
    for e in [
        "s = maxval(abs(a))",
        "s = dot_product(a, a)",
        "s = norm2(a(2:n-1))",
        "b = transpose(b)",
        "if (any(a > 0)) s = 1",
    ] {
        let small = per_processor(&text(e), 1_000)[0];
        let large = per_processor(&text(e), 2_000)[0];
        let grows = if e.contains("transpose") { 3.9 } else { 1.9 };
        assert!(large > grows * small, "{e}: {small} → {large}");
    }
}

/// What the first unit of `text` (with `bindings`) says it leaves out: "LINE CODE: WHAT".
fn missing_of(text: &str, bindings: &BTreeMap<String, i64>) -> Vec<String> {
    let files = project::analyze(&[("t.f90".into(), text.as_bytes().to_vec())], bindings);
    let file = files.into_iter().next().unwrap().unwrap();
    file.units[0]
        .missing
        .all
        .entries
        .iter()
        .map(|m| format!("{} {}: {}", m.line, m.code.as_str(), m.what))
        .collect()
}

#[test]
fn a_reduction_over_an_array_of_unknown_extent_is_reported_not_priced() {
    let text = "subroutine t(a, s)\n  real(8) :: a(:), s\n  s = sum(a)\nend subroutine t\n";
    let missing = missing_of(text, &BTreeMap::new());
    assert!(
        missing
            .iter()
            .any(|m| m.starts_with("3 not-priced: the element loop of `SUM`")),
        "{missing:?}"
    );
}

#[test]
fn a_loop_variable_index_of_the_section_counts_one_position() {
    let text = "subroutine t(n, a, r)\n  integer :: n, m\n  real(8) :: a(n, 5), r(5)\n  \
                do m = 1, 5\n    r(m) = sum(a(:, m))\n  end do\nend subroutine t\n";
    let five = per_processor(text, 1_000)[0];
    let one = per_processor(
        "subroutine t(n, a, r)\n  integer :: n\n  real(8) :: a(n, 5), r(5)\n  \
         r(1) = sum(a(:, 1))\nend subroutine t\n",
        1_000,
    )[0];
    let ratio = five / one;
    assert!((4.9..5.3).contains(&ratio), "{ratio}");
}

#[test]
fn a_section_with_its_bounds_needs_no_declared_shape() {
    let shaped = "subroutine t(n, a, s)\n  integer :: n\n  real(8) :: a(:, :), s\n  \
                  s = sum(a(1:n, 2))\nend subroutine t\n";
    let explicit = "subroutine t(n, a, s)\n  integer :: n\n  real(8) :: a(n, 3), s\n  \
                    s = sum(a(1:n, 2))\nend subroutine t\n";
    let (a, b) = (
        per_processor(shaped, 1_000)[0],
        per_processor(explicit, 1_000)[0],
    );
    assert!(a > 0.0 && (a - b).abs() < 1e-15, "{a} vs {b}");
}

/// `s = SUM(b, DIM=k)` stores one element of its result per execution of the
/// scalarized assignment: the whole statement walks b once (n² elements), as the
/// explicit loop nest does, not n times; a DIM reduction inside another reduction
/// still walks all of b per execution.
#[test]
fn a_reduction_along_dim_walks_the_array_once_per_statement() {
    let text = |e: &str| {
        format!(
            "subroutine t(n, b, s, x)\n  integer :: n, i, j\n  real(8) :: b(n, n), s(n), x\n  {e}\nend subroutine t\n"
        )
    };
    let loops = "do j = 1, n\n    s(j) = 0\n    do i = 1, n\n      s(j) = s(j) + b(i, j)\n    end do\n  end do";
    for e in [
        "s = sum(b, dim=1)",
        "s = sum(b, 2)",
        "s = 2.0 * sum(b(1:n, :), dim=1) + 1.0",
    ] {
        let small = per_processor(&text(e), 200)[0];
        let large = per_processor(&text(e), 400)[0];
        // n² work: about four times the time for twice n (less where the per-result
        // operations still weigh; n³ would be eight).
        let ratio = large / small;
        assert!((2.8..4.6).contains(&ratio), "{e}: {ratio}");
        // Within a small factor of the loop nest that computes the same sums.
        let nest = per_processor(&text(loops), 400)[0];
        assert!(
            (0.2..5.0).contains(&(large / nest)),
            "{e}: {large} vs {nest}"
        );
    }
    // Nested: each of the n results of SUM(b, DIM=1) is asked for by one MAXVAL, which
    // walks the whole of b per execution of its statement, once.
    let nested = |n| per_processor(&text("x = maxval(sum(b, dim=1))"), n)[0];
    let ratio = nested(400) / nested(200);
    assert!((3.5..4.6).contains(&ratio), "nested: {ratio}");
}

/// A running maximum is a chain of compare-and-selects, as a running sum is one of
/// additions: MAXVAL costs per element about what SUM costs (gfortran -O2 on this
/// project's Intel Xeon VM: 1.6 and 0.8 ns per element of real(8) at 4,000 elements),
/// and the explicit loop `s = max(s, a(i))` about what MAXVAL costs (1.6 ns). Before,
/// both were priced as free operations overlapping the loop, at 0.002 and 0.09 ns.
#[test]
fn a_running_maximum_is_priced_as_a_chain() {
    let text = |body: &str| {
        format!(
            "subroutine t(n, a, s)\n  integer :: n, i\n  real(8) :: a(n), s\n  {body}\nend subroutine t\n"
        )
    };
    let n = 40_000;
    let sum = per_processor(&text("s = sum(a(1:n))"), n)[0];
    let maxval = per_processor(&text("s = maxval(a(1:n))"), n)[0];
    let explicit = per_processor(
        &text("s = a(1)\n  do i = 2, n\n    s = max(s, a(i))\n  end do"),
        n,
    )[0];
    assert!((0.5..=2.5).contains(&(maxval / sum)), "{maxval} vs {sum}");
    assert!(
        (0.5..=2.0).contains(&(explicit / maxval)),
        "{explicit} vs {maxval}"
    );
}

/// The computation time of the first unit of `text` under `n` on `machine`.
fn time_on(text: &str, n: i64, machine: costline_model::machine::Machine) -> f64 {
    let options = costline_db::Options {
        bindings: [("n".to_string(), n)].into_iter().collect(),
        machine: std::sync::Arc::new(machine),
        ..Default::default()
    };
    let files = project::analyze_with(&[("t.f90".into(), text.as_bytes().to_vec())], &options);
    let file = files.into_iter().next().unwrap().unwrap();
    file.units[0].times.unit.ct_s()
}

const MATMUL: &str = "subroutine t(n, a, b, c)\n  integer :: n\n  real(8) :: a(n, n), b(n, n), c(n, n)\n  \
                      c = matmul(a, b)\nend subroutine t\n";

/// MATMUL is n³ multiply-adds, not one operation per element of its result (it was
/// priced as one call per element: 12 µs for n = 200 instead of milliseconds).
#[test]
fn matmul_costs_a_multiply_add_per_position_of_each_result_element() {
    let machine = costline_model::machine::Catalog::default_machine;
    let t10 = time_on(MATMUL, 10, machine());
    let t20 = time_on(MATMUL, 20, machine());
    let ratio = t20 / t10;
    assert!((7.0..8.5).contains(&ratio), "{ratio}");
    // Inlined (n <= 30), it costs what the loops gfortran writes for it cost.
    let loops = "subroutine t(n, a, b, c)\n  integer :: n, i, j, k\n  \
                 real(8) :: a(n, n), b(n, n), c(n, n)\n  c = 0\n  do j = 1, n\n    do k = 1, n\n      \
                 do i = 1, n\n        c(i, j) = c(i, j) + a(i, k)*b(k, j)\n      end do\n    \
                 end do\n  end do\nend subroutine t\n";
    let explicit = time_on(loops, 20, machine());
    let share = t20 / explicit;
    assert!(
        (0.5..2.0).contains(&share),
        "{t20} vs the loops' {explicit}"
    );
    // A matrix times a vector: n² multiply-adds.
    let mv = "subroutine t(n, a, x, y)\n  integer :: n\n  real(8) :: a(n, n), x(n), y(n)\n  \
              y = matmul(a, x)\nend subroutine t\n";
    let ratio = time_on(mv, 40, machine()) / time_on(mv, 20, machine());
    assert!((3.5..4.3).contains(&ratio), "{ratio}");
}

/// Above the inline limit gfortran calls its library's routine: `matmul_fma` per
/// multiply-add when the model has it.
#[test]
fn a_large_matmul_runs_at_the_library_s_rate() {
    let mut machine = costline_model::machine::Catalog::default_machine();
    machine.processor.ops.insert("matmul_fma".into(), 1e-10);
    let t = time_on(MATMUL, 100, machine.clone());
    let library = 100f64.powi(3) * 1e-10;
    assert!(t >= library && t < 1.1 * library, "{t} vs {library}");
    // At 30 it is still inlined: the element loops' price, not the library's.
    let inlined = time_on(MATMUL, 30, machine.clone());
    let without = time_on(
        MATMUL,
        30,
        costline_model::machine::Catalog::default_machine(),
    );
    assert_eq!(inlined, without);
}

#[test]
fn a_matmul_inside_another_expression_is_reported_not_priced() {
    let text = "subroutine t(n, a, b, s)\n  integer :: n\n  real(8) :: a(n, n), b(n, n), s\n  \
                s = sum(matmul(a, b))\nend subroutine t\n";
    let bindings: BTreeMap<String, i64> = [("n".to_string(), 50)].into_iter().collect();
    let missing = missing_of(text, &bindings);
    assert!(missing.iter().any(|m| m.contains("MATMUL")), "{missing:?}");
}
