//! Tables a set-up procedure fills once (the NPB LU idiom: `SetLoopBounds` stores each
//! hyperplane's bounds in COMMON tables, calling a procedure that returns them in a
//! structure), read as formulas of their subscripts by the loops that use them.

use costline_db::project;
use costline_syntax::ir::StmtKind;

/// `setbounds` fills `lo(k)`, `hi(k)` for k = 1..20 through `bounds`, which returns
/// them in a structure: 1..k up to k = 10, k-9..10 after. `sweep` runs over each
/// row's range: Σ (hi - lo + 1) = 55 + 45 = 100 iterations.
const PROGRAM: &str = "
subroutine bounds(k, c)
  implicit none
  type range
    integer :: first, last
  end type range
  integer, intent(in) :: k
  type(range), intent(inout) :: c
  if (k <= 10) then
    c%first = 1
    c%last = k
  else
    c%first = k - 9
    c%last = 10
  end if
end subroutine

subroutine setbounds
  implicit none
  type range
    integer :: first, last
  end type range
  integer :: lo(20), hi(20), k
  common /rows/ lo, hi
  type(range) :: c
  do k = 1, 20
    call bounds(k, c)
    lo(k) = c%first
    hi(k) = c%last
  end do
end subroutine

subroutine sweep
  implicit none
  integer :: lo(20), hi(20), l, i
  common /rows/ lo, hi
  real :: a(10, 20)
  do l = 1, 20
    do i = lo(l), hi(l)
      a(i, l) = 0.0
    end do
  end do
end subroutine

program main
  call setbounds
  call sweep
end program
";

fn analysed(text: &str) -> Vec<project::UnitAnalysis> {
    let files = project::analyze(
        &[("t.f90".into(), text.as_bytes().to_vec())],
        &std::collections::BTreeMap::new(),
    );
    files.into_iter().next().unwrap().unwrap().units
}

/// The count of the one assignment of unit `name` and whether it is exact.
fn assignment_count(units: &[project::UnitAnalysis], name: &str) -> (Option<f64>, bool) {
    let u = units
        .iter()
        .find(|u| u.unit.name == name)
        .expect("the unit");
    let mut out = (None, false);
    u.unit.walk(&mut |s, _| {
        if let StmtKind::Assign { .. } = s.kind {
            let exact = u.freqs.of(s.id).is_some_and(|c| c.is_exact());
            out = (u.values.value(s.id), exact);
        }
    });
    out
}

#[test]
fn a_table_filled_through_a_structure_gives_the_sweep_its_exact_count() {
    let units = analysed(PROGRAM);
    assert_eq!(assignment_count(&units, "sweep"), (Some(100.0), true));
}

/// A second writer of the table makes it data: the sweep's inner loop is assumed.
#[test]
fn a_table_set_in_two_places_is_data() {
    let text = PROGRAM.replace(
        "program main",
        "subroutine spoil
  integer :: lo(20), hi(20)
  common /rows/ lo, hi
  lo(3) = 7
end subroutine

program main",
    );
    let (count, exact) = assignment_count(&analysed(&text), "sweep");
    assert!(
        !exact,
        "count {count:?} should rest on an assumed trip count"
    );
}
