! Timing driver for jacobi_step (mpi/jacobi_step.f90): a Jacobi iteration with a halo
! exchange on a column-block decomposition of an n x n grid over the processes of
! MPI_COMM_WORLD (n must be a multiple of their number).
!   mpirun -np 2 ./jacobi_halo N [MIN_BATCH_SECONDS [BATCHES]]
! prints "seconds_per_call <t>": the minimum over batches of the time per iteration,
! each batch's time being the maximum over the processes (MPI_REDUCE with MPI_MAX).
program jacobi_halo
  implicit none
  include 'mpif.h'
  integer :: n, m, nprocs, rank, left, right, ierr, batches, b, k
  integer(8) :: reps
  real(8) :: min_batch, tmax, best, checksum, total
  real(8), allocatable :: a(:, :), bb(:, :)
  character(len=64) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  min_batch = 0.05d0
  batches = 7
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) min_batch
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read (arg, *) batches
  end if
  if (mod(n, nprocs) /= 0) then
    if (rank == 0) print '(a)', 'jacobi_halo: n must be a multiple of the number of processes'
    call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  end if
  m = n / nprocs
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == nprocs - 1) right = MPI_PROC_NULL

  allocate (a(n, 0:m + 1), bb(n, 0:m + 1))
  do k = 0, m + 1
    a(:, k) = 1.0d0 + 1.0d-3 * dble(rank * m + k)
  end do
  bb = a

  ! Calibrate: double the repetitions until a batch (all processes agree on its time,
  ! the maximum over them) lasts at least min_batch seconds.
  reps = 1
  do
    call timed_batch(reps, tmax)
    if (tmax >= min_batch) exit
    reps = reps * 2
  end do
  best = huge(1.0d0)
  do b = 1, batches
    call timed_batch(reps, tmax)
    best = min(best, tmax / dble(2 * reps))
  end do

  checksum = sum(a(:, 1:m)) + sum(bb(:, 1:m))
  call MPI_REDUCE(checksum, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a, i0, a, i0, a, i0)', 'n ', n, ' processes ', nprocs, ' iterations_per_batch ', 2 * reps
    print '(a, es12.5)', 'checksum ', total
    print '(a, es14.7)', 'seconds_per_call ', best
  end if
  call MPI_FINALIZE(ierr)

contains

  ! 2*reps iterations (a -> bb, then bb -> a); tmax = the slowest process's time.
  subroutine timed_batch(reps, tmax)
    integer(8), intent(in) :: reps
    real(8), intent(out) :: tmax
    integer(8) :: r
    integer :: ierr
    real(8) :: t0, t
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    t0 = MPI_WTIME()
    do r = 1, reps
      call jacobi_step(n, m, a, bb, left, right, MPI_COMM_WORLD)
      call jacobi_step(n, m, bb, a, left, right, MPI_COMM_WORLD)
    end do
    t = MPI_WTIME() - t0
    call MPI_ALLREDUCE(t, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  end subroutine timed_batch
end program jacobi_halo
