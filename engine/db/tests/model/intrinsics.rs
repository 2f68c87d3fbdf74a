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
