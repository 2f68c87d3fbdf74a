! pingpong.f90 -- point-to-point message time between two MPI ranks.
!
! Usage: mpirun -n 2 pingpong SECONDS ROUNDS SIZE...
!   For every message size (bytes): rank 0 sends SIZE bytes to rank 1 (MPI_Send,
!   MPI_BYTE), rank 1 sends them back. The number of round trips per sample is
!   calibrated on rank 0 so that a sample takes about SECONDS, and broadcast to
!   rank 1. Then ROUNDS rounds take one sample of every size in turn (so that a
!   burst of other work on the machine cannot spoil all samples of a size) and the
!   minimum per size of the mean round trip is kept.
!
! Output (rank 0), one line per size:  pingpong SIZE SECONDS_ONE_WAY
!   where the one-way time is half the round trip: the t = alpha + beta * b of a
!   single message.
program pingpong
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: max_sizes = 256
  integer :: ierr, rank, nprocs, k, rounds, nargs, nsizes, round
  integer :: sizes(max_sizes), trips(max_sizes)
  real(dp) :: best(max_sizes), target, t0, t
  character(len=32) :: arg
  integer(kind=1), allocatable :: buf(:)

  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  if (nprocs < 2) then
    if (rank == 0) write (*, '(a)') 'error: pingpong needs 2 ranks'
    call mpi_abort(mpi_comm_world, 1, ierr)
  end if
  nargs = command_argument_count()
  call get_command_argument(1, arg)
  read (arg, *) target
  call get_command_argument(2, arg)
  read (arg, *) rounds
  nsizes = min(max_sizes, nargs - 2)
  do k = 1, nsizes
    call get_command_argument(k + 2, arg)
    read (arg, *) sizes(k)
  end do
  allocate (buf(max(1, maxval(sizes(1:nsizes)))))
  buf = 1_1

  do k = 1, nsizes
    trips(k) = calibrate(sizes(k))
  end do
  best = huge(1.0d0)
  do round = 1, rounds
    do k = 1, nsizes
      call mpi_barrier(mpi_comm_world, ierr)
      t0 = mpi_wtime()
      call exchange(sizes(k), trips(k))
      t = mpi_wtime() - t0
      best(k) = min(best(k), t / real(trips(k), dp))
    end do
  end do
  if (rank == 0) then
    do k = 1, nsizes
      write (*, '(a, 1x, i0, 1x, es14.6)') 'pingpong', sizes(k), best(k) / 2.0d0
    end do
  end if
  call mpi_finalize(ierr)

contains

  ! `rounds` round trips of `bytes` bytes between ranks 0 and 1.
  subroutine exchange(bytes, rounds)
    integer, intent(in) :: bytes, rounds
    integer :: it, status(mpi_status_size)
    if (rank == 0) then
      do it = 1, rounds
        call mpi_send(buf, bytes, mpi_byte, 1, 7, mpi_comm_world, ierr)
        call mpi_recv(buf, bytes, mpi_byte, 1, 7, mpi_comm_world, status, ierr)
      end do
    else if (rank == 1) then
      do it = 1, rounds
        call mpi_recv(buf, bytes, mpi_byte, 0, 7, mpi_comm_world, status, ierr)
        call mpi_send(buf, bytes, mpi_byte, 0, 7, mpi_comm_world, ierr)
      end do
    end if
  end subroutine exchange

  ! Round trips of `bytes` bytes that take about `target` seconds (rank 0's
  ! measurement, shared with rank 1).
  integer function calibrate(bytes)
    integer, intent(in) :: bytes
    integer :: n
    real(dp) :: t0, t

    call exchange(bytes, 4)   ! warm-up: connections, buffers, pages
    n = 1
    do
      call mpi_barrier(mpi_comm_world, ierr)
      t0 = mpi_wtime()
      call exchange(bytes, n)
      t = mpi_wtime() - t0
      call mpi_bcast(t, 1, mpi_double_precision, 0, mpi_comm_world, ierr)
      if (t >= target / 4.0d0 .or. n >= 2**24) exit
      n = n * 2
    end do
    calibrate = max(1, int(real(n, dp) * target / max(t, 1.0d-9)))
  end function calibrate

end program pingpong
