use costline_db::project;
use costline_model::freq::*;
use costline_symbolic::Notation;
use costline_syntax::ir::pretty::render;
use expect_test::{Expect, expect};
use std::collections::BTreeMap;

/// Lowers `text` (free form), counts every statement, and renders per statement: its
/// first line as lowered, the formula, the value under `params`, and the assumptions.
fn check(text: &str, params: &[(&str, i64)], expected: Expect) {
    let files = project::analyze(
        &[("t.f90".into(), text.as_bytes().to_vec())],
        &BTreeMap::new(),
    );
    let file = files.into_iter().next().unwrap().unwrap();
    let unit = &file.units[0].unit;
    let options = FreqOptions {
        unit_max_steps: None,
        ..FreqOptions::default()
    };
    let freqs = frequencies(unit, &options);
    let env = |n: &str| {
        params
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| *v as i128)
    };
    let mut out = String::new();
    unit.walk(&mut |s, depth| {
        let line = render(std::slice::from_ref(s));
        let first = line.lines().next().unwrap_or("");
        let c = freqs.of(s.id).unwrap();
        let formula = c
            .symbolic()
            .map(|p| p.display(Notation::Fortran))
            .unwrap_or_else(|| {
                format!(
                    "no formula: {}",
                    c.symbolic_error()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                )
            });
        let value = match c.eval(&env, &options) {
            Ok(v) => v.to_string(),
            Err(e) => format!("? ({e})"),
        };
        out += &format!(
            "{}{first}\n{}  = {formula}  → {value}\n",
            "  ".repeat(depth),
            "  ".repeat(depth)
        );
        for a in &c.assumptions {
            let what = match a {
                Assumption::Probability { p, source, .. } => format!(
                    "probability {p}{}",
                    if *source == Source::Pragma {
                        " (pragma)"
                    } else {
                        ""
                    }
                ),
                Assumption::Trips {
                    trips, source, why, ..
                } => format!(
                    "{trips} trips{}: {why}",
                    if *source == Source::Pragma {
                        " (pragma)"
                    } else {
                        ""
                    }
                ),
                Assumption::EarlyExit { .. } => "may exit early".into(),
                Assumption::JumpTarget { .. } => "a GO TO target, as if always reached".into(),
                Assumption::Complex { .. } => "conditions too complex, estimated".into(),
                Assumption::ColdPath { .. } => "a branch that ends the program, not taken".into(),
                Assumption::InputDefault { names, .. } => {
                    format!("the value without input of {}", names.join(", "))
                }
            };
            out += &format!("{}  assumes {what}\n", "  ".repeat(depth));
        }
    });
    expected.assert_eq(&out);
}

#[test]
fn p3t_plus_first_nest_in_fortran() {
    check(
        "subroutine p3t(a, n1, n2)
  integer n1, n2, j1, j2
  real a
  do j1 = 1, n1
    do j2 = 1, n2*j1
      if (j1 <= n2) then
        a = a + 1
      end if
    end do
  end do
end subroutine
",
        &[("n1", 5), ("n2", 3)],
        expect![[r#"
            do j1 = 1, n1
              = n1 if n1 >= 1  → 5
              do j2 = 1, n2*j1
                = (n1**2*n2 + n1*n2)/2 if n1 >= 1, n2 >= 1  → 45
                if (j1 <= n2) then
                  = (n1**2*n2 + n1*n2)/2 if n1 >= 1, n2 >= 1  → 45
                a = a + 1
                  = (n1**2*n2 + n1*n2)/2 if n1 >= 1, n2 >= n1; (n2**3 + n2**2)/2 if n1 >= n2 + 1, n2 >= 1  → 18
        "#]],
    );
}

#[test]
fn triangular_steps_and_definitions() {
    check(
        "subroutine tri(a, n, p)
  integer n, p, i, j, nloc
  real a(n, n)
  nloc = n / p
  do i = 1, n
    do j = i, n, 2
      a(i, j) = 0
    end do
  end do
  do i = nloc, 1, -1
    a(i, 1) = 1
  end do
end subroutine
",
        &[("n", 10), ("p", 3)],
        expect![[r#"
            nloc = n/p
              = 1  → 1
            do i = 1, n
              = n if n >= 1  → 10
              do j = i, n, 2
                = (floor((n + 1)/2)**2 + floor(n/2)**2 + floor((n + 1)/2) + floor(n/2))/2 if floor(n/2) >= 1; (floor((n + 1)/2)**2 + floor((n + 1)/2))/2 if floor((n + 1)/2) >= 1, 0 >= floor(n/2)  → 30
                a(i, j) = 0
                  = (floor((n + 1)/2)**2 + floor(n/2)**2 + floor((n + 1)/2) + floor(n/2))/2 if floor(n/2) >= 1; (floor((n + 1)/2)**2 + floor((n + 1)/2))/2 if floor((n + 1)/2) >= 1, 0 >= floor(n/2)  → 30
            do i = nloc, 1, -1
              = int(n/p) if int(n/p) >= 1  → 3
              a(i, 1) = 1
                = int(n/p) if int(n/p) >= 1  → 3
        "#]],
    );
}

#[test]
fn data_dependent_branches_loops_and_pragmas() {
    check(
        "subroutine dd(x, n)
  integer n, i, k
  real x(n)
  do while (x(1) > 0) !costline: trips 20
    x(1) = x(1) - 1
  end do
  do i = 1, n
    if (x(i) > 0) then !costline: probability 0.1
      x(i) = 0
    else
      x(i) = 1
    end if
    if (x(i) < 0) cycle
    x(i) = 2
  end do
  do
    k = k + 1
    if (k > n) exit
  end do
end subroutine
",
        &[("n", 10)],
        expect![[r#"
            do while (x(1) > 0)
              = 20  → 20
              assumes 20 trips (pragma): it is a DO WHILE loop
              x(1) = x(1) - 1
                = 20  → 20
                assumes 20 trips (pragma): it is a DO WHILE loop
            do i = 1, n
              = n if n >= 1  → 10
              if (x(i) > 0) then
                = n if n >= 1  → 10
              x(i) = 0
                = n/10 if n >= 1  → 1
                assumes probability 1/10 (pragma)
              x(i) = 1
                = 9*n/10 if n >= 1  → 9
                assumes probability 1/10 (pragma)
              if (x(i) < 0) then
                = n if n >= 1  → 10
              cycle
                = n/2 if n >= 1  → 5
                assumes probability 1/2
              x(i) = 2
                = n/2 if n >= 1  → 5
                assumes probability 1/2
            do
              = 100  → 100
              assumes may exit early
              assumes 100 trips: it is a DO loop without control
              k = k + 1
                = 100  → 100
                assumes may exit early
                assumes 100 trips: it is a DO loop without control
              if (k > n) then
                = 100  → 100
                assumes may exit early
                assumes 100 trips: it is a DO loop without control
              exit
                = 50  → 50
                assumes may exit early
                assumes 100 trips: it is a DO loop without control
                assumes probability 1/2
        "#]],
    );
}

#[test]
fn affine_conditions_select_and_array_syntax() {
    check(
        "subroutine sel(a, n)
  integer n, i
  real a(n)
  do i = 1, n
    if (i <= n / 2 .and. i /= 3) then
      a(i) = 1
    else if (i == n) then
      a(i) = 2
    end if
    select case (i)
    case (1:4)
      a(i) = 3
    case (7)
      a(i) = 4
    case default
      a(i) = 5
    end select
  end do
  a(2:n-1) = 0
end subroutine
",
        &[("n", 10)],
        expect![[r#"
            do i = 1, n
              = n if n >= 1  → 10
              if (i <= n/2 .and. i /= 3) then
                = n if n >= 1  → 10
              a(i) = 1
                = int(n/2) - 1 if int(n/2) >= 4; 2 if int(n/2) >= 2, 3 >= int(n/2); n if n >= 1, int(n/2) >= n; int(n/2) if n >= 2, 1 >= int(n/2)  → 4
              a(i) = 2
                = 1 if n >= int(n/2) + 1  → 1
              select case (i)
                = n if n >= 1  → 10
              a(i) = 3
                = 4 if n >= 4; n if n >= 1, 3 >= n  → 4
              a(i) = 4
                = 1 if n >= 7  → 1
              a(i) = 5
                = n - 5 if n >= 8; 2 if n >= 6, 7 >= n; 1 if n = 5  → 5
            do $1 = 2, n - 1  [array]
              = n - 2 if n >= 3  → 8
              a($1) = 0
                = n - 2 if n >= 3  → 8
        "#]],
    );
}

#[test]
fn blocked_loops_with_forward_substituted_scalars() {
    // LAPACK's blocking: every column is visited once, whatever nb.
    check(
        "subroutine blocked(a, n, nb)
  integer n, nb, i, j, jb, k
  real a(n)
  do j = 1, n, nb
    jb = min(nb, n - j + 1)
    do i = j, j + jb - 1
      a(i) = 0
    end do
    k = jb
  end do
  do i = 1, k
    a(i) = 1
  end do
end subroutine
",
        &[("n", 10), ("nb", 3)],
        expect![[r#"
            do j = 1, n, nb
              = floor((n - 1)/nb) + 1 if nb >= 1, floor((n - 1)/nb) >= 0; floor((n - 1)/nb) + 1 if 0 >= nb + 1, floor((n - 1)/nb) >= 0  → 4
              jb = min(nb, n - j + 1)
                = floor((n - 1)/nb) + 1 if nb >= 1, floor((n - 1)/nb) >= 0; floor((n - 1)/nb) + 1 if 0 >= nb + 1, floor((n - 1)/nb) >= 0  → 4
              do i = j, j + jb - 1
                = (-nb*floor((n - 1)/nb)**2 + 2*n*floor((n - 1)/nb) + 2*nb*floor(n/nb) - nb*floor((n - 1)/nb) + 2*n)/2 if nb >= 1, floor(n/nb) >= 1, floor((-n - 1)/nb) + 1 >= 0, floor((n - 1)/nb) + 1 >= floor(n/nb); (nb*floor((-n - 1)/nb)**2 - nb*floor((n - 1)/nb)**2 + 2*n*floor((-n - 1)/nb) + 2*n*floor((n - 1)/nb) + 3*nb*floor((-n - 1)/nb) + 2*nb*floor(n/nb) - nb*floor((n - 1)/nb) + 4*n + 2*nb)/2 if 0 >= floor((-n - 1)/nb) + 2, nb >= 1, floor(n/nb) >= 1, floor((-n - 1)/nb) + floor((n - 1)/nb) + 1 >= 0, floor((n - 1)/nb) + 1 >= floor(n/nb); nb*floor(n/nb) if 0 >= floor((-n - 1)/nb) + floor((n - 1)/nb) + 2, nb >= 1, floor(n/nb) >= 1, floor((n - 1)/nb) + 1 >= floor(n/nb); (-nb*floor((n + 1)/nb)**2 + 2*n*floor((n + 1)/nb) + nb*floor((n + 1)/nb))/2 if 0 >= nb + 1, floor((n + 1)/nb) >= 1, floor((n - 1)/nb) + 1 >= floor((n + 1)/nb), floor((-n + 1)/nb) >= 0; (-nb*floor((n - 1)/nb)**2 + 2*n*floor((n - 1)/nb) - nb*floor((n - 1)/nb) + 2*n)/2 if floor((n + 1)/nb) >= floor((n - 1)/nb) + 2, 0 >= nb + 1, floor((-n + 1)/nb) >= 0, floor((n - 1)/nb) >= 0; (nb*floor((-n + 1)/nb)**2 - nb*floor((n - 1)/nb)**2 + 2*n*floor((-n + 1)/nb) + 2*n*floor((n - 1)/nb) + nb*floor((-n + 1)/nb) - nb*floor((n - 1)/nb) + 2*n)/2 if floor((n + 1)/nb) >= floor((n - 1)/nb) + 2, 0 >= nb + 1, 0 >= floor((-n + 1)/nb) + 1, floor((-n + 1)/nb) + floor((n - 1)/nb) >= 0; (nb*floor((-n + 1)/nb)**2 - nb*floor((n + 1)/nb)**2 + 2*n*floor((-n + 1)/nb) + 2*n*floor((n + 1)/nb) + nb*floor((-n + 1)/nb) + nb*floor((n + 1)/nb))/2 if 0 >= nb + 1, 0 >= floor((-n + 1)/nb) + 1, floor((-n + 1)/nb) + floor((n + 1)/nb) >= 1, floor((n - 1)/nb) + 1 >= floor((n + 1)/nb); (-nb*floor((n - 1)/nb)**2 + 2*n*floor((n - 1)/nb) - nb*floor((n - 1)/nb) + 2*n)/2 if nb >= 1, floor((-n - 1)/nb) + 1 >= 0, 0 >= floor(n/nb), floor((n - 1)/nb) >= 0; (nb*floor((-n - 1)/nb)**2 - nb*floor((n - 1)/nb)**2 + 2*n*floor((-n - 1)/nb) + 2*n*floor((n - 1)/nb) + 3*nb*floor((-n - 1)/nb) - nb*floor((n - 1)/nb) + 4*n + 2*nb)/2 if 0 >= floor((-n - 1)/nb) + 2, nb >= 1, floor((-n - 1)/nb) + floor((n - 1)/nb) + 1 >= 0, 0 >= floor(n/nb); (-nb*floor((n - 1)/nb)**2 + 2*n*floor((n - 1)/nb) + nb*floor((n - 1)/nb) + 2*n + 2*nb)/2 if floor(n/nb) >= floor((n - 1)/nb) + 2, nb >= 1, floor((-n - 1)/nb) + 1 >= 0, floor((n - 1)/nb) >= 0; (nb*floor((-n - 1)/nb)**2 - nb*floor((n - 1)/nb)**2 + 2*n*floor((-n - 1)/nb) + 2*n*floor((n - 1)/nb) + 3*nb*floor((-n - 1)/nb) + nb*floor((n - 1)/nb) + 4*n + 4*nb)/2 if 0 >= floor((-n - 1)/nb) + 2, floor(n/nb) >= floor((n - 1)/nb) + 2, nb >= 1, floor((-n - 1)/nb) + floor((n - 1)/nb) + 1 >= 0; nb*floor((n - 1)/nb) + nb if 0 >= floor((-n - 1)/nb) + floor((n - 1)/nb) + 2, floor(n/nb) >= floor((n - 1)/nb) + 2, nb >= 1, floor((n - 1)/nb) >= 0  → 10
                a(i) = 0
                  = (-nb*floor((n - 1)/nb)**2 + 2*n*floor((n - 1)/nb) + 2*nb*floor(n/nb) - nb*floor((n - 1)/nb) + 2*n)/2 if nb >= 1, floor(n/nb) >= 1, floor((-n - 1)/nb) + 1 >= 0, floor((n - 1)/nb) + 1 >= floor(n/nb); (nb*floor((-n - 1)/nb)**2 - nb*floor((n - 1)/nb)**2 + 2*n*floor((-n - 1)/nb) + 2*n*floor((n - 1)/nb) + 3*nb*floor((-n - 1)/nb) + 2*nb*floor(n/nb) - nb*floor((n - 1)/nb) + 4*n + 2*nb)/2 if 0 >= floor((-n - 1)/nb) + 2, nb >= 1, floor(n/nb) >= 1, floor((-n - 1)/nb) + floor((n - 1)/nb) + 1 >= 0, floor((n - 1)/nb) + 1 >= floor(n/nb); nb*floor(n/nb) if 0 >= floor((-n - 1)/nb) + floor((n - 1)/nb) + 2, nb >= 1, floor(n/nb) >= 1, floor((n - 1)/nb) + 1 >= floor(n/nb); (-nb*floor((n + 1)/nb)**2 + 2*n*floor((n + 1)/nb) + nb*floor((n + 1)/nb))/2 if 0 >= nb + 1, floor((n + 1)/nb) >= 1, floor((n - 1)/nb) + 1 >= floor((n + 1)/nb), floor((-n + 1)/nb) >= 0; (-nb*floor((n - 1)/nb)**2 + 2*n*floor((n - 1)/nb) - nb*floor((n - 1)/nb) + 2*n)/2 if floor((n + 1)/nb) >= floor((n - 1)/nb) + 2, 0 >= nb + 1, floor((-n + 1)/nb) >= 0, floor((n - 1)/nb) >= 0; (nb*floor((-n + 1)/nb)**2 - nb*floor((n - 1)/nb)**2 + 2*n*floor((-n + 1)/nb) + 2*n*floor((n - 1)/nb) + nb*floor((-n + 1)/nb) - nb*floor((n - 1)/nb) + 2*n)/2 if floor((n + 1)/nb) >= floor((n - 1)/nb) + 2, 0 >= nb + 1, 0 >= floor((-n + 1)/nb) + 1, floor((-n + 1)/nb) + floor((n - 1)/nb) >= 0; (nb*floor((-n + 1)/nb)**2 - nb*floor((n + 1)/nb)**2 + 2*n*floor((-n + 1)/nb) + 2*n*floor((n + 1)/nb) + nb*floor((-n + 1)/nb) + nb*floor((n + 1)/nb))/2 if 0 >= nb + 1, 0 >= floor((-n + 1)/nb) + 1, floor((-n + 1)/nb) + floor((n + 1)/nb) >= 1, floor((n - 1)/nb) + 1 >= floor((n + 1)/nb); (-nb*floor((n - 1)/nb)**2 + 2*n*floor((n - 1)/nb) - nb*floor((n - 1)/nb) + 2*n)/2 if nb >= 1, floor((-n - 1)/nb) + 1 >= 0, 0 >= floor(n/nb), floor((n - 1)/nb) >= 0; (nb*floor((-n - 1)/nb)**2 - nb*floor((n - 1)/nb)**2 + 2*n*floor((-n - 1)/nb) + 2*n*floor((n - 1)/nb) + 3*nb*floor((-n - 1)/nb) - nb*floor((n - 1)/nb) + 4*n + 2*nb)/2 if 0 >= floor((-n - 1)/nb) + 2, nb >= 1, floor((-n - 1)/nb) + floor((n - 1)/nb) + 1 >= 0, 0 >= floor(n/nb); (-nb*floor((n - 1)/nb)**2 + 2*n*floor((n - 1)/nb) + nb*floor((n - 1)/nb) + 2*n + 2*nb)/2 if floor(n/nb) >= floor((n - 1)/nb) + 2, nb >= 1, floor((-n - 1)/nb) + 1 >= 0, floor((n - 1)/nb) >= 0; (nb*floor((-n - 1)/nb)**2 - nb*floor((n - 1)/nb)**2 + 2*n*floor((-n - 1)/nb) + 2*n*floor((n - 1)/nb) + 3*nb*floor((-n - 1)/nb) + nb*floor((n - 1)/nb) + 4*n + 4*nb)/2 if 0 >= floor((-n - 1)/nb) + 2, floor(n/nb) >= floor((n - 1)/nb) + 2, nb >= 1, floor((-n - 1)/nb) + floor((n - 1)/nb) + 1 >= 0; nb*floor((n - 1)/nb) + nb if 0 >= floor((-n - 1)/nb) + floor((n - 1)/nb) + 2, floor(n/nb) >= floor((n - 1)/nb) + 2, nb >= 1, floor((n - 1)/nb) >= 0  → 10
              k = jb
                = floor((n - 1)/nb) + 1 if nb >= 1, floor((n - 1)/nb) >= 0; floor((n - 1)/nb) + 1 if 0 >= nb + 1, floor((n - 1)/nb) >= 0  → 4
            do i = 1, k
              = 100  → 100
              assumes 100 trips: its bounds depend on `k`, which changes at run time
              a(i) = 1
                = 100  → 100
                assumes 100 trips: its bounds depend on `k`, which changes at run time
        "#]],
    );
}

/// A contained procedure calling its host: the host's values come from its callers,
/// the contained procedure's from its host. Counted, not a dependency cycle (salsa
/// panicked here): the host's exports carry its own values only.
#[test]
fn a_contained_procedure_calling_its_host_is_no_cycle() {
    let text = "subroutine h(n)\n  integer :: n, i\n  real :: a(100)\n  do i = 1, n\n    a(i) = 0\n  end do\ncontains\n  subroutine inner(m)\n    integer :: m\n    call h(m)\n  end subroutine inner\nend subroutine h\nprogram p\n  call h(10)\n  call h(10)\nend program p\n";
    let files = project::analyze(
        &[("t.f90".into(), text.as_bytes().to_vec())],
        &BTreeMap::new(),
    );
    let file = files.into_iter().next().unwrap().unwrap();
    let names: Vec<&str> = file.units.iter().map(|u| u.unit.name.as_str()).collect();
    assert_eq!(names, ["h", "inner", "p"]);
    // `inner` passes an unknown `m`: the callers of `h` do not agree on `n`.
    let h = &file.units[0];
    assert_eq!(h.value_of("n"), None);
}

/// A branch that ends the program (STOP, MPI_ABORT, a GO TO to the unit's end) is a
/// cold path: taken not to run, so what follows counts in full and says why; the other
/// data-dependent branches keep their probability, and a pragma overrides.
#[test]
fn branches_that_end_the_program_are_cold() {
    check(
        "program p
  integer :: sizes(3), i, n
  real :: a(100)
  if (sizes(1) > 50 .or. sizes(2) > 50 .or. sizes(3) > 50) then
    goto 999
  end if
  if (sizes(1) < 0) stop
  if (sizes(2) < 0) call mpi_abort(0, 1, i)
!costline: probability 0.25
  if (sizes(3) < 0) stop
  if (a(1) > 0) a(2) = 1
 999 continue
  print *, a(1)
end program
",
        &[],
        expect![[r#"
            if (sizes(1) > 50 .or. sizes(2) > 50 .or. sizes(3) > 50) then
              = 1  → 1
            go to 999
              = 0  → 0
              assumes a branch that ends the program, not taken
            if (sizes(1) < 0) then
              = 1  → 1
              assumes a branch that ends the program, not taken
            stop
              = 0  → 0
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
            if (sizes(2) < 0) then
              = 1  → 1
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
            call mpi_abort(0, 1, i)
              = 0  → 0
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
            if (sizes(3) < 0) then
              = 1  → 1
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
            stop
              = 1/4  → 1/4
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
              assumes probability 1/4 (pragma)
            if (a(1) > 0) then
              = 3/4  → 3/4
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
              assumes probability 1/4 (pragma)
            a(2) = 1
              = 3/8  → 3/8
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
              assumes a branch that ends the program, not taken
              assumes probability 1/4 (pragma)
              assumes probability 1/2
            999 continue
              = 1  → 1
              assumes a GO TO target, as if always reached
            <print>
              = 1  → 1
              assumes a GO TO target, as if always reached
        "#]],
    );
}

/// The status an I/O statement sets (IOSTAT=, IOMSG=, SIZE=) is a run-time value: a
/// condition on it is data-dependent (a probability), not an unknown to bind.
#[test]
fn an_io_status_is_a_run_time_value() {
    check(
        "program p
  integer :: fstatus, i, k(2), n
  character(80) :: msg
  open (unit=2, file='in.data', iostat = fstatus, iomsg=msg)
  if (fstatus .eq. 0) then
    read (2, *, iostat=k(1)) n
  end if
  do i = 1, 10
  end do
end program
",
        &[],
        expect![[r#"
            <open>
              = 1  → 1
            if (fstatus == 0) then
              = 1  → 1
            <read>
              = 1/2  → 1/2
              assumes probability 1/2
            do i = 1, 10
              = 10  → 10
        "#]],
    );
}

#[test]
fn a_value_read_on_one_path_takes_the_default_of_the_other() {
    check(
        "program p
  integer :: fstatus, i, j, k, niter, g(3), nx, m
  open (unit=2, file='in.data', status='old', iostat=fstatus)
  if (fstatus .eq. 0) then
    read (2, *) niter
    read (2, *) g(1), g(2), g(3)
  else
    niter = 25
    g(1) = 12
    g(2) = 12
    g(3) = 12
  end if
  nx = g(1) - 2
  do i = 1, niter
    do j = 1, nx
    end do
  end do
  do k = 1, 4
  end do
  if (fstatus .eq. 1) then
    m = 3
  else
    m = 3
  end if
  do k = 1, m
  end do
  if (fstatus .eq. 1) then
    m = 3
  else
    m = 4
  end if
  do k = 1, m
  end do
end program
",
        &[],
        expect![[r#"
            <open>
              = 1  → 1
            if (fstatus == 0) then
              = 1  → 1
            <read>
              = 1/2  → 1/2
              assumes probability 1/2
            <read>
              = 1/2  → 1/2
              assumes probability 1/2
            niter = 25
              = 1/2  → 1/2
              assumes probability 1/2
            g(1) = 12
              = 1/2  → 1/2
              assumes probability 1/2
            g(2) = 12
              = 1/2  → 1/2
              assumes probability 1/2
            g(3) = 12
              = 1/2  → 1/2
              assumes probability 1/2
            nx = g(1) - 2
              = 1  → 1
            do i = 1, niter
              = 25  → 25
              assumes the value without input of niter, g(1), g(2), g(3)
              do j = 1, nx
                = 250  → 250
                assumes the value without input of niter, g(1), g(2), g(3)
            do k = 1, 4
              = 4  → 4
            if (fstatus == 1) then
              = 1  → 1
            m = 3
              = 1/2  → 1/2
              assumes probability 1/2
            m = 3
              = 1/2  → 1/2
              assumes probability 1/2
            do k = 1, m
              = 3  → 3
            if (fstatus == 1) then
              = 1  → 1
            m = 3
              = 1/2  → 1/2
              assumes probability 1/2
            m = 4
              = 1/2  → 1/2
              assumes probability 1/2
            do k = 1, m
              = 100  → 100
              assumes 100 trips: its bounds depend on `m`, which changes at run time
        "#]],
    );
}

#[test]
fn an_integer_element_at_constant_subscripts_keeps_its_value() {
    check(
        "subroutine s(n)
  integer :: n, i, k, d(2)
  d(1) = n
  d(2) = 2 * n
  do i = 1, d(2)
  end do
  d(k) = 7
  do i = 1, d(1)
  end do
end subroutine
",
        &[("n", 5)],
        expect![[r#"
            d(1) = n
              = 1  → 1
            d(2) = 2*n
              = 1  → 1
            do i = 1, d(2)
              = 2*n if n >= 1  → 10
            d(k) = 7
              = 1  → 1
            do i = 1, d(1)
              = 100  → 100
              assumes 100 trips: its bounds depend on an element set at run time
        "#]],
    );
}

#[test]
fn a_backward_go_to_is_a_loop_with_an_assumed_trip_count() {
    check(
        "subroutine s(n, tol)
  integer :: n, i, it
  real :: err, tol
  it = 0
10 continue
  it = it + 1
  do i = 1, n
    err = err * 0.5
  end do
  if (err > tol) go to 10
  do i = 1, it
  end do
!costline: trips 7
20 err = err + 1.0
  if (err < tol) go to 20
end subroutine
",
        &[("n", 4)],
        expect![[r#"
            it = 0
              = 1  → 1
            10 continue
              = 100  → 100
              assumes 100 trips: a backward GO TO repeats the statements from here
            it = it + 1
              = 100  → 100
              assumes 100 trips: a backward GO TO repeats the statements from here
            do i = 1, n
              = 100*n if n >= 1  → 400
              assumes 100 trips: a backward GO TO repeats the statements from here
              err = err*0.5
                = 100*n if n >= 1  → 400
                assumes 100 trips: a backward GO TO repeats the statements from here
            if (err > tol) then
              = 100  → 100
              assumes 100 trips: a backward GO TO repeats the statements from here
            go to 10
              = 50  → 50
              assumes 100 trips: a backward GO TO repeats the statements from here
              assumes probability 1/2
            do i = 1, it
              = 100  → 100
              assumes 100 trips: its bounds depend on `it`, which changes in the loop
            20 err = err + 1.0
              = 7  → 7
              assumes 7 trips (pragma): a backward GO TO repeats the statements from here
            if (err < tol) then
              = 7  → 7
              assumes 7 trips (pragma): a backward GO TO repeats the statements from here
            go to 20
              = 7/2  → 7/2
              assumes 7 trips (pragma): a backward GO TO repeats the statements from here
              assumes probability 1/2
        "#]],
    );
}
