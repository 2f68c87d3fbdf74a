! ops.f90 -- the timing driver of the operation training set (kernels.f90).
!
! Measures: the time per loop iteration of every training kernel, on arrays small
! enough to stay in the L1 data cache (n = 720 elements; at most four arrays of
! doubles, 23 KiB, per kernel) -- except the random branch, which reads windows of a
! 1 MiB array of random numbers.
!
! Usage: ops SECONDS ROUNDS
!   Every kernel is first calibrated: called R times, R doubled until the R calls
!   take SECONDS / 4, then R scaled so that one sample takes about SECONDS. Then
!   ROUNDS rounds each time one sample of every kernel in turn, and the minimum
!   per kernel is kept: the samples of a kernel are spread over the whole run, so a
!   burst of other work on the machine cannot spoil all of them (and the minimum
!   is the run least disturbed). Times come from a monotonic wall clock
!   (system_clock with int64 counts).
!
! Output, one line per kernel:  NAME SECONDS_PER_ITERATION
!   (the sample's time / (R * the kernel's loop iterations per call)); then a
!   checksum line that keeps every result alive.
program ops
  use training_kernels
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0), i8 = selected_int_kind(18)
  integer, parameter :: n = 720
  ! Random data for the unpredictable branch: every call reads another window of
  ! nbig elements (1 MiB): a pattern too long for the branch predictor to learn
  ! (it learns 16 Ki outcomes replayed over and over).
  integer, parameter :: nbig = 131072
  real(dp) :: a(n), b(n), c(n), d(n), bsorted(n), pos(n), expo(n), brandom(nbig)
  ! Outputs of the kernels that store more than one array, and the eight inputs of
  ! load8 (n/2 elements each: 23 KiB).
  real(dp) :: e(n), f(n), g(n), x8(n / 2, 8)
  real(sp) :: fa(n), fb(n), fc(n)
  ! The matrices of the MATMUL kernel: above the compiler's inline limit, 3 x 48 KiB.
  integer, parameter :: mm = 64
  real(dp) :: ma(mm, mm), mb(mm, mm), mc(mm, mm)
  integer :: ia(n), ib(n), ic(n), isum
  integer(i8) :: ka(n), kb(n), kc(n)
  logical :: la(n)
  real(dp) :: target, s, half, dsum
  integer, parameter :: max_kernels = 64
  character(len=16) :: names(max_kernels)
  integer :: reps(max_kernels)
  real(dp) :: best(max_kernels), t0
  integer :: rounds, i, k, nk, round
  character(len=64) :: arg

  target = 0.005d0
  rounds = 5
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) target
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) rounds
  end if

  ! Data in the ranges the intrinsics are usually called with: no overflow, no
  ! denormals, no division by zero.
  do i = 1, n
    b(i) = 1.0d0 + real(mod(i * 37, 101), dp) / 101.0d0          ! [1, 2)
    c(i) = 1.0d0 + real(mod(i * 53, 97), dp) / 97.0d0            ! [1, 2)
    d(i) = 0.5d0 + real(mod(i * 29, 89), dp) / 89.0d0
    pos(i) = b(i)
    expo(i) = 0.5d0 + real(mod(i * 17, 83), dp) / 83.0d0         ! [0.5, 1.5)
    fb(i) = real(b(i), sp)
    fc(i) = real(c(i), sp)
    ib(i) = 1000 + mod(i * 7919, 100000)
    ic(i) = 1 + mod(i * 31, 97)
    kb(i) = int(ib(i), i8) * 3_i8
    kc(i) = int(ic(i), i8)
    bsorted(i) = real(i, dp)
    a(i) = 0.0d0
    e(i) = 0.0d0
  end do
  do k = 1, 8
    x8(:, k) = b(1:n / 2) + real(k, dp)
  end do
  do k = 1, mm
    ma(:, k) = b(1:mm) + real(k, dp) / real(mm, dp)
    mb(:, k) = c(1:mm) - real(k, dp) / real(mm, dp)
  end do
  ! Uniform random numbers in [0, n): b(i) > half in half of the iterations, as
  ! for the sorted data, but in a random order.
  call random_seed_fixed()
  call random_number(brandom)
  brandom = brandom * real(n, dp)
  half = real(n, dp) / 2.0d0 + 0.5d0   ! bsorted(i) > half for exactly half of the elements
  s = 1.5d0

  nk = 0
  call add_kernel('store')
  call add_kernel('copy')
  call add_kernel('add')
  call add_kernel('sub')
  call add_kernel('mul')
  call add_kernel('div')
  call add_kernel('triad')
  call add_kernel('sum4')
  call add_kernel('sqrt')
  call add_kernel('exp')
  call add_kernel('log')
  call add_kernel('sin')
  call add_kernel('cos')
  call add_kernel('abs')
  call add_kernel('max')
  call add_kernel('min')
  call add_kernel('mod')
  call add_kernel('pow')
  call add_kernel('cmp')
  call add_kernel('branch_sorted')
  call add_kernel('branch_random')
  call add_kernel('add_i32')
  call add_kernel('mul_i32')
  call add_kernel('div_i32')
  call add_kernel('add_i64')
  call add_kernel('add_f32')
  call add_kernel('mul_f32')
  call add_kernel('div_f32')
  call add_kernel('cvt')
  call add_kernel('nest3')
  call add_kernel('nest8')
  call add_kernel('stencil')
  call add_kernel('dot')
  call add_kernel('recur')
  call add_kernel('recdiv')
  call add_kernel('rmax')
  call add_kernel('call')
  call add_kernel('add8')
  call add_kernel('mul8')
  call add_kernel('horner4')
  call add_kernel('load8')
  call add_kernel('store4')
  call add_kernel('mix3')
  call add_kernel('divadd')
  call add_kernel('div2')
  call add_kernel('ishift')
  call add_kernel('iselect')
  call add_kernel('imul2')
  call add_kernel('ihorner3')
  call add_kernel('irec')
  call add_kernel('rshort8')
  call add_kernel('rshort24')
  call add_kernel('matmul')

  do k = 1, nk
    call calibrate(k)
  end do
  best = huge(1.0d0)
  do round = 1, rounds
    do k = 1, nk
      t0 = now()
      call run(trim(names(k)), reps(k))
      best(k) = min(best(k), now() - t0)
    end do
  end do
  do k = 1, nk
    write (*, '(a, 1x, es14.6)') trim(names(k)), &
      best(k) / (real(reps(k), dp) * real(iterations(trim(names(k))), dp))
  end do

  write (*, '(a, es24.16)') 'checksum ', sum(a) + sum(e) + sum(f) + sum(g) + sum(real(fa, dp)) + real(sum(ia), dp) &
    + real(sum(ka), dp) + real(count(la), dp) + sum(mc)

contains

  subroutine random_seed_fixed()
    integer :: k
    integer, allocatable :: seed(:)
    call random_seed(size=k)
    allocate (seed(k))
    seed = 20240601
    call random_seed(put=seed)
  end subroutine random_seed_fixed

  real(dp) function now()
    integer(i8) :: count, rate
    call system_clock(count, rate)
    now = real(count, dp) / real(rate, dp)
  end function now

  ! Loop iterations of one call of kernel `name`.
  integer function iterations(name)
    character(len=*), intent(in) :: name
    select case (name)
    case ('sum4')
      iterations = n - 2
    case ('stencil')
      iterations = (30 - 2) * (n / 30 - 2)
    case ('load8')
      iterations = n / 2
    case ('rshort8')
      iterations = 8 * (n / 9)
    case ('rshort24')
      iterations = 24 * (n / 25)
    case ('matmul')
      iterations = mm**3
    case default
      iterations = n
    end select
  end function iterations

  ! Calls kernel `name` reps times.
  subroutine run(name, reps)
    character(len=*), intent(in) :: name
    integer, intent(in) :: reps
    integer :: it, off
    select case (name)
    case ('store')
      do it = 1, reps
        call k_store(n, a, s)
      end do
    case ('copy')
      do it = 1, reps
        call k_copy(n, a, b)
      end do
    case ('add')
      do it = 1, reps
        call k_add(n, a, b, c)
      end do
    case ('sub')
      do it = 1, reps
        call k_sub(n, a, b, c)
      end do
    case ('mul')
      do it = 1, reps
        call k_mul(n, a, b, c)
      end do
    case ('div')
      do it = 1, reps
        call k_div(n, a, b, c)
      end do
    case ('triad')
      do it = 1, reps
        call k_triad(n, a, b, c, s)
      end do
    case ('sum4')
      do it = 1, reps
        call k_sum4(n, a, b, c, d)
      end do
    case ('sqrt')
      do it = 1, reps
        call k_sqrt(n, a, pos)
      end do
    case ('exp')
      do it = 1, reps
        call k_exp(n, a, d)
      end do
    case ('log')
      do it = 1, reps
        call k_log(n, a, pos)
      end do
    case ('sin')
      do it = 1, reps
        call k_sin(n, a, d)
      end do
    case ('cos')
      do it = 1, reps
        call k_cos(n, a, d)
      end do
    case ('abs')
      do it = 1, reps
        call k_abs(n, a, d)
      end do
    case ('max')
      do it = 1, reps
        call k_max(n, a, b, c)
      end do
    case ('min')
      do it = 1, reps
        call k_min(n, a, b, c)
      end do
    case ('mod')
      do it = 1, reps
        call k_mod(n, ia, ib, ic)
      end do
    case ('pow')
      do it = 1, reps
        call k_pow(n, a, pos, expo)
      end do
    case ('cmp')
      do it = 1, reps
        call k_cmp(n, la, bsorted, half)
      end do
    case ('branch_sorted')
      do it = 1, reps
        call k_branch(n, a, bsorted, half)
      end do
    case ('branch_random')
      do it = 1, reps
        off = int(mod(int(it, i8) * n, int(nbig - n, i8)))
        call k_branch(n, a, brandom(off + 1), half)
      end do
    case ('add_i32')
      do it = 1, reps
        call k_add_i32(n, ia, ib, ic)
      end do
    case ('mul_i32')
      do it = 1, reps
        call k_mul_i32(n, ia, ib, ic)
      end do
    case ('div_i32')
      do it = 1, reps
        call k_div_i32(n, ia, ib, ic)
      end do
    case ('add_i64')
      do it = 1, reps
        call k_add_i64(n, ka, kb, kc)
      end do
    case ('add_f32')
      do it = 1, reps
        call k_add_f32(n, fa, fb, fc)
      end do
    case ('mul_f32')
      do it = 1, reps
        call k_mul_f32(n, fa, fb, fc)
      end do
    case ('div_f32')
      do it = 1, reps
        call k_div_f32(n, fa, fb, fc)
      end do
    case ('cvt')
      do it = 1, reps
        call k_cvt(n, a, b, ib)
      end do
    case ('nest3')
      do it = 1, reps
        call k_nest(3, n / 3, a, b, c)
      end do
    case ('nest8')
      do it = 1, reps
        call k_nest(8, n / 8, a, b, c)
      end do
    case ('stencil')
      do it = 1, reps
        call k_stencil(30, n / 30, a, b)
      end do
    case ('dot')
      do it = 1, reps
        call k_dot(n, dsum, b, c)
        a(1) = a(1) + dsum
      end do
    case ('recur')
      do it = 1, reps
        call k_recur(n, dsum, b, d)
        a(1) = a(1) + dsum
      end do
    case ('recdiv')
      do it = 1, reps
        call k_recdiv(n, dsum, b)
        a(1) = a(1) + dsum
      end do
    case ('rmax')
      do it = 1, reps
        call k_rmax(n, dsum, b)
        a(1) = a(1) + dsum
      end do
    case ('call')
      do it = 1, reps
        call k_call(n, a)
      end do
    case ('add8')
      do it = 1, reps
        call k_add8(n, a, b, s)
      end do
    case ('mul8')
      do it = 1, reps
        call k_mul8(n, a, b, d(1))
      end do
    case ('horner4')
      do it = 1, reps
        call k_horner4(n, a, b, d(1))
      end do
    case ('load8')
      do it = 1, reps
        call k_load8(n / 2, a, x8)
      end do
    case ('store4')
      do it = 1, reps
        call k_store4(n, a, e, f, g, s)
      end do
    case ('mix3')
      do it = 1, reps
        call k_mix3(n, a, e, f, b, c, d, pos, s)
      end do
    case ('divadd')
      do it = 1, reps
        call k_divadd(n, a, b, c, s)
      end do
    case ('div2')
      do it = 1, reps
        call k_div2(n, a, b, c, d, pos)
      end do
    case ('ishift')
      do it = 1, reps
        call k_ishift(n, ia, ib, ic)
      end do
    case ('iselect')
      do it = 1, reps
        call k_iselect(n, ia, ib, ic)
      end do
    case ('imul2')
      do it = 1, reps
        call k_imul2(n, ia, ib, ic)
      end do
    case ('rshort8')
      do it = 1, reps
        call k_rshort(9, n / 9, e, b, 0.5d0)
      end do
    case ('rshort24')
      do it = 1, reps
        call k_rshort(25, n / 25, e, b, 0.5d0)
      end do
    case ('ihorner3')
      do it = 1, reps
        call k_ihorner3(n, ia, ib, ic, 3)
      end do
    case ('irec')
      do it = 1, reps
        call k_irec(n, isum, ib)
        ia(1) = ieor(ia(1), isum)
      end do
    case ('matmul')
      do it = 1, reps
        call k_matmul(mm, mc, ma, mb)
        ma(1, 1) = ma(1, 1) + mc(mm, mm) * 1.0d-30
      end do
    end select
  end subroutine run

  subroutine add_kernel(name)
    character(len=*), intent(in) :: name
    nk = nk + 1
    names(nk) = name
  end subroutine add_kernel

  ! reps(k): the calls of kernel k that take about `target` seconds.
  subroutine calibrate(k)
    integer, intent(in) :: k
    integer :: r
    real(dp) :: t0, t
    call run(trim(names(k)), 1)  ! warm the caches and the branch predictor
    r = 1
    do
      t0 = now()
      call run(trim(names(k)), r)
      t = now() - t0
      if (t >= target / 4.0d0 .or. r >= 2**28) exit
      r = r * 2
    end do
    reps(k) = max(1, int(real(r, dp) * target / max(t, 1.0d-9)))
  end subroutine calibrate

end program ops
