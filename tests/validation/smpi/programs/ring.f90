! A ring: every process passes M doubles to its right neighbour (rank+1 mod P) and
! takes M from its left one, with MPI_ISEND / MPI_IRECV completed by one MPI_WAITALL,
! STEPS times; then a token of one integer goes once around the ring with blocking
! MPI_SEND / MPI_RECV (rank 0 starts it and receives it back last).
! The sizes are PARAMETERs of params.h (m, steps).
program ring
  use mpi
  implicit none
  include 'params.h'
  integer :: ierr, nprocs, rank, left, right, s, token
  integer :: requests(2), statuses(MPI_STATUS_SIZE, 2), status(MPI_STATUS_SIZE)
  double precision :: out(m), in(m)

  call mpi_init(ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  out = rank

  do s = 1, steps
    call mpi_irecv(in, m, mpi_double_precision, left, s, mpi_comm_world, requests(1), ierr)
    call mpi_isend(out, m, mpi_double_precision, right, s, mpi_comm_world, requests(2), ierr)
    call mpi_waitall(2, requests, statuses, ierr)
    out = in
  end do

  token = 0
  if (rank == 0) then
    call mpi_send(token, 1, mpi_integer, right, 0, mpi_comm_world, ierr)
    call mpi_recv(token, 1, mpi_integer, left, 0, mpi_comm_world, status, ierr)
  else
    call mpi_recv(token, 1, mpi_integer, left, 0, mpi_comm_world, status, ierr)
    token = token + 1
    call mpi_send(token, 1, mpi_integer, right, 0, mpi_comm_world, ierr)
  end if

  call mpi_finalize(ierr)
end program ring
