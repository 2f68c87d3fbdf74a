! Timing driver for the kernels of kernels/*.f90, each compiled separately (so the call is
! a real call and the kernel is the code costline analyzes):
!   gfortran -O2 -c kernels/K.f90 ; gfortran -O2 driver.f90 *.o -o driver
!   ./driver KERNEL N [MIN_BATCH_SECONDS [BATCHES]]
! KERNEL is jacobi, matvec, triangular, livermore1 or livermore7. The repetitions per batch
! are doubled until one batch lasts MIN_BATCH_SECONDS (default 0.05); then BATCHES batches
! (default 7, so >= 0.35 s in all) are timed with system_clock (integer(8) counts) and
! the minimum time per call is printed as "seconds_per_call <t>". Caches are warm: this
! is the steady state of a kernel called over and over on the same data.
program driver
  implicit none
  character(len=32) :: kernel
  character(len=64) :: arg
  integer :: n, batches, b, i, j
  integer(8) :: reps, c0, c1, rate
  real(8) :: min_batch, t, best, checksum
  real(8), allocatable :: a(:, :), bm(:, :), x(:), y(:), z(:), u(:)
  real(8) :: q, r, s

  if (command_argument_count() < 2) then
    print '(a)', 'usage: driver KERNEL N [MIN_BATCH_SECONDS [BATCHES]]'
    stop 2
  end if
  call get_command_argument(1, kernel)
  call get_command_argument(2, arg)
  read (arg, *) n
  min_batch = 0.05d0
  batches = 7
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read (arg, *) min_batch
  end if
  if (command_argument_count() >= 4) then
    call get_command_argument(4, arg)
    read (arg, *) batches
  end if
  call system_clock(count_rate=rate)

  q = 0.5d0
  r = 0.25d0
  s = 0.125d0
  select case (trim(kernel))
  case ('jacobi')
    allocate (a(n, n), bm(n, n))
    do j = 1, n
      do i = 1, n
        a(i, j) = 1.0d0 + 1.0d-3 * dble(mod(i + 3 * j, 17))
      end do
    end do
    bm = 0.0d0
  case ('matvec')
    allocate (a(n, n), x(n), y(n))
    do j = 1, n
      do i = 1, n
        a(i, j) = 1.0d0 / dble(n + mod(i + j, 7))
      end do
    end do
    x = 1.0d0
    y = 0.0d0
  case ('triangular')
    ! Tiny off-diagonal entries keep b bounded (and away from subnormals) over the
    ! millions of repeated substitutions; the floating-point cost does not depend on them.
    allocate (a(n, n), y(n))
    do j = 1, n
      do i = 1, n
        a(i, j) = 1.0d-9 * dble(1 + mod(i + 2 * j, 5))
      end do
    end do
    y = 1.0d0
  case ('livermore1')
    allocate (x(n), y(n), z(n + 11))
    do i = 1, n
      y(i) = 1.0d0 + 1.0d-3 * dble(mod(i, 13))
    end do
    do i = 1, n + 11
      z(i) = 2.0d0 - 1.0d-3 * dble(mod(i, 11))
    end do
    x = 0.0d0
  case ('livermore7')
    allocate (x(n), y(n), z(n), u(n + 6))
    do i = 1, n
      y(i) = 1.0d0 + 1.0d-3 * dble(mod(i, 13))
      z(i) = 0.5d0 + 1.0d-3 * dble(mod(i, 7))
    end do
    do i = 1, n + 6
      u(i) = 2.0d0 - 1.0d-3 * dble(mod(i, 11))
    end do
    x = 0.0d0
  case default
    print '(2a)', 'driver: unknown kernel ', trim(kernel)
    stop 2
  end select

  ! Warm up, then calibrate the repetitions per batch.
  call batch(1_8)
  reps = 1
  do
    call system_clock(c0)
    call batch(reps)
    call system_clock(c1)
    if (dble(c1 - c0) / dble(rate) >= min_batch) exit
    reps = reps * 2
  end do
  best = huge(1.0d0)
  do b = 1, batches
    call system_clock(c0)
    call batch(reps)
    call system_clock(c1)
    t = dble(c1 - c0) / dble(rate) / dble(reps)
    best = min(best, t)
  end do

  select case (trim(kernel))
  case ('jacobi')
    checksum = sum(bm)
  case ('matvec', 'triangular')
    checksum = sum(y)
  case default
    checksum = sum(x)
  end select
  print '(3a, i0, a, i0)', 'kernel ', trim(kernel), ' n ', n, ' calls_per_batch ', reps
  print '(a, es12.5)', 'checksum ', checksum
  print '(a, es14.7)', 'seconds_per_call ', best

contains

  subroutine batch(reps)
    integer(8), intent(in) :: reps
    integer(8) :: k
    select case (trim(kernel))
    case ('jacobi')
      do k = 1, reps
        call jacobi(n, a, bm)
      end do
    case ('matvec')
      do k = 1, reps
        call matvec(n, a, x, y)
      end do
    case ('triangular')
      do k = 1, reps
        call triangular(n, a, y)
      end do
    case ('livermore1')
      do k = 1, reps
        call livermore1(n, q, r, s, x, y, z)
      end do
    case ('livermore7')
      do k = 1, reps
        call livermore7(n, q, r, s, x, y, z, u)
      end do
    end select
  end subroutine batch
end program driver
