//! Variables given an initial value (DATA, an initializer) that nothing changes are
//! constants of their unit: `data cgitmax /25/` makes `do cgit = 1, cgitmax` count 25.

use super::{loop_counts, unit};

#[test]
fn data_and_initializers_that_nothing_changes_are_constants() {
    let u = unit(
        "subroutine cg(x)
  integer :: cgit, cgitmax, k, m, n = 7, moved
  real :: x
  data cgitmax / 25 /, k / 3 /, moved / 4 /
  data m / 5 /
  m = m + 1
  call shift(moved)
  do cgit = 1, cgitmax
  end do
  do cgit = 1, n * k
  end do
  do cgit = 1, m
  end do
  do cgit = 1, moved
  end do
end subroutine
",
    );
    assert_eq!(u.constants.values.get("cgitmax"), Some(&25));
    assert_eq!(u.constants.values.get("n"), Some(&7));
    assert_eq!(u.constants.values.get("m"), None, "assigned in the unit");
    assert_eq!(u.constants.values.get("moved"), None, "passed to a call");
    let counts = loop_counts(&u);
    assert_eq!(counts[0], Some(25.0));
    assert_eq!(counts[1], Some(21.0));
    assert_ne!(counts[2], Some(5.0));
}

#[test]
fn a_logical_parameter_decides_its_branches() {
    let u = unit(
        "subroutine s(n)
  integer :: n, i
  logical, parameter :: debug = .false., verbose = .true.
  if (debug) then
    do i = 1, n
    end do
  end if
  if (.not. debug .and. verbose) then
    do i = 1, 10
    end do
  end if
end subroutine
",
    );
    let counts = loop_counts(&u);
    assert_eq!(counts, [Some(0.0), Some(10.0)]);
}
