! memory.f90 -- the memory hierarchy as `costline train` measures it.
!
! Usage (one mode per run; sizes in bytes):
!   memory chase HOPS SIZE...
!     Latency: a pointer chase through a random cyclic permutation of the cache
!     lines of a working set of SIZE bytes (Sattolo's algorithm: one cycle through
!     every line, in an order no prefetcher can guess). Every load depends on the
!     previous one, so the time per hop is the latency of the level the working set
!     fits in. Prints  chase SIZE SECONDS_PER_HOP  (minimum of 3 runs of HOPS hops,
!     after one warm-up pass).
!   memory stride SIZE STRIDE...
!     Cache line size: sums every (STRIDE/8)-th integer(8) of a SIZE-byte array
!     (larger than the caches). The time per access grows with the stride while
!     several accesses share a line and stops growing at the line size. Prints
!     stride STRIDE SECONDS_PER_ACCESS.
!   memory triad MIN_BYTES SAMPLES SIZE...
!     Bandwidth: the triad a(i) = b(i) + s*c(i) (kernels.f90's k_triad, compiled
!     separately) over three arrays of SIZE bytes together, repeated until at
!     least MIN_BYTES are moved; minimum time of SAMPLES samples. Prints
!     triad SIZE BYTES_PER_SECOND, counting 24 bytes per iteration (two reads, one
!     write, as the program sees them: no write-allocate traffic).
!   memory pages STRIDE COUNT...
!     Address translation: adds one double every STRIDE bytes, COUNT of them, into
!     an array, again and again (at least 4 M accesses per sample, minimum of 5
!     samples). With STRIDE a page and a line the accesses touch COUNT pages: once
!     they outnumber the TLB's entries every access walks the page tables; with
!     STRIDE a line, the same lines in a few pages. Prints
!     pages COUNT SECONDS_PER_ACCESS STRIDE.
program memory
  use training_kernels, only: k_triad
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  character(len=32) :: mode
  integer :: k, nargs

  nargs = command_argument_count()
  if (nargs < 1) stop 'usage: memory chase|stride|triad|pages ...'
  call get_command_argument(1, mode)
  select case (trim(mode))
  case ('chase')
    do k = 3, nargs
      call chase(int_arg(2), int_arg(k))
    end do
  case ('stride')
    do k = 3, nargs
      call stride(int_arg(2), int_arg(k))
    end do
  case ('triad')
    do k = 4, nargs
      call triad(int_arg(2), int(int_arg(3)), int_arg(k))
    end do
  case ('pages')
    do k = 3, nargs
      call pages(int_arg(2), int_arg(k))
    end do
  case default
    stop 'unknown mode'
  end select

contains

  integer(i8) function int_arg(k)
    integer, intent(in) :: k
    character(len=32) :: text
    call get_command_argument(k, text)
    read (text, *) int_arg
  end function int_arg

  real(dp) function now()
    integer(i8) :: count, rate
    call system_clock(count, rate)
    now = real(count, dp) / real(rate, dp)
  end function now

  subroutine chase(hops, bytes)
    integer(i8), intent(in) :: hops, bytes
    integer(i8), parameter :: line = 64_i8, per_line = line / 8_i8
    integer(i8), allocatable :: next(:), order(:)
    integer(i8) :: lines, i, j, p, h, tmp, warm
    real(dp) :: r, t0, t, best
    integer :: rep

    lines = max(2_i8, bytes / line)
    allocate (next(lines * per_line), order(lines))
    next = 0
    ! Sattolo: a uniformly random permutation with a single cycle.
    do i = 1, lines
      order(i) = i
    end do
    do i = lines, 2, -1
      call random_number(r)
      j = 1 + int(r * real(i - 1, dp), i8)
      if (j > i - 1) j = i - 1
      tmp = order(i)
      order(i) = order(j)
      order(j) = tmp
    end do
    ! Line i (its first integer) holds the index of the first integer of line
    ! order(i).
    do i = 1, lines
      next((i - 1) * per_line + 1) = (order(i) - 1) * per_line + 1
    end do
    deallocate (order)

    p = 1
    warm = min(lines, hops)
    do h = 1, warm
      p = next(p)
    end do
    best = huge(1.0d0)
    do rep = 1, 3
      t0 = now()
      do h = 1, hops
        p = next(p)
      end do
      t = now() - t0
      best = min(best, t)
    end do
    ! p is printed so the chase cannot be optimized away.
    write (*, '(a, 1x, i0, 1x, es14.6, 1x, i0)') 'chase', bytes, best / real(hops, dp), p
    deallocate (next)
  end subroutine chase

  subroutine stride(bytes, step_bytes)
    integer(i8), intent(in) :: bytes, step_bytes
    integer(i8), allocatable :: x(:)
    integer(i8) :: n, step, i, total, accesses
    real(dp) :: t0, t, best
    integer :: rep

    n = bytes / 8_i8
    step = max(1_i8, step_bytes / 8_i8)
    allocate (x(n))
    do i = 1, n
      x(i) = i
    end do
    total = 0
    best = huge(1.0d0)
    do rep = 1, 3
      t0 = now()
      do i = 1, n, step
        total = total + x(i)
      end do
      t = now() - t0
      best = min(best, t)
    end do
    accesses = (n + step - 1) / step
    write (*, '(a, 1x, i0, 1x, es14.6, 1x, i0)') 'stride', step_bytes, best / real(accesses, dp), total
    deallocate (x)
  end subroutine stride

  subroutine triad(min_bytes, samples, bytes)
    integer(i8), intent(in) :: min_bytes, bytes
    integer, intent(in) :: samples
    real(dp), allocatable :: a(:), b(:), c(:)
    integer :: n, reps, it, k
    real(dp) :: t0, t, best, s

    n = int(max(16_i8, bytes / 24_i8))
    allocate (a(n), b(n), c(n))
    b = 1.0d0
    c = 2.0d0
    a = 0.0d0
    s = 0.5d0
    reps = int(max(1_i8, min_bytes / (24_i8 * int(n, i8))))
    call k_triad(n, a, b, c, s)   ! first touch and warm-up
    best = huge(1.0d0)
    do k = 1, samples
      t0 = now()
      do it = 1, reps
        call k_triad(n, a, b, c, s)
      end do
      t = now() - t0
      best = min(best, t)
    end do
    write (*, '(a, 1x, i0, 1x, es14.6, 1x, es10.3)') 'triad', bytes, &
      24.0d0 * real(n, dp) * real(reps, dp) / best, a(n)
    deallocate (a, b, c)
  end subroutine triad

  subroutine pages(stride_bytes, count)
    integer(i8), intent(in) :: stride_bytes, count
    real(dp), allocatable :: x(:), b(:)
    integer(i8) :: step, reps, r
    real(dp) :: t0, best
    integer :: sample

    step = max(1_i8, stride_bytes / 8_i8)
    allocate (x(count * step + 1), b(count))
    x = 1.0d0
    b = 0.0d0
    reps = max(1_i8, 4000000_i8 / count)
    call gather(count, step, x, b)
    best = huge(1.0d0)
    do sample = 1, 5
      t0 = now()
      do r = 1, reps
        call gather(count, step, x, b)
      end do
      best = min(best, now() - t0)
    end do
    write (*, '(a, 1x, i0, 1x, es14.6, 1x, i0, 1x, es10.3)') 'pages', count, &
      best / real(reps * count, dp), stride_bytes, b(count)
    deallocate (x, b)
  end subroutine pages

  subroutine gather(count, step, x, b)
    integer(i8), intent(in) :: count, step
    real(dp), intent(in) :: x(*)
    real(dp), intent(inout) :: b(count)
    integer(i8) :: k
    do k = 1, count
      b(k) = b(k) + x(1 + (k - 1) * step)
    end do
  end subroutine gather

end program memory
