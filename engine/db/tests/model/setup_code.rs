//! Integer set-up code the count walk runs with the values it knows (freq::execute):
//! tables filled in loops, user functions at constant arguments, a set-up subroutine
//! run at its call with the caller's values, a DO WHILE's trip count.

use costline_db::project;
use costline_syntax::ir::StmtKind;

/// Every unit of `text` (fixed or free form by `name`), analysed together.
fn units(name: &str, text: &str) -> Vec<project::UnitAnalysis> {
    let files = project::analyze(
        &[(name.into(), text.as_bytes().to_vec())],
        &std::collections::BTreeMap::new(),
    );
    files.into_iter().next().unwrap().unwrap().units
}

/// The value of each loop's count in unit `unit`, in order (`None`: unknown).
fn loop_counts(units: &[project::UnitAnalysis], unit: &str) -> Vec<Option<f64>> {
    super::loop_counts(
        units
            .iter()
            .find(|u| u.unit.name == unit)
            .expect("the unit"),
    )
}

#[test]
fn a_table_filled_in_a_loop_keeps_its_values() {
    let u = units(
        "t.f90",
        "subroutine levels(a)
  integer, parameter :: lt = 5
  integer :: ng(3, lt), ax, k, i, m(lt)
  real :: a(100)
  ng(1, lt) = 32
  ng(2, lt) = 16
  ng(3, lt) = 8
  do ax = 1, 3
    do k = lt - 1, 1, -1
      ng(ax, k) = ng(ax, k + 1) / 2
    end do
  end do
  do k = lt, 1, -1
    m(k) = 2 + ng(1, k)
  end do
  do i = 1, ng(1, 2) * ng(3, 4)
    a(i) = 0.0
  end do
  do i = 1, m(1) + k
    a(i) = 1.0
  end do
end subroutine
",
    );
    let counts = loop_counts(&u, "levels");
    // ng(1,2) = 32/8 = 4, ng(3,4) = 8/2 = 4; m(1) = 2 + 2 and k ends at 0.
    assert_eq!(counts[3], Some(16.0), "{counts:?}");
    assert_eq!(counts[4], Some(4.0), "{counts:?}");
}

#[test]
fn a_function_with_a_loop_has_a_value_at_constant_and_at_bound_arguments() {
    let u = units(
        "t.f90",
        "program main
  integer, parameter :: n = 64
  integer :: m, j, ilog2
  real :: x(100)
  m = ilog2(n)
  do j = 1, m
    x(j) = 0.0
  end do
  call fft(x, 256)
end program

subroutine fft(x, len)
  integer :: len, l, ilog2
  real :: x(100)
  do l = 1, ilog2(len)
    x(l) = 1.0
  end do
end subroutine

integer function ilog2(n)
  integer :: n, nn, lg
  if (n == 1) then
    ilog2 = 0
    return
  end if
  lg = 1
  nn = 2
  do while (nn < n)
    nn = nn * 2
    lg = lg + 1
  end do
  ilog2 = lg
end function
",
    );
    assert_eq!(loop_counts(&u, "main"), [Some(6.0)]);
    // `ilog2(len)` is named in fft's counts and valued once the call binds len = 256.
    assert_eq!(loop_counts(&u, "fft"), [Some(8.0)]);
    // Called with formula arguments only, the function's own loop stays unknown.
    assert_eq!(loop_counts(&u, "ilog2"), [None]);
}

#[test]
fn a_do_while_over_known_values_runs_as_often_as_executing_it_says() {
    let u = units(
        "t.f90",
        "subroutine s(x)
  integer :: nn, lg
  real :: x(100)
  nn = 1
  lg = 0
  do while (nn < 100)
    nn = nn * 3
    lg = lg + 1
    x(lg) = 0.0
  end do
  do lg = 1, nn
  end do
end subroutine
",
    );
    // 1 → 3 → 9 → 27 → 81 → 243: five iterations, and nn is 243 after them.
    assert_eq!(loop_counts(&u, "s"), [Some(5.0), Some(243.0)]);
}

/// The MG idiom: the main program reads its sizes or takes the defaults, a set-up
/// routine fills the level tables from them in loops, and the sizes it returns bound
/// the main program's loops.
#[test]
fn a_set_up_routine_runs_at_its_call_with_the_callers_values() {
    let u = units(
        "mg.f",
        "      program main
      integer n1, k, lt, nx(10), i, fstatus, ltd, nxd
      parameter (ltd = 5, nxd = 32)
      common /c/ nx, lt
      real u(100)
      open(unit=7, file='mg.input', status='old', iostat=fstatus)
      if (fstatus .eq. 0) then
         read(7,*) lt
         read(7,*) nx(lt)
      else
         lt = ltd
         nx(lt) = nxd
      endif
      call setup(n1, k)
      do i = 1, n1
         u(i) = 0.0
      end do
      end

      subroutine setup(n1, k)
      integer n1, k, lt, nx(10), ng(10)
      common /c/ nx, lt
      ng(lt) = nx(lt)
      do k = lt-1, 1, -1
         ng(k) = ng(k+1)/2
      end do
      if (nx(1) .gt. 1000) then
         write(*,*) 'large'
      endif
      n1 = ng(3) + 2
      end
",
    );
    // ng(3) = 32/4; the count rests on the default taken for the input file.
    assert_eq!(loop_counts(&u, "main"), [Some(10.0)]);
    let main = u.iter().find(|u| u.unit.name == "main").unwrap();
    let mut exact = None;
    main.unit.walk(&mut |s, _| {
        if let StmtKind::Loop(_) = s.kind {
            exact = main.freqs.of(s.id).map(|c| c.is_exact());
        }
    });
    assert_eq!(exact, Some(false), "the default is an assumption");
}

#[test]
fn code_too_long_to_run_or_deciding_on_data_is_not_run() {
    let u = units(
        "t.f90",
        "subroutine s(x, flag)
  integer :: i, k, j, flag(10)
  real :: x(100)
  k = 0
  do i = 1, 2000000000
    k = k + 1
  end do
  do j = 1, k
  end do
  k = 0
  do i = 1, 3
    if (flag(i) > 0) k = k + 1
  end do
  do j = 1, k
  end do
end subroutine
",
    );
    // Both k are unknown: the first loop runs past the budget, the second decides on
    // data; each inner loop is assumed to run the default trips.
    let counts = loop_counts(&u, "s");
    assert_eq!(counts[1], Some(100.0), "{counts:?}");
    assert_eq!(counts[3], Some(100.0), "{counts:?}");
}
