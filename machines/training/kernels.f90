! kernels.f90 -- the training set of `costline train` (Balasundaram et al.'s
! "training set" method): small loops whose operation counts are known, written the
! way user code is written (explicit-shape dummy arrays, one DO loop, one assignment).
!
! This file is compiled on its own, separately from the timing driver (ops.f90,
! memory.f90), so the compiler cannot inline a kernel into its caller and optimize
! the repeated calls away. `costline train` times every kernel, counts its
! operations per iteration by costline's counting convention (one `load` per
! distinct array element read, one `store` per array element written, one add/mul/
! div per operator, one `loop_iter` per DO iteration, ...) and solves for the cost
! of each operation by non-negative least squares.
!
! The counts each kernel has are listed next to it; server/src/train/kernels.rs
! holds the same table.
module training_kernels
  implicit none
  private :: dp, sp, i8
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0), i8 = selected_int_kind(18)

  interface
    ! An external procedure compiled in tiny.f90: the callee of `k_call`.
    subroutine k_tiny(x)
      real(kind(1.0d0)), intent(inout) :: x
    end subroutine k_tiny
  end interface

contains

  ! store 1
  subroutine k_store(n, a, s)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: s
    integer :: i
    do i = 1, n
      a(i) = s
    end do
  end subroutine k_store

  ! load 1, store 1
  subroutine k_copy(n, a, b)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n)
    integer :: i
    do i = 1, n
      a(i) = b(i)
    end do
  end subroutine k_copy

  ! load 2, store 1, add_f64 1
  subroutine k_add(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n)
    integer :: i
    do i = 1, n
      a(i) = b(i) + c(i)
    end do
  end subroutine k_add

  ! load 2, store 1, add_f64 1
  subroutine k_sub(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n)
    integer :: i
    do i = 1, n
      a(i) = b(i) - c(i)
    end do
  end subroutine k_sub

  ! load 2, store 1, mul_f64 1
  subroutine k_mul(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n)
    integer :: i
    do i = 1, n
      a(i) = b(i) * c(i)
    end do
  end subroutine k_mul

  ! load 2, store 1, div_f64 1
  subroutine k_div(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n)
    integer :: i
    do i = 1, n
      a(i) = b(i) / c(i)
    end do
  end subroutine k_div

  ! load 2, store 1, add_f64 1, mul_f64 1 (the STREAM triad; also memory.f90's)
  subroutine k_triad(n, a, b, c, s)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n), s
    integer :: i
    do i = 1, n
      a(i) = b(i) + s * c(i)
    end do
  end subroutine k_triad

  ! load 4, store 1, add_f64 3 (n - 2 iterations)
  subroutine k_sum4(n, a, b, c, d)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n), d(n)
    integer :: i
    do i = 2, n - 1
      a(i) = b(i - 1) + b(i + 1) + c(i) + d(i)
    end do
  end subroutine k_sum4

  ! load 1, store 1, intrinsic_sqrt 1
  subroutine k_sqrt(n, a, b)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n)
    integer :: i
    do i = 1, n
      a(i) = sqrt(b(i))
    end do
  end subroutine k_sqrt

  ! load 1, store 1, intrinsic_exp 1
  subroutine k_exp(n, a, b)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n)
    integer :: i
    do i = 1, n
      a(i) = exp(b(i))
    end do
  end subroutine k_exp

  ! load 1, store 1, intrinsic_log 1
  subroutine k_log(n, a, b)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n)
    integer :: i
    do i = 1, n
      a(i) = log(b(i))
    end do
  end subroutine k_log

  ! load 1, store 1, intrinsic_sin 1
  subroutine k_sin(n, a, b)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n)
    integer :: i
    do i = 1, n
      a(i) = sin(b(i))
    end do
  end subroutine k_sin

  ! load 1, store 1, intrinsic_cos 1
  subroutine k_cos(n, a, b)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n)
    integer :: i
    do i = 1, n
      a(i) = cos(b(i))
    end do
  end subroutine k_cos

  ! load 1, store 1, intrinsic_abs 1
  subroutine k_abs(n, a, b)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n)
    integer :: i
    do i = 1, n
      a(i) = abs(b(i))
    end do
  end subroutine k_abs

  ! load 2, store 1, intrinsic_max 1
  subroutine k_max(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n)
    integer :: i
    do i = 1, n
      a(i) = max(b(i), c(i))
    end do
  end subroutine k_max

  ! load 2, store 1, intrinsic_min 1
  subroutine k_min(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n)
    integer :: i
    do i = 1, n
      a(i) = min(b(i), c(i))
    end do
  end subroutine k_min

  ! load 2, store 1, intrinsic_mod 1 (on default integers, as MOD mostly is in
  ! user code: mod(i, p))
  subroutine k_mod(n, ia, ib, ic)
    integer, intent(in) :: n
    integer, intent(out) :: ia(n)
    integer, intent(in) :: ib(n), ic(n)
    integer :: i
    do i = 1, n
      ia(i) = mod(ib(i), ic(i))
    end do
  end subroutine k_mod

  ! load 2, store 1, pow_f64 1
  subroutine k_pow(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n)
    integer :: i
    do i = 1, n
      a(i) = b(i) ** c(i)
    end do
  end subroutine k_pow

  ! load 1, store 1, cmp_f64 1 (a relational operator without a branch)
  subroutine k_cmp(n, la, b, s)
    integer, intent(in) :: n
    logical, intent(out) :: la(n)
    real(dp), intent(in) :: b(n), s
    integer :: i
    do i = 1, n
      la(i) = b(i) > s
    end do
  end subroutine k_cmp

  ! IF condition: load 1, cmp_f64 1, branch 1; the assignment, executed in the
  ! fraction f of the iterations where b(i) > s: load f, store f. The driver calls it
  ! with sorted data (a predictable branch) and with shuffled data (a random one),
  ! f = 1/2 both times.
  subroutine k_branch(n, a, b, s)
    integer, intent(in) :: n
    real(dp), intent(inout) :: a(n)
    real(dp), intent(in) :: b(n), s
    integer :: i
    do i = 1, n
      if (b(i) > s) a(i) = b(i)
    end do
  end subroutine k_branch

  ! load 2, store 1, add_i32 1
  subroutine k_add_i32(n, ia, ib, ic)
    integer, intent(in) :: n
    integer, intent(out) :: ia(n)
    integer, intent(in) :: ib(n), ic(n)
    integer :: i
    do i = 1, n
      ia(i) = ib(i) + ic(i)
    end do
  end subroutine k_add_i32

  ! load 2, store 1, mul_i32 1
  subroutine k_mul_i32(n, ia, ib, ic)
    integer, intent(in) :: n
    integer, intent(out) :: ia(n)
    integer, intent(in) :: ib(n), ic(n)
    integer :: i
    do i = 1, n
      ia(i) = ib(i) * ic(i)
    end do
  end subroutine k_mul_i32

  ! load 2, store 1, div_i32 1
  subroutine k_div_i32(n, ia, ib, ic)
    integer, intent(in) :: n
    integer, intent(out) :: ia(n)
    integer, intent(in) :: ib(n), ic(n)
    integer :: i
    do i = 1, n
      ia(i) = ib(i) / ic(i)
    end do
  end subroutine k_div_i32

  ! load 2, store 1, add_i64 1
  subroutine k_add_i64(n, ka, kb, kc)
    integer, intent(in) :: n
    integer(i8), intent(out) :: ka(n)
    integer(i8), intent(in) :: kb(n), kc(n)
    integer :: i
    do i = 1, n
      ka(i) = kb(i) + kc(i)
    end do
  end subroutine k_add_i64

  ! load 2, store 1, add_f32 1
  subroutine k_add_f32(n, fa, fb, fc)
    integer, intent(in) :: n
    real(sp), intent(out) :: fa(n)
    real(sp), intent(in) :: fb(n), fc(n)
    integer :: i
    do i = 1, n
      fa(i) = fb(i) + fc(i)
    end do
  end subroutine k_add_f32

  ! load 2, store 1, mul_f32 1
  subroutine k_mul_f32(n, fa, fb, fc)
    integer, intent(in) :: n
    real(sp), intent(out) :: fa(n)
    real(sp), intent(in) :: fb(n), fc(n)
    integer :: i
    do i = 1, n
      fa(i) = fb(i) * fc(i)
    end do
  end subroutine k_mul_f32

  ! load 2, store 1, div_f32 1
  subroutine k_div_f32(n, fa, fb, fc)
    integer, intent(in) :: n
    real(sp), intent(out) :: fa(n)
    real(sp), intent(in) :: fb(n), fc(n)
    integer :: i
    do i = 1, n
      fa(i) = fb(i) / fc(i)
    end do
  end subroutine k_div_f32

  ! load 2, store 1, add_f64 1, cvt_f64 1 (mixed-mode: the integer is converted)
  subroutine k_cvt(n, a, b, ib)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n)
    integer, intent(in) :: ib(n)
    integer :: i
    do i = 1, n
      a(i) = b(i) + ib(i)
    end do
  end subroutine k_cvt

  ! A 2-D nest with a short inner loop: per element load 2, store 1, add_f64 1 and
  ! loop_iter 1 + 1/k (the outer loop's iterations are what this kernel adds).
  subroutine k_nest(k, m, a, b, c)
    integer, intent(in) :: k, m
    real(dp), intent(out) :: a(k, m)
    real(dp), intent(in) :: b(k, m), c(k, m)
    integer :: i, j
    do j = 1, m
      do i = 1, k
        a(i, j) = b(i, j) + c(i, j)
      end do
    end do
  end subroutine k_nest

  ! The 2-D Jacobi update of the interior of a k x m grid: per element load 4,
  ! store 1, add_f64 3, mul_f64 1 and loop_iter 1 + 1/(k - 2).
  subroutine k_stencil(k, m, a, b)
    integer, intent(in) :: k, m
    real(dp), intent(out) :: a(k, m)
    real(dp), intent(in) :: b(k, m)
    integer :: i, j
    do j = 2, m - 1
      do i = 2, k - 1
        a(i, j) = 0.25d0 * (b(i - 1, j) + b(i + 1, j) + b(i, j - 1) + b(i, j + 1))
      end do
    end do
  end subroutine k_stencil

  ! A dot product into a scalar: load 2, add_f64 1, mul_f64 1, no store (the sum is
  ! a scalar, kept in a register); every addition waits for the previous one, so an
  ! iteration takes the addition's latency: latency_add_f64 1.
  subroutine k_dot(n, s, b, c)
    integer, intent(in) :: n
    real(dp), intent(out) :: s
    real(dp), intent(in) :: b(n), c(n)
    integer :: i
    s = 0.0d0
    do i = 1, n
      s = s + b(i) * c(i)
    end do
  end subroutine k_dot

  ! A first-order recurrence: load 2, mul_f64 1, add_f64 1; each iteration waits for
  ! the previous one's multiplication and addition: latency_mul_f64 1 and
  ! latency_add_f64 1 (d in [0.5, 1.5) keeps s bounded).
  subroutine k_recur(n, s, b, d)
    integer, intent(in) :: n
    real(dp), intent(out) :: s
    real(dp), intent(in) :: b(n), d(n)
    integer :: i
    s = 0.0d0
    do i = 1, n
      s = s * d(i) + b(i)
    end do
  end subroutine k_recur

  ! A recurrence through a division: load 1, div_f64 1; each iteration waits for the
  ! previous one's division: latency_div_f64 1 (b in [1, 2) keeps s in [0.5, 2)).
  subroutine k_recdiv(n, s, b)
    integer, intent(in) :: n
    real(dp), intent(out) :: s
    real(dp), intent(in) :: b(n)
    integer :: i
    s = 1.0d0
    do i = 1, n
      s = b(i) / s
    end do
  end subroutine k_recdiv

  ! s = max(s, b(i)): a running maximum, a recurrence through a compare-and-select
  ! (latency_cmp_f64).
  subroutine k_rmax(n, s, b)
    integer, intent(in) :: n
    real(dp), intent(out) :: s
    real(dp), intent(in) :: b(n)
    integer :: i
    s = b(1)
    do i = 1, n
      s = max(s, b(i))
    end do
  end subroutine k_rmax

  ! call 1 per iteration; the callee's body x = x + 1 is add_f64 1 (its dummy is a
  ! scalar: no load, no store).
  subroutine k_call(n, a)
    integer, intent(in) :: n
    real(dp), intent(inout) :: a(n)
    integer :: i
    do i = 1, n
      call k_tiny(a(i))
    end do
  end subroutine k_call

  ! The port grid: kernels each of which keeps one execution resource of an
  ! out-of-order core busiest (the adders, the multipliers, the loads, the stores, the
  ! divider, the front end), so that the `ports` model's costs per resource are
  ! separable from the loop's own overhead (which bounds the simple kernels above).
  ! Within an iteration the operations form a chain, evaluated left to right; the
  ! iterations are independent and overlap.

  ! load 1, store 1, add_f64 8
  subroutine k_add8(n, a, b, s)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), s
    integer :: i
    do i = 1, n
      a(i) = b(i) + s + s + s + s + s + s + s + s
    end do
  end subroutine k_add8

  ! load 1, store 1, mul_f64 8 (h close to 1 keeps the values bounded)
  subroutine k_mul8(n, a, b, h)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), h
    integer :: i
    do i = 1, n
      a(i) = b(i) * h * h * h * h * h * h * h * h
    end do
  end subroutine k_mul8

  ! load 1, store 1, mul_f64 4, add_f64 4 (a polynomial by Horner's rule)
  subroutine k_horner4(n, a, b, h)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), h
    integer :: i
    do i = 1, n
      a(i) = (((b(i) * h + h) * h + h) * h + h) * h + h
    end do
  end subroutine k_horner4

  ! load 8, store 1, mul_f64 4, add_f64 3 (the loads outnumber each kind of arithmetic)
  subroutine k_load8(m, a, x)
    integer, intent(in) :: m
    real(dp), intent(out) :: a(m)
    real(dp), intent(in) :: x(m, 8)
    integer :: i
    do i = 1, m
      a(i) = x(i, 1) * x(i, 2) + x(i, 3) * x(i, 4) + x(i, 5) * x(i, 6) + x(i, 7) * x(i, 8)
    end do
  end subroutine k_load8

  ! store 4
  subroutine k_store4(n, a, e, f, g, s)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n), e(n), f(n), g(n)
    real(dp), intent(in) :: s
    integer :: i
    do i = 1, n
      a(i) = s
      e(i) = s
      f(i) = s
      g(i) = s
    end do
  end subroutine k_store4

  ! Three statements: load 4, store 3, add_f64 2, mul_f64 1 (the front end)
  subroutine k_mix3(n, a, e, f, b, c, d, p, s)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n), e(n), f(n)
    real(dp), intent(in) :: b(n), c(n), d(n), p(n), s
    integer :: i
    do i = 1, n
      a(i) = b(i) + c(i)
      e(i) = d(i) * s
      f(i) = p(i) - s
    end do
  end subroutine k_mix3

  ! load 2, store 1, div_f64 1, add_f64 8 (the divider overlaps the adders)
  subroutine k_divadd(n, a, b, c, s)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n), s
    integer :: i
    do i = 1, n
      a(i) = b(i) / c(i) + s + s + s + s + s + s + s + s
    end do
  end subroutine k_divadd

  ! load 4, store 1, div_f64 2, add_f64 1
  subroutine k_div2(n, a, b, c, d, p)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n)
    real(dp), intent(in) :: b(n), c(n), d(n), p(n)
    integer :: i
    do i = 1, n
      a(i) = b(i) / c(i) + d(i) / p(i)
    end do
  end subroutine k_div2

  ! A recurrence along a short inner loop (k - 1 iterations per entry): per iteration
  ! load 2, store 1, mul_f64 1, add_f64 1 and loop_iter 1 + 1/(k - 1). Each entry's
  ! chain (a multiplication and an addition per iteration) is independent of the
  ! previous entry's, so the chains of consecutive entries overlap in the out-of-order
  ! window: the fit takes window_iterations from its time (called with k = 9 and 25).
  subroutine k_rshort(k, m, a, b, h)
    integer, intent(in) :: k, m
    real(dp), intent(inout) :: a(k, m)
    real(dp), intent(in) :: b(k, m), h
    integer :: i, j
    do j = 1, m
      do i = 2, k
        a(i, j) = a(i - 1, j) * h + b(i, j)
      end do
    end do
  end subroutine k_rshort

  ! The integer units. Integer arithmetic is associative, so the compiler regroups sums
  ! and folds constants: these kernels chain operations it cannot regroup. A division by
  ! a power of two is a shift, an add of the sign bit and a shift (add_i32 3).
  ! load 2, store 1, add_i32 14 (four divisions, a subtraction, an addition)
  subroutine k_ishift(n, ia, ib, ic)
    integer, intent(in) :: n
    integer, intent(out) :: ia(n)
    integer, intent(in) :: ib(n), ic(n)
    integer :: i
    do i = 1, n
      ia(i) = (ib(i) / 2 - ic(i) / 4) / 2 + ib(i) / 8
    end do
  end subroutine k_ishift

  ! load 2, store 1, add_i32 6 (MAX and MIN a compare and a conditional move each)
  subroutine k_iselect(n, ia, ib, ic)
    integer, intent(in) :: n
    integer, intent(out) :: ia(n)
    integer, intent(in) :: ib(n), ic(n)
    integer :: i
    do i = 1, n
      ia(i) = max(ib(i), ic(i)) + min(ib(i) - ic(i), 7)
    end do
  end subroutine k_iselect

  ! load 2, store 1, mul_i32 2, add_i32 3 (the integer multiplier)
  subroutine k_imul2(n, ia, ib, ic)
    integer, intent(in) :: n
    integer, intent(out) :: ia(n)
    integer, intent(in) :: ib(n), ic(n)
    integer :: i
    do i = 1, n
      ia(i) = ib(i) * ic(i) + (ib(i) + 1) * (ic(i) + 3)
    end do
  end subroutine k_imul2

  ! load 2, store 1, mul_i32 3, add_i32 3 (Horner's rule in the integers: the
  ! multiplier is busiest; the chain within an iteration overlaps the next iteration's)
  subroutine k_ihorner3(n, ia, ib, ic, k)
    integer, intent(in) :: n, k
    integer, intent(out) :: ia(n)
    integer, intent(in) :: ib(n), ic(n)
    integer :: i
    do i = 1, n
      ia(i) = ((ib(i) * k + ic(i)) * k + ib(i)) * k + ic(i)
    end do
  end subroutine k_ihorner3

  ! An integer recurrence: load 1, add_i32 4; each iteration waits for the previous
  ! one's shift, add, shift and add: latency_add_i32 4 (s stays below twice max(b)).
  subroutine k_irec(n, s, b)
    integer, intent(in) :: n
    integer, intent(out) :: s
    integer, intent(in) :: b(n)
    integer :: i
    s = 0
    do i = 1, n
      s = s / 2 + b(i)
    end do
  end subroutine k_irec

  ! The MATMUL intrinsic on m x m matrices, m above gfortran's inline limit (30, its
  ! -finline-matmul-limit): the library's blocked routine, m**3 multiply-adds
  ! (matmul_fma 1 per multiply-add).
  subroutine k_matmul(m, c, a, b)
    integer, intent(in) :: m
    real(dp), intent(out) :: c(m, m)
    real(dp), intent(in) :: a(m, m), b(m, m)
    c = matmul(a, b)
  end subroutine k_matmul

end module training_kernels
