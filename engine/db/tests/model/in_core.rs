//! The in-core model (`overlap = "ports"`): one iteration's operations overlap across
//! the statements of a loop body, an enclosing loop's iteration costs only its
//! micro-operations, and a loop-carried cycle through several statements is a floor.

use costline_db::project;
use costline_model::machine::Catalog;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A ports machine with round costs (seconds): 0.5 per load, 1 per store, add or mul,
/// 4 per division, 2.5 per loop iteration (its jump), 0.3 per micro-operation issued;
/// latencies add 2, mul 3. Memory never slower than the operations (huge bandwidths).
fn machine() -> costline_model::machine::Machine {
    let mut m = Catalog::default_machine();
    m.processor.overlap = Some("ports".into());
    m.processor.ops = [
        ("load", 0.5),
        ("store", 1.0),
        ("add_f64", 1.0),
        ("mul_f64", 1.0),
        ("div_f64", 4.0),
        ("add_i32", 1.0),
        ("branch", 1.0),
        ("loop_iter", 2.5),
        ("call", 10.0),
        ("issue", 0.3),
        ("latency_add_f64", 2.0),
        ("latency_mul_f64", 3.0),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for level in &mut m.memory.levels {
        level.bandwidth_bytes_per_s = Some(1e30);
    }
    m.memory.bandwidth_bytes_per_s = 1e30;
    m
}

/// Each unit's time with n = 100.
fn times(text: &str) -> BTreeMap<String, f64> {
    let options = costline_db::Options {
        bindings: [("n".to_string(), 100)].into_iter().collect(),
        machine: Arc::new(machine()),
        ..Default::default()
    };
    let files = project::analyze_with(&[("t.f90".into(), text.as_bytes().to_vec())], &options);
    let file = files.into_iter().next().unwrap().unwrap();
    file.units
        .iter()
        .map(|u| (u.unit.name.clone(), u.times.unit.time_s))
        .collect()
}

#[test]
fn statements_of_one_iteration_overlap() {
    let text = "subroutine two(n, a, b, c, d, e)\n  integer :: n, i\n  real(8) :: a(n), b(n), c(n), d(n), e(n)\n  \
                do i = 1, n\n    a(i) = b(i) + c(i)\n    d(i) = e(i) * 2.0d0\n  end do\nend subroutine\n\
                subroutine divs(n, a, b, c)\n  integer :: n, i\n  real(8) :: a(n), b(n), c(n)\n  \
                do i = 1, n\n    a(i) = b(i) / c(i) + 1.0d0\n    c(i) = b(i) / 3.0d0\n  end do\nend subroutine\n";
    let t = times(text);
    // Loads 3 (1.5), stores 2, adds 1, muls 1: every port below the jump (2.5); 7
    // uops + 2 for the loop = 9 x 0.3 = 2.7 at the front end, the busiest. (Priced
    // one statement at a time it would be 2.5 + 1.5 + 1.)
    assert!((t["two"] - 100.0 * 2.7).abs() < 1e-9, "{}", t["two"]);
    // Two divisions: the divider, 8 per iteration.
    assert!((t["divs"] - 100.0 * 8.0).abs() < 1e-9, "{}", t["divs"]);
}

#[test]
fn an_enclosing_loop_costs_its_micro_operations() {
    let text = "subroutine nest(n, a, b)\n  integer :: n, i, j\n  real(8) :: a(n, n), b(n, n)\n  \
                do j = 1, n\n    do i = 1, n\n      a(i, j) = b(i, j) + 1.0d0\n    end do\n  end do\nend subroutine\n";
    let t = times(text);
    // Inner: max(jump 2.5, uops 5 x 0.3) per iteration; outer: 2 uops x 0.3.
    assert!(
        (t["nest"] - (100.0 * 100.0 * 2.5 + 100.0 * 0.6)).abs() < 1e-9,
        "{}",
        t["nest"]
    );
}

#[test]
fn a_cycle_through_two_statements_is_a_floor() {
    let text = "subroutine lfk19(n, b5, sa, sb, stb5)\n  integer :: n, k\n  real(8) :: b5(n), sa(n), sb(n), stb5\n  \
                do k = 1, n\n    b5(k) = sa(k) + stb5*sb(k)\n    stb5 = b5(k) - stb5\n  end do\nend subroutine\n";
    let t = times(text);
    // stb5 -> mul (3) -> add (2) -> b5(k) -> sub (2) -> stb5: 7 per iteration.
    assert!((t["lfk19"] - 100.0 * 7.0).abs() < 1e-9, "{}", t["lfk19"]);
}

/// Chains through elements start again at each entry of the inner loop, so those of
/// consecutive entries overlap in the out-of-order window (`window_iterations`: 1 +
/// W / trips of them at once); a chain through a scalar goes on from one entry to the
/// next and does not.
#[test]
fn short_chains_of_consecutive_entries_overlap() {
    let elements = "subroutine rows(n, a, b)\n  integer :: n, i, j\n  real(8) :: a(n, n), b(n, n)\n  \
                    do j = 1, n\n    do i = 2, n\n      a(i, j) = a(i - 1, j) * 0.5d0 + b(i, j)\n    end do\n  end do\nend subroutine\n";
    let scalar = "subroutine sums(n, s, b)\n  integer :: n, i, j\n  real(8) :: s, b(n, n)\n  \
                  do j = 1, n\n    do i = 2, n\n      s = s * 0.5d0 + b(i, j)\n    end do\n  end do\nend subroutine\n";
    let with_window = |w: Option<f64>| {
        let mut m = machine();
        m.processor.window_iterations = w;
        m
    };
    // Chain: mul (3) + add (2) = 5 per inner iteration, above every port; 99 trips per
    // entry. The outer loop adds 100 x 2 uops x 0.3.
    let outer = 100.0 * 0.6;
    let alone = time_on_n(elements, with_window(None), 100);
    assert!(
        (alone - (100.0 * 99.0 * 5.0 + outer)).abs() < 1e-6,
        "{alone}"
    );
    // 1 + 33/99 = 4/3 chains at once.
    let overlapped = time_on_n(elements, with_window(Some(33.0)), 100);
    assert!(
        (overlapped - (100.0 * 99.0 * 5.0 * 0.75 + outer)).abs() < 1e-6,
        "{overlapped}"
    );
    let sums = time_on_n(scalar, with_window(Some(33.0)), 100);
    assert!((sums - (100.0 * 99.0 * 5.0 + outer)).abs() < 1e-6, "{sums}");
}

/// The time of the first unit of `text` with n = 1000 on `machine`.
fn time_on(text: &str, machine: costline_model::machine::Machine) -> f64 {
    time_on_n(text, machine, 1000)
}

/// The time of the first unit of `text` with n = `n` on `machine`.
fn time_on_n(text: &str, machine: costline_model::machine::Machine, n: i64) -> f64 {
    let options = costline_db::Options {
        bindings: [("n".to_string(), n)].into_iter().collect(),
        machine: Arc::new(machine),
        ..Default::default()
    };
    let files = project::analyze_with(&[("t.f90".into(), text.as_bytes().to_vec())], &options);
    let file = files.into_iter().next().unwrap().unwrap();
    file.units[0].times.unit.time_s
}

#[test]
fn lines_too_far_apart_to_prefetch_are_demand_misses() {
    // A 4 KiB cache, memory at 64 B per second: a line streamed costs 1 s; a line
    // 8 KiB from the last costs `strided_line_s`.
    let mut m = Catalog::default_machine();
    m.processor.ops.values_mut().for_each(|v| *v = 1e-9);
    m.memory.levels.truncate(1);
    m.memory.levels[0].bytes = 4096;
    m.memory.levels[0].bandwidth_bytes_per_s = Some(1e30);
    m.memory.cache_line_bytes = 64;
    m.memory.bandwidth_bytes_per_s = 64.0;
    let row = "subroutine row(n, a, s)\n  integer :: n, i\n  real(8) :: a(1024, n), s\n  \
               do i = 1, n\n    s = s + a(1, i)\n  end do\nend subroutine\n";
    let column = "subroutine column(n, a, s)\n  integer :: n, i\n  real(8) :: a(n, 1024), s\n  \
                  do i = 1, n\n    s = s + a(i, 1)\n  end do\nend subroutine\n";
    let streamed = time_on(row, m.clone());
    assert!((streamed - 1000.0).abs() < 1.0, "{streamed}");
    m.memory.strided_line_s = Some(3.0);
    // 1000 lines, one per access, 8 KiB apart: 3 s each.
    let demand = time_on(row, m.clone());
    assert!((demand - 3000.0).abs() < 1.0, "{demand}");
    // Unit stride: 125 lines, streamed either way.
    let unit = time_on(column, m);
    assert!((unit - 125.0).abs() < 1.0, "{unit}");
}

/// An access per page over more pages than the TLB holds walks the page tables: the
/// share 1 − (entries / pages)² of them (`machine::tlb_miss_share`), `walk_s` each;
/// over fewer pages, none.
#[test]
fn pages_beyond_the_tlb_walk_the_page_tables() {
    let mut m = Catalog::default_machine();
    m.processor.ops.values_mut().for_each(|v| *v = 1e-12);
    for level in &mut m.memory.levels {
        level.bandwidth_bytes_per_s = Some(1e30);
    }
    m.memory.bandwidth_bytes_per_s = 1e30;
    m.memory.strided_line_s = None;
    m.memory.tlb = Some(costline_model::machine::Tlb {
        page_bytes: 4096,
        entries: 64,
        walk_s: 1.0,
    });
    // a(j, i) for i = 1..n: a column of 8 KiB per i, a page per access.
    let text = "subroutine rows(n, a, b)\n  integer :: n, i, j\n  real(8) :: a(1024, n), b(n)\n  \
                do j = 1, 4\n    do i = 1, n\n      b(i) = b(i) + a(j, i)\n    end do\n  end do\nend subroutine\n";
    let few = time_on_n(text, m.clone(), 50);
    assert!(few < 1e-6, "{few}");
    // 1000 pages of a (and 2 of b) per sweep: the 4 x 1000 accesses to a lose their
    // page (and b's few pages when a's have pushed them out).
    let many = time_on_n(text, m, 1000);
    let share = 1.0 - (64.0f64 / 1002.0).powi(2);
    assert!((many / (4000.0 * share) - 1.0).abs() < 0.01, "{many}");
}
