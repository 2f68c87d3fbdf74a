! collectives.f90 -- the time of MPI's collective operations.
!
! Usage: mpirun -n P collectives SECONDS ROUNDS SIZE...
!   For every operation (bcast, reduce, allreduce, allgather, gather, scatter,
!   alltoall; barrier once) and every size b (bytes per process: the count times
!   the datatype's size in the call, as costline reads the call), calls the
!   collective in a loop, each call followed by a barrier: back to back, the calls
!   of a rooted collective overlap (the root starts the next broadcast while the
!   leaves still receive the last), and the loop would time the root's rate, not
!   one collective. A call's time is the mean time of call + barrier, less the
!   barrier's own mean time (the first measurement), so it ends when its last rank
!   is done. The number of calls per sample is calibrated so that a sample takes
!   about SECONDS; a sample's time is the maximum over the ranks.
!   ROUNDS rounds take one sample of every measurement in turn (a burst of other
!   work on the machine cannot spoil all samples of one); the minimum over the
!   rounds is kept. Reductions are MPI_SUM over
!   MPI_DOUBLE_PRECISION (b / 8 numbers); the others move MPI_BYTE. Alltoall sends
!   b bytes to every process.
!
! Output (rank 0), one line per measurement:  collective OP P BYTES SECONDS
program collectives
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: max_points = 512
  character(len=16), parameter :: ops(7) = [character(len=16) :: 'bcast', 'reduce', &
    'allreduce', 'allgather', 'gather', 'scatter', 'alltoall']
  integer :: ierr, rank, nprocs, k, j, rounds, nargs, bytes, maxbytes, np, round
  character(len=16) :: op(max_points)
  integer :: nbytes(max_points), calls(max_points)
  real(dp) :: best(max_points), target
  character(len=32) :: arg
  real(dp), allocatable :: sbuf(:), rbuf(:)

  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  nargs = command_argument_count()
  call get_command_argument(1, arg)
  read (arg, *) target
  call get_command_argument(2, arg)
  read (arg, *) rounds
  ! The measurements: a barrier, then every operation at every size.
  np = 1
  op(1) = 'barrier'
  nbytes(1) = 0
  maxbytes = 8
  do j = 1, size(ops)
    do k = 3, nargs
      call get_command_argument(k, arg)
      read (arg, *) bytes
      if (np < max_points) then
        np = np + 1
        op(np) = ops(j)
        nbytes(np) = max(8, bytes)
        maxbytes = max(maxbytes, nbytes(np))
      end if
    end do
  end do
  ! Room for nprocs blocks of the largest size (gather, allgather, alltoall).
  allocate (sbuf(nprocs * (maxbytes / 8 + 1)), rbuf(nprocs * (maxbytes / 8 + 1)))
  sbuf = 1.0d0
  rbuf = 0.0d0

  do k = 1, np
    calls(k) = calibrate(trim(op(k)), nbytes(k))
  end do
  best = huge(1.0d0)
  do round = 1, rounds
    do k = 1, np
      best(k) = min(best(k), timed(trim(op(k)), nbytes(k), calls(k)) / real(calls(k), dp))
    end do
  end do
  ! Each call was followed by a barrier: its mean time (measurement 1) is taken off.
  do k = 2, np
    best(k) = best(k) - best(1)
  end do
  if (rank == 0) then
    do k = 1, np
      ! A time the barrier's noise swallowed is not a measurement (not printed).
      if (best(k) > 0.0d0) write (*, '(a, 1x, a, 1x, i0, 1x, i0, 1x, es14.6)') &
        'collective', trim(op(k)), nprocs, nbytes(k), best(k)
    end do
  end if
  call mpi_finalize(ierr)

contains

  ! `calls` calls of collective `op` with `b` bytes per process, each but a barrier
  ! followed by a barrier.
  subroutine run(op, b, calls)
    character(len=*), intent(in) :: op
    integer, intent(in) :: b, calls
    integer :: it
    do it = 1, calls
      call once(op, b)
      if (op /= 'barrier') call mpi_barrier(mpi_comm_world, ierr)
    end do
  end subroutine run

  ! One call of collective `op` with `b` bytes per process.
  subroutine once(op, b)
    character(len=*), intent(in) :: op
    integer, intent(in) :: b
    select case (op)
    case ('barrier')
      call mpi_barrier(mpi_comm_world, ierr)
    case ('bcast')
      call mpi_bcast(sbuf, b, mpi_byte, 0, mpi_comm_world, ierr)
    case ('reduce')
      call mpi_reduce(sbuf, rbuf, b / 8, mpi_double_precision, mpi_sum, 0, &
                      mpi_comm_world, ierr)
    case ('allreduce')
      call mpi_allreduce(sbuf, rbuf, b / 8, mpi_double_precision, mpi_sum, &
                         mpi_comm_world, ierr)
    case ('allgather')
      call mpi_allgather(sbuf, b, mpi_byte, rbuf, b, mpi_byte, mpi_comm_world, ierr)
    case ('gather')
      call mpi_gather(sbuf, b, mpi_byte, rbuf, b, mpi_byte, 0, mpi_comm_world, ierr)
    case ('scatter')
      call mpi_scatter(sbuf, b, mpi_byte, rbuf, b, mpi_byte, 0, mpi_comm_world, ierr)
    case ('alltoall')
      call mpi_alltoall(sbuf, b, mpi_byte, rbuf, b, mpi_byte, mpi_comm_world, ierr)
    end select
  end subroutine once

  ! The slowest rank's time of `calls` calls.
  real(dp) function timed(op, b, calls)
    character(len=*), intent(in) :: op
    integer, intent(in) :: b, calls
    real(dp) :: t0, t
    call mpi_barrier(mpi_comm_world, ierr)
    t0 = mpi_wtime()
    call run(op, b, calls)
    t = mpi_wtime() - t0
    call mpi_allreduce(t, timed, 1, mpi_double_precision, mpi_max, mpi_comm_world, ierr)
  end function timed

  ! Calls of `op` with `b` bytes that take about `target` seconds.
  integer function calibrate(op, b)
    character(len=*), intent(in) :: op
    integer, intent(in) :: b
    integer :: n
    real(dp) :: t

    call run(op, b, 2)   ! warm-up
    n = 1
    do
      t = timed(op, b, n)
      if (t >= target / 4.0d0 .or. n >= 2**24) exit
      n = n * 2
    end do
    calibrate = max(1, int(real(n, dp) * target / max(t, 1.0d-9)))
  end function calibrate

end program collectives
