//! MPI datatypes: the bytes of a message are its count times its datatype's size, for
//! predefined types, variables holding one (in a module, set in a branch on a module's
//! logical PARAMETER as NPB3.4 does) and the derived types a unit builds (vector rows,
//! subarrays, structures); the process count is the module variable another unit
//! stores MPI_COMM_SIZE in.

use costline_db::project;
use costline_syntax::ir::StmtKind;

fn analysed(text: &str) -> Vec<project::UnitAnalysis> {
    let files = project::analyze(
        &[("t.f90".into(), text.as_bytes().to_vec())],
        &std::collections::BTreeMap::from([("p".to_string(), 4), ("nprocs".to_string(), 2)]),
    );
    files.into_iter().next().unwrap().unwrap().units
}

/// The bytes per message of each MPI call of unit `name` that moves data, in order, or
/// why there are none.
fn message_bytes(units: &[project::UnitAnalysis], name: &str) -> Vec<Result<f64, String>> {
    let u = units
        .iter()
        .find(|u| u.unit.name == name)
        .expect("the unit");
    let mut out = Vec::new();
    u.unit.walk(&mut |s, _| {
        if let StmtKind::Call(c) = &s.kind
            && let Some(v) = u.comm.mpi.get(&s.id)
            && c.name != "mpi_barrier"
        {
            out.push(match (&v.bytes, &v.metrics) {
                (Some(b), _) => Ok(*b),
                (None, Err(e)) => Err(e.clone()),
                (None, Ok(_)) => Err("no bytes".into()),
            });
        }
    });
    out
}

const PROGRAM: &str = "
module comm_types
  integer :: dp_type, nprocs
  logical convertdouble
  parameter (convertdouble = .false.)
end module

program jacobi
  use comm_types
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 100, m = 50
  integer :: rowtype, blocktype, pair, ierr, sizes(2), subsizes(2), starts(2)
  integer :: lens(2), types(2), disps(2)
  double precision :: u(n, m)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (.not. convertdouble) then
    dp_type = MPI_DOUBLE_PRECISION
  else
    dp_type = MPI_REAL
  end if
  call mpi_type_vector(m, 1, n, dp_type, rowtype, ierr)
  call mpi_type_commit(rowtype, ierr)
  sizes(1) = n
  sizes(2) = m
  subsizes(1) = 10
  subsizes(2) = m - 2
  starts = 0
  call mpi_type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, dp_type, blocktype, ierr)
  lens(1) = 3
  lens(2) = 1
  types(1) = MPI_INTEGER
  types(2) = MPI_DOUBLE_PRECISION
  call mpi_type_create_struct(2, lens, disps, types, pair, ierr)
  call mpi_send(u(1, 1), 1, rowtype, 1, 0, MPI_COMM_WORLD, ierr)
  call mpi_send(u, 2, blocktype, 1, 0, MPI_COMM_WORLD, ierr)
  call mpi_send(u, 5, pair, 1, 0, MPI_COMM_WORLD, ierr)
  call mpi_send(u, 7, dp_type, 1, 0, MPI_COMM_WORLD, ierr)
  call mpi_send(u, 3, mystery, 1, 0, MPI_COMM_WORLD, ierr)
  call solve
end program

subroutine solve
  use comm_types
  implicit none
  include 'mpif.h'
  integer :: halo, ierr
  double precision :: v(64)
  call mpi_type_contiguous(8, dp_type, halo, ierr)
  call mpi_allreduce(v, v, 4, dp_type, MPI_SUM, MPI_COMM_WORLD, ierr)
  call mpi_send(v, 2, halo, 1, 0, MPI_COMM_WORLD, ierr)
end subroutine
";

#[test]
fn derived_and_held_datatypes_give_their_messages_bytes() {
    let units = analysed(PROGRAM);
    let main = message_bytes(&units, "jacobi");
    // A row of m doubles; a 10 × (m - 2) block twice; (3 integers + 1 double) five
    // times; 7 doubles (the branch on the constant that runs); an unknown type.
    assert_eq!(&main[..4], &[Ok(400.0), Ok(7680.0), Ok(100.0), Ok(56.0)]);
    let unknown = main[4].as_ref().unwrap_err();
    assert!(unknown.contains("mystery"), "{unknown}");
    // In another procedure, through the module variable; its process count is the
    // module variable the main program stores MPI_COMM_SIZE in (bound to 2, not p).
    assert_eq!(message_bytes(&units, "solve"), [Ok(32.0), Ok(128.0)]);
    let solve = units.iter().find(|u| u.unit.name == "solve").unwrap();
    let processes: Vec<Option<i128>> = solve.comm.mpi.values().map(|v| v.processes).collect();
    assert_eq!(processes, [Some(2), Some(2)]);
}

/// A shared datatype variable given different sizes is no size, and says why.
#[test]
fn a_datatype_set_to_two_sizes_has_none() {
    let text = "
module t
  integer :: kind_type
end module
subroutine a
  use t
  kind_type = MPI_REAL
end subroutine
subroutine b
  use t
  kind_type = MPI_DOUBLE_PRECISION
end subroutine
subroutine c
  use t
  real :: x(4)
  integer :: ierr
  call mpi_send(x, 4, kind_type, 1, 0, MPI_COMM_WORLD, ierr)
end subroutine
";
    let units = analysed(text);
    let bytes = message_bytes(&units, "c");
    let why = bytes[0].as_ref().unwrap_err();
    assert!(why.contains("different sizes"), "{why}");
}
