//! The program run on every process, hand-checked: values a set-up routine stores in
//! a module (a shift count, a schedule of partners and lengths in arrays) drive the
//! messages of another routine; a value the root broadcasts decides a loop on every
//! process; COMM_SPLIT groups processes by color; a branch on input is an assumption
//! and a loop over it is left out, said so.

use costline_db::project;
use costline_model::comm::skeleton::ProgramRun;
use std::collections::BTreeMap;

fn run(text: &str, p: i64) -> Result<ProgramRun, String> {
    let bindings: BTreeMap<String, i64> = [("p".to_string(), p)].into();
    let files = project::analyze(&[("t.f90".into(), text.as_bytes().to_vec())], &bindings);
    let units = files.into_iter().next().unwrap().unwrap().units;
    let main = units
        .iter()
        .find(|u| u.unit.name == "main_p")
        .expect("program");
    main.mpi_run.as_ref().clone().expect("it calls MPI")
}

/// (sends, send bytes, receives, collectives) of each process.
fn counts(r: &ProgramRun) -> Vec<(f64, f64, f64, f64)> {
    r.ranks
        .iter()
        .map(|r| (r.sends, r.send_bytes, r.recvs, r.collectives))
        .collect()
}

const SCHEDULE: &str = "
module sched
  integer :: steps, partner(8), length(8), me, np
end module

program main_p
  use sched
  include 'mpif.h'
  integer :: ierr, go
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, me, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, np, ierr)
  call setup
  go = 0
  if (me == 0) go = 3
  call mpi_bcast(go, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  do k = 1, go
    call exchange
  end do
  call mpi_finalize(ierr)
end program

subroutine setup
  use sched
  integer :: i, d
  steps = 0
  d = np / 2
  do while (d > 0)
    steps = steps + 1
    partner(steps) = ieor(me, d)
    length(steps) = 10 * steps
    d = d / 2
  end do
end subroutine

subroutine exchange
  use sched
  include 'mpif.h'
  integer :: i, ierr, st(MPI_STATUS_SIZE)
  double precision :: a(100), b(100)
  do i = 1, steps
    call mpi_sendrecv(a, length(i), MPI_DOUBLE_PRECISION, partner(i), 0, &
                      b, length(i), MPI_DOUBLE_PRECISION, partner(i), 0, &
                      MPI_COMM_WORLD, st, ierr)
  end do
end subroutine
";

#[test]
fn a_schedule_set_up_in_a_module_drives_another_routines_messages() {
    let r = run(SCHEDULE, 8).unwrap();
    // log2(8) = 3 steps of 10, 20, 30 doubles, three times (the broadcast value).
    let each = (9.0, 3.0 * 8.0 * 60.0, 9.0, 1.0);
    assert_eq!(counts(&r), vec![each; 8]);
    assert!(r.complete(), "{:?}", r.notes);
    assert!(
        r.passes >= 2,
        "the broadcast value comes from a second pass"
    );
    // Three rounds of 3 exchanges: every process waits for its partner each step.
    assert!(r.time_s() > 0.0);
    assert_eq!(r.unmatched, 0);
}

const SPLIT: &str = "
program main_p
  include 'mpif.h'
  integer :: ierr, me, row, rowcomm, n, x(1)
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, me, ierr)
  call mpi_comm_split(MPI_COMM_WORLD, me / 2, me, rowcomm, ierr)
  call mpi_comm_size(rowcomm, n, ierr)
  call mpi_comm_rank(rowcomm, row, ierr)
  if (row == 0) call mpi_send(x, n, MPI_INTEGER, 1, 0, rowcomm, ierr)
  if (row == 1) call mpi_recv(x, n, MPI_INTEGER, 0, 0, rowcomm, MPI_STATUS_IGNORE, ierr)
  call mpi_allreduce(x, x, 1, MPI_INTEGER, MPI_SUM, rowcomm, ierr)
  call mpi_finalize(ierr)
end program
";

#[test]
fn comm_split_groups_processes_by_color() {
    let r = run(SPLIT, 6).unwrap();
    // Rows of two: the first of each row sends 2 integers to the second.
    let first = (1.0, 8.0, 0.0, 1.0);
    let second = (0.0, 0.0, 1.0, 1.0);
    assert_eq!(counts(&r), [first, second].repeat(3));
    assert_eq!(r.unmatched, 0);
}

const INPUT: &str = "
program main_p
  include 'mpif.h'
  integer :: ierr, me, n, ios, x(10)
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, me, ierr)
  open (unit=3, file='in.data', status='old', iostat=ios)
  if (ios == 0) then
    read (3, *) n
  else
    n = 2
  end if
  do i = 1, n
    call mpi_barrier(MPI_COMM_WORLD, ierr)
  end do
  read (*, *) n
  do i = 1, n
    call mpi_bcast(x, 10, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end do
  call mpi_finalize(ierr)
end program
";

#[test]
fn input_is_an_assumption_or_a_stated_gap_never_zero() {
    let r = run(INPUT, 2).unwrap();
    // The IOSTAT branch is taken as false (assumed: 2 barriers); the loop over a
    // value read is not run, and the run says so.
    assert_eq!(counts(&r), vec![(0.0, 0.0, 0.0, 2.0); 2]);
    assert!(!r.complete());
    let what: Vec<_> = r
        .notes
        .iter()
        .map(|n| (n.assumed, n.what.as_str()))
        .collect();
    assert!(
        what.iter().any(|(a, w)| *a && w.contains("ios == 0")),
        "{what:?}"
    );
    assert!(
        what.iter().any(|(a, w)| !*a && w.contains("loop")),
        "{what:?}"
    );
}

#[test]
fn without_a_process_count_it_says_what_to_bind() {
    let files = project::analyze(
        &[("t.f90".into(), SPLIT.as_bytes().to_vec())],
        &BTreeMap::new(),
    );
    let units = files.into_iter().next().unwrap().unwrap().units;
    let main = units.iter().find(|u| u.unit.name == "main_p").unwrap();
    let why = main.mpi_run.as_ref().clone().unwrap().unwrap_err();
    assert!(why.contains("bind `p`"), "{why}");
}

#[test]
fn huge_or_endless_loops_end_in_a_note_or_the_budget_never_a_hang() {
    let text = "
program main_p
  include 'mpif.h'
  integer :: ierr, n
  integer(8) :: i
  call mpi_init(ierr)
  do i = -9000000000000000000_8, 9000000000000000000_8
    call mpi_barrier(MPI_COMM_WORLD, ierr)
  end do
  do
    call mpi_barrier(MPI_COMM_WORLD, ierr)
  end do
end program
";
    let why = run(text, 2).unwrap_err();
    assert!(why.contains("statements"), "{why}");
}
