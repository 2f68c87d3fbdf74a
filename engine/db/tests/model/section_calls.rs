//! Calls that pass sections of mapped arrays to assumed-shape dummies the callee maps
//! itself (the multigrid idiom of NPB MG): the section's extents bind the dummy's
//! `size(x,k)`, the dummy's descriptive ALIGN makes its work owned, and a call in a
//! loop over levels binds the callee once per level (sub-sites), each level adding its
//! own halo exchange.

use costline_db::project;
use costline_syntax::ir::StmtKind;

/// The callee: a 3-point stencil over the first `n` elements of `x` into `y`, both
/// aligned with a 40-element BLOCK template on 4 processors (blocks of 10).
const SMOOTH: &str = "
subroutine smooth(x, y, n)
  integer :: n, i
  real :: x(:), y(:)
!HPF$ PROCESSORS q(4)
!HPF$ TEMPLATE t(40)
!HPF$ DISTRIBUTE t(BLOCK) ONTO q
!HPF$ ALIGN (:) WITH t :: x, y
  do i = 2, n - 1
    y(i) = x(i - 1) + x(i + 1)
  end do
end subroutine
";

/// A main program whose level sizes `m(1..3)` a set-up loop fills (34, 18, 10 from the
/// top), then `calls` (the CALL statements, `k` the level).
fn program(calls: &str) -> String {
    format!(
        "program vcycle
  integer, parameter :: lt = 3
  integer :: m(lt), k
  common /levels/ m
  real :: u(40, lt), v(40, lt)
!HPF$ PROCESSORS pr(4)
!HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: u, v
  m(lt) = 34
  do k = lt - 1, 1, -1
    m(k) = m(k + 1) / 2 + 1
  end do
{calls}
end program
{SMOOTH}"
    )
}

fn units(text: &str) -> Vec<project::UnitAnalysis> {
    let files = project::analyze(
        &[("t.f90".into(), text.as_bytes().to_vec())],
        &std::collections::BTreeMap::new(),
    );
    files.into_iter().next().unwrap().unwrap().units
}

fn named<'a>(units: &'a [project::UnitAnalysis], name: &str) -> &'a project::UnitAnalysis {
    units
        .iter()
        .find(|u| u.unit.name == name)
        .expect("the unit")
}

/// (messages, bytes) the CALLs of the main program communicate per run, summed.
fn call_comm(units: &[project::UnitAnalysis]) -> (f64, f64) {
    let main = named(units, "vcycle");
    let mut out = (0.0, 0.0);
    main.unit.walk(&mut |s, _| {
        if let StmtKind::Call(_) = s.kind {
            let m = main.call_comm.get(&s.id).expect("the call's communication");
            out.0 += m.nt;
            out.1 += m.td_bytes;
        }
    });
    out
}

#[test]
fn a_section_binds_the_extents_of_an_assumed_shape_dummy_aligned_in_the_callee() {
    let u = units(&program("  call smooth(u(:, 3), v(:, 3), m(3))"));
    let smooth = named(&u, "smooth");
    let mut work = None;
    smooth.unit.walk(&mut |s, _| {
        if let StmtKind::Assign { .. } = s.kind {
            work = smooth.values.load(s.id).map(|l| l.per_processor().to_vec());
        }
    });
    // i = 2..33 on blocks of 10: 9, 10, 10 and 3 iterations.
    assert_eq!(work, Some(vec![9.0, 10.0, 10.0, 3.0]));
    assert!(
        !named(&u, "vcycle")
            .diagnostics
            .iter()
            .any(|d| d.message.contains("not followed")),
        "the dummy maps itself: no note about the section's mapping"
    );
}

/// Hand check of the halo exchange per level: `x(i-1)` and `x(i+1)` cross each block
/// boundary inside 2..n-1 once each way, one element per message: n = 34 crosses 3
/// boundaries (6 messages), n = 18 one (2), n = 10 none: 8 messages, 32 bytes per
/// V-cycle; the same as three calls written out, one per level.
#[test]
fn a_call_in_a_loop_over_levels_binds_the_callee_once_per_level() {
    let looped = units(&program(
        "  do k = 1, lt\n    call smooth(u(1:m(k), k), v(1:m(k), k), m(k))\n  end do",
    ));
    assert_eq!(call_comm(&looped), (8.0, 32.0));
    let written_out = units(&program(
        "  call smooth(u(1:10, 1), v(1:10, 1), 10)
  call smooth(u(1:18, 2), v(1:18, 2), 18)
  call smooth(u(1:34, 3), v(1:34, 3), 34)",
    ));
    assert_eq!(call_comm(&written_out), call_comm(&looped));
}

/// A time-step loop around the loop over levels multiplies each level's exchange: the
/// sub-sites follow the loop the actuals depend on (3 levels), not every combination
/// with the 100 time steps (300, more than are told apart).
#[test]
fn a_time_step_loop_around_the_levels_repeats_each_level() {
    let looped = units(&program(
        "  integer :: step
  do step = 1, 100
    do k = 1, lt
      call smooth(u(1:m(k), k), v(1:m(k), k), m(k))
    end do
  end do",
    ));
    assert_eq!(call_comm(&looped), (800.0, 3200.0));
}

/// A call whose actuals do not change with the loop binds as one.
#[test]
fn a_call_whose_actuals_do_not_change_with_the_loop_binds_as_one() {
    let u = units(&program(
        "  do k = 1, lt\n    call smooth(u(:, 3), v(:, 3), m(3))\n  end do",
    ));
    // Three runs of the top level: 3 × 6 messages.
    assert_eq!(call_comm(&u), (18.0, 72.0));
}

/// Huge loop bounds around a call neither overflow nor split it: the call binds as one
/// (its loop runs too often to tell the values apart).
#[test]
fn a_call_in_a_loop_with_huge_bounds_binds_as_one() {
    let u = units(&program(
        "  do k = -9223372036854775807, 9223372036854775807, 4611686018427387904
    call smooth(u(1:m(k), 1), v(1:m(k), 1), m(k))
  end do",
    ));
    let main = named(&u, "vcycle");
    let mut calls = 0;
    main.unit
        .walk(&mut |s, _| calls += usize::from(matches!(s.kind, StmtKind::Call(_))));
    assert_eq!(calls, 1);
}
